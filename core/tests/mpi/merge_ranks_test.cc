// MergeRanks under a real MPI job (ctest runs this binary on 4 ranks): the merged phase is
// exact, and merging costs no rank a lasting pool of MPI memory.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>
#include <mpi.h>

#include "jobs/job_report.h"
#include "jobs/mpi_util.h"
#include "mpi_test.h"

namespace deltameta {
namespace {

// Anonymous resident memory (heap, stacks, MPI's pools) of this process, KiB.
long RssAnonKib() {
  FILE* f = std::fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && std::fgets(line, sizeof(line), f)) {
    if (std::strncmp(line, "RssAnon:", 8) == 0) kib = std::atol(line + 8);
  }
  if (f) std::fclose(f);
  return kib;
}

// Rank r's latencies: r + 1 operations of (r + 1) ms each.
void AddLatenciesOfRank(int r, Histogram* latency_ns) {
  for (int i = 0; i <= r; i++) latency_ns->Add(static_cast<uint64_t>(r + 1) * 1000000);
}

// Rank r did r + 1 operations of (r + 1) ms each, one of which failed, in 1 + r seconds.
RankPhase PhaseOfRank(int r) {
  RankPhase p;
  p.counters.ops = static_cast<uint64_t>(r) + 1;
  p.counters.failed = 1;
  AddLatenciesOfRank(r, &p.latency_ns);
  p.elapsed_s = 1.0 + r;
  p.cpu_s = 0.5;
  return p;
}

// With five or more nonblocking collectives outstanding, MPICH gives the inner ranks of
// the tree a 272 KiB request pool for the rest of the job. First every rank arrives late
// at one reduction, so that the one-time buffers MPI takes for early messages are in
// place already. Runs first: the pool, once taken, stays.
TEST(MergeRanks, TakesNoLastingMpiMemory) {
  for (int late = 0; late < TestSession().size(); late++) {
    if (TestSession().rank() == late) usleep(20000);
    uint64_t in[Histogram::kBuckets] = {0}, out[Histogram::kBuckets];
    QuietReduce(in, out, Histogram::kBuckets, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  }
  const long before = RssAnonKib();
  for (int i = 0; i < 3; i++) MergeRanks(PhaseOfRank(TestSession().rank()), MPI_COMM_WORLD);
  long growth = RssAnonKib() - before, most = 0;
  QuietReduce(&growth, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (TestSession().rank() == 0) {
    EXPECT_LT(most, 64) << "KiB of anonymous memory gained by a rank";
  }
}

TEST(MergeRanks, SumsCountsAndTimesAndKeepsTheExtremes) {
  const int n = TestSession().size();
  JobPhase job = MergeRanks(PhaseOfRank(TestSession().rank()), MPI_COMM_WORLD);
  if (TestSession().rank() != 0) return;
  const uint64_t ops = static_cast<uint64_t>(n) * (n + 1) / 2;
  EXPECT_EQ(job.ranks, n);
  EXPECT_EQ(job.counters.ops, ops);
  EXPECT_EQ(job.counters.failed, static_cast<uint64_t>(n));
  EXPECT_EQ(job.counters.exists + job.counters.missing + job.counters.mismatched, 0u);
  EXPECT_DOUBLE_EQ(job.elapsed_s, n);
  EXPECT_DOUBLE_EQ(job.rank_min_s, 1.0);
  EXPECT_DOUBLE_EQ(job.rank_sum_s, n * (n + 1) / 2.0);
  EXPECT_DOUBLE_EQ(job.client_cpu_s, 0.5 * n);
  EXPECT_EQ(job.latency_ns.count(), ops);
  EXPECT_EQ(job.latency_ns.min(), 1000000u);
  EXPECT_EQ(job.latency_ns.max(), static_cast<uint64_t>(n) * 1000000);
  Histogram all;  // every rank's latencies recorded in one histogram
  for (int r = 0; r < n; r++) AddLatenciesOfRank(r, &all);
  EXPECT_EQ(job.latency_ns.buckets(), all.buckets());
}

TEST(MergeRanks, EmptyPhasesMergeToZeroLatencies) {
  JobPhase job = MergeRanks(RankPhase(), MPI_COMM_WORLD);
  if (TestSession().rank() != 0) return;
  EXPECT_EQ(job.latency_ns.count(), 0u);
  EXPECT_EQ(job.latency_ns.min(), 0u);
  EXPECT_EQ(job.latency_ns.max(), 0u);
}

}  // namespace
}  // namespace deltameta
