//===- FuseGelu.cpp - recompose GELU from its erf and tanh forms ----------===//
#include "passes/graph/Matchers.h"
#include "passes/graph/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace vinci::graph {
#define GEN_PASS_DEF_FUSEGELU
#include "passes/graph/Passes.h.inc"
} // namespace vinci::graph

using namespace mlir;

namespace vinci::graph {
namespace {

const double kSqrt2 = std::sqrt(2.0);
const double kSqrt2OverPi = std::sqrt(2.0 / M_PI);
constexpr double kCubicCoefficient = 0.044715;

/// x when `value` is x / c or x * (1 / c) (either operand order), used once.
Value dividedBy(Value value, double c) {
  if (auto div = singleUseProducer<vg::DivOp>(value))
    return isScalar(div.getRhs(), c) ? div.getLhs() : Value();
  if (auto mul = singleUseProducer<vg::MulOp>(value)) {
    if (isScalar(mul.getRhs(), 1.0 / c))
      return mul.getLhs();
    if (isScalar(mul.getLhs(), 1.0 / c))
      return mul.getRhs();
  }
  return {};
}

/// x when `value` is x * c (either order), used once.
Value timesScalar(Value value, double c) {
  auto mul = singleUseProducer<vg::MulOp>(value);
  if (!mul)
    return {};
  if (isScalar(mul.getRhs(), c))
    return mul.getLhs();
  if (isScalar(mul.getLhs(), c))
    return mul.getRhs();
  return {};
}

/// Whether `value` is x^3: pow(x, 3), x * (x * x) or (x * x) * x, used once.
bool isCube(Value value, Value x) {
  if (auto pow = singleUseProducer<vg::PowOp>(value))
    return pow.getLhs() == x && isScalar(pow.getRhs(), 3.0);
  auto mul = singleUseProducer<vg::MulOp>(value);
  if (!mul)
    return false;
  Value square = otherOperand(mul, x);
  auto inner = square ? singleUseProducer<vg::MulOp>(square) : vg::MulOp();
  return inner && inner.getLhs() == x && inner.getRhs() == x;
}

/// For `term` = 1 + erf(x / sqrt(2)) or 1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)):
/// x and the approximation it stands for.
std::optional<std::pair<Value, StringRef>> matchPhiTerm(Value term) {
  auto add = singleUseProducer<vg::AddOp>(term);
  if (!add)
    return std::nullopt;
  for (Value inner : {add.getLhs(), add.getRhs()}) {
    if (!isScalar(otherOperand(add, inner), 1.0))
      continue;
    if (auto erf = singleUseProducer<vg::ErfOp>(inner))
      if (Value x = dividedBy(erf.getInput(), kSqrt2))
        return std::make_pair(x, StringRef("none"));
    if (auto tanh = singleUseProducer<vg::TanhOp>(inner)) {
      auto sum = timesScalar(tanh.getInput(), kSqrt2OverPi)
                     ? singleUseProducer<vg::AddOp>(timesScalar(tanh.getInput(), kSqrt2OverPi))
                     : vg::AddOp();
      if (!sum)
        continue;
      for (Value x : {sum.getLhs(), sum.getRhs()}) {
        Value cube = timesScalar(otherOperand(sum, x), kCubicCoefficient);
        if (cube && isCube(cube, x))
          return std::make_pair(x, StringRef("tanh"));
      }
    }
  }
  return std::nullopt;
}

/// The factors of a product of up to three terms: y itself and the operands
/// of single-use multiplications below it.
SmallVector<Value, 4> productFactors(vg::MulOp root) {
  SmallVector<Value, 4> factors;
  for (Value operand : {root.getLhs(), root.getRhs()}) {
    if (auto inner = singleUseProducer<vg::MulOp>(operand)) {
      factors.push_back(inner.getLhs());
      factors.push_back(inner.getRhs());
    } else {
      factors.push_back(operand);
    }
  }
  return factors;
}

// 0.5 * x * (1 + erf(x / sqrt(2))) -> gelu(x)
// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) -> gelu(x, tanh)
struct RecomposeGelu : OpRewritePattern<vg::MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vg::MulOp root, PatternRewriter &rewriter) const override {
    SmallVector<Value, 4> factors = productFactors(root);
    if (factors.size() != 3)
      return failure();
    for (Value term : factors) {
      std::optional<std::pair<Value, StringRef>> phi = matchPhiTerm(term);
      if (!phi)
        continue;
      auto [x, approximate] = *phi;
      // The other two factors must be x and 0.5, in any order.
      SmallVector<Value, 2> rest;
      for (Value factor : factors)
        if (factor != term)
          rest.push_back(factor);
      bool ok = rest.size() == 2 && ((rest[0] == x && isScalar(rest[1], 0.5)) ||
                                     (rest[1] == x && isScalar(rest[0], 0.5)));
      if (!ok || x.getType() != root.getType())
        continue;
      rewriter.replaceOpWithNewOp<vg::GeluOp>(root, root.getType(), x,
                                              rewriter.getStringAttr(approximate));
      return success();
    }
    return failure();
  }
};

struct FuseGelu : impl::FuseGeluBase<FuseGelu> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RecomposeGelu>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace vinci::graph
