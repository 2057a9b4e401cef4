//===- Passes.h - Vinci's passes --------------------------------*- C++ -*-===//
#ifndef VINCI_PASSES_PASSES_H
#define VINCI_PASSES_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace vinci {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

class KernelCapabilities;
/// vinci-partition-kernels asking `capabilities` (the driver hands it the
/// backend's) which kernels the templates lower.
std::unique_ptr<mlir::Pass> createPartitionKernels(const PartitionKernelsOptions &options,
                                                   const KernelCapabilities &capabilities);
/// vinci-assign-layouts asking `capabilities` which arguments each
/// kernel's template takes in NC1HWC0.
std::unique_ptr<mlir::Pass> createAssignLayouts(const KernelCapabilities &capabilities);

} // namespace vinci

#endif // VINCI_PASSES_PASSES_H
