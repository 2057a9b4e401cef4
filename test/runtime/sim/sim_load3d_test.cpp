// load_3d (img2col, L1 -> L0A/L0B) against a scalar reference: the im2col
// matrix of a 2-D convolution computed here from the convolution's own
// definition (output position (oh, ow), tap (kh, kw), channel c reads input
// pixel (oh * sh - pad_top + kh * dh, ow * sw - pad_left + kw * dw) or the
// pad value). The fractals are read back through the Cube: an mmad by an
// identity in L0B (A x I = A, exact in fp32) moves them to L0C, whence
// move_l0c_ub and copy_nz2nd bring them to GM, so a test also checks that
// load_3d writes the fractal layout the Cube reads.
#include "sim_test_util.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace vinci::sim::test {
namespace {

// A convolution's geometry; the feature map holds `channels` channels of
// C0 = 16 (f16) or 32 (s8) per plane, the last plane zero padded.
struct Conv {
  uint32_t h, w, channels, fh, fw;
  uint32_t sh = 1, sw = 1, dh = 1, dw = 1;
  uint32_t top = 0, bottom = 0, left = 0, right = 0;
  DType dtype = DType::F16;
  uint32_t c0() const { return nzColumns(dtype); }
  uint32_t es() const { return dtypeBytes(dtype); }
  uint32_t planes() const { return (channels + c0() - 1) / c0(); }
  uint32_t wo() const { return (w + left + right - dw * (fw - 1) - 1) / sw + 1; }
};

// Element bits of the feature map: planes [C1][h][w][C0] (pad channels 0).
std::vector<uint32_t> featureMap(const Conv& cv, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  std::uniform_int_distribution<int> small(-100, 100);
  std::vector<uint32_t> map(size_t(cv.planes()) * cv.h * cv.w * cv.c0(), 0);
  for (uint32_t c1 = 0; c1 < cv.planes(); ++c1)
    for (uint32_t y = 0; y < cv.h; ++y)
      for (uint32_t x = 0; x < cv.w; ++x)
        for (uint32_t c = 0; c < cv.c0(); ++c) {
          if (c1 * cv.c0() + c >= cv.channels) continue;
          map[((size_t(c1) * cv.h + y) * cv.w + x) * cv.c0() + c] =
              cv.dtype == DType::F16 ? f32ToF16(real(rng)) : uint32_t(uint8_t(int8_t(small(rng))));
        }
  return map;
}

// The reference: element (position m, column k) of the im2col matrix, with
// k = ((c1 * fh + kh) * fw + kw) * C0 + c; positions continue below the last
// output row (as the hardware's window counter does).
uint32_t im2col(const Conv& cv, const std::vector<uint32_t>& map, uint32_t pad_value, uint64_t m,
                uint64_t k) {
  const uint64_t c = k % cv.c0(), tap = k / cv.c0();
  const uint64_t kw = tap % cv.fw, kh = tap / cv.fw % cv.fh, c1 = tap / (uint64_t(cv.fw) * cv.fh);
  const int64_t oh = int64_t(m / cv.wo()), ow = int64_t(m % cv.wo());
  const int64_t y = oh * cv.sh - cv.top + int64_t(kh) * cv.dh;
  const int64_t x = ow * cv.sw - cv.left + int64_t(kw) * cv.dw;
  if (y < 0 || x < 0 || y >= int64_t(cv.h) || x >= int64_t(cv.w)) return pad_value;
  return map[((c1 * cv.h + uint64_t(y)) * cv.w + uint64_t(x)) * cv.c0() + c];
}

// load_3d parameters for the window of output position m0 (a row start or
// any position) at tap index `tap` (of C1 x fh x fw).
Load3dParams paramsAt(const Conv& cv, uint64_t m0, uint32_t tap, uint32_t repeat_mode, uint32_t repeat,
                      uint32_t jump = 1, uint32_t pad_value = 0) {
  Load3dParams p;
  p.l1_h = cv.h;
  p.l1_w = cv.w;
  p.pad_left = cv.left;
  p.pad_right = cv.right;
  p.pad_top = cv.top;
  p.pad_bottom = cv.bottom;
  p.c1_index = tap / (cv.fh * cv.fw);
  p.fetch_filter_h = tap / cv.fw % cv.fh;
  p.fetch_filter_w = tap % cv.fw;
  p.left_top_w = int32_t(m0 % cv.wo()) * int32_t(cv.sw) - int32_t(cv.left);
  p.left_top_h = int32_t(m0 / cv.wo()) * int32_t(cv.sh) - int32_t(cv.top);
  p.stride_w = cv.sw;
  p.stride_h = cv.sh;
  p.filter_w = cv.fw;
  p.filter_h = cv.fh;
  p.dilation_w = cv.dw;
  p.dilation_h = cv.dh;
  p.jump_stride = jump;
  p.repeat_mode = repeat_mode;
  p.repeat = repeat;
  p.pad_value = pad_value;
  return p;
}

std::vector<uint8_t> mapBytes(const Conv& cv, const std::vector<uint32_t>& map) {
  std::vector<uint8_t> out(map.size() * cv.es());
  for (size_t i = 0; i < map.size(); ++i)
    for (uint32_t b = 0; b < cv.es(); ++b) out[i * cv.es() + b] = uint8_t(map[i] >> (8 * b));
  return out;
}

// B_j [K x 16] in L0B's layout ([k1] fractals, element (k, n) at n * k0 +
// k % k0 of fractal k / k0) with ones where k = 16 j + n: A x B_j is A's
// columns 16 j .. 16 j + 15.
std::vector<uint8_t> columnPicker(DType dtype, uint32_t kdim, uint32_t j) {
  const uint32_t k0 = nzColumns(dtype), es = dtypeBytes(dtype);
  std::vector<uint8_t> b(size_t(kdim) * 16 * es, 0);
  const uint32_t one = dtype == DType::F16 ? f32ToF16(1.0f) : 1u;
  for (uint32_t n = 0; n < 16; ++n) {
    const uint32_t k = 16 * j + n;
    const size_t at = (size_t(k / k0) * 16 * k0 + n * k0 + k % k0) * es;
    for (uint32_t byte = 0; byte < es; ++byte) b[at + byte] = uint8_t(one >> (8 * byte));
  }
  return b;
}

// One load_3d program: the map GM -> L1, `loads` load_3d into an L0A tile of
// m1 x k1 fractals ([m1][k1] row-major), then the tile times each column
// picker on the Cube into L0C ([K / 16][M][16]: the tile in NZ), L0C -> UB
// -> GM as ND [16 m1][C0 k1] (f16, or s32 for s8).
struct Load {
  Load3dParams params;
  uint32_t dst_fractal;  // where in the tile the load starts
};

RunResult runTile(const Conv& cv, const std::vector<uint32_t>& map, uint32_t m1, uint32_t k1,
                  const std::vector<Load>& loads, std::vector<uint8_t>& out) {
  const uint32_t kdim = k1 * cv.c0(), mdim = m1 * 16, blocks = kdim / 16;
  const DType acc = cv.dtype == DType::F16 ? DType::F32 : DType::S32;
  const DType res = cv.dtype == DType::F16 ? DType::F16 : DType::S32;
  auto gmap = mapBytes(cv, map);
  std::vector<uint8_t> pickers;
  for (uint32_t j = 0; j < blocks; ++j) {
    auto picker = columnPicker(cv.dtype, kdim, j);
    pickers.insert(pickers.end(), picker.begin(), picker.end());
  }
  const uint32_t picker_bytes = kdim * 16 * cv.es();
  out.assign(size_t(mdim) * kdim * dtypeBytes(res), 0);
  ProgramBuilder b;
  b.copy(Addr::l1(0), Addr::gm(0), Burst::contiguous(uint32_t(gmap.size())));
  b.setFlag(Pipe::MTE2, Pipe::MTE1, 0);
  b.waitFlag(Pipe::MTE2, Pipe::MTE1, 0);
  for (const Load& l : loads) b.load3d(Addr::l0a(int64_t(l.dst_fractal) * 512), Addr::l1(0), cv.dtype, l.params);
  b.setFlag(Pipe::MTE1, Pipe::M, 0);
  b.waitFlag(Pipe::MTE1, Pipe::M, 0);
  for (uint32_t j = 0; j < blocks; ++j) {
    if (j) {  // the previous mmad has read L0B
      b.setFlag(Pipe::M, Pipe::MTE2, 0);
      b.waitFlag(Pipe::M, Pipe::MTE2, 0);
    }
    b.copy(Addr::l0b(0), Addr::gm(1, int64_t(j) * picker_bytes), Burst::contiguous(picker_bytes));
    b.setFlag(Pipe::MTE2, Pipe::M, 1);
    b.waitFlag(Pipe::MTE2, Pipe::M, 1);
    b.mmad(Addr::l0c(int64_t(j) * mdim * 16 * 4), Addr::l0a(0), Addr::l0b(0), cv.dtype, acc, mdim, 16,
           kdim, true);
  }
  b.setFlag(Pipe::M, Pipe::V, 0);
  b.waitFlag(Pipe::M, Pipe::V, 0);
  b.moveL0cToUb(Addr::ub(0), Addr::l0c(0), acc, res, Burst::contiguous(mdim * kdim), false);
  b.setFlag(Pipe::V, Pipe::MTE3, 0);
  b.waitFlag(Pipe::V, Pipe::MTE3, 0);
  b.copyNz2Nd(Addr::gm(2), Addr::ub(0), res, mdim, kdim, kdim, mdim);
  return run(b.finish(), {&gmap, &pickers, &out}, 1, fatal());
}

uint32_t resultAt(const Conv& cv, const std::vector<uint8_t>& out, uint32_t kdim, uint32_t row, uint32_t col) {
  if (cv.dtype == DType::F16) {
    uint16_t v;
    std::memcpy(&v, out.data() + (size_t(row) * kdim + col) * 2, 2);
    return v;
  }
  int32_t v;
  std::memcpy(&v, out.data() + (size_t(row) * kdim + col) * 4, 4);
  return uint32_t(uint8_t(int8_t(v)));
}

// Repeat mode 1: each load fills one fractal column of the tile (a fixed
// tap, m1 groups of 16 positions from m0, jump = k1); every tap of the
// convolution, so the tile is the im2col rows m0 .. m0 + 16 m1.
void checkPositions(const Conv& cv, uint64_t m0, uint32_t m1, uint32_t pad_value = 0) {
  const auto map = featureMap(cv, 17);
  const uint32_t k1 = cv.planes() * cv.fh * cv.fw;
  ASSERT_LE(m1 * k1, 128u) << "the tile must fit L0A";
  std::vector<Load> loads;
  for (uint32_t tap = 0; tap < k1; ++tap) loads.push_back({paramsAt(cv, m0, tap, 1, m1, k1, pad_value), tap});
  std::vector<uint8_t> out;
  RunResult r = runTile(cv, map, m1, k1, loads, out);
  ASSERT_TRUE(r.ok) << r.error;
  const uint32_t kdim = k1 * cv.c0();
  for (uint32_t row = 0; row < m1 * 16; ++row)
    for (uint32_t col = 0; col < kdim; ++col)
      ASSERT_EQ(resultAt(cv, out, kdim, row, col), im2col(cv, map, pad_value, m0 + row, col))
          << "position " << m0 + row << ", column " << col;
}

// Repeat mode 0: each load fills one fractal row (16 positions, the taps
// from `first_tap` on, crossing planes).
void checkTaps(const Conv& cv, uint64_t m0, uint32_t m1, uint32_t first_tap, uint32_t k1) {
  const auto map = featureMap(cv, 23);
  std::vector<Load> loads;
  for (uint32_t i = 0; i < m1; ++i) loads.push_back({paramsAt(cv, m0 + 16 * i, first_tap, 0, k1), i * k1});
  std::vector<uint8_t> out;
  RunResult r = runTile(cv, map, m1, k1, loads, out);
  ASSERT_TRUE(r.ok) << r.error;
  const uint32_t kdim = k1 * cv.c0();
  for (uint32_t row = 0; row < m1 * 16; ++row)
    for (uint32_t col = 0; col < kdim; ++col)
      ASSERT_EQ(resultAt(cv, out, kdim, row, col),
                im2col(cv, map, 0, m0 + row, uint64_t(first_tap) * cv.c0() + col))
          << "position " << m0 + row << ", column " << col;
}

TEST(SimLoad3d, Pads3x3) {
  Conv cv{8, 8, 20, 3, 3};
  cv.top = cv.bottom = cv.left = cv.right = 1;
  checkPositions(cv, 0, 4);   // the whole 8 x 8 output
  checkPositions(cv, 16, 2);  // from output row 2 on
}

TEST(SimLoad3d, Stride2Dilation2AsymmetricPads) {
  Conv cv{13, 11, 16, 3, 3, 2, 2, 2, 2};
  cv.top = 2, cv.bottom = 1, cv.left = 0, cv.right = 3;
  checkPositions(cv, 0, 2);
  checkPositions(cv, cv.wo(), 1);  // second output row
}

TEST(SimLoad3d, OneByOne) {
  Conv cv{6, 9, 40, 1, 1};
  checkPositions(cv, 0, 4);  // 54 positions: the last fractal partly past the map
}

TEST(SimLoad3d, SevenBySevenStride2) {
  Conv cv{20, 18, 3, 7, 7, 2, 2};
  cv.top = cv.bottom = cv.left = cv.right = 3;
  checkPositions(cv, 0, 2);  // 49 taps of one plane, 32 of the 90 positions
}

TEST(SimLoad3d, PartialLastRepeatReadsPastTheMap) {
  // 5 x 5 output = 25 positions: the second fractal's last 7 rows are
  // windows below the last output row, which read pad values (here 1.0).
  Conv cv{5, 5, 16, 3, 3};
  cv.top = cv.bottom = cv.left = cv.right = 1;
  checkPositions(cv, 0, 2, f32ToF16(1.0f));
}

TEST(SimLoad3d, TapsCrossPlanes) {
  Conv cv{7, 7, 48, 3, 3};
  cv.top = cv.bottom = cv.left = cv.right = 1;
  checkTaps(cv, 0, 3, 0, 27);  // all taps of the three planes
  checkTaps(cv, 5, 2, 7, 6);   // from tap (0, 2, 1) into plane 1, a window mid-row
}

TEST(SimLoad3d, Int8HasC0Of32) {
  Conv cv{6, 6, 40, 3, 3};
  cv.dtype = DType::S8;
  cv.top = cv.bottom = cv.left = cv.right = 1;
  checkPositions(cv, 0, 2);
}

TEST(SimLoad3d, IntoL0bGivesTheTransposedColumns) {
  // The same fractal bytes read as B (n-major): B[channel][position], so
  // I x B on the Cube is the im2col matrix transposed.
  Conv cv{4, 8, 16, 3, 3};
  cv.top = cv.bottom = cv.left = cv.right = 1;
  const auto map = featureMap(cv, 5);
  auto gmap = mapBytes(cv, map);
  // A = identity [16 x 16] in L0A: a single fractal, row-major.
  std::vector<uint16_t> eye(256, 0);
  for (int i = 0; i < 16; ++i) eye[i * 16 + i] = f32ToF16(1.0f);
  auto geye = bytesOf(eye);
  std::vector<uint8_t> out(16 * 32 * 2, 0);
  ProgramBuilder b;
  b.copy(Addr::l1(0), Addr::gm(0), Burst::contiguous(uint32_t(gmap.size())));
  b.copy(Addr::l0a(0), Addr::gm(1), Burst::contiguous(512));
  b.setFlag(Pipe::MTE2, Pipe::MTE1, 0);
  b.waitFlag(Pipe::MTE2, Pipe::MTE1, 0);
  // Tap (1, 1): positions 0..31 as two n fractals of one k fractal.
  b.load3d(Addr::l0b(0), Addr::l1(0), DType::F16, paramsAt(cv, 0, 4, 1, 2));
  b.setFlag(Pipe::MTE1, Pipe::M, 0);
  b.waitFlag(Pipe::MTE1, Pipe::M, 0);
  b.setFlag(Pipe::MTE2, Pipe::M, 1);
  b.waitFlag(Pipe::MTE2, Pipe::M, 1);
  b.mmad(Addr::l0c(0), Addr::l0a(0), Addr::l0b(0), DType::F16, DType::F32, 16, 32, 16, true);
  b.setFlag(Pipe::M, Pipe::V, 0);
  b.waitFlag(Pipe::M, Pipe::V, 0);
  b.moveL0cToUb(Addr::ub(0), Addr::l0c(0), DType::F32, DType::F16, Burst::contiguous(16 * 32), false);
  b.setFlag(Pipe::V, Pipe::MTE3, 0);
  b.waitFlag(Pipe::V, Pipe::MTE3, 0);
  b.copyNz2Nd(Addr::gm(2), Addr::ub(0), DType::F16, 16, 32, 32, 16);
  RunResult r = run(b.finish(), {&gmap, &geye, &out}, 1, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  auto got = valuesOf<uint16_t>(out);
  for (uint32_t c = 0; c < 16; ++c)
    for (uint32_t m = 0; m < 32; ++m)
      ASSERT_EQ(got[c * 32 + m], im2col(cv, map, 0, m, 4 * 16 + c)) << "channel " << c << ", position " << m;
}

TEST(SimLoad3d, CostIsStartupPlusFractalsAtItsRate) {
  Conv cv{8, 8, 16, 3, 3};
  cv.top = cv.bottom = cv.left = cv.right = 1;
  auto gmap = mapBytes(cv, featureMap(cv, 3));
  ProgramBuilder b;
  b.copy(Addr::l1(0), Addr::gm(0), Burst::contiguous(uint32_t(gmap.size())));
  b.setFlag(Pipe::MTE2, Pipe::MTE1, 0);
  b.waitFlag(Pipe::MTE2, Pipe::MTE1, 0);
  b.load3d(Addr::l0a(0), Addr::l1(0), DType::F16, paramsAt(cv, 0, 0, 0, 9));
  RunResult r = run(b.finish(), {&gmap}, 1, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  const soc::TimingTable& t = soc310().timing;
  const double want = t.mte1_startup_cycles.value + 9 * 512 / t.load3d_bytes_per_cycle.value;
  EXPECT_EQ(r.profile.pipe_busy[unsigned(Pipe::MTE1)], uint64_t(std::ceil(want)));
  EXPECT_EQ(r.profile.mte_bytes[unsigned(Pipe::MTE1)], 9u * 512);
}

TEST(SimLoad3d, ReadingL1BeforeItsLoadIsAHazard) {
  Conv cv{8, 8, 16, 3, 3};
  auto gmap = mapBytes(cv, featureMap(cv, 3));
  ProgramBuilder b;
  b.copy(Addr::l1(0), Addr::gm(0), Burst::contiguous(uint32_t(gmap.size())));
  b.load3d(Addr::l0a(0), Addr::l1(0), DType::F16, paramsAt(cv, 0, 0, 1, 2));  // no flag
  RunResult r = run(b.finish(), {&gmap}, 1, fatal());
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("load_3d"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("hazard"), std::string::npos) << r.error;
}

std::string decodeError(const ProgramBuilder& b) {
  const std::vector<uint8_t> bytes = b.finish();
  Program prog;
  std::string error;
  return decodeProgram(bytes.data(), bytes.size(), soc310(), 0, prog, error) ? std::string() : error;
}

// Decoder: every field range, dtype and space is checked.
TEST(SimLoad3d, DecoderRejectsBadParameters) {
  Conv cv{8, 8, 16, 3, 3};
  cv.top = cv.bottom = cv.left = cv.right = 1;
  auto decodeWith = [&](const std::function<void(Load3dParams&)>& change, DType dtype = DType::F16,
                        Addr dst = Addr::l0a(0)) {
    Load3dParams p = paramsAt(cv, 0, 0, 1, 4);
    change(p);
    ProgramBuilder b;
    b.load3d(dst, Addr::l1(0), dtype, p);
    return decodeError(b);
  };
  EXPECT_EQ(decodeWith([](Load3dParams&) {}), "");
  struct Case {
    const char* what;
    std::function<void(Load3dParams&)> change;
  };
  const Case cases[] = {
      {"stride", [](Load3dParams& p) { p.stride_w = 0; }},
      {"stride", [](Load3dParams& p) { p.stride_h = 64; }},
      {"filter sizes", [](Load3dParams& p) { p.filter_w = 0; }},
      {"dilations", [](Load3dParams& p) { p.dilation_h = 0; }},
      {"first tap", [](Load3dParams& p) { p.fetch_filter_w = 3; }},
      {"repeat", [](Load3dParams& p) { p.repeat = 0; }},
      {"jump stride", [](Load3dParams& p) { p.jump_stride = 0; }},
      {"repeat mode", [](Load3dParams& p) { p.repeat_mode = 2; }},
      {"left-top w", [](Load3dParams& p) { p.left_top_w = -2; }},
      {"left-top w", [](Load3dParams& p) { p.left_top_w = 8; }},
      {"left-top h", [](Load3dParams& p) { p.left_top_h = -2; }},
      {"height and width", [](Load3dParams& p) { p.l1_w = 0; }},
      {"c1 index", [](Load3dParams& p) { p.c1_index = 4096; }},
      {"does not fit", [](Load3dParams& p) { p.filter_w = 11; }},
      {"pad value", [](Load3dParams& p) { p.pad_value = 0x10000; }},
  };
  for (const Case& c : cases) {
    const std::string error = decodeWith(c.change);
    EXPECT_NE(error.find(c.what), std::string::npos) << c.what << ": " << error;
  }
  EXPECT_NE(decodeWith([](Load3dParams&) {}, DType::F32).find("f16, s8 or u8"), std::string::npos);
  EXPECT_NE(decodeWith([](Load3dParams&) {}, DType::F16, Addr::ub(0)).find("valid transfer"), std::string::npos);
  // A stray bit above the two 8-bit strides of P7.
  {
    Instruction ins;
    ins.op = Opcode::Load3d;
    ins.dtype = DType::F16;
    ins.operand[0].space = uint8_t(soc::Space::L0A);
    ins.operand[1].space = uint8_t(soc::Space::L1);
    setLoad3dParams(ins, paramsAt(cv, 0, 0, 1, 4));
    ins.p[7] |= 1u << 20;
    for (unsigned s = 0; s < 2; ++s) ins.operand[s].extent = uint32_t(operandFootprint(ins, s));
    ins.pipe = Pipe::MTE1;
    ProgramBuilder b;
    b.raw(ins);
    EXPECT_NE(decodeError(b).find("bits outside its fields"), std::string::npos) << decodeError(b);
  }
  // 200 fractals from 63 KiB of L0A run past its 64 KiB.
  EXPECT_NE(decodeWith([](Load3dParams& p) { p.repeat = 200; }, DType::F16, Addr::l0a(63 * 1024))
                .find("outside"),
            std::string::npos);
}

}  // namespace
}  // namespace vinci::sim::test
