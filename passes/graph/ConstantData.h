//===- ConstantData.h - reading and making f32 constants -------*- C++ -*-===//
//
// Graph rewrites that fold arithmetic into weights at compile time (BatchNorm
// folding and expansion, the im2col weight matrix) read constants whether
// they are dense attributes or resource blobs, and make new ones the same
// two ways: large weights as blobs, small ones inline.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_PASSES_GRAPH_CONSTANTDATA_H
#define VINCI_PASSES_GRAPH_CONSTANTDATA_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <optional>
#include <vector>

namespace vinci::graph {

/// The values of an f32 constant (dense or blob), or nullopt.
std::optional<std::vector<float>> f32Values(mlir::Value value);

/// A vg.constant of `shape` holding `values`: a resource blob named
/// `blobName`, or a dense attribute when the name is empty.
mlir::Value f32Constant(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<int64_t> shape,
                        llvm::ArrayRef<float> values, llvm::StringRef blobName);

} // namespace vinci::graph

#endif // VINCI_PASSES_GRAPH_CONSTANTDATA_H
