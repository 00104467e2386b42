// Tests histogram.h: bucket bounds, quantile accuracy, and the empty histogram.
#include "util/histogram.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace deltameta {
namespace {

TEST(HistogramTest, BucketBoundsContainTheirValues) {
  std::vector<uint64_t> values = {0,
                                  1,
                                  15,
                                  16,
                                  17,
                                  31,
                                  32,
                                  33,
                                  1000,
                                  uint64_t{1} << 63,
                                  (uint64_t{1} << 63) - 1,
                                  (uint64_t{1} << 63) + 1,
                                  UINT64_MAX - 1,
                                  UINT64_MAX};
  for (int shift = 0; shift < 64; shift++) {
    uint64_t p = uint64_t{1} << shift;
    values.insert(values.end(), {p - 1, p, p + 1, p + p / 3});
  }
  std::mt19937_64 rng(1);
  for (int i = 0; i < 100000; i++) values.push_back(rng() >> (rng() % 64));
  for (uint64_t v : values) {
    int b = Histogram::BucketOf(v);
    ASSERT_GE(b, 0) << v;
    ASSERT_LT(b, Histogram::kBuckets) << v;
    EXPECT_LE(Histogram::BucketLow(b), v) << v;
    if (b + 1 < Histogram::kBuckets) {
      EXPECT_LT(v, Histogram::BucketLow(b + 1)) << v;
    }
  }
  EXPECT_EQ(Histogram::BucketOf(UINT64_MAX), Histogram::kBuckets - 1);
}

TEST(HistogramTest, BucketLowIsStrictlyIncreasingAndInverse) {
  for (int b = 0; b < Histogram::kBuckets; b++) {
    EXPECT_EQ(Histogram::BucketOf(Histogram::BucketLow(b)), b);
    if (b > 0) {
      EXPECT_LT(Histogram::BucketLow(b - 1), Histogram::BucketLow(b)) << b;
    }
  }
}

// Quantiles of `values` from a histogram must be within 4% of the exact ones.
void ExpectQuantilesClose(std::vector<uint64_t> values) {
  Histogram h;
  for (uint64_t v : values) h.Add(v);
  std::sort(values.begin(), values.end());
  EXPECT_EQ(h.count(), values.size());
  EXPECT_EQ(h.min(), values.front());
  EXPECT_EQ(h.max(), values.back());
  for (double q : {0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0}) {
    double exact = static_cast<double>(values[static_cast<size_t>(q * static_cast<double>(values.size() - 1))]);
    EXPECT_NEAR(static_cast<double>(h.Quantile(q)), exact, 0.04 * exact) << "q=" << q;
  }
}

TEST(HistogramTest, QuantilesOfUniformValues) {
  std::vector<uint64_t> values;
  for (uint64_t v = 1; v <= 100000; v++) values.push_back(v);
  ExpectQuantilesClose(values);
}

TEST(HistogramTest, QuantilesOfLogUniformValues) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> exponent(0, 40);
  std::vector<uint64_t> values;
  for (int i = 0; i < 100000; i++) values.push_back(static_cast<uint64_t>(std::exp2(exponent(rng))));
  ExpectQuantilesClose(values);
}

TEST(HistogramTest, QuantilesOfSmallValuesAreExact) {
  Histogram h;
  for (uint64_t v = 0; v < 16; v++) h.Add(v);  // one bucket per value below kSubBuckets
  EXPECT_EQ(h.Quantile(0), 0u);
  EXPECT_EQ(h.Quantile(0.5), 7u);
  EXPECT_EQ(h.Quantile(0.9), 13u);
  EXPECT_EQ(h.Quantile(1), 15u);
}

TEST(HistogramTest, EmptyHistogramReportsZero) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  for (double q : {0.0, 0.5, 1.0}) EXPECT_EQ(h.Quantile(q), 0u);
}

TEST(HistogramTest, QuantileClampsToObservedRange) {
  Histogram h;
  h.Add(1000);
  h.Add(5000);
  EXPECT_EQ(h.Quantile(-1), h.Quantile(0));
  EXPECT_EQ(h.Quantile(2), h.Quantile(1));
  EXPECT_NEAR(static_cast<double>(h.Quantile(1)), 5000, 0.04 * 5000);
  Histogram one;
  one.Add(123456789);
  EXPECT_EQ(one.Quantile(0.5), 123456789u);
}

}  // namespace
}  // namespace deltameta
