//===- KernelRules.cpp - which vg ops run as which kind of kernel ---------===//
#include "passes/KernelRules.h"
#include "passes/Precision.h"

#include "vg/VgOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "vinci/soc.h"

#include <array>

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

bool cubeEpilogueTakesPool(Operation *consumer) {
  auto pool = dyn_cast<vg::MaxPoolOp>(consumer);
  if (!pool)
    return false;
  std::optional<ConvGeometry> g = poolGeometry(pool);
  auto dilations = pool.getDilations();
  return g && g->kh == 3 && g->kw == 3 && g->sh == 2 && g->sw == 2 && g->padTop == 1 &&
         g->padLeft == 1 && g->padBottom == 1 && g->padRight == 1 && g->h % 2 == 0 &&
         g->w % 2 == 0 && g->oh == g->h / 2 && g->ow == g->w / 2 && g->n >= 2 &&
         (!dilations || llvm::all_of(*dilations, [](int64_t d) { return d == 1; }));
}

bool rowOpTakesPrologue(Operation *consumer) {
  return isa<vg::SoftmaxOp, vg::LogSoftmaxOp>(consumer);
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

llvm::SmallVector<int> KernelCapabilities::nc1hwc0Classes(mlir::func::FuncOp) const {
  return {};
}

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
                                  !bias || bias.getDefiningOp<vg::ConstantOp>(),
                                  convCubeAloneTensors(storageElementType(conv.getInput())));
}

ConvCubeTensors convCubeAloneTensors(Type inputStorage) {
  ConvCubeTensors tensors;
  tensors.f32Input = inputStorage.isF32();
  tensors.f32Bias = true;
  tensors.f32Output = true;
  return tensors;
}

std::string convCubeTemplateMismatch(Operation *op, bool constantWeight, bool constantBias,
                                     const ConvCubeTensors &tensors) {
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
           ") have no Cube conv template: a depthwise one (groups = channels, multiplier 1) "
           "runs on the Vector depthwise template, others as unfolded windows (batch 1 only)";
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
  return convCubeFitMismatch(*g, tensors);
}

namespace {
constexpr int64_t kC0 = 16;
int64_t roundUpTo(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
} // namespace

int64_t convCubeInputChunkPixels(const ConvGeometry &g, const ConvCubeTiling &t) {
  // Whole rows of up to 8192 elements (one band's rows in a few chunks),
  // or 512 pixels of a wider row; small staging: at most 128 pixels. Two
  // such buffers alternate, so that a chunk loads while the one before is
  // converted.
  constexpr int64_t kChunkElems = 8192;
  int64_t pixels = g.w * kC0 <= kChunkElems
                       ? std::max<int64_t>(1, std::min(t.bufRows, kChunkElems / (g.w * kC0))) * g.w
                       : kChunkElems / kC0;
  return t.smallStaging ? std::min<int64_t>(pixels, 128) : pixels;
}

int64_t convCubeZeroChunkElems(const ConvGeometry &g, const ConvCubeTiling &t) {
  int64_t elems = t.zeroRows * g.w * kC0;
  return t.smallStaging ? std::min<int64_t>(elems, 4096) : elems;
}

int64_t convCubeStackedStagingRows(const ConvGeometry &from, int64_t mapRows) {
  return (mapRows - 1) * from.sh + (from.kh - 1) * from.dh + 1 + from.padTop + from.padBottom;
}

int64_t convCubeStackedStagingElems(const ConvGeometry &from, int64_t mapRows) {
  // A map row's vcopy spans 8 rows (a repeat's blocks, kh of them
  // unmasked), a zero row's vdup up to a repeat past its rows.
  int64_t wp = roundUpTo(from.w, kC0);
  return roundUpTo(from.c * convCubeStackedStagingRows(from, mapRows) * wp, 128) +
         (8 - from.kh) * from.dh * wp + 128;
}

int64_t convCubeStackedRowTileElems(const ConvGeometry &from) {
  // The last channel's vcopy spans 8 blocks past its first row.
  return roundUpTo(from.w, kC0) * kC0 + 128;
}

std::string convCubeTilingMismatch(const ConvGeometry &g, const ConvCubeTiling &t,
                                   const ConvCubeTensors &tensors, const soc::SocSpec &soc) {
  int64_t c1 = (g.c + kC0 - 1) / kC0, taps = g.kh * g.kw;
  int64_t mp = roundUpTo(t.rowsT * g.ow, kC0), m1 = mp / kC0;
  if (m1 > int64_t(soc.max_repeat) || t.kf > int64_t(soc.max_repeat))
    return "an M tile of " + std::to_string(mp) + " positions exceeds load_3d's " +
           std::to_string(soc.max_repeat) + " repeats";
  // Bytes of each buffer the template allocates (Conv.cpp's allocate and
  // prologue), per space, each at the space's alignment.
  std::array<int64_t, soc::kNumSpaces> need{};
  auto add = [&](soc::Space space, int64_t elems, int64_t elemBytes) {
    need[unsigned(space)] += roundUpTo(elems * elemBytes, soc.alignment(space));
  };
  using soc::Space;
  int64_t fractal = kC0 * kC0;
  int64_t planes = t.bandPlanes ? t.bandPlanes : c1;
  for (int i = 0; i < 2; ++i) {
    add(Space::L1, (t.bufRows * planes + t.slackRows) * g.w * kC0, 2); // band buffers
    add(Space::L0A, mp * t.kf * kC0, 2);
    add(Space::L0B, t.kf * t.nt * fractal, 2);
  }
  if (t.panelResident)
    add(Space::L1, c1 * taps * t.ocn * fractal, 2);
  add(Space::L1, m1 * fractal, 2); // ones
  add(Space::L1, t.ocn * fractal, 2); // bias rows
  add(Space::L0A, m1 * fractal, 2);
  add(Space::L0B, t.nt * fractal, 2);
  add(Space::L0C, t.accumulators * (t.bandPlanes ? t.ocn : t.nt) * mp * kC0, 4);
  int64_t tile = t.nt * mp * kC0;
  add(Space::UB, tile, 2); // the f16 output tile
  if (tensors.f32Tile)
    add(Space::UB, tile, 4);
  if (tensors.residualBytes) {
    add(Space::UB, tile, 4);
    add(Space::UB, tile, tensors.residualBytes);
  }
  if (tensors.nchwOutput) {
    add(Space::UB, tile, 2);
    if (tensors.f32Output)
      add(Space::UB, tile, 4);
  }
  if (t.zeroRows)
    add(Space::UB, roundUpTo(convCubeZeroChunkElems(g, t), 128), 2);
  if (tensors.maxPool) {
    // Conv.cpp's poolTile: a tile's rows pooled across (uPoolRows), then
    // down into its pooled rows (uPooled), the last row of each channel
    // fractal carried to the next tile (uPoolCarry); each with a repeat of
    // slack for whole-repeat strides past its end, as the output tile.
    int64_t half = g.ow / 2;
    add(Space::UB, roundUpTo(t.nt * t.rowsT * half * kC0, 128) + 256, 2);
    add(Space::UB, roundUpTo(t.nt * roundUpTo(t.rowsT / 2 * half, kC0) * kC0, 128) + 256, 2);
    add(Space::UB, roundUpTo(t.ocn * roundUpTo(half, 8) * kC0, 128), 2);
    add(Space::UB, 512, 2);
  }
  if (tensors.stackedFrom) {
    // The band's input rows of every channel, Wp = W rounded to 16 apart
    // (f32 as loaded and f16 converted), and two row tiles and their
    // transposes a map row (Conv.cpp's stageInputRows, buildMapRows).
    const ConvGeometry &from = *tensors.stackedFrom;
    int64_t elems = convCubeStackedStagingElems(from, t.bufRows);
    add(Space::UB, elems, 2);
    if (tensors.f32Input)
      add(Space::UB, elems, 4);
    // Tiles [full or partial plane][parity], of the kinds the planes have.
    int64_t perPlane = kC0 / from.kh;
    int64_t kinds = (from.c >= perPlane ? 1 : 0) + (from.c % perPlane ? 1 : 0);
    for (int64_t i = 0; i < 2 * kinds; ++i)
      add(Space::UB, convCubeStackedRowTileElems(from), 2);
    for (int i = 0; i < 2; ++i)
      add(Space::UB, roundUpTo(from.w, kC0) * kC0, 2);
  } else if (tensors.f32Input) {
    int64_t elems = roundUpTo(convCubeInputChunkPixels(g, t) * kC0, 64);
    for (int i = 0; i < 2; ++i) {
      add(Space::UB, elems, 4);
      add(Space::UB, elems, 2);
    }
  }
  // The prologue's ones tile and bias rows (dead before the first band).
  int64_t biasFractals = std::min(t.ocn, kConvCubeBiasChunkFractals);
  add(Space::UB, m1 * fractal, 2);
  add(Space::UB, roundUpTo(biasFractals * kC0, 128), 2);
  add(Space::UB, biasFractals * fractal, 2);
  add(Space::UB, biasFractals * fractal, 2);
  if (tensors.f32Bias)
    add(Space::UB, roundUpTo(biasFractals * kC0, 64), 4);
  for (Space space : {Space::L1, Space::L0A, Space::L0B, Space::L0C, Space::UB}) {
    int64_t capacity = int64_t(soc.bufferBytes(space));
    if (need[unsigned(space)] > capacity)
      return std::string("its ") + soc::spaceName(space) + " buffers need " +
             std::to_string(need[unsigned(space)]) + " bytes but the " + soc.name + " has " +
             std::to_string(capacity);
  }
  return {};
}

ConvCubeTiling convCubeSmallestTiling(const ConvGeometry &g, const soc::SocSpec &soc,
                                      bool splitPlanes) {
  ConvCubeTiling t;
  t.bandPlanes = splitPlanes ? 1 : 0;
  t.bufRows = (g.kh - 1) * g.dh + 1;
  // The most channel parts the planner may use: a divisor of the channel
  // fractals, at most one a core, and only when no fractal is partial.
  int64_t oc1 = (g.oc + kC0 - 1) / kC0, parts = 1;
  if (g.oc % kC0 == 0)
    for (int64_t p = std::min<int64_t>(oc1, soc.ai_core_count); p >= 1 && parts == 1; --p)
      if (oc1 % p == 0)
        parts = p;
  t.ocn = oc1 / parts;
  t.zeroRows = std::max(g.padTop, g.padBottom);
  t.smallStaging = true;
  return t;
}

std::string convCubeFitMismatch(const ConvGeometry &g, const ConvCubeTensors &tensors) {
  // A fused max pool's tiles are pairs of rows (Conv.cpp's poolTile).
  auto smallest = [&](const soc::SocSpec &spec, bool splitPlanes) {
    ConvCubeTiling t = convCubeSmallestTiling(g, spec, splitPlanes);
    if (tensors.maxPool) {
      t.rowsT = 2;
      t.bufRows += g.sh;
    }
    return t;
  };
  for (const soc::SocSpec *spec : soc::allSocs()) {
    std::string whole = convCubeTilingMismatch(g, smallest(*spec, false), tensors, *spec);
    if (whole.empty())
      continue;
    std::string split = convCubeTilingMismatch(g, smallest(*spec, true), tensors, *spec);
    if (!split.empty())
      return std::string("no Cube conv tiling fits (") +
             (tensors.maxPool ? "two output rows a tile, for the fused max pool"
                              : "one output row a tile") +
             ", one channel fractal): " + whole + "; with the band split over channel planes, " +
             split;
  }
  return {};
}

bool isDepthwiseConv(Operation *op) {
  std::optional<ConvGeometry> g = convGeometry(op);
  return g && g->groups > 1 && g->groups == g->c && g->oc == g->c;
}

std::string depthwiseTemplateMismatch(Operation *op) {
  auto conv = dyn_cast_or_null<vg::ConvOp>(op);
  if (!conv)
    return "not a vg.conv";
  Value bias = conv.getBias();
  if (std::string why = depthwiseWindowMismatch(
          op, bool(conv.getWeight().getDefiningOp<vg::ConstantOp>()),
          !bias || bias.getDefiningOp<vg::ConstantOp>());
      !why.empty())
    return why;
  for (Value v : {conv.getInput(), conv.getResult()})
    if (Type storage = storageElementType(v); !storage.isF16() && !storage.isF32())
      return "the depthwise template reads and writes f16 or f32 in GM";
  return {};
}

std::string depthwiseWindowMismatch(Operation *op, bool constantWeight, bool constantBias) {
  auto conv = dyn_cast_or_null<vg::ConvOp>(op);
  if (!conv)
    return "not a vg.conv";
  std::optional<ConvGeometry> g = convGeometry(op);
  if (!g)
    return "the depthwise template takes 2-D convs with static shapes";
  if (!isDepthwiseConv(op))
    return "the depthwise template takes groups = input channels = output channels (here " +
           std::to_string(g->groups) + " groups, " + std::to_string(g->c) + " -> " +
           std::to_string(g->oc) + " channels): a channel multiplier above 1 or another "
           "grouping runs as unfolded windows";
  for (Value v : {conv.getInput(), conv.getWeight(), conv.getResult()}) {
    Type element = cast<RankedTensorType>(v.getType()).getElementType();
    if (!element.isF16() && !element.isF32())
      return "the depthwise template takes f16/f32 tensors";
  }
  if (!constantWeight)
    return "the weight is computed at run time: the depthwise template reads a constant weight "
           "(its taps broadcast over the vector lanes once per channel group)";
  if (!constantBias)
    return "the bias is computed at run time: the depthwise template reads a constant bias";
  if (keepsOriginDtype(op))
    return "the conv keeps fp32 (must_keep_origin_dtype or --keep_dtype): the depthwise "
           "template computes in f16";
  uint64_t smallestUb = UINT64_MAX;
  for (const soc::SocSpec *spec : soc::allSocs())
    smallestUb = std::min<uint64_t>(smallestUb, spec->bufferBytes(soc::Space::UB));
  uint64_t padded = uint64_t(g->w + g->padLeft + g->padRight);
  uint64_t rowBytes = uint64_t((g->kh - 1) * g->dh + 1) * padded * 32;
  if (rowBytes > smallestUb / 4)
    return "one output row's padded input rows (" + std::to_string(rowBytes) +
           " bytes of a 16-channel group) exceed a quarter of the UB";
  return {};
}

std::optional<ConvGeometry> poolGeometry(Operation *op, SmallVectorImpl<int64_t> *countedPads) {
  if (!isa_and_nonnull<vg::MaxPoolOp, vg::AveragePoolOp>(op))
    return std::nullopt;
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  auto out = cast<RankedTensorType>(op->getResult(0).getType());
  if (in.getRank() != 4 || out.getRank() != 4 || !in.hasStaticShape() || !out.hasStaticShape())
    return std::nullopt;
  auto kernel = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape");
  auto strides = op->getAttrOfType<DenseI64ArrayAttr>("strides");
  auto dilations = op->getAttrOfType<DenseI64ArrayAttr>("dilations");
  auto pads = op->getAttrOfType<DenseI64ArrayAttr>("pads");
  auto autoPad = op->getAttrOfType<StringAttr>("auto_pad");
  if (!kernel || kernel.size() != 2 || (strides && strides.size() != 2) ||
      (dilations && dilations.size() != 2) || (pads && pads.size() != 4))
    return std::nullopt;
  ConvGeometry g;
  g.n = in.getDimSize(0);
  g.c = g.oc = in.getDimSize(1);
  g.h = in.getDimSize(2);
  g.w = in.getDimSize(3);
  g.oh = out.getDimSize(2);
  g.ow = out.getDimSize(3);
  g.kh = kernel[0];
  g.kw = kernel[1];
  if (strides) {
    g.sh = strides[0];
    g.sw = strides[1];
  }
  if (dilations) {
    g.dh = dilations[0];
    g.dw = dilations[1];
  }
  if (g.kh < 1 || g.kw < 1 || g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1)
    return std::nullopt;
  // Pads as ONNX resolves them: explicit, or SAME_UPPER / SAME_LOWER's
  // split of what the windows need (the larger half at the end for UPPER).
  int64_t needH = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  int64_t needW = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  SmallVector<int64_t, 4> named = {0, 0, 0, 0};
  StringRef mode = autoPad ? autoPad.getValue() : "NOTSET";
  if (mode == "NOTSET") {
    if (pads)
      named.assign(pads.asArrayRef().begin(), pads.asArrayRef().end());
  } else if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
    int64_t totalH = std::max<int64_t>(needH - g.h, 0), totalW = std::max<int64_t>(needW - g.w, 0);
    bool upper = mode == "SAME_UPPER";
    named[0] = upper ? totalH / 2 : totalH - totalH / 2;
    named[1] = upper ? totalW / 2 : totalW - totalW / 2;
    named[2] = totalH - named[0];
    named[3] = totalW - named[1];
  } else if (mode != "VALID") {
    return std::nullopt;
  }
  if (llvm::any_of(named, [](int64_t p) { return p < 0; }))
    return std::nullopt;
  g.padTop = named[0];
  g.padLeft = named[1];
  g.padBottom = std::max(named[2], needH - g.h - g.padTop);
  g.padRight = std::max(named[3], needW - g.w - g.padLeft);
  if (countedPads)
    countedPads->assign(named.begin(), named.end());
  return g;
}

namespace {

/// Whether some window along one axis holds no input element: output
/// position o reads o * s - pad + k * d for k < taps.
bool someWindowEmpty(int64_t outs, int64_t size, int64_t taps, int64_t s, int64_t d, int64_t pad) {
  for (int64_t o = 0; o < outs; ++o) {
    bool any = false;
    for (int64_t k = 0; k < taps && !any; ++k) {
      int64_t i = o * s - pad + k * d;
      any = i >= 0 && i < size;
    }
    if (!any)
      return true;
  }
  return false;
}

} // namespace

std::string poolTemplateMismatch(Operation *op) {
  if (std::string why = poolWindowMismatch(op); !why.empty())
    return why;
  for (Value v : {op->getOperand(0), Value(op->getResult(0))})
    if (!storageElementType(v).isF16())
      return "the pooling template reads and writes f16 in GM; an f32 tensor (a graph input or "
             "output, or one kept in fp32) runs as unfolded windows";
  return {};
}

std::string poolWindowMismatch(Operation *op) {
  if (!isa_and_nonnull<vg::MaxPoolOp, vg::AveragePoolOp>(op))
    return "not a vg.max_pool or vg.average_pool";
  if (auto max = dyn_cast<vg::MaxPoolOp>(op);
      max && (max.getStorageOrder() != 0 || max->getNumResults() != 1))
    return "a max pool with indices or storage_order has no pooling template";
  SmallVector<int64_t> counted;
  std::optional<ConvGeometry> g = poolGeometry(op, &counted);
  if (!g)
    return "the pooling template takes 2-D pools with static shapes (1-D ones run as unfolded "
           "windows)";
  for (Value v : {op->getOperand(0), Value(op->getResult(0))}) {
    Type element = cast<RankedTensorType>(v.getType()).getElementType();
    if (!element.isF16() && !element.isF32())
      return "the pooling template takes f16/f32 tensors";
  }
  if (someWindowEmpty(g->oh, g->h, g->kh, g->sh, g->dh, g->padTop) ||
      someWindowEmpty(g->ow, g->w, g->kw, g->sw, g->dw, g->padLeft))
    return "a window lies wholly in the pads";
  if (auto avg = dyn_cast<vg::AveragePoolOp>(op)) {
    bool grown = g->padBottom != counted[2] || g->padRight != counted[3];
    bool anyPad = g->padTop || g->padLeft || g->padBottom || g->padRight;
    if (anyPad && (!avg.getCountIncludePad() || grown))
      return "an average pool whose divisor differs between positions (pads it does not count, "
             "or ceil_mode windows) runs as unfolded windows";
  }
  uint64_t smallestUb = UINT64_MAX;
  for (const soc::SocSpec *spec : soc::allSocs())
    smallestUb = std::min<uint64_t>(smallestUb, spec->bufferBytes(soc::Space::UB));
  uint64_t rowBytes = uint64_t((g->kh - 1) * g->dh + 1) * uint64_t(g->w) * 32;
  if (rowBytes > smallestUb / 4)
    return "one output row's input rows (" + std::to_string(rowBytes) +
           " bytes of a 16-channel plane) exceed a quarter of the UB";
  return {};
}

} // namespace vinci
