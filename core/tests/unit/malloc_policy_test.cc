// KeepLargeAllocationsMapped: large blocks keep their own mappings, and go back to the
// system when freed, even after glibc would have raised its threshold.
#include "util/malloc_policy.h"

#include <malloc.h>

#include <cstdlib>

#include <gtest/gtest.h>

namespace deltameta {
namespace {

TEST(MallocPolicy, LargeBlocksStayMappedAfterALargerOneIsFreed) {
  KeepLargeAllocationsMapped();
  // By default this free raises glibc's threshold to 8 MiB, and the block below would
  // come from the heap.
  void* volatile large = std::malloc(8 << 20);
  std::free(large);
  const size_t mapped = mallinfo2().hblkhd;
  void* block = std::malloc(2 * kLargeAllocation);
  ASSERT_NE(block, nullptr);
  EXPECT_GE(mallinfo2().hblkhd, mapped + 2 * kLargeAllocation);
  std::free(block);
  EXPECT_EQ(mallinfo2().hblkhd, mapped);
}

}  // namespace
}  // namespace deltameta
