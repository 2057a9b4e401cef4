// Every vector instruction against a scalar reference, through a UB image:
// GM in -> UB (MTE2), the instruction (V), UB -> GM out (MTE3). The reference
// re-derives lane addresses from the ISA definition (repeat, block and repeat
// strides in 32-byte blocks, 128-bit mask) and applies the operation in fp32
// with one rounding to the element type.
#include <cmath>
#include <functional>

#include "sim_test_util.h"

namespace vinci::sim::test {
namespace {

constexpr uint32_t kImage = 256 * 1024;  // the whole UB

struct Ub {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(kImage, 0);
  template <typename T> T get(uint64_t off) const { T v; std::memcpy(&v, &bytes[off], sizeof v); return v; }
  template <typename T> void set(uint64_t off, T v) { std::memcpy(&bytes[off], &v, sizeof v); }
};

// Runs `emit` between a full UB load and store; returns the UB image after.
Ub runOnUb(const Ub& in, const std::function<void(ProgramBuilder&)>& emit, bool* ok = nullptr,
           std::string* err = nullptr) {
  ProgramBuilder b;
  b.copy(Addr::ub(0), Addr::gm(0), Burst::contiguous(kImage));
  b.setFlag(Pipe::MTE2, Pipe::V, 0);
  b.waitFlag(Pipe::MTE2, Pipe::V, 0);
  emit(b);
  b.setFlag(Pipe::V, Pipe::MTE3, 0);
  b.waitFlag(Pipe::V, Pipe::MTE3, 0);
  b.copy(Addr::gm(1), Addr::ub(0), Burst::contiguous(kImage));
  std::vector<uint8_t> gin = in.bytes, gout(kImage, 0xcd);
  RunResult r = run(b.finish(), {&gin, &gout}, 1, fatal());
  if (ok) *ok = r.ok;
  if (err) *err = r.error;
  EXPECT_TRUE(r.ok || ok) << r.error;
  Ub out;
  out.bytes = gout;
  return out;
}

Ub randomUb(uint32_t seed, DType t) {
  Ub u;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  for (uint32_t off = 0; off < kImage; off += dtypeBytes(t)) {
    switch (t) {
      case DType::F16: u.set<uint16_t>(off, f32ToF16(d(rng))); break;
      case DType::BF16: u.set<uint16_t>(off, f32ToBf16(d(rng))); break;
      case DType::F32: u.set<float>(off, d(rng)); break;
      case DType::S32: u.set<int32_t>(off, int32_t(rng() % 2001) - 1000); break;
      default: u.bytes[off] = uint8_t(rng()); break;
    }
  }
  return u;
}

double load(const Ub& u, DType t, uint64_t off) {
  switch (t) {
    case DType::F16: return f16ToF32(u.get<uint16_t>(off));
    case DType::BF16: return bf16ToF32(u.get<uint16_t>(off));
    case DType::F32: return u.get<float>(off);
    case DType::S32: return u.get<int32_t>(off);
    case DType::S8: return int8_t(u.bytes[off]);
    case DType::U8: return u.bytes[off];
    default: return 0;
  }
}
void store(Ub& u, DType t, uint64_t off, double v) {
  switch (t) {
    case DType::F16: u.set<uint16_t>(off, f16Result(float(v))); break;
    case DType::BF16: u.set<uint16_t>(off, bf16Result(float(v))); break;
    case DType::F32: u.set<uint32_t>(off, f32Result(float(v))); break;
    case DType::S32: u.set<int32_t>(off, int32_t(int64_t(v))); break;
    default: break;
  }
}

struct Lane {
  uint32_t r, l;
};
// Address of lane l of repeat r for an operand (reference formula).
uint64_t addr(uint64_t base, uint32_t esize, uint32_t blk, uint32_t rep, uint32_t r, uint32_t l) {
  const uint32_t per_block = 32 / esize;
  return base + uint64_t(r) * rep * 32 + uint64_t(l / per_block) * blk * 32 + uint64_t(l % per_block) * esize;
}
bool active(const VecParams& vp, uint32_t l) { return l < 64 ? (vp.mask_lo >> l) & 1 : (vp.mask_hi >> (l - 64)) & 1; }

void expectSame(const Ub& got, const Ub& want, const char* what) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < kImage; ++i)
    if (got.bytes[i] != want.bytes[i] && bad++ == 0) first = i;
  EXPECT_EQ(bad, 0u) << what << ": first differing byte at UB offset " << first;
}

constexpr uint64_t D = 0, S0 = 80 * 1024, S1 = 160 * 1024;

using BinFn = double (*)(double, double);
struct BinCase { Opcode op; BinFn f; };
const BinCase kBinary[] = {
    {Opcode::VAdd, [](double a, double b) { return a + b; }},
    {Opcode::VSub, [](double a, double b) { return a - b; }},
    {Opcode::VMul, [](double a, double b) { return a * b; }},
    {Opcode::VDiv, [](double a, double b) { return a / b; }},
    {Opcode::VMax, [](double a, double b) { return a > b ? a : b; }},
    {Opcode::VMin, [](double a, double b) { return a < b ? a : b; }},
};

// fp32 arithmetic as the hardware does it: one fp32 rounding, then the dtype's.
double f32op(BinFn f, double a, double b, DType t) {
  if (t == DType::S32) return double(int32_t(uint32_t(int64_t(f(a, b)))));
  return float(f(float(a), float(b)));
}

struct Shape {
  const char* name;
  VecParams vp;
};

std::vector<Shape> shapes(DType t) {
  const uint32_t lanes = 256 / dtypeBytes(t);
  std::vector<Shape> s;
  s.push_back({"dense x3", VecParams::dense(t, 3)});
  VecParams partial = VecParams::dense(t, 5);
  partial.maskCount(lanes / 2 + 3);
  s.push_back({"partial count mask", partial});
  VecParams bits = VecParams::dense(t, 4);
  bits.maskBits((0x8000000000000001ull & (lanes < 64 ? (1ull << lanes) - 1 : ~0ull)) | 0x5a5a5a5aull,
                lanes > 64 ? 0xf0f0f0f00000000full : 0);
  s.push_back({"bit mask", bits});
  VecParams zero = VecParams::dense(t, 0);
  s.push_back({"repeat 0", zero});
  VecParams many = VecParams::dense(t, 255);
  many.dst_rep = many.src0_rep = many.src1_rep = 1;  // overlapping repeats in sources only
  many.dst_rep = 8;
  s.push_back({"repeat 255", many});
  VecParams strided = VecParams::dense(t, 7);
  strided.dst_blk = 2;
  strided.src0_blk = 3;
  strided.src1_blk = 1;
  strided.dst_rep = 16;
  strided.src0_rep = 24;
  strided.src1_rep = 0;  // every repeat reads the same src1
  s.push_back({"block strides", strided});
  return s;
}

TEST(SimVector, BinaryOpsMatchReference) {
  for (DType t : {DType::F16, DType::F32, DType::S32}) {
    const uint32_t es = dtypeBytes(t), lanes = 256 / es;
    for (const BinCase& c : kBinary) {
      if (t == DType::S32 && c.op == Opcode::VDiv) continue;
      for (const Shape& sh : shapes(t)) {
        Ub in = randomUb(uint32_t(c.op) * 7 + es, t);
        Ub got = runOnUb(in, [&](ProgramBuilder& b) { b.vbinary(c.op, t, Addr::ub(D), Addr::ub(S0), Addr::ub(S1), sh.vp); });
        Ub want = in;
        for (uint32_t r = 0; r < sh.vp.repeat; ++r)
          for (uint32_t l = 0; l < lanes; ++l) {
            if (!active(sh.vp, l)) continue;
            const double a = load(in, t, addr(S0, es, sh.vp.src0_blk, sh.vp.src0_rep, r, l));
            const double bb = load(in, t, addr(S1, es, sh.vp.src1_blk, sh.vp.src1_rep, r, l));
            store(want, t, addr(D, es, sh.vp.dst_blk, sh.vp.dst_rep, r, l), f32op(c.f, a, bb, t));
          }
        SCOPED_TRACE(std::string(opcodeName(c.op)) + "." + dtypeName(t) + " " + sh.name);
        expectSame(got, want, sh.name);
      }
    }
  }
}

TEST(SimVector, ScalarAndUnaryOpsMatchReference) {
  struct Case { Opcode op; double scalar; std::function<double(double, double)> f; bool float_only; };
  const Case cases[] = {
      {Opcode::VAdds, 1.5, [](double a, double s) { return a + s; }, false},
      {Opcode::VMuls, -0.75, [](double a, double s) { return a * s; }, false},
      {Opcode::VMaxs, 0.25, [](double a, double s) { return a > s ? a : s; }, false},
      {Opcode::VMins, -0.5, [](double a, double s) { return a < s ? a : s; }, false},
      {Opcode::VLeakyRelu, 0.125, [](double a, double s) { return a >= 0 ? a : double(float(a) * float(s)); }, true},
      {Opcode::VExp, 0, [](double a, double) { return std::exp(float(a)); }, true},
      {Opcode::VLn, 0, [](double a, double) { return std::log(float(a)); }, true},
      {Opcode::VSqrt, 0, [](double a, double) { return std::sqrt(float(a)); }, true},
      {Opcode::VRsqrt, 0, [](double a, double) { return 1.0f / std::sqrt(float(a)); }, true},
      {Opcode::VRec, 0, [](double a, double) { return 1.0f / float(a); }, true},
      {Opcode::VAbs, 0, [](double a, double) { return std::fabs(a); }, false},
      {Opcode::VRelu, 0, [](double a, double) { return a > 0 ? a : 0.0; }, false},
      {Opcode::VNeg, 0, [](double a, double) { return -a; }, false},
      {Opcode::VCopy, 0, [](double a, double) { return a; }, false},
  };
  for (DType t : {DType::F16, DType::F32, DType::S32}) {
    const uint32_t es = dtypeBytes(t), lanes = 256 / es;
    for (const Case& c : cases) {
      if (c.float_only && t == DType::S32) continue;
      const bool scalar_op = c.op == Opcode::VAdds || c.op == Opcode::VMuls || c.op == Opcode::VMaxs ||
                             c.op == Opcode::VMins || c.op == Opcode::VLeakyRelu;
      const double s = t == DType::S32 ? std::trunc(c.scalar * 8) : c.scalar;
      for (const Shape& sh : shapes(t)) {
        Ub in = randomUb(uint32_t(c.op) + 100 * es, t);
        Ub got = runOnUb(in, [&](ProgramBuilder& b) {
          if (scalar_op) b.vscalar(c.op, t, Addr::ub(D), Addr::ub(S0), s, sh.vp);
          else b.vunary(c.op, t, Addr::ub(D), Addr::ub(S0), sh.vp);
        });
        Ub want = in;
        for (uint32_t r = 0; r < sh.vp.repeat; ++r)
          for (uint32_t l = 0; l < lanes; ++l) {
            if (!active(sh.vp, l)) continue;
            const double a = load(in, t, addr(S0, es, sh.vp.src0_blk, sh.vp.src0_rep, r, l));
            double v = c.f(a, t == DType::F16 ? f16ToF32(f32ToF16(float(s))) : s);
            if (t != DType::S32) v = float(v);
            store(want, t, addr(D, es, sh.vp.dst_blk, sh.vp.dst_rep, r, l), v);
          }
        SCOPED_TRACE(std::string(opcodeName(c.op)) + "." + dtypeName(t) + " " + sh.name);
        expectSame(got, want, sh.name);
      }
    }
  }
}

TEST(SimVector, FusedMultiplyAddFormsRoundTwice) {
  const DType t = DType::F16;
  const VecParams vp = VecParams::dense(t, 4);
  Ub in = randomUb(31, t);
  Ub got = runOnUb(in, [&](ProgramBuilder& b) {
    b.vbinary(Opcode::VMla, t, Addr::ub(D), Addr::ub(S0), Addr::ub(S1), vp);
    b.vscalar(Opcode::VAxpy, t, Addr::ub(S1), Addr::ub(S0), 0.3, vp);
  });
  Ub want = in;
  const float s = f16ToF32(f32ToF16(0.3f));
  for (uint32_t i = 0; i < 4 * 128; ++i) {
    const float a = float(load(in, t, S0 + 2 * i)), b = float(load(in, t, S1 + 2 * i));
    const float d = float(load(in, t, D + 2 * i));
    store(want, t, D + 2 * i, f16ToF32(f32ToF16(a * b)) + d);
    store(want, t, S1 + 2 * i, f16ToF32(f32ToF16(a * s)) + b);
  }
  expectSame(got, want, "vmla/vaxpy");
}

TEST(SimVector, CompareAndSelect) {
  for (DType t : {DType::F16, DType::F32}) {
    const uint32_t es = dtypeBytes(t), lanes = 256 / es;
    for (uint32_t mode = 0; mode <= uint32_t(CmpMode::NE); ++mode) {
      VecParams vp = VecParams::dense(t, 6);
      vp.maskCount(lanes - 5);
      Ub in = randomUb(50 + mode, t);
      // Make some lanes equal so EQ/NE/LE/GE see ties.
      for (uint32_t i = 0; i < 6 * lanes; i += 3) std::memcpy(&in.bytes[S1 + i * es], &in.bytes[S0 + i * es], es);
      const uint64_t MASK = 240 * 1024, SEL = 200 * 1024;
      Ub got = runOnUb(in, [&](ProgramBuilder& b) {
        b.vcmp(CmpMode(mode), t, Addr::ub(MASK), Addr::ub(S0), Addr::ub(S1), vp);
        b.vsel(t, Addr::ub(SEL), Addr::ub(S0), Addr::ub(S1), Addr::ub(MASK), vp);
        b.vcmps(CmpMode(mode), t, Addr::ub(MASK + 1024), Addr::ub(S0), 0.5, vp);
      });
      Ub want = in;
      for (uint32_t r = 0; r < 6; ++r) {
        for (uint32_t i = 0; i < lanes / 8; ++i) {
          want.bytes[MASK + r * lanes / 8 + i] = 0;
          want.bytes[MASK + 1024 + r * lanes / 8 + i] = 0;
        }
        for (uint32_t l = 0; l < lanes; ++l) {
          if (!active(vp, l)) continue;
          const double a = load(in, t, S0 + (r * lanes + l) * es), b = load(in, t, S1 + (r * lanes + l) * es);
          auto cmp = [&](double x, double y) {
            switch (CmpMode(mode)) {
              case CmpMode::LT: return x < y;
              case CmpMode::LE: return x <= y;
              case CmpMode::GT: return x > y;
              case CmpMode::GE: return x >= y;
              case CmpMode::EQ: return x == y;
              default: return x != y;
            }
          };
          const double half = t == DType::F16 ? f16ToF32(f32ToF16(0.5f)) : 0.5;
          if (cmp(a, b)) want.bytes[MASK + r * lanes / 8 + l / 8] |= uint8_t(1u << (l % 8));
          if (cmp(a, half)) want.bytes[MASK + 1024 + r * lanes / 8 + l / 8] |= uint8_t(1u << (l % 8));
          store(want, t, SEL + (r * lanes + l) * es, cmp(a, b) ? a : b);
        }
      }
      SCOPED_TRACE(std::string(dtypeName(t)) + " mode " + std::to_string(mode));
      expectSame(got, want, "vcmp/vsel/vcmps");
    }
  }
}

TEST(SimVector, ReductionsWithinAndAcrossRepeats) {
  for (DType t : {DType::F16, DType::F32}) {
    const uint32_t es = dtypeBytes(t), lanes = 256 / es;
    VecParams vp = VecParams::dense(t, 9);
    vp.maskCount(lanes - 7);
    vp.src0_rep = 10;
    Ub in = randomUb(70, t);
    const uint64_t R = 200 * 1024;
    Ub got = runOnUb(in, [&](ProgramBuilder& b) {
      b.vreduce(Opcode::VCAdd, t, Addr::ub(R), Addr::ub(S0), vp, false);
      b.vreduce(Opcode::VCMax, t, Addr::ub(R + 1024), Addr::ub(S0), vp, false);
      b.vreduce(Opcode::VCMin, t, Addr::ub(R + 2048), Addr::ub(S0), vp, false);
      b.vreduce(Opcode::VCAdd, t, Addr::ub(R + 3072), Addr::ub(S0), vp, true);
      b.vreduce(Opcode::VCMax, t, Addr::ub(R + 3104), Addr::ub(S0), vp, true);
    });
    Ub want = in;
    float total = 0, gmax = -INFINITY;
    for (uint32_t r = 0; r < 9; ++r) {
      float sum = 0, mx = -INFINITY, mn = INFINITY;
      for (uint32_t l = 0; l < lanes; ++l) {
        if (!active(vp, l)) continue;
        const float a = float(load(in, t, addr(S0, es, 1, 10, r, l)));
        sum += a;
        total += a;
        mx = std::max(mx, a);
        gmax = std::max(gmax, a);
        mn = std::min(mn, a);
      }
      store(want, t, R + r * es, sum);
      store(want, t, R + 1024 + r * es, mx);
      store(want, t, R + 2048 + r * es, mn);
    }
    store(want, t, R + 3072, total);
    store(want, t, R + 3104, gmax);
    SCOPED_TRACE(dtypeName(t));
    expectSame(got, want, "reductions");
  }
}

TEST(SimVector, DupBroadcastAndTranspose) {
  Ub in = randomUb(90, DType::F16);
  VecParams vp = VecParams::dense(DType::F32, 3);
  vp.maskCount(10);
  Ub got = runOnUb(in, [&](ProgramBuilder& b) {
    b.vdup(DType::F32, Addr::ub(D), 2.5, vp);
    b.vunary(Opcode::VBrcb, DType::F16, Addr::ub(4096), Addr::ub(S0), VecParams::dense(DType::F16, 4));
    b.vtranspose(Addr::ub(S1), Addr::ub(S0 + 4096), 3);
  });
  Ub want = in;
  for (uint32_t r = 0; r < 3; ++r)
    for (uint32_t l = 0; l < 10; ++l) store(want, DType::F32, r * 256 + l * 4, 2.5);
  for (uint32_t r = 0; r < 4; ++r)
    for (uint32_t l = 0; l < 128; ++l) want.set<uint16_t>(4096 + r * 256 + l * 2, in.get<uint16_t>(S0 + r * 2));
  for (uint32_t t = 0; t < 3; ++t)
    for (uint32_t i = 0; i < 16; ++i)
      for (uint32_t j = 0; j < 16; ++j)
        want.set<uint16_t>(S1 + t * 512 + (j * 16 + i) * 2, in.get<uint16_t>(S0 + 4096 + t * 512 + (i * 16 + j) * 2));
  expectSame(got, want, "dup/brcb/transpose");
}

TEST(SimVector, Conversions) {
  struct Case { DType to, from; RoundMode mode; };
  const Case cases[] = {
      {DType::F16, DType::F32, RoundMode::Rint}, {DType::F32, DType::F16, RoundMode::Rint},
      {DType::S32, DType::F32, RoundMode::Rint}, {DType::S32, DType::F32, RoundMode::Floor},
      {DType::S32, DType::F32, RoundMode::Ceil}, {DType::S32, DType::F32, RoundMode::Trunc},
      {DType::S32, DType::F32, RoundMode::Away}, {DType::F32, DType::S32, RoundMode::Rint},
      {DType::S8, DType::F16, RoundMode::Rint}, {DType::F16, DType::S8, RoundMode::Rint},
      {DType::U8, DType::F16, RoundMode::Trunc}, {DType::S32, DType::F16, RoundMode::Away},
  };
  for (const Case& c : cases) {
    const uint32_t fs = dtypeBytes(c.from), ts = dtypeBytes(c.to);
    const uint32_t lanes = 256 / std::max(fs, ts);
    VecParams vp = VecParams::dense(c.from, 5);
    vp.maskCount(lanes - 1);
    vp.dst_rep = 8 * ts / std::max(fs, ts);
    vp.src0_rep = 8 * fs / std::max(fs, ts);
    Ub in = randomUb(110, c.from);
    if (c.from == DType::F32 || c.from == DType::F16) {
      // Scale up so rounding, ties and saturation are exercised.
      for (uint32_t i = 0; i < 5 * lanes; ++i) {
        double v = load(in, c.from, S0 + i * fs) * (c.to == DType::S8 || c.to == DType::U8 ? 50 : 3);
        if (i % 7 == 0) v = std::floor(v) + 0.5;  // exact ties
        store(in, c.from, S0 + i * fs, v);
      }
    }
    Ub got = runOnUb(in, [&](ProgramBuilder& b) { b.vconv(c.to, c.from, Addr::ub(D), Addr::ub(S0), c.mode, vp); });
    Ub want = in;
    for (uint32_t r = 0; r < 5; ++r)
      for (uint32_t l = 0; l < lanes - 1; ++l) {
        const double v = load(in, c.from, addr(S0, fs, 1, vp.src0_rep, r, l));
        const uint64_t d = addr(D, ts, 1, vp.dst_rep, r, l);
        auto rounded = [&](double x) {
          switch (c.mode) {
            case RoundMode::Rint: return std::nearbyint(x);
            case RoundMode::Floor: return std::floor(x);
            case RoundMode::Ceil: return std::ceil(x);
            case RoundMode::Trunc: return std::trunc(x);
            default: return std::round(x);
          }
        };
        switch (c.to) {
          case DType::S8: want.bytes[d] = uint8_t(int8_t(std::clamp(rounded(v), -128.0, 127.0))); break;
          case DType::U8: want.bytes[d] = uint8_t(std::clamp(rounded(v), 0.0, 255.0)); break;
          case DType::S32: want.set<int32_t>(d, int32_t(rounded(v))); break;
          default: store(want, c.to, d, float(v)); break;
        }
      }
    SCOPED_TRACE(std::string(dtypeName(c.from)) + "->" + dtypeName(c.to) + " mode " + std::to_string(int(c.mode)));
    expectSame(got, want, "vconv");
  }
}

TEST(SimVector, Bf16ArithmeticOnlyWhereSupported) {
  ProgramBuilder b;
  b.vbinary(Opcode::VAdd, DType::BF16, Addr::ub(0), Addr::ub(256), Addr::ub(512), VecParams::dense(DType::BF16, 1));
  const auto bytes = b.finish();
  Program p;
  std::string err;
  EXPECT_FALSE(decodeProgram(bytes.data(), bytes.size(), soc310(), 0, p, err));
  EXPECT_NE(err.find("bf16"), std::string::npos) << err;
  const soc::SocSpec* b910 = soc::findSoc("Ascend910B");
  ASSERT_NE(b910, nullptr);
  EXPECT_TRUE(decodeProgram(bytes.data(), bytes.size(), *b910, 0, p, err)) << err;
}

}  // namespace
}  // namespace vinci::sim::test
