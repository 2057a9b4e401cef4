//===- KernelSource.h - one dv.kernel as an Ascend C source -------*- C++ -*-===//
//
// The kernel half of `--emit=ascendc` (docs/ascendc.md): a placed and
// synchronised dv.kernel becomes one Ascend C source file with the same
// buffers (TBufs of the kernel's spaces at the dv offsets), loops, tiling
// and SetFlag/WaitFlag as the dv kernel, one Ascend C call (or a documented
// sequence of calls) per dv instruction. Deterministic: the same kernel
// gives the same bytes.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_ASCENDC_KERNELSOURCE_H
#define VINCI_BACKEND_ASCENDC_KERNELSOURCE_H

#include <cstdint>
#include <string>

namespace vinci::dv {
class KernelOp;
}

namespace vinci::backend::ascendc {

struct KernelSource {
  std::string name;      // the kernel's symbol, also the extern "C" function
  std::string fileName;  // <name>.cpp
  std::string text;
  uint32_t blockDim = 1;
  unsigned numArgs = 0;
};

/// The C++ declaration of the launch function a kernel source defines:
/// `void launch_<name>(uint32_t blockDim, void *stream, uint8_t *arg0, ...)`.
std::string launchDeclaration(const KernelSource &kernel);

/// Writes `kernel` as Ascend C. On failure returns false with one line
/// naming the kernel and the instruction ("kernel k3_reduce_sum: 'dv.vcadd'
/// op: ...").
bool writeKernelSource(dv::KernelOp kernel, KernelSource &out, std::string &error);

}  // namespace vinci::backend::ascendc

#endif  // VINCI_BACKEND_ASCENDC_KERNELSOURCE_H
