//===- MaterializeOutputs.cpp - a kernel writes every graph output --------===//
//
// The .om's tasks write graph outputs into the caller's buffers; a graph
// output that is a graph input, a constant, or a reshape-like view of one
// (an Identity, a Reshape or Flatten of the input, a folded Shape) has no
// kernel to write it. Such outputs get an explicit copy, a whole-tensor
// vg.slice that the data-movement template lowers to one DMA box, as ATC
// adds a memcpy task. Outputs computed by kernels, or views of those, need
// nothing: the kernel writes the caller's buffer.
//
//===----------------------------------------------------------------------===//
#include "passes/KernelRules.h"
#include "passes/Passes.h"

#include "vg/VgOps.h"

namespace vinci {
#define GEN_PASS_DEF_MATERIALIZEOUTPUTS
#include "passes/Passes.h.inc"
} // namespace vinci

using namespace mlir;

namespace vinci {
namespace {

/// Whether no kernel computes `value`'s bytes: it is, or views, a graph
/// input or a constant.
bool needsCopy(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (isa<vg::ConstantOp>(def))
      return true;
    if (!isViewOp(def))
      return false;
    value = def->getOperand(0);
  }
  return true; // a block argument: a graph input
}

// return x -> return slice(x, [0..dim) on every axis), when x has no kernel
struct MaterializeOutputs : impl::MaterializeOutputsBase<MaterializeOutputs> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<RankedTensorType>(value.getType());
        // An empty output has no bytes for a copy to write.
        if (!type || !type.hasStaticShape() || type.getNumElements() == 0 || !needsCopy(value))
          continue;
        SmallVector<int64_t> axes, starts, ends, steps;
        for (int64_t d = 0; d < type.getRank(); ++d) {
          axes.push_back(d);
          starts.push_back(0);
          ends.push_back(type.getDimSize(d));
          steps.push_back(1);
        }
        Location loc = value.getDefiningOp() ? value.getDefiningOp()->getLoc() : ret.getLoc();
        operand.set(vg::SliceOp::create(b, loc, type, value, starts, ends, axes, steps));
      }
    }
  }
};

} // namespace
} // namespace vinci
