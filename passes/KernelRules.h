//===- KernelRules.h - which vg ops run as which kind of kernel -*- C++ -*-===//
//
// The one place that says how the Da Vinci core executes each vg op, and
// which producers a kernel may absorb. Partitioning and (later) the cost
// model and lowering templates read these rules rather than repeat them.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_PASSES_KERNELRULES_H
#define VINCI_PASSES_KERNELRULES_H

#include "mlir/IR/Operation.h"

namespace vinci {

enum class OpRole {
  Constant,     // weights and folded values: kernel arguments or immediates
  View,         // reshape-like on contiguous ND data: no kernel, no copy
  Cube,         // matrix work on the Cube unit: matmul, conv
  Elementwise,  // one output element from the same position of each input
  Reduction,    // reduces or normalises along axes: softmax, norms, pools
  DataMovement, // reorders or selects data: transpose, slice, gather, ...
};

enum class KernelKind { Cube, Vector };

OpRole classifyOp(mlir::Operation *op);
llvm::StringRef kernelKindName(KernelKind kind);

/// Whether an op of role `consumer` may join the kernel that contains a
/// producer of role `producerKernelAnchor` (the kernel's first op).
bool mayJoinKernel(OpRole anchor, OpRole consumer);

/// Whether the elementwise `consumer` of a Cube kernel's result `fromKernel`
/// can be the kernel's epilogue: every other operand must be one element, a
/// row of the result's last dim or of the result's shape, which the
/// epilogue reads per output tile. Another broadcast (attention's causal
/// mask [1, 1, S, S] over the [B, H, S, S] scores) is left to a Vector
/// kernel of its own.
bool cubeEpilogueTakes(mlir::Operation *consumer, mlir::Value fromKernel);

} // namespace vinci

#endif // VINCI_PASSES_KERNELRULES_H
