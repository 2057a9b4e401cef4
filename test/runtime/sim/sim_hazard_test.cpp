// The hazard detector on each kind of conflict alone, in hand-assembled
// programs small enough that nothing else can explain the report:
// write-after-read and write-after-write between two pipes, in UB, L1 and
// GM, each beside its near-misses (the same program with the set_flag /
// wait_flag pair, with disjoint ranges, on one pipe, and two reads), which
// must report nothing. The near-miss with a pipe_barrier of all pipes finds a
// simulator bug and is disabled until it is fixed (see
// DISABLED_BarrierAllOrdersEveryPipe). Read-after-write is
// covered by sim_kernel's MissingWaitFlagIsAHazard. The detector is part of
// the simulator (runtime/sim/src/core.cpp); these tests use its public
// interface only.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim_test_util.h"

namespace vinci::sim::test {
namespace {

constexpr uint32_t kBytes = 256;  // one vector repeat of fp16: 128 lanes

// What a program did: the hazard lines, and whether the fatal run failed.
struct Outcome {
  std::vector<std::string> hazards;
  bool fatal_failed = false;
  std::string fatal_error;
};

Outcome runBoth(const std::vector<uint8_t>& bytes) {
  Outcome outcome;
  std::vector<uint8_t> gm0(4 * kBytes, 0x11), gm1(4 * kBytes, 0);
  RunResult counted = run(bytes, {&gm0, &gm1});
  EXPECT_TRUE(counted.ok) << counted.error;
  outcome.hazards = counted.profile.hazards;
  std::vector<uint8_t> gm0f(4 * kBytes, 0x11), gm1f(4 * kBytes, 0);
  RunResult fatal_run = run(bytes, {&gm0f, &gm1f}, 1, fatal());
  outcome.fatal_failed = !fatal_run.ok;
  outcome.fatal_error = fatal_run.error;
  return outcome;
}

// Near-misses: programs that must run clean, counted and fatal.
void expectClean(const std::vector<std::pair<const char*, std::vector<uint8_t>>>& programs) {
  for (const auto& [name, bytes] : programs) {
    Outcome o = runBoth(bytes);
    EXPECT_TRUE(o.hazards.empty()) << name << ": " << o.hazards.front();
    EXPECT_FALSE(o.fatal_failed) << name << ": " << o.fatal_error;
  }
}

VecParams dense() { return VecParams::dense(DType::F16, 1); }

// Ends a program: the UB result at `ub` goes to GM argument 1 once V is done.
std::vector<uint8_t> finish(ProgramBuilder& b, int64_t ub = kBytes) {
  b.setFlag(Pipe::V, Pipe::MTE3, 7);
  b.waitFlag(Pipe::V, Pipe::MTE3, 7);
  b.copy(Addr::gm(1), Addr::ub(ub), Burst::contiguous(kBytes));
  std::vector<uint8_t> bytes = b.finish();
  EXPECT_TRUE(b.error().empty()) << b.error();
  return bytes;
}

// How the second access of a pair is ordered after the first.
enum class Order { None, Flag, BarrierAll };

void order(ProgramBuilder& b, Pipe first, Pipe second, Order how) {
  if (how == Order::Flag) {
    b.setFlag(first, second, 1);
    b.waitFlag(first, second, 1);
  } else if (how == Order::BarrierAll) {
    b.pipeBarrierAll();
  }
}

// V reads UB [0, 256) (a vadds into [256, 512)), then MTE2 refills
// [second_at, +256) from GM: the double-buffer refill that needs V -> MTE2.
std::vector<uint8_t> ubWriteAfterRead(Order how, int64_t second_at = 0) {
  ProgramBuilder b;
  b.copy(Addr::ub(0), Addr::gm(0), Burst::contiguous(kBytes));
  b.setFlag(Pipe::MTE2, Pipe::V, 0);
  b.waitFlag(Pipe::MTE2, Pipe::V, 0);
  b.vscalar(Opcode::VAdds, DType::F16, Addr::ub(kBytes), Addr::ub(0), 1.0, dense());
  order(b, Pipe::V, Pipe::MTE2, how);
  b.copy(Addr::ub(second_at), Addr::gm(0, kBytes), Burst::contiguous(kBytes));
  return finish(b);
}

TEST(SimHazard, UbWriteAfterReadIsReported) {
  Outcome o = runBoth(ubWriteAfterRead(Order::None));
  ASSERT_EQ(o.hazards.size(), 1u);
  const std::string& h = o.hazards[0];
  EXPECT_NE(h.find("copy (MTE2, write UB [0, 256))"), std::string::npos) << h;
  EXPECT_NE(h.find("is not ordered after pc 3 vadds (V, read"), std::string::npos) << h;
  EXPECT_TRUE(o.fatal_failed);
  EXPECT_NE(o.fatal_error.find("hazard"), std::string::npos) << o.fatal_error;
}

TEST(SimHazard, UbWriteAfterReadNearMissesAreClean) {
  expectClean({{"flag", ubWriteAfterRead(Order::Flag)},
               // The refill lands beside the range V read.
               {"disjoint", ubWriteAfterRead(Order::None, 2 * kBytes)}});
}

// MTE2 writes UB [0, 256), then V overwrites it (a vdup) without waiting:
// which of the two lands last is up to the hardware.
std::vector<uint8_t> ubWriteAfterWrite(Order how, Pipe second = Pipe::V) {
  ProgramBuilder b;
  b.copy(Addr::ub(0), Addr::gm(0), Burst::contiguous(kBytes));
  order(b, Pipe::MTE2, second, how);
  if (second == Pipe::V)
    b.vdup(DType::F16, Addr::ub(0), 2.0, dense());
  else  // the same pipe again: ordered by the pipe's own queue
    b.copy(Addr::ub(0), Addr::gm(0, kBytes), Burst::contiguous(kBytes));
  b.setFlag(Pipe::MTE2, Pipe::V, 2);
  b.waitFlag(Pipe::MTE2, Pipe::V, 2);
  b.vscalar(Opcode::VAdds, DType::F16, Addr::ub(kBytes), Addr::ub(0), 1.0, dense());
  return finish(b);
}

TEST(SimHazard, UbWriteAfterWriteIsReported) {
  Outcome o = runBoth(ubWriteAfterWrite(Order::None));
  ASSERT_EQ(o.hazards.size(), 1u);
  const std::string& h = o.hazards[0];
  EXPECT_NE(h.find("vdup (V, write UB [0, 256))"), std::string::npos) << h;
  EXPECT_NE(h.find("is not ordered after pc 0 copy (MTE2, write"), std::string::npos) << h;
  EXPECT_TRUE(o.fatal_failed);
}

TEST(SimHazard, UbWriteAfterWriteNearMissesAreClean) {
  expectClean({{"flag", ubWriteAfterWrite(Order::Flag)},
               {"same pipe", ubWriteAfterWrite(Order::None, Pipe::MTE2)}});
}

// SIMULATOR BUG, disabled until fixed (run it with
// --gtest_also_run_disabled_tests): docs/isa.md says pipe_barrier(ALL) joins
// every pipe's vector clock, and the timing model does wait for every pipe
// there, but Core::checkHazards returns early on PipeBarrier and nothing
// joins the clocks, so a program ordered by a barrier of all pipes is
// reported as a hazard (and fails a fatal run): "pc 5 copy (MTE2, write UB
// [0, 256)) is not ordered after pc 3 vadds (V, read of an overlapping
// range)".
TEST(SimHazard, DISABLED_BarrierAllOrdersEveryPipe) {
  expectClean({{"write after read", ubWriteAfterRead(Order::BarrierAll)},
               {"write after write", ubWriteAfterWrite(Order::BarrierAll)}});
}

TEST(SimHazard, TwoReadsOfOneRangeAreNoHazard) {
  // V and MTE3 both read UB [0, 256), each ordered after the write, not
  // after each other.
  ProgramBuilder b;
  b.copy(Addr::ub(0), Addr::gm(0), Burst::contiguous(kBytes));
  b.setFlag(Pipe::MTE2, Pipe::V, 0);
  b.waitFlag(Pipe::MTE2, Pipe::V, 0);
  b.setFlag(Pipe::MTE2, Pipe::MTE3, 0);
  b.waitFlag(Pipe::MTE2, Pipe::MTE3, 0);
  b.vscalar(Opcode::VAdds, DType::F16, Addr::ub(kBytes), Addr::ub(0), 1.0, dense());
  b.copy(Addr::gm(1, kBytes), Addr::ub(0), Burst::contiguous(kBytes));
  Outcome o = runBoth(finish(b));
  EXPECT_TRUE(o.hazards.empty()) << o.hazards.front();
}

// MTE1 reads L1 [0, 512) into L0A, then MTE2 refills it from GM: the L1
// double buffer of a matmul, which needs MTE1 -> MTE2.
std::vector<uint8_t> l1WriteAfterRead(Order how) {
  ProgramBuilder b;
  b.copy(Addr::l1(0), Addr::gm(0), Burst::contiguous(512));
  b.setFlag(Pipe::MTE2, Pipe::MTE1, 0);
  b.waitFlag(Pipe::MTE2, Pipe::MTE1, 0);
  b.loadFractals(Addr::l0a(0), Addr::l1(0), DType::F16, 1, 1, 1, 1, 1, 1, false);
  order(b, Pipe::MTE1, Pipe::MTE2, how);
  b.copy(Addr::l1(0), Addr::gm(0, 512), Burst::contiguous(512));
  return finish(b, 0);
}

TEST(SimHazard, L1WriteAfterReadIsReported) {
  Outcome o = runBoth(l1WriteAfterRead(Order::None));
  ASSERT_EQ(o.hazards.size(), 1u);
  EXPECT_NE(o.hazards[0].find("(MTE2, write L1 [0, 512))"), std::string::npos) << o.hazards[0];
  EXPECT_NE(o.hazards[0].find("(MTE1, read"), std::string::npos) << o.hazards[0];
  Outcome clean = runBoth(l1WriteAfterRead(Order::Flag));
  EXPECT_TRUE(clean.hazards.empty()) << clean.hazards.front();
}

// MTE2 reads GM#0 [0, 256) into UB; MTE3 then writes the same GM bytes
// (from a vdup'd UB buffer): the write may overtake the read.
std::vector<uint8_t> gmWriteAfterRead(Order how) {
  ProgramBuilder b;
  b.copy(Addr::ub(0), Addr::gm(0), Burst::contiguous(kBytes));
  b.vdup(DType::F16, Addr::ub(kBytes), 3.0, dense());
  b.setFlag(Pipe::V, Pipe::MTE3, 0);
  b.waitFlag(Pipe::V, Pipe::MTE3, 0);
  order(b, Pipe::MTE2, Pipe::MTE3, how);
  b.copy(Addr::gm(0), Addr::ub(kBytes), Burst::contiguous(kBytes));
  return finish(b);
}

TEST(SimHazard, GmWriteAfterReadIsReported) {
  Outcome o = runBoth(gmWriteAfterRead(Order::None));
  ASSERT_EQ(o.hazards.size(), 1u);
  EXPECT_NE(o.hazards[0].find("(MTE3, write GM#0 [0, 256))"), std::string::npos) << o.hazards[0];
  EXPECT_NE(o.hazards[0].find("pc 0 copy (MTE2, read"), std::string::npos) << o.hazards[0];
  EXPECT_TRUE(o.fatal_failed);
  Outcome clean = runBoth(gmWriteAfterRead(Order::Flag));
  EXPECT_TRUE(clean.hazards.empty()) << clean.hazards.front();
  EXPECT_FALSE(clean.fatal_failed) << clean.fatal_error;
}

}  // namespace
}  // namespace vinci::sim::test
