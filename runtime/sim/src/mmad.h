// The functional Cube: mmad on fractal-layout operands (internal).
#ifndef VINCI_SIM_MMAD_H
#define VINCI_SIM_MMAD_H

#include <cstdint>
#include <vector>

#include "vinci/sim/isa.h"

namespace vinci::sim::detail {

// Per-thread scratch reused across calls (fp32 / int32 panels of A and B).
struct MmadScratch {
  std::vector<float> a, b, c;
  std::vector<int32_t> ai, bi;
};

// C (L0C, NZ: [n1][m1*16][16]) = (init ? 0 : C) + A (L0A, [m1][k1][16][k0]) x
// B (L0B, [k1][n1][16 n][k0], each fractal stored n-major). Sums run over the
// first k elements in ascending order with one fp32 rounding per addition
// (products of fp16/bf16 are exact in fp32, so a fused multiply-add gives the
// same bits). Full fractals are written, padded rows and columns included.
// `reference`: the portable kernel and packing, never the AVX2 / AVX-512 ones.
void mmad(const uint8_t* a, const uint8_t* b, uint8_t* c, uint32_t m, uint32_t n, uint32_t k,
          DType in, DType out, bool init, MmadScratch& scratch, bool reference);

}  // namespace vinci::sim::detail

#endif  // VINCI_SIM_MMAD_H
