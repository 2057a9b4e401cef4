// The fast functional paths against the reference ones: random instructions
// (elementwise vector ops in fp16 and fp32, fp16 <-> fp32 conversions, mmad
// with the L0C read-out) on random data with special values (NaN, infinities,
// subnormals, signed zeros), run once with RunOptions::reference_paths and
// once without; the UB images, GM outputs and every simulated figure must be
// identical byte for byte. Also the fp16 conversions of the fast paths over
// every fp16 value and a dense sweep of fp32 ones.
#include <cmath>
#include <functional>

#include "l2_impl.h"  // internal: the ideal L2's interval structure
#include "fast.h"     // internal: whether the host has the AVX-512 builds
#include "sim_test_util.h"

namespace vinci::sim::test {
namespace {

constexpr uint32_t kImage = 256 * 1024;  // the whole UB

// A random fp16 / fp32 bit pattern, special values one time in ten.
uint16_t randomF16Bits(std::mt19937& rng) {
  static const uint16_t special[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01,
                                     0x0001, 0x83ff, 0x03ff, 0x7bff, 0xfbff, 0x3c00, 0x3800};
  if (rng() % 10 == 0) return special[rng() % (sizeof special / sizeof special[0])];
  std::normal_distribution<float> d(0.0f, 1.0f);
  const float scale = std::ldexp(1.0f, int(rng() % 30) - 18);  // subnormal .. large
  return f32ToF16(d(rng) * scale);
}
uint32_t randomF32Bits(std::mt19937& rng, bool allow_nan) {
  static const uint32_t special[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
                                     0xffc00123, 0x7f800001, 0x00000001, 0x807fffff, 0x7f7fffff,
                                     0x3f800000, 0x477fe000, 0x477ff000, 0x33800000, 0x387fc000};
  if (rng() % 10 == 0) {
    uint32_t v = special[rng() % (sizeof special / sizeof special[0])];
    if (!allow_nan && (v & 0x7fffffff) > 0x7f800000) v = 0x3f800000;
    return v;
  }
  std::normal_distribution<float> d(0.0f, 1.0f);
  const float v = d(rng) * std::ldexp(1.0f, int(rng() % 40) - 24);
  return floatBits(v);
}

std::vector<uint8_t> randomImage(std::mt19937& rng, DType t, bool allow_nan = true) {
  std::vector<uint8_t> img(kImage);
  for (uint32_t off = 0; off < kImage; off += dtypeBytes(t)) {
    if (t == DType::F16) {
      const uint16_t v = randomF16Bits(rng);
      std::memcpy(&img[off], &v, 2);
    } else {
      const uint32_t v = randomF32Bits(rng, allow_nan);
      std::memcpy(&img[off], &v, 4);
    }
  }
  return img;
}

struct Outcome {
  RunResult r;
  std::vector<uint8_t> gm_out;
};

// GM image -> UB, `emit`, UB -> GM, with the reference or the fast paths.
Outcome runOnUb(const std::vector<uint8_t>& image, const std::function<void(ProgramBuilder&)>& emit,
                bool reference) {
  ProgramBuilder b;
  b.copy(Addr::ub(0), Addr::gm(0), Burst::contiguous(kImage));
  b.pipeBarrierAll();
  emit(b);
  b.pipeBarrierAll();
  b.copy(Addr::gm(1), Addr::ub(0), Burst::contiguous(kImage));
  Outcome o;
  std::vector<uint8_t> in = image;
  o.gm_out.assign(kImage, 0xcd);
  RunOptions opt;
  opt.detect_hazards = false;  // a functional comparison: the detector has no fast path
  opt.reference_paths = reference;
  o.r = run(b.finish(), {&in, &o.gm_out}, 1, opt);
  return o;
}

// Everything a run reports must agree too: the timing model has fast paths
// (UB bank conflicts) of its own.
void expectSameProfile(const KernelProfile& a, const KernelProfile& b, const std::string& what) {
  EXPECT_EQ(a.cycles, b.cycles) << what;
  EXPECT_EQ(a.cycles_ideal_l2, b.cycles_ideal_l2) << what;
  EXPECT_EQ(a.cycles_low, b.cycles_low) << what;
  EXPECT_EQ(a.cycles_high, b.cycles_high) << what;
  for (unsigned p = 0; p < kNumPipes; ++p) EXPECT_EQ(a.pipe_busy[p], b.pipe_busy[p]) << what << " pipe " << p;
  EXPECT_EQ(a.block_cycles, b.block_cycles) << what;
}

void expectSameRun(const Outcome& ref, const Outcome& fast, const std::string& what) {
  ASSERT_TRUE(ref.r.ok) << what << ": " << ref.r.error;
  ASSERT_TRUE(fast.r.ok) << what << ": " << fast.r.error;
  if (ref.gm_out != fast.gm_out) {
    size_t i = 0;
    while (ref.gm_out[i] == fast.gm_out[i]) ++i;
    FAIL() << what << ": first differing UB byte " << i << " (reference " << int(ref.gm_out[i])
           << ", fast " << int(fast.gm_out[i]) << ")";
  }
  expectSameProfile(ref.r.profile, fast.r.profile, what);
}

// The fast paths against the reference; on a host with AVX-512, both with
// the AVX-512 builds and with the AVX2 ones alone.
void expectSame(const std::vector<uint8_t>& image, const std::function<void(ProgramBuilder&)>& emit,
                const std::string& what) {
  Outcome ref = runOnUb(image, emit, true), fast = runOnUb(image, emit, false);
  if (detail::fast::avx512()) {
    struct Avx2Only {  // AVX-512 back on however the comparison ends
      Avx2Only() { detail::fast::allowAvx512(false); }
      ~Avx2Only() { detail::fast::allowAvx512(true); }
    } avx2_only;
    expectSameRun(ref, runOnUb(image, emit, false), what + " (AVX2 builds)");
  }
  expectSameRun(ref, fast, what);
}

struct Shape {
  VecParams vp;
  int64_t dst, src0, src1;
  std::string text;
};

// Random repeat, strides, mask and operand placement: mostly the contiguous
// forms the fast paths take, sometimes forms they must leave to the reference.
Shape randomShape(std::mt19937& rng, DType t) {
  Shape s;
  const uint32_t lanes = 256 / dtypeBytes(t);
  VecParams& vp = s.vp;
  vp.repeat = 1 + rng() % 24;
  const uint32_t dense_rep = 8;
  auto rep = [&] { return rng() % 4 ? dense_rep : 1 + rng() % 16; };
  vp.dst_rep = rep();
  vp.src0_rep = rep();
  vp.src1_rep = rep();
  vp.dst_blk = vp.src0_blk = vp.src1_blk = 1;
  if (rng() % 6 == 0) vp.src0_blk = 1 + rng() % 4;
  if (rng() % 8 == 0) vp.dst_blk = 1 + rng() % 3;
  switch (rng() % 4) {
    case 0: vp.maskCount(1 + rng() % lanes); break;              // a prefix
    case 1: vp.maskBits(uint64_t(rng()) << 32 | rng(), lanes > 64 ? uint64_t(rng()) << 32 | rng() : 0); break;
    default: break;                                               // full
  }
  if (lanes == 64) vp.mask_hi = 0;
  // Each operand in its own 64 KiB quarter, or sharing the destination.
  const uint32_t q = 65536;
  auto place = [&](unsigned quarter) { return int64_t(quarter) * q + 32 * (rng() % 64); };
  s.dst = place(0);
  s.src0 = rng() % 5 == 0 ? s.dst : rng() % 9 == 0 ? s.dst + 32 * (1 + rng() % 8) : place(1);
  s.src1 = rng() % 7 == 0 ? s.dst : place(2);
  s.text = "repeat " + std::to_string(vp.repeat) + " blk " + std::to_string(vp.dst_blk) + "/" +
           std::to_string(vp.src0_blk) + " rep " + std::to_string(vp.dst_rep) + "/" +
           std::to_string(vp.src0_rep) + "/" + std::to_string(vp.src1_rep) + " mask " +
           std::to_string(vp.mask_lo) + ":" + std::to_string(vp.mask_hi) + " at " + std::to_string(s.dst) +
           "," + std::to_string(s.src0) + "," + std::to_string(s.src1);
  return s;
}

const Opcode kBinary[] = {Opcode::VAdd, Opcode::VSub, Opcode::VMul, Opcode::VDiv,
                          Opcode::VMax, Opcode::VMin, Opcode::VMla};
const Opcode kScalar[] = {Opcode::VAdds, Opcode::VMuls, Opcode::VMaxs, Opcode::VMins,
                          Opcode::VLeakyRelu, Opcode::VAxpy};
const Opcode kUnary[] = {Opcode::VAbs, Opcode::VRelu, Opcode::VNeg, Opcode::VSqrt, Opcode::VRsqrt,
                         Opcode::VRec, Opcode::VExp, Opcode::VLn, Opcode::VCopy};  // vcopy: bits

TEST(SimFast, ElementwiseOpsMatchTheReference) {
  std::mt19937 rng(2024);
  for (int i = 0; i < 800; ++i) {
    const DType t = rng() % 3 ? DType::F16 : DType::F32;
    std::vector<uint8_t> image = randomImage(rng, t);
    Shape s = randomShape(rng, t);
    const unsigned kind = rng() % 4;
    const double scalar = std::ldexp(double(int(rng() % 2001) - 1000), -int(rng() % 10));
    std::string what = std::string(dtypeName(t)) + " ";
    std::function<void(ProgramBuilder&)> emit;
    if (kind == 0) {
      const Opcode op = kBinary[rng() % std::size(kBinary)];
      what += opcodeName(op);
      emit = [&, op](ProgramBuilder& b) { b.vbinary(op, t, Addr::ub(s.dst), Addr::ub(s.src0), Addr::ub(s.src1), s.vp); };
    } else if (kind == 1) {
      const Opcode op = kScalar[rng() % std::size(kScalar)];
      what += opcodeName(op);
      emit = [&, op](ProgramBuilder& b) { b.vscalar(op, t, Addr::ub(s.dst), Addr::ub(s.src0), scalar, s.vp); };
    } else if (kind == 2) {
      const Opcode op = kUnary[rng() % std::size(kUnary)];
      what += opcodeName(op);
      emit = [&, op](ProgramBuilder& b) { b.vunary(op, t, Addr::ub(s.dst), Addr::ub(s.src0), s.vp); };
    } else {
      what += "vdup";
      emit = [&](ProgramBuilder& b) { b.vdup(t, Addr::ub(s.dst), scalar, s.vp); };
    }
    expectSame(image, emit, what + " " + s.text);
    if (HasFatalFailure() || HasFailure()) return;
  }
}

// Operands strided by whole blocks under a prefix mask (the gather / scatter
// path): block strides 0..3 on the sources, 0..2 on the destination, repeat
// strides 0..16, sources apart from, equal to or overlapping the destination.
TEST(SimFast, BlockStridedOperandsMatchTheReference) {
  std::mt19937 rng(77);
  for (int i = 0; i < 600; ++i) {
    const DType t = rng() % 3 ? DType::F16 : DType::F32;
    const uint32_t lanes = 256 / dtypeBytes(t);
    std::vector<uint8_t> image = randomImage(rng, t);
    Shape s;
    VecParams& vp = s.vp;
    vp.repeat = 1 + rng() % 24;
    auto rep = [&] { return rng() % 3 ? 8 * (1 + rng() % 2) : rng() % 17; };
    vp.dst_rep = rep();
    vp.src0_rep = rep();
    vp.src1_rep = rep();
    vp.dst_blk = rng() % 8 == 0 ? 0 : 1 + rng() % 2;
    vp.src0_blk = rng() % 4;
    vp.src1_blk = rng() % 3;
    if (rng() % 3 == 0) vp.maskCount(1 + rng() % lanes);
    if (lanes == 64) vp.mask_hi = 0;
    const uint32_t q = 65536;
    s.dst = 32 * (rng() % 64);
    const unsigned where = rng() % 8;
    s.src0 = where == 0 ? s.dst : where == 1 ? s.dst + 32 * (1 + rng() % 8) : q + 32 * (rng() % 64);
    if (where == 0 && rng() % 2) vp.src0_blk = vp.dst_blk, vp.src0_rep = vp.dst_rep;  // the same walk
    s.src1 = rng() % 6 == 0 ? s.dst : 2 * q + 32 * (rng() % 64);
    const double scalar = std::ldexp(double(int(rng() % 2001) - 1000), -int(rng() % 10));
    const std::string text = std::string(dtypeName(t)) + " repeat " + std::to_string(vp.repeat) + " blk " +
                             std::to_string(vp.dst_blk) + "/" + std::to_string(vp.src0_blk) + "/" +
                             std::to_string(vp.src1_blk) + " rep " + std::to_string(vp.dst_rep) + "/" +
                             std::to_string(vp.src0_rep) + "/" + std::to_string(vp.src1_rep) + " mask " +
                             std::to_string(vp.mask_lo) + ":" + std::to_string(vp.mask_hi) + " at " +
                             std::to_string(s.dst) + "," + std::to_string(s.src0) + "," + std::to_string(s.src1);
    std::function<void(ProgramBuilder&)> emit;
    std::string what;
    switch (rng() % 3) {
      case 0: {
        const Opcode op = kBinary[rng() % std::size(kBinary)];
        what = opcodeName(op);
        emit = [&, op](ProgramBuilder& b) { b.vbinary(op, t, Addr::ub(s.dst), Addr::ub(s.src0), Addr::ub(s.src1), s.vp); };
        break;
      }
      case 1: {
        const Opcode op = kScalar[rng() % std::size(kScalar)];
        what = opcodeName(op);
        emit = [&, op](ProgramBuilder& b) { b.vscalar(op, t, Addr::ub(s.dst), Addr::ub(s.src0), scalar, s.vp); };
        break;
      }
      default: {
        const Opcode op = kUnary[rng() % (std::size(kUnary) - 1)];  // not vcopy: no strided fast path
        what = opcodeName(op);
        emit = [&, op](ProgramBuilder& b) { b.vunary(op, t, Addr::ub(s.dst), Addr::ub(s.src0), s.vp); };
      }
    }
    expectSame(image, emit, what + " " + text);
    if (HasFatalFailure() || HasFailure()) return;
  }
}

// The bank-conflict count's shortcuts (consecutive rows as bit masks, a
// pattern shorter than 16 repeats) against the row-by-row count, on operands
// that start just below a 64 KiB bank boundary and walk across it, with
// repeat strides that are whole rounds of the 16 bank groups or not.
TEST(SimFast, BankConflictCountsMatchTheReference) {
  std::mt19937 rng(512);
  const uint32_t q = 65536;
  const uint32_t reps[] = {0, 1, 2, 4, 8, 16, 32, 3, 24};  // in 32-byte blocks
  for (int i = 0; i < 400; ++i) {
    const DType t = rng() % 2 ? DType::F16 : DType::F32;
    const uint32_t lanes = 256 / dtypeBytes(t);
    VecParams vp;
    vp.repeat = 1 + rng() % 40;
    vp.dst_rep = reps[rng() % std::size(reps)];
    vp.src0_rep = rng() % 2 ? vp.dst_rep : reps[rng() % std::size(reps)];
    vp.src1_rep = rng() % 2 ? vp.dst_rep : reps[rng() % std::size(reps)];
    vp.dst_blk = vp.src0_blk = vp.src1_blk = 1;
    if (rng() % 4 == 0) vp.src0_blk = 1 + rng() % 4;
    if (rng() % 3 == 0) vp.maskCount(1 + rng() % lanes);
    // Below the boundary of quarters 1, 2, 3: some repeats on each side of it.
    auto near = [&](unsigned quarter) { return int64_t(quarter) * q - 32 * int64_t(rng() % 200); };
    const int64_t dst = near(1), src0 = near(2), src1 = rng() % 4 ? near(3) : dst;
    const Opcode op = kBinary[rng() % std::size(kBinary)];
    const std::string what = std::string(dtypeName(t)) + " " + opcodeName(op) + " repeat " +
                             std::to_string(vp.repeat) + " rep " + std::to_string(vp.dst_rep) + "/" +
                             std::to_string(vp.src0_rep) + "/" + std::to_string(vp.src1_rep) + " at " +
                             std::to_string(dst) + "," + std::to_string(src0) + "," + std::to_string(src1);
    expectSame(randomImage(rng, t), [&](ProgramBuilder& b) {
      b.vbinary(op, t, Addr::ub(dst), Addr::ub(src0), Addr::ub(src1), vp);
    }, what);
    if (HasFailure()) return;
  }
}

TEST(SimFast, ConversionsMatchTheReference) {
  std::mt19937 rng(77);
  for (int i = 0; i < 300; ++i) {
    const bool up = rng() % 2;
    const DType src = up ? DType::F16 : DType::F32, dst = up ? DType::F32 : DType::F16;
    std::vector<uint8_t> image = randomImage(rng, src);
    Shape s = randomShape(rng, DType::F32);  // conversions walk fp32's 64 lanes
    if (rng() % 6 == 0) s.src0 = s.dst;      // overlapping: the reference's job
    expectSame(image, [&](ProgramBuilder& b) {
      b.vconv(dst, src, Addr::ub(s.dst), Addr::ub(s.src0), RoundMode::Rint, s.vp);
    }, std::string(up ? "f16->f32 " : "f32->f16 ") + s.text);
    if (HasFailure()) return;
  }
}

// The core's memo of bank-conflict counts (per program, instruction and
// operand offsets) against counting every time: vector ops in two nested
// loops, each operand moving with each loop by a random number of rows
// (often none), so that the same instruction meets some offsets again and
// others for the first time, across 64 KiB bank boundaries.
TEST(SimFast, BankConflictMemoMatchesTheReference) {
  std::mt19937 rng(4096);
  const uint32_t q = 65536;
  for (int i = 0; i < 150; ++i) {
    const DType t = rng() % 2 ? DType::F16 : DType::F32;
    std::vector<uint8_t> image = randomImage(rng, t, false);
    const uint32_t outer = 1 + rng() % 4, inner = 1 + rng() % 5;
    auto coef = [&] { return rng() % 3 == 0 ? 0 : int32_t(32 * (rng() % 20)); };
    int32_t c[2][3];
    for (auto& loop : c)
      for (int32_t& v : loop) v = coef();
    VecParams vp;
    vp.repeat = 1 + rng() % 20;
    vp.src0_rep = rng() % 2 ? 8 : 16;
    auto near = [&](unsigned quarter) { return int64_t(quarter) * q - 32 * int64_t(rng() % 100); };
    const int64_t dst = near(1), src0 = near(2), src1 = rng() % 3 ? near(3) : dst + 32 * (rng() % 16);
    const Opcode op = kBinary[rng() % std::size(kBinary)];
    auto emit = [&](ProgramBuilder& b) {
      const unsigned lo = b.loopBegin(outer), li = b.loopBegin(inner);
      b.vbinary(op, t, Addr::ub(dst).iv(lo, c[0][0]).iv(li, c[1][0]), Addr::ub(src0).iv(lo, c[0][1]).iv(li, c[1][1]),
                Addr::ub(src1).iv(lo, c[0][2]).iv(li, c[1][2]), vp);
      b.vunary(Opcode::VRelu, t, Addr::ub(src1).iv(li, c[1][2]), Addr::ub(dst).iv(lo, c[0][0]), vp);
      b.loopEnd();
      b.loopEnd();
    };
    std::string what = std::string(dtypeName(t)) + " " + opcodeName(op) + " loops " + std::to_string(outer) +
                       "x" + std::to_string(inner) + " repeat " + std::to_string(vp.repeat) + " coefs";
    for (const auto& loop : c)
      for (int32_t v : loop) what += " " + std::to_string(v);
    expectSame(image, emit, what);
    if (HasFailure()) return;
  }
}

// A random mmad through L1, L0A/L0B, the Cube, and the L0C read-out to UB
// with or without ReLU, with or without a scale (special values included),
// fp16 or fp32 out.
TEST(SimFast, MmadAndTheL0cReadOutMatchTheReference) {
  std::mt19937 rng(9);
  for (int i = 0; i < 60; ++i) {
    const uint32_t m = 16 * (1 + rng() % 6) - rng() % 16, n = 16 * (1 + rng() % 6) - rng() % 16;
    const uint32_t k = 16 * (1 + rng() % 8) - rng() % 16;
    const uint32_t m1 = (m + 15) / 16, n1 = (n + 15) / 16, k1 = (k + 15) / 16;
    const bool relu = rng() % 2, to_f16 = rng() % 3 != 0, accumulate = rng() % 2, scaled = rng() % 3 == 0;
    const float factor = bitsFloat(randomF32Bits(rng, true));
    std::vector<uint8_t> image = randomImage(rng, DType::F16);
    auto emit = [&](ProgramBuilder& b) {
      // UB -> L1 (A fractals at 0, B at 64 KiB), L1 -> L0A / L0B.
      b.copy(Addr::l1(0), Addr::ub(0), Burst::contiguous(m1 * k1 * 512));
      b.copy(Addr::l1(65536), Addr::ub(65536), Burst::contiguous(k1 * n1 * 512));
      b.pipeBarrierAll();
      b.loadFractals(Addr::l0a(0), Addr::l1(0), DType::F16, m1, k1, k1, 1, k1, 1, false);
      b.loadFractals(Addr::l0b(0), Addr::l1(65536), DType::F16, k1, n1, n1, 1, n1, 1, false);
      b.pipeBarrierAll();
      b.mmad(Addr::l0c(0), Addr::l0a(0), Addr::l0b(0), DType::F16, DType::F32, m, n, k, true);
      if (accumulate) b.mmad(Addr::l0c(0), Addr::l0a(0), Addr::l0b(0), DType::F16, DType::F32, m, n, k, false);
      b.pipeBarrierAll();
      const uint32_t elems = n1 * m1 * 256;
      b.moveL0cToUb(Addr::ub(131072), Addr::l0c(0), DType::F32, to_f16 ? DType::F16 : DType::F32,
                    Burst{1, elems, 0, 0}, relu, factor, scaled);
    };
    expectSame(image, emit, "mmad " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                                (relu ? " relu" : "") + (scaled ? " scale " + std::to_string(factor) : "") +
                                (to_f16 ? " ->f16" : " ->f32"));
    if (HasFailure()) return;
  }
}

// The 16x16 tile transposes (load_fractals with transpose into L0A/L0B, and
// vtranspose in UB, in place or not) and the copies of fixed-size bursts
// (each size class below 128 bytes at its ends, longer ones for memcpy) with
// random gaps.
TEST(SimFast, TransposesAndBurstCopiesMatchTheReference) {
  std::mt19937 rng(31);
  for (int i = 0; i < 120; ++i) {
    std::vector<uint8_t> image = randomImage(rng, DType::F16);
    const uint32_t outer = 1 + rng() % 4, inner = 1 + rng() % 4, tiles = 1 + rng() % 12;
    const bool to_a = rng() % 2, in_place = rng() % 3 == 0;
    const uint32_t sizes[] = {1, 2, 3, 4, 7, 8, 14, 16, 28, 31, 32, 56, 64, 96, 112, 127, 128, 160};
    const uint32_t bytes = sizes[rng() % std::size(sizes)], count = 1 + rng() % 40;
    const uint32_t src_gap = rng() % 4 ? 32 * (rng() % 4) : rng() % 40, dst_gap = rng() % 4 ? 32 * (rng() % 4) : rng() % 40;
    auto emit = [&](ProgramBuilder& b) {
      // The same L1 tiles transposed into one of L0A / L0B and as they are
      // into the other; a wrong transpose changes the product read out.
      b.copy(Addr::l1(0), Addr::ub(0), Burst::contiguous(outer * inner * 512));
      b.pipeBarrierAll();
      uint32_t m1, k1, n1;
      if (to_a) {  // A: outer x inner tiles transposed; B: inner x outer
        m1 = outer, k1 = inner, n1 = outer;
        b.loadFractals(Addr::l0a(0), Addr::l1(0), DType::F16, m1, k1, k1, 1, k1, 1, true);
        b.loadFractals(Addr::l0b(0), Addr::l1(0), DType::F16, k1, n1, n1, 1, n1, 1, false);
      } else {     // A: inner x outer tiles; B: outer x inner transposed
        m1 = inner, k1 = outer, n1 = inner;
        b.loadFractals(Addr::l0a(0), Addr::l1(0), DType::F16, m1, k1, k1, 1, k1, 1, false);
        b.loadFractals(Addr::l0b(0), Addr::l1(0), DType::F16, k1, n1, n1, 1, n1, 1, true);
      }
      b.pipeBarrierAll();
      b.mmad(Addr::l0c(0), Addr::l0a(0), Addr::l0b(0), DType::F16, DType::F32, 16 * m1, 16 * n1, 16 * k1, true);
      b.pipeBarrierAll();
      b.moveL0cToUb(Addr::ub(196608), Addr::l0c(0), DType::F32, DType::F32, Burst{1, m1 * n1 * 256, 0, 0}, false);
      b.pipeBarrierAll();
      b.vtranspose(Addr::ub(in_place ? 65536 : 98304), Addr::ub(65536), tiles);
      b.pipeBarrierAll();
      b.copy(Addr::ub(131072), Addr::ub(8192), Burst{count, bytes, src_gap, dst_gap});
    };
    expectSame(image, emit, "transpose " + std::to_string(outer) + "x" + std::to_string(inner) +
                                (to_a ? " L0A" : " L0B") + " vtranspose " + std::to_string(tiles) +
                                (in_place ? " in place" : "") + " copy " + std::to_string(count) + "x" +
                                std::to_string(bytes) + " gaps " + std::to_string(src_gap) + "/" +
                                std::to_string(dst_gap));
    if (HasFailure()) return;
  }
}

// The ideal L2's intervals (a lazily pruned age heap, reused map nodes)
// against a byte-level LRU: every byte has the age of the last range that
// touched it; beyond the capacity the oldest bytes go first, the lowest
// address first among equals (the parts of one range, and the trimmed end of
// the last one evicted). Random ranges, some far larger than the capacity;
// runs of steps with room for everything pile up dead heap pairs (the heap
// is rebuilt from the entries) before evictions pop them.
TEST(SimFast, IdealL2MatchesAByteLevelLru) {
  std::mt19937 rng(5);
  constexpr uint64_t kSpace = 2048;
  for (int round = 0; round < 20; ++round) {
    L2Model l2;
    L2Model::Impl& impl = l2.impl();
    const uint64_t small = 32 + rng() % 1024;
    std::vector<uint64_t> age(kSpace, 0);  // 0: not resident
    uint64_t next_age = 1;
    for (int step = 0; step < 150; ++step) {
      const uint64_t capacity = step % 40 < 25 ? kSpace : small;
      std::vector<detail::HostRange> ranges;
      const unsigned n = 1 + rng() % 12;
      for (unsigned i = 0; i < n; ++i) {
        const uint64_t lo = rng() % kSpace, len = rng() % 4 == 0 ? rng() % 1500 : rng() % 64;
        ranges.push_back(detail::HostRange{lo, std::min(kSpace, lo + len)});
      }
      impl.touch(ranges, capacity);
      for (const detail::HostRange& r : ranges) {
        if (r.lo >= r.hi) continue;
        const uint64_t a = next_age++;
        for (uint64_t b = r.lo; b < r.hi; ++b) age[b] = a;
      }
      std::vector<std::pair<uint64_t, uint64_t>> held;  // (age, address)
      for (uint64_t b = 0; b < kSpace; ++b)
        if (age[b]) held.emplace_back(age[b], b);
      if (held.size() > capacity) {
        std::sort(held.begin(), held.end());
        for (size_t i = 0; i < held.size() - capacity; ++i) age[held[i].second] = 0;
      }
      const uint64_t expected = std::min<uint64_t>(held.size(), capacity);
      ASSERT_EQ(l2.residentBytes(), expected) << "round " << round << " step " << step;
      for (uint64_t b = 0; b < kSpace; ++b)
        ASSERT_EQ(impl.covered(b, b + 1), age[b] ? 1u : 0u)
            << "byte " << b << ", round " << round << " step " << step << " capacity " << capacity;
      const uint64_t lo = rng() % kSpace, hi = lo + rng() % (kSpace - lo + 1);
      uint64_t in = 0;
      for (uint64_t b = lo; b < hi; ++b) in += age[b] != 0;
      ASSERT_EQ(impl.covered(lo, hi), in) << "[" << lo << ", " << hi << ")";
    }
  }
}

// The fast fp16 conversions over every fp16 value and, for fp32 -> fp16,
// over every rounding position: all 2^19 values of the upper 19 bits (sign,
// exponent, the 10 kept bits) with 16 patterns of the 13 dropped ones (the
// rounding bit set or not, sticky bits none, one or all, their neighbours).
TEST(SimFast, Fp16ConversionsAreExactEverywhere) {
  std::vector<uint8_t> image(kImage);
  // f16 -> f32: the 65536 patterns in UB [0, 128 KiB), converted to [128 KiB, 256 KiB) in two halves.
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint16_t v = uint16_t(h);
    std::memcpy(&image[h * 2], &v, 2);
  }
  for (uint32_t half = 0; half < 2; ++half) {
    expectSame(image, [&](ProgramBuilder& b) {
      // 32768 elements: 512 repeats of 64 lanes, issued as 255 + 255 + 2.
      uint32_t done = 0;
      while (done < 512) {
        const uint32_t r = std::min(255u, 512 - done);
        VecParams vp = VecParams::dense(DType::F32, r);
        vp.src0_rep = 4;
        b.vconv(DType::F32, DType::F16, Addr::ub(131072 + done * 256), Addr::ub(half * 65536 + done * 128),
                RoundMode::Rint, vp);
        done += r;
      }
    }, "f16 -> f32, all values, half " + std::to_string(half));
    if (HasFailure()) return;
  }
  // f32 -> f16: 2^19 upper patterns x 16 low patterns, 32768 at a time.
  static const uint32_t low[] = {0x0000, 0x0001, 0x0002, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x0800,
                                 0x07ff, 0x0801, 0x17ff, 0x1800, 0x1801, 0x0400, 0x0003, 0x1ffe};
  uint64_t checked = 0;
  for (uint32_t li = 0; li < 16 && !HasFailure(); ++li)
    for (uint32_t upper = 0; upper < (1u << 19) && !HasFailure(); upper += 32768) {
      for (uint32_t j = 0; j < 32768; ++j) {
        const uint32_t bits = ((upper + j) << 13) | low[li];
        std::memcpy(&image[j * 4], &bits, 4);
      }
      expectSame(image, [&](ProgramBuilder& b) {
        uint32_t done = 0;
        while (done < 512) {
          const uint32_t r = std::min(255u, 512 - done);
          VecParams vp = VecParams::dense(DType::F32, r);
          vp.dst_rep = 4;
          b.vconv(DType::F16, DType::F32, Addr::ub(131072 + done * 128), Addr::ub(done * 256), RoundMode::Rint, vp);
          done += r;
        }
      }, "f32 -> f16 from " + std::to_string(upper) + " low " + std::to_string(low[li]));
      checked += 32768;
    }
  EXPECT_EQ(checked, 16ull << 19);
}

}  // namespace
}  // namespace vinci::sim::test
