//===- DataMovement.cpp - slice, split, concat, transpose, expand, tile ---===//
//
// vg.slice, vg.split, vg.concat, vg.expand, vg.tile and the transposes the
// row-moving transpose template leaves (those that move the innermost dim
// or have rows unaligned in UB) move elements without computing: each is
// one or more box copies, a box of the output (or of an input) addressed in
// both tensors by strides and a constant offset:
//  - slice: the output box, read at the starts (steps scale the source
//    strides; a negative step reads backwards, with negative loop and block
//    terms);
//  - split: one box per used result, read at its offset along the axis;
//  - concat: one box per input, written at its offset along the axis;
//  - transpose: the output box, each dim read at its source dim's stride;
//  - expand: the output box, a broadcast dim read at stride 0;
//  - tile: each output dim split into (repeat, input dim), read at strides
//    (0, the input dim's).
// GM cannot be copied to GM, so every box goes GM -> UB (MTE2) -> GM (MTE3).
//
// A box is first collapsed: dims of extent 1 are dropped and neighbours that
// are contiguous in both tensors are merged, so that its innermost dim is a
// run of contiguous elements on both sides (a row). Rows that fit a UB tile
// move several at a time along the longest other dim that steps forward on
// both sides: one MTE2 copy with a burst per row and the source stride as
// the gap, each row padded to 32 B in UB, one MTE3 copy with the
// destination stride as the gap. A row longer than a tile moves in pieces
// of one burst. The tiles of that dim (full ones, then a tail) form a
// sequence; the other dims are dv.loops, and one dim whose extent the block
// count divides is spread over blocks, so the kernel's size does not depend
// on the tensor's. A slice along the innermost dim is therefore a copy with
// a row stride, and each third of a fused QKV projection one strided gather.
// A transpose that moves the innermost dim has rows of one element: one
// burst per element (each padded to 32 B in UB), correct for every element
// type but bounded by the per-burst cost, not the bandwidth (f16 tensors
// whose sides are multiples of 16 go to Transpose.cpp's vtranspose
// tiles instead). An expand or tile reads its source once per
// repeat (GM reads = output bytes). The row is spread over blocks only
// when each share keeps kMinRowShareBytes. Dims beyond the ISA's four loops
// (a 4-D tile has up to 8) are unrolled into straight-line copies, at most
// kMaxUnrolledCopies.
//
// Two UB tiles per element type are used in turn and each sequence is
// software pipelined (MTE2 loads tile t while MTE3 stores tile t - 1; a
// dv.loop moves two tiles an iteration). A box whose GM storage types
// differ (a graph input or output in f32 beside f16 intermediates) converts
// each tile in UB with vconv between load and store. Small constants the
// partition cloned into a concat (or copying slice) kernel become arguments.
//
// Bools (i1) are copied as the bytes they are in GM (u8).
//
// Rejected (one-line diagnostics): conversions other than f16 <-> f32,
// element types the ISA has no copies of (i64), empty tensors, and boxes
// needing more than kMaxUnrolledCopies copies of a four-deep loop nest.
//
//===----------------------------------------------------------------------===//
#include "backend/lower/LowerCommon.h"

#include "dv/DvOps.h"
#include "vg/VgOps.h"
#include "vinci/soc.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace vinci::lower {
namespace {

/// dv.loop nests the ISA takes.
constexpr size_t kMaxLoopDepth = 4;
/// The copy instruction's burst count limit.
constexpr int64_t kMaxBursts = 65535;
/// Tiles a block's sequence aims at, each of at least kMinTileBytes.
constexpr int64_t kPipelineTiles = 8;
constexpr int64_t kMinTileBytes = 16384;
/// Lanes of a vconv repeat between f16 and f32 (256 bytes of f32).
constexpr int64_t kVconvLanes = 64;
/// The least bytes of a row a block's share holds (a few GM granules).
constexpr int64_t kMinRowShareBytes = 256;
/// Straight-line copies of a box whose dims exceed the loop nest, at most.
constexpr int64_t kMaxUnrolledCopies = 256;
/// The least a kernel moves per block before it is spread over more blocks.
constexpr int64_t kMinBlockBytes = 4096;

/// One dim of a box: how many elements, and the step between them in the
/// source and destination tensors (elements).
struct BoxDim {
  int64_t extent, srcStride, dstStride;
};

/// A box copied from GM argument `srcArg` to `dstArg`.
struct BoxCopy {
  unsigned srcArg, dstArg;
  int64_t srcOffset = 0, dstOffset = 0;
  SmallVector<BoxDim> dims; // outermost first
  /// What one more block adds to the offsets (the box's share of blocks).
  int64_t blockSrcStep = 0, blockDstStep = 0;
  /// Storage types in GM; f16 <-> f32 converts in UB.
  Type srcElement, dstElement;
};

struct Plan {
  SmallVector<BoxCopy> boxes;
  /// The element types the boxes use, in order of first use.
  SmallVector<Type> elements;
};

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Drops dims of extent 1, merges neighbours contiguous on both sides, and
/// ends the box with a dim contiguous on both sides (the row).
void collapse(BoxCopy &box) {
  SmallVector<BoxDim> dims;
  for (const BoxDim &dim : box.dims) {
    if (dim.extent == 1)
      continue;
    if (!dims.empty()) {
      BoxDim &outer = dims.back();
      if (outer.srcStride == dim.extent * dim.srcStride &&
          outer.dstStride == dim.extent * dim.dstStride) {
        outer = {outer.extent * dim.extent, dim.srcStride, dim.dstStride};
        continue;
      }
    }
    dims.push_back(dim);
  }
  if (dims.empty() || dims.back().srcStride != 1 || dims.back().dstStride != 1)
    dims.push_back({1, 1, 1});
  box.dims = std::move(dims);
}


/// The kernel's one data-movement op (constants aside), or null.
Operation *soleMover(func::FuncOp func) {
  Operation *mover = nullptr;
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp, vg::ConstantOp>(op))
      continue;
    if (!isa<vg::SliceOp, vg::SplitOp, vg::ConcatOp, vg::ExpandOp, vg::TileOp, vg::TransposeOp>(
            op) ||
        mover)
      return nullptr;
    mover = &op;
  }
  return mover;
}

/// Stands for the argument a hoisted constant becomes.
constexpr unsigned kHoistedConstant = ~0u;

/// The GM argument `value` is read from: a kernel argument.
std::optional<unsigned> argumentOf(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getArgNumber();
  return std::nullopt;
}

/// The GM argument of the kernel result that returns `value`.
std::optional<unsigned> resultArgumentOf(Value value, func::FuncOp func) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [index, returned] : llvm::enumerate(ret.getOperands()))
    if (returned == value)
      return func.getNumArguments() + index;
  return std::nullopt;
}

/// A box spanning `shape`, placed at `offset` (per dim) inside the tensor of
/// shape `outerShape`, which is the source when `outerIsSource`.
BoxCopy placedBox(ArrayRef<int64_t> shape, ArrayRef<int64_t> outerShape,
                  ArrayRef<int64_t> offset, bool outerIsSource) {
  SmallVector<int64_t> outerStrides = rowMajorStrides(outerShape);
  SmallVector<int64_t> innerStrides = rowMajorStrides(shape);
  BoxCopy box;
  int64_t base = 0;
  for (auto [d, extent] : llvm::enumerate(shape)) {
    base += offset[d] * outerStrides[d];
    box.dims.push_back(outerIsSource ? BoxDim{extent, outerStrides[d], innerStrides[d]}
                                     : BoxDim{extent, innerStrides[d], outerStrides[d]});
  }
  (outerIsSource ? box.srcOffset : box.dstOffset) = base;
  return box;
}

/// The output box of a transpose, expand or tile, each output dim with the
/// source stride it reads at: a transpose permutes the source strides, an
/// expand reads a broadcast dim at stride 0, and a tile splits each output
/// dim d into (repeat, input dim) with source strides (0, stride of d).
SmallVector<BoxDim> readBox(Operation *mover) {
  auto inType = cast<RankedTensorType>(mover->getOperand(0).getType());
  auto outType = cast<RankedTensorType>(mover->getResult(0).getType());
  ArrayRef<int64_t> inShape = inType.getShape(), outShape = outType.getShape();
  SmallVector<int64_t> inStrides = rowMajorStrides(inShape);
  SmallVector<int64_t> outStrides = rowMajorStrides(outShape);
  int64_t rank = outType.getRank();
  SmallVector<BoxDim> dims;
  if (auto transpose = dyn_cast<vg::TransposeOp>(mover)) {
    for (int64_t d = 0; d < rank; ++d) {
      // ONNX's default permutation reverses the dims.
      int64_t from = transpose.getPerm() ? (*transpose.getPerm())[d] : rank - 1 - d;
      dims.push_back({outShape[d], inStrides[from], outStrides[d]});
    }
  } else if (isa<vg::ExpandOp>(mover)) {
    int64_t lead = rank - inType.getRank(); // expand aligns the shapes on the right
    for (int64_t d = 0; d < rank; ++d) {
      int64_t from = d - lead;
      bool broadcast = from < 0 || inShape[from] != outShape[d];
      dims.push_back({outShape[d], broadcast ? 0 : inStrides[from], outStrides[d]});
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) {
      dims.push_back({outShape[d] / inShape[d], 0, inShape[d] * outStrides[d]});
      dims.push_back({inShape[d], inStrides[d], outStrides[d]});
    }
  }
  return dims;
}

/// Bools (i1) are one byte an element in GM (0 or 1), as the elementwise
/// template stores them: copied as u8.
Type copiedElement(Type element) {
  if (element.isInteger(1))
    return IntegerType::get(element.getContext(), 8, IntegerType::Unsigned);
  return element;
}

GmSignature byteBoolSignature(func::CallOp call) {
  GmSignature signature = gmSignature(call);
  for (auto [type, element] : llvm::zip(signature.types, signature.elements)) {
    element = copiedElement(element);
    type = dv::GmType::get(call.getContext(), cast<dv::GmType>(type).getShape(), element);
  }
  return signature;
}

/// Builds the boxes of the kernel's op; "" on success, else why not.
std::string analyze(func::FuncOp func, func::CallOp call, Operation *mover, Plan &plan) {
  StringRef name = opName(mover);
  SmallVector<Value> sources; // each box's source tensor in the kernel
  GmSignature signature = byteBoolSignature(call);
  auto noteElements = [&](BoxCopy &box, Value source) -> std::string {
    box.srcElement = box.srcArg == kHoistedConstant ? copiedElement(storageElementType(source))
                                                     : signature.elements[box.srcArg];
    box.dstElement = signature.elements[box.dstArg];
    for (Type element : {box.srcElement, box.dstElement}) {
      if (dv::elementBytes(element) == 0)
        return llvm::formatv("{0} on {1} has no lowering template yet", name, element).str();
      if (!llvm::is_contained(plan.elements, element))
        plan.elements.push_back(element);
    }
    bool floats = isa<Float16Type, Float32Type>(box.srcElement) &&
                  isa<Float16Type, Float32Type>(box.dstElement);
    if (box.srcElement != box.dstElement && !floats)
      return llvm::formatv("a {0} that also converts ({1} to {2}) has no lowering template yet",
                           name, box.srcElement, box.dstElement)
          .str();
    return "";
  };

  for (Value result : mover->getResults())
    if (cast<RankedTensorType>(result.getType()).getNumElements() == 0)
      return (name + " to an empty tensor has no lowering template yet").str();

  if (isa<vg::TransposeOp, vg::ExpandOp, vg::TileOp>(mover)) {
    Value input = mover->getOperand(0);
    std::optional<unsigned> src = argumentOf(input);
    if (!src && input.getDefiningOp<vg::ConstantOp>())
      src = kHoistedConstant;
    std::optional<unsigned> dst = resultArgumentOf(mover->getResult(0), func);
    if (!src || !dst)
      return (name + " of a value computed inside the kernel has no lowering template yet").str();
    BoxCopy box;
    box.dims = readBox(mover);
    box.srcArg = *src;
    box.dstArg = *dst;
    plan.boxes.push_back(box);
    sources.push_back(input);
  } else if (auto slice = dyn_cast<vg::SliceOp>(mover)) {
    RankedTensorType inType = slice.getInput().getType();
    ArrayRef<int64_t> inShape = inType.getShape();
    int64_t rank = inType.getRank();
    SmallVector<int64_t> start(rank, 0), step(rank, 1);
    for (auto [i, axis] : llvm::enumerate(slice.getAxes())) {
      int64_t d = *vg::normalizeAxis(axis, rank);
      step[d] = slice.getSteps()[i];
      start[d] =
          vg::resolveSliceRange(inShape[d], slice.getStarts()[i], slice.getEnds()[i], step[d])
              .start;
    }
    std::optional<unsigned> src = argumentOf(slice.getInput());
    if (!src && slice.getInput().getDefiningOp<vg::ConstantOp>())
      src = kHoistedConstant; // a copy of a small constant (vinci-materialize-outputs)
    std::optional<unsigned> dst = resultArgumentOf(slice.getResult(), func);
    if (!src || !dst)
      return "a slice of a value computed inside the kernel has no lowering template yet";
    BoxCopy box = placedBox(slice.getType().getShape(), inShape, start, /*outerIsSource=*/true);
    for (auto [d, dim] : llvm::enumerate(box.dims))
      dim.srcStride *= step[d];
    box.srcArg = *src;
    box.dstArg = *dst;
    plan.boxes.push_back(box);
    sources.push_back(slice.getInput());
  } else if (auto split = dyn_cast<vg::SplitOp>(mover)) {
    RankedTensorType inType = split.getInput().getType();
    int64_t axis = *vg::normalizeAxis(split.getAxis(), inType.getRank());
    std::optional<unsigned> src = argumentOf(split.getInput());
    if (!src)
      return "a split of a value computed inside the kernel has no lowering template yet";
    int64_t at = 0;
    for (Value result : split.getResults()) {
      auto type = cast<RankedTensorType>(result.getType());
      SmallVector<int64_t> offset(type.getRank(), 0);
      offset[axis] = at;
      at += type.getDimSize(axis);
      std::optional<unsigned> dst = resultArgumentOf(result, func);
      if (!dst)
        continue; // an unused piece
      BoxCopy box = placedBox(type.getShape(), inType.getShape(), offset, true);
      box.srcArg = *src;
      box.dstArg = *dst;
      plan.boxes.push_back(box);
      sources.push_back(split.getInput());
    }
  } else {
    auto concat = cast<vg::ConcatOp>(mover);
    RankedTensorType outType = concat.getType();
    int64_t axis = *vg::normalizeAxis(concat.getAxis(), outType.getRank());
    std::optional<unsigned> dst = resultArgumentOf(concat.getResult(), func);
    if (!dst)
      return "a concat used inside the kernel has no lowering template yet";
    int64_t at = 0;
    for (Value input : concat.getInputs()) {
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> offset(type.getRank(), 0);
      offset[axis] = at;
      at += type.getDimSize(axis);
      if (type.getNumElements() == 0)
        continue;
      // A constant the partition cloned in is hoisted to an argument when
      // the kernel is lowered; until then it stands for one.
      std::optional<unsigned> src = argumentOf(input);
      if (!src && input.getDefiningOp<vg::ConstantOp>())
        src = kHoistedConstant;
      if (!src)
        return "a concat of a value computed inside the kernel has no lowering template yet";
      BoxCopy box = placedBox(type.getShape(), outType.getShape(), offset, false);
      box.srcArg = *src;
      box.dstArg = *dst;
      plan.boxes.push_back(box);
      sources.push_back(input);
    }
  }

  for (auto [box, source] : llvm::zip(plan.boxes, sources)) {
    if (std::string why = noteElements(box, source); !why.empty())
      return why;
    collapse(box);
  }
  return "";
}

std::optional<std::string> dataMovementMismatch(func::FuncOp func) {
  Operation *mover = soleMover(func);
  if (!mover)
    return std::nullopt;
  func::CallOp call = soleCall(func);
  if (!call)
    return std::string("a kernel launched more than once has no lowering yet");
  Plan plan;
  return analyze(func, call, mover, plan);
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

/// Tiling of one box for UB tiles of `capacity` elements.
struct BoxTiling {
  /// Rows fit: tiles are `unitsPerTile` rows (the last dim) along `tiledDim`.
  /// Otherwise tiles are `unitsPerTile` elements of the last dim.
  bool rowsFit;
  int64_t rowElems, paddedRowElems;
  size_t tiledDim;
  int64_t unitsPerTile;
};

BoxTiling tile(const BoxCopy &box, int64_t tileElems, int64_t alignment) {
  BoxTiling tiling;
  const BoxDim &row = box.dims.back();
  tiling.rowElems = row.extent;
  // Rows start aligned in UB on both sides of a conversion.
  int64_t narrowest = std::min(dv::elementBytes(box.srcElement), dv::elementBytes(box.dstElement));
  int64_t widest = std::max(dv::elementBytes(box.srcElement), dv::elementBytes(box.dstElement));
  tiling.paddedRowElems = roundUp(row.extent, alignment / narrowest);
  tiling.rowsFit = tiling.paddedRowElems <= tileElems;
  int64_t extent, capacity;
  if (tiling.rowsFit) {
    // A burst per row, along the longest other dim that steps forward on
    // both sides (bursts take one stride each side, a gap >= 0); the
    // remaining dims are loops.
    tiling.tiledDim = SIZE_MAX;
    extent = 1;
    for (size_t d = 0; d + 1 < box.dims.size(); ++d)
      if (box.dims[d].extent > extent && box.dims[d].srcStride >= row.extent &&
          box.dims[d].dstStride >= row.extent) {
        tiling.tiledDim = d;
        extent = box.dims[d].extent;
      }
    capacity = std::min(kMaxBursts, tileElems / tiling.paddedRowElems);
  } else {
    tiling.tiledDim = box.dims.size() - 1;
    extent = row.extent;
    capacity = tileElems;
  }
  // Even tiles: as few as the capacity allows, of equal size where possible,
  // but kPipelineTiles of them while each keeps kMinTileBytes: the first
  // load and the last store do not overlap, and smaller tiles shorten them
  // until the DMA start-up dominates.
  int64_t unitBytes = (tiling.rowsFit ? tiling.paddedRowElems : 1) * widest;
  int64_t tiles = std::max((extent + capacity - 1) / capacity,
                           std::min(kPipelineTiles, extent * unitBytes / kMinTileBytes));
  tiling.unitsPerTile = (extent + tiles - 1) / tiles;
  return tiling;
}

/// Two UB tiles of one element type, used in turn.
struct TilePair {
  Value tiles[2];
};

/// Emits the boxes' copies through two UB tiles used in turn, software
/// pipelined so that MTE2 fills one tile while MTE3 drains the other.
class DataMovementEmitter {
public:
  DataMovementEmitter(OpBuilder &b, Location loc, llvm::DenseMap<Type, TilePair> tilePairs,
                      Value blockIdx)
      : b(b), loc(loc), tilePairs(std::move(tilePairs)), blockIdx(blockIdx) {}

  LogicalResult emit(const BoxCopy &box, const BoxTiling &tiling, Value src, Value dst,
                     func::FuncOp func) {
    OpBuilder::InsertionGuard guard(b);
    this->box = &box;
    this->tiling = &tiling;
    gmSrc = src;
    gmDst = dst;
    indices.clear();
    srcExpr = b.getAffineConstantExpr(box.srcOffset);
    dstExpr = b.getAffineConstantExpr(box.dstOffset);
    if (blockIdx)
      addIndex(blockIdx, box.blockSrcStep, box.blockDstStep);

    // The tiled dim: full tiles then a tail, one after the other.
    tiled = tiling.tiledDim == SIZE_MAX ? BoxDim{1, 0, 0} : box.dims[tiling.tiledDim];
    Sequence seq;
    seq.units = tiling.unitsPerTile;
    seq.count = tiled.extent / seq.units;
    seq.tailUnits = tiled.extent % seq.units;
    seq.srcStep = seq.units * tiled.srcStride;
    seq.dstStep = seq.units * tiled.dstStride;

    SmallVector<BoxDim> loopDims;
    size_t rowDim = box.dims.size() - 1;
    for (size_t d = 0; d < box.dims.size(); ++d)
      if (d != tiling.tiledDim && !(tiling.rowsFit && d == rowDim) && box.dims[d].extent > 1)
        loopDims.push_back(box.dims[d]);
    // One tile covers the tiled dim: pipeline over the innermost loop instead.
    if (seq.count == 1 && seq.tailUnits == 0 && !loopDims.empty()) {
      BoxDim inner = loopDims.pop_back_val();
      seq.count = inner.extent;
      seq.srcStep = inner.srcStride;
      seq.dstStep = inner.dstStride;
    }
    // A store left from the previous box goes before this box's loops.
    if (!loopDims.empty())
      flushDeferredStore();
    // Dims beyond the ISA's loop nest (a tile of a 4-D tensor has up to 8)
    // are unrolled, outermost first: straight-line copies at constant offsets.
    size_t loops = loopDims.size() + (seq.count >= kMinPipelinedTiles);
    size_t unrolledDims = loops > kMaxLoopDepth ? loops - kMaxLoopDepth : 0;
    if (unrolledDims > loopDims.size())
      return func.emitError() << "kernel " << func.getSymName() << ": " << loops
                              << " nested loops exceed the ISA's " << kMaxLoopDepth;
    ArrayRef<BoxDim> unrolled = ArrayRef<BoxDim>(loopDims).take_front(unrolledDims);
    int64_t copies = 1;
    for (const BoxDim &dim : unrolled)
      copies *= dim.extent;
    if (copies > kMaxUnrolledCopies)
      return func.emitError() << "kernel " << func.getSymName() << ": " << loops
                              << " nested loops exceed the ISA's " << kMaxLoopDepth << " and "
                              << copies << " unrolled copies exceed " << kMaxUnrolledCopies
                              << ": reshape the tensor to fewer dims";
    AffineExpr srcBase = srcExpr, dstBase = dstExpr;
    for (int64_t copy = 0; copy < copies; ++copy) {
      OpBuilder::InsertionGuard perCopy(b);
      int64_t rest = copy, srcOffset = 0, dstOffset = 0;
      for (const BoxDim &dim : llvm::reverse(unrolled)) {
        srcOffset += (rest % dim.extent) * dim.srcStride;
        dstOffset += (rest % dim.extent) * dim.dstStride;
        rest /= dim.extent;
      }
      srcExpr = srcBase + srcOffset;
      dstExpr = dstBase + dstOffset;
      size_t outerIndices = indices.size();
      for (const BoxDim &dim : ArrayRef<BoxDim>(loopDims).drop_front(unrolledDims)) {
        auto loop = dv::LoopOp::create(b, loc, dim.extent);
        b.setInsertionPointToStart(&loop.getBody().front());
        addIndex(loop.getInductionVar(), dim.srcStride, dim.dstStride);
      }
      emitSequence(seq, /*deferLastStore=*/loopDims.size() == unrolledDims);
      indices.resize(outerIndices);
    }
    return success();
  }

  /// Emits the store a box left for the next one to overlap (if any).
  void flushDeferredStore() {
    for (Operation *op : deferredStore)
      op->moveBefore(b.getInsertionBlock(), b.getInsertionPoint());
    deferredStore.clear();
  }

private:
  /// `count` tiles of `units`, `srcStep`/`dstStep` elements apart, then one
  /// of `tailUnits` (if any).
  struct Sequence {
    int64_t count, units, tailUnits, srcStep, dstStep;
  };
  /// A tile of a sequence: number `first` + `ivTiles` x the loop's iv.
  struct TileAt {
    int64_t first;
    int64_t ivTiles = 0;
  };
  /// Below this many tiles the sequence is straight-line code.
  static constexpr int64_t kMinPipelinedTiles = 4;

  /// Loads tile t into one UB tile and stores tile t - 1 from the other
  /// behind it, so the two DMA pipes overlap; in the loop, iteration i moves
  /// tiles 2i and 2i + 1 and loads 2i + 2 (tile 0 is loaded before it).
  /// Every flag the sync pass needs then points one step back in program
  /// order, including the loop-carried ones. The UB tiles alternate across
  /// boxes too, and at the kernel's top level the last store waits for the
  /// next box's first load.
  void emitSequence(const Sequence &seq, bool deferLastStore) {
    int64_t total = seq.count + (seq.tailUnits > 0);
    auto unitsOf = [&](int64_t t) { return t < seq.count ? seq.units : seq.tailUnits; };
    load(seq, {0}, unitsOf(0));
    flushDeferredStore();
    int64_t next = 1;
    if (seq.count >= kMinPipelinedTiles) {
      int64_t pairs = (seq.count - 1) / 2;
      auto loop = dv::LoopOp::create(b, loc, pairs);
      {
        OpBuilder::InsertionGuard inLoop(b);
        b.setInsertionPointToStart(&loop.getBody().front());
        loopIv = loop.getInductionVar();
        load(seq, {1, 2}, seq.units);
        store(seq, {0, 2}, seq.units);
        load(seq, {2, 2}, seq.units);
        store(seq, {1, 2}, seq.units);
        loopIv = Value();
      }
      next = 2 * pairs + 1;
    }
    for (int64_t t = next; t < total; ++t) {
      load(seq, {t}, unitsOf(t));
      store(seq, {t - 1}, unitsOf(t - 1));
    }
    SmallVector<Operation *> last = store(seq, {total - 1}, unitsOf(total - 1));
    if (deferLastStore)
      deferredStore = last;
    parity = (parity + total) % 2;
  }

  void addIndex(Value index, int64_t srcStep, int64_t dstStep) {
    AffineExpr dim = b.getAffineDimExpr(indices.size());
    indices.push_back(index);
    srcExpr = srcExpr + dim * srcStep;
    dstExpr = dstExpr + dim * dstStep;
  }

  /// A GM view of `elems` elements at tile `at` of the sequence.
  Value view(Value gm, AffineExpr base, int64_t step, TileAt at, int64_t elems) {
    SmallVector<Value> operands(indices);
    AffineExpr expr = base + at.first * step;
    if (at.ivTiles) {
      expr = expr + b.getAffineDimExpr(operands.size()) * (at.ivTiles * step);
      operands.push_back(loopIv);
    }
    return dv::ViewOp::create(
               b, loc, dv::GmType::get(b.getContext(), {elems}, dv::getElementType(gm.getType())),
               gm, operands, AffineMapAttr::get(AffineMap::get(operands.size(), 0, expr)))
        .getResult();
  }

  /// The UB tile of `element` that tile `at` of the sequence uses.
  Value tileFor(Type element, TileAt at) const {
    return tilePairs.lookup(element).tiles[(parity + at.first) % 2];
  }

  /// GM -> UB: `units` rows along the tiled dim (or elements of a long row).
  void load(const Sequence &seq, TileAt at, int64_t units) {
    Value to = tileFor(box->srcElement, at);
    int64_t bytes = dv::elementBytes(box->srcElement);
    if (!tiling->rowsFit) {
      dv::CopyOp::create(b, loc, view(gmSrc, srcExpr, seq.srcStep, at, units), to, uint64_t(1),
                         uint64_t(units * bytes));
      return;
    }
    int64_t row = tiling->rowElems;
    Value from = view(gmSrc, srcExpr, seq.srcStep, at, (units - 1) * tiled.srcStride + row);
    copyRows(from, to, units, row, tiled.srcStride, tiling->paddedRowElems, bytes);
  }

  /// UB -> GM, the inverse of load, after the conversion if the box has
  /// one; returns the ops it creates.
  SmallVector<Operation *> store(const Sequence &seq, TileAt at, int64_t units) {
    SmallVector<Operation *> ops;
    Value from = tileFor(box->dstElement, at);
    if (box->srcElement != box->dstElement)
      convert(tileFor(box->srcElement, at), from,
              tiling->rowsFit ? units * tiling->paddedRowElems : units, ops);
    int64_t bytes = dv::elementBytes(box->dstElement);
    if (!tiling->rowsFit) {
      Value to = view(gmDst, dstExpr, seq.dstStep, at, units);
      ops.push_back(to.getDefiningOp());
      ops.push_back(
          dv::CopyOp::create(b, loc, from, to, uint64_t(1), uint64_t(units * bytes)));
      return ops;
    }
    int64_t row = tiling->rowElems;
    Value to = view(gmDst, dstExpr, seq.dstStep, at, (units - 1) * tiled.dstStride + row);
    ops.push_back(to.getDefiningOp());
    ops.push_back(
        copyRows(from, to, units, row, tiling->paddedRowElems, tiled.dstStride, bytes));
    return ops;
  }

  /// f16 <-> f32 over the first `elems` elements (rounded up to whole
  /// repeats, which the tiles hold), at most the ISA's repeat count at once.
  void convert(Value from, Value to, int64_t elems, SmallVectorImpl<Operation *> &ops) {
    const soc::SocSpec &soc = dv::getSoc(to.getParentBlock()->getParentOp());
    bool widen = dv::getElementType(to.getType()).isF32();
    auto rep = b.getDenseI64ArrayAttr(widen ? ArrayRef<int64_t>{8, 4} : ArrayRef<int64_t>{4, 8});
    int64_t repeats = (elems + kVconvLanes - 1) / kVconvLanes;
    int64_t maxRepeat = soc.max_repeat;
    for (int64_t r0 = 0; r0 < repeats; r0 += maxRepeat) {
      int64_t n = std::min(maxRepeat, repeats - r0);
      Value src = ubView(from, r0 * kVconvLanes, n * kVconvLanes, ops);
      Value dst = ubView(to, r0 * kVconvLanes, n * kVconvLanes, ops);
      ops.push_back(dv::VConvOp::create(b, loc, src, dst, dv::RoundMode::Rint, uint64_t(n),
                                        DenseI64ArrayAttr(), rep, DenseI64ArrayAttr()));
    }
  }

  /// Elements [offset, offset + elems) of a UB tile (the tile itself when
  /// that is all of it).
  Value ubView(Value tile, int64_t offset, int64_t elems, SmallVectorImpl<Operation *> &ops) {
    auto type = cast<dv::BufType>(tile.getType());
    if (offset == 0 && elems == type.getShape()[0])
      return tile;
    auto view = dv::ViewOp::create(
        b, loc,
        dv::BufType::get(b.getContext(), dv::MemSpace::UB, {elems}, type.getElementType(),
                         dv::Layout::ND),
        tile, ValueRange(), AffineMapAttr::get(AffineMap::get(0, 0, b.getAffineConstantExpr(offset))));
    ops.push_back(view);
    return view.getResult();
  }

  /// `rows` bursts of `row` elements, `from` and `to` elements apart; one
  /// burst when both sides are contiguous.
  Operation *copyRows(Value from, Value to, int64_t rows, int64_t row, int64_t fromStride,
                      int64_t toStride, int64_t bytes) {
    if (rows == 1 || (fromStride == row && toStride == row))
      return dv::CopyOp::create(b, loc, from, to, uint64_t(1), uint64_t(rows * row * bytes));
    return dv::CopyOp::create(b, loc, from, to, uint64_t(rows), uint64_t(row * bytes),
                              uint64_t((fromStride - row) * bytes),
                              uint64_t((toStride - row) * bytes));
  }

  OpBuilder &b;
  Location loc;
  llvm::DenseMap<Type, TilePair> tilePairs;
  Value blockIdx; // null with one block
  // The box being emitted.
  const BoxCopy *box = nullptr;
  const BoxTiling *tiling = nullptr;
  BoxDim tiled{1, 0, 0};
  Value gmSrc, gmDst, loopIv;
  /// Which UB tile the box's tile 0 uses.
  int64_t parity = 0;
  SmallVector<Operation *> deferredStore;
  SmallVector<Value> indices;
  AffineExpr srcExpr, dstExpr;
};

/// Mover inputs (a split has none) that the partition cloned in as immediates
/// (small constants) become arguments: cloned before the call in the graph,
/// they are stored in GM like weights.
void hoistConstants(func::FuncOp func, func::CallOp &call) {
  SmallVector<vg::ConstantOp> constants(func.getBody().front().getOps<vg::ConstantOp>());
  for (vg::ConstantOp constant : constants)
    hoistConstantToArgument(func, call, constant);
}

bool hoistable(func::FuncOp func) {
  Operation *mover = soleMover(func);
  return mover && !isa<vg::SplitOp>(mover) &&
         llvm::all_of(func.getBody().front().getOps<vg::ConstantOp>(), [&](vg::ConstantOp c) {
           return llvm::all_of(c->getUsers(), [&](Operation *user) { return user == mover; });
         });
}

LogicalResult lowerDataMovement(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  if (hoistable(func))
    hoistConstants(func, call);
  Plan plan;
  if (std::string why = analyze(func, call, soleMover(func), plan); !why.empty())
    return func.emitError() << "kernel " << func.getSymName() << ": " << why;
  MLIRContext *ctx = func.getContext();
  int64_t alignment = soc.alignment(soc::Space::UB);
  // Two tiles of each element type the boxes use, all of one element count
  // (whole vconv repeats), in UB together.
  int64_t bytesPerElement = 0;
  for (Type element : plan.elements)
    bytesPerElement += 2 * dv::elementBytes(element);
  int64_t tileElems = static_cast<int64_t>(soc.bufferBytes(soc::Space::UB)) / bytesPerElement;
  tileElems = tileElems / kVconvLanes * kVconvLanes;

  // The most blocks (up to the core count) that share every box evenly, each
  // box along its outermost dim they divide. Below kMinBlockBytes a block's
  // share is dominated by the DMA start-up, and more blocks only add launches.
  int64_t totalBytes = 0;
  for (const BoxCopy &box : plan.boxes) {
    int64_t elems = 1;
    for (const BoxDim &dim : box.dims)
      elems *= dim.extent;
    totalBytes += elems * dv::elementBytes(box.dstElement);
  }
  int64_t blockDim = std::min<int64_t>(soc.ai_core_count, totalBytes / kMinBlockBytes);
  // A share of the row shortens every burst: the row is split only when
  // each share keeps kMinRowShareBytes.
  auto sharedDim = [](auto &box, int64_t blocks) {
    int64_t rowBytes = box.dims.back().extent * dv::elementBytes(box.dstElement);
    return llvm::find_if(box.dims, [&](const BoxDim &dim) {
      bool row = &dim == &box.dims.back();
      return dim.extent % blocks == 0 && (!row || rowBytes / blocks >= kMinRowShareBytes);
    });
  };
  for (; blockDim > 1; --blockDim)
    if (llvm::all_of(plan.boxes,
                     [&](const BoxCopy &box) { return sharedDim(box, blockDim) != box.dims.end(); }))
      break;
  blockDim = std::max<int64_t>(blockDim, 1);

  SmallVector<BoxTiling> tilings;
  llvm::DenseMap<Type, int64_t> usedElems;
  for (BoxCopy &box : plan.boxes) {
    if (blockDim > 1) {
      auto dim = sharedDim(box, blockDim);
      dim->extent /= blockDim;
      box.blockSrcStep = dim->extent * dim->srcStride;
      box.blockDstStep = dim->extent * dim->dstStride;
    }
    tilings.push_back(tile(box, tileElems, alignment));
    const BoxTiling &t = tilings.back();
    int64_t elems = t.rowsFit ? t.unitsPerTile * t.paddedRowElems : t.unitsPerTile;
    if (box.srcElement != box.dstElement)
      elems = roundUp(elems, kVconvLanes);
    for (Type element : {box.srcElement, box.dstElement})
      usedElems[element] = std::max(usedElems[element], elems);
  }

  GmSignature signature = byteBoolSignature(call);
  OpBuilder b(ctx);
  Block *entry = beginKernel(b, func, signature.types, blockDim, "vector");
  llvm::DenseMap<Type, TilePair> tilePairs;
  for (Type element : plan.elements) {
    auto type = dv::BufType::get(ctx, dv::MemSpace::UB, {usedElems[element]}, element,
                                 dv::Layout::ND);
    for (Value &tile : tilePairs[element].tiles)
      tile = dv::AllocOp::create(b, func.getLoc(), type, IntegerAttr());
  }
  Value blockIdx;
  if (blockDim > 1)
    blockIdx = dv::BlockIdxOp::create(b, func.getLoc(), b.getIndexType()).getResult();
  DataMovementEmitter emitter(b, func.getLoc(), std::move(tilePairs), blockIdx);
  for (auto [box, tiling] : llvm::zip(plan.boxes, tilings))
    if (failed(emitter.emit(box, tiling, entry->getArgument(box.srcArg),
                            entry->getArgument(box.dstArg), func)))
      return failure();
  b.setInsertionPointToEnd(entry);
  emitter.flushDeferredStore();
  return finishKernel(entry, func, call);
}

} // namespace

const KernelTemplate kDataMovementTemplate = {"data movement", dataMovementMismatch,
                                              lowerDataMovement};

} // namespace vinci::lower
