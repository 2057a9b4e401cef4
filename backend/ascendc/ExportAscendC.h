//===- ExportAscendC.h - a lowered model as a CANN project ---------*- C++ -*-===//
//
// `vinci-compile --emit=ascendc --output DIR` (docs/ascendc.md): the module
// after the kernel pipeline (placed, synchronised dv kernels and the graph
// function that launches them) becomes a self-contained CANN project:
//
//   DIR/kernels/<kernel>.cpp  one Ascend C source per kernel
//   DIR/main.cpp              the AscendCL host program (init, device
//                             memory, weights and inputs in, the tasks in
//                             order on a stream, outputs out)
//   DIR/weights.bin           the weights in device layout (fp16, NZ)
//   DIR/io.json               inputs, outputs, weights, kernels and tasks
//   DIR/CMakeLists.txt        CANN's toolchain (SOC_VERSION Ascend310P3,
//                             dav-m200), or Vinci's host implementation
//   DIR/README.md             the commands
//
// The same module gives the same bytes. DIR is written whole or not at all
// (a folder beside it, renamed into place); an existing DIR must be an
// earlier export, which is replaced.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_ASCENDC_EXPORTASCENDC_H
#define VINCI_BACKEND_ASCENDC_EXPORTASCENDC_H

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>

namespace vinci::backend {

struct AscendCSummary {
  size_t numKernels = 0;
  size_t numTasks = 0;
  uint64_t weightsBytes = 0;
};

/// Writes the export of `module` (graph function @main) to `dir`. Returns
/// false with one line (naming the kernel and the instruction when a kernel
/// cannot be written) and leaves no `dir` behind.
bool exportAscendC(mlir::ModuleOp module, const std::string &modelName, const std::string &dir,
                   AscendCSummary &summary, std::string &error);

} // namespace vinci::backend

#endif // VINCI_BACKEND_ASCENDC_EXPORTASCENDC_H
