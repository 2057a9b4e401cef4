// The SoC table: every hardware number the compiler and the simulator use.
//
// One table of data (soc.cpp), never constants scattered in code. Each timing
// cost carries its source or the assumption behind it; where the public record
// is silent the figure errs on the pessimistic side. Standalone header: the
// compiler links vinci_soc to validate --soc_version.
#ifndef VINCI_SOC_H
#define VINCI_SOC_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vinci::soc {

// On-chip and off-chip memory spaces of one AI Core (GM is shared by the chip).
enum class Space : uint8_t { GM = 0, L1 = 1, L0A = 2, L0B = 3, L0C = 4, UB = 5 };
inline constexpr unsigned kNumSpaces = 6;
const char* spaceName(Space s);

// Element types the Cube takes as input; the fractal shape depends on it.
enum class CubeInput : uint8_t { F16 = 0, S8 = 1, BF16 = 2, F32 = 3 };
inline constexpr unsigned kNumCubeInputs = 4;

// One Cube fractal step: an m x k tile of A times a k x n tile of B per cycle.
struct FractalShape {
  uint32_t m = 0, n = 0, k = 0;  // all zero: the Cube does not take this type
};

// Which end of its range a timing cost is taken at. The simulator reports
// every latency at the nominal values and at both ends (its error bars).
enum class Bound : uint8_t { Nominal = 0, Optimistic = 1, Pessimistic = 2 };

// One timing cost with where it comes from. `value` is the nominal figure;
// `optimistic` and `pessimistic` are the ends of its plausible range (the end
// that gives the lower, resp. higher, latency: for a rate the optimistic end
// is the larger number). A sourced figure has all three equal unless the
// source gives a range; an assumption leans pessimistic at its nominal value.
struct Cost {
  double value;
  double optimistic;
  double pessimistic;
  const char* source;  // citation, or "assumption: ..." with the reasoning

  double at(Bound b) const {
    return b == Bound::Optimistic ? optimistic : b == Bound::Pessimistic ? pessimistic : value;
  }
};

// The timing table. Cycles are AI Core clock cycles; rates are bytes per
// cycle of one AI Core (CANN's unit, GetCoreMemBw). The compiler's planning
// reads none of it except cube_fractals_per_cycle (the Cube peak): it ranks
// tilings by the SocSpec's peak figures, so a change here moves simulated
// figures only.
struct TimingTable {
  // Scalar unit and synchronisation.
  Cost scalar_issue_cycles;        // per instruction the Scalar unit issues
  Cost pipe_queue_depth;           // instructions a pipe queue holds before the Scalar unit stalls
  Cost loop_branch_cycles;         // extra per loop back-edge taken
  Cost flag_latency_cycles;        // set_flag on one pipe -> visible to wait_flag
  Cost barrier_cycles;             // pipe_barrier drain overhead
  // Launch: a task waits for the previous one, then its blocks are dispatched.
  Cost task_launch_cycles;         // per task (kernel launch), before its first block starts
  Cost block_dispatch_cycles;      // per block, on the core that runs it, before it starts
  // GM (DDR) through a chip-wide arbiter.
  Cost gm_sustained_efficiency;    // sustained chip bandwidth / peak (gm_bytes_per_second)
  Cost gm_core_bytes_per_cycle;    // cap on one core's GM traffic
  Cost gm_read_write_shared;       // 1: a core's MTE2 reads and MTE3 writes share one GM port
  Cost mte2_startup_cycles;        // GM read DMA start-up latency per instruction
  Cost mte3_startup_cycles;        // GM write DMA start-up latency per instruction
  Cost mte_transfers_in_flight;    // GM transfers one MTE pipe overlaps (their start-ups)
  Cost dma_burst_overhead_cycles;  // per burst (row) of a GM transfer
  Cost gm_burst_granule_bytes;     // GM transfers move whole granules
  // L2 (between the cores and DDR); used only by the ideal-L2 figures.
  Cost l2_bytes;                   // capacity
  Cost l2_bytes_per_cycle;         // a core's rate for L2 hits
  // On-chip moves (no GM).
  Cost mte1_startup_cycles;        // on-chip DMA start-up per instruction
  Cost l1_to_l0a_bytes_per_cycle;
  Cost l1_to_l0b_bytes_per_cycle;
  Cost load3d_bytes_per_cycle;     // load_3d (img2col L1 -> L0A/L0B): fractal bytes written
  Cost l1_to_ub_bytes_per_cycle;
  Cost ub_to_l1_bytes_per_cycle;   // on MTE3
  Cost l0c_to_ub_bytes_per_cycle;  // through the Vector unit
  Cost ub_to_ub_bytes_per_cycle;   // copy on the Vector pipe
  // Cube.
  Cost cube_startup_cycles;        // per mmad: pipeline fill/drain
  Cost cube_fractals_per_cycle;    // fractal steps per cycle
  // Vector.
  Cost vector_issue_cycles;        // per vector instruction, beyond its repeats
  Cost vector_repeat_cycles;       // per repeat of a simple vector op
  Cost vector_complex_repeat_cycles;  // per repeat of exp/ln/sqrt/rsqrt/rec/div
  Cost vector_dependency_cycles;   // a vector instruction reading what the previous ones write
                                   // waits this long after their last repeat
  Cost ub_bank_conflicts;          // 1: UB bank-group / bank conflicts serialise a repeat's rows
  Cost ub_bank_groups;             // bank groups, interleaved by ub_bank_row_bytes
  Cost ub_bank_row_bytes;
  Cost ub_bank_span_bytes;         // bytes of consecutive rows spread over the groups before
                                   // the next bank of each group starts
};

struct SocSpec {
  const char* name;
  const char* description;     // printed by the tools
  uint32_t ai_core_count;
  bool coupled_cube_vector;    // one Scalar unit drives Cube and Vector
  const char* coupling_note;   // how the simulator models this SoC's cores
  uint64_t buffer_bytes[kNumSpaces];     // per core; GM entry is 0 (per chip, sized by the host)
  uint32_t alignment_bytes[kNumSpaces];  // required start alignment per space
  FractalShape cube_fractal[kNumCubeInputs];
  uint32_t mmad_max_m, mmad_max_n, mmad_max_k;
  uint32_t vector_bytes_per_repeat;      // 256
  uint32_t vector_block_bytes;           // 32
  uint32_t max_repeat;                   // 255
  uint32_t event_ids;                    // 8 flags per (src pipe, dst pipe)
  bool supports_bf16;
  bool supports_fp32_cube;
  double clock_hz;
  double gm_bytes_per_second;            // per chip, peak; the timing table says how much is sustained
  TimingTable timing;

  uint64_t bufferBytes(Space s) const { return buffer_bytes[static_cast<unsigned>(s)]; }
  uint32_t alignment(Space s) const { return alignment_bytes[static_cast<unsigned>(s)]; }
  double cubeMacsPerCyclePerCore(CubeInput t) const {
    const FractalShape& f = cube_fractal[static_cast<unsigned>(t)];
    return double(f.m) * f.n * f.k * timing.cube_fractals_per_cycle.value;
  }
};

// The timing table's entries by name ("gm_sustained_efficiency", ...), in
// table order: for tools that print the table or override an entry.
struct TimingEntry {
  const char* name;
  Cost TimingTable::*cost;
};
const std::vector<TimingEntry>& timingEntries();

// Applies "name=value,name=optimistic,name=pessimistic,..." to `table`: a
// number sets the entry's nominal value, "optimistic" / "pessimistic" moves it
// to that end of its range (for what-if runs and the error-bar analysis). On a
// bad item returns false with a one-line message naming it.
bool applyTimingOverrides(TimingTable& table, std::string_view spec, std::string& error);

// The SoC called `name` (exact match, e.g. "Ascend310P3"), or nullptr.
const SocSpec* findSoc(std::string_view name);
// The default target, Ascend310P3.
const SocSpec& defaultSoc();
// Every SoC in the table, default first.
const std::vector<const SocSpec*>& allSocs();
// The SoC that kernels exported as Ascend C (--emit=ascendc) are planned
// for: Ascend310P3-AscendC, the 310P3 with the 248 KiB of UB Ascend C's TPipe
// gives a kernel; nullptr for a SoC the export does not target.
const SocSpec* ascendCTarget(const SocSpec& soc);
// The SOC_VERSION CANN's toolchain names `soc` by ("Ascend310P3" for
// Ascend310P3-AscendC).
const char* cannSocVersion(const SocSpec& soc);

}  // namespace vinci::soc

#endif  // VINCI_SOC_H
