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

#include "fast.h"
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
  static void store(uint8_t* p, V v) { wr16(p, f16Result(v)); }
  static V round(V v) { return f16ToF32(f16Result(v)); }
  static V scalar(uint32_t bits) { return round(bitsFloat(bits)); }
};
struct CodecBf16 {
  using V = float;
  static constexpr uint32_t kBytes = 2;
  static V load(const uint8_t* p) { return bf16ToF32(rd16(p)); }
  static void store(uint8_t* p, V v) { wr16(p, bf16Result(v)); }
  static V round(V v) { return bf16ToF32(bf16Result(v)); }
  static V scalar(uint32_t bits) { return round(bitsFloat(bits)); }
};
struct CodecF32 {
  using V = float;
  static constexpr uint32_t kBytes = 4;
  static V load(const uint8_t* p) { return bitsFloat(rd32(p)); }
  static void store(uint8_t* p, V v) { wr32(p, f32Result(v)); }
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

// ---- Fast paths ------------------------------------------------------------------
//
// An instruction whose operands are contiguous within each repeat (block
// stride 1) under a mask of the first K lanes is, repeat by repeat, K
// consecutive elements per operand: fast.cpp's SIMD loops take those runs
// (one run for all repeats when they are back to back). A source that
// overlaps the destination must be the destination itself, walked the same
// way, so that the repeat-by-repeat order the reference follows is kept.

// The fast form of an elementwise opcode, if any.
bool fastOp(Opcode op, fast::Op& out) {
  switch (op) {
    case Opcode::VAdd: out = fast::Op::Add; return true;
    case Opcode::VSub: out = fast::Op::Sub; return true;
    case Opcode::VMul: out = fast::Op::Mul; return true;
    case Opcode::VDiv: out = fast::Op::Div; return true;
    case Opcode::VMax: out = fast::Op::Max; return true;
    case Opcode::VMin: out = fast::Op::Min; return true;
    case Opcode::VMla: out = fast::Op::Mla; return true;
    case Opcode::VAxpy: out = fast::Op::Axpy; return true;
    case Opcode::VAdds: out = fast::Op::Adds; return true;
    case Opcode::VMuls: out = fast::Op::Muls; return true;
    case Opcode::VMaxs: out = fast::Op::Maxs; return true;
    case Opcode::VMins: out = fast::Op::Mins; return true;
    case Opcode::VLeakyRelu: out = fast::Op::LeakyRelu; return true;
    case Opcode::VAbs: out = fast::Op::Abs; return true;
    case Opcode::VRelu: out = fast::Op::Relu; return true;
    case Opcode::VNeg: out = fast::Op::Neg; return true;
    case Opcode::VSqrt: out = fast::Op::Sqrt; return true;
    case Opcode::VRsqrt: out = fast::Op::Rsqrt; return true;
    case Opcode::VRec: out = fast::Op::Rec; return true;
    case Opcode::VExp: out = fast::Op::Exp; return true;
    case Opcode::VLn: out = fast::Op::Ln; return true;
    case Opcode::VDup: out = fast::Op::Dup; return true;
    default: return false;
  }
}

// The lanes a mask keeps when they are the first K (0 if not a prefix).
uint32_t prefixLanes(const Instruction& ins, uint32_t lanes) {
  const uint64_t lo = ins.mask[0], hi = lanes > 64 ? ins.mask[1] : 0;
  if (lo == ~0ull) {
    if (lanes <= 64) return lanes;
    return (hi & (hi + 1)) == 0 ? 64 + uint32_t(__builtin_popcountll(hi)) : 0;
  }
  if (hi != 0 || (lo & (lo + 1)) != 0) return 0;
  return uint32_t(__builtin_popcountll(lo));
}

// A contiguous run walk: element `e` of repeat `r` at base + r * rep + e * esize.
struct Runs {
  uint32_t repeats, count;   // runs, elements per run
  uint64_t rep[3];           // byte strides of dst, src0, src1 between runs
};

// Whether the instruction is a sequence of contiguous runs the fast loops can
// take, and its shape; `nsrc` sources (operands 1..nsrc), all of one element size.
bool contiguousRuns(const Instruction& ins, uint8_t* const op[], unsigned nsrc, uint32_t esize,
                    Runs& runs) {
  const uint32_t lanes = 256 / esize;
  const uint32_t k = prefixLanes(ins, lanes);
  if (k == 0) return false;
  const unsigned blk[3] = {param::DstBlk, param::Src0Blk, param::Src1Blk};
  const unsigned rep[3] = {param::DstRep, param::Src0Rep, param::Src1Rep};
  for (unsigned i = 0; i <= nsrc; ++i)
    if (ins.p[blk[i]] != 1 && k * esize > 32) return false;  // one block: its stride is unused
  runs.repeats = ins.p[param::Repeat];
  runs.count = k;
  for (unsigned i = 0; i < 3; ++i) runs.rep[i] = uint64_t(ins.p[rep[i]]) * 32;
  if (runs.repeats == 0) return true;
  // A source overlapping the destination must be walked exactly as it is.
  const uint64_t run_bytes = uint64_t(k) * esize;
  auto span = [&](unsigned i, uint64_t& lo, uint64_t& hi) {
    lo = reinterpret_cast<uintptr_t>(op[i]);
    hi = lo + (runs.repeats - 1) * runs.rep[i] + run_bytes;
  };
  uint64_t dlo, dhi;
  span(0, dlo, dhi);
  for (unsigned i = 1; i <= nsrc; ++i) {
    uint64_t lo, hi;
    span(i, lo, hi);
    if (lo < dhi && dlo < hi && !(op[i] == op[0] && runs.rep[i] == runs.rep[0])) return false;
  }
  // Runs back to back on every operand: one run of all the elements.
  bool joined = k == lanes;
  for (unsigned i = 0; i <= nsrc && joined; ++i) joined = runs.rep[i] == run_bytes;
  if (joined) {
    runs.count = k * runs.repeats;
    runs.repeats = 1;
  }
  return true;
}

// One fast loop call over runs of the codec's type; steps in bytes.
template <typename C>
void fastRuns(fast::Op fop, uint8_t* d, const uint8_t* a, const uint8_t* b, float s, uint32_t n,
              uint32_t repeats, const uint64_t step[3]) {
  const fast::Runs runs{n, repeats, ptrdiff_t(step[0] / C::kBytes), ptrdiff_t(step[1] / C::kBytes),
                        ptrdiff_t(step[2] / C::kBytes)};
  if constexpr (std::is_same_v<C, CodecF16>)
    fast::f16(fop, reinterpret_cast<uint16_t*>(d), reinterpret_cast<const uint16_t*>(a),
              reinterpret_cast<const uint16_t*>(b), s, runs);
  else
    fast::f32(fop, reinterpret_cast<float*>(d), reinterpret_cast<const float*>(a),
              reinterpret_cast<const float*>(b), s, runs);
}

// An instruction under a prefix mask whose operands are strided by whole
// blocks (block stride other than 1: the depthwise template's stride-2
// windows, a block read again with stride 0): per repeat, each strided
// operand's active blocks are gathered into a contiguous buffer, the fast
// loop runs over the buffers and the destination's blocks are scattered
// back. The reference's lane order is kept: within a repeat the
// destination's blocks are disjoint (block stride >= 1), and a source either
// misses the destination's envelope or is the destination walked the same
// way, so a lane reads only its own destination element; repeats run in
// order, each gathered after the previous one is scattered.
template <typename C>
bool fastStrided(const Instruction& ins, uint8_t* const op[], unsigned nsrc, fast::Op fop, float s) {
  constexpr uint32_t es = C::kBytes;
  const uint32_t k = prefixLanes(ins, 256 / es);
  if (k == 0) return false;
  const uint32_t bytes = k * es, blocks = (bytes + 31) / 32, last = bytes - (blocks - 1) * 32;
  const unsigned blk_param[3] = {param::DstBlk, param::Src0Blk, param::Src1Blk};
  const unsigned rep_param[3] = {param::DstRep, param::Src0Rep, param::Src1Rep};
  uint64_t blk[3] = {}, rep[3] = {};
  for (unsigned i = 0; i <= nsrc; ++i) {
    blk[i] = uint64_t(ins.p[blk_param[i]]) * 32;
    rep[i] = uint64_t(ins.p[rep_param[i]]) * 32;
  }
  if (blocks > 1 && blk[0] == 0) return false;  // every block onto one: lane order matters
  const uint32_t repeats = ins.p[param::Repeat];
  if (repeats == 0) return true;
  // Envelopes (over-estimated by at most a block: an overlap only sends the
  // instruction to the reference).
  auto hiOf = [&](unsigned i) {
    return reinterpret_cast<uintptr_t>(op[i]) + (repeats - 1) * rep[i] + (blocks - 1) * blk[i] + 32;
  };
  const uint64_t dlo = reinterpret_cast<uintptr_t>(op[0]), dhi = hiOf(0);
  bool same_as_dst[3] = {};
  for (unsigned i = 1; i <= nsrc; ++i) {
    same_as_dst[i] = op[i] == op[0] && blk[i] == blk[0] && rep[i] == rep[0];
    const uint64_t lo = reinterpret_cast<uintptr_t>(op[i]);
    if (lo < dhi && dlo < hiOf(i) && !same_as_dst[i]) return false;
  }
  const bool gathered[3] = {blocks > 1 && blk[0] != 32, blocks > 1 && blk[1] != 32, blocks > 1 && blk[2] != 32};
  alignas(32) uint8_t buf[3][256];
  auto gather = [&](uint8_t* to, const uint8_t* from, uint64_t step) {
    for (uint32_t b = 0; b + 1 < blocks; ++b) std::memcpy(to + b * 32, from + b * step, 32);
    std::memcpy(to + (blocks - 1) * 32, from + (blocks - 1) * step, last);
  };
  for (uint32_t r = 0; r < repeats; ++r) {
    uint8_t* at[3];
    const uint8_t* ptr[3];
    for (unsigned i = 0; i <= nsrc; ++i) {
      at[i] = op[i] + r * rep[i];
      ptr[i] = at[i];
      if (i > 0 && same_as_dst[i]) ptr[i] = ptr[0];
      else if (gathered[i]) {
        gather(buf[i], at[i], blk[i]);
        ptr[i] = buf[i];
      }
    }
    uint8_t* d = gathered[0] ? buf[0] : at[0];
    const uint64_t one_run[3] = {};
    fastRuns<C>(fop, d, nsrc >= 1 ? ptr[1] : d, nsrc >= 2 ? ptr[2] : d, s, k, 1, one_run);
    if (gathered[0]) {
      for (uint32_t b = 0; b + 1 < blocks; ++b) std::memcpy(at[0] + b * blk[0], buf[0] + b * 32, 32);
      std::memcpy(at[0] + (blocks - 1) * blk[0], buf[0] + (blocks - 1) * 32, last);
    }
  }
  return true;
}

template <typename C>
bool fastElementwise(const Instruction& ins, uint8_t* const op[], unsigned nsrc) {
#ifdef VINCI_SIM_FAST
  constexpr bool f16 = std::is_same_v<C, CodecF16>, f32 = std::is_same_v<C, CodecF32>;
#else
  constexpr bool f16 = false, f32 = false;  // no fast paths in this build
#endif
  if constexpr (!f16 && !f32) {
    return false;
  } else {
    fast::Op fop;
    if (!fastOp(ins.op, fop)) return false;
    const float s = C::scalar(ins.p[param::Scalar]);
    Runs runs;
    if (!contiguousRuns(ins, op, nsrc, C::kBytes, runs)) return fastStrided<C>(ins, op, nsrc, fop, s);
    // A missing source follows the destination (the loops do not read it).
    const uint64_t step[3] = {runs.rep[0], runs.rep[nsrc >= 1 ? 1 : 0], runs.rep[nsrc >= 2 ? 2 : 0]};
    fastRuns<C>(fop, op[0], nsrc >= 1 ? op[1] : op[0], nsrc >= 2 ? op[2] : op[0], s, runs.count, runs.repeats, step);
    return true;
  }
}

// dst[lane] = f(src0[lane], src1[lane], dst[lane]) over every active lane.
template <typename C, typename F>
void elementwise(const Instruction& ins, uint8_t* const op[], bool fast, unsigned nsrc, F f) {
  using V = typename C::V;
  if (fast && fastElementwise<C>(ins, op, nsrc)) return;
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

// vcopy moves bits: every active lane of src0 to dst, in lane order.
void copyLanes(const Instruction& ins, uint8_t* const op[], uint32_t esize, bool fast) {
  Runs runs;
  if (fast && contiguousRuns(ins, op, 1, esize, runs)) {
    for (uint32_t r = 0; r < runs.repeats; ++r)
      std::memmove(op[0] + r * runs.rep[0], op[1] + r * runs.rep[1], size_t(runs.count) * esize);
    return;
  }
  const uint32_t lanes = lanesOf(ins), repeat = ins.p[param::Repeat];
  const Walk wd = walk(op[0], esize, ins.p[param::DstBlk], ins.p[param::DstRep]);
  const Walk w0 = walk(op[1], esize, ins.p[param::Src0Blk], ins.p[param::Src0Rep]);
  for (uint32_t r = 0; r < repeat; ++r)
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!laneOn(ins, l)) continue;
      uint8_t tmp[4];
      std::memcpy(tmp, w0.at(r, l), esize);
      std::memcpy(wd.at(r, l), tmp, esize);
    }
}

template <typename C>
void arithmetic(const Instruction& ins, uint8_t* const op[], bool fast) {
  using V = typename C::V;
  const V s = C::scalar(ins.p[param::Scalar]);
  auto R = [](V v) { return C::round(v); };
  switch (ins.op) {
    case Opcode::VAdd: elementwise<C>(ins, op, fast, 2, [](V a, V b, uint8_t*) { return a + b; }); return;
    case Opcode::VSub: elementwise<C>(ins, op, fast, 2, [](V a, V b, uint8_t*) { return a - b; }); return;
    case Opcode::VMul: elementwise<C>(ins, op, fast, 2, [](V a, V b, uint8_t*) { return a * b; }); return;
    case Opcode::VDiv: elementwise<C>(ins, op, fast, 2, [](V a, V b, uint8_t*) { return a / b; }); return;
    case Opcode::VMax: elementwise<C>(ins, op, fast, 2, [](V a, V b, uint8_t*) { return vmax(a, b); }); return;
    case Opcode::VMin: elementwise<C>(ins, op, fast, 2, [](V a, V b, uint8_t*) { return vmin(a, b); }); return;
    case Opcode::VMla:
      elementwise<C>(ins, op, fast, 2, [&](V a, V b, uint8_t* d) { return R(a * b) + C::load(d); });
      return;
    case Opcode::VAxpy:
      elementwise<C>(ins, op, fast, 1, [&](V a, V, uint8_t* d) { return R(a * s) + C::load(d); });
      return;
    case Opcode::VAdds: elementwise<C>(ins, op, fast, 1, [&](V a, V, uint8_t*) { return a + s; }); return;
    case Opcode::VMuls: elementwise<C>(ins, op, fast, 1, [&](V a, V, uint8_t*) { return a * s; }); return;
    case Opcode::VMaxs: elementwise<C>(ins, op, fast, 1, [&](V a, V, uint8_t*) { return vmax(a, s); }); return;
    case Opcode::VMins: elementwise<C>(ins, op, fast, 1, [&](V a, V, uint8_t*) { return vmin(a, s); }); return;
    case Opcode::VLeakyRelu:
      elementwise<C>(ins, op, fast, 1, [&](V a, V, uint8_t*) { return a >= V(0) ? a : a * s; });
      return;
    case Opcode::VAbs:
      elementwise<C>(ins, op, fast, 1, [](V a, V, uint8_t*) {
        if constexpr (std::is_floating_point_v<V>) return std::fabs(a);  // clears the sign of -0 and NaN
        else return a < V(0) ? V(0) - a : a;
      });
      return;
    case Opcode::VRelu: elementwise<C>(ins, op, fast, 1, [](V a, V, uint8_t*) { return vmax(a, V(0)); }); return;
    case Opcode::VNeg: elementwise<C>(ins, op, fast, 1, [](V a, V, uint8_t*) { return -a; }); return;
    case Opcode::VDup: elementwise<C>(ins, op, fast, 0, [&](V, V, uint8_t*) { return s; }); return;
    case Opcode::VCopy: copyLanes(ins, op, C::kBytes, fast); return;
    default: break;
  }
  if constexpr (std::is_floating_point_v<V>) {
    switch (ins.op) {
      case Opcode::VExp: elementwise<C>(ins, op, fast, 1, [](V a, V, uint8_t*) { return std::exp(a); }); return;
      case Opcode::VLn: elementwise<C>(ins, op, fast, 1, [](V a, V, uint8_t*) { return std::log(a); }); return;
      case Opcode::VSqrt: elementwise<C>(ins, op, fast, 1, [](V a, V, uint8_t*) { return std::sqrt(a); }); return;
      case Opcode::VRsqrt: elementwise<C>(ins, op, fast, 1, [](V a, V, uint8_t*) { return 1.0f / std::sqrt(a); }); return;
      case Opcode::VRec: elementwise<C>(ins, op, fast, 1, [](V a, V, uint8_t*) { return 1.0f / a; }); return;
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
void dispatch(const Instruction& ins, uint8_t* const op[], bool fast) {
  switch (ins.op) {
    case Opcode::VCmp: case Opcode::VCmps: compare<C>(ins, op); return;
    case Opcode::VSel: select<C>(ins, op); return;
    case Opcode::VBrcb: broadcast<C>(ins, op); return;
    case Opcode::VCAdd: case Opcode::VCMax: case Opcode::VCMin: reduce<C>(ins, op); return;
    default: arithmetic<C>(ins, op, fast); return;
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
    case DType::F16: wr16(p, f16Result(float(v))); return;
    case DType::BF16: wr16(p, bf16Result(float(v))); return;
    case DType::F32: wr32(p, f32Result(float(v))); return;
    case DType::S32: wr32(p, uint32_t(int32_t(sat(INT32_MIN, INT32_MAX)))); return;
    case DType::S8: *p = uint8_t(int8_t(sat(-128, 127))); return;
    case DType::U8: *p = uint8_t(sat(0, 255)); return;
    case DType::None: return;
  }
}

// fp16 <-> fp32 over contiguous runs (other conversions: the reference).
bool fastConvert(const Instruction& ins, uint8_t* const op[]) {
#ifndef VINCI_SIM_FAST
  return false;  // no fast paths in this build
#endif
  const DType st = ins.dtype, dt = ins.dtype2;
  const bool up = st == DType::F16 && dt == DType::F32, down = st == DType::F32 && dt == DType::F16;
  if (!up && !down) return false;
  // Both walk the lanes of the wider (fp32) type: 64 a repeat.
  const uint32_t k = prefixLanes(ins, 64);
  if (k == 0 || (k * dtypeBytes(st) > 32 && ins.p[param::Src0Blk] != 1) ||
      (k * dtypeBytes(dt) > 32 && ins.p[param::DstBlk] != 1))
    return false;
  const uint32_t repeats = ins.p[param::Repeat];
  const uint64_t drep = uint64_t(ins.p[param::DstRep]) * 32, srep = uint64_t(ins.p[param::Src0Rep]) * 32;
  if (repeats == 0) return true;
  const uint64_t dbytes = uint64_t(k) * dtypeBytes(dt), sbytes = uint64_t(k) * dtypeBytes(st);
  const uint64_t dlo = reinterpret_cast<uintptr_t>(op[0]), dhi = dlo + (repeats - 1) * drep + dbytes;
  const uint64_t slo = reinterpret_cast<uintptr_t>(op[1]), shi = slo + (repeats - 1) * srep + sbytes;
  if (slo < dhi && dlo < shi) return false;  // element sizes differ: no in-place form
  for (uint32_t r = 0; r < repeats; ++r) {
    if (up)
      fast::f16ToF32(reinterpret_cast<float*>(op[0] + r * drep), reinterpret_cast<const uint16_t*>(op[1] + r * srep), k);
    else
      fast::f32ToF16(reinterpret_cast<uint16_t*>(op[0] + r * drep), reinterpret_cast<const float*>(op[1] + r * srep), k, false);
  }
  return true;
}

void convert(const Instruction& ins, uint8_t* const op[], bool fast) {
  if (fast && fastConvert(ins, op)) return;
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

void transpose(const Instruction& ins, uint8_t* const op[], bool fast) {
  (void)fast;  // unused in a build without the fast paths
  for (uint32_t t = 0; t < ins.p[0]; ++t) {
    uint8_t tile[512];
    std::memcpy(tile, op[1] + size_t(t) * 512, 512);
#ifdef VINCI_SIM_FAST
    if (fast) {
      uint16_t out[256];
      fast::transpose16x16(out, reinterpret_cast<const uint16_t*>(tile));
      std::memcpy(op[0] + size_t(t) * 512, out, 512);
      continue;
    }
#endif
    uint8_t* d = op[0] + size_t(t) * 512;
    for (unsigned r = 0; r < 16; ++r)
      for (unsigned c = 0; c < 16; ++c) std::memcpy(d + (c * 16 + r) * 2, tile + (r * 16 + c) * 2, 2);
  }
}

}  // namespace

void execVector(const Instruction& ins, uint8_t* const op[kMaxOperands], bool reference) {
  const bool fast = !reference && fast::available();
  if (ins.op == Opcode::VConv) return convert(ins, op, fast);
  if (ins.op == Opcode::VTranspose) return transpose(ins, op, fast);
  switch (ins.dtype) {
    case DType::F16: return dispatch<CodecF16>(ins, op, fast);
    case DType::BF16: return dispatch<CodecBf16>(ins, op, fast);
    case DType::F32: return dispatch<CodecF32>(ins, op, fast);
    case DType::S32: return dispatch<CodecS32>(ins, op, fast);
    default: return;  // rejected by the decoder
  }
}

void execMoveL0cToUb(const Instruction& ins, uint8_t* dst, const uint8_t* src, bool reference) {
  const bool fast = !reference && fast::available();
  const DType st = ins.dtype, dt = ins.dtype2;
  const uint32_t ss = dtypeBytes(st), ds = dtypeBytes(dt);
  const bool relu = ins.flags & flag::Relu, scale = ins.flags & flag::Scale;
  const float factor = bitsFloat(ins.p[4]);
  const uint32_t bursts = ins.p[0], len = ins.p[1], src_gap = ins.p[2], dst_gap = ins.p[3];
  // fp32 accumulators to fp16 or fp32 (the matmul epilogues): fast.cpp's loop.
  const bool fast_f32 = fast && st == DType::F32 && (dt == DType::F16 || dt == DType::F32);
  for (uint32_t b = 0; b < bursts; ++b) {
    const uint8_t* s = src + size_t(b) * (len + src_gap) * ss;
    uint8_t* d = dst + size_t(b) * (len + dst_gap) * ds;
#ifdef VINCI_SIM_FAST
    if (fast_f32) {
      const uint64_t s_lo = reinterpret_cast<uintptr_t>(s), d_lo = reinterpret_cast<uintptr_t>(d);
      if (s_lo >= d_lo + uint64_t(len) * ds || d_lo >= s_lo + uint64_t(len) * 4) {
        fast::readOutF32(d, dt == DType::F16, reinterpret_cast<const float*>(s), len, scale, factor, relu);
        continue;
      }
    }
#else
    (void)fast_f32;
#endif
    if (st == DType::F32 && dt == DType::F16 && !scale) {  // the common matmul epilogue
      for (uint32_t e = 0; e < len; ++e) {
        float v = bitsFloat(rd32(s + e * 4));
        if (relu) v = vmax(v, 0.0f);
        wr16(d + e * 2, f16Result(v));
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
