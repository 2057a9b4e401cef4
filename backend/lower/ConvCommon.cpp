//===- ConvCommon.cpp - shared by the convolution-family templates --------===//
#include "backend/lower/ConvCommon.h"

#include "dv/DvOps.h"

using namespace mlir;

namespace vinci::lower {

ActLayout activationLayout(func::CallOp call, unsigned index) {
  return layoutOfArgument(call, index) == TensorLayout::NC1HWC0 ? ActLayout::NC1HWC0
                                                                  : ActLayout::NCHW;
}

Type layoutGmType(func::CallOp call, unsigned index, Type type) {
  if (layoutOfArgument(call, index) != TensorLayout::NC1HWC0)
    return type;
  Value tensor = index < call.getNumOperands() ? call.getOperand(index)
                                               : call.getResult(index - call.getNumOperands());
  auto shaped = cast<RankedTensorType>(tensor.getType());
  return dv::GmType::get(type.getContext(), storageShape(shaped, TensorLayout::NC1HWC0),
                         dv::getElementType(type));
}

} // namespace vinci::lower
