//===- Layouts.h - the GM layout of a tensor between kernels ----*- C++ -*-===//
//
// Tensors between kernels are row-major (ND) unless vinci-assign-layouts
// stores one as NC1HWC0 ([N, ceil(C / 16), H, W, 16], channels zero padded
// to a multiple of 16): the layout the Cube's load_3d reads and its L0C
// result already has, kept between conv-family kernels so that no layout
// round trip goes through GM (docs/conv.md). The pass records each kernel
// launch's layouts in kLayoutsAttr; the templates, the task plan and the
// .om writer read them here.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_PASSES_LAYOUTS_H
#define VINCI_PASSES_LAYOUTS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace vinci {

enum class TensorLayout { ND, NC1HWC0 };

/// On a kernel's func.call (and the dv.launch that replaces it): an array
/// of strings, "nd" or "nc1hwc0", one per operand and then one per result.
inline constexpr llvm::StringLiteral kLayoutsAttr = "vinci.layouts";

/// The layout of GM argument `index` (operands first, then results) of the
/// kernel launched by `launch` (a func.call or dv.launch); ND when unset.
TensorLayout layoutOfArgument(mlir::Operation *launch, unsigned index);
/// The layout `tensor` has in GM: its producer's (a kernel launch's result
/// layout); graph inputs, constants and views are ND.
TensorLayout layoutOf(mlir::Value tensor);
/// The shape `type` is stored with in `layout` (NC1HWC0 needs rank 4).
llvm::SmallVector<int64_t> storageShape(mlir::RankedTensorType type, TensorLayout layout);
llvm::StringRef layoutName(TensorLayout layout);

} // namespace vinci

#endif // VINCI_PASSES_LAYOUTS_H
