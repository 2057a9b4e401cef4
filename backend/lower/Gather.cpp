//===- Gather.cpp - ONNX Gather (embedding lookups) as indexed row copies -===//
//
// gather(data, indices, axis) reads, for every outer position o (the dims
// before `axis`) and every index j, the row data[o, idx[j], :] (the dims
// after `axis`, contiguous) and writes it to out[o, j, :]. No vector work:
// a tile of T indices is copied GM -> UB, one `copy_gather` (the ISA's one
// data-dependent address: the Scalar unit reads each index) fetches the T
// rows into UB, and one MTE3 copy writes them out contiguously. Tiles of
// indices are spread over blocks and looped with affine addresses, outer
// positions are a loop too, so the program does not grow with the tensors.
// Index range errors (outside [-V, V)) stop the kernel at run time, as ONNX
// leaves out-of-range indices undefined and a wild read is never an option.
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

/// The geometry of one gather: out[outer][count][inner] from
/// data[outer][tableRows][inner].
struct GatherShape {
  int64_t outer, tableRows, inner, count;
};

GatherShape gatherShape(vg::GatherOp gather) {
  ArrayRef<int64_t> data = gather.getData().getType().getShape();
  int64_t rank = static_cast<int64_t>(data.size());
  int64_t axis = gather.getAxis() < 0 ? gather.getAxis() + rank : gather.getAxis();
  return {product(data.take_front(axis)), data[axis], product(data.drop_front(axis + 1)),
          product(gather.getIndices().getType().getShape())};
}

/// Index tiles share UB with the rows they fetch; half of UB leaves room
/// for the allocator's alignment padding.
int64_t ubBudget(const soc::SocSpec &soc) {
  return static_cast<int64_t>(soc.bufferBytes(soc::Space::UB)) / 2;
}

std::optional<std::string> gatherMismatch(func::FuncOp func) {
  auto gather = soleOp<vg::GatherOp>(func);
  if (!gather)
    return std::nullopt;
  auto isArgument = [&](Value v) { return isa<BlockArgument>(v); };
  if (!isArgument(gather.getData()) || !isArgument(gather.getIndices()))
    return std::string("a gather whose data or indices are computed or folded inside the kernel "
                       "has no lowering template yet");
  if (!gather.getIndices().getType().getElementType().isSignlessInteger(32))
    return llvm::formatv("gather indices of {0} have no lowering template (i32 after "
                         "vinci-narrow-int64)",
                         gather.getIndices().getType().getElementType())
        .str();
  func::CallOp call = soleCall(func);
  if (!call)
    return std::string("a kernel launched more than once has no lowering yet");
  Type dataElem = storageElementType(call.getOperand(0));
  Type outElem = storageElementType(call.getResult(0));
  if (dataElem != outElem)
    return llvm::formatv("a gather that also converts ({0} to {1}) has no lowering template yet",
                         dataElem, outElem)
        .str();
  GatherShape shape = gatherShape(gather);
  if (shape.count == 0 || shape.inner == 0 || shape.outer == 0)
    return std::string("a gather with an empty operand has no lowering template");
  const soc::SocSpec &soc = dv::getSoc(func);
  int64_t rowBytes = shape.inner * dv::elementBytes(dataElem);
  int64_t indexBytes = roundUp(4, soc.alignment(soc::Space::UB));
  if (rowBytes + indexBytes > ubBudget(soc))
    return llvm::formatv("gathered rows of {0} bytes do not fit half of UB ({1} B): no lowering "
                         "template yet",
                         rowBytes, ubBudget(soc))
        .str();
  if (shape.outer > 1 && shape.tableRows * rowBytes > INT32_MAX)
    return std::string("a gather over a table larger than 2 GiB per outer position has no "
                       "lowering template");
  return std::string();
}

LogicalResult lowerGather(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  auto gather = soleOp<vg::GatherOp>(func);
  MLIRContext *ctx = func.getContext();
  Location loc = func.getLoc();
  GmSignature signature = gmSignature(call);
  Type elem = signature.elements[0];
  Type i32 = IntegerType::get(ctx, 32);
  GatherShape shape = gatherShape(gather);
  int64_t rowBytes = shape.inner * dv::elementBytes(elem);
  int64_t alignment = soc.alignment(soc::Space::UB);

  // A tile of T indices: as many as fit, at most an equal share per core,
  // and a divisor of the count so that every tile is full.
  int64_t fit = std::max<int64_t>(1, ubBudget(soc) / (rowBytes + 4 + alignment));
  int64_t perCore = (shape.count + soc.ai_core_count - 1) / soc.ai_core_count;
  int64_t tile = std::min({shape.count, fit, perCore, int64_t(65535)});
  while (shape.count % tile)
    --tile;
  int64_t tiles = shape.count / tile;
  int64_t blockDim = std::min<int64_t>(soc.ai_core_count, tiles);
  while (tiles % blockDim)
    --blockDim;
  int64_t tilesPerBlock = tiles / blockDim;

  OpBuilder b(ctx);
  Block *entry = beginKernel(b, func, signature.types, blockDim, "vector");
  Value gmData = entry->getArgument(0), gmIndices = entry->getArgument(1),
        gmOut = entry->getArgument(2);
  Value indexTile = dv::AllocOp::create(
      b, loc, dv::BufType::get(ctx, dv::MemSpace::UB, {tile}, i32, dv::Layout::ND), IntegerAttr());
  Value rowTile = dv::AllocOp::create(
      b, loc, dv::BufType::get(ctx, dv::MemSpace::UB, {tile * shape.inner}, elem, dv::Layout::ND),
      IntegerAttr());

  // Element offsets as affine functions of (block_idx, loop ivs).
  SmallVector<Value> dims;
  AffineExpr tileIndex = b.getAffineConstantExpr(0), outerIndex = b.getAffineConstantExpr(0);
  auto dim = [&](Value v) {
    dims.push_back(v);
    return b.getAffineDimExpr(dims.size() - 1);
  };
  if (blockDim > 1)
    tileIndex = dim(dv::BlockIdxOp::create(b, loc, b.getIndexType()).getResult()) * tilesPerBlock;
  if (shape.outer > 1) {
    auto loop = dv::LoopOp::create(b, loc, shape.outer);
    b.setInsertionPointToStart(&loop.getBody().front());
    outerIndex = dim(loop.getInductionVar());
  }
  if (tilesPerBlock > 1) {
    auto loop = dv::LoopOp::create(b, loc, tilesPerBlock);
    b.setInsertionPointToStart(&loop.getBody().front());
    tileIndex = tileIndex + dim(loop.getInductionVar());
  }
  auto view = [&](Value gm, Type element, AffineExpr offset, int64_t elems) {
    return dv::ViewOp::create(b, loc, dv::GmType::get(ctx, {elems}, element), gm, dims,
                              AffineMapAttr::get(AffineMap::get(dims.size(), 0, offset)))
        .getResult();
  };

  Value indices = view(gmIndices, i32, tileIndex * tile, tile);
  Value table = view(gmData, elem, outerIndex * (shape.tableRows * shape.inner),
                     shape.tableRows * shape.inner);
  Value out = view(gmOut, elem,
                   outerIndex * (shape.count * shape.inner) + tileIndex * (tile * shape.inner),
                   tile * shape.inner);
  dv::CopyOp::create(b, loc, indices, indexTile, uint64_t(1), uint64_t(tile * 4));
  dv::CopyGatherOp::create(b, loc, table, indexTile, rowTile, tile, rowBytes, rowBytes, rowBytes,
                           shape.tableRows);
  dv::CopyOp::create(b, loc, rowTile, out, uint64_t(1), uint64_t(tile * rowBytes));
  return finishKernel(entry, func, call);
}

} // namespace

const KernelTemplate kGatherTemplate = {"gather", gatherMismatch, lowerGather};

} // namespace vinci::lower
