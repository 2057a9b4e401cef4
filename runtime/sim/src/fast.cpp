// Fast functional paths with Highway (header-only use, static target): this
// file is compiled with the flags of Highway's AVX2 target (CMakeLists.txt)
// and entered only when fast::available() says the host has it.
//
// Each loop computes exactly what vector.cpp's reference does, lane by lane:
// fp32 arithmetic in the same order of operations with no contraction (the
// library builds with -ffp-contract=off), fp16 rounding by F16C (round to
// nearest even, like the FP16 library), and a NaN result stored as its type's
// positive quiet NaN (numeric.h's f16Result, f32Result). Keep this file free
// of the project's inline headers: it is built for another ISA.
#include "fast.h"

#include <hwy/highway.h>
#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <type_traits>

#if HWY_STATIC_TARGET != HWY_AVX2
#error "fast.cpp must be compiled for Highway's AVX2 target (see runtime/sim/CMakeLists.txt)"
#endif

namespace vinci::sim::detail::fast {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using DH = hn::Rebind<hwy::float16_t, DF>;
using DU = hn::RebindToUnsigned<DF>;
using VF = hn::Vec<DF>;
constexpr size_t kLanes = 8;  // AVX2: 8 fp32 lanes

// vmax/vmin as the reference: a NaN operand wins (the first), ties keep b.
HWY_INLINE VF vmax(DF, VF a, VF b) {
  return hn::IfThenElse(hn::IsNaN(a), a, hn::IfThenElse(hn::IsNaN(b), b, hn::IfThenElse(hn::Gt(a, b), a, b)));
}
HWY_INLINE VF vmin(DF, VF a, VF b) {
  return hn::IfThenElse(hn::IsNaN(a), a, hn::IfThenElse(hn::IsNaN(b), b, hn::IfThenElse(hn::Lt(a, b), a, b)));
}

// The positive quiet NaN in every NaN lane.
HWY_INLINE VF canonical(DF df, VF v) {
  const DU du;
  return hn::IfThenElse(hn::IsNaN(v), hn::BitCast(df, hn::Set(du, 0x7FC00000u)), v);
}
// fp32 -> fp16: F16C turns the canonical fp32 NaN into 0x7E00.
HWY_INLINE hn::Vec<DH> demote(DF df, VF v) { return hn::DemoteTo(DH(), canonical(df, v)); }
HWY_INLINE VF promote(DF df, const uint16_t* p) {
  return hn::PromoteTo(df, hn::LoadU(DH(), reinterpret_cast<const hwy::float16_t*>(p)));
}
HWY_INLINE void store16(DF df, VF v, uint16_t* p) {
  hn::StoreU(demote(df, v), DH(), reinterpret_cast<hwy::float16_t*>(p));
}

// One operation on a vector of lanes; `round` gives a value as its element
// type stores it (for fp16: promote(demote(v)); for fp32: v).
template <class Round>
HWY_INLINE VF apply(Op op, DF df, VF a, VF b, VF s, VF d, Round round) {
  switch (op) {
    case Op::Add: return hn::Add(a, b);
    case Op::Sub: return hn::Sub(a, b);
    case Op::Mul: return hn::Mul(a, b);
    case Op::Div: return hn::Div(a, b);
    case Op::Max: return vmax(df, a, b);
    case Op::Min: return vmin(df, a, b);
    case Op::Mla: return hn::Add(round(hn::Mul(a, b)), d);
    case Op::Axpy: return hn::Add(round(hn::Mul(a, s)), d);
    case Op::Adds: return hn::Add(a, s);
    case Op::Muls: return hn::Mul(a, s);
    case Op::Maxs: return vmax(df, a, s);
    case Op::Mins: return vmin(df, a, s);
    case Op::LeakyRelu: return hn::IfThenElse(hn::Ge(a, hn::Zero(df)), a, hn::Mul(a, s));
    case Op::Abs: return hn::Abs(a);
    case Op::Relu: return vmax(df, a, hn::Zero(df));
    case Op::Neg: return hn::Neg(a);
    case Op::Sqrt: return hn::Sqrt(a);
    case Op::Rsqrt: return hn::Div(hn::Set(df, 1.0f), hn::Sqrt(a));
    case Op::Rec: return hn::Div(hn::Set(df, 1.0f), a);
    case Op::Dup: return s;
    case Op::Exp:
    case Op::Ln: {  // the same libm calls as the reference, lane by lane
      alignas(32) float lanes[kLanes];
      hn::Store(a, df, lanes);
      for (float& x : lanes) x = op == Op::Exp ? std::exp(x) : std::log(x);
      return hn::Load(df, lanes);
    }
  }
  return a;
}

constexpr bool readsB(Op op) {
  return op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div || op == Op::Max ||
         op == Op::Min || op == Op::Mla;
}
constexpr bool readsA(Op op) { return op != Op::Dup; }
constexpr bool readsD(Op op) { return op == Op::Mla || op == Op::Axpy; }

// f(std::integral_constant<Op, op>): each operation gets a loop of its own
// (a switch per vector of lanes otherwise).
template <class F>
void withOp(Op op, F f) {
  using O = Op;
  switch (op) {
#define VINCI_FAST_OP(X) \
  case O::X:             \
    return f(std::integral_constant<O, O::X>{});
    VINCI_FAST_OP(Add) VINCI_FAST_OP(Sub) VINCI_FAST_OP(Mul) VINCI_FAST_OP(Div) VINCI_FAST_OP(Max)
    VINCI_FAST_OP(Min) VINCI_FAST_OP(Mla) VINCI_FAST_OP(Axpy) VINCI_FAST_OP(Adds) VINCI_FAST_OP(Muls)
    VINCI_FAST_OP(Maxs) VINCI_FAST_OP(Mins) VINCI_FAST_OP(LeakyRelu) VINCI_FAST_OP(Abs) VINCI_FAST_OP(Relu)
    VINCI_FAST_OP(Neg) VINCI_FAST_OP(Sqrt) VINCI_FAST_OP(Rsqrt) VINCI_FAST_OP(Rec) VINCI_FAST_OP(Exp)
    VINCI_FAST_OP(Ln) VINCI_FAST_OP(Dup)
#undef VINCI_FAST_OP
  }
}

template <Op op>
void f16Loop(uint16_t* d, const uint16_t* a, const uint16_t* b, float s, size_t n) {
  const DF df;
  const VF vs = hn::Set(df, s);
  auto round = [&](VF v) { return hn::PromoteTo(df, demote(df, v)); };
  constexpr bool ra = readsA(op), rb = readsB(op), rd = readsD(op);
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const VF va = ra ? promote(df, a + i) : hn::Zero(df);
    const VF vb = rb ? promote(df, b + i) : hn::Zero(df);
    const VF vd = rd ? promote(df, d + i) : hn::Zero(df);
    store16(df, apply(op, df, va, vb, vs, vd, round), d + i);
  }
  if (i == n) return;
  // The tail through a zero-padded vector (the padding lanes are dropped).
  alignas(32) uint16_t ta[kLanes] = {}, tb[kLanes] = {}, td[kLanes] = {};
  const size_t left = n - i;
  if (ra) std::memcpy(ta, a + i, left * 2);
  if (rb) std::memcpy(tb, b + i, left * 2);
  if (rd) std::memcpy(td, d + i, left * 2);
  store16(df, apply(op, df, promote(df, ta), promote(df, tb), vs, promote(df, td), round), td);
  std::memcpy(d + i, td, left * 2);
}

template <Op op>
void f32Loop(float* d, const float* a, const float* b, float s, size_t n) {
  const DF df;
  const VF vs = hn::Set(df, s);
  auto round = [](VF v) { return v; };
  constexpr bool ra = readsA(op), rb = readsB(op), rd = readsD(op);
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const VF va = ra ? hn::LoadU(df, a + i) : hn::Zero(df);
    const VF vb = rb ? hn::LoadU(df, b + i) : hn::Zero(df);
    const VF vd = rd ? hn::LoadU(df, d + i) : hn::Zero(df);
    hn::StoreU(canonical(df, apply(op, df, va, vb, vs, vd, round)), df, d + i);
  }
  if (i == n) return;
  alignas(32) float ta[kLanes] = {}, tb[kLanes] = {}, td[kLanes] = {};
  const size_t left = n - i;
  if (ra) std::memcpy(ta, a + i, left * 4);
  if (rb) std::memcpy(tb, b + i, left * 4);
  if (rd) std::memcpy(td, d + i, left * 4);
  hn::Store(canonical(df, apply(op, df, hn::Load(df, ta), hn::Load(df, tb), vs, hn::Load(df, td), round)),
            df, td);
  std::memcpy(d + i, td, left * 4);
}

}  // namespace

void f16(Op op, uint16_t* d, const uint16_t* a, const uint16_t* b, float s, size_t n) {
  withOp(op, [&](auto k) { f16Loop<decltype(k)::value>(d, a, b, s, n); });
}

void f32(Op op, float* d, const float* a, const float* b, float s, size_t n) {
  withOp(op, [&](auto k) { f32Loop<decltype(k)::value>(d, a, b, s, n); });
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
