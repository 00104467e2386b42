// The benchmark workload, identical on every run with the same flags: which files rank r
// creates, in which order, and the exact attributes each must have when read back.
#pragma once

#include <cstdint>
#include <string>

#include "deltameta/stat_codec.h"

namespace deltameta {

// A seeded permutation of [0, n), or the identity, computed one position at a time, so
// a phase walks millions of files without holding a list of them.
class FileOrder {
 public:
  FileOrder(uint64_t n, bool random, uint64_t seed);
  uint64_t size() const { return n_; }
  // The file visited at `position` (< size()).
  uint64_t At(uint64_t position) const;

 private:
  uint64_t Permute(uint64_t x) const;  // a bijection on [0, 2^(2 * half_bits_))

  uint64_t n_;
  bool random_;
  int half_bits_ = 1;
  uint64_t round_keys_[4] = {};
};

struct Workload {
  uint32_t rank = 0;
  uint32_t num_ranks = 1;
  uint64_t files_per_rank = 0;
  bool share_dir = true;  // all ranks create in one directory, else one directory per rank
  bool random_order = true;

  // The directory rank `rank` works in: 1 is the shared directory, 2 + r is rank r's own.
  uint64_t DirId() const { return share_dir ? 1 : 2 + static_cast<uint64_t>(rank); }
  // File `index` of this rank, e.g. "f3.1a2b" (rank and index in hex; unique job-wide).
  std::string FileName(uint64_t index) const;
  // The attributes file `index` is created with; read-back must match on every field but
  // the times, which are set at creation (`now_us`).
  FileStat StatFor(uint64_t index, uint64_t now_us) const;
  // The order in which this rank visits its files: a seeded permutation of [0, n) if
  // random_order, else ascending. `phase_salt` varies it between phases.
  FileOrder Order(uint64_t phase_salt) const;
};

// True if `got` is what StatFor produced for this file (times only checked to be set).
bool MatchesExpected(const FileStat& got, const FileStat& expected);

uint64_t NowMicros();

}  // namespace deltameta
