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

// The add kernel's program alone (block_idx picks 2048-byte slices).
std::vector<uint8_t> addKernelProgram(bool drop_wait_flag);

}  // namespace test
}  // namespace vinci
