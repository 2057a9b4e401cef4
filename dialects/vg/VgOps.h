//===- VgOps.h - the vg graph dialect ---------------------------*- C++ -*-===//
#ifndef VINCI_DIALECTS_VG_VGOPS_H
#define VINCI_DIALECTS_VG_VGOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "vg/VgOpsDialect.h.inc"

namespace vinci::vg {

/// True when every actual result type refines the inferred one: same element
/// type and rank, and each static inferred dim equals the actual dim.
bool areCompatibleResultTypes(mlir::TypeRange inferred, mlir::TypeRange actual);

/// Numpy broadcasting of two or more ranked shapes; nullopt if they do not
/// broadcast. Dynamic dims stay dynamic unless the other side fixes them.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

/// Result type of an elementwise op with broadcasting operands.
llvm::LogicalResult inferBroadcastResult(std::optional<mlir::Location> location,
                                         llvm::StringRef opName,
                                         llvm::ArrayRef<mlir::Type> operandTypes,
                                         bool boolResult, bool sameElementType,
                                         llvm::SmallVectorImpl<mlir::Type> &inferred);

/// Resolves a possibly negative axis against a rank; nullopt if out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// One axis of an ONNX Slice after clamping: the first index and how many
/// elements are taken with the given (non-zero) step.
struct SliceRange {
  int64_t start;
  int64_t count;
};
SliceRange resolveSliceRange(int64_t dim, int64_t start, int64_t end, int64_t step);

} // namespace vinci::vg

#define GET_OP_CLASSES
#include "vg/VgOps.h.inc"

#endif // VINCI_DIALECTS_VG_VGOPS_H
