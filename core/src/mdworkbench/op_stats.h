// What one rank measures in one phase of the MD-Workbench tool, recorded by the rank's
// one thread (no shared counters): per operation type a latency histogram (histogram.h)
// and the verification counts, plus, with -L or MD-Workbench's result lines (mdw_lines.h),
// every operation's start and latency (the per-rank CSV file, the lines' quantiles). Merged
// across ranks at phase end (mdw_report.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "mdworkbench/interface.h"
#include "util/histogram.h"

namespace deltameta {

// Verification counts (the JSON's "verification" fields but expected_ops and total).
struct Verification {
  uint64_t failed = 0;               // operations the file system or a server failed
  uint64_t missing = 0;              // an object that should exist was not found
  uint64_t mismatched = 0;           // a stat's attributes were not the object's
  uint64_t wrong_bytes = 0;          // a read returned other bytes than the object's
  uint64_t deleted_still_found = 0;  // a deleted object still answered (untimed check after the phase)
  uint64_t total() const { return failed + missing + mismatched + wrong_bytes + deleted_still_found; }
};

struct OpTypeStats {
  uint64_t count = 0;
  Verification errors;  // deleted_still_found stays 0: it belongs to no operation
  Histogram latency_ns;
};

class RankOps {
 public:
  // With `log_latencies`, every Record is also kept for WriteLatencyCsv.
  explicit RankOps(bool log_latencies) : log_(log_latencies) {}

  // One operation of type `t` that started `start_ns` after the phase began and took
  // `latency_ns`; an error it had is counted in errors(t).
  void Record(OpType t, uint64_t start_ns, uint64_t latency_ns) {
    OpTypeStats& s = types_[static_cast<int>(t)];
    s.count++;
    s.latency_ns.Add(latency_ns);
    if (log_) records_.push_back({static_cast<uint8_t>(t), start_ns, latency_ns});
  }
  Verification& errors(OpType t) { return types_[static_cast<int>(t)].errors; }
  const OpTypeStats& type(OpType t) const { return types_[static_cast<int>(t)]; }
  // Errors of the untimed checks after the phase (deleted objects gone).
  Verification& checks() { return checks_; }
  const Verification& checks() const { return checks_; }

  uint64_t ops() const;
  uint64_t error_total() const;

  // Every recorded operation (with log_latencies).
  struct LatencyRecord {
    uint8_t type;
    uint64_t start_ns, latency_ns;
  };
  const std::vector<LatencyRecord>& records() const { return records_; }

  // Writes "op,start_us,latency_us", then one line per recorded operation, to `path`.
  bool WriteLatencyCsv(const std::string& path, std::string* error) const;

  double elapsed_s = 0;
  double cpu_s = 0;
  uint64_t data_sets = 0;  // data sets made (precreate) or removed (cleanup)

 private:
  bool log_;
  std::array<OpTypeStats, kOpTypes> types_;
  Verification checks_;
  std::vector<LatencyRecord> records_;
};

}  // namespace deltameta
