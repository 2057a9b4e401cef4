// The vector calls: the repeat / block-stride / repeat-stride / bit-mask walk
// of the Ascend C level-0 API, and each call's arithmetic.
//
// Numerics, where the reference documents the operation but not its bits,
// follow docs/isa.md: half arithmetic is IEEE binary16, computed in binary32
// and rounded to nearest even (for + - * / and sqrt that is the correctly
// rounded binary16 result: binary32 has more than twice binary16's 11
// significant bits plus two, so the double rounding is innocuous); exp, ln,
// sqrt use the host libm's float functions; Rsqrt and Reciprocal divide
// 1.0f once more; Max/Min keep a NaN; reductions add in lane order in float
// (int64 for int32) and round once; int32 arithmetic wraps.
#include <cmath>
#include <cstring>
#include <limits>

#include <fp16.h>

#include "device.h"

namespace vinci::ascendc_host {
namespace {

using AscendC::CMPMODE;
using AscendC::RoundMode;

/// Lane `l` of repeat `r` of an operand of `es`-byte elements.
struct Walk {
  uint8_t *base;
  uint32_t es, perBlock;
  uint64_t blk, rep;  // bytes
  uint8_t *at(uint32_t r, uint32_t l) const {
    return base + r * rep + (l / perBlock) * blk + (l % perBlock) * es;
  }
  /// Bytes from base that `repeat` repeats of `lanes` lanes can touch.
  uint64_t envelope(uint32_t repeat, uint32_t lanes) const {
    if (repeat == 0 || lanes == 0) return 0;
    const uint64_t blocks = (lanes + perBlock - 1) / perBlock;
    return (repeat - 1) * rep + (blocks - 1) * blk + uint64_t((lanes - 1) % perBlock + 1) * es;
  }
};

Walk walk(const Span &s, uint32_t blk, uint32_t rep) {
  const uint32_t es = eltBytes(s.elt);
  return Walk{s.ptr, es, 32 / es, uint64_t(blk) * 32, uint64_t(rep) * 32};
}

bool isFloat(Elt e) { return e == Elt::F16 || e == Elt::F32; }

double load(Elt e, const uint8_t *p) {
  switch (e) {
    case Elt::F16: { uint16_t h; std::memcpy(&h, p, 2); return fp16_ieee_to_fp32_value(h); }
    case Elt::F32: { float f; std::memcpy(&f, p, 4); return f; }
    case Elt::S32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case Elt::U32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case Elt::S16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case Elt::U16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case Elt::S8: return int8_t(*p);
    case Elt::U8: return *p;
  }
  return 0;
}

void storeFloat(Elt e, uint8_t *p, float v) {
  if (e == Elt::F16) {
    uint16_t h = fp16_ieee_from_fp32_value(v);
    std::memcpy(p, &h, 2);
  } else {
    std::memcpy(p, &v, 4);
  }
}

float roundTo(Elt e, float v) {
  return e == Elt::F16 ? fp16_ieee_to_fp32_value(fp16_ieee_from_fp32_value(v)) : v;
}

template <typename V> V keepNanMax(V a, V b) {
  if constexpr (std::is_floating_point_v<V>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a > b ? a : b;
}
template <typename V> V keepNanMin(V a, V b) {
  if constexpr (std::is_floating_point_v<V>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? a : b;
}

uint32_t lanesOf(Elt a, Elt b) { return 256 / std::max(eltBytes(a), eltBytes(b)); }

bool laneOn(const uint64_t mask[2], uint32_t l) { return (mask[l >> 6] >> (l & 63)) & 1; }

/// One past the highest lane the mask enables: the lanes a repeat touches
/// (the mask's other lanes are neither read nor written).
uint32_t reach(const uint64_t mask[2], uint32_t lanes) {
  for (uint32_t l = lanes; l > 0; --l)
    if (laneOn(mask, l - 1)) return l;
  return 0;
}

void checkMask(const uint64_t mask[2], uint32_t lanes, const char *call) {
  bool ok = lanes >= 128 || (mask[1] == 0 && (lanes == 64 ? true : (mask[0] >> lanes) == 0));
  if (!ok)
    fault(std::string(call) + ": mask sets lanes beyond the " + std::to_string(lanes) +
          " of a repeat");
}

void checkVector(const Span &s, const char *call) {
  if (!isVectorPosition(s.position))
    fault(std::string(call) + ": operands are VECIN/VECOUT/VECCALC tensors, not " +
          positionName(s.position));
  if (spaceOffset(s) % 32 != 0)
    fault(std::string(call) + ": UB address " + std::to_string(spaceOffset(s)) +
          " is not 32-byte aligned");
}

}  // namespace

void vector(VecOp op, const Span &dst, const Span &src0, const Span *src1, Scalar scalar,
            const uint64_t mask[2], uint32_t repeat, const Strides &st, const char *call) {
  checkVector(dst, call);
  checkVector(src0, call);
  if (src1) checkVector(*src1, call);
  const Elt e = dst.elt;
  if (src0.elt != e || (src1 && src1->elt != e))
    fault(std::string(call) + ": operands of one element type expected");
  const bool copy = op == VecOp::Copy;
  if (!copy && !isFloat(e) && e != Elt::S32)
    fault(std::string(call) + ": no " + eltName(e) + " form here (half, float, int32_t)");
  const bool floatOnly = op == VecOp::Div || op == VecOp::Exp || op == VecOp::Ln ||
                         op == VecOp::Sqrt || op == VecOp::Rsqrt || op == VecOp::Reciprocal ||
                         op == VecOp::LeakyRelu || op == VecOp::Axpy || op == VecOp::MulAddDst;
  if (floatOnly && !isFloat(e)) fault(std::string(call) + ": takes half or float only");
  if (copy && eltBytes(e) == 1) fault(std::string(call) + ": takes 2- and 4-byte types");
  const uint32_t lanes = lanesOf(e, e);
  checkMask(mask, lanes, call);
  const Walk wd = walk(dst, st.blk[0], st.rep[0]);
  const Walk w0 = walk(src0, st.blk[1], st.rep[1]);
  const Walk w1 = src1 ? walk(*src1, st.blk[2], st.rep[2]) : w0;
  checkRange(dst, wd.envelope(repeat, reach(mask, lanes)), true, call);
  checkRange(src0, w0.envelope(repeat, reach(mask, lanes)), false, call);
  if (src1) checkRange(*src1, w1.envelope(repeat, reach(mask, lanes)), false, call);
  const unsigned es = eltBytes(e);

  for (uint32_t r = 0; r < repeat; ++r)
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!laneOn(mask, l)) continue;
      uint8_t *d = wd.at(r, l);
      const uint8_t *p0 = w0.at(r, l);
      if (copy) {
        uint8_t tmp[4];
        std::memcpy(tmp, p0, es);
        std::memcpy(d, tmp, es);
        continue;
      }
      if (isFloat(e)) {
        const float a = float(load(e, p0));
        const float b = src1 ? float(load(e, w1.at(r, l))) : 0.0f;
        const float s = roundTo(e, float(scalar.value));
        float v = 0;
        switch (op) {
          case VecOp::Add: v = a + b; break;
          case VecOp::Sub: v = a - b; break;
          case VecOp::Mul: v = a * b; break;
          case VecOp::Div: v = a / b; break;
          case VecOp::Max: v = keepNanMax(a, b); break;
          case VecOp::Min: v = keepNanMin(a, b); break;
          case VecOp::MulAddDst: v = roundTo(e, a * b) + float(load(e, d)); break;
          case VecOp::Adds: v = a + s; break;
          case VecOp::Muls: v = a * s; break;
          case VecOp::Maxs: v = keepNanMax(a, s); break;
          case VecOp::Mins: v = keepNanMin(a, s); break;
          case VecOp::LeakyRelu: v = a >= 0.0f ? a : a * s; break;
          case VecOp::Axpy: v = roundTo(e, a * s) + float(load(e, d)); break;
          case VecOp::Exp: v = std::exp(a); break;
          case VecOp::Ln: v = std::log(a); break;
          case VecOp::Sqrt: v = std::sqrt(a); break;
          case VecOp::Rsqrt: v = 1.0f / std::sqrt(a); break;
          case VecOp::Reciprocal: v = 1.0f / a; break;
          case VecOp::Abs: v = std::fabs(a); break;
          case VecOp::Relu: v = keepNanMax(a, 0.0f); break;
          case VecOp::Copy: break;
        }
        storeFloat(e, d, v);
        continue;
      }
      // int32: computed in int64, stored modulo 2^32.
      const int64_t a = int64_t(load(e, p0));
      const int64_t b = src1 ? int64_t(load(e, w1.at(r, l))) : 0;
      const int64_t s = int64_t(int32_t(scalar.value));
      int64_t v = 0;
      switch (op) {
        case VecOp::Add: v = a + b; break;
        case VecOp::Sub: v = a - b; break;
        case VecOp::Mul: v = a * b; break;
        case VecOp::Max: v = keepNanMax(a, b); break;
        case VecOp::Min: v = keepNanMin(a, b); break;
        case VecOp::Adds: v = a + s; break;
        case VecOp::Muls: v = a * s; break;
        case VecOp::Maxs: v = keepNanMax(a, s); break;
        case VecOp::Mins: v = keepNanMin(a, s); break;
        case VecOp::Abs: v = a < 0 ? -a : a; break;
        case VecOp::Relu: v = keepNanMax(a, int64_t(0)); break;
        default: fault(std::string(call) + ": no int32_t form");
      }
      uint32_t u = uint32_t(v);
      std::memcpy(d, &u, 4);
    }
}

void duplicate(const Span &dst, Scalar scalar, const uint64_t mask[2], uint32_t repeat,
               uint32_t dstBlk, uint32_t dstRep) {
  const char *call = "Duplicate";
  checkVector(dst, call);
  const Elt e = dst.elt;
  if (eltBytes(e) == 1) fault("Duplicate: takes 2- and 4-byte types");
  const uint32_t lanes = lanesOf(e, e);
  checkMask(mask, lanes, call);
  const Walk wd = walk(dst, dstBlk, dstRep);
  checkRange(dst, wd.envelope(repeat, reach(mask, lanes)), true, call);
  uint8_t bytes[4];
  if (isFloat(e)) {
    storeFloat(e, bytes, float(scalar.value));
  } else {
    uint32_t u = uint32_t(int64_t(scalar.value));
    std::memcpy(bytes, &u, 4);
  }
  for (uint32_t r = 0; r < repeat; ++r)
    for (uint32_t l = 0; l < lanes; ++l)
      if (laneOn(mask, l)) std::memcpy(wd.at(r, l), bytes, eltBytes(e));
}

void cast(const Span &dst, const Span &src, RoundMode mode, const uint64_t mask[2], uint32_t repeat,
          const Strides &st) {
  const char *call = "Cast";
  checkVector(dst, call);
  checkVector(src, call);
  const Elt se = src.elt, de = dst.elt;
  auto castable = [](Elt e) {
    return e == Elt::F16 || e == Elt::F32 || e == Elt::S32 || e == Elt::S8 || e == Elt::U8;
  };
  if (se == de || !castable(se) || !castable(de))
    fault(std::string(call) + ": no conversion " + eltName(se) + " -> " + eltName(de));
  const bool toFloat = isFloat(de);
  if (toFloat && mode != RoundMode::CAST_NONE && mode != RoundMode::CAST_RINT)
    fault(std::string(call) + ": a conversion to " + eltName(de) +
          " rounds to nearest even here (CAST_NONE or CAST_RINT)");
  if (isFloat(se) && !toFloat && mode == RoundMode::CAST_ODD)
    fault(std::string(call) + ": CAST_ODD converts to floating types only");
  const uint32_t lanes = lanesOf(se, de);
  checkMask(mask, lanes, call);
  const Walk wd = walk(dst, st.blk[0], st.rep[0]);
  const Walk ws = walk(src, st.blk[1], st.rep[1]);
  checkRange(dst, wd.envelope(repeat, reach(mask, lanes)), true, call);
  checkRange(src, ws.envelope(repeat, reach(mask, lanes)), false, call);
  auto roundWith = [&](double v) {
    switch (mode) {
      case RoundMode::CAST_FLOOR: return std::floor(v);
      case RoundMode::CAST_CEIL: return std::ceil(v);
      case RoundMode::CAST_TRUNC: return std::trunc(v);
      case RoundMode::CAST_ROUND: return std::round(v);
      default: return std::nearbyint(v);  // CAST_RINT, CAST_NONE: ties to even
    }
  };
  for (uint32_t r = 0; r < repeat; ++r)
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!laneOn(mask, l)) continue;
      const double v = load(se, ws.at(r, l));
      uint8_t *d = wd.at(r, l);
      if (toFloat) {  // an int32 source rounds to float first, then (for half) again
        storeFloat(de, d, float(v));
        continue;
      }
      // To an integer: round (float sources), saturate, NaN -> 0.
      double lo = de == Elt::S32 ? double(INT32_MIN) : de == Elt::S8 ? -128 : 0;
      double hi = de == Elt::S32 ? double(INT32_MAX) : de == Elt::S8 ? 127 : 255;
      double x = v != v ? 0.0 : (isFloat(se) ? roundWith(v) : v);
      x = std::min(std::max(x, lo), hi);
      if (de == Elt::S32) {
        int32_t i = int32_t(x);
        std::memcpy(d, &i, 4);
      } else if (de == Elt::S8) {
        *d = uint8_t(int8_t(x));
      } else {
        *d = uint8_t(x);
      }
    }
}

void compare(const Span &dst, const Span &src0, const Span *src1, Scalar scalar, CMPMODE mode,
             const uint64_t mask[2], uint32_t repeat, const Strides &st) {
  const char *call = src1 ? "Compare" : "CompareScalar";
  checkVector(dst, call);
  checkVector(src0, call);
  if (src1) checkVector(*src1, call);
  const Elt e = src0.elt;
  if ((src1 && src1->elt != e) || (!isFloat(e) && e != Elt::S32))
    fault(std::string(call) + ": compares half, float or int32_t operands of one type");
  if (dst.elt != Elt::U8) fault(std::string(call) + ": the destination is a uint8_t bit mask");
  const uint32_t lanes = lanesOf(e, e);
  checkMask(mask, lanes, call);
  const Walk w0 = walk(src0, st.blk[1], st.rep[1]);
  const Walk w1 = src1 ? walk(*src1, st.blk[2], st.rep[2]) : w0;
  checkRange(src0, w0.envelope(repeat, reach(mask, lanes)), false, call);
  if (src1) checkRange(*src1, w1.envelope(repeat, reach(mask, lanes)), false, call);
  checkRange(dst, uint64_t(repeat) * lanes / 8, true, call);
  const double s = isFloat(e) ? double(roundTo(e, float(scalar.value))) : scalar.value;
  for (uint32_t r = 0; r < repeat; ++r) {
    uint8_t bits[16] = {};
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!laneOn(mask, l)) continue;
      const double a = load(e, w0.at(r, l));
      const double b = src1 ? load(e, w1.at(r, l)) : s;
      bool t = false;
      switch (mode) {
        case CMPMODE::LT: t = a < b; break;
        case CMPMODE::GT: t = a > b; break;
        case CMPMODE::EQ: t = a == b; break;
        case CMPMODE::LE: t = a <= b; break;
        case CMPMODE::GE: t = a >= b; break;
        case CMPMODE::NE: t = a != b; break;
      }
      bits[l / 8] |= uint8_t(t) << (l % 8);
    }
    std::memcpy(dst.ptr + uint64_t(r) * lanes / 8, bits, lanes / 8);
  }
}

void select(const Span &dst, const Span &selMask, const Span &src0, const Span &src1,
            AscendC::SELMODE mode, const uint64_t mask[2], uint32_t repeat, const Strides &st) {
  const char *call = "Select";
  if (mode != AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE)
    fault("Select: only VSEL_TENSOR_TENSOR_MODE is implemented");
  for (const Span *s : {&dst, &selMask, &src0, &src1}) checkVector(*s, call);
  const Elt e = dst.elt;
  if (src0.elt != e || src1.elt != e || eltBytes(e) == 1)
    fault("Select: dst, src0 and src1 of one 2- or 4-byte type");
  const uint32_t lanes = lanesOf(e, e);
  checkMask(mask, lanes, call);
  const Walk wd = walk(dst, st.blk[0], st.rep[0]);
  const Walk w0 = walk(src0, st.blk[1], st.rep[1]);
  const Walk w1 = walk(src1, st.blk[2], st.rep[2]);
  checkRange(dst, wd.envelope(repeat, reach(mask, lanes)), true, call);
  checkRange(src0, w0.envelope(repeat, reach(mask, lanes)), false, call);
  checkRange(src1, w1.envelope(repeat, reach(mask, lanes)), false, call);
  checkRange(selMask, uint64_t(repeat) * lanes / 8, false, call);
  const unsigned es = eltBytes(e);
  for (uint32_t r = 0; r < repeat; ++r) {
    const uint8_t *bits = selMask.ptr + uint64_t(r) * lanes / 8;
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!laneOn(mask, l)) continue;
      const bool take0 = (bits[l / 8] >> (l % 8)) & 1;
      uint8_t tmp[4];
      std::memcpy(tmp, take0 ? w0.at(r, l) : w1.at(r, l), es);
      std::memcpy(wd.at(r, l), tmp, es);
    }
  }
}

void wholeReduce(ReduceOp op, const Span &dst, const Span &src, const uint64_t mask[2],
                 int32_t repeat, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride,
                 AscendC::ReduceOrder order) {
  const char *call = op == ReduceOp::Sum ? "WholeReduceSum" : op == ReduceOp::Max ? "WholeReduceMax"
                                                                                 : "WholeReduceMin";
  checkVector(dst, call);
  checkVector(src, call);
  if (op != ReduceOp::Sum && order != AscendC::ReduceOrder::ORDER_ONLY_VALUE)
    fault(std::string(call) + ": only ReduceOrder::ORDER_ONLY_VALUE is implemented");
  if (repeat < 0 || repeat > 255 || dstRepStride < 0 || srcBlkStride < 0 || srcRepStride < 0)
    fault(std::string(call) + ": repeat 0..255 and non-negative strides");
  const Elt e = src.elt;
  if (dst.elt != e || (!isFloat(e) && e != Elt::S32))
    fault(std::string(call) + ": half, float or int32_t, dst and src of one type");
  const uint32_t lanes = lanesOf(e, e);
  checkMask(mask, lanes, call);
  const Walk ws = walk(src, uint32_t(srcBlkStride), uint32_t(srcRepStride));
  const unsigned es = eltBytes(e);
  checkRange(src, ws.envelope(uint32_t(repeat), reach(mask, lanes)), false, call);
  if (repeat) checkRange(dst, (uint64_t(repeat - 1) * dstRepStride + 1) * es, true, call);
  for (int32_t r = 0; r < repeat; ++r) {
    uint8_t *d = dst.ptr + uint64_t(r) * dstRepStride * es;
    if (isFloat(e)) {
      float acc = op == ReduceOp::Sum ? 0.0f
                  : op == ReduceOp::Max ? -std::numeric_limits<float>::infinity()
                                        : std::numeric_limits<float>::infinity();
      for (uint32_t l = 0; l < lanes; ++l) {
        if (!laneOn(mask, l)) continue;
        const float a = float(load(e, ws.at(uint32_t(r), l)));
        acc = op == ReduceOp::Sum ? acc + a : op == ReduceOp::Max ? keepNanMax(acc, a) : keepNanMin(acc, a);
      }
      storeFloat(e, d, acc);
    } else {
      int64_t acc = op == ReduceOp::Sum ? 0 : op == ReduceOp::Max ? INT32_MIN : INT32_MAX;
      for (uint32_t l = 0; l < lanes; ++l) {
        if (!laneOn(mask, l)) continue;
        const int64_t a = int64_t(load(e, ws.at(uint32_t(r), l)));
        acc = op == ReduceOp::Sum ? acc + a : op == ReduceOp::Max ? std::max(acc, a) : std::min(acc, a);
      }
      uint32_t u = uint32_t(acc);
      std::memcpy(d, &u, 4);
    }
  }
}

void transpose16(const Span &dst, const Span &src) {
  checkVector(dst, "Transpose");
  checkVector(src, "Transpose");
  checkRange(src, 512, false, "Transpose");
  checkRange(dst, 512, true, "Transpose");
  uint16_t in[256], out[256];
  std::memcpy(in, src.ptr, 512);
  for (unsigned r = 0; r < 16; ++r)
    for (unsigned c = 0; c < 16; ++c) out[c * 16 + r] = in[r * 16 + c];
  std::memcpy(dst.ptr, out, 512);
}

Scalar getValue(const Span &span, uint64_t index) {
  const unsigned es = eltBytes(span.elt);
  checkRange(span, (index + 1) * es, false, "LocalTensor::GetValue");
  return Scalar{load(span.elt, span.ptr + index * es)};
}

void setValue(const Span &span, uint64_t index, Scalar value) {
  const unsigned es = eltBytes(span.elt);
  checkRange(span, (index + 1) * es, true, "LocalTensor::SetValue");
  uint8_t *p = span.ptr + index * es;
  if (isFloat(span.elt)) {
    storeFloat(span.elt, p, float(value.value));
    return;
  }
  int64_t v = int64_t(value.value);
  std::memcpy(p, &v, es);  // little-endian: the low bytes
}

}  // namespace vinci::ascendc_host

// half, the device's IEEE binary16.
half::half(float value) : bits(fp16_ieee_from_fp32_value(value)) {}
half::operator float() const { return fp16_ieee_to_fp32_value(bits); }
