//===- ConvCommon.h - shared by the convolution-family templates -*- C++ -*-===//
//
// The Cube conv (Conv.cpp), the Vector depthwise conv and the pooling
// templates read and write activations in NCHW or NC1HWC0 (passes/Layouts.h,
// chosen by vinci-assign-layouts); this is how they ask which, and the GM
// argument type a layout gives a tensor.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_LOWER_CONVCOMMON_H
#define VINCI_BACKEND_LOWER_CONVCOMMON_H

#include "passes/Layouts.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace vinci::lower {

/// An activation's layout in GM: NCHW (ND of a 4-D tensor) or NC1HWC0.
enum class ActLayout { NCHW, NC1HWC0 };

/// The layout of GM argument `index` (operands, then results) of `call`.
ActLayout activationLayout(mlir::func::CallOp call, unsigned index);
/// `type` (the !dv.gm of argument `index` as gmSignature gives it) with the
/// argument's storage shape: [N, C1, H, W, 16] for NC1HWC0.
mlir::Type layoutGmType(mlir::func::CallOp call, unsigned index, mlir::Type type);

} // namespace vinci::lower

#endif // VINCI_BACKEND_LOWER_CONVCOMMON_H
