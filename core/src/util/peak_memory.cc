// Peak memory of this process: see peak_memory.h.
#include "util/peak_memory.h"

#include <fstream>
#include <string>

namespace deltameta {

uint64_t PeakResidentKib() {
  std::ifstream status("/proc/self/status");
  std::string field;
  while (status >> field) {
    if (field == "VmHWM:") {
      uint64_t kib = 0;
      status >> kib;
      return kib;
    }
    status.ignore(1 << 16, '\n');
  }
  return 0;
}

}  // namespace deltameta
