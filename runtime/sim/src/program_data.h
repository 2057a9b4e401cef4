// The decoded form of a kernel program (internal to vinci_sim).
#ifndef VINCI_SIM_PROGRAM_DATA_H
#define VINCI_SIM_PROGRAM_DATA_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "vinci/sim/isa.h"

namespace vinci::sim::detail {

struct ProgramData {
  std::vector<Instruction> code;
  std::vector<uint32_t> loop_partner;  // LoopBegin -> its LoopEnd pc, LoopEnd -> its LoopBegin pc
  // operandFootprint of every slot, per pc: it depends on the record alone,
  // and the core needs it several times per dynamic instruction.
  std::vector<std::array<uint64_t, kMaxOperands>> footprint;
  uint64_t dynamic_count = 0;          // instructions executed per block
  uint64_t serial = 0;                 // unique to this decoded program (keys per-core memos)
  uint32_t num_args = 0;
};

}  // namespace vinci::sim::detail

#endif  // VINCI_SIM_PROGRAM_DATA_H
