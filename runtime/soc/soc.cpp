// The SoC table. Every number the simulator and compiler use about a chip
// lives here, each with its source or the assumption behind it.
#include "vinci/soc.h"

namespace vinci::soc {
namespace {

constexpr uint64_t KiB = 1024;

// Sources cited below:
//  [ini]   CANN platform config Ascend310P3.ini (ai_core_cnt=8, l1_size, l0_a_size,
//          l0_b_size, l0_c_size, ub_size) as reproduced in public CANN repositories.
//  [hc19]  H. Liao et al., "DaVinci: A Scalable Architecture for Neural Network
//          Computing", Hot Chips 31 (2019): 16x16x16 fp16 Cube per cycle, 4096 MACs.
//  [ascc]  CANN Ascend C programming guide: vector instructions process 8 blocks
//          of 32 B per repeat, repeat count up to 255, 32 B UB alignment,
//          512 B L0A/L0B fractals, 64 B L0C alignment.
//  [duo]   Atlas 300I Duo datasheet: 2 chips, 280 TOPS int8, 140 TFLOPS fp16,
//          LPDDR4X 408 GB/s total, i.e. 204.8 GB/s and 70 TFLOPS per chip.
// Timing costs marked "assumption" have no public figure; they are chosen on the
// pessimistic side (slower than we expect the silicon to be).

const TimingTable kTiming310P = {
    /*scalar_issue_cycles*/ {2, "assumption: in-order Scalar unit, decode + dispatch, pessimistic"},
    /*pipe_queue_depth*/ {8, "assumption: shallow per-pipe instruction queues"},
    /*loop_branch_cycles*/ {4, "assumption: counter update, compare, untaken-predicted branch"},
    /*flag_latency_cycles*/ {8, "assumption: set_flag -> wait_flag propagation across pipes"},
    /*barrier_cycles*/ {4, "assumption: pipe_barrier drain handshake"},
    /*mte2_startup_cycles*/ {300, "assumption: GM (LPDDR4X) first-byte latency ~280 ns at 1.07 GHz"},
    /*mte3_startup_cycles*/ {300, "assumption: GM write path, same as MTE2"},
    /*mte1_startup_cycles*/ {24, "assumption: on-core SRAM to SRAM DMA set-up"},
    /*dma_burst_overhead_cycles*/ {2, "assumption: per burst (row) descriptor switch"},
    /*gm_burst_granule_bytes*/ {32, "[ascc] GM transfers move whole 32 B blocks"},
    /*mte1_bytes_per_cycle*/ {256, "assumption: L1 -> L0A/L0B/UB port, half a fractal pair per cycle"},
    /*local_copy_bytes_per_cycle*/ {128, "assumption: L0C -> UB and UB -> UB/L1 at half a vector repeat"},
    /*cube_startup_cycles*/ {32, "assumption: Cube pipeline fill and drain per mmad"},
    /*cube_fractals_per_cycle*/ {1, "[hc19] one 16x16x16 fp16 (16x32x16 int8) fractal per cycle"},
    /*vector_issue_cycles*/ {8, "assumption: vector instruction start-up beyond its repeats"},
    /*vector_repeat_cycles*/ {1, "[hc19][ascc] 256 B (one repeat) per cycle"},
    /*vector_complex_repeat_cycles*/ {4, "assumption: exp/ln/sqrt/rsqrt/rec/div are multi-cycle"},
    /*vector_strided_penalty_cycles*/ {1, "assumption: UB bank conflicts when a block stride != 1"},
    /*load3d_bytes_per_cycle*/ {128, "assumption: img2col reads one 32 B C0 row of L1 per output "
                                     "position and tap, 4 rows a cycle (half the 256 B/cycle of a "
                                     "fractal move); padded rows cost the same; no public figure"},
};

const SocSpec kAscend310P3 = {
    "Ascend310P3",
    "Ascend 310P3: 8 AI cores, coupled Cube + Vector, fp16/int8 Cube, no bf16",
    /*ai_core_count*/ 8,
    /*coupled_cube_vector*/ true,
    "coupled: one Scalar unit drives Cube and Vector in each AI core (as in silicon)",
    // GM, L1, L0A, L0B, L0C, UB  [ini]
    {0, 1024 * KiB, 64 * KiB, 64 * KiB, 256 * KiB, 256 * KiB},
    {1, 32, 512, 512, 64, 32},  // [ascc]
    // F16, S8, BF16, F32 fractals [hc19]
    {{16, 16, 16}, {16, 16, 32}, {0, 0, 0}, {0, 0, 0}},
    4095, 4095, 4095,
    256, 32, 255, 8,
    /*supports_bf16*/ false,
    /*supports_fp32_cube*/ false,
    // 70 TFLOPS fp16 / (8 cores x 4096 MAC x 2 flop) [duo][hc19]
    /*clock_hz*/ 70e12 / (8.0 * 4096 * 2),
    /*gm_bytes_per_second*/ 204.8e9,  // [duo]
    kTiming310P,
};

// Ascend910B-class: the bf16 target. Buffer sizes from CANN's Ascend910B
// platform config (L1 512 KiB, L0C 128 KiB, UB 192 KiB); core count, clock and
// HBM bandwidth are a stated assumption for the class. In silicon the Cube and
// Vector cores are split (1 AIC : 2 AIV); the simulator models them coupled.
const SocSpec kAscend910B = {
    "Ascend910B",
    "Ascend910B-class: 24 AI cores, bf16 Cube and Vector; MODELLED COUPLED (silicon is split)",
    /*ai_core_count*/ 24,
    /*coupled_cube_vector*/ false,
    "split in silicon (AIC + 2 AIV per core); simulated as coupled cores with one Scalar unit",
    {0, 512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 192 * KiB},
    {1, 32, 512, 512, 64, 32},
    {{16, 16, 16}, {16, 16, 32}, {16, 16, 16}, {0, 0, 0}},
    4095, 4095, 4095,
    256, 32, 255, 8,
    /*supports_bf16*/ true,
    /*supports_fp32_cube*/ false,
    /*clock_hz*/ 1.8e9,             // assumption for the class
    /*gm_bytes_per_second*/ 1.6e12,  // assumption: HBM2e, 1.6 TB/s
    kTiming310P,                    // assumption: same per-instruction costs as 310P
};

}  // namespace

const char* spaceName(Space s) {
  switch (s) {
    case Space::GM: return "GM";
    case Space::L1: return "L1";
    case Space::L0A: return "L0A";
    case Space::L0B: return "L0B";
    case Space::L0C: return "L0C";
    case Space::UB: return "UB";
  }
  return "?";
}

const std::vector<const SocSpec*>& allSocs() {
  static const std::vector<const SocSpec*> socs = {&kAscend310P3, &kAscend910B};
  return socs;
}

const SocSpec& defaultSoc() { return kAscend310P3; }

const SocSpec* findSoc(std::string_view name) {
  for (const SocSpec* s : allSocs())
    if (name == s->name) return s;
  return nullptr;
}

}  // namespace vinci::soc
