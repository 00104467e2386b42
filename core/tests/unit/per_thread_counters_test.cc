// Tests util/per_thread_counters.h: threads joining and leaving while the sums are read
// lose no update (exact once they are done, never decreasing meanwhile), released slots
// are reused with their counts kept, and every slot has cache lines of its own.
#include "util/per_thread_counters.h"

#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace deltameta {
namespace {

constexpr size_t kLine = PerThreadCounters<1>::kCacheLine;

// The cache lines [p, p + bytes) touches.
std::set<uintptr_t> Lines(const void* p, size_t bytes) {
  std::set<uintptr_t> lines;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  for (uintptr_t l = a / kLine; l <= (a + bytes - 1) / kLine; l++) lines.insert(l);
  return lines;
}

TEST(PerThreadCountersTest, NoUpdateLostWhileThreadsComeAndGo) {
  PerThreadCounters<2> counters;
  constexpr int kWaves = 4, kThreadsPerWave = 6;
  constexpr uint64_t kAdds = 50000;
  // Counter 0 gets 1 per add, counter 1 gets 3: the sums tell the counters apart.
  std::vector<std::thread> running;
  uint64_t last = 0;
  for (int wave = 0; wave < kWaves; wave++) {
    // Threads of the previous wave still run while this one starts: some slots are
    // given back and taken again while others are written.
    std::vector<std::thread> joining;
    for (int t = 0; t < kThreadsPerWave; t++) {
      joining.emplace_back([&counters, t] {
        auto writer = counters.Register();
        // Half the threads release explicitly, half by destruction.
        for (uint64_t i = 0; i < kAdds; i++) {
          writer.Add(0);
          writer.Add(1, 3);
        }
        if (t % 2 == 0) writer.Release();
      });
    }
    // Read while they run: never more than will be added, never less than read before.
    for (int read = 0; read < 20; read++) {
      const auto sums = counters.SumAll();
      EXPECT_GE(sums[0], last);
      EXPECT_LE(sums[0], kAdds * kWaves * kThreadsPerWave);
      last = sums[0];
    }
    for (auto& t : running) t.join();
    running = std::move(joining);
  }
  for (auto& t : running) t.join();
  EXPECT_EQ(counters.Sum(0), kAdds * kWaves * kThreadsPerWave);
  EXPECT_EQ(counters.Sum(1), 3 * kAdds * kWaves * kThreadsPerWave);
  // At most two waves ran at once: released slots were reused.
  EXPECT_LE(counters.slots(), size_t{2 * kThreadsPerWave});
}

TEST(PerThreadCountersTest, SumIsExactWhileWritersStayRegistered) {
  // Writers not yet released: their counts are read from their slots once their threads
  // have been joined.
  PerThreadCounters<1> counters;
  std::vector<PerThreadCounters<1>::Writer> writers(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < writers.size(); t++) {
    threads.emplace_back([&counters, &writers, t] {
      writers[t] = counters.Register();
      for (uint64_t i = 0; i <= t; i++) writers[t].Add(0, 1000);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(counters.Sum(0), 1000u * (1 + 2 + 3 + 4));
  for (auto& w : writers) w.Release();
  EXPECT_EQ(counters.Sum(0), 1000u * (1 + 2 + 3 + 4));
}

TEST(PerThreadCountersTest, ReleasedSlotIsReusedAndItsCountsKept) {
  PerThreadCounters<1> counters;
  auto a = counters.Register();
  a.Add(0, 5);
  const void* slot = a.slot();
  a.Release();
  a.Release();  // idempotent
  EXPECT_FALSE(a.registered());
  auto b = counters.Register();
  EXPECT_EQ(b.slot(), slot);
  EXPECT_EQ(b.slot()->values[0].load(), 0u);  // zeroed for its new owner
  b.Add(0, 2);
  EXPECT_EQ(counters.Sum(0), 7u);
  auto moved = std::move(b);
  EXPECT_FALSE(b.registered());
  moved.Add(0);
  EXPECT_EQ(counters.Sum(0), 8u);
  EXPECT_EQ(counters.slots(), 1u);
}

template <size_t N>
void ExpectDistinctLines() {
  using Counters = PerThreadCounters<N>;
  static_assert(alignof(typename Counters::Slot) == kLine);
  Counters counters;
  std::vector<typename Counters::Writer> writers;
  std::set<uintptr_t> seen;
  for (int i = 0; i < 16; i++) {
    writers.push_back(counters.Register());
    const auto* slot = writers.back().slot();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(slot) % kLine, 0u);
    // The slot's counters lie within its own lines, which no other slot touches.
    for (uintptr_t line : Lines(&slot->values[N - 1], sizeof(slot->values[N - 1]))) {
      EXPECT_TRUE(Lines(slot, sizeof(*slot)).count(line));
    }
    for (uintptr_t line : Lines(slot, sizeof(*slot))) EXPECT_TRUE(seen.insert(line).second) << "slot " << i;
  }
}

TEST(PerThreadCountersTest, SlotsAreOnDistinctCacheLines) {
  ExpectDistinctLines<1>();
  ExpectDistinctLines<8>();  // exactly one line
  ExpectDistinctLines<9>();  // two lines
}

}  // namespace
}  // namespace deltameta
