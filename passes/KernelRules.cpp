//===- KernelRules.cpp - which vg ops run as which kind of kernel ---------===//
#include "passes/KernelRules.h"
#include "passes/Precision.h"

#include "vg/VgOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "vinci/soc.h"

using namespace mlir;

namespace vinci {

namespace {

bool isReshapeLike(Operation *op) {
  return isa_and_nonnull<vg::ReshapeOp, vg::FlattenOp, vg::SqueezeOp, vg::UnsqueezeOp,
                         vg::IdentityOp, vg::DropoutOp>(op);
}

/// Whether the pieces of `split` are contiguous ranges of its input: with
/// row-major data, only the dims before the axis interleave the pieces.
bool splitsIntoContiguousPieces(vg::SplitOp split) {
  auto input = cast<RankedTensorType>(split.getInput().getType());
  int64_t axis = split.getAxis();
  if (axis < 0)
    axis += input.getRank();
  if (!input.hasStaticShape() || axis < 0 || axis >= input.getRank())
    return false;
  return llvm::all_of(input.getShape().take_front(axis), [](int64_t d) { return d == 1; });
}

/// Whether `value`, through views, is computed by a kernel: not a graph
/// input (the caller's buffer) nor a constant (a weight).
bool isKernelResult(Value value) {
  while (Operation *producer = value.getDefiningOp()) {
    if (!isViewOp(producer))
      return classifyOp(producer) != OpRole::Constant;
    value = producer->getOperand(0);
  }
  return false;
}

} // namespace

bool isViewOp(Operation *op) {
  if (isReshapeLike(op))
    return true;
  auto split = dyn_cast_or_null<vg::SplitOp>(op);
  return split && splitsIntoContiguousPieces(split) && isKernelResult(split.getInput()) &&
         llvm::none_of(split.getResults(), [](Value piece) { return reachesGraphOutput(piece); });
}

bool reachesGraphOutput(Value value) {
  for (Operation *user : value.getUsers()) {
    if (isa<func::ReturnOp>(user))
      return true;
    if (isViewOp(user) && llvm::any_of(user->getResults(), reachesGraphOutput))
      return true;
  }
  return false;
}

int64_t viewElementOffset(OpResult viewResult) {
  auto split = dyn_cast<vg::SplitOp>(viewResult.getOwner());
  if (!split)
    return 0; // reshape-like: the same bytes
  auto input = cast<RankedTensorType>(split.getInput().getType());
  int64_t axis = split.getAxis() < 0 ? split.getAxis() + input.getRank() : split.getAxis();
  int64_t inner = 1;
  for (int64_t d : input.getShape().drop_front(axis + 1))
    inner *= d;
  int64_t before = 0;
  for (int64_t size : split.getSplit().take_front(viewResult.getResultNumber()))
    before += size;
  return before * inner;
}

OpRole classifyOp(Operation *op) {
  using namespace vg;
  if (isViewOp(op))
    return OpRole::View;
  return llvm::TypeSwitch<Operation *, OpRole>(op)
      .Case<ConstantOp, ShapeOp, ConstantOfShapeOp, RangeOp>(
          [](auto) { return OpRole::Constant; })
      .Case<MatMulOp, ConvOp>([](auto) { return OpRole::Cube; })
      .Case<SoftmaxOp, LogSoftmaxOp, LayerNormOp, RmsNormOp, ReduceMeanOp, ReduceSumOp, ReduceMaxOp,
            ReduceMinOp, ReduceProdOp, ReduceL2Op, ArgMaxOp, ArgMinOp, MaxPoolOp,
            AveragePoolOp, GlobalAveragePoolOp, GlobalMaxPoolOp>(
          [](auto) { return OpRole::Reduction; })
      .Case<TransposeOp, SliceOp, ConcatOp, SplitOp, GatherOp, ExpandOp, TileOp, PadOp,
            ResizeOp, AippOp>([](auto) { return OpRole::DataMovement; })
      // Everything else in vg computes each output element from the same
      // (broadcast) position of its inputs; batch_norm is a per-channel affine.
      .Default([](Operation *) { return OpRole::Elementwise; });
}

StringRef kernelKindName(KernelKind kind) {
  return kind == KernelKind::Cube ? "cube" : "vector";
}

bool mayJoinKernel(OpRole anchor, OpRole consumer) {
  // matmul/conv -> epilogue: bias, activation, residual add, cast run on the
  // Vector unit while the result is still on chip (L0C -> UB).
  // elementwise -> elementwise: one pass over the data in UB.
  // Reductions and data movement end a kernel: their outputs have another
  // shape or order, so fusing more needs its own template.
  if (consumer != OpRole::Elementwise)
    return false;
  return anchor == OpRole::Cube || anchor == OpRole::Elementwise;
}

bool cubeEpilogueTakes(Operation *consumer, Value fromKernel) {
  auto result = dyn_cast<RankedTensorType>(consumer->getResult(0).getType());
  if (!result || result.getRank() == 0)
    return false;
  int64_t columns = result.getShape().back();
  for (Value other : consumer->getOperands()) {
    if (other == fromKernel)
      continue;
    auto type = dyn_cast<RankedTensorType>(other.getType());
    if (!type || !type.hasStaticShape())
      return false;
    int64_t elements = type.getNumElements();
    bool row = type.getRank() > 0 && type.getShape().back() == columns && elements == columns;
    // [1.., M, N] over [B.., M, N]: one matrix for every batch (GPT-2's
    // causal mask on the scores of every head).
    ArrayRef<int64_t> shape = type.getShape(), out = result.getShape();
    bool batchMatrix = shape.size() >= 2 && out.size() >= 3 && shape.size() <= out.size() &&
                       shape.take_back(2) == out.take_back(2) &&
                       llvm::all_of(shape.drop_back(2), [](int64_t d) { return d == 1; });
    if (elements != 1 && !row && !batchMatrix && shape != out)
      return false;
  }
  return true;
}

bool cubeEpilogueTakesSoftmax(Operation *consumer) {
  auto softmax = dyn_cast<vg::SoftmaxOp>(consumer);
  if (!softmax)
    return false;
  auto type = cast<RankedTensorType>(softmax.getInput().getType());
  int64_t rank = type.getRank();
  if (rank == 0 || !type.hasStaticShape())
    return false;
  int64_t axis = static_cast<int64_t>(softmax.getAxis()); // an I64Attr reads as uint64_t
  if (axis < 0)
    axis += rank;
  int64_t columns = type.getShape().back();
  return axis == rank - 1 && columns % 16 == 0 && columns <= kCubeMaxNTile;
}

bool cubeKernelTakesAttentionValue(Operation *consumer, Value probabilities) {
  auto pv = dyn_cast<vg::MatMulOp>(consumer);
  auto softmax = probabilities.getDefiningOp<vg::SoftmaxOp>();
  if (!pv || !softmax || pv.getA() != probabilities || pv.getB() == probabilities ||
      pv.getTransposeA() || pv.getTransposeB() || !cubeEpilogueTakesSoftmax(softmax))
    return false;
  auto p = cast<RankedTensorType>(probabilities.getType());
  auto v = dyn_cast<RankedTensorType>(pv.getB().getType());
  if (!v || !v.hasStaticShape() || v.getRank() != p.getRank() ||
      v.getShape().drop_back(2) != p.getShape().drop_back(2))
    return false;
  int64_t rows = v.getShape()[v.getRank() - 2], headDim = v.getShape().back();
  return rows == p.getShape().back() && headDim % 16 == 0 && headDim <= kCubeMaxNTile;
}

bool cubeStoreTakesTranspose(Operation *consumer, Operation *cubeAnchor) {
  auto transpose = dyn_cast<vg::TransposeOp>(consumer);
  auto matmul = dyn_cast_or_null<vg::MatMulOp>(cubeAnchor);
  if (!transpose || !matmul)
    return false;
  auto input = cast<RankedTensorType>(transpose.getInput().getType());
  int64_t rank = input.getRank();
  if (rank < 3 || !input.hasStaticShape())
    return false;
  SmallVector<int64_t> headMerge = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(headMerge[rank - 3], headMerge[rank - 2]);
  std::optional<ArrayRef<int64_t>> perm = transpose.getPerm();
  if (!perm || *perm != ArrayRef<int64_t>(headMerge))
    return false;
  if (!llvm::all_of(input.getShape().take_front(rank - 3), [](int64_t d) { return d == 1; }))
    return false;
  auto hasResultRank = [&](Value operand) {
    return cast<RankedTensorType>(operand.getType()).getRank() == rank;
  };
  return matmul.getResult().getType().getRank() == rank && hasResultRank(matmul.getA()) &&
         hasResultRank(matmul.getB());
}

int64_t cubeStoreHeadSplitDim(Operation *consumer, Operation *cubeAnchor) {
  auto transpose = dyn_cast<vg::TransposeOp>(consumer);
  auto matmul = dyn_cast_or_null<vg::MatMulOp>(cubeAnchor);
  if (!transpose || !matmul)
    return 0;
  auto reshape = transpose.getInput().getDefiningOp<vg::ReshapeOp>();
  if (!reshape)
    return 0;
  auto split = cast<RankedTensorType>(reshape.getOutput().getType());
  auto unsplit = cast<RankedTensorType>(reshape.getInput().getType());
  int64_t rank = split.getRank();
  if (rank < 3 || unsplit.getRank() != rank - 1 || !split.hasStaticShape() ||
      !unsplit.hasStaticShape())
    return 0;
  // [.., S, H * D] -> [.., S, H, D]: only the last dim splits.
  ArrayRef<int64_t> splitShape = split.getShape(), unsplitShape = unsplit.getShape();
  int64_t heads = splitShape[rank - 2], headDim = splitShape[rank - 1];
  if (splitShape.drop_back(2) != unsplitShape.drop_back() ||
      heads * headDim != unsplitShape.back())
    return 0;
  SmallVector<int64_t> headSplit = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(headSplit[rank - 3], headSplit[rank - 2]);
  std::optional<ArrayRef<int64_t>> perm = transpose.getPerm();
  if (!perm || *perm != ArrayRef<int64_t>(headSplit))
    return 0;
  if (!llvm::all_of(splitShape.take_front(rank - 3), [](int64_t d) { return d == 1; }))
    return 0;
  if (headDim % 16 != 0 || kCubeMaxNTile % headDim != 0)
    return 0;
  // The matmul's result (before a same-shape epilogue) is the reshape's input.
  auto result = cast<RankedTensorType>(matmul.getResult().getType());
  if (result.getShape() != unsplitShape)
    return 0;
  return headDim;
}

/// The value a graph tensor is a view of (through the views of
/// KernelRules' isViewOp, which stay in the graph and share their source's
/// GM bytes).
mlir::Value viewRoot(mlir::Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (!isViewOp(op))
      break;
    value = op->getOperand(0);
  }
  return value;
}

KernelCapabilities::~KernelCapabilities() = default;

namespace {
const KernelCapabilities *installed = nullptr;
} // namespace

void installKernelCapabilities(const KernelCapabilities *capabilities) {
  installed = capabilities;
}

const KernelCapabilities *installedKernelCapabilities() { return installed; }

//===----------------------------------------------------------------------===//
// The convolution family
//===----------------------------------------------------------------------===//

std::optional<ConvGeometry> convGeometry(Operation *op) {
  auto conv = dyn_cast_or_null<vg::ConvOp>(op);
  if (!conv)
    return std::nullopt;
  auto in = cast<RankedTensorType>(conv.getInput().getType());
  auto weight = cast<RankedTensorType>(conv.getWeight().getType());
  auto out = cast<RankedTensorType>(conv.getType());
  if (in.getRank() != 4 || weight.getRank() != 4 || out.getRank() != 4 || !in.hasStaticShape() ||
      !weight.hasStaticShape() || !out.hasStaticShape())
    return std::nullopt;
  SmallVector<int64_t> pads = conv.getEffectivePads();
  if (pads.size() != 4)
    return std::nullopt;
  ConvGeometry g;
  g.n = in.getDimSize(0);
  g.c = in.getDimSize(1);
  g.h = in.getDimSize(2);
  g.w = in.getDimSize(3);
  g.oc = out.getDimSize(1);
  g.oh = out.getDimSize(2);
  g.ow = out.getDimSize(3);
  g.kh = weight.getDimSize(2);
  g.kw = weight.getDimSize(3);
  if (std::optional<ArrayRef<int64_t>> s = conv.getStrides(); s && s->size() == 2) {
    g.sh = (*s)[0];
    g.sw = (*s)[1];
  }
  if (std::optional<ArrayRef<int64_t>> d = conv.getDilations(); d && d->size() == 2) {
    g.dh = (*d)[0];
    g.dw = (*d)[1];
  }
  g.padTop = pads[0];
  g.padLeft = pads[1];
  g.padBottom = pads[2];
  g.padRight = pads[3];
  g.groups = conv.getGroup();
  return g;
}

std::string convCubeTemplateMismatch(Operation *op) {
  auto conv = dyn_cast_or_null<vg::ConvOp>(op);
  if (!conv)
    return "not a vg.conv";
  Value bias = conv.getBias();
  return convCubeTemplateMismatch(op, bool(conv.getWeight().getDefiningOp<vg::ConstantOp>()),
                                  !bias || bias.getDefiningOp<vg::ConstantOp>());
}

std::string convCubeTemplateMismatch(Operation *op, bool constantWeight, bool constantBias) {
  auto conv = dyn_cast_or_null<vg::ConvOp>(op);
  if (!conv)
    return "not a vg.conv";
  std::optional<ConvGeometry> g = convGeometry(op);
  if (!g)
    return "the Cube conv template takes 2-D convs with static shapes (1-D and 3-D run as "
           "unfolded windows or not at all)";
  for (Value v : {conv.getInput(), conv.getWeight(), conv.getResult()}) {
    Type element = cast<RankedTensorType>(v.getType()).getElementType();
    if (!element.isF16() && !element.isF32())
      return "the Cube conv template takes f16/f32 tensors";
  }
  if (g->groups != 1)
    return "grouped convs (groups " + std::to_string(g->groups) +
           ") have no Cube conv template: they run as unfolded windows, which take batch 1 "
           "only (no depthwise template yet)";
  if (!constantWeight)
    return "the weight is computed at run time: the Cube conv template reads weights packed "
           "into FRACTAL_Z at compile time";
  if (!constantBias)
    return "the bias is computed at run time: the Cube conv template folds a constant bias "
           "into its first mmad";
  if (keepsOriginDtype(op))
    return "the conv keeps fp32 (must_keep_origin_dtype or --keep_dtype): the 310P Cube takes "
           "no fp32, so it runs as im2col on the Vector unit";
  if (g->kh > 255 || g->kw > 255 || g->dh > 255 || g->dw > 255 || g->sh > 63 || g->sw > 63 ||
      g->padTop > 255 || g->padLeft > 255 || g->padBottom > 255 || g->padRight > 255 ||
      g->w > 32767 || g->ow > 4080 || g->c > 4095 * 16)
    return "the window is beyond load_3d's ranges (kernel and dilation <= 255, strides <= 63, "
           "pads <= 255, width <= 32767, output width <= 4080)";
  uint64_t smallestL1 = UINT64_MAX;
  for (const soc::SocSpec *spec : soc::allSocs())
    smallestL1 = std::min<uint64_t>(smallestL1, spec->bufferBytes(soc::Space::L1));
  int64_t rowsIn = (g->kh - 1) * g->dh + 1;
  uint64_t rowBytes = uint64_t(rowsIn) * uint64_t(g->w) * uint64_t((g->c + 15) / 16) * 32;
  if (rowBytes > smallestL1 / 4)
    return "one output row's input rows (" + std::to_string(rowBytes) +
           " bytes of all channels) exceed a quarter of L1";
  return {};
}

} // namespace vinci
