//===- FuseLayerNorm.cpp - recompose LayerNorm and RMSNorm ----------------===//
#include "passes/graph/Matchers.h"
#include "passes/graph/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace vinci::graph {
#define GEN_PASS_DEF_FUSELAYERNORM
#include "passes/graph/Passes.h.inc"
} // namespace vinci::graph

using namespace mlir;

namespace vinci::graph {
namespace {

/// The first normalised dim if `axes` (with keepdims) are exactly the
/// trailing dims of a tensor of rank `rank`.
std::optional<int64_t> trailingAxis(vg::ReduceMeanOp mean, int64_t rank) {
  std::optional<ArrayRef<int64_t>> given = mean.getAxes();
  if (mean.getKeepdims() == 0 || !given || given->empty())
    return std::nullopt;
  SmallVector<int64_t> axes;
  for (int64_t axis : *given)
    axes.push_back(axis < 0 ? axis + rank : axis);
  llvm::sort(axes);
  for (auto [i, axis] : llvm::enumerate(axes))
    if (axis != rank - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(i))
      return std::nullopt;
  return axes.front();
}

/// What the normalisation chain computes: d / sqrt(mean(d^2) + eps).
struct NormChain {
  Value centered;         // d
  Operation *square;      // d^2
  vg::ReduceMeanOp mean;  // mean(d^2)
  double epsilon = 0;
};

/// Matches `norm` = d / sqrt(mean(d^2) + eps) or d * (1 / sqrt(...)), with
/// d^2 as pow(d, 2) or d * d and every intermediate used once.
std::optional<NormChain> matchNormalize(Operation *norm) {
  Value centered, root;
  if (auto div = dyn_cast<vg::DivOp>(norm)) {
    centered = div.getLhs();
    root = div.getRhs();
  } else if (auto mul = dyn_cast<vg::MulOp>(norm)) {
    for (Value candidate : {mul.getLhs(), mul.getRhs()})
      if (auto reciprocal = singleUseProducer<vg::ReciprocalOp>(candidate)) {
        root = reciprocal.getInput();
        centered = otherOperand(mul, candidate);
      }
  }
  if (!root)
    return std::nullopt;
  auto sqrt = singleUseProducer<vg::SqrtOp>(root);
  auto shifted = sqrt ? singleUseProducer<vg::AddOp>(sqrt.getInput()) : vg::AddOp();
  if (!shifted)
    return std::nullopt;
  for (Value variance : {shifted.getLhs(), shifted.getRhs()}) {
    std::optional<double> epsilon = scalarConstant(otherOperand(shifted, variance));
    auto mean = singleUseProducer<vg::ReduceMeanOp>(variance);
    if (!epsilon || !mean)
      continue;
    Operation *square = mean.getInput().getDefiningOp();
    if (!square || !mean.getInput().hasOneUse())
      continue;
    bool isSquare = false;
    if (auto pow = dyn_cast<vg::PowOp>(square))
      isSquare = pow.getLhs() == centered && isScalar(pow.getRhs(), 2.0);
    else if (auto mul = dyn_cast<vg::MulOp>(square))
      isSquare = mul.getLhs() == centered && mul.getRhs() == centered;
    if (isSquare)
      return NormChain{centered, square, mean, *epsilon};
  }
  return std::nullopt;
}

/// A splat constant of ones over the normalised dims: the scale of a norm
/// that had no affine part (yet).
Value ones(PatternRewriter &rewriter, Location loc, RankedTensorType type, int64_t axis) {
  auto shape = RankedTensorType::get(type.getShape().drop_front(axis), type.getElementType());
  auto one = DenseElementsAttr::get(
      shape, rewriter.getFloatAttr(type.getElementType(), 1.0).getValue());
  return vg::ConstantOp::create(rewriter, loc, cast<ElementsAttr>(one));
}

bool isOnes(Value value) {
  DenseElementsAttr attr;
  return matchPattern(value, m_Constant(&attr)) && attr.isSplat() &&
         isa<FloatType>(attr.getElementType()) &&
         (*attr.getValues<APFloat>().begin()).convertToDouble() == 1.0;
}

// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) -> layer_norm(x, 1)
// x / sqrt(mean(x^2) + eps) -> rms_norm(x, 1)
struct RecomposeNorm : RewritePattern {
  explicit RecomposeNorm(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *norm, PatternRewriter &rewriter) const override {
    if (!isa<vg::DivOp, vg::MulOp>(norm))
      return failure();
    std::optional<NormChain> chain = matchNormalize(norm);
    if (!chain)
      return failure();
    auto type = cast<RankedTensorType>(norm->getResult(0).getType());
    if (chain->centered.getType() != type)
      return failure();
    std::optional<int64_t> axis = trailingAxis(chain->mean, type.getRank());
    if (!axis)
      return failure();
    FloatAttr epsilon = rewriter.getF32FloatAttr(static_cast<float>(chain->epsilon));
    IntegerAttr axisAttr = rewriter.getI64IntegerAttr(*axis);

    // Layer norm: d = x - mean(x) over the same dims, used by the square
    // and the division only.
    if (auto sub = chain->centered.getDefiningOp<vg::SubOp>()) {
      auto mean = singleUseProducer<vg::ReduceMeanOp>(sub.getRhs());
      if (mean && mean.getInput() == sub.getLhs() &&
          trailingAxis(mean, type.getRank()) == axis && sub.getLhs().getType() == type &&
          llvm::all_of(chain->centered.getUsers(), [&](Operation *user) {
            return user == chain->square || user == norm;
          })) {
        Value x = sub.getLhs();
        Value scale = ones(rewriter, norm->getLoc(), type, *axis);
        auto fused = vg::LayerNormOp::create(rewriter, norm->getLoc(), type, x, scale,
                                             /*bias=*/Value(), axisAttr, epsilon);
        rewriter.replaceOp(norm, fused.getResult());
        return success();
      }
      // A sub that is not the centring step: this is no layer norm, and
      // not an RMS norm of the sub's result either unless it is used so.
    }
    Value x = chain->centered;
    Value scale = ones(rewriter, norm->getLoc(), type, *axis);
    auto fused = vg::RmsNormOp::create(rewriter, norm->getLoc(), type, x, scale, axisAttr, epsilon);
    rewriter.replaceOp(norm, fused.getResult());
    return success();
  }
};

/// Whether `param` broadcasts into the normalised dims of `norm`'s result
/// without changing its shape.
bool fitsNormalizedDims(Value param, Operation *combined, Value norm, int64_t axis) {
  auto paramType = cast<RankedTensorType>(param.getType());
  auto normType = cast<RankedTensorType>(norm.getType());
  return combined->getResult(0).getType() == normType &&
         paramType.getElementType() == normType.getElementType() &&
         paramType.getRank() <= normType.getRank() - axis;
}

// norm(x, 1) * gamma -> norm(x, gamma)
// layer_norm(x, s) + beta -> layer_norm(x, s, beta)
struct FoldAffineIntoNorm : RewritePattern {
  explicit FoldAffineIntoNorm(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isa<vg::MulOp, vg::AddOp>(op))
      return failure();
    bool isScale = isa<vg::MulOp>(op);
    for (Value normValue : op->getOperands()) {
      Value param = otherOperand(op, normValue);
      if (!normValue.hasOneUse() || !param)
        continue;
      if (auto layer = normValue.getDefiningOp<vg::LayerNormOp>()) {
        int64_t axis = *vg::normalizeAxis(layer.getAxis(), layer.getType().getRank());
        if (!fitsNormalizedDims(param, op, normValue, axis) || layer.getBias())
          continue;
        if (isScale && !isOnes(layer.getScale()))
          continue;
        Value scale = isScale ? param : layer.getScale();
        Value bias = isScale ? Value() : param;
        rewriter.replaceOpWithNewOp<vg::LayerNormOp>(op, layer.getType(), layer.getInput(), scale,
                                                     bias, layer.getAxisAttr(),
                                                     layer.getEpsilonAttr());
        return success();
      }
      if (auto rms = normValue.getDefiningOp<vg::RmsNormOp>(); rms && isScale) {
        int64_t axis = *vg::normalizeAxis(rms.getAxis(), rms.getType().getRank());
        if (!fitsNormalizedDims(param, op, normValue, axis) || !isOnes(rms.getScale()))
          continue;
        rewriter.replaceOpWithNewOp<vg::RmsNormOp>(op, rms.getType(), rms.getInput(), param,
                                                   rms.getAxisAttr(), rms.getEpsilonAttr());
        return success();
      }
    }
    return failure();
  }
};

struct FuseLayerNorm : impl::FuseLayerNormBase<FuseLayerNorm> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RecomposeNorm, FoldAffineIntoNorm>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace vinci::graph
