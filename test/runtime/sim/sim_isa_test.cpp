// The program encoding and the decoder's validation of untrusted bytes.
#include <random>

#include "sim_test_util.h"

namespace vinci::sim::test {
namespace {

std::vector<uint8_t> smallProgram() {
  ProgramBuilder b;
  const unsigned i = b.loopBegin(4);
  b.copy(Addr::ub(0).iv(i, 256), Addr::gm(0).iv(i, 256), Burst::contiguous(256));
  b.loopEnd();
  b.setFlag(Pipe::MTE2, Pipe::V, 0);
  b.waitFlag(Pipe::MTE2, Pipe::V, 0);
  b.vscalar(Opcode::VAdds, DType::F32, Addr::ub(0), Addr::ub(0), 1.0, VecParams::dense(DType::F32, 4));
  b.setFlag(Pipe::V, Pipe::MTE3, 0);
  b.waitFlag(Pipe::V, Pipe::MTE3, 0);
  b.copy(Addr::gm(1), Addr::ub(0), Burst::contiguous(1024));
  EXPECT_EQ(b.error(), "");
  return b.finish();
}

std::string decodeError(const std::vector<uint8_t>& bytes, uint32_t num_args = 2) {
  Program p;
  std::string err;
  if (decodeProgram(bytes.data(), bytes.size(), soc310(), num_args, p, err)) return "";
  EXPECT_EQ(err.find('\n'), std::string::npos) << "one-line message";
  EXPECT_FALSE(err.empty());
  return err;
}

// Offset of operand `slot` of instruction `pc` in the encoding.
size_t operandAt(size_t pc, unsigned slot) { return kHeaderBytes + pc * kRecordBytes + 8 + slot * 40; }
size_t paramAt(size_t pc, unsigned i) { return kHeaderBytes + pc * kRecordBytes + 168 + i * 4; }

TEST(SimIsa, EncodingIsDocumentedLayout) {
  const auto bytes = smallProgram();
  ASSERT_EQ(bytes.size(), kHeaderBytes + 9 * kRecordBytes);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "VNCK");
  EXPECT_EQ(bytes[4] | bytes[5] << 8, kProgramFormatVersion);
  EXPECT_EQ(bytes[8], 9);  // instruction count, little-endian
  EXPECT_EQ(bytes[kHeaderBytes + kRecordBytes], uint8_t(Opcode::Copy));
  EXPECT_EQ(bytes[kHeaderBytes + kRecordBytes + 1], uint8_t(Pipe::MTE2));
  // The copy's GM operand: space 0, arg 0, extent 256, iv coefficient 256.
  const size_t op = operandAt(1, 1);
  EXPECT_EQ(bytes[op], uint8_t(soc::Space::GM));
  EXPECT_EQ(bytes[op + 4] | bytes[op + 5] << 8, 256);
  EXPECT_EQ(bytes[op + 20] | bytes[op + 21] << 8, 256);
}

TEST(SimIsa, DecodesAndRunsAndDisassembles) {
  const auto bytes = smallProgram();
  Program p;
  std::string err;
  ASSERT_TRUE(decodeProgram(bytes.data(), bytes.size(), soc310(), 2, p, err)) << err;
  EXPECT_EQ(p.instructionCount(), 9u);
  EXPECT_EQ(p.dynamicInstructionCount(), 1 + 4 * 2 + 6u);
  const std::string text = p.disassemble();
  EXPECT_NE(text.find("copy"), std::string::npos);
  EXPECT_NE(text.find("vadds.f32"), std::string::npos);
  EXPECT_NE(text.find("256*i0"), std::string::npos);

  std::vector<float> in(256);
  for (int i = 0; i < 256; ++i) in[i] = float(i);
  auto gin = bytesOf(in);
  std::vector<uint8_t> gout(1024);
  RunResult r = run(bytes, {&gin, &gout}, 1, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  auto out = valuesOf<float>(gout);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(out[i], float(i) + 1.0f);
  EXPECT_EQ(r.profile.gm_bytes_read, 1024u);
  EXPECT_EQ(r.profile.gm_bytes_written, 1024u);
}

TEST(SimIsa, RejectsTruncatedAndBadHeaders) {
  auto bytes = smallProgram();
  EXPECT_NE(decodeError({}), "");
  EXPECT_NE(decodeError(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 10)).find("truncated"), std::string::npos);
  EXPECT_NE(decodeError(std::vector<uint8_t>(bytes.begin(), bytes.end() - 1)).find("does not match"), std::string::npos);
  auto bad = bytes;
  bad[0] = 'X';
  EXPECT_NE(decodeError(bad).find("magic"), std::string::npos);
  bad = bytes;
  bad[4] = 99;
  EXPECT_NE(decodeError(bad).find("version"), std::string::npos);
  bad = bytes;
  bad[8] = 0xff;
  bad[9] = 0xff;
  bad[10] = 0xff;
  EXPECT_NE(decodeError(bad), "");
}

TEST(SimIsa, RejectsBadFields) {
  const auto good = smallProgram();
  auto mutate = [&](size_t at, uint8_t v) {
    auto b = good;
    b[at] = v;
    return decodeError(b);
  };
  EXPECT_NE(mutate(kHeaderBytes + 1 * kRecordBytes, 0xee).find("unknown opcode"), std::string::npos);
  EXPECT_NE(mutate(kHeaderBytes + 1 * kRecordBytes + 1, uint8_t(Pipe::V)).find("expected MTE2"), std::string::npos);
  EXPECT_NE(mutate(kHeaderBytes + 1 * kRecordBytes + 1, 9).find("bad pipe"), std::string::npos);
  EXPECT_NE(mutate(operandAt(1, 1) + 1, 7).find("GM argument 7"), std::string::npos);  // arg index
  EXPECT_NE(mutate(operandAt(1, 0), 9).find("bad space"), std::string::npos);
  EXPECT_NE(mutate(operandAt(1, 0) + 8, 7).find("aligned"), std::string::npos);        // UB base 7
  EXPECT_NE(mutate(operandAt(1, 0) + 10, 4).find("outside"), std::string::npos);       // UB base 256 KiB
  EXPECT_NE(mutate(operandAt(1, 0) + 5, 0).find("extent"), std::string::npos);         // extent 0 < footprint
  EXPECT_NE(mutate(operandAt(1, 2), 0).find("must be unused"), std::string::npos);
  EXPECT_NE(mutate(kHeaderBytes + 1 * kRecordBytes + 250, 1).find("reserved"), std::string::npos);
  EXPECT_NE(mutate(kHeaderBytes + 4 * kRecordBytes + 4, 0x80).find("flags"), std::string::npos);
  EXPECT_NE(mutate(paramAt(3, 2), 8).find("event id"), std::string::npos);            // set_flag event 8
  EXPECT_EQ(mutate(paramAt(5, param::Repeat), 0), "");                                // repeat 0 is legal
  // vadds repeat 256 > 255.
  auto b = good;
  b[paramAt(5, param::Repeat)] = 0;
  b[paramAt(5, param::Repeat) + 1] = 1;
  EXPECT_NE(decodeError(b).find("repeat 256"), std::string::npos);
  // Mask bits beyond the 64 lanes of an fp32 repeat.
  b = good;
  b[kHeaderBytes + 5 * kRecordBytes + 240] = 1;
  EXPECT_NE(decodeError(b).find("mask"), std::string::npos);
  // Fewer arguments than the program uses.
  EXPECT_NE(decodeError(good, 1).find("GM argument 1"), std::string::npos);
}

TEST(SimIsa, RejectsBadStructure) {
  {
    ProgramBuilder b;
    b.loopBegin(2);
    EXPECT_NE(b.error(), "");
    EXPECT_NE(decodeError(b.finish()).find("never closed"), std::string::npos);
  }
  {
    ProgramBuilder b;
    b.loopEnd();
    EXPECT_NE(decodeError(b.finish()).find("endloop without loop"), std::string::npos);
  }
  {
    ProgramBuilder b;  // runaway loop nest: 2^24 * 2^24 iterations
    b.loopBegin(1u << 24);
    b.loopBegin(1u << 24);
    b.nop();
    b.loopEnd();
    b.loopEnd();
    EXPECT_NE(decodeError(b.finish()).find("2^26"), std::string::npos);
  }
  {
    ProgramBuilder b;
    b.loopBegin((1u << 24) + 1);
    b.loopEnd();
    EXPECT_NE(decodeError(b.finish()).find("trip count"), std::string::npos);
  }
  {
    ProgramBuilder b;  // five nested loops
    for (int i = 0; i < 5; ++i) b.loopBegin(1);
    for (int i = 0; i < 5; ++i) b.loopEnd();
    EXPECT_NE(decodeError(b.finish()).find("deeper than 4"), std::string::npos);
  }
  {
    ProgramBuilder b;  // loop-affine address that leaves UB on the last iteration
    const unsigned i = b.loopBegin(5);
    b.copy(Addr::ub(0).iv(i, 65536), Addr::gm(0), Burst::contiguous(256));
    b.loopEnd();
    EXPECT_NE(decodeError(b.finish()).find("outside"), std::string::npos);
  }
  {
    ProgramBuilder b;  // GM -> L0C is not a transfer any pipe does
    b.copy(Addr::l0c(0), Addr::gm(0), Burst::contiguous(256));
    EXPECT_NE(b.error(), "");
    EXPECT_NE(decodeError(b.finish()).find("valid transfer"), std::string::npos);
  }
  {
    ProgramBuilder b;  // overlapping UB -> UB copy
    b.copy(Addr::ub(0), Addr::ub(32), Burst::contiguous(256));
    EXPECT_NE(decodeError(b.finish()).find("overlap"), std::string::npos);
  }
  {
    ProgramBuilder b;
    b.mmad(Addr::l0c(0), Addr::l0a(0), Addr::l0b(0), DType::F16, DType::F32, 4096, 16, 16, true);
    EXPECT_NE(decodeError(b.finish()).find("4095"), std::string::npos);
  }
  {
    ProgramBuilder b;  // fp32 inputs to the Cube
    b.mmad(Addr::l0c(0), Addr::l0a(0), Addr::l0b(0), DType::F32, DType::F32, 16, 16, 16, true);
    EXPECT_NE(decodeError(b.finish()).find("unsupported mmad"), std::string::npos);
  }
}

TEST(SimIsa, RunTimeBoundsAndPermissions) {
  // A block_idx-affine GM address runs off the end of its region for block 3.
  ProgramBuilder b;
  b.copy(Addr::ub(0), Addr::gm(0).block(1024), Burst::contiguous(1024));
  b.setFlag(Pipe::MTE2, Pipe::MTE3, 0);
  b.waitFlag(Pipe::MTE2, Pipe::MTE3, 0);
  b.copy(Addr::gm(1).block(1024), Addr::ub(0), Burst::contiguous(1024));
  const auto bytes = b.finish();
  std::vector<uint8_t> in(3 * 1024), out(4 * 1024);
  RunResult ok = run(bytes, {&in, &out}, 3);
  EXPECT_TRUE(ok.ok) << ok.error;
  RunResult bad = run(bytes, {&in, &out}, 4);
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("block 3"), std::string::npos) << bad.error;
  EXPECT_NE(bad.error.find("outside"), std::string::npos) << bad.error;

  Program p;
  std::string err;
  ASSERT_TRUE(decodeProgram(bytes.data(), bytes.size(), soc310(), 2, p, err));
  std::vector<GmRegion> args = {{in.data(), in.size(), false}, {out.data(), out.size(), false}};
  KernelProfile prof;
  EXPECT_FALSE(runKernel(p, 1, args, soc310(), {}, prof, err));
  EXPECT_NE(err.find("read-only"), std::string::npos) << err;
  args.pop_back();
  EXPECT_FALSE(runKernel(p, 1, args, soc310(), {}, prof, err));
  EXPECT_FALSE(runKernel(p, 0, {}, soc310(), {}, prof, err));
}

TEST(SimIsa, WaitWithoutSetIsADeadlockError) {
  ProgramBuilder b;
  b.waitFlag(Pipe::MTE2, Pipe::V, 3);
  RunResult r = run(b.finish(), {});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("deadlock"), std::string::npos) << r.error;
}

TEST(SimIsa, RandomBytesNeverCrashTheDecoder) {
  const auto good = smallProgram();
  std::mt19937 rng(7);
  int accepted = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    auto b = good;
    const int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) b[kHeaderBytes + rng() % (b.size() - kHeaderBytes)] = uint8_t(rng());
    Program p;
    std::string err;
    if (decodeProgram(b.data(), b.size(), soc310(), 2, p, err)) {
      if (p.dynamicInstructionCount() > 100000) continue;  // valid but slow: not this test's business
      ++accepted;
      // Whatever decodes must also run without crashing (errors are fine).
      std::vector<uint8_t> in(4096), out(4096);
      std::vector<GmRegion> args = {{in.data(), in.size(), true}, {out.data(), out.size(), true}};
      KernelProfile prof;
      runKernel(p, 2, args, soc310(), {}, prof, err);
    } else {
      ASSERT_FALSE(err.empty());
    }
  }
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace vinci::sim::test
