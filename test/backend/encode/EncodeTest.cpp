// Tests of the dv -> ISA encoder (backend/encode): dv kernels parsed from
// MLIR text are encoded, decoded and run on the simulator (hazards fatal),
// and compared with scalar references; plus the errors for what the ISA
// cannot express, and an encode/decode round trip of the record sequence.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <random>

#include "dv/DvOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "vinci/backend/Encode.h"
#include "vinci/sim/assembler.h"
#include "vinci/sim/executor.h"
#include "vinci/sim/isa.h"
#include "vinci/sim/numeric.h"
#include "vinci/soc.h"

namespace {

using vinci::backend::EncodedKernel;
using vinci::backend::encodeKernel;
namespace sim = vinci::sim;
namespace dv = vinci::dv;

struct Parsed {
  std::unique_ptr<mlir::MLIRContext> ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  dv::KernelOp kernel() {
    auto ops = module->getOps<dv::KernelOp>();
    return ops.empty() ? dv::KernelOp() : *ops.begin();
  }
};

Parsed parse(const std::string &text, bool allowUnregistered = false) {
  Parsed p;
  p.ctx = std::make_unique<mlir::MLIRContext>();
  p.ctx->loadDialect<dv::DVDialect>();
  p.ctx->allowUnregisteredDialects(allowUnregistered);
  p.module = mlir::parseSourceString<mlir::ModuleOp>(text, p.ctx.get());
  return p;
}

// Encodes the only kernel of `text`, which must parse and verify.
EncodedKernel encodeOk(const std::string &text) {
  Parsed p = parse(text);
  EXPECT_TRUE(p.module) << "does not parse/verify";
  EncodedKernel k;
  if (!p.module) return k;
  std::string error;
  EXPECT_TRUE(encodeKernel(p.kernel(), k, error)) << error;
  return k;
}

std::string dump(mlir::ModuleOp m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m->print(os);
  return s;
}

// Encodes `text` and expects an error containing `what`.
std::string encodeError(const std::string &text, bool allowUnregistered = false) {
  Parsed p = parse(text, allowUnregistered);
  EXPECT_TRUE(p.module) << "does not parse/verify";
  if (!p.module) return "";
  EncodedKernel k;
  std::string error;
  EXPECT_FALSE(encodeKernel(p.kernel(), k, error))
      << "encoded " << k.instruction_count << " records, " << k.dynamic_instruction_count
      << " dynamic; module:\n" << dump(*p.module);
  EXPECT_EQ(error.find('\n'), std::string::npos) << "error must be one line: " << error;
  testing::Test::RecordProperty("error", error);
  return error;
}

const vinci::soc::SocSpec &soc310() { return *vinci::soc::findSoc("Ascend310P3"); }

// Decodes and runs `k` on `args` with the hazard detector fatal.
void run(const EncodedKernel &k, std::vector<sim::GmRegion> args, sim::KernelProfile *out = nullptr) {
  sim::Program program;
  std::string error;
  ASSERT_TRUE(sim::decodeProgram(k.program.data(), k.program.size(), soc310(), k.num_args, program,
                                 error))
      << error;
  sim::RunOptions opt;
  opt.threads = 2;
  opt.detect_hazards = true;
  opt.hazards_fatal = true;
  sim::KernelProfile profile;
  ASSERT_TRUE(sim::runKernel(program, k.block_dim, args, soc310(), opt, profile, error)) << error;
  EXPECT_TRUE(profile.hazards.empty()) << profile.hazards.front();
  if (out) *out = profile;
}

template <typename T>
sim::GmRegion region(std::vector<T> &v, bool writable) {
  return {reinterpret_cast<uint8_t *>(v.data()), v.size() * sizeof(T), writable};
}

std::vector<uint16_t> randomF16(size_t n, unsigned seed, float lo = -2.f, float hi = 2.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<uint16_t> v(n);
  for (auto &x : v) x = sim::f32ToF16(d(rng));
  return v;
}

// Walks the kernel as the encoder does: one record per instruction op, two
// per loop (begin, end). Returns the expected (opcode kind, pipe) sequence:
// kind 1 = LoopBegin, 2 = LoopEnd, 0 = any instruction.
void expectedRecords(mlir::Block &block, std::vector<std::pair<int, int>> &out) {
  for (mlir::Operation &op : block) {
    if (auto loop = mlir::dyn_cast<dv::LoopOp>(op)) {
      out.push_back({1, 0});
      expectedRecords(loop.getBody().front(), out);
      out.push_back({2, 0});
      continue;
    }
    if (mlir::isa<dv::BlockIdxOp, dv::AllocOp, dv::ViewOp, dv::YieldOp, dv::ReturnOp>(op)) continue;
    auto pipe = mlir::cast<dv::PipeOpInterface>(op).getPipe();
    out.push_back({0, pipe == dv::Pipe::ALL ? 0 : int(pipe)});
  }
}

// Encode -> decode round trip: the record count equals the dv instruction
// ops plus two loop markers per loop, and each record's opcode and pipe
// bytes line up with the op sequence.
void roundTrip(const std::string &text) {
  Parsed p = parse(text);
  ASSERT_TRUE(p.module);
  EncodedKernel k;
  std::string error;
  ASSERT_TRUE(encodeKernel(p.kernel(), k, error)) << error;
  std::vector<std::pair<int, int>> want;
  expectedRecords(p.kernel().getBody().front(), want);
  ASSERT_EQ(k.instruction_count, want.size());
  sim::Program program;
  ASSERT_TRUE(sim::decodeProgram(k.program.data(), k.program.size(), soc310(), k.num_args, program,
                                 error))
      << error;
  EXPECT_EQ(program.instructionCount(), want.size());
  EXPECT_EQ(program.numArgs(), k.num_args);
  uint32_t count;
  std::memcpy(&count, k.program.data() + 8, 4);
  EXPECT_EQ(count, want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const uint8_t *rec = k.program.data() + sim::kHeaderBytes + i * sim::kRecordBytes;
    if (want[i].first == 1) {
      EXPECT_EQ(rec[0], uint8_t(sim::Opcode::LoopBegin)) << "record " << i;
    } else if (want[i].first == 2) {
      EXPECT_EQ(rec[0], uint8_t(sim::Opcode::LoopEnd)) << "record " << i;
    } else {
      EXPECT_GE(rec[0], uint8_t(sim::Opcode::SetFlag)) << "record " << i;
      EXPECT_EQ(rec[1], want[i].second) << "record " << i << " pipe";
    }
  }
}

//===----------------------------------------------------------------------===//
// (1) fp16 elementwise add: 8 blocks x 4 iterations x 2048 elements
//===----------------------------------------------------------------------===//

const char *kAdd = R"mlir(
module attributes {dv.soc = "Ascend310P3"} {
  dv.kernel @add(%x: !dv.gm<65536xf16>, %y: !dv.gm<65536xf16>, %z: !dv.gm<65536xf16>)
      attributes {block_dim = 8 : i64, kind = "vector"} {
    %bid = dv.block_idx
    %ux = dv.alloc offset 0 : !dv.buf<ub, 2048xf16>
    %uy = dv.alloc offset 4096 : !dv.buf<ub, 2048xf16>
    %uz = dv.alloc offset 8192 : !dv.buf<ub, 2048xf16>
    dv.set_flag V -> MTE2 event 0
    dv.set_flag MTE3 -> V event 0
    dv.loop %i trip 4 {
      %xs = dv.view %x[%bid * 8192 + %i * 2048] : !dv.gm<65536xf16> to !dv.gm<2048xf16>
      %ys = dv.view %y[%bid * 8192 + %i * 2048] : !dv.gm<65536xf16> to !dv.gm<2048xf16>
      %zs = dv.view %z[%bid * 8192 + %i * 2048] : !dv.gm<65536xf16> to !dv.gm<2048xf16>
      dv.wait_flag V -> MTE2 event 0
      dv.copy %xs to %ux {burst_bytes = 4096} : !dv.gm<2048xf16> to !dv.buf<ub, 2048xf16>
      dv.copy %ys to %uy {burst_bytes = 4096} : !dv.gm<2048xf16> to !dv.buf<ub, 2048xf16>
      dv.set_flag MTE2 -> V event 0
      dv.wait_flag MTE2 -> V event 0
      dv.wait_flag MTE3 -> V event 0
      dv.vadd %ux, %uy to %uz {repeat = 16} : !dv.buf<ub, 2048xf16>, !dv.buf<ub, 2048xf16> to !dv.buf<ub, 2048xf16>
      dv.set_flag V -> MTE2 event 0
      dv.set_flag V -> MTE3 event 0
      dv.wait_flag V -> MTE3 event 0
      dv.copy %uz to %zs {burst_bytes = 4096} : !dv.buf<ub, 2048xf16> to !dv.gm<2048xf16>
      dv.set_flag MTE3 -> V event 0
    }
    dv.wait_flag V -> MTE2 event 0
    dv.wait_flag MTE3 -> V event 0
    dv.return
  }
}
)mlir";

TEST(Encode, ElementwiseAddRuns) {
  EncodedKernel k = encodeOk(kAdd);
  ASSERT_FALSE(k.program.empty());
  EXPECT_EQ(k.name, "add");
  EXPECT_EQ(k.num_args, 3u);
  EXPECT_EQ(k.block_dim, 8u);
  EXPECT_EQ(k.kind, "vector");
  EXPECT_EQ(k.soc, "Ascend310P3");
  EXPECT_EQ(k.instruction_count, 4u + 2u + 12u);
  const size_t n = 65536;
  auto x = randomF16(n, 1), y = randomF16(n, 2);
  std::vector<uint16_t> z(n, 0xFFFF);
  sim::KernelProfile profile;
  run(k, {region(x, false), region(y, false), region(z, true)}, &profile);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(z[i], sim::f32ToF16(sim::f16ToF32(x[i]) + sim::f16ToF32(y[i]))) << "element " << i;
  EXPECT_EQ(profile.gm_bytes_read, 2 * n * 2);
  EXPECT_EQ(profile.gm_bytes_written, n * 2);
}

// The encoder's bytes equal what the hand assembler emits for the same kernel.
TEST(Encode, ElementwiseAddMatchesAssembler) {
  EncodedKernel k = encodeOk(kAdd);
  using sim::Addr;
  using sim::Pipe;
  sim::ProgramBuilder b;
  b.setFlag(Pipe::V, Pipe::MTE2, 0);
  b.setFlag(Pipe::MTE3, Pipe::V, 0);
  unsigned i = b.loopBegin(4);
  auto gm = [&](uint8_t arg) { return Addr::gm(arg).block(16384).iv(i, 4096); };
  b.waitFlag(Pipe::V, Pipe::MTE2, 0);
  b.copy(Addr::ub(0), gm(0), sim::Burst::contiguous(4096));
  b.copy(Addr::ub(4096), gm(1), sim::Burst::contiguous(4096));
  b.setFlag(Pipe::MTE2, Pipe::V, 0);
  b.waitFlag(Pipe::MTE2, Pipe::V, 0);
  b.waitFlag(Pipe::MTE3, Pipe::V, 0);
  b.vbinary(sim::Opcode::VAdd, sim::DType::F16, Addr::ub(8192), Addr::ub(0), Addr::ub(4096),
            sim::VecParams::dense(sim::DType::F16, 16));
  b.setFlag(Pipe::V, Pipe::MTE2, 0);
  b.setFlag(Pipe::V, Pipe::MTE3, 0);
  b.waitFlag(Pipe::V, Pipe::MTE3, 0);
  b.copy(gm(2), Addr::ub(8192), sim::Burst::contiguous(4096));
  b.setFlag(Pipe::MTE3, Pipe::V, 0);
  b.loopEnd();
  b.waitFlag(Pipe::V, Pipe::MTE2, 0);
  b.waitFlag(Pipe::MTE3, Pipe::V, 0);
  ASSERT_EQ(b.error(), "");
  EXPECT_EQ(k.program, b.finish());
}

TEST(Encode, ElementwiseAddRoundTrip) { roundTrip(kAdd); }


//===----------------------------------------------------------------------===//
// (2) fp16 matmul through L1 -> L0A/L0B -> mmad -> L0C -> UB -> GM
//===----------------------------------------------------------------------===//

// C (64 x 32) = A (64 x 96) x B (96 x 32), fp16 in and out, fp32 in L0C. Two
// blocks of 32 rows each; K in three steps of 32 (the first initialises L0C,
// the other two accumulate in a dv.loop whose views walk the L1 panels).
// Single-buffered, so every buffer reuse waits on its consumer's flag.
const char *kMatmul = R"mlir(
module attributes {dv.soc = "Ascend310P3"} {
  dv.kernel @mm(%a: !dv.gm<64x96xf16>, %b: !dv.gm<96x32xf16>, %c: !dv.gm<64x32xf16>)
      attributes {block_dim = 2 : i64, kind = "cube"} {
    %bid = dv.block_idx
    %l1b = dv.alloc offset 0 : !dv.buf<l1, 96x32xf16, nz>
    %l1a = dv.alloc offset 6144 : !dv.buf<l1, 32x96xf16, nz>
    %l0a = dv.alloc offset 0 : !dv.buf<l0a, 32x32xf16, nz>
    %l0b = dv.alloc offset 0 : !dv.buf<l0b, 32x32xf16, nz>
    %l0c = dv.alloc offset 0 : !dv.buf<l0c, 32x32xf32, nz>
    %ub = dv.alloc offset 0 : !dv.buf<ub, 32x32xf16, nz>
    %ga = dv.view %a[%bid * 3072] : !dv.gm<64x96xf16> to !dv.gm<32x96xf16>
    %gc = dv.view %c[%bid * 1024] : !dv.gm<64x32xf16> to !dv.gm<32x32xf16>
    dv.copy_nd2nz %b to %l1b {rows = 96, cols = 32, src_row_stride = 32, dst_rows = 96, dst_cols = 32} : !dv.gm<96x32xf16> to !dv.buf<l1, 96x32xf16, nz>
    dv.copy_nd2nz %ga to %l1a {rows = 32, cols = 96, src_row_stride = 96, dst_rows = 32, dst_cols = 96} : !dv.gm<32x96xf16> to !dv.buf<l1, 32x96xf16, nz>
    dv.set_flag MTE2 -> MTE1 event 0
    dv.wait_flag MTE2 -> MTE1 event 0
    dv.load_fractals %l1a to %l0a {outer = 2, inner = 2, src_outer_stride = 1, src_inner_stride = 2, dst_outer_stride = 2, dst_inner_stride = 1} : !dv.buf<l1, 32x96xf16, nz> to !dv.buf<l0a, 32x32xf16, nz>
    dv.load_fractals %l1b to %l0b {outer = 2, inner = 2, src_outer_stride = 1, src_inner_stride = 6, dst_outer_stride = 2, dst_inner_stride = 1, transpose} : !dv.buf<l1, 96x32xf16, nz> to !dv.buf<l0b, 32x32xf16, nz>
    dv.set_flag MTE1 -> M event 0
    dv.wait_flag MTE1 -> M event 0
    dv.mmad %l0a, %l0b to %l0c {m = 32, n = 32, k = 32, init} : !dv.buf<l0a, 32x32xf16, nz>, !dv.buf<l0b, 32x32xf16, nz> to !dv.buf<l0c, 32x32xf32, nz>
    dv.set_flag M -> MTE1 event 0
    dv.loop %k trip 2 {
      %as = dv.view %l1a[%k * 1024 + 1024] : !dv.buf<l1, 32x96xf16, nz> to !dv.buf<l1, 32x32xf16, nz>
      %bs = dv.view %l1b[%k * 512 + 512] : !dv.buf<l1, 96x32xf16, nz> to !dv.buf<l1, 2048xf16>
      dv.wait_flag M -> MTE1 event 0
      dv.load_fractals %as to %l0a {outer = 2, inner = 2, src_outer_stride = 1, src_inner_stride = 2, dst_outer_stride = 2, dst_inner_stride = 1} : !dv.buf<l1, 32x32xf16, nz> to !dv.buf<l0a, 32x32xf16, nz>
      dv.load_fractals %bs to %l0b {outer = 2, inner = 2, src_outer_stride = 1, src_inner_stride = 6, dst_outer_stride = 2, dst_inner_stride = 1, transpose} : !dv.buf<l1, 2048xf16> to !dv.buf<l0b, 32x32xf16, nz>
      dv.set_flag MTE1 -> M event 0
      dv.wait_flag MTE1 -> M event 0
      dv.mmad %l0a, %l0b to %l0c {m = 32, n = 32, k = 32} : !dv.buf<l0a, 32x32xf16, nz>, !dv.buf<l0b, 32x32xf16, nz> to !dv.buf<l0c, 32x32xf32, nz>
      dv.set_flag M -> MTE1 event 0
    }
    dv.wait_flag M -> MTE1 event 0
    dv.set_flag M -> V event 0
    dv.wait_flag M -> V event 0
    dv.move_l0c_ub %l0c to %ub {burst_elems = 1024} : !dv.buf<l0c, 32x32xf32, nz> to !dv.buf<ub, 32x32xf16, nz>
    dv.set_flag V -> MTE3 event 0
    dv.wait_flag V -> MTE3 event 0
    dv.copy_nz2nd %ub to %gc {rows = 32, cols = 32, dst_row_stride = 32, src_rows = 32} : !dv.buf<ub, 32x32xf16, nz> to !dv.gm<32x32xf16>
    dv.return
  }
}
)mlir";

TEST(Encode, MatmulRuns) {
  EncodedKernel k = encodeOk(kMatmul);
  ASSERT_FALSE(k.program.empty());
  EXPECT_EQ(k.kind, "cube");
  const int M = 64, N = 32, K = 96;
  auto a = randomF16(M * K, 3, -1.f, 1.f), b = randomF16(K * N, 4, -1.f, 1.f);
  std::vector<uint16_t> c(M * N, 0xFFFF);
  sim::KernelProfile profile;
  run(k, {region(a, false), region(b, false), region(c, true)}, &profile);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int kk = 0; kk < K; ++kk)
        ref += double(sim::f16ToF32(a[i * K + kk])) * sim::f16ToF32(b[kk * N + j]);
      float got = sim::f16ToF32(c[i * N + j]);
      ASSERT_NEAR(got, ref, 1e-3 + std::fabs(ref) * 1e-3) << "C[" << i << "][" << j << "]";
    }
  // 2 blocks x 3 mmads of 2x2x2 fractals.
  EXPECT_EQ(profile.cube_fractal_ops, 2u * 3u * 8u);
}

TEST(Encode, MatmulRoundTrip) { roundTrip(kMatmul); }

//===----------------------------------------------------------------------===//
// (3) row softmax of fp32 rows of 64 with vcmax/vcadd + vbrcb
//===----------------------------------------------------------------------===//

// y = softmax(0.5 * x) per row; 64 rows over 2 blocks, 16 rows per iteration
// (one 64-lane fp32 repeat per row).
const char *kSoftmax = R"mlir(
module attributes {dv.soc = "Ascend310P3"} {
  dv.kernel @softmax(%x: !dv.gm<64x64xf32>, %y: !dv.gm<64x64xf32>)
      attributes {block_dim = 2 : i64, kind = "vector"} {
    %bid = dv.block_idx
    %ux = dv.alloc offset 0 : !dv.buf<ub, 16x64xf32>
    %mx = dv.alloc offset 4096 : !dv.buf<ub, 16xf32>
    %bm = dv.alloc offset 8192 : !dv.buf<ub, 16x64xf32>
    %s = dv.alloc offset 12288 : !dv.buf<ub, 16xf32>
    %bs = dv.alloc offset 16384 : !dv.buf<ub, 16x64xf32>
    %uy = dv.alloc offset 20480 : !dv.buf<ub, 16x64xf32>
    dv.set_flag V -> MTE2 event 0
    dv.set_flag MTE3 -> V event 0
    dv.loop %i trip 2 {
      %xs = dv.view %x[%bid * 2048 + %i * 1024] : !dv.gm<64x64xf32> to !dv.gm<16x64xf32>
      %ys = dv.view %y[%bid * 2048 + %i * 1024] : !dv.gm<64x64xf32> to !dv.gm<16x64xf32>
      dv.wait_flag V -> MTE2 event 0
      dv.copy %xs to %ux {burst_bytes = 4096} : !dv.gm<16x64xf32> to !dv.buf<ub, 16x64xf32>
      dv.set_flag MTE2 -> V event 0
      dv.wait_flag MTE2 -> V event 0
      dv.wait_flag MTE3 -> V event 0
      dv.vmuls %ux, 0.5 : f32 to %ux {repeat = 16} : !dv.buf<ub, 16x64xf32> to !dv.buf<ub, 16x64xf32>
      dv.vcmax %ux to %mx {repeat = 16} : !dv.buf<ub, 16x64xf32> to !dv.buf<ub, 16xf32>
      dv.vbrcb %mx to %bm {repeat = 16} : !dv.buf<ub, 16xf32> to !dv.buf<ub, 16x64xf32>
      dv.vsub %ux, %bm to %ux {repeat = 16} : !dv.buf<ub, 16x64xf32>, !dv.buf<ub, 16x64xf32> to !dv.buf<ub, 16x64xf32>
      dv.vexp %ux to %ux {repeat = 16} : !dv.buf<ub, 16x64xf32> to !dv.buf<ub, 16x64xf32>
      dv.vcadd %ux to %s {repeat = 16} : !dv.buf<ub, 16x64xf32> to !dv.buf<ub, 16xf32>
      dv.vbrcb %s to %bs {repeat = 16} : !dv.buf<ub, 16xf32> to !dv.buf<ub, 16x64xf32>
      dv.vdiv %ux, %bs to %uy {repeat = 16} : !dv.buf<ub, 16x64xf32>, !dv.buf<ub, 16x64xf32> to !dv.buf<ub, 16x64xf32>
      dv.set_flag V -> MTE2 event 0
      dv.set_flag V -> MTE3 event 0
      dv.wait_flag V -> MTE3 event 0
      dv.copy %uy to %ys {burst_bytes = 4096} : !dv.buf<ub, 16x64xf32> to !dv.gm<16x64xf32>
      dv.set_flag MTE3 -> V event 0
    }
    dv.wait_flag V -> MTE2 event 0
    dv.wait_flag MTE3 -> V event 0
    dv.return
  }
}
)mlir";

TEST(Encode, SoftmaxRuns) {
  EncodedKernel k = encodeOk(kSoftmax);
  ASSERT_FALSE(k.program.empty());
  const int R = 64, C = 64;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> d(-8.f, 8.f);
  std::vector<float> x(R * C), y(R * C, -1.f);
  for (float &v : x) v = d(rng);
  run(k, {region(x, false), region(y, true)});
  for (int r = 0; r < R; ++r) {
    float mx = -INFINITY;
    for (int c = 0; c < C; ++c) mx = std::max(mx, x[r * C + c] * 0.5f);
    double sum = 0;
    for (int c = 0; c < C; ++c) sum += std::exp(double(x[r * C + c] * 0.5f - mx));
    double rowSum = 0;
    for (int c = 0; c < C; ++c) {
      double ref = std::exp(double(x[r * C + c] * 0.5f - mx)) / sum;
      ASSERT_NEAR(y[r * C + c], ref, 1e-6 + ref * 1e-5) << "y[" << r << "][" << c << "]";
      rowSum += y[r * C + c];
    }
    EXPECT_NEAR(rowSum, 1.0, 1e-5);
  }
}

TEST(Encode, SoftmaxRoundTrip) { roundTrip(kSoftmax); }

//===----------------------------------------------------------------------===//
// Views: chains and 2-D block grids fold into one operand address
//===----------------------------------------------------------------------===//

// Block b copies x[b*256, +256) to y at 0, 256, 768, 1024 for b = 0..3: the
// x address is a view chain (b floordiv 2) * 512 then (b mod 2) * 256; the y
// address mixes a split view (b floordiv 2) * 256 with a whole-block_idx view
// b * 256 of it, which the ISA spells as G = 2, col = 256, row = 2*256 + 256.
const char *kGridCopy = R"mlir(
dv.kernel @grid(%x: !dv.gm<1024xf16>, %y: !dv.gm<1280xf16>)
    attributes {block_dim = 4 : i64, kind = "vector"} {
  %bid = dv.block_idx
  %u = dv.alloc offset 0 : !dv.buf<ub, 256xf16>
  %x1 = dv.view %x[(%bid floordiv 2) * 512] : !dv.gm<1024xf16> to !dv.gm<512xf16>
  %x2 = dv.view %x1[(%bid mod 2) * 256] : !dv.gm<512xf16> to !dv.gm<256xf16>
  %y1 = dv.view %y[(%bid floordiv 2) * 256] : !dv.gm<1280xf16> to !dv.gm<1024xf16>
  %y2 = dv.view %y1[%bid * 256] : !dv.gm<1024xf16> to !dv.gm<256xf16>
  dv.copy %x2 to %u {burst_bytes = 512} : !dv.gm<256xf16> to !dv.buf<ub, 256xf16>
  dv.set_flag MTE2 -> MTE3 event 0
  dv.wait_flag MTE2 -> MTE3 event 0
  dv.copy %u to %y2 {burst_bytes = 512} : !dv.buf<ub, 256xf16> to !dv.gm<256xf16>
  dv.return
}
)mlir";

TEST(Encode, ViewChainsAndBlockGridRun) {
  EncodedKernel k = encodeOk(kGridCopy);
  ASSERT_FALSE(k.program.empty());
  std::vector<uint16_t> x(1024), y(1280, 0);
  for (size_t i = 0; i < x.size(); ++i) x[i] = uint16_t(i + 1);
  run(k, {region(x, false), region(y, true)});
  const size_t at[4] = {0, 256, 768, 1024};
  std::vector<uint16_t> want(1280, 0);
  for (size_t b = 0; b < 4; ++b)
    for (size_t i = 0; i < 256; ++i) want[at[b] + i] = x[b * 256 + i];
  EXPECT_EQ(y, want);
}

//===----------------------------------------------------------------------===//
// (4) What the ISA cannot express: one-line errors naming the op
//===----------------------------------------------------------------------===//

TEST(EncodeError, UnplacedAlloc) {
  std::string e = encodeError(R"mlir(
dv.kernel @k(%x: !dv.gm<2048xf16>) attributes {block_dim = 1 : i64, kind = "vector"} {
  %u = dv.alloc : !dv.buf<ub, 2048xf16>
  dv.copy %x to %u {burst_bytes = 4096} : !dv.gm<2048xf16> to !dv.buf<ub, 2048xf16>
  dv.return
}
)mlir");
  EXPECT_NE(e.find("'dv.alloc' op"), std::string::npos) << e;
  EXPECT_NE(e.find("run the buffer allocation pass first"), std::string::npos) << e;
}

// Each view verifies alone, but the chain needs two block splits (G = 4 and
// G = 2) in one operand; the ISA has one.
TEST(EncodeError, TwoBlockSplitsInOneViewChain) {
  std::string e = encodeError(R"mlir(
dv.kernel @k(%x: !dv.gm<8192xf16>) attributes {block_dim = 8 : i64, kind = "vector"} {
  %bid = dv.block_idx
  %u = dv.alloc offset 0 : !dv.buf<ub, 256xf16>
  %v1 = dv.view %x[(%bid mod 4) * 1024] : !dv.gm<8192xf16> to !dv.gm<4096xf16>
  %v2 = dv.view %v1[(%bid mod 2) * 256] : !dv.gm<4096xf16> to !dv.gm<256xf16>
  dv.copy %v2 to %u {burst_bytes = 512} : !dv.gm<256xf16> to !dv.buf<ub, 256xf16>
  dv.return
}
)mlir");
  EXPECT_NE(e.find("'dv.view' op"), std::string::npos) << e;
  EXPECT_NE(e.find("one G per operand"), std::string::npos) << e;
}

// A GM loop stride of 2^31 bytes verifies (the GM type is large enough) but
// does not fit the ISA's i32 coefficient.
TEST(EncodeError, CoefficientBeyondI32) {
  std::string e = encodeError(R"mlir(
dv.kernel @k(%x: !dv.gm<2147483648xf16>) attributes {block_dim = 1 : i64, kind = "vector"} {
  %u = dv.alloc offset 0 : !dv.buf<ub, 256xf16>
  dv.loop %i trip 2 {
    %v = dv.view %x[%i * 1073741824] : !dv.gm<2147483648xf16> to !dv.gm<256xf16>
    dv.copy %v to %u {burst_bytes = 512} : !dv.gm<256xf16> to !dv.buf<ub, 256xf16>
  }
  dv.return
}
)mlir");
  EXPECT_NE(e.find("'dv.copy' op"), std::string::npos) << e;
  EXPECT_NE(e.find("does not fit the ISA's i32"), std::string::npos) << e;
}

// block_idx mod G with G > 65535 verifies; the ISA's G is a u16.
TEST(EncodeError, BlockSplitBeyondU16) {
  std::string e = encodeError(R"mlir(
dv.kernel @k(%x: !dv.gm<512xf16>) attributes {block_dim = 2 : i64, kind = "vector"} {
  %bid = dv.block_idx
  %u = dv.alloc offset 0 : !dv.buf<ub, 256xf16>
  %v = dv.view %x[(%bid mod 70000) * 256] : !dv.gm<512xf16> to !dv.gm<256xf16>
  dv.copy %v to %u {burst_bytes = 512} : !dv.gm<256xf16> to !dv.buf<ub, 256xf16>
  dv.return
}
)mlir");
  EXPECT_NE(e.find("'dv.copy' op"), std::string::npos) << e;
  EXPECT_NE(e.find("exceeds the ISA's 65535"), std::string::npos) << e;
}

// Loops of 2^24 x 8 iterations verify, but run past the ISA's 2^26 dynamic
// instructions per block: the decoder self-check refuses the program.
TEST(EncodeError, DynamicInstructionCap) {
  std::string e = encodeError(R"mlir(
dv.kernel @k() attributes {block_dim = 1 : i64, kind = "vector"} {
  dv.loop %i trip 16777216 {
    dv.loop %j trip 8 {
      dv.pipe_barrier V
    }
  }
  dv.return
}
)mlir");
  EXPECT_NE(e.find("decoder rejects"), std::string::npos) << e;
}

// A UB -> UB copy whose source and destination overlap verifies in dv; the
// ISA refuses it (no ordering within one transfer), caught by the decoder
// self-check and reported on the copy.
TEST(EncodeError, OverlappingUbCopy) {
  std::string e = encodeError(R"mlir(
dv.kernel @k() attributes {block_dim = 1 : i64, kind = "vector"} {
  %u = dv.alloc offset 0 : !dv.buf<ub, 512xf16>
  %a = dv.view %u[0] : !dv.buf<ub, 512xf16> to !dv.buf<ub, 256xf16>
  %b = dv.view %u[16] : !dv.buf<ub, 512xf16> to !dv.buf<ub, 256xf16>
  dv.copy %a to %b {burst_bytes = 512} : !dv.buf<ub, 256xf16> to !dv.buf<ub, 256xf16>
  dv.return
}
)mlir");
  EXPECT_NE(e.find("'dv.copy' op"), std::string::npos) << e;
  EXPECT_NE(e.find("overlap"), std::string::npos) << e;
}

// Ops of other dialects have no ISA encoding.
TEST(EncodeError, ForeignOp) {
  std::string e = encodeError(R"mlir(
dv.kernel @k() attributes {block_dim = 1 : i64, kind = "vector"} {
  "test.foo"() : () -> ()
  dv.return
}
)mlir",
                              /*allowUnregistered=*/true);
  EXPECT_NE(e.find("'test.foo' op has no ISA encoding"), std::string::npos) << e;
}


//===----------------------------------------------------------------------===//
// load_3d: a 3x3 conv of 16 channels over a 5x7 map with different strides,
// pads and dilations along w and h (so that a swapped pair shows), im2col
// by one load_3d a tap into L0A, weights in FRACTAL_Z in L0B, against a
// scalar conv
//===----------------------------------------------------------------------===//

// Geometry: H 5, W 7, stride w 2 / h 1, dilation w 1 / h 2, pads left 1,
// right 0, top 2, bottom 1: Wo = (7 + 1 - 3) / 2 + 1 = 3, Ho = (5 + 3 - 5) + 1 = 4.
const char *kConvLoad3d = R"mlir(
module attributes {dv.soc = "Ascend310P3"} {
  dv.kernel @conv(%x: !dv.gm<1x5x7x16xf16>, %w: !dv.gm<9x16x16xf16>, %y: !dv.gm<16x16xf16>)
      attributes {block_dim = 1 : i64, kind = "cube"} {
    %map = dv.alloc offset 0 : !dv.buf<l1, 1x5x7x16xf16, nc1hwc0>
    %a = dv.alloc offset 0 : !dv.buf<l0a, 16x144xf16, nz>
    %b = dv.alloc offset 0 : !dv.buf<l0b, 144x16xf16, nz>
    %c = dv.alloc offset 0 : !dv.buf<l0c, 16x16xf32, nz>
    %u = dv.alloc offset 0 : !dv.buf<ub, 16x16xf16, nz>
    dv.copy %x to %map {burst_bytes = 1120} : !dv.gm<1x5x7x16xf16> to !dv.buf<l1, 1x5x7x16xf16, nc1hwc0>
    dv.copy %w to %b {burst_bytes = 4608} : !dv.gm<9x16x16xf16> to !dv.buf<l0b, 144x16xf16, nz>
    dv.set_flag MTE2 -> MTE1 event 0
    dv.wait_flag MTE2 -> MTE1 event 0
    dv.load_3d taps %map to %a {fmap_h = 5, fmap_w = 7, pads = array<i64: 1, 0, 2, 1>, filter = array<i64: 3, 3>, strides = array<i64: 2, 1>, dilations = array<i64: 1, 2>, first_tap = array<i64: 0, 0>, left_top = array<i64: -1, -2>,  repeat = 9, pad_value = 0.5 : f32} : !dv.buf<l1, 1x5x7x16xf16, nc1hwc0> to !dv.buf<l0a, 16x144xf16, nz>
    dv.set_flag MTE1 -> M event 0
    dv.wait_flag MTE1 -> M event 0
    dv.set_flag MTE2 -> M event 0
    dv.wait_flag MTE2 -> M event 0
    dv.mmad %a, %b to %c {m = 16, n = 16, k = 144, init} : !dv.buf<l0a, 16x144xf16, nz>, !dv.buf<l0b, 144x16xf16, nz> to !dv.buf<l0c, 16x16xf32, nz>
    dv.set_flag M -> V event 0
    dv.wait_flag M -> V event 0
    dv.move_l0c_ub %c to %u {burst_elems = 256} : !dv.buf<l0c, 16x16xf32, nz> to !dv.buf<ub, 16x16xf16, nz>
    dv.set_flag V -> MTE3 event 0
    dv.wait_flag V -> MTE3 event 0
    dv.copy %u to %y {burst_bytes = 512} : !dv.buf<ub, 16x16xf16, nz> to !dv.gm<16x16xf16>
    dv.return
  }
}
)mlir";

TEST(Encode, Load3dConvRuns) {
  EncodedKernel k = encodeOk(kConvLoad3d);
  ASSERT_FALSE(k.program.empty());
  const int H = 5, W = 7, C = 16, OC = 16, Ho = 4, Wo = 3;
  const int sw = 2, sh = 1, dw = 1, dh = 2, left = 1, top = 2;
  const float pad = 0.5f;
  auto x = randomF16(H * W * C, 3);  // NC1HWC0 of one plane: [h][w][c]
  auto w = randomF16(OC * C * 9, 4); // [oc][c][kh][kw]
  // FRACTAL_Z: [kh * 3 + kw][oc][c] (one plane, one 16-column block).
  std::vector<uint16_t> wz(9 * OC * C);
  for (int oc = 0; oc < OC; ++oc)
    for (int c = 0; c < C; ++c)
      for (int t = 0; t < 9; ++t) wz[(t * OC + oc) * C + c] = w[(oc * C + c) * 9 + t];
  std::vector<uint16_t> y(16 * 16, 0xFFFF);
  run(k, {region(x, false), region(wz, false), region(y, true)});
  for (int oh = 0; oh < Ho; ++oh)
    for (int ow = 0; ow < Wo; ++ow)
      for (int oc = 0; oc < OC; ++oc) {
        double want = 0;
        for (int c = 0; c < C; ++c)
          for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw) {
              int ih = oh * sh - top + kh * dh, iw = ow * sw - left + kw * dw;
              float v = ih < 0 || iw < 0 || ih >= H || iw >= W ? pad
                                                               : sim::f16ToF32(x[(ih * W + iw) * C + c]);
              want += double(v) * sim::f16ToF32(w[(oc * C + c) * 9 + kh * 3 + kw]);
            }
        float got = sim::f16ToF32(y[(oh * Wo + ow) * 16 + oc]);
        ASSERT_NEAR(got, want, 2e-2 + 2e-3 * std::fabs(want)) << "position (" << oh << ", " << ow << ") channel " << oc;
      }
}

TEST(Encode, Load3dRoundTrip) { roundTrip(kConvLoad3d); }

//===----------------------------------------------------------------------===//
// Every dv op: the kernels of test/lit/dv/ops.mlir (one per op, with the
// verifier's near-misses) encode, and the decoder accepts them
//===----------------------------------------------------------------------===//

TEST(Encode, EveryOpOfTheLitRoundTripEncodes) {
  std::ifstream in(VINCI_SOURCE_DIR "/test/lit/dv/ops.mlir");
  ASSERT_TRUE(in) << "cannot read test/lit/dv/ops.mlir";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string all = ss.str();
  std::set<int> opcodes;
  int encoded = 0, unplaced = 0;
  size_t pos = 0;
  while (pos <= all.size()) {
    size_t next = all.find("// -----", pos);
    std::string chunk = all.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    pos = next == std::string::npos ? all.size() + 1 : next + 8;
    Parsed p = parse(chunk);
    ASSERT_TRUE(p.module) << chunk;
    for (dv::KernelOp kernel : p.module->getOps<dv::KernelOp>()) {
      EncodedKernel k;
      std::string error;
      if (!encodeKernel(kernel, k, error)) {
        EXPECT_NE(error.find("run the buffer allocation pass first"), std::string::npos)
            << "@" << kernel.getSymName().str() << ": " << error;
        ++unplaced;
        continue;
      }
      ++encoded;
      std::vector<std::pair<int, int>> want;
      expectedRecords(kernel.getBody().front(), want);
      EXPECT_EQ(k.instruction_count, want.size()) << "@" << kernel.getSymName().str();
      for (uint32_t i = 0; i < k.instruction_count; ++i)
        opcodes.insert(k.program[sim::kHeaderBytes + i * sim::kRecordBytes]);
    }
  }
  EXPECT_GE(encoded, 6);
  // Every opcode but nop appears (nop has no dv op).
  std::vector<int> all_ops = {1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16, 20, 21};
  for (int op = 30; op <= 37; ++op) all_ops.push_back(op);
  for (int op = 40; op <= 44; ++op) all_ops.push_back(op);
  for (int op = 50; op <= 57; ++op) all_ops.push_back(op);
  for (int op = 60; op <= 70; ++op) all_ops.push_back(op);
  for (int op : all_ops)
    EXPECT_TRUE(opcodes.count(op)) << sim::opcodeName(sim::Opcode(op)) << " never encoded ("
                                   << encoded << " kernels encoded, " << unplaced << " unplaced)";
}

//===----------------------------------------------------------------------===//
// Vector parameters end to end: scalars, masks, strides, compare/select,
// conversion, across-repeat reduction
//===----------------------------------------------------------------------===//

const char *kVectorZoo = R"mlir(
dv.kernel @zoo(%x: !dv.gm<128xf32>, %y0: !dv.gm<64xf32>, %y1: !dv.gm<64xf32>, %y2: !dv.gm<64xf16>,
               %y3: !dv.gm<64xf32>, %y4: !dv.gm<8xf32>, %y5: !dv.gm<64xf32>)
    attributes {block_dim = 1 : i64, kind = "vector"} {
  %ux = dv.alloc offset 0 : !dv.buf<ub, 128xf32>
  %m = dv.alloc offset 512 : !dv.buf<ub, 32xui8>
  %d = dv.alloc offset 1024 : !dv.buf<ub, 64xf32>
  %u0 = dv.alloc offset 1280 : !dv.buf<ub, 64xf32>
  %u1 = dv.alloc offset 1536 : !dv.buf<ub, 64xf32>
  %u2 = dv.alloc offset 1792 : !dv.buf<ub, 64xf16>
  %u3 = dv.alloc offset 2048 : !dv.buf<ub, 64xf32>
  %u4 = dv.alloc offset 2304 : !dv.buf<ub, 8xf32>
  %u5 = dv.alloc offset 2560 : !dv.buf<ub, 64xf32>
  dv.copy %x to %ux {burst_bytes = 512} : !dv.gm<128xf32> to !dv.buf<ub, 128xf32>
  dv.set_flag MTE2 -> V event 0
  dv.wait_flag MTE2 -> V event 0
  // y0 = x > 0 ? x : -1
  dv.vcmps gt %ux, 0.0 : f32 to %m {repeat = 1} : !dv.buf<ub, 128xf32> to !dv.buf<ub, 32xui8>
  dv.vdup -1.0 : f32 to %d {repeat = 1} : !dv.buf<ub, 64xf32>
  dv.vsel %ux, %d, %m to %u0 {repeat = 1} : !dv.buf<ub, 128xf32>, !dv.buf<ub, 64xf32>, !dv.buf<ub, 32xui8> to !dv.buf<ub, 64xf32>
  // y1 = x * 2 + 1
  dv.vdup 1.0 : f32 to %u1 {repeat = 1} : !dv.buf<ub, 64xf32>
  dv.vaxpy %ux, 2.0 : f32 to %u1 {repeat = 1} : !dv.buf<ub, 128xf32> to !dv.buf<ub, 64xf32>
  // y2 = f16(x)
  dv.vconv %ux to %u2 {repeat = 1} : !dv.buf<ub, 128xf32> to !dv.buf<ub, 64xf16>
  // y3 = lanes 0..15: x + 10, others 0
  dv.vdup 0.0 : f32 to %u3 {repeat = 1} : !dv.buf<ub, 64xf32>
  dv.vadds %ux, 10.0 : f32 to %u3 {repeat = 1, mask = array<i64: 65535, 0>} : !dv.buf<ub, 128xf32> to !dv.buf<ub, 64xf32>
  // y4[0] = sum of all 128 (two repeats, one result)
  dv.vcadd %ux to %u4 {repeat = 2, across_repeats} : !dv.buf<ub, 128xf32> to !dv.buf<ub, 8xf32>
  // y5 = every other 32-byte block of x (src0 block stride 2)
  dv.vcopy %ux to %u5 {repeat = 1, blk = array<i64: 1, 2>} : !dv.buf<ub, 128xf32> to !dv.buf<ub, 64xf32>
  dv.set_flag V -> MTE3 event 0
  dv.wait_flag V -> MTE3 event 0
  dv.copy %u0 to %y0 {burst_bytes = 256} : !dv.buf<ub, 64xf32> to !dv.gm<64xf32>
  dv.copy %u1 to %y1 {burst_bytes = 256} : !dv.buf<ub, 64xf32> to !dv.gm<64xf32>
  dv.copy %u2 to %y2 {burst_bytes = 128} : !dv.buf<ub, 64xf16> to !dv.gm<64xf16>
  dv.copy %u3 to %y3 {burst_bytes = 256} : !dv.buf<ub, 64xf32> to !dv.gm<64xf32>
  dv.copy %u4 to %y4 {burst_bytes = 32} : !dv.buf<ub, 8xf32> to !dv.gm<8xf32>
  dv.copy %u5 to %y5 {burst_bytes = 256} : !dv.buf<ub, 64xf32> to !dv.gm<64xf32>
  dv.return
}
)mlir";

TEST(Encode, VectorParametersRun) {
  EncodedKernel k = encodeOk(kVectorZoo);
  ASSERT_FALSE(k.program.empty());
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-4.f, 4.f);
  std::vector<float> x(128), y0(64), y1(64), y3(64), y4(8), y5(64);
  std::vector<uint16_t> y2(64);
  for (float &v : x) v = d(rng);
  run(k, {region(x, false), region(y0, true), region(y1, true), region(y2, true), region(y3, true),
          region(y4, true), region(y5, true)});
  float sum = 0;
  for (float v : x) sum += v;
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(y0[i], x[i] > 0 ? x[i] : -1.f) << i;
    EXPECT_EQ(y1[i], float(x[i] * 2.f) + 1.f) << i;
    EXPECT_EQ(y2[i], sim::f32ToF16(x[i])) << i;
    EXPECT_EQ(y3[i], i < 16 ? x[i] + 10.f : 0.f) << i;
    EXPECT_EQ(y5[i], x[(i / 8) * 16 + i % 8]) << i;
  }
  EXPECT_NEAR(y4[0], sum, 1e-4);
}

TEST(Encode, VectorParametersRoundTrip) { roundTrip(kVectorZoo); }
}  // namespace
