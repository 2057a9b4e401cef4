//===- Pad.cpp - constant pads of the last two dims -----------------------===//
//
// vg.pad in constant mode with non-negative pads on at most two adjacent
// dims (the spatial pads of conv and pooling, which vinci-unfold-windows
// emits on the last two; Swin's pad of H and W in [B, H, W, C] before its
// windows). The input is seen as planes [L, H, W] and the output as
// [L, H', W']: H and W are the padded dims (H and the dim after it when
// one dim is padded) and the dims inside them fold into W, so that a row of
// W elements holds whole inner blocks and the pads of W scale by the
// block's size. Each block owns whole planes:
//  1. fill: a UB tile set once with the pad value (vdup), stored over the
//     block's planes in GM with MTE3 (a loop of whole-tile stores and a
//     tail);
//  2. interior: per plane and tile of T rows, MTE2 brings T * W contiguous
//     elements into UB (converted by vconv when the input is stored in f32,
//     a graph input, and the output in f16), and one MTE3 copy writes them
//     as T bursts of W elements with a gap of W' - W, at (pt, pl) of the
//     plane. GM takes any byte offset, so unaligned pads cost nothing extra.
// Both phases store on MTE3, so the interior overwrites the fill in program
// order. The kernel's size does not depend on the tensor's: loops over
// planes and row tiles, tiles of T rows with T dividing H.
//
// Rejected: reflect / edge modes, negative pads (crops), pads of more than
// two dims or of two dims apart, element types other than f16 / f32, and rows that do not fit UB.
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
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace vinci::lower {
namespace {

/// Lanes of one vconv repeat between f16 and f32 (256 B of f32).
constexpr int64_t kConvertLanes = 64;
/// Elements of the fill tile.
constexpr int64_t kFillElems = 4096;

/// The pad as planes: input [L, H, W] -> output [L, H', W'] placed at (top, left).
struct PadShape {
  int64_t planes = 1, h = 1, w = 1, outH = 1, outW = 1, top = 0, left = 0;
};

std::string analyze(vg::PadOp pad, PadShape &shape) {
  if (pad.getMode() != "constant")
    return ("a pad in " + pad.getMode() + " mode has no lowering template yet").str();
  auto in = cast<RankedTensorType>(pad.getInput().getType());
  auto out = cast<RankedTensorType>(pad.getType());
  int64_t rank = in.getRank();
  ArrayRef<int64_t> pads = pad.getPads();
  if (rank == 0 || in.getNumElements() == 0)
    return "a pad of an empty or scalar tensor has no lowering template yet";
  // w: the inner padded dim, h (w - 1): the one before it.
  int64_t w = -1, outer = rank;
  for (int64_t d = 0; d < rank; ++d) {
    if (pads[d] < 0 || pads[rank + d] < 0)
      return "a pad with negative pads (a crop) has no lowering template yet";
    if (pads[d] || pads[rank + d]) {
      outer = std::min(outer, d);
      w = d;
    }
  }
  // One padded dim is H, the dim after it W (the rows stay as short as
  // the tensor allows); none padded reads as a pad of the last two.
  if (w < 0)
    w = rank - 1;
  else if (outer == w && w + 1 < rank)
    ++w;
  if (outer < w - 1)
    return "a pad of more than two dims or of two dims apart has no lowering template yet";
  ArrayRef<int64_t> inShape = in.getShape(), outShape = out.getShape();
  int64_t inner = 1;
  for (int64_t d = w + 1; d < rank; ++d)
    inner *= inShape[d];
  for (int64_t d = 0; d + 1 < w; ++d)
    shape.planes *= inShape[d];
  shape.w = inShape[w] * inner;
  shape.outW = outShape[w] * inner;
  shape.left = pads[w] * inner;
  if (w >= 1) {
    shape.h = inShape[w - 1];
    shape.outH = outShape[w - 1];
    shape.top = pads[w - 1];
  }
  return "";
}

std::optional<std::string> padMismatch(func::FuncOp func) {
  vg::PadOp pad = soleOp<vg::PadOp>(func, /*skipConstants=*/true);
  if (!pad)
    return std::nullopt;
  PadShape shape;
  return analyze(pad, shape);
}

LogicalResult lowerPad(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  vg::PadOp pad = soleOp<vg::PadOp>(func, /*skipConstants=*/true);
  PadShape s;
  if (std::string why = analyze(pad, s); !why.empty())
    return func.emitError() << "kernel " << func.getSymName() << ": " << why;
  MLIRContext *ctx = func.getContext();
  Location loc = func.getLoc();
  GmSignature signature = gmSignature(call);
  Type inElem = signature.elements[0], outElem = signature.elements.back();
  auto isFloat = [](Type t) { return t.isF16() || t.isF32(); };
  if (!isFloat(inElem) || !isFloat(outElem))
    return func.emitError() << "kernel " << func.getSymName() << ": a pad of " << inElem
                            << " has no lowering template yet";
  bool convert = inElem != outElem;
  int64_t inBytes = dv::elementBytes(inElem), outBytes = dv::elementBytes(outElem);

  // Row tiles: T rows (T divides H) of the input, and their converted copy.
  int64_t budget = int64_t(soc.bufferBytes(soc::Space::UB)) - kFillElems * outBytes - 1024;
  int64_t perRow = s.w * (inBytes + (convert ? outBytes : 0));
  int64_t rows = std::min<int64_t>(s.h, std::max<int64_t>(0, budget / perRow));
  while (rows > 1 && s.h % rows)
    --rows;
  if (rows < 1 || rows * perRow + 2 * kConvertLanes * 4 > budget)
    return func.emitError() << "kernel " << func.getSymName() << ": a pad of rows of " << s.w
                            << " elements does not fit UB: no lowering template yet";
  int64_t tileElems = roundUp(rows * s.w, kConvertLanes);
  int64_t blockDim = std::min<int64_t>(soc.ai_core_count, s.planes);
  while (s.planes % blockDim)
    --blockDim;
  int64_t planesPerBlock = s.planes / blockDim;
  int64_t outPlane = s.outH * s.outW, inPlane = s.h * s.w;

  OpBuilder b(ctx);
  Block *entry = beginKernel(b, func, signature.types, blockDim, "vector");
  Value gmIn = entry->getArgument(0), gmOut = entry->getArgument(entry->getNumArguments() - 1);
  auto ubBuffer = [&](int64_t elems, Type element) -> Value {
    return dv::AllocOp::create(
        b, loc, dv::BufType::get(ctx, dv::MemSpace::UB, {elems}, element, dv::Layout::ND),
        IntegerAttr());
  };
  int64_t region = planesPerBlock * outPlane;
  int64_t fillElems = std::min(kFillElems, roundUp(region, kConvertLanes * 2));
  Value fill = ubBuffer(fillElems, outElem);
  Value inTile = ubBuffer(tileElems, inElem);
  Value outTile = convert ? ubBuffer(tileElems, outElem) : inTile;

  SmallVector<Value> dims;
  auto dim = [&](Value v) {
    dims.push_back(v);
    return b.getAffineDimExpr(dims.size() - 1);
  };
  auto gmView = [&](Value gm, Type element, AffineExpr offset, int64_t elems) {
    return dv::ViewOp::create(b, loc, dv::GmType::get(ctx, {elems}, element), gm, dims,
                              AffineMapAttr::get(AffineMap::get(dims.size(), 0, offset)))
        .getResult();
  };
  AffineExpr firstPlane = b.getAffineConstantExpr(0);
  if (blockDim > 1)
    firstPlane = dim(dv::BlockIdxOp::create(b, loc, b.getIndexType()).getResult()) * planesPerBlock;

  // 1. Fill the block's planes with the pad value.
  int64_t lanes = 256 / outBytes;
  int64_t fillRepeats = fillElems / lanes;
  for (int64_t r0 = 0; r0 < fillRepeats; r0 += soc.max_repeat) {
    int64_t n = std::min<int64_t>(soc.max_repeat, fillRepeats - r0);
    Value part = fill;
    if (n != fillRepeats)
      part = dv::ViewOp::create(
          b, loc, dv::BufType::get(ctx, dv::MemSpace::UB, {n * lanes}, outElem, dv::Layout::ND),
          fill, ValueRange(),
          AffineMapAttr::get(AffineMap::get(0, 0, b.getAffineConstantExpr(r0 * lanes))));
    dv::VDupOp::create(b, loc, b.getF32FloatAttr(float(pad.getConstantValue().convertToDouble())),
                       part, uint64_t(n), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                       DenseI64ArrayAttr());
  }
  int64_t fullFills = region / fillElems, tailFill = region % fillElems;
  AffineExpr regionStart = firstPlane * outPlane;
  if (fullFills == 1) {
    dv::CopyOp::create(b, loc, fill, gmView(gmOut, outElem, regionStart, fillElems), uint64_t(1),
                       uint64_t(fillElems * outBytes));
  } else if (fullFills > 1) {
    OpBuilder::InsertionGuard guard(b);
    auto loop = dv::LoopOp::create(b, loc, fullFills);
    b.setInsertionPointToStart(&loop.getBody().front());
    AffineExpr at = regionStart + dim(loop.getInductionVar()) * fillElems;
    dv::CopyOp::create(b, loc, fill, gmView(gmOut, outElem, at, fillElems), uint64_t(1),
                       uint64_t(fillElems * outBytes));
    dims.pop_back();
  }
  if (tailFill)
    dv::CopyOp::create(b, loc, fill,
                       gmView(gmOut, outElem, regionStart + fullFills * fillElems, tailFill),
                       uint64_t(1), uint64_t(tailFill * outBytes));

  // 2. The interior, plane by plane, T rows at a time.
  AffineExpr plane = firstPlane, row = b.getAffineConstantExpr(0);
  if (planesPerBlock > 1) {
    auto loop = dv::LoopOp::create(b, loc, planesPerBlock);
    b.setInsertionPointToStart(&loop.getBody().front());
    plane = plane + dim(loop.getInductionVar());
  }
  if (s.h / rows > 1) {
    auto loop = dv::LoopOp::create(b, loc, s.h / rows);
    b.setInsertionPointToStart(&loop.getBody().front());
    row = dim(loop.getInductionVar()) * rows;
  }
  int64_t elems = rows * s.w;
  dv::CopyOp::create(b, loc, gmView(gmIn, inElem, plane * inPlane + row * s.w, elems), inTile,
                     uint64_t(1), uint64_t(elems * inBytes));
  if (convert) {
    // f32 -> f16 (or back): 64 lanes a repeat, at most max_repeat at once.
    bool widen = outElem.isF32();
    auto rep = b.getDenseI64ArrayAttr(widen ? ArrayRef<int64_t>{8, 4} : ArrayRef<int64_t>{4, 8});
    int64_t repeats = tileElems / kConvertLanes;
    for (int64_t r0 = 0; r0 < repeats; r0 += soc.max_repeat) {
      int64_t n = std::min<int64_t>(soc.max_repeat, repeats - r0);
      auto part = [&](Value buf, Type element) -> Value {
        if (n == repeats)
          return buf;
        return dv::ViewOp::create(
            b, loc,
            dv::BufType::get(ctx, dv::MemSpace::UB, {n * kConvertLanes}, element, dv::Layout::ND),
            buf, ValueRange(),
            AffineMapAttr::get(AffineMap::get(0, 0, b.getAffineConstantExpr(r0 * kConvertLanes))));
      };
      dv::VConvOp::create(b, loc, part(inTile, inElem), part(outTile, outElem),
                          dv::RoundMode::Rint, uint64_t(n), DenseI64ArrayAttr(), rep,
                          DenseI64ArrayAttr());
    }
  }
  AffineExpr dstAt = plane * outPlane + (row + s.top) * s.outW + s.left;
  Value dst = gmView(gmOut, outElem, dstAt, (rows - 1) * s.outW + s.w);
  if (rows == 1 || s.outW == s.w)
    dv::CopyOp::create(b, loc, outTile, dst, uint64_t(1), uint64_t(elems * outBytes));
  else
    dv::CopyOp::create(b, loc, outTile, dst, uint64_t(rows), uint64_t(s.w * outBytes),
                       uint64_t(0), uint64_t((s.outW - s.w) * outBytes));
  b.setInsertionPointToEnd(entry);
  return finishKernel(entry, func, call);
}

} // namespace

const KernelTemplate kPadTemplate = {"pad", padMismatch, lowerPad};

} // namespace vinci::lower
