//===- TensorRange.h - what calibration learns about one tensor -*- C++ -*-===//
//
// A tensor's values over every calibration sample: its extremes, how many
// fall outside fp16's normal range, and a histogram of magnitudes from
// which the int8 clipping thresholds are chosen (onnxruntime's and
// TensorRT's calibrators: min-max, percentile, entropy). Plain C++, no MLIR:
// the driver feeds it the tensors the calibration run exposes.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_COMPILER_DRIVER_TENSORRANGE_H
#define VINCI_COMPILER_DRIVER_TENSORRANGE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vinci::driver {

/// fp16's limits (IEEE 754 binary16).
inline constexpr double kFp16Max = 65504.0;
inline constexpr double kFp16MinNormal = 6.103515625e-05;     // 2^-14
inline constexpr double kFp16MinSubnormal = 5.9604644775390625e-08; // 2^-24

/// A tensor's values over all samples. Magnitudes go into kBins equal bins
/// over [0, kBins * binWidth); a value past the top doubles the width
/// (merging neighbouring bins) until it fits, so one pass over the samples
/// serves every method, whatever order the samples come in. The width is a
/// power of two, so the histogram is the same for any sample order.
class TensorRange {
public:
  static constexpr size_t kBins = 2048;

  void add(const float *values, size_t count);

  /// Finite values seen (non-finite ones are counted apart).
  uint64_t count() const { return total; }
  double min() const { return lowest; }
  double max() const { return highest; }
  double maxAbs() const { return largestMagnitude; }
  /// Values that are not zero but smaller in magnitude than fp16's smallest
  /// normal (they lose precision in fp16, and below kFp16MinSubnormal / 2
  /// they become 0).
  uint64_t belowFp16Normal() const { return subnormal; }
  uint64_t zeros() const { return zeroCount; }
  uint64_t nonFinite() const { return nonFiniteCount; }
  /// The fraction of the non-zero values below fp16's normal range.
  double fractionBelowFp16Normal() const;

  /// The magnitude below which `percentile` percent of the values lie
  /// (the upper edge of the histogram bin that reaches it).
  double absPercentile(double percentile) const;
  /// The magnitude threshold whose int8 quantisation (127 levels on each
  /// side, as a symmetric scale) loses the least information: the
  /// threshold bin that minimises the KL divergence between the clipped
  /// histogram and its 128-level quantisation (TensorRT's entropy
  /// calibration).
  double entropyThreshold() const;

  const std::vector<uint64_t> &histogram() const { return bins; }
  double binWidth() const { return width; }

private:
  void widenTo(double magnitude);

  uint64_t total = 0, subnormal = 0, zeroCount = 0, nonFiniteCount = 0; // total: finite values
  uint64_t zerosBeforeHistogram = 0; // zeros seen before the first non-zero value
  double lowest = 0, highest = 0, largestMagnitude = 0;
  std::vector<uint64_t> bins;
  double width = 0; // 0 until a non-zero finite value arrives
};

/// Why a tensor of this range cannot be stored in fp16, or "" when it can:
/// its largest magnitude reaches half of fp16's maximum (the samples are a
/// sample: an input a little larger would overflow, and a consumer that
/// adds two such values does), or more than half of its non-zero values lie
/// below fp16's normal range (most of them lose bits or flush to zero).
std::string fp16Misfit(const TensorRange &range);

/// int8 quantisation parameters of an activation: x ~ scale * (q - offset),
/// q in [-128, 127].
struct QuantParams {
  double scale = 1;
  int offset = 0;
  double low = 0, high = 0; // the clipping range the scale covers
};

enum class CalibrationMethod { MinMax, Percentile, Entropy };

/// The activation quantisation a method gives: the clipping range [low,
/// high] (the observed extremes for min-max; for percentile and entropy the
/// observed extremes clipped to the magnitude threshold), then with
/// `withOffset` an asymmetric scale over [min(low, 0), max(high, 0)] and
/// its zero point, otherwise a symmetric scale over the larger magnitude
/// (offset 0).
QuantParams activationQuantParams(const TensorRange &range, CalibrationMethod method,
                                  double percentile, bool withOffset);

} // namespace vinci::driver

#endif // VINCI_COMPILER_DRIVER_TENSORRANGE_H
