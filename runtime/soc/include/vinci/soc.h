// The SoC table: every hardware number the compiler and the simulator use.
//
// One table of data (soc.cpp), never constants scattered in code. Each timing
// cost carries its source or the assumption behind it; where the public record
// is silent the figure errs on the pessimistic side. Standalone header: the
// compiler links vinci_soc to validate --soc_version.
#ifndef VINCI_SOC_H
#define VINCI_SOC_H

#include <cstdint>
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

// One timing cost with where it comes from.
struct Cost {
  double value;
  const char* source;  // citation, or "assumption: ..." with the reasoning
};

// The timing table. Cycles are AI Core clock cycles.
struct TimingTable {
  Cost scalar_issue_cycles;        // per instruction the Scalar unit issues
  Cost pipe_queue_depth;           // instructions a pipe queue holds before the Scalar unit stalls
  Cost loop_branch_cycles;         // extra per loop back-edge taken
  Cost flag_latency_cycles;        // set_flag on one pipe -> visible to wait_flag
  Cost barrier_cycles;             // pipe_barrier drain overhead
  Cost mte2_startup_cycles;        // GM read DMA start-up latency per instruction
  Cost mte3_startup_cycles;        // GM write DMA start-up latency per instruction
  Cost mte1_startup_cycles;        // L1 -> L0A/L0B/UB start-up per instruction
  Cost dma_burst_overhead_cycles;  // per burst (row) of a GM transfer
  Cost gm_burst_granule_bytes;     // GM transfers move whole granules
  Cost mte1_bytes_per_cycle;       // L1 -> L0A/L0B/UB bandwidth
  Cost local_copy_bytes_per_cycle; // UB -> UB, UB -> L1 and L0C -> UB moves
  Cost cube_startup_cycles;        // per mmad: pipeline fill/drain
  Cost cube_fractals_per_cycle;    // fractal steps per cycle
  Cost vector_issue_cycles;        // per vector instruction, beyond its repeats
  Cost vector_repeat_cycles;       // per repeat of a simple vector op
  Cost vector_complex_repeat_cycles;  // per repeat of exp/ln/sqrt/rsqrt/rec/div
  Cost vector_strided_penalty_cycles; // per repeat when any block stride != 1
                                      // (bank conflicts; not public)
  Cost load3d_bytes_per_cycle;     // load_3d (img2col L1 -> L0A/L0B) fractal bytes written
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
  double gm_bytes_per_second;            // per chip, shared by the active cores
  TimingTable timing;

  uint64_t bufferBytes(Space s) const { return buffer_bytes[static_cast<unsigned>(s)]; }
  uint32_t alignment(Space s) const { return alignment_bytes[static_cast<unsigned>(s)]; }
  double cubeMacsPerCyclePerCore(CubeInput t) const {
    const FractalShape& f = cube_fractal[static_cast<unsigned>(t)];
    return double(f.m) * f.n * f.k * timing.cube_fractals_per_cycle.value;
  }
};

// The SoC called `name` (exact match, e.g. "Ascend310P3"), or nullptr.
const SocSpec* findSoc(std::string_view name);
// The default target, Ascend310P3.
const SocSpec& defaultSoc();
// Every SoC in the table, default first.
const std::vector<const SocSpec*>& allSocs();

}  // namespace vinci::soc

#endif  // VINCI_SOC_H
