//===- DataMovementConverters.cpp - ONNX reshapes, slices, gathers, pads and resizes ---===//
//
// Ops that move or select data: transpose and the reshape family, concat /
// split / slice, gather and gather_elements, expand, tile, pad, resize,
// depth_to_space / space_to_depth, and scatter_nd over constants (folded).
//
//===----------------------------------------------------------------------===//
#include "onnx/Importer.h"

#include "vg/VgOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>

using namespace mlir;

namespace vinci::onnx_import {
namespace {

LogicalResult convertTranspose(NodeImporter &n) {
  SmallVector<NamedAttribute> attrs;
  if (auto perm = n.attrInts("perm"))
    attrs.push_back(n.i64s("perm", *perm));
  return n.define(n.make1("vg.transpose", {n.in(0)}, attrs));
}

LogicalResult convertReshape(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> shape = n.opset < 5 && n.hasAttr("shape")
                                              ? FailureOr<SmallVector<int64_t>>(*n.attrInts("shape"))
                                              : n.constInts(1, "shape");
  if (failed(shape))
    return failure();
  return n.define(n.make1("vg.reshape", {n.in(0)},
                          {n.i64s("shape", *shape), n.i64("allowzero", n.attrInt("allowzero", 0))}));
}

LogicalResult convertFlatten(NodeImporter &n) {
  return n.define(n.make1("vg.flatten", {n.in(0)}, {n.i64("axis", n.attrInt("axis", 1))}));
}

// Squeeze/Unsqueeze: axes attribute before opset 13, an input from 13.
LogicalResult convertSqueezeLike(NodeImporter &n) {
  bool squeeze = n.node.op_type() == "Squeeze";
  SmallVector<NamedAttribute> attrs;
  if (n.opset >= 13 && n.has(1)) {
    FailureOr<SmallVector<int64_t>> axes = n.constInts(1, "axes");
    if (failed(axes))
      return failure();
    attrs.push_back(n.i64s("axes", *axes));
  } else if (auto axes = n.attrInts("axes")) {
    attrs.push_back(n.i64s("axes", *axes));
  } else if (!squeeze) {
    return n.fail("axes is required");
  }
  return n.define(n.make1(squeeze ? "vg.squeeze" : "vg.unsqueeze", {n.in(0)}, attrs));
}

LogicalResult convertConcat(NodeImporter &n) {
  SmallVector<Value> operands;
  for (int i = 0; i < static_cast<int>(n.numInputs()); ++i)
    if (n.has(i))
      operands.push_back(n.in(i));
  if (!n.hasAttr("axis"))
    return n.fail("axis is required");
  return n.define(n.make1("vg.concat", operands, {n.i64("axis", n.attrInt("axis", 0))}));
}

// split sizes: attribute (< 13), input (>= 13), or equal parts per output.
LogicalResult convertSplit(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  int64_t axis = n.attrInt("axis", 0);
  std::optional<int64_t> resolved = vg::normalizeAxis(axis, type.getRank());
  if (!resolved)
    return n.fail("axis " + Twine(axis) + " is out of range for rank " + Twine(type.getRank()));
  SmallVector<int64_t> sizes;
  if (n.opset >= 13 && n.has(1)) {
    FailureOr<SmallVector<int64_t>> given = n.constInts(1, "split");
    if (failed(given))
      return failure();
    sizes = *given;
  } else if (auto given = n.attrInts("split")) {
    sizes = *given;
  } else {
    int64_t parts = n.hasAttr("num_outputs") ? n.attrInt("num_outputs", 1) : n.node.output_size();
    int64_t dim = type.getDimSize(*resolved);
    if (parts <= 0 || ShapedType::isDynamic(dim))
      return n.fail("cannot split a dynamic dim into equal parts");
    int64_t chunk = (dim + parts - 1) / parts;
    for (int64_t p = 0; p < parts; ++p)
      sizes.push_back(std::max<int64_t>(std::min(chunk, dim - p * chunk), 0));
  }
  if (static_cast<int>(sizes.size()) != n.node.output_size())
    return n.fail("split has " + Twine(sizes.size()) + " sizes for " +
                  Twine(n.node.output_size()) + " outputs");
  return n.define(n.make("vg.split", {n.in(0)}, {n.i64("axis", axis), n.i64s("split", sizes)},
                         sizes.size()));
}

LogicalResult convertSlice(NodeImporter &n) {
  SmallVector<int64_t> starts, ends, axes, steps;
  if (n.opset < 10) {
    starts = n.attrInts("starts").value_or(SmallVector<int64_t>{});
    ends = n.attrInts("ends").value_or(SmallVector<int64_t>{});
    if (auto given = n.attrInts("axes"))
      axes = *given;
  } else {
    FailureOr<SmallVector<int64_t>> s = n.constInts(1, "starts"), e = n.constInts(2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (n.has(3)) {
      FailureOr<SmallVector<int64_t>> a = n.constInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (n.has(4)) {
      FailureOr<SmallVector<int64_t>> st = n.constInts(4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (int64_t d = 0; d < static_cast<int64_t>(starts.size()); ++d)
      axes.push_back(d);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  return n.define(n.make1("vg.slice", {n.in(0)},
                          {n.i64s("starts", starts), n.i64s("ends", ends), n.i64s("axes", axes),
                           n.i64s("steps", steps)}));
}

LogicalResult convertGather(NodeImporter &n) {
  return n.define(n.make1("vg.gather", {n.in(0), n.in(1)}, {n.i64("axis", n.attrInt("axis", 0))}));
}

LogicalResult convertExpand(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> shape = n.constInts(1, "shape");
  if (failed(shape))
    return failure();
  return n.define(n.make1("vg.expand", {n.in(0)}, {n.i64s("shape", *shape)}));
}

LogicalResult convertTile(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> repeats = n.constInts(1, "repeats");
  if (failed(repeats))
    return failure();
  return n.define(n.make1("vg.tile", {n.in(0)}, {n.i64s("repeats", *repeats)}));
}

// pad: pads and value are attributes before opset 11, inputs from 11.
LogicalResult convertPad(NodeImporter &n) {
  std::string mode = n.attrString("mode", "constant");
  SmallVector<int64_t> pads;
  double value = 0;
  if (n.opset < 11) {
    pads = n.attrInts("pads").value_or(SmallVector<int64_t>{});
    value = n.attrFloat("value", 0.0f);
  } else {
    FailureOr<SmallVector<int64_t>> given = n.constInts(1, "pads");
    if (failed(given))
      return failure();
    pads = *given;
    if (n.has(2)) {
      FailureOr<SmallVector<double>> constant = n.constReals(2, "constant_value");
      if (failed(constant))
        return failure();
      if (!constant->empty())
        value = constant->front();
    }
    if (n.has(3))
      return n.fail("the axes input (opset 18) is not supported; list pads for every dim");
  }
  return n.define(n.make1("vg.pad", {n.in(0)},
                          {n.i64s("pads", pads), n.str("mode", mode),
                           n.named("constant_value", n.builder.getF64FloatAttr(value))}));
}

// resize / upsample -> vg.resize with explicit scales (and sizes when given)
LogicalResult convertResize(NodeImporter &n) {
  bool upsample = n.node.op_type() == "Upsample";
  std::string mode = n.attrString("mode", "nearest");
  if (mode == "bilinear")
    mode = "linear";
  if (mode != "nearest" && mode != "linear")
    return n.fail("mode '" + mode + "' is not supported (supported: nearest, linear)");
  if (n.attrInt("exclude_outside", 0) != 0)
    return n.fail("exclude_outside = 1 is not supported");
  RankedTensorType type = n.typeOf(0);
  SmallVector<float> scales;
  std::optional<SmallVector<int64_t>> sizes;
  // Opset 10 Resize and Upsample: (X, scales); from 11: (X, roi, scales, sizes).
  int scalesInput = (upsample || n.opset < 11) ? 1 : 2;
  if (upsample && n.opset < 9) {
    scales = n.attrFloats("scales").value_or(SmallVector<float>{});
  } else if (n.has(scalesInput)) {
    FailureOr<SmallVector<double>> given = n.constReals(scalesInput, "scales");
    if (failed(given))
      return failure();
    scales.assign(given->begin(), given->end());
  }
  if (!upsample && n.opset >= 11 && n.has(3)) {
    FailureOr<SmallVector<int64_t>> given = n.constInts(3, "sizes");
    if (failed(given))
      return failure();
    sizes = *given;
  }
  if (scales.empty() && sizes) {
    if (static_cast<int64_t>(sizes->size()) != type.getRank())
      return n.fail("sizes must have one entry per input dim");
    for (auto [out, in] : llvm::zip(*sizes, type.getShape()))
      scales.push_back(float(double(out) / double(in)));
  }
  if (scales.empty())
    return n.fail("one of scales or sizes is required");
  std::string transform = n.attrString("coordinate_transformation_mode", "half_pixel");
  std::string nearest = n.attrString("nearest_mode", "round_prefer_floor");
  if (upsample || n.opset < 11) {
    // Opset 10 Resize and Upsample index as out / scale, rounding down.
    transform = "asymmetric";
    nearest = "floor";
  }
  SmallVector<NamedAttribute> attrs{
      n.named("scales", n.builder.getDenseF32ArrayAttr(scales)), n.str("mode", mode),
      n.str("coordinate_transformation_mode", transform), n.str("nearest_mode", nearest),
      n.f32("extrapolation_value", n.attrFloat("extrapolation_value", 0.0f))};
  if (sizes)
    attrs.push_back(n.i64s("sizes", *sizes));
  return n.define(n.make1("vg.resize", {n.in(0)}, attrs));
}

// depth_to_space(x) (DCR) -> reshape [N, b, b, C/b^2, H, W], transpose
// [0, 3, 4, 1, 5, 2], reshape [N, C/b^2, H*b, W*b]; CRD splits C as
// [C/b^2, b, b] and transposes [0, 1, 4, 2, 5, 3].
// space_to_depth(x) -> reshape [N, C, H/b, b, W/b, b], transpose
// [0, 3, 5, 1, 2, 4], reshape [N, C*b^2, H/b, W/b].
LogicalResult convertDepthSpace(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  int64_t b = n.attrInt("blocksize", 0);
  if (!n.hasAttr("blocksize") || b <= 0)
    return n.fail("blocksize must be a positive integer");
  if (type.getRank() != 4)
    return n.fail("input must be N x C x H x W, got rank " + Twine(type.getRank()));
  int64_t N = type.getDimSize(0), C = type.getDimSize(1), H = type.getDimSize(2),
          W = type.getDimSize(3);
  SmallVector<int64_t> split, perm, result;
  if (n.node.op_type() == "DepthToSpace") {
    if (C % (b * b) != 0)
      return n.fail("channels (" + Twine(C) + ") must be a multiple of blocksize^2 (" +
                    Twine(b * b) + ")");
    std::string mode = n.attrString("mode", "DCR");
    if (mode == "DCR") {
      split = {N, b, b, C / (b * b), H, W};
      perm = {0, 3, 4, 1, 5, 2};
    } else if (mode == "CRD") {
      split = {N, C / (b * b), b, b, H, W};
      perm = {0, 1, 4, 2, 5, 3};
    } else {
      return n.fail("mode '" + mode + "' is not DCR or CRD");
    }
    result = {N, C / (b * b), H * b, W * b};
  } else {
    if (H % b != 0 || W % b != 0)
      return n.fail("height and width (" + Twine(H) + ", " + Twine(W) +
                    ") must be multiples of blocksize " + Twine(b));
    split = {N, C, H / b, b, W / b, b};
    perm = {0, 3, 5, 1, 2, 4};
    result = {N, C * b * b, H / b, W / b};
  }
  FailureOr<Value> blocks = n.make1("vg.reshape", {n.in(0)}, {n.i64s("shape", split)});
  FailureOr<Value> moved = apply(n, "vg.transpose", {blocks}, {n.i64s("perm", perm)});
  return n.define(apply(n, "vg.reshape", {moved}, {n.i64s("shape", result)}));
}

// gather_elements(data, idx, axis) -> gather(flatten(data), flat) with
// flat = (idx < 0 ? idx + d : idx) * stride(axis) + base, base holding the
// offset of each index position's other coordinates in data.
LogicalResult convertGatherElements(NodeImporter &n) {
  RankedTensorType data = n.typeOf(0), indices = n.typeOf(1);
  int64_t rank = data.getRank();
  if (indices.getRank() != rank || rank == 0)
    return n.fail("data and indices must have the same rank (1 or more), got " + Twine(rank) +
                  " and " + Twine(indices.getRank()));
  int64_t axis = n.attrInt("axis", 0);
  std::optional<int64_t> resolved = vg::normalizeAxis(axis, rank);
  if (!resolved)
    return n.fail("axis " + Twine(axis) + " is out of range for rank " + Twine(rank));
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * data.getDimSize(d + 1);
  for (int64_t d = 0; d < rank; ++d)
    if (d != *resolved && indices.getDimSize(d) > data.getDimSize(d))
      return n.fail("indices dim " + Twine(d) + " (" + Twine(indices.getDimSize(d)) +
                    ") exceeds data's (" + Twine(data.getDimSize(d)) + ")");
  SmallVector<double> base;
  SmallVector<int64_t> position(rank, 0);
  for (int64_t flat = 0; flat < indices.getNumElements(); ++flat) {
    int64_t offset = 0;
    for (int64_t d = 0, rest = flat; d < rank; ++d) {
      int64_t inner = 1;
      for (int64_t e = d + 1; e < rank; ++e)
        inner *= indices.getDimSize(e);
      position[d] = rest / inner;
      rest %= inner;
      if (d != *resolved)
        offset += position[d] * strides[d];
    }
    base.push_back(double(offset));
  }
  Value idx = n.in(1);
  Type indexType = indices.getElementType();
  auto c = [&](double value) { return n.scalar(indexType, value); };
  FailureOr<Value> wrapped =
      apply(n, "vg.where",
            {apply(n, "vg.less", {idx, c(0)}),
             apply(n, "vg.add", {idx, c(double(data.getDimSize(*resolved)))}), idx});
  if (strides[*resolved] != 1)
    wrapped = apply(n, "vg.mul", {wrapped, c(double(strides[*resolved]))});
  FailureOr<Value> flatIndex = apply(n, "vg.add", {wrapped, constantOf(n, indices, base)});
  FailureOr<Value> table =
      n.make1("vg.reshape", {n.in(0)}, {n.i64s("shape", {data.getNumElements()})});
  return n.define(apply(n, "vg.gather", {table, flatIndex}, {n.i64("axis", 0)}));
}

// scatter_nd(data, indices, updates) -> the constant data with each
// updates slice written (or combined by `reduction`) at its index tuple.
// Models build masks this way from shapes alone (Swin's shifted-window
// attention mask), so every input is a constant once shapes are; a scatter
// of run-time tensors has no lowering template.
LogicalResult convertScatterND(NodeImporter &n) {
  std::string reduction = n.attrString("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min")
    return n.fail("reduction '" + reduction + "' is not one of none, add, mul, max, min");
  for (int i = 0; i < 3; ++i)
    if (n.has(i) && !matchPattern(n.in(i), m_Constant()))
      return n.fail("input " + Twine(i) + " ('" + n.node.input(i) +
                    "') is not a constant: ScatterND is folded at compile time only (no lowering "
                    "template scatters run-time tensors yet; --const_input binds a graph input)");
  FailureOr<SmallVector<double>> data = n.constReals(0, "data");
  FailureOr<SmallVector<int64_t>> indices = n.constInts(1, "indices");
  FailureOr<SmallVector<double>> updates = n.constReals(2, "updates");
  if (failed(data) || failed(indices) || failed(updates))
    return failure();
  RankedTensorType dataType = n.typeOf(0), indexType = n.typeOf(1);
  ArrayRef<int64_t> shape = dataType.getShape();
  int64_t depth = indexType.getRank() ? indexType.getShape().back() : 0;
  if (indexType.getRank() == 0 || depth > dataType.getRank())
    return n.fail("indices must have rank >= 1 and a last dim of at most the data's rank " +
                  Twine(dataType.getRank()));
  if (!isa<FloatType>(dataType.getElementType()))
    for (ArrayRef<double> values : {ArrayRef<double>(*data), ArrayRef<double>(*updates)})
      for (double value : values)
        if (std::fabs(value) > 9007199254740992.0) // 2^53: doubles hold integers exactly below
          return n.fail("integer values beyond 2^53 are not folded");
  int64_t sliceSize = 1;
  for (int64_t extent : shape.drop_front(depth))
    sliceSize *= extent;
  int64_t tuples = 1;
  for (int64_t extent : indexType.getShape().drop_back())
    tuples *= extent;
  if (int64_t(updates->size()) != tuples * sliceSize)
    return n.fail("updates hold " + Twine(updates->size()) + " elements, " + Twine(tuples) +
                  " index tuples of slices of " + Twine(sliceSize) + " need " +
                  Twine(tuples * sliceSize));
  SmallVector<double> out(*data);
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t j = 0; j < depth; ++j) {
      int64_t index = (*indices)[t * depth + j];
      if (index < -shape[j] || index >= shape[j])
        return n.fail("index " + Twine(index) + " of tuple " + Twine(t) + " is outside dim " +
                      Twine(j) + " of size " + Twine(shape[j]));
      offset = offset * shape[j] + (index < 0 ? index + shape[j] : index);
    }
    offset *= sliceSize;
    for (int64_t e = 0; e < sliceSize; ++e) {
      double &target = out[offset + e];
      double update = (*updates)[t * sliceSize + e];
      target = reduction == "add"   ? target + update
               : reduction == "mul" ? target * update
               : reduction == "max" ? std::max(target, update)
               : reduction == "min" ? std::min(target, update)
                                    : update;
    }
  }
  return n.define(ArrayRef<Value>{constantOf(n, dataType, out)});
}

} // namespace

void populateDataMovementConverters(ConverterTable &table) {
  table["Transpose"] = convertTranspose;
  table["Reshape"] = convertReshape;
  table["Flatten"] = convertFlatten;
  table["Squeeze"] = convertSqueezeLike;
  table["Unsqueeze"] = convertSqueezeLike;
  table["Concat"] = convertConcat;
  table["Split"] = convertSplit;
  table["Slice"] = convertSlice;
  table["Gather"] = convertGather;
  table["GatherElements"] = convertGatherElements;
  table["Expand"] = convertExpand;
  table["Tile"] = convertTile;
  table["Pad"] = convertPad;
  table["ScatterND"] = convertScatterND;
  table["Resize"] = convertResize;
  table["Upsample"] = convertResize;
  table["DepthToSpace"] = convertDepthSpace;
  table["SpaceToDepth"] = convertDepthSpace;
}

} // namespace vinci::onnx_import
