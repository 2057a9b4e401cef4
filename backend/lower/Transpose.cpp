//===- Transpose.cpp - row-moving and 16x16-tile transposes ---------------===//
//
// A transpose whose permutation keeps the innermost dim (the head split
// [0, 2, 1, 3] of attention, and what vg's canonicalizer leaves once a swap
// of the last two dims is folded into a matmul) moves whole rows: no vector
// work, only DMA. Output rows are grouped into slabs along output dim r-2;
// one MTE2 copy gathers a slab from GM with a burst per row and the source
// stride as the gap, one MTE3 copy writes it back contiguously. The other
// output dims are dv.loops (the first one longer than 1 is also split over
// blocks), so the kernel's size does not depend on the tensor's. A
// transpose between an f32 graph tensor and an f16 intermediate converts
// the slab in UB (vconv) between the two copies.
//
// An f16 transpose that moves the innermost dim so that the input's
// innermost dim (X) becomes the output's rows ([.., X, Y] out, X and Y
// multiples of 16; the last-two-dims swap among others) runs in 16x16
// tiles: per strip of 16 X and chunk of Y, one MTE2 copy gathers the
// chunk's rows of 16 elements (32-byte bursts), vtranspose turns the
// tiles, 16 UB -> UB copies regroup the 16 output rows and one MTE3 copy
// stores them (measured: [4, 512, 512] -> [4, 512, 512] swapped, 80 us
// simulated against 491 us for the element-burst copy of the f32 tensor;
// single-buffered, partial). Other transposes that move the innermost dim
// (f32, conversions, other shapes) are the data-movement template's.
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
/// Lanes of one f16 <-> f32 vconv repeat (256 bytes of f32).
constexpr int64_t kVconvLanes = 64;

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// The permutation, with ONNX's default (reversed dims) when absent.
SmallVector<int64_t> permutation(vg::TransposeOp transpose) {
  if (auto perm = transpose.getPerm())
    return SmallVector<int64_t>(perm->begin(), perm->end());
  SmallVector<int64_t> reversed;
  for (int64_t d = transpose.getInput().getType().getRank() - 1; d >= 0; --d)
    reversed.push_back(d);
  return reversed;
}

/// An output dim iterated around the copies: extent and element steps in
/// the source and the destination.
struct IterDim {
  int64_t extent, srcStep, dstStep;
};

/// The GM offsets of the loop nest over `dims` (the first split over
/// `blockDim` blocks): sum over dims of index * step, the first dim's
/// index being block_idx * share + its loop's iv.
struct LoopNest {
  SmallVector<Value> indices;
  AffineExpr srcExpr, dstExpr;
};

/// Opens the nest's dv.loops (one per dim longer than 1) and leaves `b`
/// in the innermost.
LoopNest openLoopNest(OpBuilder &b, Location loc, ArrayRef<IterDim> dims, int64_t blockDim) {
  LoopNest nest{{}, b.getAffineConstantExpr(0), b.getAffineConstantExpr(0)};
  auto addIndex = [&](Value index, int64_t srcStep, int64_t dstStep) {
    AffineExpr dim = b.getAffineDimExpr(nest.indices.size());
    nest.indices.push_back(index);
    nest.srcExpr = nest.srcExpr + dim * srcStep;
    nest.dstExpr = nest.dstExpr + dim * dstStep;
  };
  for (auto [i, dim] : llvm::enumerate(dims)) {
    int64_t extent = dim.extent;
    if (i == 0 && blockDim > 1) {
      extent /= blockDim;
      Value bid = dv::BlockIdxOp::create(b, loc, b.getIndexType()).getResult();
      addIndex(bid, extent * dim.srcStep, extent * dim.dstStep);
    }
    if (extent > 1) {
      auto loop = dv::LoopOp::create(b, loc, extent);
      b.setInsertionPointToStart(&loop.getBody().front());
      addIndex(loop.getInductionVar(), dim.srcStep, dim.dstStep);
    }
  }
  return nest;
}

//===----------------------------------------------------------------------===//
// Tile transposes: the innermost dim moves, 16x16 f16 tiles on the Vector unit
//===----------------------------------------------------------------------===//

/// The largest chunk of output rows' columns (Y) a tile transpose moves at
/// once: 128 tiles, two UB buffers of 64 KiB.
constexpr int64_t kMaxTileChunk = 2048;
/// Elements on a side of a vtranspose tile.
constexpr int64_t kTileSide = 16;

/// How an f16 transpose whose output's second-to-last dim is the input's
/// innermost (X) moves in 16x16 tiles: the output's innermost dim (Y) is
/// the input dim `yDim`; strips of 16 X columns by chunks of `chunk` Y.
struct TilePlan {
  int64_t x, y, chunk, ySrcStride;
  SmallVector<IterDim> dims; // outer output dims, strips, chunks
  int64_t blockDim;
};

/// The tile plan, or nullopt when the transpose is not of that shape: f16
/// on both sides, output [.., X, Y] with X the input's innermost dim,
/// X and Y multiples of 16, and at most four loops around the tiles.
std::optional<TilePlan> tilePlan(vg::TransposeOp transpose, Type inElem, Type outElem,
                                 const soc::SocSpec &soc) {
  int64_t rank = transpose.getInput().getType().getRank();
  SmallVector<int64_t> perm = permutation(transpose);
  if (rank < 2 || !inElem.isF16() || !outElem.isF16() || perm[rank - 2] != rank - 1)
    return std::nullopt;
  ArrayRef<int64_t> inShape = transpose.getInput().getType().getShape();
  ArrayRef<int64_t> outShape = transpose.getType().getShape();
  TilePlan plan;
  plan.x = outShape[rank - 2];
  plan.y = outShape[rank - 1];
  if (plan.x % kTileSide || plan.y % kTileSide)
    return std::nullopt;
  SmallVector<int64_t> inStrides = rowMajorStrides(inShape);
  SmallVector<int64_t> outStrides = rowMajorStrides(outShape);
  plan.ySrcStride = inStrides[perm[rank - 1]];
  plan.chunk = std::min(plan.y, kMaxTileChunk);
  while (plan.y % plan.chunk)
    plan.chunk -= kTileSide;
  for (int64_t d = 0; d < rank - 2; ++d)
    if (outShape[d] > 1)
      plan.dims.push_back({outShape[d], inStrides[perm[d]], outStrides[d]});
  if (plan.x > kTileSide)
    plan.dims.push_back({plan.x / kTileSide, kTileSide, kTileSide * plan.y});
  if (plan.y > plan.chunk)
    plan.dims.push_back({plan.y / plan.chunk, plan.chunk * plan.ySrcStride, plan.chunk});
  plan.blockDim = 1;
  if (!plan.dims.empty()) {
    plan.blockDim = std::min<int64_t>(soc.ai_core_count, plan.dims.front().extent);
    while (plan.dims.front().extent % plan.blockDim)
      --plan.blockDim;
  }
  // The loops around the tiles, and one over the 16 rows a tile stores.
  size_t loops = 1;
  for (auto [i, dim] : llvm::enumerate(plan.dims))
    loops += (i == 0 ? dim.extent / plan.blockDim : dim.extent) > 1;
  if (loops > kMaxLoopDepth)
    return std::nullopt;
  return plan;
}

/// Per strip and chunk: MTE2 gathers `chunk` rows of 16 X elements (32-byte
/// bursts at the Y source stride) as chunk / 16 tiles [y][x]; vtranspose
/// turns each into [x][y]; the rows are regrouped in UB and MTE3 writes the
/// strip's 16 output rows.
LogicalResult lowerTileTranspose(func::FuncOp func, func::CallOp call, const TilePlan &plan) {
  MLIRContext *ctx = func.getContext();
  Location loc = func.getLoc();
  GmSignature signature = gmSignature(call);
  Type f16 = signature.elements[0];
  constexpr int64_t bytes = 2;
  OpBuilder b(ctx);
  Block *entry = beginKernel(b, func, signature.types, plan.blockDim, "vector");
  Value gmIn = entry->getArgument(0), gmOut = entry->getArgument(1);
  int64_t tileElems = kTileSide * kTileSide;
  int64_t tiles = plan.chunk / kTileSide;
  auto bufType = dv::BufType::get(ctx, dv::MemSpace::UB, {tiles * tileElems}, f16, dv::Layout::ND);
  Value rows = dv::AllocOp::create(b, loc, bufType, IntegerAttr());
  Value columns = dv::AllocOp::create(b, loc, bufType, IntegerAttr());

  LoopNest nest = openLoopNest(b, loc, plan.dims, plan.blockDim);
  ArrayRef<Value> indices = nest.indices;
  AffineExpr srcExpr = nest.srcExpr, dstExpr = nest.dstExpr;
  auto gmView = [&](Value gm, ArrayRef<Value> operands, AffineExpr expr, int64_t elems) {
    return dv::ViewOp::create(b, loc, dv::GmType::get(ctx, {elems}, f16), gm, operands,
                              AffineMapAttr::get(AffineMap::get(operands.size(), 0, expr)))
        .getResult();
  };
  Value src = gmView(gmIn, indices, srcExpr, (plan.chunk - 1) * plan.ySrcStride + kTileSide);
  dv::CopyOp::create(b, loc, src, rows, uint64_t(plan.chunk), uint64_t(kTileSide * bytes),
                     uint64_t((plan.ySrcStride - kTileSide) * bytes), uint64_t(0));
  dv::VTransposeOp::create(b, loc, rows, columns, b.getI64IntegerAttr(tiles));
  // Output row x of the strip is element row x of every tile: 16 UB -> UB
  // copies (V) gather them into `rows` (free again once transposed) as
  // [x][chunk], so that one MTE3 copy stores the strip (16 bursts of a
  // chunk, at the output's row stride) instead of one copy per row.
  auto loop = dv::LoopOp::create(b, loc, kTileSide);
  {
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPointToStart(&loop.getBody().front());
    Value x = loop.getInductionVar();
    auto ubView = [&](Value buf, int64_t step, int64_t elems) {
      return dv::ViewOp::create(
                 b, loc, dv::BufType::get(ctx, dv::MemSpace::UB, {elems}, f16, dv::Layout::ND),
                 buf, ValueRange{x},
                 AffineMapAttr::get(AffineMap::get(1, 0, b.getAffineDimExpr(0) * step)))
          .getResult();
    };
    Value from = ubView(columns, kTileSide, (tiles - 1) * tileElems + kTileSide);
    Value to = ubView(rows, plan.chunk, plan.chunk);
    dv::CopyOp::create(b, loc, from, to, uint64_t(tiles), uint64_t(kTileSide * bytes),
                       uint64_t((tileElems - kTileSide) * bytes), uint64_t(0));
  }
  Value dst = gmView(gmOut, indices, dstExpr, (kTileSide - 1) * plan.y + plan.chunk);
  dv::CopyOp::create(b, loc, rows, dst, uint64_t(kTileSide), uint64_t(plan.chunk * bytes),
                     uint64_t(0), uint64_t((plan.y - plan.chunk) * bytes));
  return finishKernel(entry, func, call);
}

std::optional<std::string> transposeMismatch(func::FuncOp func) {
  auto transpose = soleOp<vg::TransposeOp>(func);
  if (!transpose)
    return std::nullopt;
  int64_t rank = transpose.getInput().getType().getRank();
  SmallVector<int64_t> perm = permutation(transpose);
  // Transposes that move the innermost dim: f16 ones of 16x16 tiles here,
  // the others are the data-movement template's (strided element copies).
  if (rank < 2 || perm[rank - 1] != rank - 1) {
    func::CallOp call = soleCall(func);
    if (!call || !tilePlan(transpose, storageElementType(call.getOperand(0)),
                           storageElementType(call.getResult(0)), dv::getSoc(func)))
      return std::nullopt;
    return std::string();
  }
  func::CallOp call = soleCall(func);
  if (!call)
    return std::string("a kernel launched more than once has no lowering yet");
  Type inElem = storageElementType(call.getOperand(0));
  Type outElem = storageElementType(call.getResult(0));
  auto isFloat = [](Type t) { return t.isF16() || t.isF32(); };
  if (inElem != outElem && !(isFloat(inElem) && isFloat(outElem)))
    return llvm::formatv("a transpose that also converts ({0} to {1}) has no lowering "
                         "template yet (f16 <-> f32 only)",
                         inElem, outElem)
        .str();
  const soc::SocSpec &soc = dv::getSoc(func);
  int64_t rowBytes = transpose.getType().getShape()[rank - 1] * dv::elementBytes(inElem);
  int64_t alignment = soc.alignment(soc::Space::UB);
  // Rows that are unaligned in UB or longer than a slab: the data-movement
  // template pads each row to the alignment and splits long ones.
  int64_t budget = static_cast<int64_t>(soc.bufferBytes(soc::Space::UB)) / 2;
  if (rowBytes % alignment != 0 || rowBytes > budget)
    return std::nullopt;
  return std::string();
}

LogicalResult lowerTranspose(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  auto transpose = soleOp<vg::TransposeOp>(func);
  MLIRContext *ctx = func.getContext();
  Location loc = func.getLoc();
  GmSignature signature = gmSignature(call);
  Type inElem = signature.elements[0], outElem = signature.elements[1];
  if (std::optional<TilePlan> plan = tilePlan(transpose, inElem, outElem, soc))
    return lowerTileTranspose(func, call, *plan);
  bool converts = inElem != outElem;
  int64_t bytes = dv::elementBytes(inElem), outBytes = dv::elementBytes(outElem);
  ArrayRef<int64_t> inShape = transpose.getInput().getType().getShape();
  ArrayRef<int64_t> outShape = transpose.getType().getShape();
  SmallVector<int64_t> perm = permutation(transpose);
  int64_t rank = static_cast<int64_t>(outShape.size());
  int64_t rowElems = outShape[rank - 1];
  int64_t rowBytes = rowElems * bytes;

  // Source stride (elements) of each output dim.
  SmallVector<int64_t> inStrides = rowMajorStrides(inShape);
  SmallVector<int64_t> outStrides = rowMajorStrides(outShape);
  SmallVector<int64_t> srcStride;
  for (int64_t d = 0; d < rank; ++d)
    srcStride.push_back(inStrides[perm[d]]);

  // A slab: `chunk` output rows along dim r-2, half of UB at most.
  int64_t rows = outShape[rank - 2];
  int64_t budget = static_cast<int64_t>(soc.bufferBytes(soc::Space::UB)) / 2;
  // Converting needs a second slab in the output type.
  int64_t chunk =
      std::min<int64_t>(rows, budget / (converts ? rowElems * (bytes + outBytes) : rowBytes));
  while (rows % chunk)
    --chunk;

  // Iteration dims: the outer output dims, then the chunks of dim r-2.
  SmallVector<IterDim> dims;
  for (int64_t d = 0; d < rank - 2; ++d)
    if (outShape[d] > 1)
      dims.push_back({outShape[d], srcStride[d], outStrides[d]});
  if (rows / chunk > 1)
    dims.push_back({rows / chunk, chunk * srcStride[rank - 2], chunk * rowElems});

  // The first iteration dim is split over blocks (equal shares).
  int64_t blockDim = 1;
  if (!dims.empty()) {
    blockDim = std::min<int64_t>(soc.ai_core_count, dims.front().extent);
    while (dims.front().extent % blockDim)
      --blockDim;
  }
  int64_t loops = 0;
  for (auto [i, dim] : llvm::enumerate(dims))
    loops += (i == 0 ? dim.extent / blockDim : dim.extent) > 1;
  if (static_cast<size_t>(loops) > kMaxLoopDepth)
    return func.emitError() << "kernel " << func.getSymName() << ": " << loops
                            << " nested loops exceed the ISA's " << kMaxLoopDepth;

  OpBuilder b(ctx);
  Block *entry = beginKernel(b, func, signature.types, blockDim, "vector");
  Value gmIn = entry->getArgument(0), gmOut = entry->getArgument(1);
  // vconv works in whole repeats of 64 lanes: the slabs hold them.
  int64_t slabElems = converts ? roundUp(chunk * rowElems, kVconvLanes) : chunk * rowElems;
  Value slab = dv::AllocOp::create(
      b, loc, dv::BufType::get(ctx, dv::MemSpace::UB, {slabElems}, inElem, dv::Layout::ND),
      IntegerAttr());
  Value outSlab = slab;
  if (converts)
    outSlab = dv::AllocOp::create(
        b, loc, dv::BufType::get(ctx, dv::MemSpace::UB, {slabElems}, outElem, dv::Layout::ND),
        IntegerAttr());

  LoopNest nest = openLoopNest(b, loc, dims, blockDim);
  ArrayRef<Value> indices = nest.indices;
  AffineExpr srcExpr = nest.srcExpr, dstExpr = nest.dstExpr;
  auto view = [&](Value gm, Type elem, AffineExpr expr, int64_t elems) {
    return dv::ViewOp::create(b, loc, dv::GmType::get(ctx, {elems}, elem), gm, indices,
                              AffineMapAttr::get(AffineMap::get(indices.size(), 0, expr)))
        .getResult();
  };
  int64_t gap = srcStride[rank - 2] - rowElems;
  Value src = view(gmIn, inElem, srcExpr, (chunk - 1) * srcStride[rank - 2] + rowElems);
  Value dst = view(gmOut, outElem, dstExpr, chunk * rowElems);
  dv::CopyOp::create(b, loc, src, slab, uint64_t(chunk), uint64_t(rowBytes),
                     uint64_t(gap * bytes), uint64_t(0));
  if (converts) {
    // f32 -> f16 reads 8 blocks and writes 4 a repeat; f16 -> f32 the reverse.
    auto rep = b.getDenseI64ArrayAttr(outElem.isF32() ? ArrayRef<int64_t>{8, 4}
                                                       : ArrayRef<int64_t>{4, 8});
    auto sub = [&](Value buf, Type elem, int64_t offset, int64_t elems) {
      auto type = dv::BufType::get(ctx, dv::MemSpace::UB, {elems}, elem, dv::Layout::ND);
      return dv::ViewOp::create(b, loc, type, buf, ValueRange(),
                                AffineMapAttr::get(AffineMap::get(
                                    0, 0, b.getAffineConstantExpr(offset))))
          .getResult();
    };
    int64_t repeats = slabElems / kVconvLanes;
    for (int64_t r0 = 0; r0 < repeats; r0 += soc.max_repeat) {
      int64_t n = std::min<int64_t>(soc.max_repeat, repeats - r0);
      dv::VConvOp::create(b, loc, sub(slab, inElem, r0 * kVconvLanes, n * kVconvLanes),
                          sub(outSlab, outElem, r0 * kVconvLanes, n * kVconvLanes),
                          dv::RoundMode::Rint, uint64_t(n), DenseI64ArrayAttr(), rep,
                          DenseI64ArrayAttr());
    }
  }
  dv::CopyOp::create(b, loc, outSlab, dst, uint64_t(1), uint64_t(chunk * rowElems * outBytes));

  return finishKernel(entry, func, call);
}

} // namespace

const KernelTemplate kTransposeTemplate = {"transpose", transposeMismatch, lowerTranspose};

} // namespace vinci::lower
