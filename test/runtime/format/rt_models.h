// Hand-assembled models for the runtime tests, the tool tests and the
// fuzzer's seed corpus. Kernels are built with the simulator's
// ProgramBuilder; expected results are computed on the host in fp32 from
// values that fp16 represents exactly, so the comparisons are exact.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vinci/format/writer.h"

namespace vinci {
namespace test {

uint16_t toHalf(float value);
float fromHalf(uint16_t bits);

// z = x + w + y, t = x + w over [kAddRows, kAddCols] fp16 tensors.
//   inputs:  x (separate buffer), y (placed in the arena)
//   outputs: z (separate buffer), t (placed in the arena)
//   weight:  w
//   tasks:   add(x, w) -> arena t;  add(t, y) -> z   (kernel "add", 2 blocks)
inline constexpr uint32_t kAddRows = 2;
inline constexpr uint32_t kAddCols = 1024;

struct AddModelData {
  std::vector<uint16_t> x, y, w;      // inputs and weight, fp16 bits
  std::vector<uint16_t> z, t;         // expected outputs, fp16 bits
};
AddModelData addModelData();
// `drop_wait_flag`: the add kernel omits the MTE2 -> V wait_flag, a hazard
// the simulator must report.
format::OmWriter addModelWriter(bool drop_wait_flag = false);
std::vector<uint8_t> addModelBytes(bool drop_wait_flag = false);

// C = A x B, fp16 [kMm x kMm] each, fp32 accumulation on the Cube: A is
// the input "a", B the weight "b" (ND; the kernel converts it to NZ on its
// way to L1), C the output "c". Kernel "matmul": the simulator tests'
// double-buffered matmul on a 2 x 2 grid of blocks.
inline constexpr uint32_t kMm = 64;
struct MatmulModelData {
  std::vector<uint16_t> a, b, c;  // fp16 bits; c is the expected result
};
MatmulModelData matmulModelData();
std::vector<uint8_t> matmulModelBytes();

// The add chain with batch gears (format 1.1): x, y, z and t are
// [-1, kAddCols] with gears batch 1 and batch 2 (kAddRows), each its own
// tasks and arena plan over one weight w ([kAddRows, kAddCols], of which
// gear 1 reads the first row) and two kernels with the add program at
// block_dim 1 and 2. At gear b the rows of z and t are the first b rows of
// addModelData()'s.
std::vector<uint8_t> gearAddModelBytes();

// The add kernel's program alone (block_idx picks 2048-byte slices).
std::vector<uint8_t> addKernelProgram(bool drop_wait_flag);

}  // namespace test
}  // namespace vinci
