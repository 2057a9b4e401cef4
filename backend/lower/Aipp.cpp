//===- Aipp.cpp - static AIPP: a uint8 image to the model's input ---------===//
//
// vg.aipp (ATC's static AIPP, inserted by --insert_op_conf) on the Vector
// unit. Each block owns a share of the crop's rows (row pairs for
// YUV420SP, whose UV row serves two Y rows) of every image in the batch;
// a row goes through in groups of G pixels (256; 512 for YUV420SP):
//
//  1. MTE2 loads the group's bytes of the row (packed pixels, or the Y row
//     and the UV row) into UB and vconv widens them to f16, exactly;
//  2. packed channels are split into planes by 16x16 tile transposes: the
//     G * C values seen as 16 rows of 16 * C are gathered into C tiles of
//     16 x 16 (UB -> UB copies of 32-byte blocks C apart), vtranspose turns
//     them, a second gather takes every C-th row and a second vtranspose
//     leaves each channel's 256 pixels in order. YUV420SP's UV row splits
//     the same way (C = 2) and each chroma plane is doubled horizontally by
//     the inverse steps (an interleave of the plane with itself);
//  3. in f32 (exact for integer pixels): the colour-space conversion as
//     vmuls / vaxpy by the matrix entries, minus the input bias folded
//     into one constant, times 1/256, floor (vconv to s32 and back), plus
//     the output bias, clamped to [0, 255]; then (y - mean - min) *
//     var_reci per channel, converted to the output's storage type;
//  4. MTE3 stores each channel's run of the output row; the padding (top
//     and bottom rows shared among the blocks, left and right of each row)
//     is stored from a UB tile of the padding value.
// The kernel's size does not depend on the image's: loops over images,
// rows and groups (a partial last group is emitted apart). Single-buffered.
//
// Rejected: loops deeper than the ISA's four, rows whose groups do not fit
// a vector instruction's repeats, element types other than f16 / f32 out.
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

#include <numeric>

using namespace mlir;

namespace vinci::lower {
namespace {

/// Elements on a side of a vtranspose tile, and the pixels a channel split
/// handles at once (one tile a channel).
constexpr int64_t kTileSide = 16;
constexpr int64_t kUnitPixels = kTileSide * kTileSide;
/// Elements of the UB tile the padding is stored from.
constexpr int64_t kFillElems = 4096;
/// Vector lanes a repeat: 256 bytes of the widest element.
constexpr int64_t kF16Lanes = 128, kF32Lanes = 64;

/// The kernel's shape, from the op and the SoC.
struct AippPlan {
  bool yuv420 = false;
  int64_t batch = 1, imageH = 0, imageW = 0, pixelBytes = 1;
  int64_t top = 0, left = 0, cropH = 0, cropW = 0;
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  int64_t outC = 0, outH = 0, outW = 0;
  int64_t group = kUnitPixels; // pixels a group computes
  int64_t rowSteps = 0;        // loop steps over the crop: rows, or row pairs (YUV420SP)
  int64_t blockDim = 1;
};

std::string analyze(vg::AippOp op, const soc::SocSpec &soc, AippPlan &plan) {
  auto image = op.getImage().getType();
  auto out = cast<RankedTensorType>(op.getType());
  plan.yuv420 = op.getInputFormat() == "YUV420SP_U8";
  plan.batch = image.getDimSize(0);
  plan.imageH = op.getImageHeight();
  plan.imageW = op.getImageWidth();
  plan.pixelBytes = op.getPixelBytes();
  ArrayRef<int64_t> crop = op.getCrop(), padding = op.getPadding();
  plan.top = crop[0];
  plan.left = crop[1];
  plan.cropH = crop[2];
  plan.cropW = crop[3];
  plan.padTop = padding[0];
  plan.padBottom = padding[1];
  plan.padLeft = padding[2];
  plan.padRight = padding[3];
  plan.outC = out.getDimSize(1);
  plan.outH = out.getDimSize(2);
  plan.outW = out.getDimSize(3);
  plan.group = plan.yuv420 ? 2 * kUnitPixels : kUnitPixels;
  plan.rowSteps = plan.yuv420 ? plan.cropH / 2 : plan.cropH;
  // Each block takes an equal share of the row steps and of the top and
  // bottom padding (a contiguous run of each output plane).
  for (int64_t d = std::min<int64_t>(soc.ai_core_count, plan.rowSteps); d >= 1; --d)
    if (plan.rowSteps % d == 0 && (plan.padTop * plan.outW) % d == 0 &&
        (plan.padBottom * plan.outW) % d == 0) {
      plan.blockDim = d;
      break;
    }
  if (plan.group * plan.pixelBytes / kF16Lanes > int64_t(soc.max_repeat))
    return "a group of packed pixels needs more vector repeats than an instruction has";
  return "";
}

std::optional<std::string> aippMismatch(func::FuncOp func) {
  auto aipp = soleOp<vg::AippOp>(func);
  if (!aipp)
    return std::nullopt;
  AippPlan plan;
  return analyze(aipp, dv::getSoc(func), plan);
}

/// Emits the kernel body: buffers, loops and the steps of each group.
class AippEmitter {
public:
  AippEmitter(OpBuilder &b, Location loc, vg::AippOp op, const AippPlan &plan,
              const soc::SocSpec &soc, Value gmImage, Value gmOut, Type outElem)
      : b(b), loc(loc), ctx(b.getContext()), op(op), plan(plan), soc(soc), gmImage(gmImage),
        gmOut(gmOut), u8(IntegerType::get(ctx, 8, IntegerType::Unsigned)), f16(b.getF16Type()),
        f32(b.getF32Type()), s32(b.getI32Type()), outElem(outElem) {}

  void emit();

private:
  // ---- Buffers, views and indices -----------------------------------------

  Value ub(int64_t elems, Type element) {
    return dv::AllocOp::create(
        b, loc, dv::BufType::get(ctx, dv::MemSpace::UB, {elems}, element, dv::Layout::ND),
        IntegerAttr());
  }
  /// `elems` elements of UB buffer `buf` from element `offset`.
  Value at(Value buf, int64_t offset, int64_t elems) {
    Type element = dv::getElementType(buf.getType());
    auto type = dv::BufType::get(ctx, dv::MemSpace::UB, {elems}, element, dv::Layout::ND);
    if (offset == 0 && dv::getBufferBytes(buf.getType()) == dv::getBufferBytes(type))
      return buf;
    return dv::ViewOp::create(b, loc, type, buf, ValueRange(),
                              AffineMapAttr::get(AffineMap::get(0, 0, b.getAffineConstantExpr(offset))))
        .getResult();
  }
  /// `elems` elements of GM argument `gm` from the affine element offset.
  Value gm(Value arg, Type element, AffineExpr offset, int64_t elems) {
    return dv::ViewOp::create(b, loc, dv::GmType::get(ctx, {elems}, element), arg, indices,
                              AffineMapAttr::get(AffineMap::get(indices.size(), 0, offset)))
        .getResult();
  }
  /// A new index (a loop's induction variable or block_idx) for views.
  AffineExpr index(Value value) {
    indices.push_back(value);
    return b.getAffineDimExpr(indices.size() - 1);
  }
  /// Opens a dv.loop of `trip` iterations (none for 1) and returns its
  /// index (0 for none); closeLoop() ends it.
  AffineExpr openLoop(int64_t trip) {
    if (trip <= 1) {
      loops.push_back(nullptr);
      return b.getAffineConstantExpr(0);
    }
    auto loop = dv::LoopOp::create(b, loc, trip);
    loops.push_back(loop);
    b.setInsertionPointToStart(&loop.getBody().front());
    return index(loop.getInductionVar());
  }
  void closeLoop() {
    if (dv::LoopOp loop = loops.pop_back_val()) {
      indices.pop_back();
      b.setInsertionPointAfter(loop);
    }
  }

  // ---- Vector steps ----------------------------------------------------------

  /// vconv of `elems` elements (whole repeats) from `src` to `dst`.
  void convert(Value src, Value dst, int64_t elems, dv::RoundMode round = dv::RoundMode::Rint) {
    unsigned from = dv::elementBytes(dv::getElementType(src.getType()));
    unsigned to = dv::elementBytes(dv::getElementType(dst.getType()));
    int64_t lanes = 256 / std::max(from, to);
    DenseI64ArrayAttr rep;
    if (from != to) // the narrow side advances by half (or a quarter) of 8 blocks
      rep = b.getDenseI64ArrayAttr({int64_t(8 * to / std::max(from, to)),
                                    int64_t(8 * from / std::max(from, to))});
    dv::VConvOp::create(b, loc, at(src, 0, elems), at(dst, 0, elems), round,
                        uint64_t(elems / lanes), DenseI64ArrayAttr(), rep, DenseI64ArrayAttr());
  }
  /// An f32 op with a scalar over `elems` elements: dst = src <op> scalar.
  template <typename OpTy>
  void scalarOp(Value src, float scalar, Value dst, int64_t elems) {
    OpTy::create(b, loc, at(src, 0, elems), b.getF32FloatAttr(scalar), at(dst, 0, elems),
                 uint64_t(elems / kF32Lanes), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                 DenseI64ArrayAttr());
  }
  /// Copies the 16 32-byte blocks `first`, `first + stride`, ... of `src`
  /// to `dst` contiguously (or, with `scatter`, the other way round).
  void gatherBlocks(Value src, int64_t srcOffset, Value dst, int64_t dstOffset, int64_t stride,
                    bool scatter = false) {
    int64_t spread = (kTileSide - 1) * stride * kTileSide + kTileSide;
    Value from = at(src, srcOffset, scatter ? kUnitPixels : spread);
    Value to = at(dst, dstOffset, scatter ? spread : kUnitPixels);
    uint64_t gap = uint64_t((stride - 1) * 32);
    dv::CopyOp::create(b, loc, from, to, uint64_t(kTileSide), uint64_t(32), scatter ? 0 : gap,
                       scatter ? gap : 0);
  }
  void transpose(Value src, Value dst, int64_t tiles) {
    dv::VTransposeOp::create(b, loc, at(src, 0, tiles * kUnitPixels),
                             at(dst, 0, tiles * kUnitPixels), b.getI64IntegerAttr(tiles));
  }
  /// 256 pixels of `c` packed f16 channels in `packed` -> `c` planes of 256
  /// in `planes` (`scratch` holds c tiles).
  void splitChannels(Value packed, int64_t c, Value scratch, Value planes) {
    for (int64_t k = 0; k < c; ++k) // tile k: blocks k, k + c, ...
      gatherBlocks(packed, k * kTileSide, scratch, k * kUnitPixels, c);
    transpose(scratch, planes, c);  // row 16 k + j holds channel (16 k + j) % c
    for (int64_t k = 0; k < c; ++k) // channel k's rows: k, k + c, ...
      gatherBlocks(planes, k * kTileSide, scratch, k * kUnitPixels, c);
    transpose(scratch, planes, c);
  }
  /// The 256 values of `plane` each twice (v0 v0 v1 v1 ...) into `doubled`:
  /// splitChannels' inverse on two copies of the plane.
  void doubleColumns(Value plane, Value scratch, Value scratch2, Value doubled) {
    transpose(plane, scratch, 1);
    for (int64_t k = 0; k < 2; ++k) // rows 2 q + k of the two-channel rows <- row q
      gatherBlocks(scratch, 0, scratch2, k * kTileSide, 2, /*scatter=*/true);
    transpose(scratch2, scratch, 2);
    for (int64_t k = 0; k < 2; ++k) // blocks 2 r + k of the doubled row <- tile k's row r
      gatherBlocks(scratch, k * kUnitPixels, doubled, k * kTileSide, 2, /*scatter=*/true);
  }

  // ---- The steps of a group ---------------------------------------------------

  /// The image element offset of (image, row, column) in packed pixels.
  AffineExpr imageOffset(AffineExpr image, AffineExpr row, AffineExpr column) {
    int64_t imageBytes = plan.yuv420 ? plan.imageH * 3 / 2 * plan.imageW
                                     : plan.imageH * plan.imageW * plan.pixelBytes;
    return image * imageBytes + (row * plan.imageW + column) * plan.pixelBytes;
  }
  /// Loads `pixels` packed pixels of image row `row` from column `column`
  /// and leaves them as f16 planes in `planes` (channel c at c * group).
  void loadPackedRow(AffineExpr image, AffineExpr row, AffineExpr column, int64_t pixels) {
    int64_t bytes = pixels * plan.pixelBytes;
    dv::CopyOp::create(b, loc, gm(gmImage, u8, imageOffset(image, row, column), bytes),
                       at(raw, 0, bytes), uint64_t(1), uint64_t(bytes));
    int64_t values = plan.group * plan.pixelBytes;
    if (plan.pixelBytes == 1) {
      convert(raw, planes, values);
      return;
    }
    convert(raw, packed, values);
    splitChannels(packed, plan.pixelBytes, scratch, planes);
  }
  /// YUV420SP: the UV row of image row pair `pair` -> U, V doubled to full
  /// width in planes 1 and 2.
  void loadChromaRow(AffineExpr image, AffineExpr pair, AffineExpr column, int64_t pixels) {
    AffineExpr offset = image * (plan.imageH * 3 / 2 * plan.imageW) + plan.imageH * plan.imageW +
                        (pair + plan.top / 2) * plan.imageW + column;
    dv::CopyOp::create(b, loc, gm(gmImage, u8, offset, pixels), at(raw, 0, pixels), uint64_t(1),
                       uint64_t(pixels));
    convert(raw, packed, plan.group); // group / 2 UV pairs
    splitChannels(packed, 2, scratch, chroma);
    for (int64_t c = 0; c < 2; ++c)
      doubleColumns(at(chroma, c * kUnitPixels, kUnitPixels), scratch, scratch2,
                    at(planes, (c + 1) * plan.group, plan.group));
  }
  /// The converted channels of the group in f32 (`x`, channel j at j *
  /// group), from the planes named by the op's `channels`; `only` picks
  /// one plane (YUV420SP's Y, after the chroma was converted once a pair).
  void widen(std::optional<int64_t> only = std::nullopt) {
    for (auto [j, source] : llvm::enumerate(op.getChannels()))
      if (!only || source == *only)
        convert(at(planes, source * plan.group, plan.group), at(x, j * plan.group, plan.group),
                plan.group);
  }
  /// Conversion, normalisation and the stores of output row `row` (of the
  /// crop), `pixels` from crop column `column`.
  void finishRow(AffineExpr image, AffineExpr row, AffineExpr column, int64_t pixels) {
    int64_t g = plan.group;
    std::optional<ArrayRef<int64_t>> matrix = op.getCscMatrix();
    ArrayRef<int64_t> inBias = op.getCscInputBias(), outBias = op.getCscOutputBias();
    for (int64_t c = 0; c < plan.outC; ++c) {
      Value zc = at(z, c * g, g);
      float shift = 0.0f - (op.getMean()[c] + op.getMin()[c]);
      if (matrix) {
        // y = clamp(floor((sum_j m_cj x_j - sum_j m_cj b_j) / 256) + ob_c, 0, 255)
        ArrayRef<int64_t> row3 = matrix->slice(3 * c, 3);
        bool first = true;
        for (int64_t j = 0; j < 3; ++j) {
          if (row3[j] == 0)
            continue;
          if (first)
            scalarOp<dv::VMulsOp>(at(x, j * g, g), float(row3[j]), zc, g);
          else
            scalarOp<dv::VAxpyOp>(at(x, j * g, g), float(row3[j]), zc, g);
          first = false;
        }
        if (first)
          dv::VDupOp::create(b, loc, b.getF32FloatAttr(0.0f), zc, uint64_t(g / kF32Lanes),
                             DenseI64ArrayAttr(), DenseI64ArrayAttr(), DenseI64ArrayAttr());
        int64_t bias = row3[0] * inBias[0] + row3[1] * inBias[1] + row3[2] * inBias[2];
        if (bias)
          scalarOp<dv::VAddsOp>(zc, float(-bias), zc, g);
        scalarOp<dv::VMulsOp>(zc, 1.0f / 256, zc, g);
        convert(zc, floors, g, dv::RoundMode::Floor);
        convert(floors, zc, g);
        if (outBias[c])
          scalarOp<dv::VAddsOp>(zc, float(outBias[c]), zc, g);
        scalarOp<dv::VMaxsOp>(zc, 0.0f, zc, g);
        scalarOp<dv::VMinsOp>(zc, 255.0f, zc, g);
        if (shift != 0)
          scalarOp<dv::VAddsOp>(zc, shift, zc, g);
      } else if (shift != 0) {
        // Without conversion x stays (a YUV420SP pair's chroma serves two rows).
        scalarOp<dv::VAddsOp>(at(x, c * g, g), shift, zc, g);
      } else {
        zc = at(x, c * g, g);
      }
      if (float scale = op.getVarReci()[c]; scale != 1.0f) {
        Value scaled = at(z, c * g, g);
        scalarOp<dv::VMulsOp>(zc, scale, scaled, g);
        zc = scaled;
      }
      Value result = zc;
      if (!outElem.isF32()) {
        result = at(o, c * g, g);
        convert(zc, result, g);
      }
      unsigned bytes = dv::elementBytes(outElem);
      AffineExpr dst = outputRow(image, c, row + plan.padTop) + plan.padLeft + column;
      dv::CopyOp::create(b, loc, at(result, 0, pixels), gm(gmOut, outElem, dst, pixels),
                         uint64_t(1), uint64_t(pixels * bytes));
    }
  }
  /// The element offset of output row `row` (of the padded output) of
  /// channel `c`.
  AffineExpr outputRow(AffineExpr image, int64_t c, AffineExpr row) {
    return ((image * plan.outC + c) * plan.outH + row) * plan.outW;
  }
  /// Stores `elems` padding values from `start`.
  void storePadding(AffineExpr start, int64_t elems) {
    unsigned bytes = dv::elementBytes(outElem);
    int64_t chunk = std::min(elems, fillElems);
    int64_t full = elems / chunk, tail = elems % chunk;
    AffineExpr step = openLoop(full);
    dv::CopyOp::create(b, loc, at(fill, 0, chunk), gm(gmOut, outElem, start + step * chunk, chunk),
                       uint64_t(1), uint64_t(chunk * bytes));
    closeLoop();
    if (tail)
      dv::CopyOp::create(b, loc, at(fill, 0, tail),
                         gm(gmOut, outElem, start + full * chunk, tail), uint64_t(1),
                         uint64_t(tail * bytes));
  }
  /// The crop row `row`'s groups: `eachGroup(column, pixels)` for the full
  /// groups (a loop) and the partial last one.
  template <typename Body>
  void forEachGroup(Body eachGroup) {
    int64_t full = plan.cropW / plan.group, tail = plan.cropW % plan.group;
    if (full) {
      AffineExpr g = openLoop(full);
      eachGroup(g * plan.group, plan.group);
      closeLoop();
    }
    if (tail)
      eachGroup(b.getAffineConstantExpr(full * plan.group), tail);
  }

  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  vg::AippOp op;
  const AippPlan &plan;
  const soc::SocSpec &soc;
  Value gmImage, gmOut;
  Type u8, f16, f32, s32, outElem;
  SmallVector<Value> indices;
  SmallVector<dv::LoopOp> loops;
  Value raw, packed, scratch, scratch2, planes, chroma, x, z, floors, o, fill;
  int64_t fillElems = 0;
};

void AippEmitter::emit() {
  int64_t g = plan.group, channels = plan.pixelBytes;
  raw = ub(g * channels, u8);
  packed = ub(g * channels, f16);
  scratch = ub(std::max<int64_t>(channels, 2) * kUnitPixels, f16);
  planes = ub((plan.yuv420 ? 3 : channels) * g, f16);
  if (plan.yuv420) {
    scratch2 = ub(2 * kUnitPixels, f16);
    chroma = ub(2 * kUnitPixels, f16);
  }
  x = ub(int64_t(op.getChannels().size()) * g, f32);
  z = ub(plan.outC * g, f32);
  if (op.getCscMatrix())
    floors = ub(g, s32);
  if (!outElem.isF32())
    o = ub(plan.outC * g, outElem);

  // The padding tile, and this block's share of the top and bottom rows.
  int64_t topShare = plan.padTop * plan.outW / plan.blockDim;
  int64_t bottomShare = plan.padBottom * plan.outW / plan.blockDim;
  int64_t widest = std::max({topShare, bottomShare, plan.padLeft, plan.padRight});
  if (widest > 0) {
    int64_t lanes = 256 / dv::elementBytes(outElem);
    fillElems = std::min(kFillElems, roundUp(widest, lanes));
    fill = ub(fillElems, outElem);
    dv::VDupOp::create(b, loc, b.getF32FloatAttr(op.getPaddingValue().convertToFloat()), fill,
                       uint64_t(fillElems / lanes), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                       DenseI64ArrayAttr());
  }

  AffineExpr block = b.getAffineConstantExpr(0);
  if (plan.blockDim > 1)
    block = index(dv::BlockIdxOp::create(b, loc, b.getIndexType()).getResult());
  int64_t stepsPerBlock = plan.rowSteps / plan.blockDim;

  AffineExpr image = openLoop(plan.batch);
  for (int64_t c = 0; c < plan.outC; ++c) {
    if (topShare)
      storePadding(outputRow(image, c, b.getAffineConstantExpr(0)) + block * topShare, topShare);
    if (bottomShare)
      storePadding(outputRow(image, c, b.getAffineConstantExpr(plan.padTop + plan.cropH)) +
                       block * bottomShare,
                   bottomShare);
  }
  AffineExpr step = block * stepsPerBlock + openLoop(stepsPerBlock);
  SmallVector<AffineExpr, 2> rows;
  if (plan.yuv420)
    rows = {step * 2, step * 2 + 1};
  else
    rows = {step};
  forEachGroup([&](AffineExpr column, int64_t pixels) {
    if (plan.yuv420) {
      loadChromaRow(image, step, column + plan.left, pixels);
      widen(/*only=*/1);
      widen(/*only=*/2);
    }
    for (AffineExpr row : rows) {
      loadPackedRow(image, row + plan.top, column + plan.left, pixels);
      widen(plan.yuv420 ? std::optional<int64_t>(0) : std::nullopt);
      finishRow(image, row, column, pixels);
    }
  });
  for (AffineExpr row : rows)
    for (int64_t c = 0; c < plan.outC; ++c) {
      AffineExpr start = outputRow(image, c, row + plan.padTop);
      if (plan.padLeft)
        storePadding(start, plan.padLeft);
      if (plan.padRight)
        storePadding(start + plan.padLeft + plan.cropW, plan.padRight);
    }
  closeLoop(); // rows
  closeLoop(); // images
}

LogicalResult lowerAipp(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  auto aipp = soleOp<vg::AippOp>(func);
  AippPlan plan;
  if (std::string why = analyze(aipp, soc, plan); !why.empty())
    return func.emitError() << "kernel " << func.getSymName() << ": " << why;
  GmSignature signature = gmSignature(call);
  Type outElem = signature.elements.back();
  if (!outElem.isF16() && !outElem.isF32())
    return func.emitError() << "kernel " << func.getSymName() << ": AIPP into " << outElem
                            << " has no lowering template yet (f16 or f32)";
  OpBuilder b(func.getContext());
  Block *entry = beginKernel(b, func, signature.types, plan.blockDim, "vector");
  AippEmitter(b, func.getLoc(), aipp, plan, soc, entry->getArgument(0),
              entry->getArgument(entry->getNumArguments() - 1), outElem)
      .emit();
  b.setInsertionPointToEnd(entry);
  return finishKernel(entry, func, call);
}

} // namespace

const KernelTemplate kAippTemplate = {"aipp", aippMismatch, lowerAipp};

} // namespace vinci::lower
