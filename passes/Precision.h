//===- Precision.h - which tensors keep their float type ----------*- C++ -*-===//
//
// The one storage-precision rule (docs/precision.md), read by the partition
// (an fp32 matmul that keeps fp32 takes no Cube-only fusion), by the kernel
// layer's templates (the element type of every GM argument) and by the task
// plan (the bytes of every tensor). It follows the module's
// `vinci.precision_mode` and the `vinci.keep_dtype` marks the driver sets.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_PASSES_PRECISION_H
#define VINCI_PASSES_PRECISION_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/StringRef.h"

namespace vinci {

/// The unit attribute that keeps an op's float types (set by the driver for
/// --keep_dtype and allow_mix_precision; docs/precision.md).
inline constexpr llvm::StringLiteral kKeepDtypeAttr = "vinci.keep_dtype";
/// Whether `op` (a vg op, an outlined kernel's func, its call or the
/// dv.launch that replaced the call) computes and stores its float tensors
/// in their own type rather than f16: the module's `vinci.precision_mode`
/// is "must_keep_origin_dtype", or "allow_fp32_to_fp16" and `op` is not
/// Cube work (a Cube kernel, matmul or conv), or the op carries
/// `vinci.keep_dtype`, or (for a kernel, its call or launch) any op of the
/// kernel's body does.
bool keepsOriginDtype(mlir::Operation *op);
/// The element type a graph tensor has in GM: graph inputs and outputs keep
/// theirs, as does a tensor whose producer keepsOriginDtype and a constant
/// (a weight) that a kernel which keepsOriginDtype reads; every other float
/// tensor is f16 (force_fp16, and allow_mix_precision outside the ops it
/// keeps in fp32).
mlir::Type storageElementType(mlir::Value tensor);

} // namespace vinci

#endif // VINCI_PASSES_PRECISION_H
