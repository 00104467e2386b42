// Tests partition.h: pinned hash values, range and determinism, and balance of PartitionOf.
#include "deltameta/partition.h"

#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace deltameta {
namespace {

// Computed once from the documented function (FNV-1a 64 then the murmur3 fmix64 mix).
// Clients, servers and the compactor must agree across builds: never change these.
TEST(PartitionTest, HashValuesArePinned) {
  EXPECT_EQ(NameHash(""), 0xefd01f60ba992926ULL);
  EXPECT_EQ(NameHash("a"), 0x82a2a958a9bece5bULL);
  EXPECT_EQ(NameHash("f0.0"), 0xb2a1914329ea3609ULL);
  EXPECT_EQ(NameHash("f3.1a2b"), 0x780ca8ed419a8089ULL);
  EXPECT_EQ(NameHash("f1f.ffff"), 0xaf85cf9246bc9f57ULL);
  EXPECT_EQ(PartitionOf("a", 4), 3u);
  EXPECT_EQ(PartitionOf("f3.1a2b", 4), 1u);
  EXPECT_EQ(PartitionOf("f3.1a2b", 7), 5u);
  EXPECT_EQ(PartitionOf("f1f.ffff", 7), 4u);
}

TEST(PartitionTest, InRangeAndDeterministic) {
  for (uint32_t n : {1u, 2u, 3u, 4u, 7u, 64u, 1000u, UINT32_MAX}) {
    for (int i = 0; i < 2000; i++) {
      std::string name = "file-" + std::to_string(i);
      uint32_t p = PartitionOf(name, n);
      EXPECT_LT(p, n);
      EXPECT_EQ(PartitionOf(name, n), p);
      EXPECT_EQ(p, NameHash(name) % n);
    }
  }
}

TEST(PartitionTest, BalancedOverWorkloadNames) {
  constexpr uint32_t kPartitions = 4;
  constexpr int kNames = 100000;
  std::vector<int> counts(kPartitions);
  char name[40];
  for (int i = 0; i < kNames; i++) {
    std::snprintf(name, sizeof(name), "f%x.%x", i % 8, i / 8);  // the workload's naming
    counts[PartitionOf(name, kPartitions)]++;
  }
  const double mean = static_cast<double>(kNames) / kPartitions;
  for (uint32_t p = 0; p < kPartitions; p++) {
    EXPECT_NEAR(counts[p], mean, 0.05 * mean) << "partition " << p;
  }
}

}  // namespace
}  // namespace deltameta
