//===- TensorRangeTest.cpp - calibration statistics against direct figures ===//
#include "driver/TensorRange.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace vinci::driver;

namespace {

std::vector<float> gaussian(size_t count, float sigma, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, sigma);
  std::vector<float> values(count);
  for (float &v : values)
    v = normal(rng);
  return values;
}

/// The exact magnitude percentile, from the sorted values.
double sortedPercentile(std::vector<float> values, double percentile) {
  for (float &v : values)
    v = std::fabs(v);
  std::sort(values.begin(), values.end());
  size_t index = size_t(std::ceil(values.size() * percentile / 100.0)) - 1;
  return values[std::min(index, values.size() - 1)];
}

} // namespace

// The extremes and counts are those of the values, in any chunking.
TEST(TensorRange, ExtremesAndFp16Counts) {
  std::vector<float> values = {0.0f, -3.0f, 1e-6f, 2.0f, 0.0f, -1e-7f, 7.5f};
  TensorRange range;
  range.add(values.data(), 3);
  range.add(values.data() + 3, values.size() - 3);
  EXPECT_EQ(range.count(), 7u);
  EXPECT_EQ(range.min(), -3.0);
  EXPECT_EQ(range.max(), 7.5);
  EXPECT_EQ(range.maxAbs(), 7.5);
  EXPECT_EQ(range.zeros(), 2u);
  EXPECT_EQ(range.belowFp16Normal(), 2u);
  EXPECT_DOUBLE_EQ(range.fractionBelowFp16Normal(), 2.0 / 5.0);
  uint64_t binned = 0;
  for (uint64_t bin : range.histogram())
    binned += bin;
  EXPECT_EQ(binned, 7u); // the leading zeros too, before the histogram existed
}

// Non-finite values are counted apart and change no extreme.
TEST(TensorRange, NonFiniteApart) {
  std::vector<float> values = {1.0f, INFINITY, NAN, -2.0f};
  TensorRange range;
  range.add(values.data(), values.size());
  EXPECT_EQ(range.count(), 2u);
  EXPECT_EQ(range.nonFinite(), 2u);
  EXPECT_EQ(range.maxAbs(), 2.0);
}

// The histogram is the same whichever order the samples come in: a small
// sample first (a fine width, widened later) or the large one first.
TEST(TensorRange, HistogramIndependentOfSampleOrder) {
  std::vector<float> small = gaussian(4096, 0.01f, 1), large = gaussian(4096, 30.0f, 2);
  TensorRange a, b;
  a.add(small.data(), small.size());
  a.add(large.data(), large.size());
  b.add(large.data(), large.size());
  b.add(small.data(), small.size());
  EXPECT_EQ(a.binWidth(), b.binWidth());
  EXPECT_EQ(a.histogram(), b.histogram());
}

// A percentile is within one bin of the sorted values' percentile.
TEST(TensorRange, PercentileWithinOneBin) {
  std::vector<float> values = gaussian(100000, 1.0f, 3);
  TensorRange range;
  range.add(values.data(), values.size());
  for (double percentile : {50.0, 99.0, 99.99}) {
    double exact = sortedPercentile(values, percentile);
    EXPECT_NEAR(range.absPercentile(percentile), exact, range.binWidth()) << percentile;
  }
  EXPECT_EQ(range.absPercentile(100), range.maxAbs());
}

// Entropy clips rare outliers: a Gaussian of sigma 1 with a few values at
// 1000 gets a threshold far below 1000 and above the bulk (3 sigma).
TEST(TensorRange, EntropyClipsOutliers) {
  std::vector<float> values = gaussian(200000, 1.0f, 4);
  for (int i = 0; i < 5; ++i)
    values[i] = 1000.0f;
  TensorRange range;
  range.add(values.data(), values.size());
  double threshold = range.entropyThreshold();
  EXPECT_GT(threshold, 3.0);
  EXPECT_LT(threshold, 100.0);
}

// Quantisation parameters: min-max with an offset maps min to -128 and max
// to 127; symmetric maps the larger magnitude to 127 with offset 0.
TEST(TensorRange, ActivationQuantParams) {
  std::vector<float> values = {-1.0f, 0.5f, 3.0f};
  TensorRange range;
  range.add(values.data(), values.size());
  QuantParams asym = activationQuantParams(range, CalibrationMethod::MinMax, 99.9, true);
  EXPECT_DOUBLE_EQ(asym.scale, 4.0 / 255.0);
  EXPECT_EQ(asym.offset, -64); // round(-128 + 1 / (4 / 255)) = round(-64.25)
  EXPECT_NEAR(-1.0 / asym.scale + asym.offset, -128.0, 0.5);
  EXPECT_NEAR(3.0 / asym.scale + asym.offset, 127.0, 0.5);
  QuantParams sym = activationQuantParams(range, CalibrationMethod::MinMax, 99.9, false);
  EXPECT_DOUBLE_EQ(sym.scale, 3.0 / 127.0);
  EXPECT_EQ(sym.offset, 0);
}

// fp16's range: half of 65504 is the overflow line, most non-zero values
// below 2^-14 the underflow line; a tensor of ReLU zeros and normal values
// fits.
TEST(TensorRange, Fp16Misfit) {
  auto misfit = [](std::vector<float> values) {
    TensorRange range;
    range.add(values.data(), values.size());
    return fp16Misfit(range);
  };
  EXPECT_EQ(misfit({1.0f, -30000.0f}), "");
  EXPECT_NE(misfit({1.0f, -33000.0f}), "");
  EXPECT_EQ(misfit({0.0f, 0.0f, 0.0f, 1e-3f}), "");
  EXPECT_NE(misfit({1e-6f, 2e-6f, 1e-3f}), "");
  EXPECT_EQ(misfit({1e-6f, 1e-3f, 2e-3f}), "");
}
