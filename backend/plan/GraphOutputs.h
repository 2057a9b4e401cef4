//===- GraphOutputs.h - which kernel writes a graph output --------*- C++ -*-===//
//
// Shared by the writers of device images (the .om, the Ascend C export):
// only a kernel writes an output buffer, so an output that is a graph input,
// a constant or another output would need a copy task. An output that is a
// view (reshape-like) of a kernel result is that result's bytes: the kernel
// writes the caller's buffer.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_PLAN_GRAPHOUTPUTS_H
#define VINCI_BACKEND_PLAN_GRAPHOUTPUTS_H

#include "dv/DvOps.h"
#include "vg/VgOps.h"

#include "mlir/IR/BuiltinTypes.h"

#include <string>

namespace vinci::backend {

/// `output` with its chain of one-operand views walked back to the value a
/// launch (or a constant, or a graph argument) produced.
inline mlir::Value viewedProducer(mlir::Value output) {
  mlir::Value produced = output;
  while (mlir::Operation *def = produced.getDefiningOp()) {
    if (mlir::isa<dv::LaunchOp, vg::ConstantOp>(def) || def->getNumOperands() != 1 ||
        def->getNumResults() != 1)
      break;
    produced = def->getOperand(0);
  }
  return produced;
}

/// Whether graph output `index` (`output`, whose producer is `produced`)
/// can be written by its kernel: `placedAlready` says `produced` already has
/// a buffer (an input or an earlier output). An empty output has no bytes
/// for anything to write. Otherwise false with a one-line message.
inline bool checkKernelWritesOutput(mlir::Value output, mlir::Value produced, bool placedAlready,
                                    size_t index, std::string &error) {
  bool empty = mlir::cast<mlir::RankedTensorType>(output.getType()).getNumElements() == 0;
  if (empty || (!placedAlready && produced.getDefiningOp<dv::LaunchOp>()))
    return true;
  error = "graph output " + std::to_string(index) +
          " is not computed by a kernel (it is an input, a constant, a view or another "
          "output); such models are not supported yet";
  return false;
}

} // namespace vinci::backend

#endif // VINCI_BACKEND_PLAN_GRAPHOUTPUTS_H
