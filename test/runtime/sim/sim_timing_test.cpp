// The timing model against the SoC table: each cost shows up where the table
// says, the GM arbiter, transfers in flight, the vector dependency latency,
// UB bank conflicts, launch and dispatch, the ideal L2, and the error bars.
// Expected figures are computed here from the table's entries and the rules
// docs/isa.md states, not read back from the simulator.
#include <cmath>

#include "kernels.h"
#include "sim_test_util.h"

namespace vinci::sim::test {
namespace {

const soc::TimingTable& table() { return soc310().timing; }
uint64_t ceilCycles(double v) { return uint64_t(std::ceil(v)); }
uint64_t launch() { return ceilCycles(table().task_launch_cycles.value); }
uint64_t dispatch() { return ceilCycles(table().block_dispatch_cycles.value); }

// A core's GM rate (bytes per cycle) when `active` cores share the chip's
// sustained bandwidth, each capped.
double gmRate(uint32_t active) {
  const soc::SocSpec& s = soc310();
  const double peak = s.gm_bytes_per_second / s.clock_hz;
  return std::min(table().gm_core_bytes_per_cycle.value,
                  table().gm_sustained_efficiency.value * peak / active);
}

// Cycles a single GM transfer of `bytes` (one burst) keeps its pipe busy.
uint64_t gmTransfer(uint64_t bytes, uint32_t active) {
  return ceilCycles(table().mte2_startup_cycles.value) +
         ceilCycles(table().dma_burst_overhead_cycles.value + double(bytes) / gmRate(active));
}

// ---- Costs from the table ------------------------------------------------------

TEST(SimTiming, MmadAndLaunchCostsComeFromTheTable) {
  const soc::TimingTable& t = table();
  ProgramBuilder b;
  b.mmad(Addr::l0c(0), Addr::l0a(0), Addr::l0b(0), DType::F16, DType::F32, 64, 64, 64, true);
  RunResult r = run(b.finish(), {}, 1, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.profile.pipe_busy[unsigned(Pipe::M)], uint64_t(t.cube_startup_cycles.value) + 4 * 4 * 4);
  const uint64_t block = uint64_t(t.scalar_issue_cycles.value + t.cube_startup_cycles.value) + 64;
  EXPECT_EQ(r.profile.block_cycles[0], block);
  EXPECT_EQ(r.profile.cycles, launch() + dispatch() + block);
}

TEST(SimTiming, BlocksBeyondTheCoresQueueBehindTheirDispatch) {
  ProgramBuilder b;
  b.mmad(Addr::l0c(0), Addr::l0a(0), Addr::l0b(0), DType::F16, DType::F32, 64, 64, 64, true);
  const auto bytes = b.finish();
  RunResult eight = run(bytes, {}, 8, fatal()), sixteen = run(bytes, {}, 16, fatal());
  ASSERT_TRUE(eight.ok && sixteen.ok);
  const uint64_t block = eight.profile.block_cycles[0];
  EXPECT_EQ(eight.profile.cycles, launch() + dispatch() + block);  // one wave
  EXPECT_EQ(sixteen.profile.cycles, launch() + 2 * (dispatch() + block));  // two per core
}

TEST(SimTiming, UbToL1AndL1ToUbHaveTheirOwnRates) {
  const soc::TimingTable& t = table();
  const uint32_t n = 65536;
  ProgramBuilder up, down;
  up.copy(Addr::l1(0), Addr::ub(0), Burst::contiguous(n));  // MTE3
  down.copy(Addr::ub(0), Addr::l1(0), Burst::contiguous(n));  // MTE1
  RunResult a = run(up.finish(), {}, 1, fatal()), c = run(down.finish(), {}, 1, fatal());
  ASSERT_TRUE(a.ok && c.ok);
  const uint64_t startup = ceilCycles(t.mte1_startup_cycles.value);
  EXPECT_EQ(a.profile.pipe_busy[unsigned(Pipe::MTE3)],
            startup + ceilCycles(n / t.ub_to_l1_bytes_per_cycle.value));
  EXPECT_EQ(c.profile.pipe_busy[unsigned(Pipe::MTE1)],
            startup + ceilCycles(n / t.l1_to_ub_bytes_per_cycle.value));
}

// ---- UB bank conflicts ------------------------------------------------------------

// A 100-repeat f16 add with the given UB offsets and strides; returns V busy
// cycles beyond the issue cost.
uint64_t addRepeatCycles(int64_t dst, int64_t src0, int64_t src1, uint32_t dst_blk = 1) {
  VecParams vp = VecParams::dense(DType::F16, 100);
  vp.dst_blk = dst_blk;
  vp.dst_rep = dst_blk == 1 ? 8 : 1;
  ProgramBuilder b;
  b.vbinary(Opcode::VAdd, DType::F16, Addr::ub(dst), Addr::ub(src0), Addr::ub(src1), vp);
  RunResult r = run(b.finish(), {}, 1, fatal());
  EXPECT_TRUE(r.ok) << r.error;
  return r.profile.pipe_busy[unsigned(Pipe::V)] - uint64_t(table().vector_issue_cycles.value);
}

TEST(SimTiming, UbBankConflictsSerialiseARepeatsRows) {
  // 16 groups of 32-byte rows: a 256-byte repeat covers 8 of them.
  // Sources in complementary halves, the destination in another bank: one cycle a repeat.
  EXPECT_EQ(addRepeatCycles(0, 65536 + 256, 131072), 100u);
  // Both sources in the same bank groups (different banks): reads conflict, two cycles.
  EXPECT_EQ(addRepeatCycles(0, 65536, 131072), 200u);
  // In place: a read and a write of the same bank, two cycles.
  EXPECT_EQ(addRepeatCycles(65536, 65536, 131072 + 256), 200u);
  // A destination block stride of 16 blocks (512 B) puts all 8 blocks in one
  // group: 8 cycles a repeat; a stride of 8 (256 B) pairs them up: 4 cycles.
  EXPECT_EQ(addRepeatCycles(0, 65536 + 256, 131072 + 256, 16), 800u);
  EXPECT_EQ(addRepeatCycles(0, 65536 + 256, 131072 + 256, 8), 400u);
}

// ---- Vector dependency ----------------------------------------------------------

TEST(SimTiming, ADependentVectorInstructionWaitsForTheResults) {
  auto twoAdds = [](int64_t second_src) {
    ProgramBuilder b;
    const VecParams vp = VecParams::dense(DType::F16, 4);
    b.vbinary(Opcode::VAdd, DType::F16, Addr::ub(0), Addr::ub(65536 + 256), Addr::ub(131072), vp);
    b.vbinary(Opcode::VAdd, DType::F16, Addr::ub(196608), Addr::ub(second_src), Addr::ub(65536 + 256 + 4096), vp);
    RunResult r = run(b.finish(), {}, 1, fatal());
    EXPECT_TRUE(r.ok) << r.error;
    return r.profile.block_cycles[0];
  };
  const uint64_t independent = twoAdds(4096), dependent = twoAdds(0);
  EXPECT_EQ(dependent - independent, uint64_t(table().vector_dependency_cycles.value));
}

// ---- GM: the arbiter, transfers in flight, one port ---------------------------------

TEST(SimTiming, CoresShareTheSustainedGmBandwidthUpToTheirCap) {
  ProgramBuilder b;
  b.copy(Addr::ub(0), Addr::gm(0).block(65536), Burst::contiguous(65536));
  const auto bytes = b.finish();
  std::vector<uint8_t> in(8 * 65536);
  RunResult one = run(bytes, {&in}, 1), eight = run(bytes, {&in}, 8);
  ASSERT_TRUE(one.ok && eight.ok);
  EXPECT_EQ(one.profile.pipe_busy[unsigned(Pipe::MTE2)], gmTransfer(65536, 1));
  EXPECT_EQ(eight.profile.pipe_busy[unsigned(Pipe::MTE2)], 8 * gmTransfer(65536, 8));
  // One core alone gets its cap, not the whole chip.
  EXPECT_EQ(gmRate(1), table().gm_core_bytes_per_cycle.value);
}

TEST(SimTiming, TransfersInFlightOverlapTheirStartup) {
  const uint32_t n = 8, bytes = 4096;
  ProgramBuilder b;
  for (uint32_t i = 0; i < n; ++i)
    b.copy(Addr::ub(i * bytes), Addr::gm(0, i * bytes), Burst::contiguous(bytes));
  std::vector<uint8_t> in(n * bytes);
  RunResult r = run(b.finish(), {&in}, 1, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  const uint64_t one = gmTransfer(bytes, 1);
  const uint64_t startup = ceilCycles(table().mte2_startup_cycles.value);
  // Serial would be n * one; with the start-ups overlapped the data phases
  // follow each other on the port.
  EXPECT_LT(r.profile.block_cycles[0], n * one - (n / 2) * startup);
  EXPECT_GE(r.profile.block_cycles[0], startup + n * (one - startup));
}

TEST(SimTiming, GmReadsAndWritesShareTheCoresPort) {
  const uint32_t bytes = 65536;
  ProgramBuilder b;
  b.copy(Addr::ub(0), Addr::gm(0), Burst::contiguous(bytes));            // MTE2
  b.copy(Addr::gm(1), Addr::ub(131072), Burst::contiguous(bytes));       // MTE3, independent
  std::vector<uint8_t> in(bytes), out(bytes);
  RunResult r = run(b.finish(), {&in, &out}, 1, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  const uint64_t one = gmTransfer(bytes, 1), startup = ceilCycles(table().mte2_startup_cycles.value);
  // The two data phases queue on one port (table: gm_read_write_shared = 1).
  ASSERT_EQ(table().gm_read_write_shared.value, 1.0);
  EXPECT_GE(r.profile.block_cycles[0], startup + 2 * (one - startup));
}

// ---- The ideal L2 and the error bars -------------------------------------------------

TEST(SimTiming, AnIdealL2ServesRereadBytes) {
  const uint32_t bytes = 65536;
  ProgramBuilder b;
  b.copy(Addr::ub(0), Addr::gm(0), Burst::contiguous(bytes));
  b.copy(Addr::ub(bytes), Addr::gm(0), Burst::contiguous(bytes));  // the same bytes again
  const auto twice = b.finish();
  std::vector<uint8_t> in(bytes);
  RunResult r = run(twice, {&in}, 1, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_LT(r.profile.cycles_ideal_l2, r.profile.cycles);

  // Across kernels through one L2Model: a second kernel reading what the
  // first read is faster in the ideal-L2 figure, and only then.
  ProgramBuilder once;
  once.copy(Addr::ub(0), Addr::gm(0), Burst::contiguous(bytes));
  const auto single = once.finish();
  L2Model l2;
  RunOptions opt = fatal();
  opt.l2 = &l2;
  RunResult cold = run(single, {&in}, 1, opt), warm = run(single, {&in}, 1, opt);
  ASSERT_TRUE(cold.ok && warm.ok);
  EXPECT_EQ(l2.residentBytes(), bytes);
  EXPECT_LT(warm.profile.cycles_ideal_l2, cold.profile.cycles_ideal_l2);
  EXPECT_EQ(warm.profile.cycles, cold.profile.cycles);
  l2.reset();
  RunResult again = run(single, {&in}, 1, opt);
  EXPECT_EQ(again.profile.cycles_ideal_l2, cold.profile.cycles_ideal_l2);
}

// The L2 keeps the most recently touched bytes: at a capacity of three
// units, reading A, B, then A again and a new C evicts B, not A; and the two
// parts of a range a later touch cut in the middle share its age and leave
// lowest address first.
TEST(SimTiming, TheIdealL2EvictsTheLeastRecentlyTouchedBytes) {
  constexpr uint32_t unit = 4096;
  soc::SocSpec small = soc310();
  small.timing.l2_bytes = {3.0 * unit, 3.0 * unit, 3.0 * unit, "test"};
  std::vector<uint8_t> gm(8 * unit);
  auto reader = [](uint32_t unit_index, uint32_t units) {
    ProgramBuilder b;
    b.copy(Addr::ub(0), Addr::gm(0, int64_t(unit_index) * unit), Burst::contiguous(units * unit));
    return b.finish();
  };
  L2Model l2;
  RunOptions opt = fatal();
  opt.l2 = &l2;
  // Whether unit u is resident: its read's ideal-L2 figure is below a cold
  // read's. A probe touches what it reads, so each scenario probes its
  // resident units first and its one evicted unit last.
  l2.reset();
  const uint64_t cold = run(reader(7, 1), {&gm}, 1, opt, &small).profile.cycles_ideal_l2;
  auto warm = [&](uint32_t u) {
    const uint64_t c = run(reader(u, 1), {&gm}, 1, opt, &small).profile.cycles_ideal_l2;
    EXPECT_LE(c, cold);
    return c < cold;
  };

  l2.reset();
  for (uint32_t u : {0u, 1u, 0u, 2u, 3u}) ASSERT_TRUE(run(reader(u, 1), {&gm}, 1, opt, &small).ok);
  // Unit 1, the least recently touched, made room for unit 3.
  EXPECT_EQ(l2.residentBytes(), 3u * unit);
  EXPECT_TRUE(warm(3));
  EXPECT_TRUE(warm(2));
  EXPECT_TRUE(warm(0));
  EXPECT_FALSE(warm(1));

  l2.reset();
  ASSERT_TRUE(run(reader(0, 3), {&gm}, 1, opt, &small).ok);  // units 0-2, age 1
  ASSERT_TRUE(run(reader(1, 1), {&gm}, 1, opt, &small).ok);  // unit 1 newer: 0 and 2 keep age 1
  ASSERT_TRUE(run(reader(5, 1), {&gm}, 1, opt, &small).ok);  // one unit over: unit 0 goes
  EXPECT_EQ(l2.residentBytes(), 3u * unit);
  EXPECT_TRUE(warm(2));
  EXPECT_FALSE(warm(0));
}

TEST(SimTiming, BoundsBracketTheNominalFigures) {
  kernels::MatmulConfig cfg;
  std::vector<uint8_t> mm;
  std::string err;
  ASSERT_TRUE(kernels::buildMatmul(cfg, soc310(), mm, err)) << err;
  std::vector<uint8_t> a(256 * 256 * 2), bb(256 * 256 * 2), c(256 * 256 * 2);
  RunResult r = run(mm, {&a, &bb, &c}, 4, fatal());
  ASSERT_TRUE(r.ok) << r.error;
  const KernelProfile& p = r.profile;
  EXPECT_LT(p.cycles_low, p.cycles_ideal_l2);
  EXPECT_LE(p.cycles_ideal_l2, p.cycles);
  EXPECT_LT(p.cycles, p.cycles_high);
  // Double buffering overlaps the pipes: a block's timeline is shorter than
  // the busy time of its pipes.
  uint64_t busy = 0;
  for (unsigned q = 1; q < kNumPipes; ++q) busy += p.pipe_busy[q];
  EXPECT_LT(p.block_cycles[0] * 4, busy);
}

}  // namespace
}  // namespace vinci::sim::test
