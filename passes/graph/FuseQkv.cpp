//===- FuseQkv.cpp - one matmul for projections of the same activations ---===//
//
// Attention blocks project the same activations three times (Q, K, V), and
// other blocks do alike (gated MLPs). Each projection is a Cube kernel that
// reads the activations from GM again; over concatenated weights one kernel
// reads them once and fills the Cube with a wider N. The weights are joined
// at compile time into a new blob, so nothing is concatenated at run time.
//
//===----------------------------------------------------------------------===//
#include "passes/graph/Matchers.h"
#include "passes/graph/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace vinci::graph {
#define GEN_PASS_DEF_FUSEQKV
#include "passes/graph/Passes.h.inc"
} // namespace vinci::graph

using namespace mlir;

namespace vinci::graph {
namespace {

/// The bytes of a constant as stored (row-major, the element's width):
/// dense attributes (splats expanded) and dense_resource blobs alike.
std::optional<std::vector<char>> constantBytes(ElementsAttr attr) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    ArrayRef<char> data = blob->getData();
    return std::vector<char>(data.begin(), data.end());
  }
  auto dense = dyn_cast<DenseIntOrFPElementsAttr>(attr);
  if (!dense || dense.getElementType().isInteger(1))
    return std::nullopt;
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat())
    return std::vector<char>(raw.begin(), raw.end());
  std::vector<char> out;
  out.reserve(raw.size() * dense.getNumElements());
  for (int64_t i = 0, e = dense.getNumElements(); i < e; ++i)
    out.insert(out.end(), raw.begin(), raw.end());
  return out;
}

/// A constant holding `bytes` as `type`: a resource blob named `name` when
/// the parts were blobs (weights stay out of the printed IR), dense otherwise.
ElementsAttr makeConstant(RankedTensorType type, ArrayRef<char> bytes, bool asBlob,
                          StringRef name) {
  if (!asBlob)
    return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(type, bytes));
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(std::max_align_t));
  return cast<ElementsAttr>(DenseResourceElementsAttr::get(type, name, std::move(blob)));
}

/// The blob name of a constant, or "" for a dense one.
StringRef blobName(ElementsAttr attr) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
    return resource.getRawHandle().getKey();
  return {};
}

/// One projection of the shared activations: y = x @ W (+ bias).
struct Projection {
  vg::MatMulOp matmul;
  ElementsAttr weight;
  int64_t width = 0;      // N: output features
  vg::AddOp biasAdd;      // the add of a [N] constant, if it is the matmul's only user
  ElementsAttr bias;
};

/// The output width of `matmul` if its right operand is a 2-D constant.
std::optional<Projection> matchProjection(vg::MatMulOp matmul) {
  ElementsAttr weight;
  if (!matchPattern(matmul.getB(), m_Constant(&weight)))
    return std::nullopt;
  auto weightType = dyn_cast<RankedTensorType>(weight.getType());
  auto inputType = dyn_cast<RankedTensorType>(matmul.getA().getType());
  if (!weightType || weightType.getRank() != 2 || !inputType || inputType.getRank() < 2 ||
      !weightType.hasStaticShape() || !matmul.getType().hasStaticShape())
    return std::nullopt;
  Projection projection;
  projection.matmul = matmul;
  projection.weight = weight;
  projection.width = weightType.getDimSize(matmul.getTransposeB() ? 0 : 1);
  if (!matmul->hasOneUse())
    return projection;
  auto add = dyn_cast<vg::AddOp>(*matmul->getUsers().begin());
  ElementsAttr bias;
  if (!add || add.getType() != matmul.getType() ||
      !matchPattern(otherOperand(add, matmul.getResult()), m_Constant(&bias)))
    return projection;
  auto biasType = cast<RankedTensorType>(bias.getType());
  if (biasType.getRank() == 1 && biasType.getDimSize(0) == projection.width &&
      biasType.getElementType() == matmul.getType().getElementType()) {
    projection.biasAdd = add;
    projection.bias = bias;
  }
  return projection;
}

/// Whether `a` and `b` may share one matmul: same activations, same
/// transposes, same weight type but for N.
bool compatible(Projection a, Projection b) {
  auto typeA = cast<RankedTensorType>(a.weight.getType());
  auto typeB = cast<RankedTensorType>(b.weight.getType());
  int64_t kDim = a.matmul.getTransposeB() ? 1 : 0;
  return a.matmul.getTransposeA() == b.matmul.getTransposeA() &&
         a.matmul.getTransposeB() == b.matmul.getTransposeB() &&
         typeA.getElementType() == typeB.getElementType() &&
         typeA.getDimSize(kDim) == typeB.getDimSize(kDim) &&
         a.matmul.getType().getElementType() == b.matmul.getType().getElementType() &&
         a.matmul->getBlock() == b.matmul->getBlock();
}

/// Joins the weights along N: rows of [K, N_i] side by side, or the
/// [N_i, K] blocks of transposed weights one after another.
std::optional<std::vector<char>> concatWeights(ArrayRef<Projection> group) {
  SmallVector<std::vector<char>> parts;
  for (Projection p : group) {
    std::optional<std::vector<char>> bytes = constantBytes(p.weight);
    if (!bytes)
      return std::nullopt;
    parts.push_back(std::move(*bytes));
  }
  std::vector<char> out;
  if (Projection(group.front()).matmul.getTransposeB()) {
    for (const std::vector<char> &part : parts)
      out.insert(out.end(), part.begin(), part.end());
    return out;
  }
  int64_t rows = cast<RankedTensorType>(group.front().weight.getType()).getDimSize(0);
  for (int64_t row = 0; row < rows; ++row)
    for (const std::vector<char> &part : parts) {
      size_t rowBytes = part.size() / rows;
      out.insert(out.end(), part.begin() + row * rowBytes, part.begin() + (row + 1) * rowBytes);
    }
  return out;
}

/// The names of the model nodes that `ops` came from, joined, so the
/// compile report's source_nodes still name them.
Location fusedLoc(MLIRContext *context, ArrayRef<Operation *> ops) {
  std::string names;
  for (Operation *op : ops)
    if (auto name = dyn_cast<NameLoc>(op->getLoc()))
      names += (names.empty() ? "" : "+") + name.getName().getValue().str();
  if (names.empty())
    return FusedLoc::get(context, llvm::map_to_vector(ops, [](Operation *op) { return op->getLoc(); }));
  return NameLoc::get(StringAttr::get(context, names));
}

/// One head split of a slice: transpose(reshape(slice(y)) to [..., h, D]).
struct HeadSplit {
  vg::SliceOp slice;
  vg::ReshapeOp reshape;
  vg::TransposeOp transpose;
  int64_t headDim = 0;
};

/// The head split fed by `slice` (its only use, as the reshape's and the
/// transpose's), if the reshape cuts the sliced last dim into whole heads.
std::optional<HeadSplit> matchHeadSplit(vg::SliceOp slice) {
  if (!slice->hasOneUse())
    return std::nullopt;
  auto reshape = dyn_cast<vg::ReshapeOp>(*slice->getUsers().begin());
  if (!reshape || !reshape->hasOneUse())
    return std::nullopt;
  auto transpose = dyn_cast<vg::TransposeOp>(*reshape->getUsers().begin());
  if (!transpose || !transpose.getPerm())
    return std::nullopt;
  ArrayRef<int64_t> in = slice.getType().getShape(), out = reshape.getType().getShape();
  if (out.size() != in.size() + 1 || out.drop_back(2) != in.drop_back() ||
      !reshape.getType().hasStaticShape())
    return std::nullopt;
  int64_t headDim = out.back();
  if (headDim <= 0 || slice.getStarts()[0] % headDim != 0)
    return std::nullopt;
  return HeadSplit{slice, reshape, transpose, headDim};
}

// transpose(reshape(slice(y, last dim, [a, b]), [..., h, D]), p), one per
// projection -> slice(transpose(reshape(y, [..., H, D]), p), head axis,
// [a/D, b/D]) (one split when every projection splits heads): one
// head-split transpose of the fused result instead of one copy and one
// transpose a projection.
void hoistHeadSplits(Value fused, ArrayRef<vg::SliceOp> slices) {
  SmallVector<HeadSplit> splits;
  for (vg::SliceOp slice : slices)
    if (std::optional<HeadSplit> split = matchHeadSplit(slice)) {
      if (!splits.empty() && (split->headDim != splits.front().headDim ||
                              split->transpose.getPerm() != splits.front().transpose.getPerm()))
        continue;
      splits.push_back(*split);
    }
  auto fusedType = cast<RankedTensorType>(fused.getType());
  int64_t headDim = splits.empty() ? 0 : splits.front().headDim;
  if (splits.size() < 2 || fusedType.getShape().back() % headDim != 0)
    return;
  ArrayRef<int64_t> perm = *splits.front().transpose.getPerm();
  int64_t rank = fusedType.getRank();
  SmallVector<int64_t> headShape(fusedType.getShape().drop_back());
  headShape.append({fusedType.getShape().back() / headDim, headDim});
  SmallVector<int64_t> permuted;
  int64_t headAxis = -1;
  for (auto [i, from] : llvm::enumerate(perm)) {
    permuted.push_back(headShape[from]);
    if (from == rank - 1)
      headAxis = i;
  }
  Type element = fusedType.getElementType();
  OpBuilder builder(fused.getContext());
  builder.setInsertionPointAfterValue(fused);
  Location loc = splits.front().transpose.getLoc();
  Value heads = vg::ReshapeOp::create(builder, loc, RankedTensorType::get(headShape, element), fused,
                                      builder.getDenseI64ArrayAttr(headShape));
  Value transposed = vg::TransposeOp::create(builder, loc, RankedTensorType::get(permuted, element),
                                             heads, builder.getDenseI64ArrayAttr(perm));
  // Every projection splits heads: one vg.split (one data-movement kernel)
  // hands each its heads, as the slices cover the fused result in order.
  if (splits.size() == slices.size()) {
    SmallVector<int64_t> heads;
    SmallVector<Type> types;
    for (HeadSplit &split : splits) {
      heads.push_back(split.reshape.getType().getShape()[rank - 1]);
      types.push_back(split.transpose.getType());
    }
    auto parts = vg::SplitOp::create(builder, loc, types, transposed,
                                     builder.getI64IntegerAttr(headAxis),
                                     builder.getDenseI64ArrayAttr(heads));
    for (auto [split, part] : llvm::zip(splits, parts.getOutputs())) {
      split.transpose.getResult().replaceAllUsesWith(part);
      split.transpose->erase();
      split.reshape->erase();
      split.slice->erase();
    }
    return;
  }
  Operation *previous = transposed.getDefiningOp();
  for (HeadSplit &split : splits) {
    // After the previous new op, never before an old one: those are erased.
    builder.setInsertionPointAfter(previous);
    int64_t start = split.slice.getStarts()[0] / headDim;
    int64_t count = split.reshape.getType().getShape()[rank - 1];
    Value slice = vg::SliceOp::create(builder, split.slice.getLoc(), split.transpose.getType(),
                                      transposed, ArrayRef<int64_t>{start},
                                      ArrayRef<int64_t>{start + count},
                                      ArrayRef<int64_t>{headAxis}, ArrayRef<int64_t>{1});
    previous = slice.getDefiningOp();
    split.transpose.getResult().replaceAllUsesWith(slice);
    split.transpose->erase();
    split.reshape->erase();
    split.slice->erase();
  }
}

// matmul(x, W1) (+ b1), matmul(x, W2) (+ b2), ...
//   -> slice(matmul(x, concat(W1, W2, ...)) (+ concat(b1, b2, ...)), N_i)
void fuseGroup(ArrayRef<Projection> group) {
  Projection first = group.front();
  MLIRContext *context = first.matmul.getContext();
  auto firstWeightType = cast<RankedTensorType>(first.weight.getType());
  bool transposeB = first.matmul.getTransposeB();
  int64_t totalWidth = 0;
  bool allBlobs = true, allBiased = true;
  std::string name;
  for (Projection p : group) {
    totalWidth += p.width;
    allBlobs &= !blobName(p.weight).empty();
    allBiased &= static_cast<bool>(p.biasAdd);
    name += (name.empty() ? "" : ".") + blobName(p.weight).str();
  }
  std::optional<std::vector<char>> weightBytes = concatWeights(group);
  if (!weightBytes)
    return;
  // Biases join only when every projection has one: a zero bias would cost
  // a pass over the output for the projections that had none.
  std::optional<std::vector<char>> biasBytes;
  if (allBiased) {
    biasBytes.emplace();
    for (Projection p : group) {
      std::optional<std::vector<char>> bytes = constantBytes(p.bias);
      if (!bytes)
        return;
      biasBytes->insert(biasBytes->end(), bytes->begin(), bytes->end());
    }
  }

  // Everything goes before the first projection: the activations dominate
  // it, and it dominates every user of the others.
  Operation *earliest = first.matmul;
  for (Projection p : group)
    if (p.matmul->isBeforeInBlock(earliest))
      earliest = p.matmul;
  OpBuilder builder(earliest);
  SmallVector<Operation *> sources;
  for (Projection p : group) {
    sources.push_back(p.matmul);
    if (p.biasAdd)
      sources.push_back(p.biasAdd);
  }
  Location loc = fusedLoc(context, sources);

  SmallVector<int64_t> weightShape(firstWeightType.getShape());
  weightShape[transposeB ? 0 : 1] = totalWidth;
  auto weightType = RankedTensorType::get(weightShape, firstWeightType.getElementType());
  Value weight = vg::ConstantOp::create(
      builder, loc, makeConstant(weightType, *weightBytes, allBlobs, name + ".fused"));
  RankedTensorType outType = first.matmul.getType();
  SmallVector<int64_t> outShape(outType.getShape());
  outShape.back() = totalWidth;
  auto fusedType = RankedTensorType::get(outShape, outType.getElementType());
  Value fused = vg::MatMulOp::create(builder, loc, fusedType, first.matmul.getA(), weight,
                                     first.matmul.getTransposeA(), transposeB);
  if (biasBytes) {
    auto biasType = RankedTensorType::get({totalWidth}, outType.getElementType());
    bool biasBlobs = llvm::all_of(group, [](Projection p) { return !blobName(p.bias).empty(); });
    Value bias = vg::ConstantOp::create(
        builder, loc, makeConstant(biasType, *biasBytes, biasBlobs, name + ".fused_bias"));
    fused = vg::AddOp::create(builder, loc, fusedType, fused, bias);
  }

  llvm::SetVector<Operation *> oldConstants; // a bias may be shared
  for (Projection p : group) {
    oldConstants.insert(p.matmul.getB().getDefiningOp());
    if (biasBytes)
      oldConstants.insert(otherOperand(p.biasAdd, p.matmul.getResult()).getDefiningOp());
  }

  // Each slice goes after the previous one, never before a projection:
  // those are erased as we go.
  Operation *previous = fused.getDefiningOp();
  SmallVector<vg::SliceOp> slices;
  int64_t lastAxis = outType.getRank() - 1, offset = 0;
  for (Projection p : group) {
    builder.setInsertionPointAfter(previous);
    Operation *replaced = biasBytes ? p.biasAdd.getOperation() : p.matmul.getOperation();
    Value slice = vg::SliceOp::create(builder, replaced->getLoc(), p.matmul.getType(), fused,
                                      ArrayRef<int64_t>{offset},
                                      ArrayRef<int64_t>{offset + p.width},
                                      ArrayRef<int64_t>{lastAxis}, ArrayRef<int64_t>{1});
    offset += p.width;
    previous = slice.getDefiningOp();
    slices.push_back(cast<vg::SliceOp>(previous));
    replaced->getResult(0).replaceAllUsesWith(slice);
    replaced->erase();
    if (biasBytes)
      p.matmul->erase();
  }
  // The separate weights are dead unless something else reads them:
  // dropping them keeps them out of the printed IR and of the .om.
  for (Operation *constant : oldConstants)
    if (constant->use_empty())
      constant->erase();
  hoistHeadSplits(fused, slices);
}

struct FuseQkv : impl::FuseQkvBase<FuseQkv> {
  void runOnOperation() override {
    // Projections grouped by their activations, in program order; within a
    // group, those that can share a matmul.
    llvm::MapVector<Value, SmallVector<SmallVector<Projection>>> byInput;
    getOperation().walk([&](vg::MatMulOp matmul) {
      std::optional<Projection> projection = matchProjection(matmul);
      if (!projection)
        return;
      SmallVector<SmallVector<Projection>> &groups = byInput[matmul.getA()];
      for (SmallVector<Projection> &group : groups)
        if (compatible(group.front(), *projection)) {
          group.push_back(*projection);
          return;
        }
      groups.push_back({*projection});
    });
    for (auto &[input, groups] : byInput)
      for (SmallVector<Projection> &group : groups)
        if (group.size() >= 2)
          fuseGroup(group);
  }
};

} // namespace
} // namespace vinci::graph
