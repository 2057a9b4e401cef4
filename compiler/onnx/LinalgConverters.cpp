//===- LinalgConverters.cpp - ONNX matrix products --------------------------===//
//
// Gemm and MatMul (Einsum has its own expander, EinsumExpander.cpp).
//
//===----------------------------------------------------------------------===//
#include "onnx/Importer.h"

#include "vg/VgOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace vinci::onnx_import {
namespace {

// gemm(A, B, C) -> alpha * matmul(A', B') + beta * C
LogicalResult convertGemm(NodeImporter &n) {
  FailureOr<Value> product =
      n.make1("vg.matmul", {n.in(0), n.in(1)},
              {n.named("transpose_a", n.builder.getBoolAttr(n.attrInt("transA", 0) != 0)),
               n.named("transpose_b", n.builder.getBoolAttr(n.attrInt("transB", 0) != 0))});
  if (failed(product))
    return failure();
  Type element = cast<RankedTensorType>(product->getType()).getElementType();
  float alpha = n.attrFloat("alpha", 1.0f), beta = n.attrFloat("beta", 1.0f);
  if (alpha != 1.0f)
    product = n.make1("vg.mul", {*product, n.scalar(element, alpha)});
  if (failed(product) || !n.has(2) || beta == 0.0f)
    return n.define(product);
  FailureOr<Value> bias = n.in(2);
  if (beta != 1.0f)
    bias = n.make1("vg.mul", {*bias, n.scalar(element, beta)});
  if (failed(bias))
    return failure();
  return n.define(n.make1("vg.add", {*product, *bias}));
}

LogicalResult convertMatMul(NodeImporter &n) {
  return n.define(n.make1("vg.matmul", {n.in(0), n.in(1)}));
}

} // namespace

void populateLinalgConverters(ConverterTable &table) {
  table["MatMul"] = convertMatMul;
  table["Gemm"] = convertGemm;
}

} // namespace vinci::onnx_import
