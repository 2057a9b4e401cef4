//===- ConvTransposeExpander.cpp - ONNX ConvTranspose as the conv it equals ---===//
//
// 2-D ConvTranspose, expanded into the conv it equals: its sub-pixel phase
// convs (dilation 1), or a zero insertion and a stride-1 conv.
//
//===----------------------------------------------------------------------===//
#include "onnx/Importer.h"

#include "vg/VgOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringMap.h"

#include <cstring>
#include <map>

using namespace mlir;

namespace vinci::onnx_import {
namespace {

/// flip(w)^T: the ConvTranspose weight [C, M/g, kh, kw] as the weight of
/// the conv it equals, [g, C/g, M/g, kh, kw] -> [g, M/g, C/g, kh, kw] ->
/// [M, C/g, kh, kw], both window dims reversed.
FailureOr<Value> flippedWeight(NodeImporter &n, ArrayRef<int64_t> ws, int64_t group) {
  int64_t perGroupIn = ws[0] / group, perGroupOut = ws[1];
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
  return w;
}

/// The values of an f32 or f16 weight constant, dense or a resource blob
/// (initializers are blobs), or nullopt.
std::optional<SmallVector<double>> weightValues(Value value) {
  auto constant = value.getDefiningOp<vg::ConstantOp>();
  if (!constant)
    return std::nullopt;
  ElementsAttr attr = constant.getValue();
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!resource)
    return readReals(attr);
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  Type element = attr.getElementType();
  if (!blob || !(element.isF32() || element.isF16()))
    return std::nullopt;
  ArrayRef<char> bytes = blob->getData();
  size_t count = size_t(attr.getNumElements()), width = element.isF32() ? 4 : 2;
  if (bytes.size() != count * width)
    return std::nullopt;
  SmallVector<double> values(count);
  for (size_t i = 0; i < count; ++i) {
    if (element.isF32()) {
      float f;
      std::memcpy(&f, bytes.data() + 4 * i, 4);
      values[i] = f;
    } else {
      uint16_t h;
      std::memcpy(&h, bytes.data() + 2 * i, 2);
      values[i] = APFloat(APFloat::IEEEhalf(), APInt(16, h)).convertToDouble();
    }
  }
  return values;
}

/// A weight computed here, stored as the importer stores initializers: an
/// f32 one past kMaxInlineElements as a resource blob, else dense.
Value computedWeight(NodeImporter &n, RankedTensorType type, ArrayRef<double> values) {
  if (!type.getElementType().isF32() || type.getNumElements() <= kMaxInlineElements)
    return constantOf(n, type, values);
  std::vector<float> floats(values.begin(), values.end());
  ArrayRef<char> bytes(reinterpret_cast<const char *>(floats.data()), floats.size() * sizeof(float));
  auto attr = DenseResourceElementsAttr::get(
      type, "conv_transpose_weight",
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(float)));
  return vg::ConstantOp::create(n.builder, n.loc, cast<ElementsAttr>(attr));
}

/// The flipped weight's tap (i, j) at (m, c) (flippedWeight's layout) from a
/// ConvTranspose weight's values `w` of shape `ws`.
double flippedTap(ArrayRef<double> w, ArrayRef<int64_t> ws, int64_t group, int64_t m, int64_t c,
                  int64_t i, int64_t j) {
  int64_t perGroupIn = ws[0] / group, perGroupOut = ws[1], g = m / perGroupOut;
  int64_t source = ((g * perGroupIn + c) * perGroupOut + m % perGroupOut) * ws[2] * ws[3] +
                   (ws[2] - 1 - i) * ws[3] + (ws[3] - 1 - j);
  return w[size_t(source)];
}

/// flippedWeight of a constant weight, computed.
Value flippedConstant(NodeImporter &n, ArrayRef<double> w, ArrayRef<int64_t> ws, int64_t group) {
  int64_t perGroupIn = ws[0] / group, channels = group * ws[1];
  auto type = RankedTensorType::get({channels, perGroupIn, ws[2], ws[3]},
                                    n.typeOf(1).getElementType());
  SmallVector<double> values;
  values.reserve(size_t(type.getNumElements()));
  for (int64_t m = 0; m < channels; ++m)
    for (int64_t c = 0; c < perGroupIn; ++c)
      for (int64_t i = 0; i < ws[2]; ++i)
        for (int64_t j = 0; j < ws[3]; ++j)
          values.push_back(flippedTap(w, ws, group, m, c, i, j));
  return computedWeight(n, type, values);
}

int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// One output phase of a sub-pixel ConvTranspose along one spatial dim:
/// outputs s u + phase (u < U) read input x[u + offset + j] through taps
/// first + j s (j < taps) of the flipped weight; none when taps is 0.
struct Phase {
  int64_t first = 0, taps = 0, offset = 0;
};

/// Output phase `phase` of a stride-`s` dim whose equivalent stride-1 conv
/// over the zero-inserted input has window `k` and begin pad `padBegin`:
/// zero-inserted element s i is x[i], so output o = s u + phase reads it
/// through tap t when (o - padBegin + t) is a multiple of s.
Phase phaseOf(int64_t phase, int64_t s, int64_t k, int64_t padBegin) {
  int64_t r = ((phase - padBegin) % s + s) % s;
  Phase p;
  p.first = (s - r) % s;
  p.taps = p.first < k ? (k - 1 - p.first) / s + 1 : 0;
  p.offset = floorDiv(phase - padBegin, s) + (r + p.first) / s;
  return p;
}

// conv_transpose(x, w), a constant w, dilation 1, a stride above 1 -> the
// s_h x s_w phase convs of x (sub-pixel decomposition), interleaved:
// output phase (a, b) is a stride-1 conv of x with the taps of the flipped
// weight that reach it (a constant, computed here, so that the conv
// template takes it), so no zero-inserted input is built and no zero is
// multiplied. The phases have ceil(out / s) positions each along a dim;
// two concats over new unit axes interleave them and a slice crops to the
// output.
LogicalResult convertSubPixel(NodeImporter &n, ArrayRef<double> weight,
                              std::array<int64_t, 2> strides, std::array<int64_t, 2> kernel,
                              std::array<int64_t, 2> input, std::array<int64_t, 2> padBegin,
                              std::array<int64_t, 2> out, int64_t group) {
  RankedTensorType wType = n.typeOf(1);
  ArrayRef<int64_t> ws = wType.getShape(); // [C, M/g, kh, kw]
  int64_t perGroupIn = ws[0] / group, perGroupOut = ws[1];
  int64_t batch = n.typeOf(0).getShape()[0], channels = group * perGroupOut;
  auto flipped = [&](int64_t m, int64_t c, int64_t i, int64_t j) {
    return flippedTap(weight, ws, group, m, c, i, j);
  };
  std::array<int64_t, 2> units{(out[0] + strides[0] - 1) / strides[0],
                               (out[1] + strides[1] - 1) / strides[1]};
  // The input as each phase reads it (cropped to its rows and columns),
  // shared by the phases that read the same.
  std::map<std::array<int64_t, 4>, Value> crops;
  SmallVector<Value> rows;
  for (int64_t a = 0; a < strides[0]; ++a) {
    SmallVector<Value> phases;
    for (int64_t b = 0; b < strides[1]; ++b) {
      std::array<Phase, 2> ph{phaseOf(a, strides[0], kernel[0], padBegin[0]),
                              phaseOf(b, strides[1], kernel[1], padBegin[1])};
      // The phase's kernel: its taps of the flipped weight, or one zero
      // tap when none reaches it (the output is the bias there).
      bool reached = ph[0].taps && ph[1].taps;
      if (!reached)
        ph[0].taps = ph[1].taps = 1;
      auto kType = RankedTensorType::get({channels, perGroupIn, ph[0].taps, ph[1].taps},
                                         wType.getElementType());
      SmallVector<double> taps;
      taps.reserve(size_t(kType.getNumElements()));
      for (int64_t m = 0; m < channels; ++m)
        for (int64_t c = 0; c < perGroupIn; ++c)
          for (int64_t i = 0; i < ph[0].taps; ++i)
            for (int64_t j = 0; j < ph[1].taps; ++j)
              taps.push_back(reached ? flipped(m, c, ph[0].first + i * strides[0],
                                               ph[1].first + j * strides[1])
                                     : 0.0);
      Value k = computedWeight(n, kType, taps);
      // Input rows [offset, offset + U + taps - 1): cropped where inside
      // the input, padded where outside it.
      SmallVector<int64_t> pads(4);
      std::array<int64_t, 4> crop; // begin h, end h, begin w, end w
      for (int i = 0; i < 2; ++i) {
        int64_t begin = ph[i].offset, end = ph[i].offset + units[i] + ph[i].taps - 1;
        crop[2 * i] = std::max<int64_t>(0, begin);
        crop[2 * i + 1] = std::min(end, input[i]);
        pads[i] = std::max<int64_t>(0, -begin);
        pads[i + 2] = std::max<int64_t>(0, end - input[i]);
        if (crop[2 * i] >= crop[2 * i + 1])
          return n.fail("a ConvTranspose output phase reads none of the input (its pads "
                        "exceed the window): not supported");
      }
      Value &x = crops[crop];
      if (!x) {
        x = n.in(0);
        for (int i = 0; i < 2; ++i) {
          if (crop[2 * i] == 0 && crop[2 * i + 1] == input[i])
            continue;
          FailureOr<Value> cropped =
              n.make1("vg.slice", {x},
                      {n.i64s("starts", {crop[2 * i]}), n.i64s("ends", {crop[2 * i + 1]}),
                       n.i64s("axes", {i + 2}), n.i64s("steps", {1})});
          if (failed(cropped))
            return failure();
          x = *cropped;
        }
      }
      SmallVector<Value> operands{x, k};
      if (n.has(2))
        operands.push_back(n.in(2));
      FailureOr<Value> y = n.make1(
          "vg.conv", operands,
          {n.i64s("pads", pads), n.i64s("strides", {1, 1}), n.i64s("dilations", {1, 1}),
           n.i64s("kernel_shape", {ph[0].taps, ph[1].taps}), n.i64("group", group)});
      if (succeeded(y))
        y = n.make1("vg.reshape", {*y},
                    {n.i64s("shape", {batch, channels, units[0], units[1], 1})});
      if (failed(y))
        return failure();
      phases.push_back(*y);
    }
    // [N, M, Uh, Uw, s_w] -> [N, M, Uh, 1, Uw s_w]: column Uw s_w + b.
    FailureOr<Value> row = phases.size() == 1
                               ? FailureOr<Value>(phases.front())
                               : n.make1("vg.concat", phases, {n.i64("axis", 4)});
    if (succeeded(row))
      row = n.make1("vg.reshape", {*row},
                    {n.i64s("shape", {batch, channels, units[0], 1, units[1] * strides[1]})});
    if (failed(row))
      return failure();
    rows.push_back(*row);
  }
  // [N, M, Uh, s_h, W'] -> [N, M, Uh s_h, W']: row Uh s_h + a; then the
  // output's extent.
  FailureOr<Value> y = rows.size() == 1 ? FailureOr<Value>(rows.front())
                                        : n.make1("vg.concat", rows, {n.i64("axis", 3)});
  if (succeeded(y))
    y = n.make1("vg.reshape", {*y},
                {n.i64s("shape", {batch, channels, units[0] * strides[0],
                                  units[1] * strides[1]})});
  if (succeeded(y) && (units[0] * strides[0] != out[0] || units[1] * strides[1] != out[1]))
    y = n.make1("vg.slice", {*y},
                {n.i64s("starts", {0, 0}), n.i64s("ends", {out[0], out[1]}),
                 n.i64s("axes", {2, 3}), n.i64s("steps", {1, 1})});
  return n.define(y);
}

// conv_transpose(x, w) -> conv(zero_insert(x, strides), flip(w)^T), 2-D: the
// input gets (stride - 1) zeros between its elements, the weight swaps its
// channel dims per group and reverses its window, and the conv (stride 1,
// the same dilation and groups) pads each side by d (k - 1) minus ONNX's
// pads (plus output_padding at the end); a negative pad crops instead.
// With dilation 1 and a stride above 1 the same conv runs as its sub-pixel
// phases (convertSubPixel) instead.
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
  // A weight computed at run time stays on the zero insertion: its conv is
  // unfolded (the conv template takes constant weights only).
  std::optional<SmallVector<double>> weight = weightValues(n.in(1));
  if (weight && (*dilations)[0] == 1 && (*dilations)[1] == 1 &&
      ((*strides)[0] > 1 || (*strides)[1] > 1)) {
    std::array<int64_t, 2> padBegin, out;
    for (int i = 0; i < 2; ++i) {
      padBegin[i] = kernel[i] - 1 - pads[i];
      out[i] = (*strides)[i] * (input[i] - 1) + (*outputPadding)[i] + kernel[i] - pads[i] -
               pads[i + 2];
    }
    return convertSubPixel(n, *weight, *strides, kernel, input, padBegin, out, group);
  }
  // A constant weight is flipped here, so that the conv's weight is a
  // constant (the conv templates take no other); vg ops flip a computed one.
  FailureOr<Value> w = weight ? FailureOr<Value>(flippedConstant(n, *weight, ws, group))
                              : flippedWeight(n, ws, group);
  if (failed(w))
    return failure();
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
