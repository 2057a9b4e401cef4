// Bit-exact conversions between fp32 and the 16-bit float formats, all
// round-to-nearest-even. fp16 uses the FP16 header library (Debian libfp16-dev);
// bf16 is the upper half of an fp32, rounded to nearest even.
#ifndef VINCI_SIM_NUMERIC_H
#define VINCI_SIM_NUMERIC_H

#include <cstdint>
#include <cstring>

#include <fp16.h>

namespace vinci::sim {

inline float f16ToF32(uint16_t h) { return fp16_ieee_to_fp32_value(h); }
inline uint16_t f32ToF16(float f) { return fp16_ieee_from_fp32_value(f); }

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline float bf16ToF32(uint16_t b) { return bitsFloat(uint32_t(b) << 16); }
inline uint16_t f32ToBf16(float f) {
  uint32_t u = floatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x0040u);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest, ties to even
  return uint16_t(u >> 16);
}

// How the simulator stores the result of an arithmetic instruction: rounded
// to nearest even, and a NaN as its type's positive quiet NaN. (Which NaN an
// operation on NaNs yields would otherwise depend on operand order, i.e. on
// the host compiler and on the code path; copies, selects and broadcasts
// move bits unchanged.)
inline uint16_t f16Result(float f) { return f != f ? uint16_t(0x7E00) : f32ToF16(f); }
inline uint16_t bf16Result(float f) { return f != f ? uint16_t(0x7FC0) : f32ToBf16(f); }
inline uint32_t f32Result(float f) { return f != f ? 0x7FC00000u : floatBits(f); }

}  // namespace vinci::sim

#endif  // VINCI_SIM_NUMERIC_H
