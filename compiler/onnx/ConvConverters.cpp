//===- ConvConverters.cpp - ONNX convolution, pooling and batch norm --------===//
//
// Conv, the windowed pools, BatchNormalization and LRN (an average pool
// over channels). ConvTranspose has its own expander, ConvTransposeExpander.cpp.
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

/// Window attributes shared by Conv and the pools, copied when present.
void copyWindowAttrs(NodeImporter &n, SmallVectorImpl<NamedAttribute> &attrs, bool dilations) {
  attrs.push_back(n.str("auto_pad", n.attrString("auto_pad", "NOTSET")));
  for (StringRef name : {"kernel_shape", "pads", "strides"})
    if (auto values = n.attrInts(name))
      attrs.push_back(n.i64s(name, *values));
  if (dilations)
    if (auto values = n.attrInts("dilations"))
      attrs.push_back(n.i64s("dilations", *values));
}

LogicalResult convertConv(NodeImporter &n) {
  SmallVector<NamedAttribute> attrs;
  copyWindowAttrs(n, attrs, /*dilations=*/true);
  attrs.push_back(n.i64("group", n.attrInt("group", 1)));
  SmallVector<Value> operands{n.in(0), n.in(1)};
  if (n.has(2))
    operands.push_back(n.in(2));
  return n.define(n.make1("vg.conv", operands, attrs));
}

LogicalResult convertPool(NodeImporter &n) {
  bool isMax = n.node.op_type() == "MaxPool";
  if (isMax && failed(n.onlyFirstOutputs(1, "Indices")))
    return failure();
  if (!n.hasAttr("kernel_shape"))
    return n.fail("kernel_shape is required");
  SmallVector<NamedAttribute> attrs;
  copyWindowAttrs(n, attrs, /*dilations=*/isMax);
  attrs.push_back(n.i64("ceil_mode", n.attrInt("ceil_mode", 0)));
  if (isMax) {
    if (n.attrInt("storage_order", 0) != 0)
      return n.fail("storage_order = 1 is not supported");
  } else {
    attrs.push_back(n.i64("count_include_pad", n.attrInt("count_include_pad", 0)));
  }
  return n.define(n.make1(isMax ? "vg.max_pool" : "vg.average_pool", {n.in(0)}, attrs));
}

LogicalResult convertBatchNorm(NodeImporter &n) {
  if (failed(n.onlyFirstOutputs(1, "training statistics")))
    return failure();
  if (n.attrInt("training_mode", 0) != 0)
    return n.fail("training_mode = 1 is not supported (inference only)");
  if (n.opset < 9 && n.attrInt("spatial", 1) != 1)
    return n.fail("spatial = 0 is not supported");
  return n.define(n.make1("vg.batch_norm", {n.in(0), n.in(1), n.in(2), n.in(3), n.in(4)},
                          {n.f32("epsilon", n.attrFloat("epsilon", 1e-5f))}));
}

// lrn(x) -> x / (bias + alpha * mean_c(x^2))^beta, the mean over a window of
// `size` channels (zero padded; ONNX's alpha / size * sum), taken as an
// average pool of x^2 viewed as [N, 1, C, rest] with a size x 1 window.
LogicalResult convertLrn(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  if (type.getRank() < 3)
    return n.fail("input must be N x C x D1 x ... (rank 3 or more), got rank " +
                  Twine(type.getRank()));
  if (!n.hasAttr("size") || n.attrInt("size", 0) <= 0)
    return n.fail("size must be a positive integer");
  int64_t size = n.attrInt("size", 0);
  float alpha = n.attrFloat("alpha", 1e-4f), beta = n.attrFloat("beta", 0.75f),
        bias = n.attrFloat("bias", 1.0f);
  Value x = n.in(0);
  Type element = type.getElementType();
  int64_t N = type.getDimSize(0), C = type.getDimSize(1);
  int64_t rest = type.getNumElements() / std::max<int64_t>(N * C, 1);
  FailureOr<Value> squares = apply(n, "vg.reshape", {apply(n, "vg.mul", {x, x})},
                                   {n.i64s("shape", {N, 1, C, rest})});
  FailureOr<Value> windowMean = apply(
      n, "vg.average_pool", {squares},
      {n.i64s("kernel_shape", {size, 1}), n.i64s("pads", {(size - 1) / 2, 0, size / 2, 0}),
       n.i64("count_include_pad", 1)});
  FailureOr<Value> denominator = apply(
      n, "vg.pow",
      {apply(n, "vg.add", {n.scalar(element, bias),
                           apply(n, "vg.mul", {windowMean, n.scalar(element, alpha)})}),
       n.scalar(element, beta)});
  FailureOr<Value> reshaped =
      apply(n, "vg.reshape", {denominator}, {n.i64s("shape", type.getShape())});
  return n.define(apply(n, "vg.div", {x, reshaped}));
}

} // namespace

void populateConvConverters(ConverterTable &table) {
  table["Conv"] = convertConv;
  table["MaxPool"] = convertPool;
  table["AveragePool"] = convertPool;
  table["BatchNormalization"] = convertBatchNorm;
  table["LRN"] = convertLrn;
}

} // namespace vinci::onnx_import
