// fp16 / bf16 conversions: exhaustive over fp16, sampled over fp32, against an
// independent reference that rounds in double with nearbyint.
#include <cmath>
#include <random>

#include "sim_test_util.h"

namespace vinci::sim::test {
namespace {

// Reference: the fp16 nearest to x (ties to even), computed from first principles.
uint16_t refF32ToF16(float x) {
  const uint32_t bits = floatBits(x);
  const uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
  if (std::isnan(x)) return 0;  // caller checks NaN separately
  double a = std::fabs(double(x));
  if (a >= 65520.0) return sign | 0x7c00u;  // rounds to infinity
  // fp16 spacing: 2^(e-10) for normal exponent e >= -14, 2^-24 for subnormals.
  int e = a == 0 ? -14 : std::ilogb(a);
  if (e < -14) e = -14;
  const double ulp = std::ldexp(1.0, e - 10);
  double q = std::nearbyint(a / ulp);  // exact division by a power of two
  double v = q * ulp;
  // Rebuild bits from the rounded value.
  if (v == 0) return sign;
  int ve = std::ilogb(v);
  if (ve < -14) return uint16_t(sign | uint16_t(std::ldexp(v, 24)));  // subnormal
  const uint16_t exp_field = uint16_t(ve + 15);
  const uint16_t mant = uint16_t(std::ldexp(v, 10 - ve) - 1024.0);
  return uint16_t(sign | (exp_field << 10) | mant);
}

uint16_t refF32ToBf16(float x) {
  double a = std::fabs(double(x));
  const uint16_t sign = uint16_t((floatBits(x) >> 16) & 0x8000u);
  if (a == 0) return sign;
  if (std::isinf(a)) return sign | 0x7f80u;
  int e = std::ilogb(a);
  if (e < -126) e = -126;
  const double ulp = std::ldexp(1.0, e - 7);
  double v = std::nearbyint(a / ulp) * ulp;
  if (v >= std::ldexp(1.0, 128)) return sign | 0x7f80u;
  const float vf = float(v);
  return uint16_t(sign | (floatBits(vf) >> 16));
}

TEST(SimNumeric, F16ToF32AndBackExhaustive) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = f16ToF32(uint16_t(h));
    if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)) {
      ASSERT_TRUE(std::isnan(f)) << h;
      ASSERT_TRUE(std::isnan(f16ToF32(f32ToF16(f)))) << h;
      continue;
    }
    // Value check against the definition of the format.
    const int exp = int((h >> 10) & 0x1f), mant = int(h & 0x3ff);
    double expect = exp == 0 ? std::ldexp(mant, -24) : exp == 31 ? INFINITY : std::ldexp(1024 + mant, exp - 25);
    if (h & 0x8000u) expect = -expect;
    ASSERT_EQ(double(f), expect) << h;
    ASSERT_EQ(f32ToF16(f), uint16_t(h)) << h;
  }
}

TEST(SimNumeric, F32ToF16RoundsToNearestEvenExhaustiveMidpoints) {
  // For every adjacent pair of finite fp16 values: the midpoint, and values just
  // either side of it, round as the reference says (ties to even).
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    const double lo = f16ToF32(uint16_t(h)), hi = f16ToF32(uint16_t(h + 1));
    const double mid = (lo + hi) / 2;
    for (float x : {float(mid), std::nextafter(float(mid), 0.0f), std::nextafter(float(mid), INFINITY)}) {
      ASSERT_EQ(f32ToF16(x), refF32ToF16(x)) << x;
      ASSERT_EQ(f32ToF16(-x), refF32ToF16(-x)) << x;
    }
    ASSERT_EQ(f32ToF16(float(mid)), (h & 1) ? uint16_t(h + 1) : uint16_t(h)) << h;
  }
  EXPECT_EQ(f32ToF16(65520.0f), 0x7c00u);          // overflow rounds to infinity
  EXPECT_EQ(f32ToF16(65519.996f), 0x7bffu);
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -25)), 0u);  // tie to even: 0
  EXPECT_EQ(f32ToF16(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 1u);
}

TEST(SimNumeric, F32ToF16RandomSample) {
  std::mt19937 rng(1);
  for (int i = 0; i < 2000000; ++i) {
    const float x = bitsFloat(rng());
    if (std::isnan(x)) {
      ASSERT_TRUE(std::isnan(f16ToF32(f32ToF16(x))));
      continue;
    }
    ASSERT_EQ(f32ToF16(x), refF32ToF16(x)) << x;
  }
}

TEST(SimNumeric, Bf16RoundsToNearestEven) {
  std::mt19937 rng(2);
  for (int i = 0; i < 2000000; ++i) {
    const float x = bitsFloat(rng());
    if (std::isnan(x)) {
      ASSERT_TRUE(std::isnan(bf16ToF32(f32ToBf16(x))));
      continue;
    }
    ASSERT_EQ(f32ToBf16(x), refF32ToBf16(x)) << x;
  }
  for (uint32_t b = 0; b < 65536; ++b) {
    const float f = bf16ToF32(uint16_t(b));
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32ToBf16(f), uint16_t(b));
  }
  EXPECT_EQ(f32ToBf16(bitsFloat(0x3f808000u)), 0x3f80u);  // tie, even stays
  EXPECT_EQ(f32ToBf16(bitsFloat(0x3f818000u)), 0x3f82u);  // tie, odd rounds up
  EXPECT_EQ(f32ToBf16(bitsFloat(0x7f7fffffu)), 0x7f80u);  // overflow to infinity
}

}  // namespace
}  // namespace vinci::sim::test
