// Hand-assembled kernels: data movement formats, the Cube, a tiled
// double-buffered matmul on several cores, a row softmax, the hazard detector,
// thread-count independence and the trace.
#include <cmath>

#include "kernels.h"
#include "sim_test_util.h"

namespace vinci::sim::test {
namespace {

std::vector<uint16_t> randomF16(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<uint16_t> v(n);
  for (auto& x : v) x = f32ToF16(d(rng));
  return v;
}

// ---- Data movement -------------------------------------------------------------

TEST(SimMove, Nd2NzPadsAndNz2NdRestores) {
  const uint32_t rows = 37, cols = 45, stride = 50, drows = 48, dcols = 48;
  auto src = randomF16(rows * stride, 1);
  auto gin = bytesOf(src);
  std::vector<uint8_t> nz(drows * dcols * 2), back(rows * stride * 2, 0);
  ProgramBuilder b;
  b.copyNd2Nz(Addr::ub(0), Addr::gm(0), DType::F16, rows, cols, stride, drows, dcols);
  b.setFlag(Pipe::MTE2, Pipe::MTE3, 0);
  b.waitFlag(Pipe::MTE2, Pipe::MTE3, 0);
  b.copy(Addr::gm(1), Addr::ub(0), Burst::contiguous(drows * dcols * 2));
  b.copyNz2Nd(Addr::gm(2), Addr::ub(0), DType::F16, rows, cols, stride, drows);
  RunResult r = run(b.finish(), {&gin, &nz, &back}, 1, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  auto z = valuesOf<uint16_t>(nz);
  auto o = valuesOf<uint16_t>(back);
  for (uint32_t j = 0; j < dcols / 16; ++j)
    for (uint32_t i = 0; i < drows; ++i)
      for (uint32_t c = 0; c < 16; ++c) {
        const uint32_t col = j * 16 + c;
        const uint16_t want = i < rows && col < cols ? src[i * stride + col] : 0;
        ASSERT_EQ(z[(j * drows + i) * 16 + c], want) << i << "," << col;
      }
  for (uint32_t i = 0; i < rows; ++i)
    for (uint32_t c = 0; c < stride; ++c) ASSERT_EQ(o[i * stride + c], c < cols ? src[i * stride + c] : 0);
}

TEST(SimMove, CopyGatherPicksRowsAndRejectsOutOfRangeIndices) {
  // A 10-row table of 24 fp16 (48 B) in rows of 64 B; 5 indices, two negative.
  const uint32_t table_rows = 10, row_elems = 24, stride = 32;
  auto table = randomF16(table_rows * stride, 7);
  auto gtable = bytesOf(table);
  const std::vector<int32_t> picks = {3, 0, -1, 9, -10};
  auto gindex = bytesOf(picks);
  std::vector<uint8_t> out(picks.size() * row_elems * 2, 0);
  auto program = [&] {
    ProgramBuilder b;
    b.copy(Addr::ub(0), Addr::gm(1), Burst::contiguous(uint32_t(picks.size() * 4)));
    b.copyGather(Addr::ub(1024), Addr::gm(0), Addr::ub(0), uint32_t(picks.size()), row_elems * 2,
                 stride * 2, row_elems * 2, table_rows);
    b.setFlag(Pipe::MTE2, Pipe::MTE3, 0);
    b.waitFlag(Pipe::MTE2, Pipe::MTE3, 0);
    b.copy(Addr::gm(2), Addr::ub(1024), Burst::contiguous(uint32_t(out.size())));
    return b.finish();
  };
  RunResult r = run(program(), {&gtable, &gindex, &out}, 1, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  auto o = valuesOf<uint16_t>(out);
  for (size_t i = 0; i < picks.size(); ++i) {
    const int32_t row = picks[i] < 0 ? picks[i] + int32_t(table_rows) : picks[i];
    for (uint32_t c = 0; c < row_elems; ++c)
      ASSERT_EQ(o[i * row_elems + c], table[row * stride + c]) << "index " << i;
  }
  EXPECT_GT(r.profile.gm_bytes_read, 0u);

  // An index past either end is a run-time error, not a wild read.
  for (int32_t bad : {10, -11}) {
    std::vector<int32_t> wrong = picks;
    wrong[2] = bad;
    auto gwrong = bytesOf(wrong);
    RunResult e = run(program(), {&gtable, &gwrong, &out}, 1, fatal());
    ASSERT_FALSE(e.ok);
    EXPECT_NE(e.error.find("copy_gather: index " + std::to_string(bad)), std::string::npos) << e.error;
  }
}

TEST(SimMove, NchwToNc1hwc0PadsChannels) {
  const uint32_t C = 21, HW = 10;
  auto src = randomF16(C * HW, 2);
  auto gin = bytesOf(src);
  std::vector<uint8_t> out(2 * HW * 16 * 2);
  ProgramBuilder b;
  b.copyNchw2Nc1hwc0(Addr::ub(0), Addr::gm(0), DType::F16, C, HW, HW);
  b.setFlag(Pipe::MTE2, Pipe::MTE3, 0);
  b.waitFlag(Pipe::MTE2, Pipe::MTE3, 0);
  b.copy(Addr::gm(1), Addr::ub(0), Burst::contiguous(uint32_t(out.size())));
  RunResult r = run(b.finish(), {&gin, &out}, 1, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  auto o = valuesOf<uint16_t>(out);
  for (uint32_t c1 = 0; c1 < 2; ++c1)
    for (uint32_t s = 0; s < HW; ++s)
      for (uint32_t c0 = 0; c0 < 16; ++c0) {
        const uint32_t ch = c1 * 16 + c0;
        ASSERT_EQ(o[(c1 * HW + s) * 16 + c0], ch < C ? src[ch * HW + s] : 0);
      }
}

TEST(SimMove, BurstGapsAndLoadFractalsTranspose) {
  // 3 bursts of 64 B with gaps on both sides, then fractal loads with strides.
  auto src = randomF16(4096, 3);
  auto gin = bytesOf(src);
  std::vector<uint8_t> out(3 * 512 * 2, 0);
  ProgramBuilder b;
  b.copy(Addr::l1(0), Addr::gm(0), Burst::contiguous(8192));
  b.setFlag(Pipe::MTE2, Pipe::MTE1, 0);
  b.waitFlag(Pipe::MTE2, Pipe::MTE1, 0);
  // L1 fractals 0..7; take fractals {1, 3, 5} (outer 3, stride 2), transposed, into L0B.
  b.loadFractals(Addr::l0b(0), Addr::l1(512), DType::F16, 3, 1, 2, 0, 1, 0, true);
  b.copy(Addr::ub(0), Addr::l1(0), Burst{3, 64, 96, 32});
  b.setFlag(Pipe::MTE1, Pipe::MTE3, 0);
  b.waitFlag(Pipe::MTE1, Pipe::MTE3, 0);
  b.copy(Addr::gm(1), Addr::ub(0), Burst::contiguous(3 * 96));
  RunResult r = run(b.finish(), {&gin, &out}, 1, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  for (uint32_t k = 0; k < 3; ++k)
    for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(out[k * 96 + i], gin[k * 160 + i]);
  for (uint32_t k = 0; k < 3; ++k) ASSERT_EQ(out[k * 96 + 64], 0);  // dst gaps untouched (zeroed UB)
}

// ---- Cube ----------------------------------------------------------------------

// A (m x k) and B (k x n) in ND; the kernel converts them with the ISA's own
// moves and runs one mmad; compared with a double-precision reference.
void checkSingleMmad(uint32_t m, uint32_t n, uint32_t k, bool int8) {
  const DType in = int8 ? DType::S8 : DType::F16, out = int8 ? DType::S32 : DType::F32;
  const uint32_t es = int8 ? 1 : 2, k0 = int8 ? 32 : 16;
  const uint32_t mp = (m + 15) / 16 * 16, np = (n + 15) / 16 * 16, kp = (k + k0 - 1) / k0 * k0;
  std::vector<uint8_t> a(m * k * es), bt(n * k * es), c(size_t(m) * n * 4);
  std::mt19937 rng(m * 7 + n);
  std::vector<double> av(m * k), bv(k * n);
  for (uint32_t i = 0; i < m * k; ++i) {
    if (int8) { int8_t v = int8_t(rng()); a[i] = uint8_t(v); av[i] = v; }
    else { uint16_t h = f32ToF16(float(int(rng() % 2001) - 1000) / 997.0f); std::memcpy(&a[i * 2], &h, 2); av[i] = f16ToF32(h); }
  }
  // B is given transposed (n x k, row-major): its NZ image is L0B's layout directly.
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t kk = 0; kk < k; ++kk) {
      if (int8) { int8_t v = int8_t(rng()); bt[j * k + kk] = uint8_t(v); bv[kk * n + j] = v; }
      else { uint16_t h = f32ToF16(float(int(rng() % 2001) - 1000) / 1013.0f); std::memcpy(&bt[(j * k + kk) * 2], &h, 2); bv[kk * n + j] = f16ToF32(h); }
    }
  ProgramBuilder b;
  b.copyNd2Nz(Addr::l1(0), Addr::gm(0), in, m, k, k, mp, kp);           // A: [k1][mp][k0]
  b.copyNd2Nz(Addr::l1(262144), Addr::gm(1), in, n, k, k, np, kp);      // B^T: [k1][np][k0]
  b.setFlag(Pipe::MTE2, Pipe::MTE1, 0);
  b.waitFlag(Pipe::MTE2, Pipe::MTE1, 0);
  const uint32_t m1 = mp / 16, n1 = np / 16, k1 = kp / k0;
  b.loadFractals(Addr::l0a(0), Addr::l1(0), in, m1, k1, 1, m1, k1, 1, false);
  b.loadFractals(Addr::l0b(0), Addr::l1(262144), in, k1, n1, n1, 1, n1, 1, false);
  b.setFlag(Pipe::MTE1, Pipe::M, 0);
  b.waitFlag(Pipe::MTE1, Pipe::M, 0);
  b.mmad(Addr::l0c(0), Addr::l0a(0), Addr::l0b(0), in, out, m, n, k, true);
  b.mmad(Addr::l0c(0), Addr::l0a(0), Addr::l0b(0), in, out, m, n, k, false);  // accumulate: 2x
  b.setFlag(Pipe::M, Pipe::V, 0);
  b.waitFlag(Pipe::M, Pipe::V, 0);
  b.moveL0cToUb(Addr::ub(0), Addr::l0c(0), out, out, Burst{1, mp * np, 0, 0}, false);
  b.setFlag(Pipe::V, Pipe::MTE3, 0);
  b.waitFlag(Pipe::V, Pipe::MTE3, 0);
  b.copyNz2Nd(Addr::gm(2), Addr::ub(0), out, m, n, n, mp);
  RunResult r = run(b.finish(), {&a, &bt, &c}, 1, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.profile.cube_fractal_ops, 2ull * m1 * n1 * k1);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      double ref = 0;
      for (uint32_t kk = 0; kk < k; ++kk) ref += av[i * k + kk] * bv[kk * n + j];
      ref *= 2;
      if (int8) {
        int32_t got;
        std::memcpy(&got, &c[(i * n + j) * 4], 4);
        ASSERT_EQ(got, int32_t(ref)) << i << "," << j;
      } else {
        float got;
        std::memcpy(&got, &c[(i * n + j) * 4], 4);
        ASSERT_NEAR(got, ref, 1e-5 * k + 1e-6 * std::fabs(ref)) << i << "," << j;
      }
    }
}

TEST(SimCube, MmadF16ToF32) { checkSingleMmad(48, 64, 96, false); }
TEST(SimCube, MmadF16OddShape) { checkSingleMmad(21, 35, 19, false); }
TEST(SimCube, MmadInt8ToInt32) { checkSingleMmad(40, 24, 70, true); }

// ---- Tiled matmul ---------------------------------------------------------------

struct MatmulRun {
  RunResult r;
  std::vector<uint16_t> c;
};

MatmulRun runMatmul(const kernels::MatmulConfig& cfg, unsigned threads, bool hazards_fatal,
                    const std::vector<uint16_t>& a, const std::vector<uint16_t>& bm) {
  std::vector<uint8_t> bytes;
  std::string err;
  EXPECT_TRUE(kernels::buildMatmul(cfg, soc310(), bytes, err)) << err;
  auto ga = bytesOf(a), gb = bytesOf(bm);
  std::vector<uint8_t> gc(size_t(cfg.m) * cfg.n * 2, 0);
  RunOptions opt;
  opt.threads = threads;
  opt.hazards_fatal = hazards_fatal;
  MatmulRun out;
  out.r = run(bytes, {&ga, &gb, &gc}, cfg.grid_rows * cfg.grid_cols, opt);
  out.c = valuesOf<uint16_t>(gc);
  return out;
}

void expectMatmulCorrect(const kernels::MatmulConfig& cfg) {
  auto a = randomF16(size_t(cfg.m) * cfg.k, 11), bm = randomF16(size_t(cfg.k) * cfg.n, 12);
  MatmulRun res = runMatmul(cfg, 0, true, a, bm);
  ASSERT_TRUE(res.r.ok) << res.r.error;
  EXPECT_TRUE(res.r.profile.hazards.empty());
  double worst = 0;
  for (uint32_t i = 0; i < cfg.m; ++i)
    for (uint32_t j = 0; j < cfg.n; ++j) {
      double ref = 0;
      for (uint32_t kk = 0; kk < cfg.k; ++kk) ref += double(f16ToF32(a[size_t(i) * cfg.k + kk])) * f16ToF32(bm[size_t(kk) * cfg.n + j]);
      const double got = f16ToF32(res.c[size_t(i) * cfg.n + j]);
      // fp32 accumulation, one fp16 rounding of the result: half an fp16 ulp plus slack.
      const double tol = std::fabs(ref) * std::ldexp(1.0, -11) + 1e-3;
      worst = std::max(worst, std::fabs(got - ref) / tol);
      ASSERT_LE(std::fabs(got - ref), tol) << "C[" << i << "][" << j << "] = " << got << ", reference " << ref;
    }
  EXPECT_LE(worst, 1.0);
}

TEST(SimMatmul, Tiled256OnEightCores) {
  kernels::MatmulConfig cfg;  // 256^3, grid 2 x 4, tiles 64 x 64, 4 k steps
  cfg.grid_cols = 4;
  expectMatmulCorrect(cfg);
}

TEST(SimMatmul, Tiled256OnFourCoresOddSteps) {
  kernels::MatmulConfig cfg;
  cfg.tile_k = 32;  // 8 k steps
  cfg.k = 160;      // 5 k steps: loop of 2 pairs, no tail... plus step 0
  expectMatmulCorrect(cfg);
}

TEST(SimMatmul, NonMultipleOf16ShapeIsPadded) {
  kernels::MatmulConfig cfg;
  cfg.m = 200;
  cfg.n = 144;
  cfg.k = 88;
  cfg.tile_m = 100;
  cfg.tile_k = 88;  // one k step of 88: padded to 96 with zeros
  expectMatmulCorrect(cfg);  // blocks of 100 x 72
}

TEST(SimMatmul, ThreadCountDoesNotChangeResultsOrProfile) {
  kernels::MatmulConfig cfg;
  cfg.grid_cols = 4;
  auto a = randomF16(size_t(cfg.m) * cfg.k, 21, -8, 8), bm = randomF16(size_t(cfg.k) * cfg.n, 22, -8, 8);
  MatmulRun one = runMatmul(cfg, 1, true, a, bm);
  MatmulRun eight = runMatmul(cfg, 8, true, a, bm);
  ASSERT_TRUE(one.r.ok && eight.r.ok) << one.r.error << eight.r.error;
  EXPECT_EQ(one.c, eight.c);
  EXPECT_EQ(one.r.profile.cycles, eight.r.profile.cycles);
  EXPECT_EQ(one.r.profile.cycles_ideal_l2, eight.r.profile.cycles_ideal_l2);
  EXPECT_EQ(one.r.profile.cycles_low, eight.r.profile.cycles_low);
  EXPECT_EQ(one.r.profile.cycles_high, eight.r.profile.cycles_high);
  EXPECT_EQ(one.r.profile.block_cycles, eight.r.profile.block_cycles);
  for (unsigned p = 0; p < kNumPipes; ++p) EXPECT_EQ(one.r.profile.pipe_busy[p], eight.r.profile.pipe_busy[p]);
}

// Blocks that run one after another on one reused core (one thread, one
// pool over two kernels) each start as on a fresh core: zeroed buffers and
// no trace of the previous block's accesses in the hazard detector.
TEST(SimPool, EveryBlockStartsOnAFreshCore) {
  const uint32_t bytes = 4096, blocks = 4;
  ProgramBuilder b;
  // MTE2 fills an unrelated UB range, unordered with what follows (no hazard:
  // the ranges differ), so the detector looks at MTE2's accesses below.
  b.copy(Addr::ub(2 * bytes), Addr::gm(0).block(bytes), Burst::contiguous(bytes));
  // Read UB before anything in this block wrote it: zeros on a fresh core, and
  // no hazard against the previous block's MTE2 write of the same range.
  b.copy(Addr::gm(1).block(bytes), Addr::ub(0), Burst::contiguous(bytes));  // MTE3 reads UB
  b.pipeBarrierAll();
  b.copy(Addr::ub(0), Addr::gm(0).block(bytes), Burst::contiguous(bytes));  // MTE2 writes UB
  const auto program = b.finish();
  std::vector<uint8_t> in(blocks * bytes, 0x5a), out(blocks * bytes, 0xff);
  CorePool pool(1);
  RunOptions opt = fatal();
  opt.pool = &pool;
  for (int run_index = 0; run_index < 2; ++run_index) {
    RunResult r = run(program, {&in, &out}, blocks, opt);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_TRUE(r.profile.hazards.empty()) << r.profile.hazards.front();
    for (uint8_t v : out) ASSERT_EQ(v, 0) << "a block saw the previous block's UB";
    std::fill(out.begin(), out.end(), 0xff);
  }
}

// A pool keeps each launch's hazard verdict: the second run of the same
// kernel (same block_dim, argument sizes) skips the detector and reports the
// same hazards; a fatal run of it still fails.
TEST(SimPool, KnownHazardsAreReportedAgain) {
  kernels::MatmulConfig cfg;
  cfg.drop_wait_m_to_v = true;
  std::vector<uint8_t> mm;
  std::string err;
  ASSERT_TRUE(kernels::buildMatmul(cfg, soc310(), mm, err)) << err;
  Program program;  // decoded once, as the runtime does at model load
  ASSERT_TRUE(decodeProgram(mm.data(), mm.size(), soc310(), 3, program, err)) << err;
  std::vector<uint8_t> a(256 * 256 * 2), bb(256 * 256 * 2), c(256 * 256 * 2), c_larger(256 * 256 * 4);
  auto regions = [&](std::vector<uint8_t>& out) {
    return std::vector<GmRegion>{{a.data(), a.size(), true}, {bb.data(), bb.size(), true},
                                 {out.data(), out.size(), true}};
  };
  CorePool pool(2);
  RunOptions opt;
  opt.pool = &pool;
  KernelProfile first, second, other, fatal_profile;
  ASSERT_TRUE(runKernel(program, 4, regions(c), soc310(), opt, first, err)) << err;
  ASSERT_TRUE(runKernel(program, 4, regions(c), soc310(), opt, second, err)) << err;
  ASSERT_FALSE(first.hazards.empty());
  EXPECT_EQ(second.hazards, first.hazards);
  opt.hazards_fatal = true;
  EXPECT_FALSE(runKernel(program, 4, regions(c), soc310(), opt, fatal_profile, err));
  EXPECT_NE(err.find("hazard"), std::string::npos) << err;
  // A launch with other argument sizes is checked afresh (and finds the same).
  opt.hazards_fatal = false;
  ASSERT_TRUE(runKernel(program, 4, regions(c_larger), soc310(), opt, other, err)) << err;
  EXPECT_EQ(other.hazards, first.hazards);
}

TEST(SimMatmul, MissingWaitFlagIsAHazard) {
  kernels::MatmulConfig cfg;
  cfg.grid_cols = 4;
  cfg.drop_wait_m_to_v = true;
  auto a = randomF16(size_t(cfg.m) * cfg.k, 31), bm = randomF16(size_t(cfg.k) * cfg.n, 32);
  MatmulRun reported = runMatmul(cfg, 0, false, a, bm);
  ASSERT_TRUE(reported.r.ok) << reported.r.error;
  ASSERT_FALSE(reported.r.profile.hazards.empty());
  const std::string& h = reported.r.profile.hazards.front();
  EXPECT_NE(h.find("move_l0c_ub"), std::string::npos) << h;
  EXPECT_NE(h.find("mmad"), std::string::npos) << h;
  EXPECT_NE(h.find("L0C"), std::string::npos) << h;
  MatmulRun fatal_run = runMatmul(cfg, 0, true, a, bm);
  EXPECT_FALSE(fatal_run.r.ok);
  EXPECT_NE(fatal_run.r.error.find("hazard"), std::string::npos) << fatal_run.r.error;
}

TEST(SimMatmul, OverlappingWritesFromTwoBlocksAreReported) {
  // Every block writes the same GM bytes.
  ProgramBuilder b;
  b.vdup(DType::F32, Addr::ub(0), 1.0, VecParams::dense(DType::F32, 1));
  b.setFlag(Pipe::V, Pipe::MTE3, 0);
  b.waitFlag(Pipe::V, Pipe::MTE3, 0);
  b.copy(Addr::gm(0), Addr::ub(0), Burst::contiguous(256));
  std::vector<uint8_t> out(256);
  RunResult r = run(b.finish(), {&out}, 2);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.profile.hazards.size(), 1u);
  EXPECT_NE(r.profile.hazards[0].find("blocks 0 and 1"), std::string::npos) << r.profile.hazards[0];
}

// ---- Softmax --------------------------------------------------------------------

TEST(SimSoftmax, RowSoftmaxMatchesReference) {
  const uint32_t blocks = 4, rows_per_block = 300, chunk = 100, rows = blocks * rows_per_block;
  std::vector<float> x(rows * 64);
  std::mt19937 rng(5);
  std::normal_distribution<float> d(0, 4);
  for (auto& v : x) v = d(rng);
  x[7] = 80.0f;  // a large logit: max subtraction keeps exp finite
  auto gx = bytesOf(x);
  std::vector<uint8_t> gy(gx.size());
  RunResult r = run(kernels::buildSoftmax64(rows_per_block, chunk), {&gx, &gy}, blocks, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  auto y = valuesOf<float>(gy);
  for (uint32_t row = 0; row < rows; ++row) {
    double mx = -INFINITY, sum = 0;
    for (uint32_t i = 0; i < 64; ++i) mx = std::max(mx, double(x[row * 64 + i]));
    for (uint32_t i = 0; i < 64; ++i) sum += std::exp(double(x[row * 64 + i]) - mx);
    double total = 0;
    for (uint32_t i = 0; i < 64; ++i) {
      const double ref = std::exp(double(x[row * 64 + i]) - mx) / sum;
      ASSERT_NEAR(y[row * 64 + i], ref, 2e-6 + 4e-6 * ref) << row << "," << i;
      total += y[row * 64 + i];
    }
    ASSERT_NEAR(total, 1.0, 1e-5);
  }
}

// ---- Timeline (the timing model itself: sim_timing_test.cpp) ------------------

TEST(SimTiming, TraceIsChromeJson) {
  kernels::MatmulConfig cfg;
  std::vector<uint8_t> mm;
  std::string err;
  ASSERT_TRUE(kernels::buildMatmul(cfg, soc310(), mm, err));
  std::vector<uint8_t> a(256 * 256 * 2), bb(256 * 256 * 2), c(256 * 256 * 2);
  TraceWriter trace;
  trace.setNextKernelName("matmul");
  RunOptions opt;
  opt.trace = &trace;
  RunResult r = run(mm, {&a, &bb, &c}, 4, opt);
  ASSERT_TRUE(r.ok) << r.error;
  const std::string json = trace.json();
  EXPECT_GT(trace.eventCount(), 100u);
  EXPECT_EQ(json.rfind("{\"displayTimeUnit\"", 0), 0u);
  EXPECT_NE(json.find("\"traceEvents\":["), std::string::npos);
  EXPECT_NE(json.find("\"name\":\"mmad\""), std::string::npos);
  EXPECT_NE(json.find("\"thread_name\""), std::string::npos);
  EXPECT_NE(json.find("published numbers"), std::string::npos);
}

// Two launches of one program are two launches in the trace, though they
// share a name and their first instruction (a set_flag) leaves no event: each
// event carries its launch's index (bench/common.py kernel_spans reads it).
TEST(SimTiming, TraceTellsLaunchesOfOneProgramApart) {
  ProgramBuilder b;
  b.setFlag(Pipe::MTE3, Pipe::MTE2, 0);
  b.waitFlag(Pipe::MTE3, Pipe::MTE2, 0);
  b.copy(Addr::ub(0), Addr::gm(0).block(4096), Burst::contiguous(4096));
  b.setFlag(Pipe::MTE2, Pipe::MTE3, 0);
  b.waitFlag(Pipe::MTE2, Pipe::MTE3, 0);
  b.copy(Addr::gm(1).block(4096), Addr::ub(0), Burst::contiguous(4096));
  const std::vector<uint8_t> program = b.finish();
  std::vector<uint8_t> in(4096 * 2, 1), out(4096 * 2, 0);
  TraceWriter trace;
  RunOptions opt = fatal();
  opt.trace = &trace;
  for (int launch = 0; launch < 2; ++launch) {
    trace.setNextKernelName("copy");
    RunResult r = run(program, {&in, &out}, 2, opt);  // each block copies its own 4 KB
    ASSERT_TRUE(r.ok) << r.error;
  }
  const std::string json = trace.json();
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = json.find(needle); at != std::string::npos; at = json.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("\"pc\":0,"), 0u) << "the premise: pc 0 (set_flag) has no event";
  EXPECT_NE(json.find("\"launches\":2"), std::string::npos);
  // Two copies on each of two blocks, per launch.
  EXPECT_EQ(count("\"launch\":0,"), 4u);
  EXPECT_EQ(count("\"launch\":1,"), 4u);
  EXPECT_EQ(count("\"kernel\":\"copy\""), 8u);
}

}  // namespace
}  // namespace vinci::sim::test
