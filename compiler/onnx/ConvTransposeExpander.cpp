//===- ConvTransposeExpander.cpp - ONNX ConvTranspose as the conv it equals ---===//
//
// 2-D ConvTranspose, expanded into a zero insertion and a stride-1 conv.
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

// conv_transpose(x, w) -> conv(zero_insert(x, strides), flip(w)^T), 2-D: the
// input gets (stride - 1) zeros between its elements, the weight swaps its
// channel dims per group and reverses its window, and the conv (stride 1,
// the same dilation and groups) pads each side by d (k - 1) minus ONNX's
// pads (plus output_padding at the end); a negative pad crops instead.
LogicalResult convertConvTranspose(NodeImporter &n) {
  RankedTensorType xType = n.typeOf(0), wType = n.typeOf(1);
  if (xType.getRank() != 4 || wType.getRank() != 4)
    return n.fail("only 2-D ConvTranspose (4-D input and weight) is supported");
  ArrayRef<int64_t> xs = xType.getShape(), ws = wType.getShape();
  int64_t group = n.attrInt("group", 1);
  int64_t channels = xs[1];
  if (group <= 0 || channels % group != 0 || ws[0] != channels)
    return n.fail("the weight's first dim must be the input's channels, divisible by group");
  auto pair = [&](StringRef name, int64_t fallback) -> FailureOr<std::array<int64_t, 2>> {
    std::optional<SmallVector<int64_t>> values = n.attrInts(name);
    if (!values)
      return std::array<int64_t, 2>{fallback, fallback};
    if (values->size() != 2)
      return failure();
    return std::array<int64_t, 2>{(*values)[0], (*values)[1]};
  };
  auto strides = pair("strides", 1), dilations = pair("dilations", 1),
       outputPadding = pair("output_padding", 0);
  if (failed(strides) || failed(dilations) || failed(outputPadding))
    return n.fail("strides, dilations and output_padding need one value per spatial dim (2)");
  std::array<int64_t, 2> kernel{ws[2], ws[3]}, input{xs[2], xs[3]};
  std::array<int64_t, 4> pads{0, 0, 0, 0}; // begin h, begin w, end h, end w
  if (std::optional<SmallVector<int64_t>> values = n.attrInts("pads")) {
    if (values->size() != 4)
      return n.fail("pads needs 4 values for a 2-D ConvTranspose");
    std::copy(values->begin(), values->end(), pads.begin());
  }
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  std::optional<SmallVector<int64_t>> outputShape = n.attrInts("output_shape");
  if (outputShape && outputShape->size() != 2)
    return n.fail("output_shape needs the 2 spatial dims");
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (!same && autoPad != "NOTSET" && autoPad != "VALID")
    return n.fail("unknown auto_pad '" + autoPad + "'");
  if (outputShape || same) {
    // ONNX: total = s (in - 1) + output_padding + (k - 1) d + 1 - out, split
    // with the larger half at the end for SAME_UPPER (and no auto_pad); an
    // output larger than that is reached by output padding (as onnxruntime
    // does).
    for (int i = 0; i < 2; ++i) {
      int64_t out = outputShape ? (*outputShape)[i] : input[i] * (*strides)[i];
      int64_t total = (*strides)[i] * (input[i] - 1) + (*outputPadding)[i] +
                      (kernel[i] - 1) * (*dilations)[i] + 1 - out;
      if (total < 0) {
        (*outputPadding)[i] -= total;
        total = 0;
      }
      bool upper = autoPad != "SAME_LOWER";
      pads[i] = upper ? total / 2 : total - total / 2;
      pads[i + 2] = total - pads[i];
    }
  }
  Value x = n.in(0);
  // zero_insert: x [N, C, H, W] -> [N, C, H, W, 1], pad the new dim to s,
  // fold it into W and crop the trailing s - 1 zeros; then H the same way.
  for (int dim : {3, 2}) {
    int64_t s = (*strides)[dim - 2];
    if (s == 1)
      continue;
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape(type.getShape());
    SmallVector<int64_t> split(shape.begin(), shape.begin() + dim + 1);
    split.push_back(1);
    split.append(shape.begin() + dim + 1, shape.end());
    SmallVector<int64_t> padAmounts(2 * split.size(), 0);
    padAmounts[split.size() + dim + 1] = s - 1;
    SmallVector<int64_t> merged(shape);
    merged[dim] *= s;
    FailureOr<Value> v = n.make1("vg.reshape", {x}, {n.i64s("shape", split)});
    if (succeeded(v))
      v = n.make1("vg.pad", {*v}, {n.i64s("pads", padAmounts)});
    if (succeeded(v))
      v = n.make1("vg.reshape", {*v}, {n.i64s("shape", merged)});
    if (succeeded(v))
      v = n.make1("vg.slice", {*v},
                  {n.i64s("starts", {0}), n.i64s("ends", {(shape[dim] - 1) * s + 1}),
                   n.i64s("axes", {dim}), n.i64s("steps", {1})});
    if (failed(v))
      return failure();
    x = *v;
  }
  // The conv's pads: d (k - 1) - pad_begin and d (k - 1) - pad_end +
  // output_padding; a negative one crops the zero-inserted input instead.
  SmallVector<int64_t> convPads(4);
  for (int i = 0; i < 2; ++i) {
    int64_t reach = (*dilations)[i] * (kernel[i] - 1);
    int64_t begin = reach - pads[i], end = reach - pads[i + 2] + (*outputPadding)[i];
    int64_t extent = cast<RankedTensorType>(x.getType()).getShape()[i + 2];
    if (begin < 0 || end < 0) {
      FailureOr<Value> cropped = n.make1(
          "vg.slice", {x},
          {n.i64s("starts", {std::max<int64_t>(0, -begin)}),
           n.i64s("ends", {extent - std::max<int64_t>(0, -end)}), n.i64s("axes", {i + 2}),
           n.i64s("steps", {1})});
      if (failed(cropped))
        return failure();
      x = *cropped;
    }
    convPads[i] = std::max<int64_t>(0, begin);
    convPads[i + 2] = std::max<int64_t>(0, end);
  }
  // flip(w)^T: [C, M/g, kh, kw] -> [g, C/g, M/g, kh, kw] -> [g, M/g, C/g, kh,
  // kw] -> [M, C/g, kh, kw], both window dims reversed.
  int64_t perGroupIn = channels / group, perGroupOut = ws[1];
  FailureOr<Value> w = n.make1(
      "vg.reshape", {n.in(1)}, {n.i64s("shape", {group, perGroupIn, perGroupOut, ws[2], ws[3]})});
  if (succeeded(w))
    w = n.make1("vg.transpose", {*w}, {n.i64s("perm", {0, 2, 1, 3, 4})});
  if (succeeded(w))
    w = n.make1("vg.reshape", {*w},
                {n.i64s("shape", {group * perGroupOut, perGroupIn, ws[2], ws[3]})});
  if (succeeded(w))
    w = n.make1("vg.slice", {*w},
                {n.i64s("starts", {-1, -1}), n.i64s("ends", {INT64_MIN, INT64_MIN}),
                 n.i64s("axes", {2, 3}), n.i64s("steps", {-1, -1})});
  if (failed(w))
    return failure();
  SmallVector<Value> operands{x, *w};
  if (n.has(2))
    operands.push_back(n.in(2));
  return n.define(n.make1(
      "vg.conv", operands,
      {n.i64s("pads", convPads), n.i64s("strides", {1, 1}), n.i64s("dilations", *dilations),
       n.i64s("kernel_shape", {ws[2], ws[3]}), n.i64("group", group)}));
}

} // namespace

void populateConvTransposeConverter(ConverterTable &table) {
  table["ConvTranspose"] = convertConvTranspose;
}

} // namespace vinci::onnx_import
