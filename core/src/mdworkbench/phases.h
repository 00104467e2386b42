// One rank's part of each MD-Workbench phase (objects.h says which objects), through an
// interface (interface.h), every operation timed and verified into RankOps (op_stats.h):
//   precreate  per own data set: make it, create objects 0 .. P-1
//   benchmark  R iterations (one call each); per object position f < I and data set d of
//              the target rank: stat (size and mode checked), read (every byte checked),
//              delete, and create the replacement; an interface that serves no create or
//              delete (DeltaFS after its compaction) stats and reads precreated objects
//              only. A stonewall (-w) ends an iteration at the first position that ends
//              after its seconds; with wear-out (-W) every rank then runs as many
//              positions as the rank that ran the most (MD-Workbench's -w and -W)
//   cleanup    per own data set: delete the remaining objects, remove the data set
// and the untimed checks after them: every object the rank deleted now answers
// not-found. No MPI here; the job (mdw_job.h) times the phase around these calls.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "mdworkbench/interface.h"
#include "mdworkbench/op_stats.h"

namespace deltameta {

// The stonewall of each benchmark iteration.
struct Stonewall {
  double seconds = 0;  // 0: none
  bool wear_out = false;
  // With wear_out: called once per iteration on every rank with the positions the rank had
  // run when its time ran out (or all I if it never did); returns the positions every rank
  // runs in the iteration, the most any rank had run. Collective (the job's MPI).
  std::function<uint64_t(uint64_t)> agree;
};

// What one benchmark iteration of one rank ran.
struct IterationRun {
  uint64_t positions = 0;  // positions run (each one object of every data set)
  bool stopped = false;    // the stonewall ended the iteration before I positions
  double hit_s = -1;       // when the stonewall fired on this rank (-1: it did not)
  double agree_s = 0;      // time in the wear-out agreement, not the iteration's own
};

class PhaseRunner {
 public:
  using Clock = std::chrono::steady_clock;

  // The phase starts now (operations' start times are relative to it).
  PhaseRunner(MdwInterface* iface, const ObjectSpace& space, uint32_t rank, RankOps* ops);

  // Each returns false with *fatal if the run cannot go on; counted errors do not stop it.
  bool Precreate(std::string* fatal);
  // One iteration, from position `first` (the positions earlier iterations ran), up to I
  // positions or the stonewall.
  bool BenchmarkIteration(uint64_t first, const Stonewall& wall, IterationRun* run, std::string* fatal);
  // Deletes objects first .. first + P - 1 of each own data set, `first` the positions the
  // benchmark ran on them (objects.h).
  bool Cleanup(uint64_t first, std::string* fatal);

  // Untimed: the objects an iteration deleted (positions first .. first + positions - 1),
  // or Cleanup from `first`, answer not-found.
  bool CheckBenchmarkDeletes(uint64_t first, uint64_t positions, std::string* fatal);
  bool CheckCleanupDeletes(uint64_t first, std::string* fatal);

  // Whether Benchmark replaces objects (the interface creates and deletes).
  bool replaces() const;
  // The first counted failure's message ("" if none), for the rank's log line.
  const std::string& first_failure() const { return first_failure_; }

 private:
  // Runs `op` as one operation of type `t` and records its time.
  template <typename Op>
  Outcome Timed(OpType t, Op op);
  // One position of the benchmark: object k of every data set of `target`.
  bool Position(uint32_t target, uint64_t k, bool replace, std::string* fatal);
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
