//===- Layouts.cpp - the GM layout of a tensor between kernels ------------===//
#include "passes/Layouts.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace vinci {

StringRef layoutName(TensorLayout layout) {
  return layout == TensorLayout::NC1HWC0 ? "nc1hwc0" : "nd";
}

TensorLayout layoutOfArgument(Operation *launch, unsigned index) {
  auto layouts = launch ? launch->getAttrOfType<ArrayAttr>(kLayoutsAttr) : ArrayAttr();
  if (!layouts || index >= layouts.size())
    return TensorLayout::ND;
  auto name = dyn_cast<StringAttr>(layouts[index]);
  return name && name.getValue() == "nc1hwc0" ? TensorLayout::NC1HWC0 : TensorLayout::ND;
}

TensorLayout layoutOf(Value tensor) {
  auto result = dyn_cast<OpResult>(tensor);
  if (!result)
    return TensorLayout::ND;
  Operation *producer = result.getOwner();
  return layoutOfArgument(producer, producer->getNumOperands() + result.getResultNumber());
}

SmallVector<int64_t> storageShape(RankedTensorType type, TensorLayout layout) {
  SmallVector<int64_t> shape(type.getShape());
  if (layout != TensorLayout::NC1HWC0 || shape.size() != 4)
    return shape;
  return {shape[0], (shape[1] + 15) / 16, shape[2], shape[3], 16};
}

} // namespace vinci
