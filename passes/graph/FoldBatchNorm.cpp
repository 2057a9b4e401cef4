//===- FoldBatchNorm.cpp - fold inference BatchNormalization into conv ----===//
//
// An inference batch_norm right after a conv is a per-output-channel affine
// map, so it folds into the conv's constant weights and bias at compile
// time: the Cube computes the normalised result directly and the Vector
// pass over the tensor disappears. The folded weights and bias are new
// constants (blobs when the conv weight was a blob); the old ones are
// dropped when nothing else reads them.
//
//===----------------------------------------------------------------------===//
#include "passes/graph/Matchers.h"
#include "passes/graph/ConstantData.h"
#include "passes/graph/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>
#include <cstring>

namespace vinci::graph {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "passes/graph/Passes.h.inc"
} // namespace vinci::graph

using namespace mlir;

namespace vinci::graph {
namespace {

/// The blob name of a constant's attribute, or "".
StringRef blobNameOf(Value value) {
  ElementsAttr attr;
  if (matchPattern(value, m_Constant(&attr)))
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
      return resource.getRawHandle().getKey();
  return {};
}

// batch_norm(conv(x, W, b)) = conv(x, W * s) + (b - mean) * s + beta,
// with s = gamma / sqrt(var + eps) per output channel.
bool foldIntoConv(vg::BatchNormOp norm) {
  auto conv = norm.getInput().getDefiningOp<vg::ConvOp>();
  if (!conv || !conv.getResult().hasOneUse())
    return false;
  auto outType = cast<RankedTensorType>(conv.getType());
  if (outType.getRank() < 2 || outType.isDynamicDim(1))
    return false;
  int64_t channels = outType.getDimSize(1);
  std::optional<std::vector<float>> gamma = f32Values(norm.getScale()),
                                    beta = f32Values(norm.getBias()),
                                    mean = f32Values(norm.getMean()),
                                    var = f32Values(norm.getVariance()),
                                    weight = f32Values(conv.getWeight());
  if (!gamma || !beta || !mean || !var || !weight)
    return false;
  for (const std::vector<float> *stat : {&*gamma, &*beta, &*mean, &*var})
    if (int64_t(stat->size()) != channels)
      return false;
  std::vector<float> bias(channels, 0.0f);
  if (Value b = conv.getBias()) {
    std::optional<std::vector<float>> given = f32Values(b);
    if (!given || int64_t(given->size()) != channels)
      return false;
    bias = *given;
  }
  if (weight->size() % channels)
    return false;

  // Per channel in double, rounded once to f32.
  size_t perChannel = weight->size() / channels;
  double eps = norm.getEpsilon().convertToDouble();
  for (int64_t c = 0; c < channels; ++c) {
    double s = double((*gamma)[c]) / std::sqrt(double((*var)[c]) + eps);
    for (size_t i = 0; i < perChannel; ++i)
      (*weight)[c * perChannel + i] = float(double((*weight)[c * perChannel + i]) * s);
    bias[c] = float((double(bias[c]) - double((*mean)[c])) * s + double((*beta)[c]));
  }

  OpBuilder b(conv);
  Location loc = conv.getLoc();
  StringRef weightBlob = blobNameOf(conv.getWeight());
  std::string base = weightBlob.empty() ? std::string("conv") : weightBlob.str();
  auto weightType = cast<RankedTensorType>(conv.getWeight().getType());
  bool asBlobs = !weightBlob.empty();
  Value newWeight = f32Constant(b, loc, weightType.getShape(), *weight,
                                asBlobs ? base + ".bn_folded" : "");
  Value newBias =
      f32Constant(b, loc, {channels}, bias, asBlobs ? base + ".bn_folded_bias" : "");
  SmallVector<Value> oldConstants = {conv.getWeight()};
  if (conv.getBias())
    oldConstants.push_back(conv.getBias());
  for (Value stat : {norm.getScale(), norm.getBias(), norm.getMean(), norm.getVariance()})
    oldConstants.push_back(stat);

  OperationState state(loc, conv->getName());
  state.addOperands({conv.getInput(), newWeight, newBias});
  state.addAttributes(conv->getAttrs());
  state.addTypes(norm.getType());
  Operation *folded = b.create(state);
  folded->setLoc(norm.getLoc());
  norm.getResult().replaceAllUsesWith(folded->getResult(0));
  norm->erase();
  conv->erase();
  llvm::SmallPtrSet<Operation *, 8> erased;
  for (Value old : oldConstants)
    if (Operation *def = old.getDefiningOp();
        def && erased.insert(def).second && def->use_empty())
      def->erase();
  return true;
}

struct FoldBatchNorm : impl::FoldBatchNormBase<FoldBatchNorm> {
  void runOnOperation() override {
    SmallVector<vg::BatchNormOp> norms;
    getOperation().walk([&](vg::BatchNormOp norm) { norms.push_back(norm); });
    for (vg::BatchNormOp norm : norms)
      foldIntoConv(norm);
  }
};

} // namespace
} // namespace vinci::graph
