//===- ShapeConverters.cpp - ONNX shapes and generated constants ------------===//
//
// Ops whose result is known once shapes are static: Shape, Size, EyeLike
// and the window functions. (Constant, ConstantOfShape and Range read
// tensors, so they live with the importer in OnnxImporter.cpp.)
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

LogicalResult convertShape(NodeImporter &n) {
  SmallVector<NamedAttribute> attrs{n.i64("start", n.attrInt("start", 0))};
  if (n.hasAttr("end"))
    attrs.push_back(n.i64("end", n.attrInt("end", 0)));
  return n.define(n.make1("vg.shape", {n.in(0)}, attrs));
}

// size(x) -> the constant element count (shapes are static)
LogicalResult convertSize(NodeImporter &n) {
  return n.define(ArrayRef<Value>{
      n.scalar(n.builder.getIntegerType(64), double(n.typeOf(0).getNumElements()))});
}

// eye_like(x) -> the constant y[i, j] = (j - i == k) of x's shape
LogicalResult convertEyeLike(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  if (type.getRank() != 2)
    return n.fail("input must be 2-D, got rank " + Twine(type.getRank()));
  Type element = type.getElementType();
  if (n.hasAttr("dtype")) {
    element = elementTypeOf(*n.builder.getContext(), n.attrInt("dtype", 0));
    if (!element)
      return n.fail("dtype " + dtypeName(n.attrInt("dtype", 0)) + " is not supported");
  }
  int64_t k = n.attrInt("k", 0);
  SmallVector<double> eye;
  for (int64_t i = 0; i < type.getDimSize(0); ++i)
    for (int64_t j = 0; j < type.getDimSize(1); ++j)
      eye.push_back(j - i == k ? 1.0 : 0.0);
  return n.define(ArrayRef<Value>{constantOf(n, type.clone(element), eye)});
}

// Windows of `size` points, N = size (periodic) or size - 1 (symmetric):
// hann(k) -> 1/2 - 1/2 cos(2 pi k / N), hamming(k) -> 25/46 - 21/46 cos(2 pi k / N),
// blackman(k) -> 0.42 - 0.5 cos(2 pi k / N) + 0.08 cos(4 pi k / N); a constant
// once size is.
LogicalResult convertWindow(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> size = n.constInts(0, "size");
  if (failed(size))
    return failure();
  if (size->size() != 1 || size->front() < 0)
    return n.fail("size must be a non-negative scalar");
  int64_t outputType = n.attrInt("output_datatype", onnx::TensorProto::FLOAT);
  Type element = elementTypeOf(*n.builder.getContext(), outputType);
  if (!element)
    return n.fail("output_datatype " + dtypeName(outputType) + " is not supported");
  StringRef type = n.node.op_type();
  double a0 = type == "HannWindow" ? 0.5 : type == "HammingWindow" ? 25.0 / 46.0 : 0.42;
  double a1 = type == "BlackmanWindow" ? 0.5 : 1.0 - a0;
  double a2 = type == "BlackmanWindow" ? 0.08 : 0.0;
  int64_t count = size->front();
  // A symmetric window of one point has N = 0: its one angle is taken as 0.
  double period = n.attrInt("periodic", 1) != 0 ? double(count) : double(count - 1);
  SmallVector<double> window;
  for (int64_t k = 0; k < count; ++k) {
    double angle = period > 0 ? 2.0 * M_PI * double(k) / period : 0.0;
    window.push_back(a0 - a1 * std::cos(angle) + a2 * std::cos(2.0 * angle));
  }
  return n.define(
      ArrayRef<Value>{constantOf(n, RankedTensorType::get({count}, element), window)});
}

} // namespace

void populateShapeConverters(ConverterTable &table) {
  table["Shape"] = convertShape;
  table["Size"] = convertSize;
  table["EyeLike"] = convertEyeLike;
  for (StringRef op : {"HannWindow", "HammingWindow", "BlackmanWindow"})
    table[op] = convertWindow;
}

} // namespace vinci::onnx_import
