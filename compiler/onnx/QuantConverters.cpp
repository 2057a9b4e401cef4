//===- QuantConverters.cpp - ONNX's quantised ops, as vg arithmetic --------===//
//
// QuantizeLinear, DequantizeLinear (per tensor and per axis), MatMulInteger
// and QLinearMatMul, written out in vg's float arithmetic (f32 values,
// exact for 8-bit operands: the integer matmul's sums are exact in f32
// below 2^24). The 8-bit tensors stay 8-bit in GM; the elementwise kernels
// convert them with vconv. The Cube's s8 x s8 -> s32 path is the int8
// lowering's (docs/quantization.md), not these decompositions'.
//
//===----------------------------------------------------------------------===//
#include "onnx/Importer.h"

#include <cmath>

namespace vinci::onnx_import {
namespace {

Type f32(NodeImporter &n) { return n.builder.getF32Type(); }

FailureOr<Value> toF32(NodeImporter &n, FailureOr<Value> value) {
  if (failed(value))
    return mlir::failure();
  if (elementOf(*value).isF32())
    return value;
  return n.make1("vg.cast", {*value}, {n.named("to", mlir::TypeAttr::get(f32(n)))});
}

/// A quantisation parameter (scale or zero point) shaped to broadcast
/// against a tensor of rank `rank`: a scalar (or one element) as it is, a
/// 1-D tensor along `axis`.
FailureOr<Value> alongAxis(NodeImporter &n, Value param, int64_t rank, int64_t axis,
                           StringRef what) {
  auto type = mlir::cast<RankedTensorType>(param.getType());
  if (type.getRank() == 0 || (type.getRank() == 1 && type.getDimSize(0) == 1 && rank != 1))
    return n.make1("vg.reshape", {param}, {n.i64s("shape", {})});
  if (type.getRank() != 1)
    return n.fail(what + " must be a scalar or 1-D (per axis), not of rank " +
                  Twine(type.getRank()));
  if (axis < -rank || axis >= rank)
    return n.fail("axis " + Twine(axis) + " is out of range for a tensor of rank " +
                  Twine(rank));
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = type.getDimSize(0);
  return n.make1("vg.reshape", {param}, {n.i64s("shape", shape)});
}

/// The integer range of an 8-bit or 32-bit element type.
std::pair<double, double> integerRange(Type element) {
  unsigned width = element.getIntOrFloatBitWidth();
  if (element.isUnsignedInteger())
    return {0.0, std::ldexp(1.0, width) - 1};
  return {-std::ldexp(1.0, width - 1), std::ldexp(1.0, width - 1) - 1};
}

/// saturate(round(value) + zeroPoint) in `element` (ONNX's rounding:
/// halves to even), from an f32 value already divided by the scale.
FailureOr<Value> quantize(NodeImporter &n, FailureOr<Value> value, FailureOr<Value> zeroPoint,
                          Type element) {
  auto [low, high] = integerRange(element);
  FailureOr<Value> shifted = apply(n, "vg.add", {apply(n, "vg.round", {value}), zeroPoint});
  FailureOr<Value> clipped =
      apply(n, "vg.clip", {shifted},
            {n.named("min", n.builder.getF64FloatAttr(low)),
             n.named("max", n.builder.getF64FloatAttr(high))});
  return apply(n, "vg.cast", {clipped}, {n.named("to", mlir::TypeAttr::get(element))});
}

bool isQuantizedType(Type element) {
  return element.isInteger(8) || element.isInteger(32);
}

// y = saturate(round(x / scale) + zero_point), in the zero point's type
// (uint8 without one); scale and zero point per tensor or along `axis`.
LogicalResult convertQuantizeLinear(NodeImporter &n) {
  auto type = n.typeOf(0);
  int64_t axis = n.attrInt("axis", 1);
  Type element = n.has(2) ? n.typeOf(2).getElementType()
                          : n.builder.getIntegerType(8, /*isSigned=*/false);
  if (!element.isInteger(8))
    return n.fail("y_zero_point must be int8 or uint8 (the type QuantizeLinear produces)");
  FailureOr<Value> scale = alongAxis(n, n.in(1), type.getRank(), axis, "y_scale");
  FailureOr<Value> zeroPoint =
      n.has(2) ? toF32(n, alongAxis(n, n.in(2), type.getRank(), axis, "y_zero_point"))
               : FailureOr<Value>(n.scalar(f32(n), 0));
  FailureOr<Value> divided = apply(n, "vg.div", {toF32(n, n.in(0)), scale});
  return n.define(quantize(n, divided, zeroPoint, element));
}

// y = (x - zero_point) * scale, in the scale's type.
LogicalResult convertDequantizeLinear(NodeImporter &n) {
  auto type = n.typeOf(0);
  if (!isQuantizedType(type.getElementType()))
    return n.fail("x must be int8, uint8 or int32");
  int64_t axis = n.attrInt("axis", 1);
  FailureOr<Value> scale = alongAxis(n, n.in(1), type.getRank(), axis, "x_scale");
  FailureOr<Value> x = toF32(n, n.in(0));
  if (n.has(2))
    x = apply(n, "vg.sub", {x, toF32(n, alongAxis(n, n.in(2), type.getRank(), axis,
                                                  "x_zero_point"))});
  FailureOr<Value> y = apply(n, "vg.mul", {x, scale});
  Type scaleElement = n.typeOf(1).getElementType();
  if (succeeded(y) && !scaleElement.isF32())
    y = n.make1("vg.cast", {*y}, {n.named("to", mlir::TypeAttr::get(scaleElement))});
  return n.define(y);
}

/// An 8-bit matmul operand minus its zero point, in f32: a's zero point is
/// a scalar or one per row (axis -2), b's one per column (axis -1).
FailureOr<Value> centred(NodeImporter &n, int operand, int zeroPoint, int64_t axis,
                         StringRef what) {
  FailureOr<Value> value = toF32(n, n.in(operand));
  if (!n.has(zeroPoint))
    return value;
  int64_t rank = n.typeOf(operand).getRank();
  return apply(n, "vg.sub",
               {value, toF32(n, alongAxis(n, n.in(zeroPoint), rank, axis, what))});
}

LogicalResult checkEightBit(NodeImporter &n, std::initializer_list<int> operands) {
  for (int operand : operands)
    if (!n.typeOf(operand).getElementType().isInteger(8))
      return n.fail("input " + Twine(operand) + " must be int8 or uint8");
  return mlir::success();
}

// y = (a - a_zero_point) x (b - b_zero_point), in int32.
LogicalResult convertMatMulInteger(NodeImporter &n) {
  if (failed(checkEightBit(n, {0, 1})))
    return mlir::failure();
  FailureOr<Value> product =
      apply(n, "vg.matmul", {centred(n, 0, 2, -2, "a_zero_point"),
                             centred(n, 1, 3, -1, "b_zero_point")});
  return n.define(apply(n, "vg.cast", {product},
                        {n.named("to", mlir::TypeAttr::get(n.builder.getIntegerType(32)))}));
}

// y = saturate(round((a - a_zp) x (b - b_zp) * (a_scale * b_scale / y_scale)) + y_zp)
LogicalResult convertQLinearMatMul(NodeImporter &n) {
  if (failed(checkEightBit(n, {0, 3, 7})))
    return mlir::failure();
  int64_t rankA = n.typeOf(0).getRank(), rankB = n.typeOf(3).getRank();
  FailureOr<Value> product =
      apply(n, "vg.matmul", {centred(n, 0, 2, -2, "a_zero_point"),
                             centred(n, 3, 5, -1, "b_zero_point")});
  FailureOr<Value> multiplier =
      apply(n, "vg.div",
            {apply(n, "vg.mul", {alongAxis(n, n.in(1), rankA, -2, "a_scale"),
                                 alongAxis(n, n.in(4), rankB, -1, "b_scale")}),
             n.in(6)});
  FailureOr<Value> scaled = apply(n, "vg.mul", {product, multiplier});
  FailureOr<Value> zeroPoint = toF32(n, n.in(7));
  return n.define(quantize(n, scaled, zeroPoint, n.typeOf(7).getElementType()));
}

} // namespace

void populateQuantConverters(ConverterTable &table) {
  table["QuantizeLinear"] = convertQuantizeLinear;
  table["DequantizeLinear"] = convertDequantizeLinear;
  table["MatMulInteger"] = convertMatMulInteger;
  table["QLinearMatMul"] = convertQLinearMatMul;
}

} // namespace vinci::onnx_import
