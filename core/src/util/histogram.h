// A fixed-size log-linear latency histogram (16 sub-buckets per power of two, so a
// reported quantile is within ~3% of the true value). One per thread on hot paths;
// histograms are merged once at phase end, across ranks through their raw state
// (jobs/job_report.cc), never shared while recording.
#pragma once

#include <array>
#include <cstdint>

namespace deltameta {

class Histogram {
 public:
  static constexpr int kSubBuckets = 16;
  static constexpr int kBuckets = kSubBuckets + 60 * kSubBuckets;

  void Add(uint64_t value) {
    buckets_[BucketOf(value)]++;
    count_++;
    if (value < min_) min_ = value;
    if (value > max_) max_ = value;
  }

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  // The value at quantile q in [0, 1], clamped to [min, max]; 0 if empty.
  uint64_t Quantile(double q) const;

  // Raw state, for merging across MPI ranks.
  std::array<uint64_t, kBuckets>& buckets() { return buckets_; }
  const std::array<uint64_t, kBuckets>& buckets() const { return buckets_; }
  void SetSummary(uint64_t count, uint64_t min, uint64_t max) { count_ = count, min_ = min, max_ = max; }

  static int BucketOf(uint64_t v) {
    if (v < kSubBuckets) return static_cast<int>(v);
    int msb = 63 - __builtin_clzll(v);
    int sub = static_cast<int>((v >> (msb - 4)) & (kSubBuckets - 1));
    return (msb - 3) * kSubBuckets + sub;
  }
  static uint64_t BucketLow(int b);

 private:
  std::array<uint64_t, kBuckets> buckets_{};
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace deltameta
