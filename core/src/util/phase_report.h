// Per-rank and job-wide phase results and the seed guide's "==insert : ..." line; no MPI
// here. Merging ranks and the phase's JSON document are the jobs' (job_report.h).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "util/histogram.h"

namespace deltameta {

struct PhaseCounters {
  uint64_t ops = 0;         // operations attempted
  uint64_t exists = 0;      // creates refused: the name already existed
  uint64_t missing = 0;     // lstats that did not find their file
  uint64_t mismatched = 0;  // lstats that found wrong attributes
  uint64_t failed = 0;      // operations the store or server failed
  uint64_t errors() const { return exists + missing + mismatched + failed; }
};

// What one rank measured in one phase (recorded by that rank's thread only).
struct RankPhase {
  PhaseCounters counters;
  Histogram latency_ns;
  double elapsed_s = 0;
  double cpu_s = 0;
};

// The merged phase (MergeRanks in job_report.h); meaningful on rank 0 only.
struct JobPhase {
  PhaseCounters counters;
  Histogram latency_ns;
  int ranks = 0;
  double elapsed_s = 0;  // slowest rank
  double rank_min_s = 0;
  double rank_sum_s = 0;
  double client_cpu_s = 0;
  double server_cpu_s = 0;
};

// Mean time per operation seen by one rank: the sum of the ranks' times over all ops.
double MicrosPerOp(const JobPhase& job);

// "==insert    :    49.499 micros/op,     0.081 Mop/s,           9.928 s,          800000 ops"
// micros/op is the mean time per operation seen by one rank; Mop/s is job-wide.
std::string ResultLine(const std::string& phase, const JobPhase& job);

// User + system CPU seconds this process has used so far.
double ProcessCpuSeconds();

// Appends one JSON document per line to a file (truncated when opened, unless `append`).
class JsonLinesFile {
 public:
  // An empty path makes a sink that writes nothing. Returns false with *error if it cannot open.
  bool Open(const std::string& path, std::string* error, bool append = false);
  void Append(const nlohmann::json& doc);
  ~JsonLinesFile();

 private:
  std::FILE* file_ = nullptr;
};

}  // namespace deltameta
