// The functional Vector unit (internal). Operands arrive resolved to host
// pointers whose extents the caller has bounds-checked.
#ifndef VINCI_SIM_VECTOR_H
#define VINCI_SIM_VECTOR_H

#include <cstdint>

#include "vinci/sim/isa.h"

namespace vinci::sim::detail {

// Executes a validated vector instruction (VAdd .. VBrcb); `reference`: the
// scalar reference code only, never a fast path.
void execVector(const Instruction& ins, uint8_t* const op[kMaxOperands], bool reference);
// Executes a validated MoveL0cToUb.
void execMoveL0cToUb(const Instruction& ins, uint8_t* dst, const uint8_t* src, bool reference);

}  // namespace vinci::sim::detail

#endif  // VINCI_SIM_VECTOR_H
