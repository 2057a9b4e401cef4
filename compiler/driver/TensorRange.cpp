//===- TensorRange.cpp - what calibration learns about one tensor ---------===//
#include "driver/TensorRange.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace vinci::driver {

void TensorRange::widenTo(double magnitude) {
  if (width == 0) {
    // The smallest power of two that puts `magnitude` inside the top bin.
    width = std::ldexp(1.0, std::ilogb(magnitude / kBins));
    bins.assign(kBins, 0);
    bins[0] = zerosBeforeHistogram;
  }
  while (magnitude >= width * kBins) {
    for (size_t i = 0; i < kBins / 2; ++i)
      bins[i] = bins[2 * i] + bins[2 * i + 1];
    std::fill(bins.begin() + kBins / 2, bins.end(), 0);
    width *= 2;
  }
}

void TensorRange::add(const float *values, size_t count) {
  double chunkMax = 0;
  for (size_t i = 0; i < count; ++i)
    if (std::isfinite(values[i]))
      chunkMax = std::max(chunkMax, std::fabs(double(values[i])));
  if (chunkMax > 0)
    widenTo(chunkMax);
  for (size_t i = 0; i < count; ++i) {
    double value = values[i];
    if (!std::isfinite(value)) {
      ++nonFiniteCount;
      continue;
    }
    lowest = total == 0 ? value : std::min(lowest, value);
    highest = total == 0 ? value : std::max(highest, value);
    ++total;
    double magnitude = std::fabs(value);
    largestMagnitude = std::max(largestMagnitude, magnitude);
    if (magnitude == 0) {
      ++zeroCount;
      if (width > 0)
        ++bins[0];
      else
        ++zerosBeforeHistogram;
      continue;
    }
    if (magnitude < kFp16MinNormal)
      ++subnormal;
    bins[std::min(kBins - 1, size_t(magnitude / width))] += 1;
  }
}

double TensorRange::fractionBelowFp16Normal() const {
  uint64_t nonZero = total - zeroCount;
  return nonZero == 0 ? 0.0 : double(subnormal) / double(nonZero);
}

double TensorRange::absPercentile(double percentile) const {
  if (width == 0)
    return 0;
  uint64_t binned = 0;
  for (uint64_t bin : bins)
    binned += bin;
  double wanted = binned * std::clamp(percentile, 0.0, 100.0) / 100.0;
  uint64_t seen = 0;
  for (size_t i = 0; i < kBins; ++i) {
    seen += bins[i];
    if (double(seen) >= wanted)
      return std::min(largestMagnitude, (i + 1) * width);
  }
  return largestMagnitude;
}

double TensorRange::entropyThreshold() const {
  constexpr size_t kLevels = 128; // int8's magnitudes 0..127
  if (width == 0)
    return 0;
  size_t used = kBins;
  while (used > kLevels && bins[used - 1] == 0)
    --used;
  if (used <= kLevels)
    return std::min(largestMagnitude, used * width);
  double bestDivergence = std::numeric_limits<double>::infinity();
  size_t best = used;
  std::vector<double> reference, quantized;
  for (size_t edge = kLevels; edge <= used; ++edge) {
    // P: the histogram clipped at `edge`, the outliers in its last bin.
    reference.assign(bins.begin(), bins.begin() + edge);
    for (size_t i = edge; i < kBins; ++i)
      reference[edge - 1] += bins[i];
    // Q: the first `edge` bins merged into kLevels levels, each level's
    // count spread evenly over the bins of it that held values.
    quantized.assign(edge, 0);
    for (size_t level = 0; level < kLevels; ++level) {
      size_t begin = level * edge / kLevels, end = (level + 1) * edge / kLevels;
      double sum = 0;
      size_t nonEmpty = 0;
      for (size_t i = begin; i < end; ++i) {
        sum += bins[i];
        nonEmpty += bins[i] != 0;
      }
      for (size_t i = begin; i < end; ++i)
        if (bins[i] != 0)
          quantized[i] = sum / nonEmpty;
    }
    double referenceSum = 0, quantizedSum = 0;
    for (size_t i = 0; i < edge; ++i) {
      referenceSum += reference[i];
      quantizedSum += quantized[i];
    }
    if (referenceSum == 0 || quantizedSum == 0)
      continue;
    double divergence = 0;
    for (size_t i = 0; i < edge; ++i) {
      if (reference[i] == 0)
        continue;
      double p = reference[i] / referenceSum;
      // An outlier bin Q left empty: a small floor, as TensorRT smooths.
      double q = std::max(quantized[i] / quantizedSum, 1e-12);
      divergence += p * std::log(p / q);
    }
    if (divergence < bestDivergence) {
      bestDivergence = divergence;
      best = edge;
    }
  }
  return std::min(largestMagnitude, (best + 0.5) * width);
}

std::string fp16Misfit(const TensorRange &range) {
  char text[160];
  if (range.maxAbs() >= kFp16Max / 2) {
    std::snprintf(text, sizeof text,
                  "max |x| %.3g reaches half of fp16's largest value (65504)", range.maxAbs());
    return text;
  }
  if (range.fractionBelowFp16Normal() > 0.5) {
    std::snprintf(text, sizeof text,
                  "%.1f%% of the non-zero values are below fp16's normal range (6.1e-05)",
                  100 * range.fractionBelowFp16Normal());
    return text;
  }
  return "";
}

QuantParams activationQuantParams(const TensorRange &range, CalibrationMethod method,
                                  double percentile, bool withOffset) {
  QuantParams params;
  params.low = range.min();
  params.high = range.max();
  double threshold = range.maxAbs();
  if (method == CalibrationMethod::Percentile)
    threshold = range.absPercentile(percentile);
  else if (method == CalibrationMethod::Entropy)
    threshold = range.entropyThreshold();
  params.low = std::max(params.low, -threshold);
  params.high = std::min(params.high, threshold);
  // The range always holds 0, so that zero (padding, ReLU's floor) is exact.
  double low = std::min(params.low, 0.0), high = std::max(params.high, 0.0);
  if (withOffset) {
    params.scale = (high - low) / 255.0;
    if (params.scale == 0)
      params.scale = 1;
    params.offset = int(std::lround(-128.0 - low / params.scale));
    params.offset = std::clamp(params.offset, -128, 127);
  } else {
    params.scale = std::max(-low, high) / 127.0;
    if (params.scale == 0)
      params.scale = 1;
    params.offset = 0;
  }
  return params;
}

} // namespace vinci::driver
