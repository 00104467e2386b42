// Tests workload.h: unique file names, the visiting order, and the expected attributes check.
#include "client/workload.h"

#include <algorithm>
#include <numeric>
#include <set>

#include <gtest/gtest.h>

#include "deltameta/key.h"

namespace deltameta {
namespace {

Workload Rank(uint32_t rank, uint64_t files, bool random_order = true) {
  Workload w;
  w.rank = rank;
  w.num_ranks = 64;
  w.files_per_rank = files;
  w.random_order = random_order;
  return w;
}

TEST(WorkloadTest, FileNamesAreUniqueAcrossRanksAndIndices) {
  std::set<std::string> names;
  size_t made = 0;
  for (uint32_t rank : {0u, 1u, 2u, 15u, 16u, 17u, 255u, 256u, UINT32_MAX}) {
    Workload w = Rank(rank, 5000);
    for (uint64_t i = 0; i < 5000; i++) {
      std::string name = w.FileName(i);
      EXPECT_FALSE(name.empty());
      EXPECT_LE(name.size(), kMaxNameBytes);
      names.insert(name);
      made++;
    }
    names.insert(w.FileName(UINT64_MAX));
    made++;
  }
  EXPECT_EQ(names.size(), made);
  EXPECT_EQ(Rank(3, 1).FileName(0x1a2b), "f3.1a2b");
}

TEST(WorkloadTest, DirectoryIsSharedOrPerRank) {
  Workload w = Rank(5, 1);
  EXPECT_EQ(w.DirId(), 1u);
  w.share_dir = false;
  EXPECT_EQ(w.DirId(), 7u);
  w.rank = 0;
  EXPECT_EQ(w.DirId(), 2u);  // never the shared directory
}

std::vector<uint64_t> Visited(const FileOrder& order) {
  std::vector<uint64_t> out;
  for (uint64_t p = 0; p < order.size(); p++) out.push_back(order.At(p));
  return out;
}

std::vector<uint64_t> Ascending(uint64_t n) {
  std::vector<uint64_t> out(n);
  std::iota(out.begin(), out.end(), 0);
  return out;
}

TEST(WorkloadTest, OrderIsADeterministicPermutation) {
  constexpr uint64_t kFiles = 10000;
  std::vector<uint64_t> order = Visited(Rank(3, kFiles).Order(1));
  EXPECT_NE(order, Ascending(kFiles));
  std::vector<uint64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Ascending(kFiles));
  EXPECT_EQ(Visited(Rank(3, kFiles).Order(1)), order);  // same rank and salt: same order
  EXPECT_NE(Visited(Rank(3, kFiles).Order(2)), order);  // another phase
  EXPECT_NE(Visited(Rank(4, kFiles).Order(1)), order);  // another rank
  EXPECT_EQ(Visited(Rank(3, kFiles, false).Order(1)), Ascending(kFiles));
  EXPECT_EQ(Rank(3, 0).Order(1).size(), 0u);
  EXPECT_EQ(Visited(Rank(3, 1).Order(1)), std::vector<uint64_t>{0});
}

TEST(WorkloadTest, OrderIsAPermutationForEverySmallCount) {
  for (uint64_t n = 1; n <= 600; n++) {
    std::vector<uint64_t> sorted = Visited(Rank(1, n).Order(n));
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(sorted, Ascending(n)) << n;
  }
}

TEST(WorkloadTest, OrderScattersNeighbours) {
  // Consecutive positions land as far apart as in a uniformly random order, where about
  // 2% of steps move by under 1% of n (ascending: every step).
  constexpr uint64_t kFiles = 200000;
  const FileOrder order = Rank(0, kFiles).Order(0);
  int near = 0;
  for (uint64_t p = 1; p < kFiles; p++) {
    const uint64_t a = order.At(p - 1), b = order.At(p);
    if ((a > b ? a - b : b - a) < kFiles / 100) near++;
  }
  EXPECT_LT(near, static_cast<int>(kFiles * 3 / 100));
}

TEST(WorkloadTest, StatForGivesUniqueInodesAndTheTime) {
  std::set<uint64_t> inodes;
  for (uint32_t rank = 0; rank < 4; rank++) {
    Workload w = Rank(rank, 100);
    for (uint64_t i = 0; i < 100; i++) {
      FileStat s = w.StatFor(i, 123);
      EXPECT_NE(s.ino, 0u);
      EXPECT_EQ(s.mtime_us, 123u);
      EXPECT_EQ(s.ctime_us, 123u);
      inodes.insert(s.ino);
    }
  }
  EXPECT_EQ(inodes.size(), 400u);
}

TEST(WorkloadTest, MatchesExpectedDetectsEveryMismatch) {
  const FileStat expected = Rank(2, 10).StatFor(4, 1000);
  FileStat got = expected;
  got.mtime_us = got.ctime_us = 5000;  // other times are fine
  EXPECT_TRUE(MatchesExpected(got, expected));
  FileStat bad[7] = {got, got, got, got, got, got, got};
  bad[0].ino++;
  bad[1].mode ^= 0200;
  bad[2].uid++;
  bad[3].gid++;
  bad[4].size = 1;
  bad[5].mtime_us = 0;
  bad[6].ctime_us = 0;
  for (int i = 0; i < 7; i++) EXPECT_FALSE(MatchesExpected(bad[i], expected)) << "field " << i;
}

}  // namespace
}  // namespace deltameta
