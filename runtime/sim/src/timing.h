// The timing model's per-instruction costs (internal).
//
// Every figure is simulated in four lanes at once, each a consistent reading
// of the SoC's timing table:
//   Nominal  the table's nominal values, no L2 (the figure printed first)
//   IdealL2  the nominal values with an ideal L2 (the figure's pair)
//   Low      every cost at its optimistic end, with the ideal L2
//   High     every cost at its pessimistic end, no L2
// A lane's parameters are resolved once per kernel (LaneParams); an
// instruction's cost is one function of the instruction, what the core knows
// about its operands (CostInputs) and the lane, found by opcode in one table
// (costFunction). A new instruction adds its rates to the SoC table and one
// cost function with its entry here.
#ifndef VINCI_SIM_TIMING_H
#define VINCI_SIM_TIMING_H

#include <cstdint>

#include "vinci/sim/isa.h"

namespace vinci::sim::detail {

enum class Lane : uint8_t { Nominal = 0, IdealL2 = 1, Low = 2, High = 3 };
inline constexpr unsigned kNumLanes = 4;
inline constexpr unsigned kMaxQueueDepth = 16;
inline constexpr unsigned kMaxInFlight = 4;

// One lane's costs for one kernel: cycles, and bytes per cycle of one core.
struct LaneParams {
  double scalar_issue, loop_branch, flag_latency, barrier;
  unsigned queue_depth;
  double task_launch, block_dispatch;
  double gm_rate;          // this core's share of GM (reads and writes alike)
  bool gm_shared_port;     // reads and writes queue on one port
  double mte2_startup, mte3_startup, burst_overhead, granule;
  unsigned in_flight;
  bool l2;                 // GM reads of resident bytes, and all writes, go to L2
  double l2_rate;
  double onchip_startup, l1_to_l0a, l1_to_l0b, load3d, l1_to_ub, ub_to_l1, l0c_to_ub, ub_to_ub;
  double cube_startup, cube_fractals;
  double vec_issue, vec_repeat, vec_complex, vec_dependency;
  bool bank_conflicts;
  // The fixed costs above as whole cycles (rounded up), once per kernel.
  uint64_t scalar_issue_cycles, loop_branch_cycles, flag_latency_cycles, barrier_cycles,
      vec_dependency_cycles;
};

// `active_cores` run this kernel's blocks at once and share the GM.
LaneParams resolveLane(const soc::SocSpec& soc, Lane lane, uint32_t active_cores);

// What the core knows about an instruction beyond its record.
struct CostInputs {
  uint64_t repeat_cycles = 0;     // vector: the repeats' cycles with UB bank conflicts
  uint64_t repeat_cycles_free = 0;  // the same without conflicts (= repeats)
  uint64_t gm_read_bytes = 0;     // exact bytes a GM read touches
  uint64_t l2_hit_bytes = 0;      // of which an ideal L2 holds
};

// What an instruction asks of its pipe.
struct Demand {
  double front = 0;    // cycles the pipe's front end is held (a compute op: all of it)
  double startup = 0;  // GM DMA start-up, overlapped with other transfers in flight
  double port = 0;     // cycles on the core's GM port
  bool gm_read = false, gm_write = false;
  uint64_t bytes = 0;  // bytes moved (profile)
};

using CostFn = Demand (*)(const Instruction& ins, const CostInputs& in, const LaneParams& lp,
                          const soc::SocSpec& soc);
// The cost function of `op` (vector ops share one); nullptr for the scalar
// and sync instructions, which the timeline handles itself.
CostFn costFunction(Opcode op);

// Cycles of `repeats` vector repeats whose operands start at the given UB
// offsets (kNoSpace slots unused), one row per bank group per cycle, with
// reads to one group, writes to one group, or a read and a write to one bank
// serialised ([bank] in soc.cpp). Closed form: the bank-group pattern repeats
// every 16 repeats, so the first min(repeats, 16) are counted and extended.
// `reference`: count every row (the general path) instead of the bit-mask
// path for consecutive rows; the two agree by construction.
uint64_t bankConflictCycles(const Instruction& ins, const uint64_t ub_offset[kMaxOperands],
                            const soc::TimingTable& t, bool reference);

}  // namespace vinci::sim::detail

#endif  // VINCI_SIM_TIMING_H
