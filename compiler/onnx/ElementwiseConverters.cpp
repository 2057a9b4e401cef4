//===- ElementwiseConverters.cpp - ONNX elementwise ops and their closed forms ---===//
//
// Elementwise ops: those vg takes as they are, the ones with attributes or
// several opset forms (Clip, Cast, Dropout, Mod), variadic folds, and the
// closed forms in lowered vg ops (Softsign, Celu, Shrink, the hyperbolic
// functions, Trilu's mask).
//
//===----------------------------------------------------------------------===//
#include "onnx/Importer.h"

#include "vg/VgOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace vinci::onnx_import {
namespace {

// Ops whose vg form takes the same operands and no attributes.
const llvm::StringMap<StringRef> &directOps() {
  static const llvm::StringMap<StringRef> table = {
      {"Identity", "vg.identity"}, {"Neg", "vg.neg"},
      {"Abs", "vg.abs"},           {"Sqrt", "vg.sqrt"},
      {"Reciprocal", "vg.reciprocal"}, {"Exp", "vg.exp"},
      {"Log", "vg.log"},           {"Tanh", "vg.tanh"},
      {"Erf", "vg.erf"},           {"Sigmoid", "vg.sigmoid"},
      {"Relu", "vg.relu"},         {"HardSwish", "vg.hard_swish"},
      {"Floor", "vg.floor"},       {"Ceil", "vg.ceil"},
      {"Round", "vg.round"},
      {"Sin", "vg.sin"},           {"Cos", "vg.cos"},
      {"Softplus", "vg.softplus"}, {"Sign", "vg.sign"},
      {"Not", "vg.not"},           {"Add", "vg.add"},
      {"Sub", "vg.sub"},           {"Mul", "vg.mul"},
      {"Div", "vg.div"},           {"Pow", "vg.pow"},
      {"Equal", "vg.equal"},       {"Less", "vg.less"},
      {"LessOrEqual", "vg.less_or_equal"}, {"Greater", "vg.greater"},
      {"GreaterOrEqual", "vg.greater_or_equal"}, {"And", "vg.and"},
      {"Or", "vg.or"},             {"Xor", "vg.xor"},
      {"PRelu", "vg.prelu"},       {"Where", "vg.where"},
      {"GlobalAveragePool", "vg.global_average_pool"},
      {"GlobalMaxPool", "vg.global_max_pool"},
  };
  return table;
}

LogicalResult convertDirect(NodeImporter &n) {
  SmallVector<Value> operands;
  for (int i = 0; i < static_cast<int>(n.numInputs()); ++i)
    operands.push_back(n.in(i));
  // Opset < 7 legacy broadcast: B aligns with A starting at `axis`, which is
  // numpy broadcasting once B gets trailing unit dims. PRelu's 1-D slope
  // applied to the channel dim (axis 1) the same way.
  bool legacyPRelu = n.opset < 7 && n.node.op_type() == "PRelu" && operands.size() == 2 &&
                     n.typeOf(1).getRank() == 1 && n.typeOf(0).getRank() > 2 &&
                     n.typeOf(1).getDimSize(0) != 1;
  if (n.opset < 7 && operands.size() == 2 &&
      ((n.attrInt("broadcast", 0) != 0 && n.hasAttr("axis")) || legacyPRelu)) {
    int64_t lhsRank = n.typeOf(0).getRank();
    RankedTensorType rhs = n.typeOf(1);
    int64_t axis = legacyPRelu ? 1 : n.attrInt("axis", 0);
    if (axis < 0)
      axis += lhsRank;
    int64_t trailing = lhsRank - axis - rhs.getRank();
    if (axis < 0 || trailing < 0)
      return n.fail("legacy broadcast axis " + Twine(n.attrInt("axis", 0)) +
                    " does not fit the operand ranks");
    SmallVector<int64_t> shape(rhs.getShape());
    shape.append(trailing, 1);
    FailureOr<Value> aligned = n.make1("vg.reshape", {operands[1]}, {n.i64s("shape", shape)});
    if (failed(aligned))
      return failure();
    operands[1] = *aligned;
  }
  return n.define(n.make1(directOps().lookup(n.node.op_type()), operands));
}

// x < 0 ? alpha*x : x and friends: copy float attributes with ONNX defaults.
LogicalResult convertFloatAttrUnary(NodeImporter &n) {
  StringRef type = n.node.op_type();
  SmallVector<NamedAttribute> attrs;
  StringRef opName;
  if (type == "LeakyRelu") {
    opName = "vg.leaky_relu";
    attrs.push_back(n.f32("alpha", n.attrFloat("alpha", 0.01f)));
  } else if (type == "HardSigmoid") {
    opName = "vg.hard_sigmoid";
    attrs.push_back(n.f32("alpha", n.attrFloat("alpha", 0.2f)));
    attrs.push_back(n.f32("beta", n.attrFloat("beta", 0.5f)));
  } else if (type == "Elu") {
    opName = "vg.elu";
    attrs.push_back(n.f32("alpha", n.attrFloat("alpha", 1.0f)));
  } else {
    opName = "vg.selu";
    attrs.push_back(n.f32("alpha", n.attrFloat("alpha", 1.67326319217681884765625f)));
    attrs.push_back(n.f32("gamma", n.attrFloat("gamma", 1.05070102214813232421875f)));
  }
  return n.define(n.make1(opName, {n.in(0)}, attrs));
}

// Max/Min/Sum/Mean take any number of inputs: fold them pairwise.
LogicalResult convertVariadic(NodeImporter &n) {
  StringRef type = n.node.op_type();
  StringRef opName = type == "Max" ? "vg.max" : type == "Min" ? "vg.min" : "vg.add";
  if (n.numInputs() == 0)
    return n.fail("needs at least one input");
  FailureOr<Value> acc = n.in(0);
  for (int i = 1; i < static_cast<int>(n.numInputs()) && succeeded(acc); ++i)
    acc = n.make1(opName, {*acc, n.in(i)});
  if (succeeded(acc) && type == "Mean" && n.numInputs() > 1) {
    Type element = cast<RankedTensorType>(acc->getType()).getElementType();
    acc = n.make1("vg.div", {*acc, n.scalar(element, double(n.numInputs()))});
  }
  return n.define(acc);
}

// mod(a, b) keeps the fmod attribute
LogicalResult convertMod(NodeImporter &n) {
  return n.define(n.make1("vg.mod", {n.in(0), n.in(1)}, {n.i64("fmod", n.attrInt("fmod", 0))}));
}

// clip(x, min, max): attributes before opset 11, optional constant inputs after.
LogicalResult convertClip(NodeImporter &n) {
  SmallVector<NamedAttribute> attrs;
  if (n.opset < 11) {
    if (n.hasAttr("min"))
      attrs.push_back(n.named("min", n.builder.getF64FloatAttr(n.attrFloat("min", 0))));
    if (n.hasAttr("max"))
      attrs.push_back(n.named("max", n.builder.getF64FloatAttr(n.attrFloat("max", 0))));
  } else {
    for (auto [i, bound] : llvm::enumerate(std::array<StringRef, 2>{"min", "max"})) {
      if (!n.has(i + 1))
        continue;
      FailureOr<SmallVector<double>> value = n.constReals(i + 1, bound);
      if (failed(value))
        return failure();
      if (value->size() != 1)
        return n.fail(Twine(bound) + " must be a scalar");
      attrs.push_back(n.named(bound, n.builder.getF64FloatAttr(value->front())));
    }
  }
  return n.define(n.make1("vg.clip", {n.in(0)}, attrs));
}

LogicalResult convertCast(NodeImporter &n) {
  int64_t to = n.attrInt("to", 0);
  Type element = elementTypeOf(*n.builder.getContext(), to);
  if (!element)
    return n.fail("cast to " + dtypeName(to) + " is not supported");
  return n.define(n.make1("vg.cast", {n.in(0)}, {n.named("to", TypeAttr::get(element))}));
}

LogicalResult convertDropout(NodeImporter &n) {
  if (n.opset >= 12 && n.has(2)) {
    FailureOr<SmallVector<int64_t>> training = n.constInts(2, "training_mode");
    if (failed(training))
      return failure();
    // A ratio of 0 drops nothing and scales by 1 in training mode too
    // (torchvision 0.14's Swin exports its attention dropout so).
    bool dropsNothing = false;
    if (n.has(1)) {
      ElementsAttr ratio;
      std::optional<SmallVector<double>> values;
      if (matchPattern(n.in(1), m_Constant(&ratio)) && (values = readReals(ratio)))
        dropsNothing = llvm::all_of(*values, [](double r) { return r == 0.0; });
    }
    if (!training->empty() && training->front() != 0 && !dropsNothing)
      return n.fail("training_mode = true with a ratio that is not a constant 0 is not supported "
                    "(inference only: export the model in eval mode)");
  }
  FailureOr<Value> output = n.make1("vg.dropout", {n.in(0)});
  if (failed(output))
    return failure();
  if (n.node.output_size() < 2 || n.node.output(1).empty())
    return n.define(output);
  // In inference nothing is dropped: the mask is all true.
  ElementsAttr keep = DenseElementsAttr::get(
      RankedTensorType::get({1}, n.builder.getI1Type()), true);
  FailureOr<Value> mask = n.make1(
      "vg.constant_of_shape", {},
      {n.i64s("shape", n.typeOf(0).getShape()), n.named("value", keep)});
  if (failed(mask))
    return failure();
  return n.define(ArrayRef<Value>{*output, *mask});
}

// castlike(x, like) -> cast(x, to = element type of like)
LogicalResult convertCastLike(NodeImporter &n) {
  return n.define(
      n.make1("vg.cast", {n.in(0)}, {n.named("to", TypeAttr::get(n.typeOf(1).getElementType()))}));
}

// Elementwise ops with a closed form in lowered vg ops.
LogicalResult convertComposedUnary(NodeImporter &n) {
  StringRef type = n.node.op_type();
  Value x = n.in(0);
  Type element = elementOf(x);
  auto c = [&](double value) { return n.scalar(element, value); };
  if (type == "Softsign") // softsign(x) -> x / (1 + |x|)
    return n.define(apply(n, "vg.div", {x, apply(n, "vg.add", {c(1), apply(n, "vg.abs", {x})})}));
  if (type == "ThresholdedRelu") { // thresholded_relu(x) -> x > alpha ? x : 0
    float alpha = n.attrFloat("alpha", 1.0f);
    return n.define(apply(n, "vg.where", {apply(n, "vg.greater", {x, c(alpha)}), x, c(0)}));
  }
  if (type == "Celu") { // celu(x) -> alpha * elu(x / alpha)
    Value alpha = c(n.attrFloat("alpha", 1.0f));
    return n.define(
        apply(n, "vg.mul", {apply(n, "vg.elu", {apply(n, "vg.div", {x, alpha})}), alpha}));
  }
  if (type == "Shrink") {
    float lambd = n.attrFloat("lambd", 0.5f), bias = n.attrFloat("bias", 0.0f);
    // With bias == lambd (soft shrink) the two branches are ramps:
    // shrink(x) -> relu(x - lambd) - relu(-x - lambd)
    if (bias == lambd && isa<FloatType>(element))
      return n.define(apply(n, "vg.sub",
                            {apply(n, "vg.relu", {apply(n, "vg.sub", {x, c(lambd)})}),
                             apply(n, "vg.relu", {apply(n, "vg.sub", {apply(n, "vg.neg", {x}),
                                                                      c(lambd)})})}));
    // shrink(x) -> x < -lambd ? x + bias : (x > lambd ? x - bias : 0)
    FailureOr<Value> below = bias == 0 ? x : apply(n, "vg.add", {x, c(bias)});
    FailureOr<Value> above = bias == 0 ? x : apply(n, "vg.sub", {x, c(bias)});
    FailureOr<Value> upper =
        apply(n, "vg.where", {apply(n, "vg.greater", {x, c(lambd)}), above, c(0)});
    return n.define(
        apply(n, "vg.where", {apply(n, "vg.less", {x, c(-lambd)}), below, upper}));
  }
  FailureOr<Value> expX = type == "Sinh" || type == "Cosh" ? apply(n, "vg.exp", {x}) : x;
  FailureOr<Value> expNegX =
      type == "Sinh" || type == "Cosh" ? apply(n, "vg.exp", {apply(n, "vg.neg", {x})}) : x;
  if (type == "Sinh") // sinh(x) -> (e^x - e^-x) / 2
    return n.define(apply(n, "vg.mul", {apply(n, "vg.sub", {expX, expNegX}), c(0.5)}));
  if (type == "Cosh") // cosh(x) -> (e^x + e^-x) / 2
    return n.define(apply(n, "vg.mul", {apply(n, "vg.add", {expX, expNegX}), c(0.5)}));
  if (type == "Asinh") {
    // asinh(x) -> a(relu(x)) - a(relu(-x)), a(p) = ln(p + sqrt(p^2 + 1)): a is
    // evaluated on p >= 0 only, where p + sqrt(p^2 + 1) does not cancel.
    auto ramp = [&](FailureOr<Value> p) {
      return apply(n, "vg.log",
                   {apply(n, "vg.add",
                          {p, apply(n, "vg.sqrt",
                                    {apply(n, "vg.add", {apply(n, "vg.mul", {p, p}), c(1)})})})});
    };
    return n.define(apply(n, "vg.sub", {ramp(apply(n, "vg.relu", {x})),
                                        ramp(apply(n, "vg.relu", {apply(n, "vg.neg", {x})}))}));
  }
  if (type == "Acosh") // acosh(x) -> ln(x + sqrt((x - 1) * (x + 1)))
    return n.define(apply(
        n, "vg.log",
        {apply(n, "vg.add",
               {x, apply(n, "vg.sqrt", {apply(n, "vg.mul", {apply(n, "vg.sub", {x, c(1)}),
                                                            apply(n, "vg.add", {x, c(1)})})})})}));
  // atanh(x) -> ln((1 + x) / (1 - x)) / 2
  return n.define(apply(
      n, "vg.mul",
      {apply(n, "vg.log", {apply(n, "vg.div", {apply(n, "vg.add", {c(1), x}),
                                               apply(n, "vg.sub", {c(1), x})})}),
       c(0.5)}));
}

// trilu(x, k) -> x * mask, mask[i, j] = (j - i >= k) for upper, (j - i <= k)
// for lower: a constant 0/1 matrix over the last two dims, broadcast over
// the batch dims (so inf * 0 gives NaN where numpy's triu gives 0).
LogicalResult convertTrilu(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  if (type.getRank() < 2)
    return n.fail("input must have rank 2 or more, got rank " + Twine(type.getRank()));
  int64_t k = 0;
  if (n.has(1)) {
    FailureOr<SmallVector<int64_t>> given = n.constInts(1, "k");
    if (failed(given))
      return failure();
    if (given->size() != 1)
      return n.fail("k must be a scalar");
    k = given->front();
  }
  bool upper = n.attrInt("upper", 1) != 0;
  int64_t rows = type.getDimSize(type.getRank() - 2), cols = type.getDimSize(type.getRank() - 1);
  SmallVector<double> mask;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      mask.push_back((upper ? j - i >= k : j - i <= k) ? 1.0 : 0.0);
  Value maskValue =
      constantOf(n, RankedTensorType::get({rows, cols}, type.getElementType()), mask);
  return n.define(n.make1("vg.mul", {n.in(0), maskValue}));
}

} // namespace

void populateElementwiseConverters(ConverterTable &table) {
  for (const auto &entry : directOps())
    table[entry.getKey()] = convertDirect;
  for (StringRef op : {"LeakyRelu", "HardSigmoid", "Elu", "Selu"})
    table[op] = convertFloatAttrUnary;
  for (StringRef op : {"Max", "Min", "Sum", "Mean"})
    table[op] = convertVariadic;
  table["Mod"] = convertMod;
  table["Clip"] = convertClip;
  table["Cast"] = convertCast;
  table["CastLike"] = convertCastLike;
  table["Dropout"] = convertDropout;
  for (StringRef op : {"Softsign", "ThresholdedRelu", "Celu", "Shrink", "Sinh", "Cosh", "Asinh",
                       "Acosh", "Atanh"})
    table[op] = convertComposedUnary;
  table["Trilu"] = convertTrilu;
}

} // namespace vinci::onnx_import
