// CPU placement of RPC clients and server loops: see cpu_placement.h.
#include "util/cpu_placement.h"

#include <sched.h>

namespace deltameta {

std::vector<int> AllowedCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

int CpuForSlot(const std::vector<int>& cpus, int slot) {
  if (cpus.empty() || slot < 0) return -1;
  return cpus[static_cast<size_t>(slot) % cpus.size()];
}

bool PinCallingThread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

int PinnedCpu() {
  const std::vector<int> cpus = AllowedCpus();
  return cpus.size() == 1 ? cpus[0] : -1;
}

}  // namespace deltameta
