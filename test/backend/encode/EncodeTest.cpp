// Tests of the dv -> ISA encoder (backend/encode): dv kernels parsed from
// MLIR text are encoded, decoded and run on the simulator (hazards fatal),
// and compared with scalar references; plus the errors for what the ISA
// cannot express, and an encode/decode round trip of the record sequence.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
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

// Encodes `text` and expects an error containing `what`.
std::string encodeError(const std::string &text, bool allowUnregistered = false) {
  Parsed p = parse(text, allowUnregistered);
  EXPECT_TRUE(p.module) << "does not parse/verify";
  if (!p.module) return "";
  EncodedKernel k;
  std::string error;
  EXPECT_FALSE(encodeKernel(p.kernel(), k, error));
  EXPECT_EQ(error.find('\n'), std::string::npos) << "error must be one line: " << error;
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

}  // namespace
