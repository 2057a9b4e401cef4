// Fast functional paths with Highway (header-only use, static target): this
// file is compiled with the flags of Highway's AVX2 target (CMakeLists.txt)
// and entered only when fast::available() says the host has it; the
// elementwise loops (fast_elementwise.h) go to their AVX-512 build
// (fast_avx3.cpp) when fast::avx512() says so.
//
// Each loop computes exactly what vector.cpp's reference does, lane by lane:
// fp32 arithmetic in the same order of operations with no contraction (the
// library builds with -ffp-contract=off), fp16 rounding by F16C (round to
// nearest even, like the FP16 library), and a NaN result stored as its type's
// positive quiet NaN (numeric.h's f16Result, f32Result). Keep this file free
// of the project's inline headers: it is built for another ISA.
#include "fast.h"

#include <immintrin.h>

#include "fast_elementwise.h"

#if HWY_STATIC_TARGET != HWY_AVX2
#error "fast.cpp must be compiled for Highway's AVX2 target (see runtime/sim/CMakeLists.txt)"
#endif

namespace vinci::sim::detail::fast {

using namespace HWY_NAMESPACE;

void f16(Op op, uint16_t* d, const uint16_t* a, const uint16_t* b, float s, const Runs& runs) {
  if (avx512()) return avx3::f16(op, d, a, b, s, runs);
  elementwiseRuns<F16Elements>(op, d, a, b, s, runs);
}

void f32(Op op, float* d, const float* a, const float* b, float s, const Runs& runs) {
  if (avx512()) return avx3::f32(op, d, a, b, s, runs);
  elementwiseRuns<F32Elements>(op, d, a, b, s, runs);
}

void f32ToF16(uint16_t* d, const float* s, size_t n, bool relu) {
  const DF df;
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    VF v = hn::LoadU(df, s + i);
    if (relu) v = vmax(df, v, hn::Zero(df));
    store16(df, v, d + i);
  }
  if (i == n) return;
  alignas(32) float t[kLanes] = {};
  alignas(32) uint16_t r[kLanes];
  std::memcpy(t, s + i, (n - i) * 4);
  VF v = hn::Load(df, t);
  if (relu) v = vmax(df, v, hn::Zero(df));
  store16(df, v, r);
  std::memcpy(d + i, r, (n - i) * 2);
}

void readOutF32(void* d, bool to_f16, const float* s, size_t n, bool scale, float factor, bool relu) {
  const DF df;
  const VF vf = hn::Set(df, factor);
  auto value = [&](VF v) {
    if (scale) v = hn::Mul(v, vf);
    return relu ? vmax(df, v, hn::Zero(df)) : v;
  };
  uint16_t* d16 = static_cast<uint16_t*>(d);
  float* d32 = static_cast<float*>(d);
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const VF v = value(hn::LoadU(df, s + i));
    if (to_f16) store16(df, v, d16 + i);
    else hn::StoreU(canonical(df, v), df, d32 + i);
  }
  if (i == n) return;
  alignas(32) float t[kLanes] = {};
  std::memcpy(t, s + i, (n - i) * 4);
  const VF v = value(hn::Load(df, t));
  if (to_f16) {
    alignas(32) uint16_t r[kLanes];
    store16(df, v, r);
    std::memcpy(d16 + i, r, (n - i) * 2);
  } else {
    hn::Store(canonical(df, v), df, t);
    std::memcpy(d32 + i, t, (n - i) * 4);
  }
}

// Unpacks of 16-, 32- and 64-bit pairs within each 128-bit lane, then the
// lanes of two halves joined: after the third step c[8h + j] holds column j
// (low lane) and column j + 8 (high lane) of rows 8h .. 8h + 7.
void transpose16x16(uint16_t* out, const uint16_t* in) {
  __m256i r[16], a[16], b[16], c[16];
  for (unsigned i = 0; i < 16; ++i) r[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 16 * i));
  for (unsigned i = 0; i < 8; ++i) {  // rows 2i, 2i + 1: columns 0-3 | 8-11, then 4-7 | 12-15
    a[2 * i] = _mm256_unpacklo_epi16(r[2 * i], r[2 * i + 1]);
    a[2 * i + 1] = _mm256_unpackhi_epi16(r[2 * i], r[2 * i + 1]);
  }
  for (unsigned g = 0; g < 4; ++g) {  // rows 4g .. 4g + 3: columns 2k, 2k + 1 | 2k + 8, 2k + 9
    b[4 * g + 0] = _mm256_unpacklo_epi32(a[4 * g + 0], a[4 * g + 2]);
    b[4 * g + 1] = _mm256_unpackhi_epi32(a[4 * g + 0], a[4 * g + 2]);
    b[4 * g + 2] = _mm256_unpacklo_epi32(a[4 * g + 1], a[4 * g + 3]);
    b[4 * g + 3] = _mm256_unpackhi_epi32(a[4 * g + 1], a[4 * g + 3]);
  }
  for (unsigned h = 0; h < 2; ++h)
    for (unsigned k = 0; k < 4; ++k) {
      c[8 * h + 2 * k] = _mm256_unpacklo_epi64(b[8 * h + k], b[8 * h + 4 + k]);
      c[8 * h + 2 * k + 1] = _mm256_unpackhi_epi64(b[8 * h + k], b[8 * h + 4 + k]);
    }
  for (unsigned j = 0; j < 8; ++j) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 16 * j), _mm256_permute2x128_si256(c[j], c[8 + j], 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 16 * (j + 8)), _mm256_permute2x128_si256(c[j], c[8 + j], 0x31));
  }
}

void f16ToF32(float* d, const uint16_t* s, size_t n) {
  const DF df;
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) hn::StoreU(canonical(df, promote(df, s + i)), df, d + i);
  if (i == n) return;
  alignas(32) uint16_t t[kLanes] = {};
  alignas(32) float r[kLanes];
  std::memcpy(t, s + i, (n - i) * 2);
  hn::Store(canonical(df, promote(df, t)), df, r);
  std::memcpy(d + i, r, (n - i) * 4);
}

}  // namespace vinci::sim::detail::fast
