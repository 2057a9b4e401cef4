//===- NormConverters.cpp - ONNX norms, softmax and reductions --------------===//
//
// Normalisations, softmax and log-softmax, reductions and arg max/min, and
// their decompositions (InstanceNorm and MVN as layer_norm, the composed
// reductions, Hardmax).
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

// layer_norm(x) -> y; the optional Mean and InvStdDev outputs are computed
// beside it: mean(x), 1 / sqrt(mean((x - mean(x))^2) + eps), over [axis, rank).
LogicalResult convertLayerNorm(NodeImporter &n) {
  SmallVector<Value> operands{n.in(0), n.in(1)};
  if (n.has(2))
    operands.push_back(n.in(2));
  int64_t axis = n.attrInt("axis", -1);
  float epsilon = n.attrFloat("epsilon", 1e-5f);
  FailureOr<Value> y = n.make1("vg.layer_norm", operands,
                               {n.i64("axis", axis), n.f32("epsilon", epsilon)});
  if (failed(y))
    return failure();
  bool wantsStatistics = false;
  for (int i = 1; i < n.node.output_size(); ++i)
    wantsStatistics |= !n.node.output(i).empty();
  if (!wantsStatistics)
    return n.define(y);
  if (n.attrInt("stash_type", 1) != 1)
    return n.fail("stash_type other than 1 (float) is not supported");
  RankedTensorType type = n.typeOf(0);
  int64_t rank = type.getRank(), begin = axis < 0 ? axis + rank : axis;
  SmallVector<int64_t> axes;
  for (int64_t d = begin; d < rank; ++d)
    axes.push_back(d);
  // Statistics are fp32 (stash_type 1) whatever the input type.
  FailureOr<Value> x = n.in(0);
  if (!type.getElementType().isF32())
    x = n.make1("vg.cast", {*x}, {n.named("to", TypeAttr::get(n.builder.getF32Type()))});
  if (failed(x))
    return failure();
  SmallVector<NamedAttribute> reduce{n.i64s("axes", axes), n.i64("keepdims", 1)};
  FailureOr<Value> mean = n.make1("vg.reduce_mean", {*x}, reduce);
  if (failed(mean))
    return failure();
  FailureOr<Value> centered = n.make1("vg.sub", {*x, *mean});
  FailureOr<Value> squared = succeeded(centered) ? n.make1("vg.mul", {*centered, *centered})
                                                 : FailureOr<Value>(failure());
  FailureOr<Value> variance = succeeded(squared) ? n.make1("vg.reduce_mean", {*squared}, reduce)
                                                 : FailureOr<Value>(failure());
  if (failed(variance))
    return failure();
  FailureOr<Value> shifted =
      n.make1("vg.add", {*variance, n.scalar(n.builder.getF32Type(), epsilon)});
  FailureOr<Value> stddev =
      succeeded(shifted) ? n.make1("vg.sqrt", {*shifted}) : FailureOr<Value>(failure());
  FailureOr<Value> invStdDev =
      succeeded(stddev) ? n.make1("vg.reciprocal", {*stddev}) : FailureOr<Value>(failure());
  if (failed(invStdDev))
    return failure();
  return n.define(ArrayRef<Value>{*y, *mean, *invStdDev});
}

// Before opset 13, softmax(x, axis) meant: flatten to 2-D at axis, softmax
// over dim 1, reshape back. Equal to the new form when axis is the last dim.
LogicalResult convertSoftmax(NodeImporter &n) {
  StringRef opName = n.node.op_type() == "Softmax" ? "vg.softmax" : "vg.log_softmax";
  RankedTensorType type = n.typeOf(0);
  int64_t rank = type.getRank();
  int64_t axis = n.attrInt("axis", n.opset >= 13 ? -1 : 1);
  std::optional<int64_t> resolved = vg::normalizeAxis(axis, std::max<int64_t>(rank, 1));
  if (n.opset >= 13 || !resolved || *resolved == rank - 1)
    return n.define(n.make1(opName, {n.in(0)}, {n.i64("axis", axis)}));
  FailureOr<Value> flat = n.make1("vg.flatten", {n.in(0)}, {n.i64("axis", *resolved)});
  if (failed(flat))
    return failure();
  FailureOr<Value> result = n.make1(opName, {*flat}, {n.i64("axis", 1)});
  if (failed(result))
    return failure();
  return n.define(n.make1("vg.reshape", {*result}, {n.i64s("shape", type.getShape())}));
}

/// A Reduce* node's keepdims, noop_with_empty_axes and axes: an attribute,
/// or (ReduceSum from 13, all from 18) an input. `keepdims` overrides the
/// node's (ReduceLogSumExp keeps the max it shifts by).
FailureOr<SmallVector<NamedAttribute>> reduceAttrs(NodeImporter &n,
                                                   std::optional<int64_t> keepdims = {}) {
  SmallVector<NamedAttribute> attrs{n.i64("keepdims", keepdims.value_or(n.attrInt("keepdims", 1))),
                                    n.i64("noop_with_empty_axes",
                                          n.attrInt("noop_with_empty_axes", 0))};
  if (n.has(1)) {
    FailureOr<SmallVector<int64_t>> axes = n.constInts(1, "axes");
    if (failed(axes))
      return failure();
    attrs.push_back(n.i64s("axes", *axes));
  } else if (auto axes = n.attrInts("axes")) {
    attrs.push_back(n.i64s("axes", *axes));
  }
  return attrs;
}

LogicalResult convertReduce(NodeImporter &n) {
  static const llvm::StringMap<StringRef> names = {
      {"ReduceMean", "vg.reduce_mean"}, {"ReduceSum", "vg.reduce_sum"},
      {"ReduceMax", "vg.reduce_max"},   {"ReduceMin", "vg.reduce_min"},
      {"ReduceProd", "vg.reduce_prod"}, {"ReduceL2", "vg.reduce_l2"}};
  FailureOr<SmallVector<NamedAttribute>> attrs = reduceAttrs(n);
  if (failed(attrs))
    return failure();
  // noop_with_empty_axes and no axes: the input unchanged.
  bool noAxes = llvm::none_of(*attrs, [](NamedAttribute attr) {
    return attr.getName() == "axes" && !cast<DenseI64ArrayAttr>(attr.getValue()).empty();
  });
  if (noAxes && n.attrInt("noop_with_empty_axes", 0) != 0)
    return n.define(ArrayRef<Value>{n.in(0)});
  return n.define(n.make1(names.lookup(n.node.op_type()), {n.in(0)}, *attrs));
}

LogicalResult convertArgReduce(NodeImporter &n) {
  return n.define(n.make1(n.node.op_type() == "ArgMax" ? "vg.arg_max" : "vg.arg_min", {n.in(0)},
                          {n.i64("axis", n.attrInt("axis", 0)),
                           n.i64("keepdims", n.attrInt("keepdims", 1)),
                           n.i64("select_last_index", n.attrInt("select_last_index", 0))}));
}

// reduce_l1(x) -> reduce_sum(|x|); reduce_sum_square(x) -> reduce_sum(x * x);
// reduce_log_sum(x) -> log(reduce_sum(x));
// reduce_log_sum_exp(x) -> m + log(reduce_sum(exp(x - m))), m = reduce_max(x)
// (the shift by the max keeps exp from overflowing).
LogicalResult convertComposedReduce(NodeImporter &n) {
  StringRef type = n.node.op_type();
  FailureOr<SmallVector<NamedAttribute>> attrs = reduceAttrs(n);
  if (failed(attrs))
    return failure();
  Value x = n.in(0);
  if (type == "ReduceL1")
    return n.define(apply(n, "vg.reduce_sum", {apply(n, "vg.abs", {x})}, *attrs));
  if (type == "ReduceSumSquare")
    return n.define(apply(n, "vg.reduce_sum", {apply(n, "vg.mul", {x, x})}, *attrs));
  if (type == "ReduceLogSum")
    return n.define(apply(n, "vg.log", {apply(n, "vg.reduce_sum", {x}, *attrs)}));
  FailureOr<SmallVector<NamedAttribute>> keptAttrs = reduceAttrs(n, /*keepdims=*/1);
  if (failed(keptAttrs))
    return failure();
  FailureOr<Value> max = n.make1("vg.reduce_max", {x}, *keptAttrs);
  FailureOr<Value> sum = apply(
      n, "vg.reduce_sum", {apply(n, "vg.exp", {apply(n, "vg.sub", {x, max})})}, *attrs);
  if (failed(sum))
    return failure();
  // Without keepdims the max is reshaped to the sum's shape to be added back.
  FailureOr<Value> shift = apply(
      n, "vg.reshape", {max},
      {n.i64s("shape", cast<RankedTensorType>(sum->getType()).getShape())});
  return n.define(apply(n, "vg.add", {apply(n, "vg.log", {sum}), shift}));
}

// instance_norm(x, scale, bias) -> layer_norm(x, axis = 2) * scale[c] + bias[c]
// (statistics over the spatial dims of each n, c; scale and bias per channel)
LogicalResult convertInstanceNorm(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  if (type.getRank() < 3)
    return n.fail("input must be N x C x D1 x ... (rank 3 or more), got rank " +
                  Twine(type.getRank()));
  float epsilon = n.attrFloat("epsilon", 1e-5f);
  FailureOr<Value> normalized =
      n.make1("vg.layer_norm",
              {n.in(0), onesOf(n, type.getShape().drop_front(2), type.getElementType())},
              {n.i64("axis", 2), n.f32("epsilon", epsilon)});
  // [C] -> [C, 1, ..., 1] broadcasts along the spatial dims.
  SmallVector<int64_t> channelShape{type.getDimSize(1)};
  channelShape.append(type.getRank() - 2, 1);
  auto perChannel = [&](int i) {
    return n.make1("vg.reshape", {n.in(i)}, {n.i64s("shape", channelShape)});
  };
  return n.define(apply(n, "vg.add",
                        {apply(n, "vg.mul", {normalized, perChannel(1)}), perChannel(2)}));
}

// mvn(x) -> (x - mean(x)) / (sqrt(var(x)) + 1e-9) over `axes`, as
// layer_norm(x) with epsilon 1e-18 under the variance's square root (equal
// at var = 0, within 1e-9 elsewhere) after a transpose that makes the
// reduced dims trailing.
LogicalResult convertMeanVarianceNorm(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes = n.attrInts("axes").value_or(SmallVector<int64_t>{0, 2, 3});
  SmallVector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    std::optional<int64_t> resolved = vg::normalizeAxis(axis, rank);
    if (!resolved)
      return n.fail("axis " + Twine(axis) + " is out of range for rank " + Twine(rank));
    reduced[*resolved] = true;
  }
  SmallVector<int64_t> perm, inverse(rank);
  for (bool wanted : {false, true})
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d] == wanted)
        perm.push_back(d);
  for (int64_t d = 0; d < rank; ++d)
    inverse[perm[d]] = d;
  int64_t kept = llvm::count(reduced, false);
  bool identity = llvm::equal(perm, llvm::seq<int64_t>(0, rank));
  FailureOr<Value> x = n.in(0);
  if (!identity)
    x = n.make1("vg.transpose", {*x}, {n.i64s("perm", perm)});
  if (failed(x))
    return failure();
  FailureOr<Value> y = n.make1(
      "vg.layer_norm",
      {*x, onesOf(n, cast<RankedTensorType>(x->getType()).getShape().drop_front(kept),
                  type.getElementType())},
      {n.i64("axis", kept), n.f32("epsilon", 1e-18f)});
  if (!identity)
    y = apply(n, "vg.transpose", {y}, {n.i64s("perm", inverse)});
  return n.define(y);
}

// hardmax(x) -> cast(float(arg_max(x, axis)) == iota(axis)): 1 at the first
// maximum along the axis, 0 elsewhere; before opset 13 over x flattened to
// 2-D at axis (as Softmax), then reshaped back. The index is compared in x's
// float type, the form the elementwise template takes (exact up to 2048
// positions in fp16).
LogicalResult convertHardmax(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  int64_t rank = type.getRank();
  int64_t axis = n.attrInt("axis", n.opset >= 13 ? -1 : 1);
  std::optional<int64_t> resolved = vg::normalizeAxis(axis, std::max<int64_t>(rank, 1));
  if (!resolved || rank == 0)
    return n.fail("axis " + Twine(axis) + " is out of range for rank " + Twine(rank));
  FailureOr<Value> x = n.in(0);
  int64_t along = *resolved;
  bool flattened = n.opset < 13 && along != rank - 1;
  if (flattened) {
    x = n.make1("vg.flatten", {*x}, {n.i64("axis", along)});
    along = 1;
  }
  if (failed(x))
    return failure();
  RankedTensorType work = cast<RankedTensorType>(x->getType());
  int64_t length = work.getDimSize(along);
  SmallVector<int64_t> iotaShape(work.getRank(), 1);
  iotaShape[along] = length;
  SmallVector<double> positions;
  for (int64_t k = 0; k < length; ++k)
    positions.push_back(double(k));
  TypeAttr element = TypeAttr::get(type.getElementType());
  Value iota = constantOf(n, RankedTensorType::get(iotaShape, type.getElementType()), positions);
  FailureOr<Value> index = apply(
      n, "vg.cast",
      {n.make1("vg.arg_max", {*x}, {n.i64("axis", along), n.i64("keepdims", 1)})},
      {n.named("to", element)});
  FailureOr<Value> y =
      apply(n, "vg.cast", {apply(n, "vg.equal", {index, iota})}, {n.named("to", element)});
  if (flattened)
    y = apply(n, "vg.reshape", {y}, {n.i64s("shape", type.getShape())});
  return n.define(y);
}

} // namespace

void populateNormConverters(ConverterTable &table) {
  for (StringRef op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
                       "ReduceL2"})
    table[op] = convertReduce;
  for (StringRef op : {"ReduceL1", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"})
    table[op] = convertComposedReduce;
  table["LayerNormalization"] = convertLayerNorm;
  table["Softmax"] = convertSoftmax;
  table["LogSoftmax"] = convertSoftmax;
  table["ArgMax"] = convertArgReduce;
  table["ArgMin"] = convertArgReduce;
  table["InstanceNormalization"] = convertInstanceNorm;
  table["MeanVarianceNormalization"] = convertMeanVarianceNorm;
  table["Hardmax"] = convertHardmax;
}

} // namespace vinci::onnx_import
