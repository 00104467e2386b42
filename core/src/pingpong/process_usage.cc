// A process's CPU time and context switches from /proc: see process_usage.h.
#include "pingpong/process_usage.h"

#include <dirent.h>
#include <time.h>

#include <fstream>
#include <string>

namespace deltameta {

ProcessUsage ReadProcessUsage(pid_t pid) {
  ProcessUsage u;
  clockid_t clock;
  timespec t{};
  if (clock_getcpuclockid(pid, &clock) == 0 && clock_gettime(clock, &t) == 0) {
    u.cpu_s = static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
  }
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = opendir(tasks.c_str());
  if (dir == nullptr) return u;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream status(tasks + "/" + e->d_name + "/status");
    std::string line;
    while (std::getline(status, line)) {
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      const std::string key = line.substr(0, colon);
      if (key == "voluntary_ctxt_switches") u.voluntary += std::stoull(line.substr(colon + 1));
      if (key == "nonvoluntary_ctxt_switches") u.involuntary += std::stoull(line.substr(colon + 1));
    }
  }
  closedir(dir);
  return u;
}

ProcessUsage SumProcessUsage(const std::vector<pid_t>& pids) {
  ProcessUsage sum;
  for (pid_t pid : pids) {
    ProcessUsage u = ReadProcessUsage(pid);
    sum.cpu_s += u.cpu_s;
    sum.voluntary += u.voluntary;
    sum.involuntary += u.involuntary;
  }
  return sum;
}

}  // namespace deltameta
