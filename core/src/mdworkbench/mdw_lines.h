// MD-Workbench's own result lines (deltameta_mdworkbench --output=mdworkbench or both), in
// its format and order, so that scripts written for MD-Workbench's output read ours: per
// phase (per iteration for the benchmark) one line "<phase> process max:<t>s min:... mean:
// ... balance:... stddev:... rate:... (<n> errs) [stonewall-iter:<k>] read(...) stat(...)
// create(...) delete(...)", the rates and counts MD-Workbench prints for that phase, each
// latency group (min, q1, median, q3, q90, q99, max in seconds, %.4e) only for the
// operation types the phase ran; with --process-reports one line "<rank>: <phase> process
// max:..." per rank after it, without the min/mean/balance part. The quantiles are picked as
// MD-Workbench picks them: the sorted latencies' element round(q * n + 0.49) (the last if
// that is past the end, where MD-Workbench reads past its array), the median the middle one
// or the mean of the middle two. Errors
// are every error of the phase's operations and data sets, and of the untimed checks after
// it (deleted objects gone). core/doc/mdworkbench.md, "Output", has the fields.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <mpi.h>

#include "mdworkbench/op_stats.h"

namespace deltameta {

// One rank's part of a phase (or of one benchmark iteration) as MD-Workbench counts it.
struct MdwLinePart {
  double elapsed_s = 0;
  std::array<uint64_t, kOpTypes> count{}, errors{};  // per OpType
  uint64_t data_sets = 0;                            // made (precreate) or removed (cleanup)
  uint64_t other_errors = 0;                         // a data set's, the checks' after the phase
  double max_op_s = 0;                               // the slowest operation
  std::array<std::vector<float>, kOpTypes> latency_s;

  uint64_t ok(OpType t) const;
  uint64_t error_total() const;
};

// Where a rank's counts stood, so that a part can be taken from there on.
struct MdwMark {
  std::array<uint64_t, kOpTypes> count{}, errors{};
  uint64_t checks = 0, data_sets = 0;
  size_t records = 0;
};
MdwMark MarkOf(const RankOps& ops);
// What `ops` recorded since `from` (its operations' latencies need log_latencies).
MdwLinePart PartSince(const RankOps& ops, const MdwMark& from, double elapsed_s);

struct MdwLineSettings {
  uint64_t object_size = 0;
  bool read_only = false;       // 2 operations per benchmark object (stat, read) instead of 4
  uint64_t stonewall_iter = 0;  // shown as stonewall-iter when not 0
  bool process_reports = false;
};

// One line (no newline) for `phase` (precreate, benchmark or cleanup) of the merged `part`;
// with `rank_times` (every rank's elapsed_s) the min/mean/balance/stddev part is included.
std::string FormatMdwLine(const std::string& phase, const MdwLinePart& part, const MdwLineSettings& s,
                          const std::vector<double>* rank_times);

// Collective over `comm`: on rank 0 the phase's lines (each ending in a newline), "" on
// the others.
std::string MdwResultLines(const std::string& phase, const MdwLinePart& mine, const MdwLineSettings& s, MPI_Comm comm);

}  // namespace deltameta
