//===- EmitOm.h - write a lowered model as an .om ----------------*- C++ -*-===//
//
// The last step of vinci-compile: a module whose graph function launches
// dv kernels (after lowering, buffer allocation and sync insertion) becomes
// an .om container. Kernels are encoded to the ISA; graph inputs and
// outputs are the caller's buffers; weights are converted to their storage
// type (fp16 under force_fp16) and stored aligned; every other tensor lives
// in one GM arena whose offsets the memory planner fixes now.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_OM_EMITOM_H
#define VINCI_BACKEND_OM_EMITOM_H

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vinci::backend {

struct OmSummary {
  size_t numKernels = 0;
  size_t numTasks = 0;
  uint64_t arenaBytes = 0;
  uint64_t arenaLowerBoundBytes = 0;
  uint64_t weightsBytes = 0;
  uint64_t fileBytes = 0;
};

/// Writes the model in `module` (graph function @main) to `path` atomically.
/// Returns false with a one-line message when something cannot be emitted.
bool emitOm(mlir::ModuleOp module, const std::string &modelName, const std::string &path,
            OmSummary &summary, std::string &error);

} // namespace vinci::backend

#endif // VINCI_BACKEND_OM_EMITOM_H
