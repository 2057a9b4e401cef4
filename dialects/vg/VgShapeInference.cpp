//===- VgShapeInference.cpp - result types of vg ops ----------------------===//
//
// Each op's inferReturnTypes is also its verifier: ODS checks the IR's result
// types against what is inferred here, so every message names the op and
// says what is wrong in the user's terms.
//
//===----------------------------------------------------------------------===//
#include "vg/VgOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>

using namespace mlir;
using namespace vinci::vg;

namespace {

using Loc = std::optional<Location>;
using Types = SmallVectorImpl<Type>;

constexpr int64_t kDynamic = ShapedType::kDynamic;

bool isDynamic(int64_t dim) { return ShapedType::isDynamic(dim); }

std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

std::string listString(ArrayRef<int64_t> values) {
  std::string text = "[";
  for (auto [i, v] : llvm::enumerate(values))
    text += (i ? ", " : "") + std::to_string(v);
  return text + "]";
}

RankedTensorType tensorOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

LogicalResult push(Types &inferred, ArrayRef<int64_t> shape, Type element) {
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

/// The axis attribute of `op`, resolved against `rank`, or an error.
FailureOr<int64_t> resolveAxis(Loc loc, StringRef op, int64_t axis, int64_t rank,
                               StringRef what = "axis") {
  std::optional<int64_t> resolved = normalizeAxis(axis, rank);
  if (!resolved) {
    (void)emitOptionalError(loc, "vg.", op, ": ", what, " ", axis,
                            " is out of range for rank ", rank, " (valid: [",
                            -rank, ", ", rank - 1, "])");
    return failure();
  }
  return *resolved;
}

/// Resolves and checks a list of distinct axes.
FailureOr<SmallVector<int64_t>> resolveAxes(Loc loc, StringRef op,
                                            ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> resolved;
  for (int64_t axis : axes) {
    FailureOr<int64_t> one = resolveAxis(loc, op, axis, rank);
    if (failed(one))
      return failure();
    if (llvm::is_contained(resolved, *one)) {
      (void)emitOptionalError(loc, "vg.", op, ": axis ", axis,
                              " is listed twice in ", listString(axes));
      return failure();
    }
    resolved.push_back(*one);
  }
  return resolved;
}

/// Output extent of one sliding-window dim (convolution and pooling).
int64_t windowOutput(int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                     int64_t padBegin, int64_t padEnd, bool ceilMode) {
  if (isDynamic(in))
    return kDynamic;
  int64_t span = (kernel - 1) * dilation + 1;
  int64_t numerator = in + padBegin + padEnd - span;
  if (numerator < 0)
    return 0;
  int64_t out = (ceilMode ? (numerator + stride - 1) / stride : numerator / stride) + 1;
  // As in PyTorch and ONNX: with ceil_mode the last window must start inside
  // the input or the begin padding, not wholly in the end padding.
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

struct WindowParams {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};

/// Shared by Conv and the pools: checks the window attributes against the
/// spatial rank and resolves auto_pad into explicit pads.
FailureOr<WindowParams>
resolveWindow(Loc loc, StringRef op, ArrayRef<int64_t> inputShape,
              ArrayRef<int64_t> kernel, std::optional<ArrayRef<int64_t>> strides,
              std::optional<ArrayRef<int64_t>> dilations,
              std::optional<ArrayRef<int64_t>> pads, StringRef autoPad) {
  size_t spatial = inputShape.size() - 2;
  WindowParams params;
  params.kernel.assign(kernel.begin(), kernel.end());
  auto takeOr = [&](std::optional<ArrayRef<int64_t>> given, size_t size,
                    int64_t fill, StringRef name,
                    SmallVector<int64_t> &out) -> LogicalResult {
    if (!given) {
      out.assign(size, fill);
      return success();
    }
    if (given->size() != size)
      return emitOptionalError(loc, "vg.", op, ": ", name, " has ", given->size(),
                               " entries, expected ", size, " for ",
                               spatial, " spatial dims");
    out.assign(given->begin(), given->end());
    return success();
  };
  if (kernel.size() != spatial)
    return emitOptionalError(loc, "vg.", op, ": kernel_shape has ", kernel.size(),
                             " entries, expected ", spatial);
  if (failed(takeOr(strides, spatial, 1, "strides", params.strides)) ||
      failed(takeOr(dilations, spatial, 1, "dilations", params.dilations)) ||
      failed(takeOr(pads, 2 * spatial, 0, "pads", params.pads)))
    return failure();
  for (size_t i = 0; i < spatial; ++i) {
    if (params.kernel[i] <= 0 || params.strides[i] <= 0 || params.dilations[i] <= 0)
      return emitOptionalError(loc, "vg.", op,
                               ": kernel_shape, strides and dilations must be positive");
    if (params.pads[i] < 0 || params.pads[i + spatial] < 0)
      return emitOptionalError(loc, "vg.", op, ": pads must not be negative, got ",
                               listString(params.pads));
  }
  if (autoPad == "NOTSET")
    return params;
  if (autoPad == "VALID") {
    std::fill(params.pads.begin(), params.pads.end(), 0);
    return params;
  }
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return emitOptionalError(loc, "vg.", op, ": auto_pad '", autoPad,
                             "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  for (size_t i = 0; i < spatial; ++i) {
    int64_t in = inputShape[2 + i];
    if (isDynamic(in))
      continue;
    int64_t out = (in + params.strides[i] - 1) / params.strides[i];
    int64_t span = (params.kernel[i] - 1) * params.dilations[i] + 1;
    int64_t total = std::max<int64_t>((out - 1) * params.strides[i] + span - in, 0);
    int64_t small = total / 2, large = total - total / 2;
    params.pads[i] = autoPad == "SAME_UPPER" ? small : large;
    params.pads[i + spatial] = autoPad == "SAME_UPPER" ? large : small;
  }
  return params;
}

SmallVector<int64_t> windowShape(ArrayRef<int64_t> inputShape, int64_t channels,
                                 const WindowParams &p, bool ceilMode) {
  size_t spatial = inputShape.size() - 2;
  SmallVector<int64_t> shape{inputShape[0], channels};
  for (size_t i = 0; i < spatial; ++i)
    shape.push_back(windowOutput(inputShape[2 + i], p.kernel[i], p.strides[i],
                                 p.dilations[i], p.pads[i], p.pads[i + spatial], ceilMode));
  return shape;
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t result = 1;
  for (int64_t dim : dims) {
    if (isDynamic(dim))
      return kDynamic;
    result *= dim;
  }
  return result;
}

} // namespace

//===----------------------------------------------------------------------===//
// Constants and casts
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, Loc, Adaptor adaptor,
                                           Types &inferred) {
  inferred.push_back(adaptor.getValue().getType());
  return success();
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *, Loc, Adaptor adaptor,
                                       Types &inferred) {
  return push(inferred, tensorOf(adaptor.getInput()).getShape(), adaptor.getTo());
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                        Types &inferred) {
  SmallVector<Type> branchTypes;
  if (failed(inferBroadcastResult(
          loc, "where",
          {adaptor.getCondition().getType(), adaptor.getX().getType(),
           adaptor.getY().getType()},
          /*boolResult=*/false, /*sameElementType=*/false, branchTypes)))
    return failure();
  Type x = tensorOf(adaptor.getX()).getElementType();
  Type y = tensorOf(adaptor.getY()).getElementType();
  if (x != y)
    return emitOptionalError(loc, "vg.where: x and y must have the same element type, got ",
                             x, " and ", y);
  return push(inferred, cast<RankedTensorType>(branchTypes[0]).getShape(), x);
}

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                         Types &inferred) {
  RankedTensorType a = tensorOf(adaptor.getA()), b = tensorOf(adaptor.getB());
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, "vg.matmul: operands must have the same element type, got ",
                             a, " and ", b);
  if (a.getRank() == 0 || b.getRank() == 0)
    return emitOptionalError(loc, "vg.matmul: operands must have rank >= 1, got ", a,
                             " and ", b);
  SmallVector<int64_t> lhs(a.getShape()), rhs(b.getShape());
  bool lhsVector = lhs.size() == 1, rhsVector = rhs.size() == 1;
  if (lhsVector)
    lhs.insert(lhs.begin(), 1);
  else if (adaptor.getTransposeA())
    std::swap(lhs[lhs.size() - 1], lhs[lhs.size() - 2]);
  if (rhsVector)
    rhs.push_back(1);
  else if (adaptor.getTransposeB())
    std::swap(rhs[rhs.size() - 1], rhs[rhs.size() - 2]);
  int64_t k1 = lhs.back(), k2 = rhs[rhs.size() - 2];
  if (!isDynamic(k1) && !isDynamic(k2) && k1 != k2)
    return emitOptionalError(loc, "vg.matmul: contraction dims differ (", k1, " vs ",
                             k2, ") for ", a, " x ", b,
                             adaptor.getTransposeA() || adaptor.getTransposeB()
                                 ? " after the transposes"
                                 : "");
  ArrayRef<int64_t> lhsBatch = ArrayRef<int64_t>(lhs).drop_back(2);
  ArrayRef<int64_t> rhsBatch = ArrayRef<int64_t>(rhs).drop_back(2);
  std::optional<SmallVector<int64_t>> shape = broadcastShapes({lhsBatch, rhsBatch});
  if (!shape)
    return emitOptionalError(loc, "vg.matmul: batch dims do not broadcast: ", a, " x ", b);
  if (!lhsVector)
    shape->push_back(lhs[lhs.size() - 2]);
  if (!rhsVector)
    shape->push_back(rhs.back());
  return push(inferred, *shape, a.getElementType());
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                       Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput()), w = tensorOf(adaptor.getWeight());
  if (x.getRank() < 3)
    return emitOptionalError(loc, "vg.conv: input must be N x C x spatial..., got ", x);
  if (w.getRank() != x.getRank())
    return emitOptionalError(loc, "vg.conv: weight rank ", w.getRank(),
                             " differs from input rank ", x.getRank());
  if (x.getElementType() != w.getElementType())
    return emitOptionalError(loc, "vg.conv: input and weight element types differ: ",
                             x, " and ", w);
  int64_t group = adaptor.getGroup();
  if (group <= 0)
    return emitOptionalError(loc, "vg.conv: group must be positive, got ", group);
  int64_t channels = x.getDimSize(1), outChannels = w.getDimSize(0);
  if (!isDynamic(channels) && !isDynamic(w.getDimSize(1)) &&
      channels != w.getDimSize(1) * group)
    return emitOptionalError(loc, "vg.conv: input has ", channels,
                             " channels but weight expects ", w.getDimSize(1), " x group ",
                             group);
  if (!isDynamic(outChannels) && outChannels % group != 0)
    return emitOptionalError(loc, "vg.conv: output channels ", outChannels,
                             " are not a multiple of group ", group);
  if (Value bias = adaptor.getBias()) {
    RankedTensorType b = tensorOf(bias);
    if (b.getRank() != 1 || b.getDimSize(0) != outChannels)
      return emitOptionalError(loc, "vg.conv: bias must be 1-D of size ", outChannels,
                               ", got ", b);
  }
  ArrayRef<int64_t> kernel = w.getShape().drop_front(2);
  if (auto given = adaptor.getKernelShape(); given && *given != kernel)
    return emitOptionalError(loc, "vg.conv: kernel_shape ", listString(*given),
                             " does not match the weight ", w);
  FailureOr<WindowParams> params =
      resolveWindow(loc, "conv", x.getShape(), kernel, adaptor.getStrides(),
                    adaptor.getDilations(), adaptor.getPads(), adaptor.getAutoPad());
  if (failed(params))
    return failure();
  return push(inferred, windowShape(x.getShape(), outChannels, *params, false),
              x.getElementType());
}

SmallVector<int64_t> ConvOp::getEffectivePads() {
  FailureOr<WindowParams> params = resolveWindow(
      std::nullopt, "conv", getInput().getType().getShape(),
      getWeight().getType().getShape().drop_front(2), getStrides(), getDilations(),
      getPads(), getAutoPad());
  return succeeded(params) ? params->pads : SmallVector<int64_t>{};
}

template <typename PoolAdaptor>
static LogicalResult inferPool(Loc loc, StringRef op, PoolAdaptor adaptor,
                               std::optional<ArrayRef<int64_t>> dilations,
                               Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  if (x.getRank() < 3)
    return emitOptionalError(loc, "vg.", op, ": input must be N x C x spatial..., got ", x);
  bool ceilMode = adaptor.getCeilMode() != 0;
  FailureOr<WindowParams> params =
      resolveWindow(loc, op, x.getShape(), adaptor.getKernelShape(), adaptor.getStrides(),
                    dilations, adaptor.getPads(), adaptor.getAutoPad());
  if (failed(params))
    return failure();
  return push(inferred, windowShape(x.getShape(), x.getDimSize(1), *params, ceilMode),
              x.getElementType());
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                          Types &inferred) {
  return inferPool(loc, "max_pool", adaptor, adaptor.getDilations(), inferred);
}

LogicalResult AveragePoolOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                              Types &inferred) {
  return inferPool(loc, "average_pool", adaptor, std::nullopt, inferred);
}

static LogicalResult inferGlobalPool(Loc loc, StringRef op, Value input, Types &inferred) {
  RankedTensorType x = tensorOf(input);
  if (x.getRank() < 3)
    return emitOptionalError(loc, "vg.", op, ": input must be N x C x spatial..., got ", x);
  SmallVector<int64_t> shape(x.getRank(), 1);
  shape[0] = x.getDimSize(0);
  shape[1] = x.getDimSize(1);
  return push(inferred, shape, x.getElementType());
}

LogicalResult GlobalAveragePoolOp::inferReturnTypes(MLIRContext *, Loc loc,
                                                    Adaptor adaptor, Types &inferred) {
  return inferGlobalPool(loc, "global_average_pool", adaptor.getInput(), inferred);
}

LogicalResult GlobalMaxPoolOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                                Types &inferred) {
  return inferGlobalPool(loc, "global_max_pool", adaptor.getInput(), inferred);
}

//===----------------------------------------------------------------------===//
// Normalisation and softmax
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                            Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  if (x.getRank() < 2)
    return emitOptionalError(loc, "vg.batch_norm: input must be N x C x ..., got ", x);
  int64_t channels = x.getDimSize(1);
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"scale", adaptor.getScale()},
        {"bias", adaptor.getBias()},
        {"mean", adaptor.getMean()},
        {"variance", adaptor.getVariance()}}) {
    RankedTensorType t = tensorOf(value);
    if (t.getRank() != 1 || (!isDynamic(channels) && t.getDimSize(0) != channels))
      return emitOptionalError(loc, "vg.batch_norm: ", name, " must be 1-D of size ",
                               channels, " (the channel dim), got ", t);
  }
  return push(inferred, x.getShape(), x.getElementType());
}

/// Layer and RMS norms: the result is the input's type; scale (and bias)
/// broadcast to the normalised trailing dims.
static LogicalResult inferNorm(Loc loc, StringRef op, Value input, int64_t axisAttr,
                               ArrayRef<Value> params, Types &inferred) {
  RankedTensorType x = tensorOf(input);
  FailureOr<int64_t> axis = resolveAxis(loc, op, axisAttr, x.getRank());
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> normalized = x.getShape().drop_front(*axis);
  for (Value param : params) {
    if (!param)
      continue;
    RankedTensorType t = tensorOf(param);
    if (!broadcastShapes({t.getShape(), normalized}) ||
        t.getRank() > static_cast<int64_t>(normalized.size()))
      return emitOptionalError(loc, "vg.", op, ": scale and bias must broadcast to the "
                               "normalised dims ", listString(normalized), ", got ", t);
  }
  return push(inferred, x.getShape(), x.getElementType());
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                            Types &inferred) {
  return inferNorm(loc, "layer_norm", adaptor.getInput(), adaptor.getAxis(),
                   {adaptor.getScale(), adaptor.getBias()}, inferred);
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                          Types &inferred) {
  return inferNorm(loc, "rms_norm", adaptor.getInput(), adaptor.getAxis(),
                   {adaptor.getScale()}, inferred);
}

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("approximate must be \"none\" or \"tanh\", got \"")
           << getApproximate() << "\"";
  return success();
}

template <typename SoftmaxAdaptor>
static LogicalResult inferSoftmax(Loc loc, StringRef op, SoftmaxAdaptor adaptor,
                                  Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  if (x.getRank() == 0)
    return emitOptionalError(loc, "vg.", op, ": input must have rank >= 1");
  if (failed(resolveAxis(loc, op, adaptor.getAxis(), x.getRank())))
    return failure();
  return push(inferred, x.getShape(), x.getElementType());
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                          Types &inferred) {
  return inferSoftmax(loc, "softmax", adaptor, inferred);
}

LogicalResult LogSoftmaxOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                             Types &inferred) {
  return inferSoftmax(loc, "log_softmax", adaptor, inferred);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename ReduceAdaptor>
static LogicalResult inferReduce(Loc loc, StringRef op, ReduceAdaptor adaptor,
                                 Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  int64_t rank = x.getRank();
  SmallVector<int64_t> axes;
  if (adaptor.getAxes() && !adaptor.getAxes()->empty()) {
    FailureOr<SmallVector<int64_t>> resolved =
        resolveAxes(loc, op, *adaptor.getAxes(), rank);
    if (failed(resolved))
      return failure();
    axes = *resolved;
  } else if (adaptor.getNoopWithEmptyAxes() == 0) {
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), 0);
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!llvm::is_contained(axes, d))
      shape.push_back(x.getDimSize(d));
    else if (adaptor.getKeepdims() != 0)
      shape.push_back(1);
  }
  return push(inferred, shape, x.getElementType());
}

#define VG_REDUCE_INFERENCE(OpClass, name)                                      \
  LogicalResult OpClass::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor, \
                                          Types &inferred) {                    \
    return inferReduce(loc, name, adaptor, inferred);                           \
  }
VG_REDUCE_INFERENCE(ReduceMeanOp, "reduce_mean")
VG_REDUCE_INFERENCE(ReduceSumOp, "reduce_sum")
VG_REDUCE_INFERENCE(ReduceMaxOp, "reduce_max")
VG_REDUCE_INFERENCE(ReduceMinOp, "reduce_min")
VG_REDUCE_INFERENCE(ReduceProdOp, "reduce_prod")
VG_REDUCE_INFERENCE(ReduceL2Op, "reduce_l2")
#undef VG_REDUCE_INFERENCE

template <typename ArgAdaptor>
static LogicalResult inferArgReduce(Loc loc, StringRef op, ArgAdaptor adaptor,
                                    Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  FailureOr<int64_t> axis = resolveAxis(loc, op, adaptor.getAxis(), x.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(x.getShape());
  if (adaptor.getKeepdims() != 0)
    shape[*axis] = 1;
  else
    shape.erase(shape.begin() + *axis);
  return push(inferred, shape, IntegerType::get(x.getContext(), 64));
}

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                         Types &inferred) {
  return inferArgReduce(loc, "arg_max", adaptor, inferred);
}

LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                         Types &inferred) {
  return inferArgReduce(loc, "arg_min", adaptor, inferred);
}

//===----------------------------------------------------------------------===//
// Data movement and shape
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                            Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  int64_t rank = x.getRank();
  SmallVector<int64_t> perm;
  if (adaptor.getPerm()) {
    perm.assign(adaptor.getPerm()->begin(), adaptor.getPerm()->end());
  } else {
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  }
  SmallVector<int64_t> sorted(perm);
  llvm::sort(sorted);
  bool isPermutation = static_cast<int64_t>(perm.size()) == rank;
  for (int64_t d = 0; isPermutation && d < rank; ++d)
    isPermutation = sorted[d] == d;
  if (!isPermutation)
    return emitOptionalError(loc, "vg.transpose: perm ", listString(perm),
                             " is not a permutation of the ", rank, " dims of ", x);
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(x.getDimSize(d));
  return push(inferred, shape, x.getElementType());
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                          Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> requested = adaptor.getShape();
  bool allowZero = adaptor.getAllowzero() != 0;
  SmallVector<int64_t> shape;
  int64_t inferredIndex = -1;
  for (auto [i, dim] : llvm::enumerate(requested)) {
    if (dim == -1) {
      if (inferredIndex >= 0)
        return emitOptionalError(loc, "vg.reshape: shape ", listString(requested),
                                 " has more than one -1");
      inferredIndex = i;
      shape.push_back(kDynamic);
    } else if (dim == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= x.getRank())
        return emitOptionalError(loc, "vg.reshape: shape ", listString(requested),
                                 " copies dim ", i, " (0) but the input ", x,
                                 " has rank ", x.getRank());
      shape.push_back(x.getDimSize(i));
    } else if (dim < 0) {
      return emitOptionalError(loc, "vg.reshape: shape ", listString(requested),
                               " has a negative dim other than -1");
    } else {
      shape.push_back(dim);
    }
  }
  int64_t total = product(x.getShape());
  if (inferredIndex >= 0 && !isDynamic(total)) {
    int64_t known = 1;
    for (auto [i, dim] : llvm::enumerate(shape))
      if (static_cast<int64_t>(i) != inferredIndex)
        known *= isDynamic(dim) ? 1 : dim;
    if (known == 0 || total % known != 0)
      return emitOptionalError(loc, "vg.reshape: cannot reshape ", x, " to ",
                               listString(requested));
    shape[inferredIndex] = total / known;
  }
  int64_t newTotal = product(shape);
  if (!isDynamic(total) && !isDynamic(newTotal) && total != newTotal)
    return emitOptionalError(loc, "vg.reshape: cannot reshape ", x, " (", total,
                             " elements) to ", listString(requested), " (", newTotal,
                             " elements)");
  return push(inferred, shape, x.getElementType());
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                          Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  int64_t rank = x.getRank(), axis = adaptor.getAxis();
  if (axis < -rank || axis > rank)
    return emitOptionalError(loc, "vg.flatten: axis ", axis, " is out of range for rank ",
                             rank, " (valid: [", -rank, ", ", rank, "])");
  if (axis < 0)
    axis += rank;
  return push(inferred,
              {product(x.getShape().take_front(axis)),
               product(x.getShape().drop_front(axis))},
              x.getElementType());
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                          Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  SmallVector<int64_t> axes;
  if (adaptor.getAxes()) {
    FailureOr<SmallVector<int64_t>> resolved =
        resolveAxes(loc, "squeeze", *adaptor.getAxes(), x.getRank());
    if (failed(resolved))
      return failure();
    axes = *resolved;
    for (int64_t axis : axes)
      if (x.getDimSize(axis) != 1 && !isDynamic(x.getDimSize(axis)))
        return emitOptionalError(loc, "vg.squeeze: dim ", axis, " of ", x,
                                 " is not 1 and cannot be squeezed");
  } else {
    for (int64_t d = 0; d < x.getRank(); ++d)
      if (x.getDimSize(d) == 1)
        axes.push_back(d);
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < x.getRank(); ++d)
    if (!llvm::is_contained(axes, d))
      shape.push_back(x.getDimSize(d));
  return push(inferred, shape, x.getElementType());
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                            Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  int64_t outRank = x.getRank() + static_cast<int64_t>(adaptor.getAxes().size());
  FailureOr<SmallVector<int64_t>> axes =
      resolveAxes(loc, "unsqueeze", adaptor.getAxes(), outRank);
  if (failed(axes))
    return failure();
  SmallVector<int64_t> shape;
  const int64_t *next = x.getShape().begin();
  for (int64_t d = 0; d < outRank; ++d)
    shape.push_back(llvm::is_contained(*axes, d) ? 1 : *next++);
  return push(inferred, shape, x.getElementType());
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                         Types &inferred) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "vg.concat: needs at least one input");
  RankedTensorType first = tensorOf(adaptor.getInputs().front());
  FailureOr<int64_t> axis =
      resolveAxis(loc, "concat", static_cast<int64_t>(adaptor.getAxis()), first.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (Value input : adaptor.getInputs().drop_front()) {
    RankedTensorType t = tensorOf(input);
    if (t.getRank() != first.getRank() || t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "vg.concat: inputs must share rank and element type, got ",
                               first, " and ", t);
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (d == *axis) {
        shape[d] = isDynamic(shape[d]) || t.isDynamicDim(d) ? kDynamic
                                                            : shape[d] + t.getDimSize(d);
      } else if (!isDynamic(shape[d]) && !t.isDynamicDim(d) && shape[d] != t.getDimSize(d)) {
        return emitOptionalError(loc, "vg.concat: dim ", d, " differs between ", first,
                                 " and ", t, " (only the concat axis ", *axis, " may)");
      }
    }
  }
  return push(inferred, shape, first.getElementType());
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                        Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  FailureOr<int64_t> axis = resolveAxis(loc, "split", adaptor.getAxis(), x.getRank());
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> sizes = adaptor.getSplit();
  int64_t sum = 0;
  for (int64_t size : sizes) {
    if (size < 0)
      return emitOptionalError(loc, "vg.split: split sizes must not be negative, got ",
                               listString(sizes));
    sum += size;
  }
  if (!x.isDynamicDim(*axis) && sum != x.getDimSize(*axis))
    return emitOptionalError(loc, "vg.split: split sizes ", listString(sizes), " sum to ",
                             sum, " but dim ", *axis, " of ", x, " is ",
                             x.getDimSize(*axis));
  for (int64_t size : sizes) {
    SmallVector<int64_t> shape(x.getShape());
    shape[*axis] = size;
    inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  }
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                        Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> starts = adaptor.getStarts(), ends = adaptor.getEnds(),
                    axes = adaptor.getAxes(), steps = adaptor.getSteps();
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return emitOptionalError(loc, "vg.slice: starts, ends, axes and steps must have the "
                             "same length, got ", starts.size(), ", ", ends.size(), ", ",
                             axes.size(), ", ", steps.size());
  FailureOr<SmallVector<int64_t>> resolved = resolveAxes(loc, "slice", axes, x.getRank());
  if (failed(resolved))
    return failure();
  SmallVector<int64_t> shape(x.getShape());
  for (auto [i, axis] : llvm::enumerate(*resolved)) {
    int64_t dim = x.getDimSize(axis), step = steps[i];
    if (step == 0)
      return emitOptionalError(loc, "vg.slice: step must not be 0");
    if (isDynamic(dim))
      continue;
    shape[axis] = resolveSliceRange(dim, starts[i], ends[i], step).count;
  }
  return push(inferred, shape, x.getElementType());
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                         Types &inferred) {
  RankedTensorType data = tensorOf(adaptor.getData());
  RankedTensorType indices = tensorOf(adaptor.getIndices());
  if (data.getRank() == 0)
    return emitOptionalError(loc, "vg.gather: data must have rank >= 1");
  FailureOr<int64_t> axis = resolveAxis(loc, "gather", adaptor.getAxis(), data.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(data.getShape().take_front(*axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(*axis + 1));
  return push(inferred, shape, data.getElementType());
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                         Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  for (int64_t dim : adaptor.getShape())
    if (dim < 0)
      return emitOptionalError(loc, "vg.expand: shape ", listString(adaptor.getShape()),
                               " has a negative dim");
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes({x.getShape(), adaptor.getShape()});
  if (!shape)
    return emitOptionalError(loc, "vg.expand: ", x, " does not broadcast to ",
                             listString(adaptor.getShape()));
  return push(inferred, *shape, x.getElementType());
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                       Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> repeats = adaptor.getRepeats();
  if (static_cast<int64_t>(repeats.size()) != x.getRank())
    return emitOptionalError(loc, "vg.tile: repeats has ", repeats.size(),
                             " entries, expected one per dim of ", x);
  SmallVector<int64_t> shape;
  for (auto [dim, repeat] : llvm::zip(x.getShape(), repeats)) {
    if (repeat < 0)
      return emitOptionalError(loc, "vg.tile: repeats must not be negative");
    shape.push_back(isDynamic(dim) ? kDynamic : dim * repeat);
  }
  return push(inferred, shape, x.getElementType());
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                      Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> pads = adaptor.getPads();
  int64_t rank = x.getRank();
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return emitOptionalError(loc, "vg.pad: pads has ", pads.size(), " entries, expected ",
                             2 * rank, " (begin and end for each dim of ", x, ")");
  StringRef mode = adaptor.getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return emitOptionalError(loc, "vg.pad: mode '", mode,
                             "' is not one of constant, reflect, edge");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = x.getDimSize(d);
    int64_t out = isDynamic(dim) ? kDynamic : dim + pads[d] + pads[d + rank];
    if (!isDynamic(out) && out < 0)
      return emitOptionalError(loc, "vg.pad: pads ", listString(pads),
                               " crop dim ", d, " of ", x, " below zero");
    shape.push_back(out);
  }
  return push(inferred, shape, x.getElementType());
}

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                         Types &inferred) {
  RankedTensorType x = tensorOf(adaptor.getInput());
  ArrayRef<float> scales = adaptor.getScales();
  if (static_cast<int64_t>(scales.size()) != x.getRank())
    return emitOptionalError(loc, "vg.resize: scales has ", scales.size(),
                             " entries, expected one per dim of ", x);
  StringRef mode = adaptor.getMode();
  if (mode != "nearest" && mode != "linear")
    return emitOptionalError(loc, "vg.resize: mode '", mode,
                             "' is not supported (supported: nearest, linear)");
  StringRef transform = adaptor.getCoordinateTransformationMode();
  if (!llvm::is_contained({"half_pixel", "pytorch_half_pixel", "align_corners", "tf_half_pixel_for_nn",
                           "asymmetric", "tf_crop_and_resize"},
                          transform))
    return emitOptionalError(loc, "vg.resize: coordinate_transformation_mode '", transform,
                             "' is not supported");
  if (transform == "tf_crop_and_resize")
    return emitOptionalError(loc, "vg.resize: tf_crop_and_resize (with roi) is not supported");
  StringRef nearest = adaptor.getNearestMode();
  if (!llvm::is_contained({"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
                          nearest))
    return emitOptionalError(loc, "vg.resize: nearest_mode '", nearest, "' is not supported");
  SmallVector<int64_t> shape;
  if (auto sizes = adaptor.getSizes()) {
    if (sizes->size() != scales.size())
      return emitOptionalError(loc, "vg.resize: sizes has ", sizes->size(),
                               " entries, expected ", scales.size());
    shape.assign(sizes->begin(), sizes->end());
  } else {
    for (auto [dim, scale] : llvm::zip(x.getShape(), scales)) {
      if (scale <= 0)
        return emitOptionalError(loc, "vg.resize: scales must be positive");
      shape.push_back(isDynamic(dim) ? kDynamic
                                     : static_cast<int64_t>(std::floor(dim * double(scale))));
    }
  }
  return push(inferred, shape, x.getElementType());
}

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *context, Loc, Adaptor adaptor,
                                        Types &inferred) {
  int64_t rank = tensorOf(adaptor.getInput()).getRank();
  auto clampDim = [&](int64_t d) {
    return std::clamp<int64_t>(d < 0 ? d + rank : d, 0, rank);
  };
  int64_t start = clampDim(adaptor.getStart());
  int64_t end = adaptor.getEnd() ? clampDim(*adaptor.getEnd()) : rank;
  return push(inferred, {std::max<int64_t>(end - start, 0)}, IntegerType::get(context, 64));
}

LogicalResult ConstantOfShapeOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                                  Types &inferred) {
  ElementsAttr value = adaptor.getValue();
  if (value.getNumElements() != 1)
    return emitOptionalError(loc, "vg.constant_of_shape: value must hold one element");
  for (int64_t dim : adaptor.getShape())
    if (dim < 0)
      return emitOptionalError(loc, "vg.constant_of_shape: shape ",
                               listString(adaptor.getShape()), " has a negative dim");
  return push(inferred, adaptor.getShape(), value.getElementType());
}

LogicalResult RangeOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                        Types &inferred) {
  ElementsAttr start = adaptor.getStart(), limit = adaptor.getLimit(),
               delta = adaptor.getDelta();
  if (start.getNumElements() != 1 || limit.getNumElements() != 1 ||
      delta.getNumElements() != 1)
    return emitOptionalError(loc, "vg.range: start, limit and delta must be scalars");
  Type element = start.getElementType();
  if (limit.getElementType() != element || delta.getElementType() != element)
    return emitOptionalError(loc, "vg.range: start, limit and delta must share a type");
  auto scalar = [&](ElementsAttr attr) -> double {
    if (isa<FloatType>(element))
      return (*attr.getValues<APFloat>().begin()).convertToDouble();
    return static_cast<double>((*attr.getValues<APInt>().begin()).getSExtValue());
  };
  double step = scalar(delta);
  if (step == 0)
    return emitOptionalError(loc, "vg.range: delta must not be 0");
  double count = std::ceil((scalar(limit) - scalar(start)) / step);
  return push(inferred, {static_cast<int64_t>(std::max(count, 0.0))}, element);
}
