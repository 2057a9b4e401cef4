//===- Matchers.h - small matchers the graph rewrites share -----*- C++ -*-===//
#ifndef VINCI_PASSES_GRAPH_MATCHERS_H
#define VINCI_PASSES_GRAPH_MATCHERS_H

#include "vg/VgOps.h"

#include "mlir/IR/Matchers.h"

namespace vinci::graph {

/// The value of a one-element floating-point constant.
inline std::optional<double> scalarConstant(mlir::Value value) {
  mlir::ElementsAttr attr;
  if (!mlir::matchPattern(value, mlir::m_Constant(&attr)) || attr.getNumElements() != 1 ||
      !llvm::isa<mlir::FloatType>(attr.getElementType()))
    return std::nullopt;
  auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  return (*dense.getValues<llvm::APFloat>().begin()).convertToDouble();
}

/// Whether `value` is a one-element constant within 1e-3 relative of `want`.
inline bool isScalar(mlir::Value value, double want) {
  std::optional<double> got = scalarConstant(value);
  return got && std::abs(*got - want) <= 1e-3 * std::max(1.0, std::abs(want));
}

/// The op producing `value` if it is an OpT whose only user is `user`.
template <typename OpT>
OpT singleUseProducer(mlir::Value value) {
  auto op = value.getDefiningOp<OpT>();
  return op && value.hasOneUse() ? op : OpT();
}

/// For a commutative binary op: the operand that is not `known`, or null.
inline mlir::Value otherOperand(mlir::Operation *op, mlir::Value known) {
  if (op->getOperand(0) == known)
    return op->getOperand(1);
  if (op->getOperand(1) == known)
    return op->getOperand(0);
  return {};
}

} // namespace vinci::graph

#endif // VINCI_PASSES_GRAPH_MATCHERS_H
