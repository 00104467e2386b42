// Benchmark workload: see workload.h.
#include "client/workload.h"

#include <chrono>

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

// splitmix64's finaliser: every input bit affects every output bit.
uint64_t Mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

FileOrder::FileOrder(uint64_t n, bool random, uint64_t seed) : n_(n), random_(random) {
  while (half_bits_ < 32 && (uint64_t{1} << (2 * half_bits_)) < n) half_bits_++;
  for (uint64_t& k : round_keys_) k = seed = Mix(seed + 0x9e3779b97f4a7c15ULL);
}

// A four-round Feistel network over two halves of half_bits_ bits: a bijection whatever
// the round function.
uint64_t FileOrder::Permute(uint64_t x) const {
  const uint64_t mask = (uint64_t{1} << half_bits_) - 1;
  uint64_t left = x >> half_bits_, right = x & mask;
  for (uint64_t key : round_keys_) {
    const uint64_t next = left ^ (Mix(right ^ key) & mask);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

uint64_t FileOrder::At(uint64_t position) const {
  if (!random_) return position;
  // Cycle-walking: the domain is under 4n, so this takes fewer than four steps on average
  // and ends because Permute's cycle through `position` (< n) returns to [0, n).
  uint64_t x = Permute(position);
  while (x >= n_) x = Permute(x);
  return x;
}

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

FileOrder Workload::Order(uint64_t phase_salt) const {
  return FileOrder(files_per_rank, random_order, 0x5eed0000ULL + rank * 7919ULL + phase_salt * 104729ULL);
}

bool MatchesExpected(const FileStat& got, const FileStat& expected) {
  return got.ino == expected.ino && got.mode == expected.mode && got.uid == expected.uid && got.gid == expected.gid &&
         got.size == expected.size && got.mtime_us != 0 && got.ctime_us != 0;
}

uint64_t NowMicros() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

}  // namespace deltameta
