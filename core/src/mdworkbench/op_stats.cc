// Per-rank operation statistics of the MD-Workbench tool: see op_stats.h.
#include "mdworkbench/op_stats.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace deltameta {

const char* OpTypeName(OpType t) {
  switch (t) {
    case OpType::kCreate:
      return "create";
    case OpType::kStat:
      return "stat";
    case OpType::kRead:
      return "read";
    case OpType::kDelete:
      return "delete";
  }
  return "unknown";
}

uint64_t RankOps::ops() const {
  uint64_t n = 0;
  for (const OpTypeStats& s : types_) n += s.count;
  return n;
}

uint64_t RankOps::error_total() const {
  uint64_t n = checks_.total();
  for (const OpTypeStats& s : types_) n += s.errors.total();
  return n;
}

bool RankOps::WriteLatencyCsv(const std::string& path, std::string* error) const {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    *error = "cannot write latency file " + path + ": " + std::strerror(errno);
    return false;
  }
  std::fprintf(f, "op,start_us,latency_us\n");
  for (const LatencyRecord& r : records_) {
    std::fprintf(f, "%s,%.3f,%.3f\n", OpTypeName(static_cast<OpType>(r.type)), static_cast<double>(r.start_ns) / 1e3,
                 static_cast<double>(r.latency_ns) / 1e3);
  }
  const bool ok = std::fclose(f) == 0;
  if (!ok) *error = "cannot write latency file " + path + ": " + std::strerror(errno);
  return ok;
}

}  // namespace deltameta
