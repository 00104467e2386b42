// Tests cpu_placement.h: the allowed CPUs, slots taken in turn, and pinning a thread.
#include "util/cpu_placement.h"

#include <sched.h>

#include <thread>

#include <gtest/gtest.h>

namespace deltameta {
namespace {

TEST(CpuPlacementTest, AllowedCpusAreTheAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  const std::vector<int> cpus = AllowedCpus();
  ASSERT_EQ(static_cast<int>(cpus.size()), CPU_COUNT(&set));
  for (size_t i = 0; i < cpus.size(); i++) {
    EXPECT_TRUE(CPU_ISSET(cpus[i], &set));
    if (i > 0) {
      EXPECT_LT(cpus[i - 1], cpus[i]);
    }
  }
}

TEST(CpuPlacementTest, SlotsTakeTheCpusInTurn) {
  const std::vector<int> cpus = {2, 5, 7};
  EXPECT_EQ(CpuForSlot(cpus, 0), 2);
  EXPECT_EQ(CpuForSlot(cpus, 2), 7);
  EXPECT_EQ(CpuForSlot(cpus, 3), 2);
  EXPECT_EQ(CpuForSlot(cpus, 7), 5);
  EXPECT_EQ(CpuForSlot({}, 0), -1);
  EXPECT_EQ(CpuForSlot(cpus, -1), -1);
}

TEST(CpuPlacementTest, APinnedThreadRunsOnItsCpuOnly) {
  const std::vector<int> cpus = AllowedCpus();
  ASSERT_FALSE(cpus.empty());
  EXPECT_EQ(PinnedCpu(), cpus.size() == 1 ? cpus[0] : -1);
  for (int cpu : {cpus.front(), cpus.back()}) {
    std::thread([cpu] {
      ASSERT_TRUE(PinCallingThread(cpu));
      EXPECT_EQ(PinnedCpu(), cpu);
      for (int i = 0; i < 100; i++) {
        EXPECT_EQ(sched_getcpu(), cpu);
        std::this_thread::yield();
      }
    }).join();
  }
  EXPECT_EQ(PinnedCpu(), cpus.size() == 1 ? cpus[0] : -1);  // other threads keep their mask
}

TEST(CpuPlacementTest, ACpuOutsideTheMaskIsRefusedAndChangesNothing) {
  const std::vector<int> before = AllowedCpus();
  std::thread([&before] {
    EXPECT_FALSE(PinCallingThread(-1));
    EXPECT_FALSE(PinCallingThread(CPU_SETSIZE));
    EXPECT_FALSE(PinCallingThread(CPU_SETSIZE - 1));  // no such CPU here
    EXPECT_EQ(AllowedCpus(), before);
  }).join();
}

}  // namespace
}  // namespace deltameta
