//===- KernelRules.cpp - which vg ops run as which kind of kernel ---------===//
#include "passes/KernelRules.h"

#include "vg/VgOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace vinci {

OpRole classifyOp(Operation *op) {
  using namespace vg;
  return llvm::TypeSwitch<Operation *, OpRole>(op)
      .Case<ConstantOp, ShapeOp, ConstantOfShapeOp, RangeOp>(
          [](auto) { return OpRole::Constant; })
      .Case<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, IdentityOp, DropoutOp>(
          [](auto) { return OpRole::View; })
      .Case<MatMulOp, ConvOp>([](auto) { return OpRole::Cube; })
      .Case<SoftmaxOp, LogSoftmaxOp, LayerNormOp, RmsNormOp, ReduceMeanOp, ReduceSumOp, ReduceMaxOp,
            ReduceMinOp, ReduceProdOp, ReduceL2Op, ArgMaxOp, ArgMinOp, MaxPoolOp,
            AveragePoolOp, GlobalAveragePoolOp, GlobalMaxPoolOp>(
          [](auto) { return OpRole::Reduction; })
      .Case<TransposeOp, SliceOp, ConcatOp, SplitOp, GatherOp, ExpandOp, TileOp, PadOp,
            ResizeOp>([](auto) { return OpRole::DataMovement; })
      // Everything else in vg computes each output element from the same
      // (broadcast) position of its inputs; batch_norm is a per-channel affine.
      .Default([](Operation *) { return OpRole::Elementwise; });
}

StringRef kernelKindName(KernelKind kind) {
  return kind == KernelKind::Cube ? "cube" : "vector";
}

bool mayJoinKernel(OpRole anchor, OpRole consumer) {
  // matmul/conv -> epilogue: bias, activation, residual add, cast run on the
  // Vector unit while the result is still on chip (L0C -> UB).
  // elementwise -> elementwise: one pass over the data in UB.
  // Reductions and data movement end a kernel: their outputs have another
  // shape or order, so fusing more needs its own template.
  if (consumer != OpRole::Elementwise)
    return false;
  return anchor == OpRole::Cube || anchor == OpRole::Elementwise;
}

bool cubeEpilogueTakes(Operation *consumer, Value fromKernel) {
  auto result = dyn_cast<RankedTensorType>(consumer->getResult(0).getType());
  if (!result || result.getRank() == 0)
    return false;
  int64_t columns = result.getShape().back();
  for (Value other : consumer->getOperands()) {
    if (other == fromKernel)
      continue;
    auto type = dyn_cast<RankedTensorType>(other.getType());
    if (!type || !type.hasStaticShape())
      return false;
    int64_t elements = type.getNumElements();
    bool row = type.getRank() > 0 && type.getShape().back() == columns && elements == columns;
    if (elements != 1 && !row && type.getShape() != result.getShape())
      return false;
  }
  return true;
}

} // namespace vinci
