// load_3d (Load3D v1, img2col L1 -> L0A/L0B): what the decoder, the footprint
// rule, the timing model and the functional model need of it (internal).
#ifndef VINCI_SIM_LOAD3D_H
#define VINCI_SIM_LOAD3D_H

#include <cstdint>
#include <string>

#include "vinci/sim/isa.h"
#include "vinci/soc.h"

namespace vinci::sim::detail {

// Why the dtype and parameters of a load_3d are invalid ("" when valid).
std::string checkLoad3d(const Instruction& ins);
// Bytes from operand `slot`'s offset the instruction touches (the source
// envelope covers every plane it reads, from plane 0 of the feature map).
uint64_t load3dFootprint(const Instruction& ins, unsigned slot);
// Bytes of fractals the instruction writes (its cost, in timing.cpp).
uint64_t load3dFractalBytes(const Instruction& ins);
// Writes the fractals to `dst` from the feature map at `src`.
void execLoad3d(const Instruction& ins, uint8_t* dst, const uint8_t* src);

}  // namespace vinci::sim::detail

#endif  // VINCI_SIM_LOAD3D_H
