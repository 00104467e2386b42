// Host description: see build_info.h.
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "util/build_info.h"

namespace deltameta {
namespace {

// The value of the first "key : value" line of `path` whose key starts with `key`.
std::string ProcField(const char* path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      size_t start = line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  }
  return "";
}

}  // namespace

std::string IsoTimeNow() {
  char buf[40];
  std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S%z", std::localtime(&t));
  return buf;
}

double UnixTimeNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

nlohmann::json HostInfoJson() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  struct utsname u;
  uname(&u);
  return {
      {"hostname", host},
      {"kernel", std::string(u.sysname) + " " + u.release},
      {"cpu_model", ProcField("/proc/cpuinfo", "model name")},
      {"cpus", std::thread::hardware_concurrency()},
      {"cpu_cache", ProcField("/proc/cpuinfo", "cache size")},
      {"memory", ProcField("/proc/meminfo", "MemTotal")},
  };
}

std::string HeaderPreamble() {
  char date[64];
  std::time_t t = std::time(nullptr);
  std::strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", std::localtime(&t));
  return std::string("Date:       ") + date + "\n" +
         "CPU:        " + std::to_string(std::thread::hardware_concurrency()) + " * " +
         ProcField("/proc/cpuinfo", "model name") + "\n" + "CPUCache:   " + ProcField("/proc/cpuinfo", "cache size") +
         "\n";
}

}  // namespace deltameta
