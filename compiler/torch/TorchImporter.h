//===- TorchImporter.h - a GraphSpec from the PyTorch front end to vg -----===//
#ifndef VINCI_COMPILER_TORCH_TORCHIMPORTER_H
#define VINCI_COMPILER_TORCH_TORCHIMPORTER_H

#include "torch/GraphSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace vinci::torch_import {

/// Builds a module with one func.func @main from `graph`: every op's result
/// types come from vg's inference (which also checks the op), constants over
/// 256 elements become dense_resource blobs over the caller's bytes (no
/// copy: `graph`'s buffers must outlive the module's context). On failure
/// returns null with one-line messages in `errors`, each naming the torch node.
mlir::OwningOpRef<mlir::ModuleOp> importGraph(mlir::MLIRContext &context, const GraphSpec &graph,
                                              std::vector<std::string> &errors);

} // namespace vinci::torch_import

#endif // VINCI_COMPILER_TORCH_TORCHIMPORTER_H
