// Per-thread counters: statistics that threads bump on hot paths without ever sharing a
// written cache line (the ext4 lesson: one counter written by every thread on every
// operation serialises them all on its cache line). Each thread registers once, off the
// hot path, and gets a slot of its own, aligned to a cache line; it adds to its slot with
// a relaxed load and a relaxed store (it is the slot's only writer, so there is neither a
// read-modify-write instruction nor a line that another thread writes). Reading merges:
// the sum of every slot plus what slots given back held. core/bench/counter_bench.cc
// measures it against a shared atomic and a racy shared counter.
//
//   PerThreadCounters<2> stats;                 // two counters, e.g. ops and errors
//   auto writer = stats.Register();             // once per thread (takes a lock)
//   writer.Add(0);                              // per operation: no lock, no shared line
//   uint64_t ops = stats.Sum(0);                // any thread, any time
//
// A sum read while writers run counts each of their adds or not (relaxed: an add shows
// up soon, not at once), and never goes down between two reads by one thread. It is
// exact once the writers' adds happen-before the read: after joining their threads, or
// after their writers are released (Release() or destruction), which folds a slot's
// counts into the totals under the lock. A writer is released on its own thread, or
// after that thread has been joined.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace deltameta {

template <size_t N>
class PerThreadCounters {
 public:
  static_assert(N > 0, "at least one counter");
  static constexpr size_t kCacheLine = 64;

  // One thread's counters: a whole number of cache lines that no other slot shares.
  struct alignas(kCacheLine) Slot {
    std::atomic<uint64_t> values[N] = {};
  };
  static_assert(alignof(Slot) == kCacheLine && sizeof(Slot) % kCacheLine == 0, "a slot is whole cache lines");

  // A thread's handle on its slot. Move-only; releases the slot when destroyed.
  class Writer {
   public:
    Writer() = default;
    Writer(Writer&& other) noexcept { *this = std::move(other); }
    Writer& operator=(Writer&& other) noexcept {
      if (this != &other) {
        Release();
        owner_ = other.owner_;
        slot_ = other.slot_;
        other.owner_ = nullptr;
        other.slot_ = nullptr;
      }
      return *this;
    }
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;
    ~Writer() { Release(); }

    // Adds `n` to counter `counter` (< N) of this thread's slot. Only the owning thread.
    void Add(size_t counter, uint64_t n = 1) {
      std::atomic<uint64_t>& v = slot_->values[counter];
      v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    // Gives the slot back; its counts stay in the sums. Idempotent.
    void Release() {
      if (owner_ != nullptr) owner_->Give(slot_);
      owner_ = nullptr;
      slot_ = nullptr;
    }
    bool registered() const { return slot_ != nullptr; }
    const Slot* slot() const { return slot_; }

   private:
    friend class PerThreadCounters;
    Writer(PerThreadCounters* owner, Slot* slot) : owner_(owner), slot_(slot) {}
    PerThreadCounters* owner_ = nullptr;
    Slot* slot_ = nullptr;
  };

  PerThreadCounters() = default;
  PerThreadCounters(const PerThreadCounters&) = delete;
  PerThreadCounters& operator=(const PerThreadCounters&) = delete;

  // A slot for the calling thread: one given back earlier, or a new one. Takes the lock,
  // so call it when a thread starts, not per operation. Every writer must be released
  // before the counters are destroyed.
  Writer Register() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) {
      slots_.push_back(std::make_unique<Slot>());
      return Writer(this, slots_.back().get());
    }
    Slot* s = free_.back();
    free_.pop_back();
    return Writer(this, s);
  }

  // Counter `counter` summed over all threads, past and present.
  uint64_t Sum(size_t counter) const { return SumAll()[counter]; }
  std::array<uint64_t, N> SumAll() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::array<uint64_t, N> sums = released_;
    for (const auto& s : slots_) {
      for (size_t i = 0; i < N; i++) sums[i] += s->values[i].load(std::memory_order_relaxed);
    }
    return sums;
  }

  // Slots made so far (live and given back): at most the most threads registered at once.
  size_t slots() const {
    std::lock_guard<std::mutex> lock(mu_);
    return slots_.size();
  }

 private:
  // Folds a released slot into the totals and zeroes it for reuse, in one step under the
  // lock, so that no sum counts it twice or not at all.
  void Give(Slot* s) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < N; i++) {
      released_[i] += s->values[i].load(std::memory_order_relaxed);
      s->values[i].store(0, std::memory_order_relaxed);
    }
    free_.push_back(s);
  }

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Slot>> slots_;  // every slot made; given-back ones hold 0
  std::vector<Slot*> free_;                   // given back, for the next Register()
  std::array<uint64_t, N> released_{};        // what given-back slots held
};

}  // namespace deltameta
