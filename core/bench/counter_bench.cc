// deltameta_counter_bench: what a statistic shared by every thread costs, against
// per-thread counters (util/per_thread_counters.h). For 1..--threads threads, each thread
// adds 1 --increments times to
//   atomic      one shared std::atomic<uint64_t> (fetch_add: exact, one contended line)
//   racy        one shared counter, read and written back (a relaxed load and store, so
//               defined behaviour, but concurrent updates are lost; the table counts them)
//   per-thread  its own cache-line slot of PerThreadCounters, merged when read
// and prints, per row, the CPU nanoseconds one increment took its thread (the mean over
// threads), the job's increments per second of wall time, how many CPUs the threads kept
// busy on average (near 1: they ran one after another, e.g. on a loaded machine, and did
// not contend), the merged total and the updates lost. Threads start together on a
// condition variable (nobody spins); nothing is asserted about speed.
// Exit status 1 if the atomic or per-thread total is not exact (2 for bad flags).
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "deltameta/flags.h"
#include "util/per_thread_counters.h"

namespace deltameta {
namespace {

// The shared counters, each on a cache line of its own, apart from anything else.
struct alignas(64) SharedCounter {
  std::atomic<uint64_t> value{0};
};

double ThreadCpuNanos() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

struct Row {
  double ns_per_increment = 0;  // thread CPU time per increment, mean over threads
  double increments_per_s = 0;  // all threads' increments over the wall time
  double busy = 0;              // the threads' CPU time over the wall time: how many ran at once
};

// Runs `threads` threads that each call body(increments) once they all exist.
Row Run(int threads, uint64_t increments, const std::function<void(uint64_t)>& body) {
  std::mutex mu;
  std::condition_variable cv;
  bool go = false;
  std::vector<double> cpu_ns(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++) {
    pool.emplace_back([&, t] {
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return go; });
      }
      const double c0 = ThreadCpuNanos();
      body(increments);
      cpu_ns[static_cast<size_t>(t)] = ThreadCpuNanos() - c0;
    });
  }
  const auto t0 = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(mu);
    go = true;
  }
  cv.notify_all();
  for (auto& th : pool) th.join();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Row r;
  double sum = 0;
  for (double c : cpu_ns) sum += c;
  r.ns_per_increment = sum / threads / static_cast<double>(increments);
  r.increments_per_s = wall_s > 0 ? static_cast<double>(increments) * threads / wall_s : 0;
  r.busy = wall_s > 0 ? sum / 1e9 / wall_s : 0;
  return r;
}

void Print(int threads, const char* variant, const Row& r, uint64_t total, uint64_t expected) {
  std::printf("%7d  %-10s  %8.2f  %10.1f  %5.2f  %12llu  %10llu\n", threads, variant, r.ns_per_increment,
              r.increments_per_s / 1e6, r.busy, static_cast<unsigned long long>(total),
              static_cast<unsigned long long>(expected - total));
}

int Main(int argc, char** argv) {
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int64_t max_threads = 2 * cpus;
  int64_t increments = 10000000;
  FlagSet set("deltameta_counter_bench",
              "Nanoseconds per increment of a shared atomic, a racy shared counter and per-thread counters,\n"
              "at 1..--threads threads. A measurement, not a test: nothing is asserted about speed.");
  set.Int("threads", &max_threads, 1, 1024, "the most threads (default: twice the CPUs)");
  set.Int("increments", &increments, 1, int64_t{1} << 40, "increments per thread per row");
  bool help = false;
  const Status parsed = set.Parse(argc, argv, &help);
  if (help) {
    std::printf("%s", set.Usage().c_str());
    return 0;
  }
  if (!parsed.ok()) {
    std::fprintf(stderr, "deltameta_counter_bench: %s\n", parsed.ToString().c_str());
    return 2;
  }
  const uint64_t m = static_cast<uint64_t>(increments);
  std::printf(
      "%d CPUs, %llu increments per thread. ns/inc: thread CPU time per increment; busy: CPUs the threads kept\n"
      "busy on average (near 1: they ran one after another and did not contend); lost: racy updates lost\n",
      cpus, static_cast<unsigned long long>(m));
  std::printf("%7s  %-10s  %8s  %10s  %5s  %12s  %10s\n", "threads", "variant", "ns/inc", "Minc/s", "busy", "total",
              "lost");
  bool exact = true;
  for (int threads = 1; threads <= max_threads; threads++) {
    const uint64_t expected = m * static_cast<uint64_t>(threads);

    SharedCounter atomic;
    Row r = Run(threads, m, [&atomic](uint64_t n) {
      for (uint64_t i = 0; i < n; i++) atomic.value.fetch_add(1, std::memory_order_relaxed);
    });
    const uint64_t atomic_total = atomic.value.load();
    Print(threads, "atomic", r, atomic_total, expected);

    SharedCounter racy;
    r = Run(threads, m, [&racy](uint64_t n) {
      for (uint64_t i = 0; i < n; i++) {
        racy.value.store(racy.value.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      }
    });
    Print(threads, "racy", r, racy.value.load(), expected);

    PerThreadCounters<1> counters;
    r = Run(threads, m, [&counters](uint64_t n) {
      auto writer = counters.Register();
      for (uint64_t i = 0; i < n; i++) writer.Add(0);
    });
    const uint64_t per_thread_total = counters.Sum(0);
    Print(threads, "per-thread", r, per_thread_total, expected);

    if (atomic_total != expected || per_thread_total != expected) {
      std::fprintf(stderr,
                   "deltameta_counter_bench: %d threads: atomic total %llu, per-thread total %llu, expected %llu\n",
                   threads, static_cast<unsigned long long>(atomic_total),
                   static_cast<unsigned long long>(per_thread_total), static_cast<unsigned long long>(expected));
      exact = false;
    }
  }
  std::printf("atomic and per-thread totals %s\n", exact ? "exact" : "NOT EXACT");
  return exact ? 0 : 1;
}

}  // namespace
}  // namespace deltameta

int main(int argc, char** argv) { return deltameta::Main(argc, argv); }
