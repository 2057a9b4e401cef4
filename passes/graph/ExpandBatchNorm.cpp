//===- ExpandBatchNorm.cpp - inference batch_norm as elementwise ops ------===//
//
// A batch_norm that vinci-fold-batchnorm did not fold into a conv (no conv
// before it, statistics that are graph inputs, the ConvBatchNormFusion
// switch off) is a per-channel affine map: it becomes elementwise ops with
// [1, C, 1, ..] operands broadcast over the input, which the elementwise
// template lowers (one Vector kernel for the tensor; with non-constant
// statistics a small one for the per-channel factors).
//
//===----------------------------------------------------------------------===//
#include "passes/graph/Matchers.h"
#include "passes/graph/ConstantData.h"
#include "passes/graph/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>
#include <cstring>

namespace vinci::graph {
#define GEN_PASS_DEF_EXPANDBATCHNORM
#include "passes/graph/Passes.h.inc"
} // namespace vinci::graph

using namespace mlir;

namespace vinci::graph {
namespace {

/// The partition's limit for constants cloned into kernels as immediates:
/// the Vector templates take those only as one element.
constexpr int64_t kMaxImmediateElements = 16;

bool expand(vg::BatchNormOp norm) {
  auto type = cast<RankedTensorType>(norm.getType());
  if (type.getRank() < 2 || !type.hasStaticShape() || !type.getElementType().isF32())
    return false;
  int64_t channels = type.getDimSize(1);
  // [C] -> [1, C, 1, ..]: broadcasts along every dim but the channels.
  SmallVector<int64_t> perChannel(type.getRank(), 1);
  perChannel[1] = channels;
  auto perChannelType = RankedTensorType::get(perChannel, type.getElementType());
  OpBuilder b(norm);
  Location loc = norm.getLoc();
  Value x = norm.getInput(), y;
  double eps = norm.getEpsilon().convertToDouble();

  std::optional<std::vector<float>> gamma = f32Values(norm.getScale()),
                                    beta = f32Values(norm.getBias()),
                                    mean = f32Values(norm.getMean()),
                                    var = f32Values(norm.getVariance());
  if (gamma && beta && mean && var) {
    // batch_norm(x) = x * s + t, s = gamma / sqrt(var + eps),
    // t = beta - mean * s, both computed at compile time.
    std::vector<float> s(channels), t(channels);
    for (int64_t c = 0; c < channels; ++c) {
      double scale = double((*gamma)[c]) / std::sqrt(double((*var)[c]) + eps);
      s[c] = float(scale);
      t[c] = float(double((*beta)[c]) - double((*mean)[c]) * scale);
    }
    // Few channels: stored at the input's shape (see kMaxImmediateElements).
    RankedTensorType constType = perChannelType;
    if (channels <= kMaxImmediateElements) {
      constType = type;
      int64_t inner = 1;
      for (int64_t d = 2; d < type.getRank(); ++d)
        inner *= type.getDimSize(d);
      auto spread = [&](const std::vector<float> &v) {
        std::vector<float> full;
        for (int64_t n = 0; n < type.getDimSize(0); ++n)
          for (int64_t c = 0; c < channels; ++c)
            full.insert(full.end(), inner, v[c]);
        return full;
      };
      s = spread(s);
      t = spread(t);
    }
    Value scale = vg::ConstantOp::create(b, loc, DenseElementsAttr::get(constType, ArrayRef(s)));
    Value shift = vg::ConstantOp::create(b, loc, DenseElementsAttr::get(constType, ArrayRef(t)));
    Value scaled = vg::MulOp::create(b, loc, type, x, scale);
    y = vg::AddOp::create(b, loc, type, scaled, shift);
  } else {
    // batch_norm(x) = (x - mean) * (gamma / sqrt(var + eps)) + beta.
    auto view = [&](Value v) -> Value {
      return vg::ReshapeOp::create(b, loc, perChannelType, v, b.getDenseI64ArrayAttr(perChannel));
    };
    Value epsilon = vg::ConstantOp::create(
        b, loc, DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()), float(eps)));
    Value shifted = vg::AddOp::create(b, loc, perChannelType, view(norm.getVariance()), epsilon);
    Value root = vg::SqrtOp::create(b, loc, perChannelType, shifted);
    Value gamma = view(norm.getScale());
    Value scale = vg::DivOp::create(b, loc, perChannelType, gamma, root);
    Value centred = vg::SubOp::create(b, loc, type, x, view(norm.getMean()));
    Value scaled = vg::MulOp::create(b, loc, type, centred, scale);
    y = vg::AddOp::create(b, loc, type, scaled, view(norm.getBias()));
  }
  norm.getResult().replaceAllUsesWith(y);
  norm->erase();
  return true;
}

struct ExpandBatchNorm : impl::ExpandBatchNormBase<ExpandBatchNorm> {
  void runOnOperation() override {
    SmallVector<vg::BatchNormOp> norms;
    getOperation().walk([&](vg::BatchNormOp norm) { norms.push_back(norm); });
    for (vg::BatchNormOp norm : norms)
      expand(norm);
  }
};

} // namespace
} // namespace vinci::graph
