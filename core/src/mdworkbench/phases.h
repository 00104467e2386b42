// One rank's part of each MD-Workbench phase (objects.h says which objects), through an
// interface (interface.h), every operation timed and verified into RankOps (op_stats.h):
//   precreate  per own data set: make it, create objects 0 .. P-1
//   benchmark  R iterations; per object position f < I and data set d of the target rank:
//              stat (size and mode checked), read (every byte checked), delete, and create
//              the replacement; an interface that serves no create or delete (DeltaFS
//              after its compaction) stats and reads precreated objects only
//   cleanup    per own data set: delete the remaining objects, remove the data set
// and the untimed checks after them: every object the rank deleted now answers
// not-found. No MPI here; the job (mdw_job.h) times the phase around these calls.
#pragma once

#include <chrono>
#include <string>

#include "mdworkbench/interface.h"
#include "mdworkbench/op_stats.h"

namespace deltameta {

class PhaseRunner {
 public:
  using Clock = std::chrono::steady_clock;

  // The phase starts now (operations' start times are relative to it).
  PhaseRunner(MdwInterface* iface, const ObjectSpace& space, uint32_t rank, RankOps* ops);

  // Each returns false with *fatal if the run cannot go on; counted errors do not stop it.
  bool Precreate(std::string* fatal);
  bool Benchmark(std::string* fatal);
  // Deletes objects first .. first + P - 1 of each own data set (ObjectSpace::FirstRemaining).
  bool Cleanup(uint64_t first, std::string* fatal);

  // Untimed: the objects Benchmark (or Cleanup from `first`) deleted answer not-found.
  bool CheckBenchmarkDeletes(std::string* fatal);
  bool CheckCleanupDeletes(uint64_t first, std::string* fatal);

  // Whether Benchmark replaces objects (the interface creates and deletes).
  bool replaces() const;
  // The first counted failure's message ("" if none), for the rank's log line.
  const std::string& first_failure() const { return first_failure_; }

 private:
  // Runs `op` as one operation of type `t` and records its time.
  template <typename Op>
  Outcome Timed(OpType t, Op op);
  // Counts `o` into *v; false (with *fatal) if it ends the run.
  bool Count(Outcome o, Verification* v, std::string* fatal);
  // Expects `id` to be gone: counts into the checks; false (with *fatal) if the run ends.
  bool ExpectGone(const ObjectId& id, std::string* fatal);

  MdwInterface* iface_;
  ObjectSpace space_;
  uint32_t rank_;
  RankOps* ops_;
  Clock::time_point start_;
  std::string data_, error_, first_failure_;
};

}  // namespace deltameta
