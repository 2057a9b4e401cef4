// The SoC table. Every number the simulator and compiler use about a chip
// lives here, each with its source or the assumption behind it.
#include "vinci/soc.h"

#include <cstdlib>

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
//  [fixture] Huawei's 310P platform description in hicann/ops-nn
//          pooling/avg_pool3_d/tests/ut/op_host/test_avg_pool3_d_tiling.cpp
//          (Short_SoC_version Ascend310P, CORE_NUM 8, L2_SIZE 16777216,
//          ddr_read_rate 17, ddr_write_rate 17, ub_to_ddr_rate 17, l2_rate 114,
//          l1_to_l0_a_rate 512, l1_to_l0_b_rate 256, l1_to_ub_rate 128,
//          l0_c_to_ub_rate 256, ub_to_l1_rate 256): the fields of the platform
//          config's memory rates, in bytes per cycle per core (the unit of
//          Ascend C's GetCoreMemBw). A unit-test fixture, not the shipped .ini:
//          the L2 it gives is therefore used only for the "ideal L2" figure,
//          which is always printed beside the no-L2 one.
//  [bank]  CANN Ascend C best practices, "avoid UB bank conflicts" (NPU arch
//          220x): 16 bank groups interleaved by 32 B rows, 3 banks a group of
//          4 KiB each; reads to one bank group, writes to one bank group, and a
//          read and a write to one bank conflict, one row per group per cycle.
//          The record is silent for 310P (dav-m200).
//  [dma]   CANN Ascend C best practices, "transfer a large block at a time":
//          single transfers of 16 KB and more reach near-peak bandwidth,
//          smaller ones do not.
// Timing costs marked "assumption" have no public figure; their nominal value
// leans to the pessimistic side (slower than we expect the silicon to be) and
// their range is what the error bars span. Each entry: {nominal, optimistic,
// pessimistic, source}.

constexpr double kMiB = 1024.0 * 1024.0;

const TimingTable kTiming310P = {
    /*scalar_issue_cycles*/ {2, 1, 3, "assumption: in-order Scalar unit, decode + dispatch"},
    /*pipe_queue_depth*/ {8, 16, 4, "assumption: shallow per-pipe instruction queues"},
    /*loop_branch_cycles*/ {4, 1, 8, "assumption: counter update, compare, untaken-predicted branch"},
    /*flag_latency_cycles*/ {8, 4, 16, "assumption: set_flag -> wait_flag propagation across pipes"},
    /*barrier_cycles*/ {4, 2, 8, "assumption: pipe_barrier drain handshake"},
    /*task_launch_cycles*/ {1000, 500, 3000,
                            "assumption: the task scheduler starts a task ~1 us after the "
                            "previous one ends (no public 310P figure)"},
    /*block_dispatch_cycles*/ {100, 20, 300,
                               "assumption: a core receives each block's arguments and start "
                               "signal (~0.1 us)"},
    /*gm_sustained_efficiency*/ {0.70, 0.85, 0.60,
                                 "assumption: LPDDR4X sustains 60-85% of peak; [fixture] 8 cores "
                                 "x 17 B/cycle = 71% of [duo]'s peak"},
    /*gm_core_bytes_per_cycle*/ {17, 17, 17, "[fixture] ddr_read_rate = ub_to_ddr_rate = 17"},
    /*gm_read_write_shared*/ {1, 0, 1,
                              "assumption: a core's GM reads and writes share its port "
                              "(optimistic end: separate read and write channels)"},
    /*mte2_startup_cycles*/ {300, 200, 400, "assumption: GM (LPDDR4X) first-byte latency ~280 ns"},
    /*mte3_startup_cycles*/ {300, 200, 400, "assumption: GM write path, same as MTE2"},
    /*mte_transfers_in_flight*/ {2, 4, 1,
                                 "assumption: DMA descriptors pipelined two deep; with 300 cycles "
                                 "of start-up at 17 B/cycle, single transfers reach ~90% of the "
                                 "core's rate at 4 KB and all of it from 16 KB ([dma])"},
    /*dma_burst_overhead_cycles*/ {2, 1, 4, "assumption: per burst (row) descriptor switch"},
    /*gm_burst_granule_bytes*/ {32, 32, 32, "[ascc] GM transfers move whole 32 B blocks"},
    /*l2_bytes*/ {16 * kMiB, 16 * kMiB, 16 * kMiB, "[fixture] L2_SIZE 16777216"},
    /*l2_bytes_per_cycle*/ {114, 114, 114, "[fixture] l2_rate = ub_to_l2_rate = 114"},
    /*mte1_startup_cycles*/ {24, 12, 48, "assumption: on-core SRAM to SRAM DMA set-up"},
    /*l1_to_l0a_bytes_per_cycle*/ {512, 512, 512, "[fixture] l1_to_l0_a_rate"},
    /*l1_to_l0b_bytes_per_cycle*/ {256, 256, 256, "[fixture] l1_to_l0_b_rate"},
    /*load3d_bytes_per_cycle*/ {128, 512, 64,
                                "assumption: img2col reads one 32 B C0 row of L1 per output "
                                "position and tap, 4 rows a cycle (a quarter of the fixture's "
                                "l1_to_l0_a_rate; optimistic end: all of it); padded rows cost "
                                "the same; no public figure"},
    /*l1_to_ub_bytes_per_cycle*/ {128, 128, 128, "[fixture] l1_to_ub_rate"},
    /*ub_to_l1_bytes_per_cycle*/ {256, 256, 256, "[fixture] ub_to_l1_rate"},
    /*l0c_to_ub_bytes_per_cycle*/ {256, 256, 256, "[fixture] l0_c_to_ub_rate"},
    /*ub_to_ub_bytes_per_cycle*/ {128, 256, 128,
                                  "assumption: a UB -> UB copy at half a vector repeat a cycle "
                                  "(optimistic end: a whole repeat)"},
    /*cube_startup_cycles*/ {32, 16, 64, "assumption: Cube pipeline fill and drain per mmad"},
    /*cube_fractals_per_cycle*/ {1, 1, 1, "[hc19] one 16x16x16 fp16 (16x32x16 int8) fractal per cycle"},
    /*vector_issue_cycles*/ {8, 4, 16, "assumption: vector instruction start-up beyond its repeats"},
    /*vector_repeat_cycles*/ {1, 1, 1, "[hc19][ascc] 256 B (one repeat) per cycle"},
    /*vector_complex_repeat_cycles*/ {4, 2, 8, "assumption: exp/ln/sqrt/rsqrt/rec/div are multi-cycle"},
    /*vector_dependency_cycles*/ {16, 0, 32,
                                  "assumption: the Vector pipeline's depth; a dependent "
                                  "instruction waits for the last repeat's result (CANN puts "
                                  "PipeBarrier<PIPE_V> between dependent vector calls)"},
    /*ub_bank_conflicts*/ {1, 0, 1, "assumption: [bank]'s 220x rules hold on 310P"},
    /*ub_bank_groups*/ {16, 16, 16, "[bank] 16 bank groups"},
    /*ub_bank_row_bytes*/ {32, 32, 32, "[bank] 32 B rows"},
    /*ub_bank_span_bytes*/ {64 * 1024, 64 * 1024, 64 * 1024,
                            "[bank] 16 groups x 4 KiB banks: the next bank of a group starts "
                            "every 64 KiB (four banks a group in the 310P's 256 KiB, assumption)"},
};

// 910B-class: HBM instead of LPDDR4X, a larger L2; everything else as 310P.
TimingTable timing910B() {
  TimingTable t = kTiming310P;
  t.gm_sustained_efficiency = {0.80, 0.90, 0.70, "assumption: HBM2e sustains 70-90% of peak"};
  t.gm_core_bytes_per_cycle = {64, 64, 64, "assumption: a core's HBM port, 64 B a cycle"};
  t.l2_bytes = {192 * kMiB, 192 * kMiB, 192 * kMiB,
                "hicann/catlass include/acot/arch/arch.hpp AscendC910B3 L2CacheByte"};
  t.l2_bytes_per_cycle = {114, 114, 114, "assumption: as 310P's [fixture] l2_rate"};
  return t;
}
const TimingTable kTiming910B = timing910B();

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
    kTiming910B,                    // assumption: 310P's per-instruction costs, HBM and L2 above
};

// The 310P3 as an Ascend C kernel sees it (--emit=ascendc, docs/ascendc.md):
// TPipe hands a kernel 248 KiB of the 256 KiB UB, the rest being Ascend C's
// own [ascc]; everything else is the 310P3's.
SocSpec ascend310P3AscendC() {
  SocSpec s = kAscend310P3;
  s.name = "Ascend310P3-AscendC";
  s.description = "Ascend 310P3 under Ascend C: as Ascend310P3, with the 248 KiB of UB TPipe gives a kernel";
  s.buffer_bytes[static_cast<unsigned>(Space::UB)] = 248 * KiB;
  return s;
}
const SocSpec kAscend310P3AscendC = ascend310P3AscendC();

#define VINCI_TIMING_ENTRY(name) TimingEntry{#name, &TimingTable::name}
const std::vector<TimingEntry> kTimingEntries = {
    VINCI_TIMING_ENTRY(scalar_issue_cycles),       VINCI_TIMING_ENTRY(pipe_queue_depth),
    VINCI_TIMING_ENTRY(loop_branch_cycles),        VINCI_TIMING_ENTRY(flag_latency_cycles),
    VINCI_TIMING_ENTRY(barrier_cycles),            VINCI_TIMING_ENTRY(task_launch_cycles),
    VINCI_TIMING_ENTRY(block_dispatch_cycles),     VINCI_TIMING_ENTRY(gm_sustained_efficiency),
    VINCI_TIMING_ENTRY(gm_core_bytes_per_cycle),   VINCI_TIMING_ENTRY(gm_read_write_shared),
    VINCI_TIMING_ENTRY(mte2_startup_cycles),       VINCI_TIMING_ENTRY(mte3_startup_cycles),
    VINCI_TIMING_ENTRY(mte_transfers_in_flight),   VINCI_TIMING_ENTRY(dma_burst_overhead_cycles),
    VINCI_TIMING_ENTRY(gm_burst_granule_bytes),    VINCI_TIMING_ENTRY(l2_bytes),
    VINCI_TIMING_ENTRY(l2_bytes_per_cycle),        VINCI_TIMING_ENTRY(mte1_startup_cycles),
    VINCI_TIMING_ENTRY(l1_to_l0a_bytes_per_cycle), VINCI_TIMING_ENTRY(l1_to_l0b_bytes_per_cycle),
    VINCI_TIMING_ENTRY(load3d_bytes_per_cycle),
    VINCI_TIMING_ENTRY(l1_to_ub_bytes_per_cycle),  VINCI_TIMING_ENTRY(ub_to_l1_bytes_per_cycle),
    VINCI_TIMING_ENTRY(l0c_to_ub_bytes_per_cycle), VINCI_TIMING_ENTRY(ub_to_ub_bytes_per_cycle),
    VINCI_TIMING_ENTRY(cube_startup_cycles),       VINCI_TIMING_ENTRY(cube_fractals_per_cycle),
    VINCI_TIMING_ENTRY(vector_issue_cycles),       VINCI_TIMING_ENTRY(vector_repeat_cycles),
    VINCI_TIMING_ENTRY(vector_complex_repeat_cycles), VINCI_TIMING_ENTRY(vector_dependency_cycles),
    VINCI_TIMING_ENTRY(ub_bank_conflicts),         VINCI_TIMING_ENTRY(ub_bank_groups),
    VINCI_TIMING_ENTRY(ub_bank_row_bytes),         VINCI_TIMING_ENTRY(ub_bank_span_bytes),
};
#undef VINCI_TIMING_ENTRY
static_assert(sizeof(TimingTable) == 35 * sizeof(Cost), "every TimingTable entry is listed in kTimingEntries");

}  // namespace

const std::vector<TimingEntry>& timingEntries() { return kTimingEntries; }

bool applyTimingOverrides(TimingTable& table, std::string_view spec, std::string& error) {
  while (!spec.empty()) {
    const size_t comma = spec.find(',');
    const std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string_view name = item.substr(0, eq), value = eq == std::string_view::npos ? "" : item.substr(eq + 1);
    const TimingEntry* entry = nullptr;
    for (const TimingEntry& e : kTimingEntries)
      if (name == e.name) entry = &e;
    if (!entry) {
      error = "timing override '" + std::string(item) + "': no timing table entry named '" +
              std::string(name) + "' (docs/isa.md lists them)";
      return false;
    }
    Cost& cost = table.*(entry->cost);
    if (value == "optimistic") {
      cost.value = cost.optimistic;
    } else if (value == "pessimistic") {
      cost.value = cost.pessimistic;
    } else {
      const std::string text(value);
      char* end = nullptr;
      const double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || !(v >= 0) || v > 1e12) {
        error = "timing override '" + std::string(item) +
                "': the value must be a non-negative number, 'optimistic' or 'pessimistic'";
        return false;
      }
      cost.value = v;
    }
  }
  return true;
}

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
  static const std::vector<const SocSpec*> socs = {&kAscend310P3, &kAscend910B, &kAscend310P3AscendC};
  return socs;
}

const SocSpec* ascendCTarget(const SocSpec& soc) {
  return &soc == &kAscend310P3 || &soc == &kAscend310P3AscendC ? &kAscend310P3AscendC : nullptr;
}

const char* cannSocVersion(const SocSpec& soc) {
  return &soc == &kAscend310P3AscendC ? kAscend310P3.name : soc.name;
}

const SocSpec& defaultSoc() { return kAscend310P3; }

const SocSpec* findSoc(std::string_view name) {
  for (const SocSpec* s : allSocs())
    if (name == s->name) return s;
  return nullptr;
}

}  // namespace vinci::soc
