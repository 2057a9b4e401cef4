// Fast functional paths (internal): SIMD loops for the hot instructions,
// bit-identical to the reference code in vector.cpp and mmad.cpp (the
// equivalence tests compare them on random inputs).
//
// fast.cpp is compiled for Highway's AVX2 target (AVX2, FMA, F16C, BMI2) and
// must only be entered when available() says the host has it; every other
// host, and RunOptions::reference_paths, takes the reference code.
#ifndef VINCI_SIM_FAST_H
#define VINCI_SIM_FAST_H

#include <cstddef>
#include <cstdint>

namespace vinci::sim::detail::fast {

// The host runs Highway's AVX2 target (checked once, with CPUID and XGETBV).
bool available();
// The host runs Highway's AVX3 target too (AVX-512 F, VL, DQ, BW, and the
// OS saves the ZMM and opmask state), and allowAvx512 has not turned it off:
// the elementwise loops and mmad then take their AVX-512 builds.
bool avx512();
// Tests turn the AVX-512 builds off (default on) to check the AVX2 ones on
// a host that has both.
void allowAvx512(bool allowed);

// An elementwise operation as the reference computes it: in fp32, each
// result rounded to the element type (round to nearest even; a NaN result
// stored as the type's positive quiet NaN, numeric.h's f16Result/f32Result).
enum class Op : uint8_t {
  Add, Sub, Mul, Div, Max, Min,  // d = a op b
  Mla,                           // d = round(a * b) + d
  Axpy,                          // d = round(a * s) + d
  Adds, Muls, Maxs, Mins,        // d = a op s
  LeakyRelu,                     // d = a >= 0 ? a : a * s
  Abs, Relu, Neg, Sqrt, Rsqrt, Rec, Exp, Ln,
  Dup,                           // d = s
};

// `repeats` runs of n contiguous elements, run r of d, a and b starting
// r x d_step, a_step, b_step elements after their first (the repeats of one
// vector instruction, in order).
struct Runs {
  size_t n, repeats;
  ptrdiff_t d_step, a_step, b_step;
};

// fp16 elements, run by run: d[i] = op(a[i], b[i], s, d[i]). `a` and `b`
// may be d itself (the same address) but must not overlap it otherwise; `s`
// is the scalar already rounded to fp16.
void f16(Op op, uint16_t* d, const uint16_t* a, const uint16_t* b, float s, const Runs& runs);
// The same over fp32 elements.
void f32(Op op, float* d, const float* a, const float* b, float s, const Runs& runs);

// Conversions: fp32 -> fp16 (optionally ReLU first, as the L0C read-out
// does), fp16 -> fp32 (exact but for NaN, which becomes fp32's positive
// quiet NaN). Source and destination do not overlap.
void f32ToF16(uint16_t* d, const float* s, size_t n, bool relu);
void f16ToF32(float* d, const uint16_t* s, size_t n);

// The L0C read-out of fp32 accumulators as the reference computes it: each
// value times `factor` when `scale`, then ReLU when `relu`, stored as fp16
// (`to_f16`) or fp32 (a NaN as the type's positive quiet NaN). Source and
// destination do not overlap.
void readOutF32(void* d, bool to_f16, const float* s, size_t n, bool scale, float factor, bool relu);

namespace avx3 {  // f16 and f32 built for AVX-512 (fast_avx3.cpp)
void f16(Op op, uint16_t* d, const uint16_t* a, const uint16_t* b, float s, const Runs& runs);
void f32(Op op, float* d, const float* a, const float* b, float s, const Runs& runs);
}  // namespace avx3

// One 16x16 tile of 16-bit elements transposed: out[c * 16 + r] = in[r * 16 + c].
// Every element is read before any is written, so `out` may be `in`.
void transpose16x16(uint16_t* out, const uint16_t* in);

}  // namespace vinci::sim::detail::fast

#endif  // VINCI_SIM_FAST_H
