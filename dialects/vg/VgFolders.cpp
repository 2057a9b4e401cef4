//===- VgFolders.cpp - constant folding for vg ops ------------------------===//
//
// Exporters compute shapes at run time (Shape -> Gather -> Concat ->
// Reshape); with static input shapes every step is a constant. These folders
// evaluate such arithmetic on small constants, and reinterpret weight blobs
// (dense_resource) in place for reshapes, so no weight is ever copied.
//
//===----------------------------------------------------------------------===//
#include "vg/VgOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"

#include <climits>
#include <cmath>

using namespace mlir;
using namespace vinci::vg;

namespace {

/// Constants larger than this are not evaluated on the host: shape
/// arithmetic is tiny, and folding weights would copy them.
constexpr int64_t kMaxFoldElements = 1 << 14;

/// A small constant unpacked for evaluation: doubles for floats, int64 for
/// integers and bools (unsigned values zero-extend).
struct HostTensor {
  RankedTensorType type;
  bool isFloat = false;
  SmallVector<double> reals;
  SmallVector<int64_t> ints;

  int64_t size() const { return isFloat ? reals.size() : ints.size(); }
  double real(int64_t i) const { return isFloat ? reals[i] : double(ints[i]); }
  int64_t integer(int64_t i) const { return isFloat ? int64_t(reals[i]) : ints[i]; }
};

bool isUnsigned(Type element) {
  auto integer = dyn_cast<IntegerType>(element);
  return integer && (integer.isUnsigned() || integer.getWidth() == 1);
}

std::optional<HostTensor> unpack(Attribute attr) {
  auto dense = dyn_cast_if_present<DenseIntOrFPElementsAttr>(attr);
  if (!dense || dense.getNumElements() > kMaxFoldElements)
    return std::nullopt;
  HostTensor host;
  host.type = cast<RankedTensorType>(dense.getType());
  Type element = host.type.getElementType();
  if (isa<FloatType>(element)) {
    host.isFloat = true;
    for (const APFloat &value : dense.getValues<APFloat>())
      host.reals.push_back(value.convertToDouble() /* exact for f16/bf16/f32 */);
    return host;
  }
  if (!isa<IntegerType>(element))
    return std::nullopt;
  bool zeroExtend = isUnsigned(element);
  for (const APInt &value : dense.getValues<APInt>())
    host.ints.push_back(zeroExtend ? int64_t(value.getZExtValue()) : value.getSExtValue());
  return host;
}

/// Packs values into a DenseElementsAttr of `type`, converting as ONNX Cast
/// does: float to int truncates toward zero, to bool is x != 0.
Attribute pack(RankedTensorType type, const HostTensor &values) {
  Type element = type.getElementType();
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> out;
    for (int64_t i = 0; i < values.size(); ++i) {
      APFloat value(values.real(i));
      bool lost;
      value.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      out.push_back(value);
    }
    return DenseElementsAttr::get(type, out);
  }
  auto intType = dyn_cast<IntegerType>(element);
  if (!intType)
    return {};
  SmallVector<APInt> out;
  unsigned width = intType.getWidth();
  for (int64_t i = 0; i < values.size(); ++i) {
    int64_t value;
    if (width == 1) {
      value = values.isFloat ? values.reals[i] != 0.0 : values.ints[i] != 0;
    } else if (values.isFloat) {
      double real = values.reals[i];
      if (!std::isfinite(real))
        return {};
      value = static_cast<int64_t>(std::trunc(real));
    } else {
      value = values.ints[i];
    }
    out.push_back(APInt(width, static_cast<uint64_t>(value), !isUnsigned(element),
                        /*implicitTrunc=*/true));
  }
  return DenseElementsAttr::get(type, out);
}

HostTensor emptyLike(RankedTensorType type) {
  HostTensor host;
  host.type = type;
  host.isFloat = isa<FloatType>(type.getElementType());
  return host;
}

void append(HostTensor &out, const HostTensor &from, int64_t index) {
  if (out.isFloat)
    out.reals.push_back(from.real(index));
  else
    out.ints.push_back(from.isFloat ? int64_t(from.reals[index]) : from.ints[index]);
}

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Offset in a broadcast operand of the element at `index` of `outShape`.
int64_t broadcastOffset(int64_t index, ArrayRef<int64_t> outShape,
                        ArrayRef<int64_t> inShape) {
  SmallVector<int64_t> inStrides = stridesOf(inShape);
  int64_t offset = 0, rankGap = outShape.size() - inShape.size();
  for (int64_t d = outShape.size() - 1; d >= 0; --d) {
    int64_t coord = index % outShape[d];
    index /= outShape[d];
    int64_t inDim = d - rankGap;
    if (inDim >= 0 && inShape[inDim] != 1)
      offset += coord * inStrides[inDim];
  }
  return offset;
}

/// Evaluates an elementwise op over broadcast constant operands.
template <typename Fn>
Attribute foldElementwise(Type resultType, ArrayRef<Attribute> operands, Fn &&fn) {
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!type || !type.hasStaticShape())
    return {};
  SmallVector<HostTensor> inputs;
  for (Attribute attr : operands) {
    std::optional<HostTensor> host = unpack(attr);
    if (!host)
      return {};
    inputs.push_back(std::move(*host));
  }
  HostTensor out = emptyLike(type);
  int64_t count = type.getNumElements();
  if (count > kMaxFoldElements)
    return {};
  SmallVector<int64_t> offsets(inputs.size());
  for (int64_t i = 0; i < count; ++i) {
    for (auto [k, input] : llvm::enumerate(inputs))
      offsets[k] = broadcastOffset(i, type.getShape(), input.type.getShape());
    if (!fn(inputs, offsets, out))
      return {};
  }
  return pack(type, out);
}

/// A float-only unary op: f(x) in double precision, rounded once.
template <typename Fn>
Attribute foldFloatUnary(Type resultType, Attribute input, Fn &&fn) {
  return foldElementwise(resultType, {input},
                         [&](ArrayRef<HostTensor> in, ArrayRef<int64_t> at, HostTensor &out) {
                           out.reals.push_back(fn(in[0].real(at[0])));
                           return true;
                         });
}

/// A binary op that computes in double for floats and int64 for integers.
template <typename RealFn, typename IntFn>
Attribute foldBinary(Type resultType, Attribute lhs, Attribute rhs, RealFn &&real,
                     IntFn &&integer) {
  return foldElementwise(
      resultType, {lhs, rhs},
      [&](ArrayRef<HostTensor> in, ArrayRef<int64_t> at, HostTensor &out) {
        const HostTensor &a = in[0], &b = in[1];
        if (a.isFloat || b.isFloat) {
          double value = real(a.real(at[0]), b.real(at[1]));
          if (out.isFloat)
            out.reals.push_back(value);
          else
            out.ints.push_back(int64_t(value));
          return true;
        }
        std::optional<int64_t> value = integer(a.ints[at[0]], b.ints[at[1]]);
        if (!value)
          return false;
        out.ints.push_back(*value);
        return true;
      });
}

/// Comparisons produce bools from either kind of operand.
template <typename Cmp>
Attribute foldCompare(Type resultType, Attribute lhs, Attribute rhs, Cmp &&cmp) {
  return foldElementwise(resultType, {lhs, rhs},
                         [&](ArrayRef<HostTensor> in, ArrayRef<int64_t> at, HostTensor &out) {
                           const HostTensor &a = in[0], &b = in[1];
                           bool value = (a.isFloat || b.isFloat)
                                            ? cmp(a.real(at[0]), b.real(at[1]))
                                            : cmp(a.ints[at[0]], b.ints[at[1]]);
                           out.ints.push_back(value);
                           return true;
                         });
}

/// A constant with a new shape and the same bytes: dense attrs reshape,
/// resource blobs are shared through their handle.
Attribute reinterpret(Attribute attr, Type resultType) {
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!attr || !type || !type.hasStaticShape())
    return {};
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return dense.reshape(type);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
    return DenseResourceElementsAttr::get(type, resource.getRawHandle());
  return {};
}

/// Gathers elements of `input` by source index into a constant of `type`.
template <typename IndexFn>
Attribute foldByIndex(Attribute input, Type resultType, IndexFn &&sourceIndex) {
  auto type = dyn_cast<RankedTensorType>(resultType);
  std::optional<HostTensor> host = unpack(input);
  if (!type || !type.hasStaticShape() || !host || type.getNumElements() > kMaxFoldElements)
    return {};
  HostTensor out = emptyLike(type);
  SmallVector<int64_t> outStrides = stridesOf(type.getShape());
  SmallVector<int64_t> coords(type.getRank());
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    int64_t rest = i;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      coords[d] = rest / outStrides[d];
      rest %= outStrides[d];
    }
    std::optional<int64_t> source = sourceIndex(coords);
    if (!source || *source < 0 || *source >= host->size())
      return {};
    append(out, *host, *source);
  }
  return pack(type, out);
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

} // namespace

//===----------------------------------------------------------------------===//
// Constants and identities
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

// identity(x) -> x
OpFoldResult IdentityOp::fold(FoldAdaptor) { return getInput(); }

// dropout(x) -> x   (inference)
OpFoldResult DropoutOp::fold(FoldAdaptor) { return getInput(); }

// cast(x : T) to T -> x; cast(c) -> c converted
OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  bool toBool = getType().getElementType().isInteger(1);
  return foldElementwise(getType(), {adaptor.getInput()},
                         [&](ArrayRef<HostTensor> in, ArrayRef<int64_t> at, HostTensor &out) {
                           // to bool is x != 0 before any truncation (0.5 -> true)
                           if (toBool)
                             out.ints.push_back(in[0].real(at[0]) != 0.0);
                           else
                             append(out, in[0], at[0]);
                           return true;
                         });
}

//===----------------------------------------------------------------------===//
// Elementwise on constants
//===----------------------------------------------------------------------===//

#define VG_FOLD_FLOAT_UNARY(OpClass, expr)                                       \
  OpFoldResult OpClass::fold(FoldAdaptor adaptor) {                              \
    return foldFloatUnary(getType(), adaptor.getInput(), [](double x) { return expr; }); \
  }
VG_FOLD_FLOAT_UNARY(SqrtOp, std::sqrt(x))
VG_FOLD_FLOAT_UNARY(ReciprocalOp, 1.0 / x)
VG_FOLD_FLOAT_UNARY(ExpOp, std::exp(x))
VG_FOLD_FLOAT_UNARY(LogOp, std::log(x))
VG_FOLD_FLOAT_UNARY(TanhOp, std::tanh(x))
VG_FOLD_FLOAT_UNARY(ErfOp, std::erf(x))
VG_FOLD_FLOAT_UNARY(SigmoidOp, sigmoid(x))
VG_FOLD_FLOAT_UNARY(ReluOp, x > 0 ? x : 0.0)
VG_FOLD_FLOAT_UNARY(HardSwishOp, x * std::clamp(x / 6.0 + 0.5, 0.0, 1.0))
VG_FOLD_FLOAT_UNARY(FloorOp, std::floor(x))
VG_FOLD_FLOAT_UNARY(CeilOp, std::ceil(x))
VG_FOLD_FLOAT_UNARY(RoundOp, std::nearbyint(x)) // the default rounding: halves to even
VG_FOLD_FLOAT_UNARY(SinOp, std::sin(x))
VG_FOLD_FLOAT_UNARY(CosOp, std::cos(x))
VG_FOLD_FLOAT_UNARY(SoftplusOp, std::log1p(std::exp(x)))
#undef VG_FOLD_FLOAT_UNARY

/// Unary ops defined for floats and integers alike.
template <typename Fn>
static Attribute foldNumericUnary(Type type, Attribute input, Fn &&fn) {
  return foldElementwise(type, {input},
                         [&](ArrayRef<HostTensor> in, ArrayRef<int64_t> at, HostTensor &out) {
                           if (in[0].isFloat)
                             out.reals.push_back(fn(in[0].reals[at[0]]));
                           else
                             out.ints.push_back(fn(in[0].ints[at[0]]));
                           return true;
                         });
}

// neg(c) -> -c
OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return foldNumericUnary(getType(), adaptor.getInput(), [](auto x) { return -x; });
}
// abs(c) -> |c|
OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  return foldNumericUnary(getType(), adaptor.getInput(),
                          [](auto x) { return x < 0 ? -x : x; });
}
// sign(c) -> {-1, 0, 1}
OpFoldResult SignOp::fold(FoldAdaptor adaptor) {
  return foldNumericUnary(getType(), adaptor.getInput(),
                          [](auto x) { return decltype(x)((x > 0) - (x < 0)); });
}
// not(c) -> !c
OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  return foldNumericUnary(getType(), adaptor.getInput(),
                          [](auto x) { return decltype(x)(x == 0); });
}
// clip(c, lo, hi) -> min(max(c, lo), hi)
OpFoldResult ClipOp::fold(FoldAdaptor adaptor) {
  double lo = getMin() ? getMin()->convertToDouble() : -INFINITY;
  double hi = getMax() ? getMax()->convertToDouble() : INFINITY;
  return foldElementwise(getType(), {adaptor.getInput()},
                         [&](ArrayRef<HostTensor> in, ArrayRef<int64_t> at, HostTensor &out) {
                           double x = std::min(std::max(in[0].real(at[0]), lo), hi);
                           if (out.isFloat)
                             out.reals.push_back(x);
                           else
                             out.ints.push_back(int64_t(x));
                           return true;
                         });
}

using OptInt = std::optional<int64_t>;

// a + b, a - b, a * b on constants
OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldBinary(getType(), adaptor.getLhs(), adaptor.getRhs(),
                    [](double a, double b) { return a + b; },
                    [](int64_t a, int64_t b) -> OptInt { return a + b; });
}
OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldBinary(getType(), adaptor.getLhs(), adaptor.getRhs(),
                    [](double a, double b) { return a - b; },
                    [](int64_t a, int64_t b) -> OptInt { return a - b; });
}
OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldBinary(getType(), adaptor.getLhs(), adaptor.getRhs(),
                    [](double a, double b) { return a * b; },
                    [](int64_t a, int64_t b) -> OptInt { return a * b; });
}
// a / b: integers truncate toward zero; division by zero is not folded.
OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  return foldBinary(getType(), adaptor.getLhs(), adaptor.getRhs(),
                    [](double a, double b) { return a / b; },
                    [](int64_t a, int64_t b) -> OptInt {
                      if (b == 0 || (a == INT64_MIN && b == -1))
                        return std::nullopt;
                      return a / b;
                    });
}
OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  return foldBinary(getType(), adaptor.getLhs(), adaptor.getRhs(),
                    [](double a, double b) { return std::pow(a, b); },
                    [](int64_t a, int64_t b) -> OptInt {
                      return int64_t(std::pow(double(a), double(b)));
                    });
}
OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldBinary(getType(), adaptor.getLhs(), adaptor.getRhs(),
                    [](double a, double b) { return std::max(a, b); },
                    [](int64_t a, int64_t b) -> OptInt { return std::max(a, b); });
}
OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldBinary(getType(), adaptor.getLhs(), adaptor.getRhs(),
                    [](double a, double b) { return std::min(a, b); },
                    [](int64_t a, int64_t b) -> OptInt { return std::min(a, b); });
}
// mod: the result takes the divisor's sign (fmod = 1: the dividend's).
OpFoldResult ModOp::fold(FoldAdaptor adaptor) {
  bool cStyle = getFmod() != 0;
  return foldBinary(getType(), adaptor.getLhs(), adaptor.getRhs(),
                    [&](double a, double b) {
                      double r = std::fmod(a, b);
                      if (!cStyle && r != 0 && ((r < 0) != (b < 0)))
                        r += b;
                      return r;
                    },
                    [&](int64_t a, int64_t b) -> OptInt {
                      if (b == 0)
                        return std::nullopt;
                      if (b == -1)
                        return 0; // also avoids INT64_MIN % -1, which traps
                      int64_t r = a % b;
                      if (!cStyle && r != 0 && ((r < 0) != (b < 0)))
                        r += b;
                      return r;
                    });
}
OpFoldResult PReluOp::fold(FoldAdaptor adaptor) {
  return foldBinary(getType(), adaptor.getLhs(), adaptor.getRhs(),
                    [](double x, double slope) { return x < 0 ? slope * x : x; },
                    [](int64_t x, int64_t slope) -> OptInt { return x < 0 ? slope * x : x; });
}

#define VG_FOLD_COMPARE(OpClass, op)                                             \
  OpFoldResult OpClass::fold(FoldAdaptor adaptor) {                              \
    return foldCompare(getType(), adaptor.getLhs(), adaptor.getRhs(),            \
                       [](auto a, auto b) { return op; });                       \
  }
VG_FOLD_COMPARE(EqualOp, a == b)
VG_FOLD_COMPARE(LessOp, a < b)
VG_FOLD_COMPARE(LessOrEqualOp, a <= b)
VG_FOLD_COMPARE(GreaterOp, a > b)
VG_FOLD_COMPARE(GreaterOrEqualOp, a >= b)
VG_FOLD_COMPARE(AndOp, (a != 0) && (b != 0))
VG_FOLD_COMPARE(OrOp, (a != 0) || (b != 0))
VG_FOLD_COMPARE(XorOp, (a != 0) != (b != 0))
#undef VG_FOLD_COMPARE

// where(c, x, y) on constants
OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(getType(), {adaptor.getCondition(), adaptor.getX(), adaptor.getY()},
                         [](ArrayRef<HostTensor> in, ArrayRef<int64_t> at, HostTensor &out) {
                           bool pick = in[0].ints[at[0]] != 0;
                           append(out, pick ? in[1] : in[2], pick ? at[1] : at[2]);
                           return true;
                         });
}

//===----------------------------------------------------------------------===//
// Data movement and shape
//===----------------------------------------------------------------------===//

// transpose(x) with the identity permutation -> x
OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  RankedTensorType inType = getInput().getType();
  SmallVector<int64_t> perm;
  if (getPerm())
    perm.assign(getPerm()->begin(), getPerm()->end());
  else
    for (int64_t d = inType.getRank() - 1; d >= 0; --d)
      perm.push_back(d);
  if (llvm::equal(perm, llvm::seq<int64_t>(0, inType.getRank())))
    return getInput();
  if (!inType.hasStaticShape())
    return {};
  SmallVector<int64_t> inStrides = stridesOf(inType.getShape());
  return foldByIndex(adaptor.getInput(), getType(), [&](ArrayRef<int64_t> coords) -> OptInt {
    int64_t offset = 0;
    for (auto [outDim, inDim] : llvm::enumerate(perm))
      offset += coords[outDim] * inStrides[inDim];
    return offset;
  });
}

// reshape(x) to its own type -> x; reshape(reshape(x)) -> reshape(x);
// reshape(c) -> c with a new shape
OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (Attribute folded = reinterpret(adaptor.getInput(), getType()))
    return folded;
  if (auto producer = getInput().getDefiningOp<ReshapeOp>();
      producer && getType().hasStaticShape()) {
    getInputMutable().assign(producer.getInput());
    // The static result shape, taken literally: its zeros are real zeros.
    setShape(getType().getShape());
    if (llvm::is_contained(getType().getShape(), 0))
      setAllowzero(1);
    return getResult();
  }
  return {};
}

// flatten, squeeze, unsqueeze only reshape: the same rules apply.
OpFoldResult FlattenOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return reinterpret(adaptor.getInput(), getType());
}
OpFoldResult SqueezeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return reinterpret(adaptor.getInput(), getType());
}
OpFoldResult UnsqueezeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return reinterpret(adaptor.getInput(), getType());
}

// expand(x) to x's own shape -> x
OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  RankedTensorType inType = getInput().getType();
  if (!inType.hasStaticShape())
    return {};
  return foldElementwise(getType(), {adaptor.getInput()},
                         [](ArrayRef<HostTensor> in, ArrayRef<int64_t> at, HostTensor &out) {
                           append(out, in[0], at[0]);
                           return true;
                         });
}

// concat(x) -> x; concat(c1, c2, ...) -> c
OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  RankedTensorType type = getType();
  if (!type.hasStaticShape() || type.getNumElements() > kMaxFoldElements)
    return {};
  SmallVector<HostTensor> parts;
  for (Attribute attr : adaptor.getInputs()) {
    std::optional<HostTensor> host = unpack(attr);
    if (!host)
      return {};
    parts.push_back(std::move(*host));
  }
  int64_t axis = *normalizeAxis(getAxis(), type.getRank());
  // Each part contributes `outer` runs of (its axis dim x inner) elements.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= type.getDimSize(d);
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= type.getDimSize(d);
  HostTensor out = emptyLike(type);
  for (int64_t o = 0; o < outer; ++o)
    for (const HostTensor &part : parts) {
      int64_t run = part.type.getDimSize(axis) * inner;
      for (int64_t i = 0; i < run; ++i)
        append(out, part, o * run + i);
    }
  return pack(type, out);
}

// slice(x) taking everything -> x; slice(c) -> c'
OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() && getType().hasStaticShape() &&
      llvm::all_of(getSteps(), [](int64_t step) { return step == 1; }))
    return getInput();
  RankedTensorType inType = getInput().getType();
  if (!inType.hasStaticShape())
    return {};
  int64_t rank = inType.getRank();
  SmallVector<int64_t> start(rank, 0), step(rank, 1);
  for (auto [i, axis] : llvm::enumerate(getAxes())) {
    int64_t d = *normalizeAxis(axis, rank);
    start[d] = resolveSliceRange(inType.getDimSize(d), getStarts()[i], getEnds()[i],
                                 getSteps()[i])
                   .start;
    step[d] = getSteps()[i];
  }
  SmallVector<int64_t> inStrides = stridesOf(inType.getShape());
  return foldByIndex(adaptor.getInput(), getType(), [&](ArrayRef<int64_t> coords) -> OptInt {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += (start[d] + coords[d] * step[d]) * inStrides[d];
    return offset;
  });
}

// gather(c, indices) -> c'
OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  std::optional<HostTensor> indices = unpack(adaptor.getIndices());
  RankedTensorType dataType = getData().getType();
  if (!indices || !dataType.hasStaticShape())
    return {};
  int64_t axis = *normalizeAxis(getAxis(), dataType.getRank());
  int64_t axisDim = dataType.getDimSize(axis);
  int64_t indexRank = indices->type.getRank();
  SmallVector<int64_t> indexStrides = stridesOf(indices->type.getShape());
  SmallVector<int64_t> dataStrides = stridesOf(dataType.getShape());
  return foldByIndex(adaptor.getData(), getType(), [&](ArrayRef<int64_t> coords) -> OptInt {
    int64_t indexOffset = 0;
    for (int64_t k = 0; k < indexRank; ++k)
      indexOffset += coords[axis + k] * indexStrides[k];
    int64_t index = indices->ints[indexOffset];
    if (index < 0)
      index += axisDim;
    if (index < 0 || index >= axisDim)
      return std::nullopt;
    int64_t offset = index * dataStrides[axis];
    for (int64_t d = 0; d < axis; ++d)
      offset += coords[d] * dataStrides[d];
    for (int64_t d = axis + 1; d < dataType.getRank(); ++d)
      offset += coords[d - 1 + indexRank] * dataStrides[d];
    return offset;
  });
}

// shape(x) with x static -> its dims
OpFoldResult ShapeOp::fold(FoldAdaptor) {
  RankedTensorType inType = getInput().getType();
  int64_t rank = inType.getRank();
  auto clampDim = [&](int64_t d) { return std::clamp<int64_t>(d < 0 ? d + rank : d, 0, rank); };
  int64_t start = clampDim(getStart()), end = getEnd() ? clampDim(*getEnd()) : rank;
  ArrayRef<int64_t> dims = inType.getShape().slice(start, std::max<int64_t>(end - start, 0));
  if (llvm::any_of(dims, ShapedType::isDynamic))
    return {};
  return DenseElementsAttr::get(getType(), dims);
}

// constant_of_shape(s, v) -> splat v
OpFoldResult ConstantOfShapeOp::fold(FoldAdaptor) {
  auto value = dyn_cast<DenseElementsAttr>(getValue());
  if (!value)
    return {};
  if (value.getElementType().isInteger(1) || isa<IntegerType>(value.getElementType()))
    return DenseElementsAttr::get(getType(), *value.getValues<APInt>().begin());
  if (isa<FloatType>(value.getElementType()))
    return DenseElementsAttr::get(getType(), *value.getValues<APFloat>().begin());
  return {};
}

// range(start, limit, delta) -> [start, start + delta, ...]
OpFoldResult RangeOp::fold(FoldAdaptor) {
  RankedTensorType type = getType();
  std::optional<HostTensor> start = unpack(getStart()), delta = unpack(getDelta());
  if (!start || !delta || type.getNumElements() > kMaxFoldElements)
    return {};
  HostTensor out = emptyLike(type);
  for (int64_t i = 0; i < type.getNumElements(); ++i) {
    if (out.isFloat)
      out.reals.push_back(start->reals[0] + double(i) * delta->reals[0]);
    else
      out.ints.push_back(start->ints[0] + i * delta->ints[0]);
  }
  return pack(type, out);
}
