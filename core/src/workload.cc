// Benchmark workload: see workload.h.
#include "deltameta/workload.h"

#include <chrono>
#include <numeric>
#include <random>

namespace deltameta {

namespace {

// Appends v in lower-case hex without leading zeros (printf's %llx, at a fraction of its
// cost: a name is made for every operation).
void AppendHex(uint64_t v, std::string* out) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v != 0);
  while (n > 0) out->push_back(digits[--n]);
}

}  // namespace

std::string Workload::FileName(uint64_t index) const {
  std::string name(1, 'f');
  AppendHex(rank, &name);
  name.push_back('.');
  AppendHex(index, &name);
  return name;
}

FileStat Workload::StatFor(uint64_t index, uint64_t now_us) const {
  FileStat s;
  s.ino = static_cast<uint64_t>(rank) * files_per_rank + index + 1;
  s.mode = 0100644;  // regular file, rw-r--r--
  s.uid = 1000 + rank;
  s.gid = 1000;
  s.size = 0;
  s.mtime_us = now_us;
  s.ctime_us = now_us;
  return s;
}

std::vector<uint64_t> Workload::Order(uint64_t phase_salt) const {
  std::vector<uint64_t> order(files_per_rank);
  std::iota(order.begin(), order.end(), 0);
  if (random_order) {
    std::mt19937_64 rng(0x5eed0000ULL + rank * 7919ULL + phase_salt * 104729ULL);
    for (uint64_t i = files_per_rank; i > 1; i--) {
      std::swap(order[i - 1], order[rng() % i]);
    }
  }
  return order;
}

bool MatchesExpected(const FileStat& got, const FileStat& expected) {
  return got.ino == expected.ino && got.mode == expected.mode && got.uid == expected.uid &&
         got.gid == expected.gid && got.size == expected.size && got.mtime_us != 0 && got.ctime_us != 0;
}

uint64_t NowMicros() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace deltameta
