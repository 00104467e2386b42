// Latency histogram: see histogram.h.
#include "util/histogram.h"

#include <algorithm>

namespace deltameta {

uint64_t Histogram::BucketLow(int b) {
  if (b < kSubBuckets) return static_cast<uint64_t>(b);
  int msb = b / kSubBuckets + 3;
  uint64_t sub = static_cast<uint64_t>(b % kSubBuckets);
  return (kSubBuckets + sub) << (msb - 4);
}

uint64_t Histogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(count_ - 1)) + 1;
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; b++) {
    seen += buckets_[b];
    if (seen >= rank) {
      uint64_t lo = BucketLow(b);
      uint64_t hi = b + 1 < kBuckets ? BucketLow(b + 1) : lo;
      return std::clamp(lo + (hi - lo) / 2, min(), max_);
    }
  }
  return max_;
}

}  // namespace deltameta
