// The fast paths' elementwise loops, written once with Highway and compiled
// for each target whose file includes this header (fast.cpp: AVX2;
// fast_avx3.cpp: AVX-512), each in its target's namespace. Every loop
// computes exactly what vector.cpp's reference does, lane by lane (see
// fast.cpp), whatever the vector width.
#ifndef VINCI_SIM_FAST_ELEMENTWISE_H
#define VINCI_SIM_FAST_ELEMENTWISE_H

#include <hwy/highway.h>

#include <cmath>
#include <cstring>
#include <type_traits>

#include "fast.h"

namespace vinci::sim::detail::fast {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using DH = hn::Rebind<hwy::float16_t, DF>;
using DU = hn::RebindToUnsigned<DF>;
using VF = hn::Vec<DF>;
constexpr size_t kLanes = HWY_LANES(float);  // 8 on AVX2, 16 on AVX-512

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
      alignas(64) float lanes[kLanes];
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

// How the loops load, store and round one element type: fp16 through fp32
// lanes (rounded by F16C), fp32 as it is.
struct F16Elements {
  using T = uint16_t;
  static VF load(DF df, const T* p) { return promote(df, p); }
  static void store(DF df, VF v, T* p) { store16(df, v, p); }
  // Only mla and axpy round before their last step, whose result is stored
  // (canonical NaN then): an inner NaN of any sign or payload stays a NaN.
  static VF round(DF df, VF v) { return hn::PromoteTo(df, hn::DemoteTo(DH(), v)); }
};
struct F32Elements {
  using T = float;
  static VF load(DF df, const T* p) { return hn::LoadU(df, p); }
  static void store(DF df, VF v, T* p) { hn::StoreU(canonical(df, v), df, p); }
  static VF round(DF, VF v) { return v; }
};

template <Op op, class E>
void elementwiseLoop(typename E::T* d, const typename E::T* a, const typename E::T* b, float s, size_t n) {
  using T = typename E::T;
  const DF df;
  const VF vs = hn::Set(df, s);
  auto round = [&](VF v) { return E::round(df, v); };
  constexpr bool ra = readsA(op), rb = readsB(op), rd = readsD(op);
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const VF va = ra ? E::load(df, a + i) : hn::Zero(df);
    const VF vb = rb ? E::load(df, b + i) : hn::Zero(df);
    const VF vd = rd ? E::load(df, d + i) : hn::Zero(df);
    E::store(df, apply(op, df, va, vb, vs, vd, round), d + i);
  }
  if (i == n) return;
  // The tail through a zero-padded vector (the padding lanes are dropped).
  alignas(64) T ta[kLanes] = {}, tb[kLanes] = {}, td[kLanes] = {};
  const size_t left = n - i;
  if (ra) std::memcpy(ta, a + i, left * sizeof(T));
  if (rb) std::memcpy(tb, b + i, left * sizeof(T));
  if (rd) std::memcpy(td, d + i, left * sizeof(T));
  E::store(df, apply(op, df, E::load(df, ta), E::load(df, tb), vs, E::load(df, td), round), td);
  std::memcpy(d + i, td, left * sizeof(T));
}

// The runs of fp16 / fp32 elements, the operation chosen once (fast.h's f16, f32).
template <class E>
void elementwiseRuns(Op op, typename E::T* d, const typename E::T* a, const typename E::T* b, float s,
                     const Runs& runs) {
  withOp(op, [&](auto k) {
    for (size_t r = 0; r < runs.repeats; ++r)
      elementwiseLoop<decltype(k)::value, E>(d + ptrdiff_t(r) * runs.d_step, a + ptrdiff_t(r) * runs.a_step,
                                             b + ptrdiff_t(r) * runs.b_step, s, runs.n);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace vinci::sim::detail::fast

#endif  // VINCI_SIM_FAST_ELEMENTWISE_H
