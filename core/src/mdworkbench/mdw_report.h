// The MD-Workbench tool's phase results: every rank's RankOps (op_stats.h) merged at phase
// end with the jobs' rank merge (MergeRanks, one per operation type, and one reduction of
// the counts it does not carry), the phase's JSON document (schema
// "deltameta.mdworkbench/1", core/doc/mdworkbench.md) and our table of it (MD-Workbench's
// own lines are mdw_lines.h): the phase, its time, balance, op and object rates, then per
// operation type the count, errors and latency quantiles (min, q1, median, q3, q90, q99, max).
#pragma once

#include <array>
#include <string>
#include <vector>

#include <mpi.h>
#include <nlohmann/json_fwd.hpp>

#include "mdworkbench/op_stats.h"

namespace deltameta {

struct MdwRankLine {
  int rank = 0;
  double elapsed_s = 0;
  uint64_t ops = 0;
  uint64_t errors = 0;
};

// A merged phase; meaningful on rank 0 only.
struct MdwPhaseResult {
  std::string phase;  // precreate, benchmark or cleanup
  int ranks = 0;
  double elapsed_s = 0;  // the slowest rank
  double rank_min_s = 0;
  double client_cpu_s = 0;
  double server_cpu_s = 0;
  std::array<OpTypeStats, kOpTypes> types;
  Verification checks;                // the untimed checks after the phase
  uint64_t objects = 0;               // objects the phase handled (set by the job)
  uint64_t expected_ops = 0;          // what the parameters imply (set by the job)
  std::vector<MdwRankLine> per_rank;  // with --process-reports

  uint64_t ops() const;
  // Every verification count of the phase: its operations' and its checks'.
  Verification Total() const;
};

// Collective over `comm`. With `per_rank`, rank 0 also gets every rank's line.
MdwPhaseResult MergeMdwRanks(const std::string& phase, const RankOps& mine, bool per_rank, MPI_Comm comm);

// The phase's document: `parameters` as given, `not_served` listed with `reason` when
// not empty.
nlohmann::json MdwPhaseJson(const MdwPhaseResult& r, const std::string& interface, const nlohmann::json& parameters,
                            const std::vector<std::string>& not_served, const std::string& reason);

// The phase's text lines (each ending in a newline).
std::string MdwPhaseText(const MdwPhaseResult& r, const std::vector<std::string>& not_served,
                         const std::string& reason);

}  // namespace deltameta
