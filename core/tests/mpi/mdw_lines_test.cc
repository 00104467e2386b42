// MD-Workbench's result lines (mdworkbench/mdw_lines.h) under a real MPI job (ctest runs this
// binary on 4 ranks): every rank's latencies and counts reach rank 0's line, the quantiles
// are picked as MD-Workbench picks them, and the fields come in its order.
#include "mdworkbench/mdw_lines.h"

#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <mpi.h>

#include "mpi_test.h"

namespace deltameta {
namespace {

// A benchmark part of `n` objects: each a stat, read, delete and create of `ms` ms.
MdwLinePart Benchmark(int n, float ms, double elapsed_s) {
  MdwLinePart p;
  p.elapsed_s = elapsed_s;
  for (int t = 0; t < kOpTypes; t++) {
    p.count[t] = static_cast<uint64_t>(n);
    p.latency_s[t].assign(static_cast<size_t>(n), ms / 1000);
  }
  p.max_op_s = ms / 1000.0;
  return p;
}

TEST(MdwLines, QuantilesAndFieldsInMdworkbenchOrder) {
  MdwLinePart p;
  p.elapsed_s = 2;
  p.count[static_cast<int>(OpType::kCreate)] = 10;
  // 10 latencies, 1..10 ms: q1 is element round(2.5 + 0.49) = 3 (4 ms), q3 element 8, q90
  // and q99 the last; the median the mean of elements 4 and 5.
  for (int i = 10; i >= 1; i--) p.latency_s[static_cast<int>(OpType::kCreate)].push_back(i / 1000.0f);
  p.data_sets = 4;
  p.max_op_s = 0.01;
  MdwLineSettings s;
  s.object_size = 1024 * 1024;
  const std::vector<double> times = {2.0};
  EXPECT_EQ(FormatMdwLine("precreate", p, s, &times),
            "precreate process max:2.00s min:2.0s mean: 2.0s balance:100.0 stddev:-nan rate:7.0 iops/s dsets: 4 "
            "objects:10 rate:2.000 dset/s rate:5.0 obj/s tp:5.0 MiB/s op-max:1.0000e-02s (0 errs) "
            "create(1.0000e-03s, 4.0000e-03s, 5.5000e-03s, 9.0000e-03s, 1.0000e-02s, 1.0000e-02s, 1.0000e-02s)");
  p.errors[static_cast<int>(OpType::kCreate)] = 1;
  p.other_errors = 2;
  s.stonewall_iter = 7;
  const std::string cleanup = FormatMdwLine("cleanup", p, s, nullptr);
  EXPECT_EQ(cleanup.rfind("cleanup process max:2.00s rate:2.0 iops/s objects:0 dsets: 4 rate:0.0 obj/s rate:2.000 "
                          "dset/s op-max:1.0000e-02s (3 errs!!!) stonewall-iter:7 create(1.0000e-03s, ",
                          0),
            0u)
      << cleanup;
}

TEST(MdwLines, RankZeroGetsEveryRanksOperations) {
  // Rank r: r + 1 objects of r + 1 ms each, r + 1 seconds.
  const int r = TestSession().rank();
  MdwLineSettings s;
  s.object_size = 0;
  s.process_reports = true;
  const std::string out = MdwResultLines("benchmark", Benchmark(r + 1, r + 1.0f, r + 1.0), s, MPI_COMM_WORLD);
  if (r != 0) {
    EXPECT_EQ(out, "");
    return;
  }
  const int n = TestSession().size() * (TestSession().size() + 1) / 2;  // objects over all ranks
  char head[256];
  std::snprintf(head, sizeof(head), "benchmark process max:%d.00s min:1.0s mean: %.1fs balance:%.1f ",
                TestSession().size(), n / static_cast<double>(TestSession().size()), 100.0 / TestSession().size());
  EXPECT_EQ(out.rfind(head, 0), 0u) << out;
  EXPECT_NE(out.find(" objects:" + std::to_string(n) + " "), std::string::npos) << out;
  EXPECT_NE(out.find(" (0 errs) read("), std::string::npos) << out;
  EXPECT_NE(out.find(") stat("), std::string::npos) << out;
  EXPECT_NE(out.find(") create("), std::string::npos) << out;
  EXPECT_NE(out.find(") delete(1.0000e-03s, "), std::string::npos) << out;
  // One line per rank after the phase's, its own objects.
  for (int rank = 0; rank < TestSession().size(); rank++) {
    const std::string line = "\n" + std::to_string(rank) + ": benchmark process max:" + std::to_string(rank + 1) +
                             ".00s rate:" + std::to_string(4 * (rank + 1) / (rank + 1)) +
                             ".0 iops/s objects:" + std::to_string(rank + 1) + " ";
    EXPECT_NE(out.find(line), std::string::npos) << line << out;
  }
}

}  // namespace
}  // namespace deltameta
