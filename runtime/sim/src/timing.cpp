// The timing model's per-instruction costs: one cost function per family of
// instructions, found by opcode in kOpCosts, each reading only the SoC's
// timing table (through LaneParams) and the instruction.
#include "timing.h"

#include "load3d.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace vinci::sim::detail {

using soc::Space;

namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

soc::Bound boundOf(Lane lane) {
  return lane == Lane::Low ? soc::Bound::Optimistic
         : lane == Lane::High ? soc::Bound::Pessimistic
                              : soc::Bound::Nominal;
}

bool isComplexVector(Opcode op) {
  return op == Opcode::VExp || op == Opcode::VLn || op == Opcode::VSqrt || op == Opcode::VRsqrt ||
         op == Opcode::VRec || op == Opcode::VDiv;
}

// ---- GM transfers -------------------------------------------------------------

// `bursts` rows of `burst_bytes`, each rounded up to whole granules. An ideal
// L2 serves the hit share of the bytes at its rate.
Demand gmRead(const LaneParams& lp, const CostInputs& in, uint64_t bursts, uint64_t burst_bytes) {
  Demand d;
  d.gm_read = true;
  d.bytes = bursts * uint64_t(std::ceil(double(burst_bytes) / lp.granule) * lp.granule);
  const double hit = lp.l2 && in.gm_read_bytes
                         ? double(d.bytes) * double(in.l2_hit_bytes) / double(in.gm_read_bytes)
                         : 0.0;
  d.front = 1;
  d.startup = lp.mte2_startup;
  d.port = double(bursts) * lp.burst_overhead + (double(d.bytes) - hit) / lp.gm_rate +
           hit / lp.l2_rate;
  return d;
}

// With an ideal L2 every write lands in it (write-back, never evicted).
Demand gmWrite(const LaneParams& lp, uint64_t bursts, uint64_t burst_bytes) {
  Demand d;
  d.gm_write = true;
  d.bytes = bursts * uint64_t(std::ceil(double(burst_bytes) / lp.granule) * lp.granule);
  d.front = 1;
  d.startup = lp.mte3_startup;
  d.port = double(bursts) * lp.burst_overhead + double(d.bytes) / (lp.l2 ? lp.l2_rate : lp.gm_rate);
  return d;
}

Demand onChip(double startup, uint64_t bytes, double rate) {
  Demand d;
  d.bytes = bytes;
  d.front = startup + double(bytes) / rate;
  return d;
}

// ---- Cost functions, one per family -------------------------------------------

Demand costCopy(const Instruction& ins, const CostInputs& in, const LaneParams& lp,
                const soc::SocSpec&) {
  const Space d = Space(ins.operand[0].space), s = Space(ins.operand[1].space);
  const uint64_t bytes = uint64_t(ins.p[0]) * ins.p[1];
  if (s == Space::GM) return gmRead(lp, in, ins.p[0], ins.p[1]);
  if (d == Space::GM) return gmWrite(lp, ins.p[0], ins.p[1]);
  if (ins.pipe == Pipe::V) {
    Demand v = onChip(lp.vec_issue, bytes, lp.ub_to_ub);
    return v;
  }
  const double rate = s == Space::UB    ? lp.ub_to_l1
                      : d == Space::L0A ? lp.l1_to_l0a
                      : d == Space::L0B ? lp.l1_to_l0b
                                        : lp.l1_to_ub;
  return onChip(lp.onchip_startup, bytes, rate);
}

Demand costCopyNd2Nz(const Instruction& ins, const CostInputs& in, const LaneParams& lp,
                     const soc::SocSpec&) {
  return gmRead(lp, in, ins.p[0], uint64_t(ins.p[1]) * dtypeBytes(ins.dtype));
}

Demand costCopyNz2Nd(const Instruction& ins, const CostInputs&, const LaneParams& lp,
                     const soc::SocSpec&) {
  return gmWrite(lp, ins.p[0], uint64_t(ins.p[1]) * dtypeBytes(ins.dtype));
}

Demand costCopyNchw2Nc1hwc0(const Instruction& ins, const CostInputs& in, const LaneParams& lp,
                            const soc::SocSpec&) {
  return gmRead(lp, in, ins.p[0], uint64_t(ins.p[1]) * dtypeBytes(ins.dtype));
}

// One burst a row, each address computed by the Scalar unit from the index it
// reads out of UB (assumption: an issue slot per row).
Demand costCopyGather(const Instruction& ins, const CostInputs& in, const LaneParams& lp,
                      const soc::SocSpec&) {
  Demand d = gmRead(lp, in, ins.p[0], ins.p[1]);
  d.front += double(ins.p[0]) * lp.scalar_issue;
  return d;
}

Demand costLoadFractals(const Instruction& ins, const CostInputs&, const LaneParams& lp,
                        const soc::SocSpec&) {
  const bool to_a = Space(ins.operand[0].space) == Space::L0A;
  return onChip(lp.onchip_startup, uint64_t(ins.p[0]) * ins.p[1] * 512,
                to_a ? lp.l1_to_l0a : lp.l1_to_l0b);
}

// img2col: the fractals it writes at load_3d's own rate (padded rows cost the
// same as real ones).
Demand costLoad3d(const Instruction& ins, const CostInputs&, const LaneParams& lp,
                  const soc::SocSpec&) {
  return onChip(lp.onchip_startup, load3dFractalBytes(ins), lp.load3d);
}

Demand costMmad(const Instruction& ins, const CostInputs&, const LaneParams& lp,
                const soc::SocSpec& soc) {
  const soc::FractalShape& f =
      soc.cube_fractal[unsigned(ins.dtype == DType::S8     ? soc::CubeInput::S8
                                : ins.dtype == DType::BF16 ? soc::CubeInput::BF16
                                                           : soc::CubeInput::F16)];
  const uint64_t fractals = ceilDiv(ins.p[0], f.m) * ceilDiv(ins.p[1], f.n) * ceilDiv(ins.p[2], f.k);
  Demand d;
  d.front = lp.cube_startup + double(fractals) / lp.cube_fractals;
  return d;
}

Demand costMoveL0cToUb(const Instruction& ins, const CostInputs&, const LaneParams& lp,
                       const soc::SocSpec&) {
  return onChip(lp.vec_issue, uint64_t(ins.p[0]) * ins.p[1] * dtypeBytes(ins.dtype), lp.l0c_to_ub);
}

Demand costVTranspose(const Instruction& ins, const CostInputs&, const LaneParams& lp,
                      const soc::SocSpec&) {
  Demand d;
  d.front = lp.vec_issue + double(ins.p[0]) * lp.vec_repeat;
  return d;
}

// A vector op: its repeats at one a cycle (or the complex ops' rate), plus
// the cycles UB bank conflicts add to them.
Demand costVector(const Instruction& ins, const CostInputs& in, const LaneParams& lp,
                  const soc::SocSpec&) {
  const double per = isComplexVector(ins.op) ? lp.vec_complex : lp.vec_repeat;
  const uint64_t repeats = in.repeat_cycles_free;
  const uint64_t extra = lp.bank_conflicts ? in.repeat_cycles - repeats : 0;
  Demand d;
  d.front = lp.vec_issue + double(repeats) * per + double(extra);
  return d;
}

struct OpCost {
  Opcode op;
  CostFn fn;
};
// Every non-vector instruction with a cost; the vector ops use costVector.
constexpr OpCost kOpCosts[] = {
    {Opcode::Copy, costCopy},
    {Opcode::CopyNd2Nz, costCopyNd2Nz},
    {Opcode::CopyNz2Nd, costCopyNz2Nd},
    {Opcode::CopyNchw2Nc1hwc0, costCopyNchw2Nc1hwc0},
    {Opcode::CopyGather, costCopyGather},
    {Opcode::LoadFractals, costLoadFractals},
    {Opcode::Load3d, costLoad3d},
    {Opcode::Mmad, costMmad},
    {Opcode::MoveL0cToUb, costMoveL0cToUb},
    {Opcode::VTranspose, costVTranspose},
};

std::array<CostFn, 256> buildCostTable() {
  std::array<CostFn, 256> table{};
  for (unsigned op = 0; op < 256; ++op)
    if (isVectorOp(Opcode(op))) table[op] = costVector;
  for (const OpCost& c : kOpCosts) table[unsigned(c.op)] = c.fn;
  return table;
}

// ---- UB bank conflicts ------------------------------------------------------------

struct Stream {
  uint64_t base;        // byte offset of repeat 0, block 0
  uint64_t blk, rep;    // strides, bytes
  uint32_t blocks;      // blocks touched per repeat
  uint32_t active;      // bit b: block b holds an active lane
  bool write;
};

// Blocks of a strided operand with `esize`-byte elements that hold active
// lanes (the mask's 128 bits; a block's lanes never straddle its two words).
uint32_t activeBlocks(const Instruction& ins, uint32_t lanes, uint32_t esize) {
  const uint32_t per_block = 32 / esize;
  uint32_t mask = 0;
  for (uint32_t first = 0, b = 0; first < lanes && first < 128; first += per_block, ++b) {
    const uint32_t n = std::min(per_block, lanes - first);
    const uint64_t bits = n >= 64 ? ~0ull : (1ull << n) - 1;
    if ((ins.mask[first >> 6] >> (first & 63)) & bits) mask |= 1u << b;
  }
  return mask;
}

// The most masks among `m[0..n)` that share one bit: at_least[j] holds the
// bits j + 1 of the masks seen so far share.
uint32_t maxCover(const uint32_t* m, unsigned n) {
  uint32_t at_least[kMaxOperands + 1] = {};
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = i + 1; j-- > 0;) at_least[j] |= (j ? at_least[j - 1] : ~0u) & m[i];
  unsigned worst = 0;
  while (worst < n && at_least[worst]) ++worst;
  return worst;
}

// Cycles of repeat `r`: one row per bank group a cycle; reads to one group,
// writes to one group, or a read and a write to one bank serialise.
uint32_t repeatCycles(const Stream* streams, unsigned n, uint64_t r, uint32_t groups,
                      uint64_t row_bytes, uint64_t span, bool reference) {
  // Usual case: every operand's active blocks are consecutive rows within
  // one bank; each is then a rotated run of bits over the groups.
  uint32_t mask[kMaxOperands + 1], bank[kMaxOperands + 1];
  bool simple = !reference && groups <= 32;
  for (unsigned i = 0; i < n && simple; ++i) {
    const Stream& st = streams[i];
    const uint32_t nb = uint32_t(__builtin_popcount(st.active));
    simple = st.blocks > 0 && (st.blocks == 1 || st.blk == row_bytes) && st.active == (1u << nb) - 1 &&
             nb <= groups;
    if (!simple) break;
    const uint64_t first = st.base + r * st.rep, last = first + (nb - 1) * st.blk;
    simple = first / span == last / span;
    const uint32_t g = uint32_t((first / row_bytes) % groups);
    const uint64_t run = nb == 32 ? ~0ull : (1ull << nb) - 1;
    const uint64_t rotated = (run << g) | (run >> (groups - g));
    mask[i] = uint32_t(rotated & ((groups == 32) ? ~0u : (1u << groups) - 1));
    bank[i] = uint32_t(first / span);
  }
  if (simple) {
    uint32_t reads[kMaxOperands + 1], writes[kMaxOperands + 1];
    unsigned nr = 0, nw = 0;
    for (unsigned i = 0; i < n; ++i) (streams[i].write ? writes[nw++] : reads[nr++]) = mask[i];
    uint32_t worst = std::max({1u, maxCover(reads, nr), maxCover(writes, nw)});
    for (unsigned w = 0; w < n; ++w) {
      if (!streams[w].write) continue;
      uint32_t same[kMaxOperands + 1];
      unsigned ns = 0;
      for (unsigned i = 0; i < n; ++i)
        if (!streams[i].write && bank[i] == bank[w] && (mask[i] & mask[w])) same[ns++] = mask[i] & mask[w];
      if (ns) worst = std::max(worst, 1 + maxCover(same, ns));
    }
    return worst;
  }
  // General case: count rows per group and per (group, bank).
  uint8_t group_reads[32] = {}, group_writes[32] = {};
  uint8_t bank_reads[32][8] = {}, bank_writes[32][8] = {};
  uint32_t worst = 1;
  for (unsigned i = 0; i < n; ++i) {
    const Stream& st = streams[i];
    for (uint32_t blk = 0; blk < st.blocks; ++blk) {
      if (!((st.active >> blk) & 1)) continue;
      const uint64_t addr = st.base + r * st.rep + blk * st.blk;
      const uint32_t g = uint32_t((addr / row_bytes) % groups), b = uint32_t((addr / span) & 7);
      if (st.write) {
        worst = std::max<uint32_t>(worst, ++group_writes[g]);
        ++bank_writes[g][b];
      } else {
        worst = std::max<uint32_t>(worst, ++group_reads[g]);
        ++bank_reads[g][b];
      }
      if (bank_reads[g][b] && bank_writes[g][b])
        worst = std::max<uint32_t>(worst, bank_reads[g][b] + bank_writes[g][b]);
    }
  }
  return worst;
}

}  // namespace

CostFn costFunction(Opcode op) {
  static const std::array<CostFn, 256> table = buildCostTable();
  return table[unsigned(op)];
}

LaneParams resolveLane(const soc::SocSpec& soc, Lane lane, uint32_t active_cores) {
  const soc::TimingTable& t = soc.timing;
  const soc::Bound b = boundOf(lane);
  LaneParams p{};
  p.scalar_issue = t.scalar_issue_cycles.at(b);
  p.loop_branch = t.loop_branch_cycles.at(b);
  p.flag_latency = t.flag_latency_cycles.at(b);
  p.barrier = t.barrier_cycles.at(b);
  p.queue_depth = std::clamp(unsigned(t.pipe_queue_depth.at(b)), 1u, kMaxQueueDepth);
  p.task_launch = t.task_launch_cycles.at(b);
  p.block_dispatch = t.block_dispatch_cycles.at(b);
  // The chip's sustained bandwidth split evenly among the cores that run the
  // kernel, each capped; at the optimistic end a core never waits for another.
  const double peak = soc.gm_bytes_per_second / soc.clock_hz;
  const double sharing = lane == Lane::Low ? 1.0 : double(std::max(1u, active_cores));
  p.gm_rate = std::min(t.gm_core_bytes_per_cycle.at(b), t.gm_sustained_efficiency.at(b) * peak / sharing);
  p.gm_shared_port = t.gm_read_write_shared.at(b) >= 0.5;
  p.mte2_startup = t.mte2_startup_cycles.at(b);
  p.mte3_startup = t.mte3_startup_cycles.at(b);
  p.burst_overhead = t.dma_burst_overhead_cycles.at(b);
  p.granule = t.gm_burst_granule_bytes.at(b);
  p.in_flight = std::clamp(unsigned(t.mte_transfers_in_flight.at(b)), 1u, kMaxInFlight);
  p.l2 = lane == Lane::IdealL2 || lane == Lane::Low;
  p.l2_rate = t.l2_bytes_per_cycle.at(b);
  p.onchip_startup = t.mte1_startup_cycles.at(b);
  p.l1_to_l0a = t.l1_to_l0a_bytes_per_cycle.at(b);
  p.l1_to_l0b = t.l1_to_l0b_bytes_per_cycle.at(b);
  p.load3d = t.load3d_bytes_per_cycle.at(b);
  p.l1_to_ub = t.l1_to_ub_bytes_per_cycle.at(b);
  p.ub_to_l1 = t.ub_to_l1_bytes_per_cycle.at(b);
  p.l0c_to_ub = t.l0c_to_ub_bytes_per_cycle.at(b);
  p.ub_to_ub = t.ub_to_ub_bytes_per_cycle.at(b);
  p.cube_startup = t.cube_startup_cycles.at(b);
  p.cube_fractals = t.cube_fractals_per_cycle.at(b);
  p.vec_issue = t.vector_issue_cycles.at(b);
  p.vec_repeat = t.vector_repeat_cycles.at(b);
  p.vec_complex = t.vector_complex_repeat_cycles.at(b);
  p.vec_dependency = t.vector_dependency_cycles.at(b);
  p.bank_conflicts = t.ub_bank_conflicts.at(b) >= 0.5;
  auto whole = [](double v) { return v <= 0 ? uint64_t(0) : uint64_t(std::ceil(v)); };
  p.scalar_issue_cycles = whole(p.scalar_issue);
  p.loop_branch_cycles = whole(p.loop_branch);
  p.flag_latency_cycles = whole(p.flag_latency);
  p.barrier_cycles = whole(p.barrier);
  p.vec_dependency_cycles = whole(p.vec_dependency);
  return p;
}

uint64_t bankConflictCycles(const Instruction& ins, const uint64_t ub_offset[kMaxOperands],
                            const soc::TimingTable& t, bool reference) {
  const uint64_t repeats = ins.p[param::Repeat];
  if (repeats == 0) return 0;
  const uint32_t groups = uint32_t(t.ub_bank_groups.value);
  const uint64_t row_bytes = uint64_t(t.ub_bank_row_bytes.value);
  const uint64_t span = uint64_t(t.ub_bank_span_bytes.value);
  if (groups == 0 || groups > 32 || row_bytes == 0 || span == 0) return repeats;

  const uint32_t wide = std::max(dtypeBytes(ins.dtype), dtypeBytes(ins.dtype2));
  const uint32_t lanes = 256 / std::max(1u, wide);
  auto strided = [&](unsigned slot, uint32_t esize, unsigned blk_param, unsigned rep_param,
                     bool write) {
    const uint32_t blocks = std::max(1u, lanes * esize / 32);
    return Stream{ub_offset[slot], uint64_t(ins.p[blk_param]) * 32, uint64_t(ins.p[rep_param]) * 32,
                  blocks, activeBlocks(ins, lanes, esize), write};
  };
  // One row a repeat, consecutive: bit masks, reduction results, broadcast sources.
  auto compact = [&](unsigned slot, uint64_t bytes_per_repeat, bool write) {
    return Stream{ub_offset[slot], 0, bytes_per_repeat, 1, 1, write};
  };
  Stream streams[kMaxOperands + 1];
  unsigned n = 0;
  const uint32_t es = dtypeBytes(ins.dtype);
  switch (ins.op) {
    case Opcode::VCmp:
    case Opcode::VCmps:
      streams[n++] = compact(0, lanes / 8, true);
      streams[n++] = strided(1, es, param::Src0Blk, param::Src0Rep, false);
      if (ins.op == Opcode::VCmp) streams[n++] = strided(2, es, param::Src1Blk, param::Src1Rep, false);
      break;
    case Opcode::VCAdd:
    case Opcode::VCMax:
    case Opcode::VCMin:
      streams[n++] = compact(0, (ins.flags & flag::AcrossRepeats) ? 0 : es, true);
      streams[n++] = strided(1, es, param::Src0Blk, param::Src0Rep, false);
      break;
    case Opcode::VBrcb:
      streams[n++] = strided(0, es, param::DstBlk, param::DstRep, true);
      streams[n++] = compact(1, es, false);
      break;
    case Opcode::VConv:
      streams[n++] = strided(0, dtypeBytes(ins.dtype2), param::DstBlk, param::DstRep, true);
      streams[n++] = strided(1, es, param::Src0Blk, param::Src0Rep, false);
      break;
    default: {
      streams[n++] = strided(0, es, param::DstBlk, param::DstRep, true);
      if (ins.op == Opcode::VMla || ins.op == Opcode::VAxpy)  // dst is read too
        streams[n++] = strided(0, es, param::DstBlk, param::DstRep, false);
      if (ins.operand[1].used()) streams[n++] = strided(1, es, param::Src0Blk, param::Src0Rep, false);
      if (ins.operand[2].used()) streams[n++] = strided(2, es, param::Src1Blk, param::Src1Rep, false);
      if (ins.op == Opcode::VSel) streams[n++] = compact(3, lanes / 8, false);
      break;
    }
  }

  // The bank-group pattern has period `groups` in the repeat index. It is
  // often shorter: repeat r + p meets the groups repeat r did when every
  // stream's p repeats span whole rounds of the groups and no stream leaves
  // its bank over the repeats counted. The reference counts all of them.
  const uint64_t period = std::min<uint64_t>(repeats, groups);
  uint64_t short_period = period;
  if (!reference) {
    const uint64_t round = uint64_t(groups) * row_bytes;
    bool one_bank = true;
    for (unsigned i = 0; i < n && one_bank; ++i) {
      const Stream& st = streams[i];
      const uint64_t hi = st.base + (period - 1) * st.rep + uint64_t(st.blocks - 1) * st.blk + 32;
      one_bank = st.base / span == (hi - 1) / span;
    }
    for (uint64_t p = 1; one_bank && p < period; p *= 2) {
      bool whole = true;
      for (unsigned i = 0; i < n && whole; ++i) whole = (p * streams[i].rep) % round == 0;
      if (whole) {
        short_period = p;
        break;
      }
    }
  }
  uint64_t cycles_of[32] = {};
  for (uint64_t r = 0; r < short_period; ++r)
    cycles_of[r] = repeatCycles(streams, n, r, groups, row_bytes, span, reference);
  for (uint64_t r = short_period; r < period; ++r) cycles_of[r] = cycles_of[r % short_period];
  uint64_t one_period = 0;
  for (uint64_t r = 0; r < period; ++r) one_period += cycles_of[r];
  uint64_t total = (repeats / period) * one_period;
  for (uint64_t r = 0; r < repeats % period; ++r) total += cycles_of[r];
  return total;
}

}  // namespace vinci::sim::detail
