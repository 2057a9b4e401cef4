// The functional Vector unit: repeat / block-stride / repeat-stride / mask
// semantics of the Da Vinci vector instructions, one tight loop per repeat.
//
// Float arithmetic is done in fp32 and rounded to the element type after each
// operation (round to nearest even), as the hardware does for fp16. Lanes are
// processed in order: repeat, then block, then element; a destination that
// partially overlaps a source therefore has a defined (if rarely useful) result.
#include "vector.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "vinci/sim/numeric.h"

namespace vinci::sim::detail {
namespace {

inline uint16_t rd16(const uint8_t* p) { uint16_t v; std::memcpy(&v, p, 2); return v; }
inline uint32_t rd32(const uint8_t* p) { uint32_t v; std::memcpy(&v, p, 4); return v; }
inline void wr16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }
inline void wr32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }

// Element codecs: V is the compute type; round() gives the value after a store.
struct CodecF16 {
  using V = float;
  static constexpr uint32_t kBytes = 2;
  static V load(const uint8_t* p) { return f16ToF32(rd16(p)); }
  static void store(uint8_t* p, V v) { wr16(p, f32ToF16(v)); }
  static V round(V v) { return f16ToF32(f32ToF16(v)); }
  static V scalar(uint32_t bits) { return round(bitsFloat(bits)); }
};
struct CodecBf16 {
  using V = float;
  static constexpr uint32_t kBytes = 2;
  static V load(const uint8_t* p) { return bf16ToF32(rd16(p)); }
  static void store(uint8_t* p, V v) { wr16(p, f32ToBf16(v)); }
  static V round(V v) { return bf16ToF32(f32ToBf16(v)); }
  static V scalar(uint32_t bits) { return round(bitsFloat(bits)); }
};
struct CodecF32 {
  using V = float;
  static constexpr uint32_t kBytes = 4;
  static V load(const uint8_t* p) { return bitsFloat(rd32(p)); }
  static void store(uint8_t* p, V v) { wr32(p, floatBits(v)); }
  static V round(V v) { return v; }
  static V scalar(uint32_t bits) { return bitsFloat(bits); }
};
struct CodecS32 {  // integer results wrap modulo 2^32
  using V = int64_t;
  static constexpr uint32_t kBytes = 4;
  static V load(const uint8_t* p) { return int32_t(rd32(p)); }
  static void store(uint8_t* p, V v) { wr32(p, uint32_t(v)); }
  static V round(V v) { return int32_t(uint32_t(v)); }
  static V scalar(uint32_t bits) { return int32_t(bits); }
};

template <typename V>
V vmax(V a, V b) {
  if constexpr (std::is_floating_point_v<V>) {
    if (a != a) return a;  // NaN propagates
    if (b != b) return b;
  }
  return a > b ? a : b;
}
template <typename V>
V vmin(V a, V b) {
  if constexpr (std::is_floating_point_v<V>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? a : b;
}

// Where lane `l` of repeat `r` of an operand lives.
struct Walk {
  uint8_t* base;
  uint32_t esize, lanes_per_block;
  uint64_t blk_stride, rep_stride;  // bytes
  uint8_t* at(uint32_t r, uint32_t l) const {
    return base + r * rep_stride + (l / lanes_per_block) * blk_stride + (l % lanes_per_block) * esize;
  }
};

Walk walk(uint8_t* base, uint32_t esize, uint32_t blk, uint32_t rep) {
  return Walk{base, esize, 32 / esize, uint64_t(blk) * 32, uint64_t(rep) * 32};
}

inline bool laneOn(const Instruction& ins, uint32_t l) {
  return (ins.mask[l >> 6] >> (l & 63)) & 1;
}

uint32_t lanesOf(const Instruction& ins) {
  return 256 / std::max(dtypeBytes(ins.dtype), dtypeBytes(ins.dtype2));
}

// True when every operand is dense (block stride 1, repeat stride 8) and the
// mask is full: the instruction is then one contiguous loop.
bool dense(const Instruction& ins, unsigned nsrc) {
  const uint32_t lanes = lanesOf(ins);
  const bool full = lanes == 128 ? (ins.mask[0] == ~0ull && ins.mask[1] == ~0ull)
                                 : (ins.mask[0] == (lanes == 64 ? ~0ull : (1ull << lanes) - 1));
  if (!full || ins.p[param::DstBlk] != 1 || ins.p[param::DstRep] != 8) return false;
  if (nsrc >= 1 && (ins.p[param::Src0Blk] != 1 || ins.p[param::Src0Rep] != 8)) return false;
  if (nsrc >= 2 && (ins.p[param::Src1Blk] != 1 || ins.p[param::Src1Rep] != 8)) return false;
  return true;
}

// dst[lane] = f(src0[lane], src1[lane], dst[lane]) over every active lane.
template <typename C, typename F>
void elementwise(const Instruction& ins, uint8_t* const op[], unsigned nsrc, F f) {
  using V = typename C::V;
  const uint32_t repeat = ins.p[param::Repeat];
  const uint32_t lanes = lanesOf(ins);
  if (dense(ins, nsrc)) {
    const size_t n = size_t(repeat) * lanes;
    uint8_t* d = op[0];
    const uint8_t* s0 = nsrc >= 1 ? op[1] : nullptr;
    const uint8_t* s1 = nsrc >= 2 ? op[2] : nullptr;
    for (size_t i = 0; i < n; ++i) {
      const V a = s0 ? C::load(s0 + i * C::kBytes) : V(0);
      const V b = s1 ? C::load(s1 + i * C::kBytes) : V(0);
      C::store(d + i * C::kBytes, f(a, b, d + i * C::kBytes));
    }
    return;
  }
  const Walk wd = walk(op[0], C::kBytes, ins.p[param::DstBlk], ins.p[param::DstRep]);
  const Walk w0 = nsrc >= 1 ? walk(op[1], C::kBytes, ins.p[param::Src0Blk], ins.p[param::Src0Rep]) : wd;
  const Walk w1 = nsrc >= 2 ? walk(op[2], C::kBytes, ins.p[param::Src1Blk], ins.p[param::Src1Rep]) : wd;
  for (uint32_t r = 0; r < repeat; ++r)
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!laneOn(ins, l)) continue;
      const V a = nsrc >= 1 ? C::load(w0.at(r, l)) : V(0);
      const V b = nsrc >= 2 ? C::load(w1.at(r, l)) : V(0);
      uint8_t* d = wd.at(r, l);
      C::store(d, f(a, b, d));
    }
}

template <typename C>
void arithmetic(const Instruction& ins, uint8_t* const op[]) {
  using V = typename C::V;
  const V s = C::scalar(ins.p[param::Scalar]);
  auto R = [](V v) { return C::round(v); };
  switch (ins.op) {
    case Opcode::VAdd: elementwise<C>(ins, op, 2, [](V a, V b, uint8_t*) { return a + b; }); return;
    case Opcode::VSub: elementwise<C>(ins, op, 2, [](V a, V b, uint8_t*) { return a - b; }); return;
    case Opcode::VMul: elementwise<C>(ins, op, 2, [](V a, V b, uint8_t*) { return a * b; }); return;
    case Opcode::VDiv: elementwise<C>(ins, op, 2, [](V a, V b, uint8_t*) { return a / b; }); return;
    case Opcode::VMax: elementwise<C>(ins, op, 2, [](V a, V b, uint8_t*) { return vmax(a, b); }); return;
    case Opcode::VMin: elementwise<C>(ins, op, 2, [](V a, V b, uint8_t*) { return vmin(a, b); }); return;
    case Opcode::VMla:
      elementwise<C>(ins, op, 2, [&](V a, V b, uint8_t* d) { return R(a * b) + C::load(d); });
      return;
    case Opcode::VAxpy:
      elementwise<C>(ins, op, 1, [&](V a, V, uint8_t* d) { return R(a * s) + C::load(d); });
      return;
    case Opcode::VAdds: elementwise<C>(ins, op, 1, [&](V a, V, uint8_t*) { return a + s; }); return;
    case Opcode::VMuls: elementwise<C>(ins, op, 1, [&](V a, V, uint8_t*) { return a * s; }); return;
    case Opcode::VMaxs: elementwise<C>(ins, op, 1, [&](V a, V, uint8_t*) { return vmax(a, s); }); return;
    case Opcode::VMins: elementwise<C>(ins, op, 1, [&](V a, V, uint8_t*) { return vmin(a, s); }); return;
    case Opcode::VLeakyRelu:
      elementwise<C>(ins, op, 1, [&](V a, V, uint8_t*) { return a >= V(0) ? a : a * s; });
      return;
    case Opcode::VAbs:
      elementwise<C>(ins, op, 1, [](V a, V, uint8_t*) {
        if constexpr (std::is_floating_point_v<V>) return std::fabs(a);  // clears the sign of -0 and NaN
        else return a < V(0) ? V(0) - a : a;
      });
      return;
    case Opcode::VRelu: elementwise<C>(ins, op, 1, [](V a, V, uint8_t*) { return vmax(a, V(0)); }); return;
    case Opcode::VNeg: elementwise<C>(ins, op, 1, [](V a, V, uint8_t*) { return -a; }); return;
    case Opcode::VDup: elementwise<C>(ins, op, 0, [&](V, V, uint8_t*) { return s; }); return;
    case Opcode::VCopy: elementwise<C>(ins, op, 1, [](V a, V, uint8_t*) { return a; }); return;
    default: break;
  }
  if constexpr (std::is_floating_point_v<V>) {
    switch (ins.op) {
      case Opcode::VExp: elementwise<C>(ins, op, 1, [](V a, V, uint8_t*) { return std::exp(a); }); return;
      case Opcode::VLn: elementwise<C>(ins, op, 1, [](V a, V, uint8_t*) { return std::log(a); }); return;
      case Opcode::VSqrt: elementwise<C>(ins, op, 1, [](V a, V, uint8_t*) { return std::sqrt(a); }); return;
      case Opcode::VRsqrt: elementwise<C>(ins, op, 1, [](V a, V, uint8_t*) { return 1.0f / std::sqrt(a); }); return;
      case Opcode::VRec: elementwise<C>(ins, op, 1, [](V a, V, uint8_t*) { return 1.0f / a; }); return;
      default: break;
    }
  }
}

template <typename C>
void compare(const Instruction& ins, uint8_t* const op[]) {
  using V = typename C::V;
  const uint32_t lanes = lanesOf(ins), repeat = ins.p[param::Repeat];
  const CmpMode mode = CmpMode(ins.p[param::Mode]);
  const bool with_scalar = ins.op == Opcode::VCmps;
  const V s = C::scalar(ins.p[param::Scalar]);
  const Walk w0 = walk(op[1], C::kBytes, ins.p[param::Src0Blk], ins.p[param::Src0Rep]);
  const Walk w1 = with_scalar ? w0 : walk(op[2], C::kBytes, ins.p[param::Src1Blk], ins.p[param::Src1Rep]);
  for (uint32_t r = 0; r < repeat; ++r) {
    uint8_t bits[16] = {};
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!laneOn(ins, l)) continue;
      const V a = C::load(w0.at(r, l));
      const V b = with_scalar ? s : C::load(w1.at(r, l));
      bool t = false;
      switch (mode) {
        case CmpMode::LT: t = a < b; break;
        case CmpMode::LE: t = a <= b; break;
        case CmpMode::GT: t = a > b; break;
        case CmpMode::GE: t = a >= b; break;
        case CmpMode::EQ: t = a == b; break;
        case CmpMode::NE: t = a != b; break;
      }
      bits[l / 8] |= uint8_t(t) << (l % 8);
    }
    std::memcpy(op[0] + size_t(r) * lanes / 8, bits, lanes / 8);
  }
}

template <typename C>
void select(const Instruction& ins, uint8_t* const op[]) {
  const uint32_t lanes = lanesOf(ins), repeat = ins.p[param::Repeat];
  const Walk wd = walk(op[0], C::kBytes, ins.p[param::DstBlk], ins.p[param::DstRep]);
  const Walk w0 = walk(op[1], C::kBytes, ins.p[param::Src0Blk], ins.p[param::Src0Rep]);
  const Walk w1 = walk(op[2], C::kBytes, ins.p[param::Src1Blk], ins.p[param::Src1Rep]);
  for (uint32_t r = 0; r < repeat; ++r) {
    uint8_t bits[16];
    std::memcpy(bits, op[3] + size_t(r) * lanes / 8, lanes / 8);
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!laneOn(ins, l)) continue;
      const bool take0 = (bits[l / 8] >> (l % 8)) & 1;
      uint8_t tmp[4];
      std::memcpy(tmp, take0 ? w0.at(r, l) : w1.at(r, l), C::kBytes);
      std::memcpy(wd.at(r, l), tmp, C::kBytes);
    }
  }
}

// Reductions accumulate in fp32 (int64 for s32), lanes in order, and round
// to the element type once at the end.
template <typename C>
void reduce(const Instruction& ins, uint8_t* const op[]) {
  using V = typename C::V;
  const uint32_t lanes = lanesOf(ins), repeat = ins.p[param::Repeat];
  const bool across = ins.flags & flag::AcrossRepeats;
  const Walk w0 = walk(op[1], C::kBytes, ins.p[param::Src0Blk], ins.p[param::Src0Rep]);
  V identity = V(0);
  if (ins.op == Opcode::VCMax) identity = std::numeric_limits<V>::has_infinity ? -std::numeric_limits<V>::infinity() : V(INT32_MIN);
  if (ins.op == Opcode::VCMin) identity = std::numeric_limits<V>::has_infinity ? std::numeric_limits<V>::infinity() : V(INT32_MAX);
  V acc = identity;
  for (uint32_t r = 0; r < repeat; ++r) {
    if (!across) acc = identity;
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!laneOn(ins, l)) continue;
      const V a = C::load(w0.at(r, l));
      if (ins.op == Opcode::VCAdd) acc = acc + a;
      else if (ins.op == Opcode::VCMax) acc = vmax(acc, a);
      else acc = vmin(acc, a);
    }
    if (!across) C::store(op[0] + size_t(r) * C::kBytes, acc);
  }
  if (across) C::store(op[0], acc);
}

template <typename C>
void broadcast(const Instruction& ins, uint8_t* const op[]) {
  const uint32_t lanes = lanesOf(ins), repeat = ins.p[param::Repeat];
  const Walk wd = walk(op[0], C::kBytes, ins.p[param::DstBlk], ins.p[param::DstRep]);
  for (uint32_t r = 0; r < repeat; ++r) {
    uint8_t v[4];
    std::memcpy(v, op[1] + size_t(r) * C::kBytes, C::kBytes);
    for (uint32_t l = 0; l < lanes; ++l)
      if (laneOn(ins, l)) std::memcpy(wd.at(r, l), v, C::kBytes);
  }
}

template <typename C>
void dispatch(const Instruction& ins, uint8_t* const op[]) {
  switch (ins.op) {
    case Opcode::VCmp: case Opcode::VCmps: compare<C>(ins, op); return;
    case Opcode::VSel: select<C>(ins, op); return;
    case Opcode::VBrcb: broadcast<C>(ins, op); return;
    case Opcode::VCAdd: case Opcode::VCMax: case Opcode::VCMin: reduce<C>(ins, op); return;
    default: arithmetic<C>(ins, op); return;
  }
}

// ---- Conversions --------------------------------------------------------------

double loadAny(DType t, const uint8_t* p) {
  switch (t) {
    case DType::F16: return f16ToF32(rd16(p));
    case DType::BF16: return bf16ToF32(rd16(p));
    case DType::F32: return bitsFloat(rd32(p));
    case DType::S32: return int32_t(rd32(p));
    case DType::S8: return int8_t(*p);
    case DType::U8: return *p;
    case DType::None: break;
  }
  return 0;
}

double roundWith(RoundMode mode, double v) {
  switch (mode) {
    case RoundMode::Rint: return std::nearbyint(v);  // ties to even in the default FP mode
    case RoundMode::Floor: return std::floor(v);
    case RoundMode::Ceil: return std::ceil(v);
    case RoundMode::Trunc: return std::trunc(v);
    case RoundMode::Away: return std::round(v);
  }
  return v;
}

// Stores `v` as `t`: floats round to nearest even (int32 sources go through
// fp32 first, as a two-step hardware conversion would); integers round with
// `mode` and saturate, NaN becoming 0.
void storeAny(DType t, uint8_t* p, double v, RoundMode mode, bool src_is_float) {
  auto sat = [&](double lo, double hi) {
    if (v != v) return 0.0;
    const double r = src_is_float ? roundWith(mode, v) : v;
    return std::min(std::max(r, lo), hi);
  };
  switch (t) {
    case DType::F16: wr16(p, f32ToF16(float(v))); return;
    case DType::BF16: wr16(p, f32ToBf16(float(v))); return;
    case DType::F32: wr32(p, floatBits(float(v))); return;
    case DType::S32: wr32(p, uint32_t(int32_t(sat(INT32_MIN, INT32_MAX)))); return;
    case DType::S8: *p = uint8_t(int8_t(sat(-128, 127))); return;
    case DType::U8: *p = uint8_t(sat(0, 255)); return;
    case DType::None: return;
  }
}

void convert(const Instruction& ins, uint8_t* const op[]) {
  const uint32_t lanes = lanesOf(ins), repeat = ins.p[param::Repeat];
  const DType st = ins.dtype, dt = ins.dtype2;
  const RoundMode mode = RoundMode(ins.p[param::Mode]);
  const bool src_float = st == DType::F16 || st == DType::BF16 || st == DType::F32;
  const Walk wd = walk(op[0], dtypeBytes(dt), ins.p[param::DstBlk], ins.p[param::DstRep]);
  const Walk w0 = walk(op[1], dtypeBytes(st), ins.p[param::Src0Blk], ins.p[param::Src0Rep]);
  for (uint32_t r = 0; r < repeat; ++r)
    for (uint32_t l = 0; l < lanes; ++l)
      if (laneOn(ins, l)) storeAny(dt, wd.at(r, l), loadAny(st, w0.at(r, l)), mode, src_float);
}

void transpose(const Instruction& ins, uint8_t* const op[]) {
  for (uint32_t t = 0; t < ins.p[0]; ++t) {
    uint8_t tile[512];
    std::memcpy(tile, op[1] + size_t(t) * 512, 512);
    uint8_t* d = op[0] + size_t(t) * 512;
    for (unsigned r = 0; r < 16; ++r)
      for (unsigned c = 0; c < 16; ++c) std::memcpy(d + (c * 16 + r) * 2, tile + (r * 16 + c) * 2, 2);
  }
}

}  // namespace

void execVector(const Instruction& ins, uint8_t* const op[kMaxOperands]) {
  if (ins.op == Opcode::VConv) return convert(ins, op);
  if (ins.op == Opcode::VTranspose) return transpose(ins, op);
  switch (ins.dtype) {
    case DType::F16: return dispatch<CodecF16>(ins, op);
    case DType::BF16: return dispatch<CodecBf16>(ins, op);
    case DType::F32: return dispatch<CodecF32>(ins, op);
    case DType::S32: return dispatch<CodecS32>(ins, op);
    default: return;  // rejected by the decoder
  }
}

void execMoveL0cToUb(const Instruction& ins, uint8_t* dst, const uint8_t* src) {
  const DType st = ins.dtype, dt = ins.dtype2;
  const uint32_t ss = dtypeBytes(st), ds = dtypeBytes(dt);
  const bool relu = ins.flags & flag::Relu, scale = ins.flags & flag::Scale;
  const float factor = bitsFloat(ins.p[4]);
  const uint32_t bursts = ins.p[0], len = ins.p[1], src_gap = ins.p[2], dst_gap = ins.p[3];
  for (uint32_t b = 0; b < bursts; ++b) {
    const uint8_t* s = src + size_t(b) * (len + src_gap) * ss;
    uint8_t* d = dst + size_t(b) * (len + dst_gap) * ds;
    if (st == DType::F32 && dt == DType::F16 && !scale) {  // the common matmul epilogue
      for (uint32_t e = 0; e < len; ++e) {
        float v = bitsFloat(rd32(s + e * 4));
        if (relu) v = vmax(v, 0.0f);
        wr16(d + e * 2, f32ToF16(v));
      }
      continue;
    }
    for (uint32_t e = 0; e < len; ++e) {
      if (st == DType::S32 && dt == DType::S32) {  // integer path: no float rounding
        int32_t v = int32_t(rd32(s + e * 4));
        if (relu && v < 0) v = 0;
        wr32(d + e * 4, uint32_t(v));
        continue;
      }
      // Compute in fp32: the int32 -> fp32 step rounds to nearest even.
      float v = st == DType::S32 ? float(int32_t(rd32(s + e * 4))) : float(loadAny(st, s + e * ss));
      if (scale) v = v * factor;
      if (relu) v = vmax(v, 0.0f);
      storeAny(dt, d + e * ds, v, RoundMode::Rint, true);
    }
  }
}

}  // namespace vinci::sim::detail
