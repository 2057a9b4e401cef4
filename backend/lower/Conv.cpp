//===- Conv.cpp - the Cube convolution template ----------------------------===//
//
//  - conv (Cube): a cube kernel anchored by a 2-D vg.conv that KernelRules'
//    convCubeTemplateMismatch accepts (one group, a constant weight and
//    bias, f16 storage), followed by the epilogue chain the partition fused
//    (Epilogue.h: unary and scalar steps, and a residual tensor of the
//    output's shape). img2col happens on chip: the feature map goes GM ->
//    L1 as NC1HWC0 planes, `load_3d` builds each A tile in L0A, the weight
//    (FRACTAL_Z, packed by the .om writer) goes to L0B, and mmad accumulates
//    over K = (C1, kh, kw, C0) in L0C, whose [OC1][positions][16] result is
//    NC1HWC0 already.
//
// Layout in GM: the input is NCHW (f32 graph input or f16, converted on
// the way into L1 by copy_nchw2nc1hwc0, f32 through UB and vconv) or
// NC1HWC0 f16 [N, C1, H, W, 16] (one burst a plane); the output NCHW (a
// vtranspose of each 16 x 16 block and copy_nz2nd) or NC1HWC0 f16 (one
// burst a channel block). Which one a tensor has is vinci-assign-layouts'
// decision (kLayoutAttr on the call).
//
// Bias on the Cube: every output tile starts with one mmad (init) of a
// "ones" A tile (column 0 of each fractal 1, built once in UB) by a B
// fractal row holding the bias (the bias vector transposed into column 0 of
// a 16 x 16 block), so L0C starts at the bias and every K step
// accumulates; without a bias the B row is zero. The epilogue then has no
// bias work: ReLU rides on move_l0c_ub (f32 -> f16), other steps run on
// the f32 tile in UB (FlatTileEmitter), the residual is loaded in the
// output's layout and added in f32.
//
// Tiling: M tiles are whole output rows (rows_t x Wo positions, padded to
// 16), so every tile's windows start at a row's first window and load_3d's
// parameters are the same for every tile: the tile's first input row is
// an address shift of rows_t x stride_h rows. The feature map comes in
// bands of whole tiles: a band's input rows of all planes in one L1 buffer
// of buf_rows rows a plane (two buffers, alternating between bands, so the
// next band loads while this one computes); the top and bottom pads are
// zero rows written into the buffer (UB -> L1) for the bands that reach
// them, the left and right pads are load_3d's. K steps are kf fractals of
// the (plane, tap) sequence, kf a multiple or a divisor of kh x kw, so a
// K step starts at a plane boundary or at a fixed tap of each plane and
// its load_3ds have constant parameters: one per 16 positions (repeat mode
// taps) or, when the step has fewer fractals than the tile has fractal
// rows, one per fractal of K (repeat mode positions), as every load_3d
// pays MTE1's start-up; L0A and L0B alternate between two buffers from one
// K step to the next. The weight slice of a block stays in L1 when it fits
// beside the band buffers (else each K step's B tile goes GM -> L0B
// directly).
// Every tiling's buffers are sized by KernelRules' convCubeTilingMismatch,
// the function the partition's rule asks of the smallest tiling (one
// output row a tile and a band, one channel fractal, one K fractal), so a
// conv the rule takes always finds one: the planner ranks M tiles of one
// output row to about 512 positions (the larger ones pay where positions
// mode loads them, the smaller ones where they let rows split over blocks
// as well as channels), and when not
// even one row's input rows of all channels fit, splits each band over
// channel parts (one M tile a band, the parts loaded one after another,
// L0C holding every channel tile's accumulator over them). Runs
// of bands, tiles and K steps with the same shape are dv.loops (the
// first, last and partial ones are static), so the kernel's size does not
// grow with the tensor.
//
// A 3x3 stride-2 max pool of the result (ResNet's stem, batch 2 or more)
// is the epilogue's last step: each tile of whole rows is pooled in UB
// (poolTile), its last row carried to the next tile.
//
// Row stacking: a conv of few input channels over a tall window (an RGB
// stem) would fill few of each K fractal's columns; its NCHW input rows go
// through UB into a map whose lanes are (channel, window row), so that the
// conv over the map has kh = 1 (stackedRows, stageInputRows, buildMapRows).
//
// The plan (tiles, K steps and parts, bands, the block split, fed tiles)
// is ConvPlan.cpp's.
//
//===----------------------------------------------------------------------===//
#include "backend/lower/ConvCommon.h"
#include "backend/lower/ConvPlan.h"
#include "backend/lower/Epilogue.h"
#include "backend/lower/LowerCommon.h"
#include "backend/lower/TileBuilder.h"
#include "passes/KernelRules.h"
#include "passes/Precision.h"
#include "passes/graph/ConstantData.h"

#include "dv/DvOps.h"
#include "vg/VgOps.h"
#include "vinci/soc.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

#include <functional>
#include <numeric>

using namespace mlir;

namespace vinci::lower {
namespace {

using namespace conv;

constexpr int64_t kC0 = 16;
constexpr int64_t kFractalElems = 256;

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//


/// Bytes of an element of `value`'s storage in GM.
int64_t storageBytes(Value value) {
  return int64_t(storageElementType(value).getIntOrFloatBitWidth() / 8);
}

/// No f32 tile: no epilogue, or a ReLU alone (move_l0c_ub applies it).
bool fastEpilogue(ArrayRef<EpilogueStep> epilogue) {
  return epilogue.empty() || (epilogue.size() == 1 && epilogue[0].kind == EpilogueStep::Unary &&
                              epilogue[0].op == EpilogueStep::Relu);
}

/// Why the conv template cannot lower `func` ("": it can). `call` is the
/// kernel's launch (null when unknown: the weight is then assumed constant).
std::string analyzeConv(func::FuncOp func, func::CallOp call, ConvInfo &info) {
  Block &body = func.getBody().front();
  vg::ConvOp conv;
  for (Operation &op : body) {
    if (isConstantOp(&op))
      continue;
    conv = dyn_cast<vg::ConvOp>(op);
    break;
  }
  if (!conv)
    return "the Cube conv template needs a kernel that starts with a vg.conv";
  auto argOf = [&](Value v) -> int {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner() == &body ? int(arg.getArgNumber()) : -2;
    return v.getDefiningOp<vg::ConstantOp>() ? -1 : -2; // -1: hoisted to an argument later
  };
  auto constantOperand = [&](Value v) {
    int arg = argOf(v);
    if (arg == -1)
      return true;
    return arg >= 0 && (!call || call.getOperand(arg).getDefiningOp<vg::ConstantOp>());
  };
  Value bias = conv.getBias();
  // Storage as the graph holds it (an argument's call operand), f32 when unknown.
  auto storageF32 = [&](Value v) {
    int arg = argOf(v);
    return call && arg >= 0 ? storageElementType(call.getOperand(arg)).isF32()
                            : cast<RankedTensorType>(v.getType()).getElementType().isF32();
  };
  Builder types(func.getContext());
  Type inputStorage = storageF32(conv.getInput()) ? types.getF32Type() : types.getF16Type();
  info.tensors = convCubeAloneTensors(inputStorage);
  if (std::string why = convCubeTemplateMismatch(conv, constantOperand(conv.getWeight()),
                                                 !bias || constantOperand(bias), info.tensors);
      !why.empty())
    return why;
  if (argOf(conv.getInput()) < 0)
    return "the conv's input must be a kernel argument";
  info.g = *convGeometry(conv);
  info.xArg = unsigned(argOf(conv.getInput()));
  info.wArg = unsigned(std::max(0, argOf(conv.getWeight())));
  info.biasArg = bias ? std::max(0, argOf(bias)) : -1;
  info.c1 = (info.g.c + kC0 - 1) / kC0;
  info.oc1 = (info.g.oc + kC0 - 1) / kC0;
  info.taps = info.g.kh * info.g.kw;

  Value current = conv.getResult();
  ArrayRef<int64_t> outShape = conv.getType().getShape();
  for (Operation &op : body) {
    if (&op == conv.getOperation() || isConstantOp(&op))
      continue;
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (ret.getNumOperands() != 1 || ret.getOperand(0) != current)
        return "a conv kernel must return the end of its epilogue chain (one result)";
      continue;
    }
    if (isa<vg::MaxPoolOp>(op)) {
      // The pool ends the chain (the partition joins nothing after it).
      if (op.getOperand(0) != current || !cubeEpilogueTakesPool(&op))
        return "only a 3x3 stride-2 max pool of the conv's result, batch 2 or more, has a conv "
               "epilogue";
      info.tensors.maxPool = true;
      current = op.getResult(0);
      continue;
    }
    if (info.tensors.maxPool)
      return (opName(&op) + " after the fused max pool has no conv epilogue").str();
    EpilogueStep step;
    if (std::string why = classifyEpilogueStep(&op, current, outShape, step); !why.empty())
      return why;
    if (step.kind == EpilogueStep::Row || step.kind == EpilogueStep::Elem)
      return opName(&op).str() + " broadcasting over the output's last axis has no conv epilogue";
    if (step.op == EpilogueStep::Gelu)
      return "gelu has no conv epilogue yet";
    Type element = cast<RankedTensorType>(op.getResult(0).getType()).getElementType();
    if (!element.isF16() && !element.isF32())
      return (opName(&op) + " to a non-float type has no conv epilogue").str();
    if (step.kind == EpilogueStep::Full) {
      int arg = argOf(step.other);
      if (arg < 0)
        return (opName(&op) + " of a value computed inside the kernel has no conv epilogue").str();
      step.arg = unsigned(arg);
    }
    info.epilogue.push_back(step);
    current = op.getResult(0);
  }
  // The epilogue's tiles must fit too: a step that does not stays out of
  // the kernel (the partition asks before it absorbs one).
  info.tensors.f32Tile = !fastEpilogue(info.epilogue);
  for (const EpilogueStep &e : info.epilogue)
    if (e.kind == EpilogueStep::Full)
      info.tensors.residualBytes = call ? storageBytes(call.getOperand(e.arg)) : 4;
  if (call && call.getNumResults() == 1)
    info.tensors.f32Output = storageElementType(call.getResult(0)).isF32();
  if (std::string why = convCubeFitMismatch(info.g, info.tensors); !why.empty())
    return "with its epilogue, " + why;
  return {};
}

std::optional<std::string> convTemplateMismatch(func::FuncOp func) {
  auto kind = func->getAttrOfType<StringAttr>("vinci.kernel");
  if (!kind || kind.getValue() != "cube")
    return std::nullopt;
  bool hasConv = false;
  func.walk([&](vg::ConvOp) { hasConv = true; });
  if (!hasConv)
    return std::nullopt;
  ConvInfo info;
  return analyzeConv(func, soleCall(func), info);
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

/// Channel planes [first, first + count) of the input, loaded into the
/// band buffer from its plane `into`.
struct PlaneRange {
  int64_t first, count, into;
};

class ConvEmitter {
public:
  ConvEmitter(OpBuilder &b, Location loc, const ConvInfo &info, const ConvPlan &plan,
              ArrayRef<Value> gm, unsigned outArg, ArrayRef<ActLayout> layouts,
              ActLayout yLayout, const soc::SocSpec &soc)
      : t(b, loc), b(b), loc(loc), info(info), g(info.g), plan(plan), gm(gm), outArg(outArg),
        layouts(layouts), xLayout(layouts[info.xArg]), yLayout(yLayout), soc(soc),
        flat(b, loc, soc.max_repeat), f16(b.getF16Type()), f32(b.getF32Type()) {}

  void emit() {
    if (plan.blockDim > 1)
      bid = dv::BlockIdxOp::create(b, loc, b.getIndexType()).getResult();
    allocate();
    prologue();
    if (plan.bandPlanes) {
      if (plan.panelResident)
        for (auto part : kParts())
          loadPanelPart(part);
      t.loop(plan.images, false, [&](Affine image) { emitPlaneSplitBands(blockImage() + image); });
      return;
    }
    if (!plan.panelResident) {
      t.loop(plan.images, false, [&](Affine image) { emitBands(blockImage() + image); });
      return;
    }
    if (plan.accumulators > 1) {
      emitFedBlock();
      return;
    }
    // MTE2 runs its transfers in order and the first tile's K steps need
    // the first band and only the panel's first K part: that part first
    // (nothing holds it back), then the band (which waits for its pad
    // rows), then the other parts. Each K part reads its own planes of the
    // band (K = (c1, kh, kw, c0)), so the first band loads part by part
    // too. The later parts are issued one part ahead of the first tile's
    // K steps (PartFeed), not all before them: the Scalar unit stalls on a
    // full MTE2 queue, and the Cube would wait for the issue of all.
    const Band &first = plan.bands.front();
    feed = PartFeed{blockImage(), BandAt{&first, bandRow(first.outRow0, first), 0}};
    loadKPart(0);
    bool feedFirstTile = kParts().size() > 1;
    if (!feedFirstTile)
      feed.reset();
    if (plan.images > 1 && plan.bands.size() == 1) {
      emitOneBandImages(feedFirstTile);
      return;
    }
    emitBands(blockImage(), /*firstLoaded=*/true, feedFirstTile);
    t.loop(plan.images - 1, false,
           [&](Affine image) { emitBands(blockImage() + image + Affine(1)); });
  }

private:
  // The block's first image and first channel fractal (a 2-D grid when
  // both are split: channel part = block_idx mod ocParts).
  Affine blockImage() {
    if (plan.batchParts == 1)
      return Affine();
    return plan.ocParts == 1 ? Affine::of(bid, plan.images)
                             : Affine::floorDiv(bid, plan.ocParts, plan.images);
  }
  Affine blockChannelFractal() {
    if (plan.ocParts == 1)
      return Affine();
    return plan.batchParts == 1 && plan.rowParts == 1 ? Affine::of(bid, plan.ocn)
                                                       : Affine::mod(bid, plan.ocParts, plan.ocn);
  }

  int64_t mp(int64_t rows) const { return mpOf(rows, g.ow); }
  int64_t planeElems() const { return plan.bufRows * g.w * kC0; }
  int64_t positions() const { return g.oh * g.ow; }
  /// Channel planes a band buffer holds.
  int64_t bandPlanes() const { return plan.bandPlanes ? plan.bandPlanes : info.c1; }

  void allocate() {
    int64_t mpFull = mp(plan.rowsT), m1 = mpFull / 16;
    int64_t bandElems = (plan.bufRows * bandPlanes() + plan.slackRows) * g.w * kC0;
    for (Value &buf : band)
      buf = t.alloc(dv::MemSpace::L1, bandElems, f16);
    if (plan.panelResident)
      panel = t.alloc(dv::MemSpace::L1, info.c1 * info.taps * plan.ocn * kFractalElems, f16);
    l1Ones = t.alloc(dv::MemSpace::L1, m1 * kFractalElems, f16);
    l1Bias = t.alloc(dv::MemSpace::L1, plan.ocn * kFractalElems, f16);
    for (Value &buf : l0a)
      buf = t.alloc(dv::MemSpace::L0A, mpFull * plan.kf * kC0, f16);
    for (Value &buf : l0b)
      buf = t.alloc(dv::MemSpace::L0B, plan.kf * plan.nt * kFractalElems, f16);
    l0Ones = t.alloc(dv::MemSpace::L0A, m1 * kFractalElems, f16);
    l0Bias = t.alloc(dv::MemSpace::L0B, plan.nt * kFractalElems, f16);
    // A plane split keeps every channel tile's accumulator over the parts.
    l0c = t.alloc(dv::MemSpace::L0C,
                  plan.accumulators * (plan.bandPlanes ? plan.ocn : plan.nt) * mpFull * kC0, f32);
    int64_t tileElems = plan.nt * mpFull * kC0;
    // The fused pool reads whole repeats past the tile (poolTile).
    uOut = t.alloc(dv::MemSpace::UB, tileElems + (info.tensors.maxPool ? 512 : 0), f16);
    if (info.tensors.maxPool) {
      int64_t half = g.ow / 2;
      int64_t rowsElems = plan.nt * plan.rowsT * half * kC0;
      int64_t pooledElems = plan.nt * roundUp(plan.rowsT / 2 * half, kC0) * kC0;
      uPoolRows = t.alloc(dv::MemSpace::UB, roundUp(rowsElems, 128) + 256, f16);
      uPooled = t.alloc(dv::MemSpace::UB, roundUp(pooledElems, 128) + 256, f16);
      uPoolCarry = t.alloc(dv::MemSpace::UB, roundUp(plan.ocn * roundUp(half, 8) * kC0, 128), f16);
    }
    if (!fastEpilogue())
      uAcc = t.alloc(dv::MemSpace::UB, tileElems, f32);
    for (const EpilogueStep &e : info.epilogue)
      if (e.kind == EpilogueStep::Full && !uRes) {
        uRes = t.alloc(dv::MemSpace::UB, tileElems, f32);
        uResRaw = t.alloc(dv::MemSpace::UB, tileElems, dv::getElementType(gm[e.arg].getType()));
      }
    if (yLayout == ActLayout::NCHW) {
      uT = t.alloc(dv::MemSpace::UB, tileElems, f16);
      if (dv::getElementType(gm[outArg].getType()).isF32())
        uT32 = t.alloc(dv::MemSpace::UB, tileElems, f32);
    }
    // The staging convCubeTilingMismatch counts.
    if (plan.zeroRows) {
      zeroChunk = convCubeZeroChunkElems(g, plan.tiling());
      uZeros = t.alloc(dv::MemSpace::UB, roundUp(zeroChunk, 128), f16);
    }
    if (stacked()) {
      // The staging convCubeTilingMismatch counts, and a repeat of slack
      // for the zero rows' vdup.
      const ConvGeometry &from = *info.tensors.stackedFrom;
      stagingWidth = roundUp(from.w, kC0);
      stagingRows = convCubeStackedStagingRows(from, plan.bufRows);
      int64_t elems = convCubeStackedStagingElems(from, plan.bufRows);
      uStage16 = t.alloc(dv::MemSpace::UB, elems, f16);
      if (xStorage().isF32())
        uStage32 = t.alloc(dv::MemSpace::UB, elems, f32);
      // Tiles of the kinds of planes there are (full, partial).
      for (int partial = 0; partial < 2; ++partial)
        if (partial ? from.c % info.stackChannels : from.c >= info.stackChannels)
          for (Value &buf : uRowTiles[partial])
            buf = t.alloc(dv::MemSpace::UB, convCubeStackedRowTileElems(from), f16);
      for (Value &buf : uMapRow)
        buf = t.alloc(dv::MemSpace::UB, stagingWidth * kC0, f16);
    } else if (xStorage().isF32()) {
      chunkPixels = convCubeInputChunkPixels(g, plan.tiling());
      for (int i = 0; i < 2; ++i) {
        uIn32[i] = t.alloc(dv::MemSpace::UB, roundUp(chunkPixels * kC0, 64), f32);
        uIn16[i] = t.alloc(dv::MemSpace::UB, roundUp(chunkPixels * kC0, 64), f16);
      }
    }
  }

  Type xStorage() const { return dv::getElementType(gm[info.xArg].getType()); }
  bool stacked() const { return info.stackChannels > 0; }

  bool fastEpilogue() const { return vinci::lower::fastEpilogue(info.epilogue); }

  DenseI64ArrayAttr none() { return DenseI64ArrayAttr(); }

  void vdup(Value buf, int64_t elems, double value, DenseI64ArrayAttr mask = {}) {
    Type element = dv::getElementType(buf.getType());
    int64_t lanes = 256 / dv::elementBytes(element);
    TileBuilder::chunks(elems, lanes, soc.max_repeat, [&](int64_t off, int64_t n) {
      dv::VDupOp::create(b, loc, b.getF32FloatAttr(float(value)), t.view(buf, off, n * lanes),
                         t.i64(n), none(), none(), mask);
    });
  }

  void convert(Value src, Value dst, int64_t elems) { t.convert(src, dst, elems, soc.max_repeat); }

  void copy(Value src, Value dst, int64_t bursts, int64_t burstBytes, int64_t srcGap = 0,
            int64_t dstGap = 0) {
    dv::CopyOp::create(b, loc, src, dst, uint64_t(bursts), uint64_t(burstBytes), uint64_t(srcGap),
                       uint64_t(dstGap));
  }

  /// Once per block: the ones tile, the bias row, the zero rows, the weight
  /// slice.
  void prologue() {
    int64_t m1 = mp(plan.rowsT) / 16;
    // Ones: column 0 of each 16 x 16 fractal (lanes 0, 16, .. of a repeat).
    Value uOnes = t.alloc(dv::MemSpace::UB, m1 * kFractalElems, f16);
    vdup(uOnes, m1 * kFractalElems, 0.0);
    int64_t column0 = 0x0001000100010001LL;
    vdup(uOnes, m1 * kFractalElems, 1.0, b.getDenseI64ArrayAttr({column0, column0}));
    copy(uOnes, l1Ones, 1, m1 * 512);
    copy(l1Ones, l0Ones, 1, m1 * 512);

    // The bias as row 0 of a block per channel fractal, transposed into
    // column 0, kConvCubeBiasChunkFractals fractals at a time.
    int64_t chunk = std::min(plan.ocn, kConvCubeBiasChunkFractals);
    Value uRow = t.alloc(dv::MemSpace::UB, roundUp(chunk * kC0, 128), f16);
    Value uBlocks = t.alloc(dv::MemSpace::UB, chunk * kFractalElems, f16);
    Value uBiasT = t.alloc(dv::MemSpace::UB, chunk * kFractalElems, f16);
    Value u32;
    if (info.biasArg >= 0 && dv::getElementType(gm[info.biasArg].getType()).isF32())
      u32 = t.alloc(dv::MemSpace::UB, roundUp(chunk * kC0, 64), f32);
    for (int64_t j0 = 0; j0 < plan.ocn; j0 += chunk) {
      int64_t fractals = std::min(chunk, plan.ocn - j0);
      vdup(uRow, roundUp(fractals * kC0, 128), 0.0);
      if (info.biasArg >= 0) {
        Value bias = gm[info.biasArg];
        // With several channel parts every fractal is whole (planConv).
        int64_t count = std::min(fractals * kC0, g.oc - j0 * kC0);
        Affine first = (blockChannelFractal() + Affine(j0)) * kC0;
        if (!u32) {
          copy(t.view(bias, first, count), t.view(uRow, 0, count), 1, count * 2);
        } else {
          vdup(u32, roundUp(fractals * kC0, 64), 0.0);
          copy(t.view(bias, first, count), t.view(u32, 0, count), 1, count * 4);
          convert(u32, uRow, roundUp(fractals * kC0, 64));
        }
      }
      vdup(uBlocks, fractals * kFractalElems, 0.0);
      copy(t.view(uRow, 0, fractals * kC0), t.view(uBlocks, 0, fractals * kFractalElems), fractals,
           32, 0, 480);
      dv::VTransposeOp::create(b, loc, t.view(uBlocks, 0, fractals * kFractalElems),
                               t.view(uBiasT, 0, fractals * kFractalElems), t.i64(fractals));
      copy(t.view(uBiasT, 0, fractals * kFractalElems),
           t.view(l1Bias, j0 * kFractalElems, fractals * kFractalElems), 1, fractals * 512);
    }
    if (oneChannelTile())
      copy(t.view(l1Bias, 0, plan.nt * kFractalElems), l0Bias, 1, plan.nt * 512);

    if (uZeros)
      vdup(uZeros, cast<dv::BufType>(uZeros.getType()).getNumElements(), 0.0);
    // The lanes no input row lands in stay zero (the weight's are zero too,
    // but a stale value times zero could be a NaN).
    if (stacked())
      for (auto &pair : uRowTiles)
        for (Value buf : pair)
          if (buf)
            vdup(buf, convCubeStackedRowTileElems(*info.tensors.stackedFrom), 0.0);
  }

  /// The first band's K parts fed to the first tile (emit): the band, the
  /// planes loaded so far, and the next band's load, issued after the last
  /// part's.
  struct PartFeed {
    Affine image;
    BandAt band;
    int64_t loadedPlanes = 0;
    llvm::function_ref<void()> loadNextBand = nullptr;
  };
  std::optional<PartFeed> feed;

  /// K part `part` of the weight panel and the first band's planes it
  /// reads that are not loaded yet.
  void loadKPart(size_t part) {
    auto [r0, r1] = kParts()[part];
    int64_t p1 = (r1 + info.taps - 1) / info.taps;
    loadPanelPart({r0, r1});
    if (p1 > feed->loadedPlanes)
      loadBand(feed->image, feed->band,
               {feed->loadedPlanes, p1 - feed->loadedPlanes, feed->loadedPlanes});
    feed->loadedPlanes = std::max(feed->loadedPlanes, p1);
  }

  /// K part [r0, r1) of the block's weight panel into L1: [K1][ocn]
  /// fractals of its channels, one copy per K part, so that the first
  /// tile's K steps start once their part has arrived.
  void loadPanelPart(std::pair<int64_t, int64_t> part) {
    auto [r0, r1] = part;
    copy(t.view(gm[info.wArg], (Affine(r0 * info.oc1) + blockChannelFractal()) * kFractalElems,
                ((r1 - r0 - 1) * info.oc1 + plan.ocn) * kFractalElems),
         t.view(panel, Affine(r0 * plan.ocn * kFractalElems), (r1 - r0) * plan.ocn * kFractalElems),
         r1 - r0, plan.ocn * 512, (info.oc1 - plan.ocn) * 512, 0);
  }

  int64_t period() const { return kPeriod(plan.kf, info.taps); }
  SmallVector<std::pair<int64_t, int64_t>> kParts() const { return kPartsOf(info, plan); }

  /// A tile of output channels: `nt` fractals from fractal `first` of the
  /// tensor (`local` within the block), `channels` of them real.
  struct ChannelTile {
    Affine first, local;
    int64_t nt, channels;
  };
  /// The block's channel tiles as runs: a loop over the tiles of nt whole
  /// fractals (all channels real), then static ones (a narrower last tile,
  /// or one whose last channels are padding).
  struct ChannelRun {
    int64_t count, start, nt, channels;
  };
  bool oneChannelTile() const {
    SmallVector<ChannelRun> runs = channelTiles();
    return runs.size() == 1 && runs[0].count == 1;
  }
  SmallVector<ChannelRun> channelTiles() const {
    int64_t full = plan.ocn / plan.nt, tail = plan.ocn % plan.nt;
    // With one channel part the block holds every channel, the last ones
    // perhaps padding; with several, g.oc % 16 == 0 (planConv).
    int64_t lastChannels = g.oc - (info.oc1 - 1) * kC0; // real channels of the last fractal
    SmallVector<ChannelRun> runs;
    bool partialLast = plan.ocParts == 1 && lastChannels != kC0;
    int64_t looped = full - (partialLast && tail == 0 ? 1 : 0);
    if (looped > 0)
      runs.push_back({looped, 0, plan.nt, plan.nt * kC0});
    if (looped < full) {
      int64_t start = looped * plan.nt;
      runs.push_back({1, start, plan.nt, (plan.nt - 1) * kC0 + lastChannels});
    }
    if (tail) {
      int64_t start = full * plan.nt;
      runs.push_back({1, start, tail, partialLast ? (tail - 1) * kC0 + lastChannels : tail * kC0});
    }
    return runs;
  }


  /// The row split (planRowSplit) the plan made, if any.
  RowSplit rowSplit() const {
    RowSplit split;
    split.parts = plan.rowParts;
    split.rows = g.oh / plan.rowParts;
    split.topRows = plan.topRows;
    split.marginTop = plan.marginTop;
    split.channelParts = plan.ocParts;
    return split;
  }

  /// A block of several images of one band each (the 14 x 14 and 7 x 7
  /// maps at batch > 1): image i in band buffer i mod 2, loaded during
  /// image i - 1's tiles. Image by image, each band loaded only once the
  /// previous image's tiles were issued, and MTE2 ran in series with the
  /// Cube (a 7 x 7 x 512 conv: 3 us of every image's 15). Image 0's band
  /// is loaded already (emit: with the first K part); with
  /// `feedFirstTile` its first tile takes the pending K parts and image
  /// 1's load comes after them (feed).
  void emitOneBandImages(bool feedFirstTile) {
    const Band &bd = plan.bands.front();
    auto bandIn = [&](int64_t which) { return BandAt{&bd, bandRow(bd.outRow0, bd), which}; };
    Affine n0 = blockImage();
    auto loadImage = [&](const Affine &n, int64_t which) { loadBandAhead(n, bandIn(which)); };
    auto loadSecond = [&] { loadImage(n0 + Affine(1), 1); };
    if (feedFirstTile)
      feed->loadNextBand = loadSecond; // function_ref: loadSecond outlives the feed
    else
      loadSecond();
    resetPoolCarry();
    computeBand(n0, bandIn(0));
    // Image i (from 1) loads image i + 1 first; pairs of a static parity
    // loop while the image they load exists.
    int64_t last = plan.images - 1;
    auto image = [&](const Affine &i, int64_t which, bool loadNext) {
      if (loadNext)
        loadImage(n0 + i + Affine(1), 1 - which);
      resetPoolCarry();
      computeBand(n0 + i, bandIn(which));
    };
    int64_t pairs = (last - 1) / 2;
    t.loop(pairs, false, [&](Affine q) {
      image(q * 2 + Affine(1), 1, true);
      image(q * 2 + Affine(2), 0, true);
    });
    for (int64_t i = 2 * pairs + 1; i <= last; ++i)
      image(Affine(i), i % 2, i < last);
  }

  /// The bands, each loaded one band ahead of its tiles: a band's pad rows
  /// are zeroed by UB -> L1 copies on MTE3, which runs in order, so issued
  /// after the previous band's tiles they would wait for its output's store
  /// and the band could not load while the Cube works.
  /// With `feedFirstTile` the first band is static and its first tile
  /// takes the pending K parts (feed), the next band's load after them.
  using FirstBandFn = llvm::function_ref<void(const BandAt &, llvm::function_ref<void()>)>;
  void emitBands(const Affine &n, bool firstLoaded = false, bool feedFirstTile = false) {
    resetPoolCarry();
    auto computeFirst = [&](const BandAt &at, llvm::function_ref<void()> loadNext) {
      feed->loadNextBand = loadNext;
      computeBand(n, at);
      assert(!feed && "the first tile took the K parts");
    };
    emitBandsPrefetched(
        t, plan.bands, plan.tilesPerBand * plan.rowsT,
        [&](int64_t localRow, const Band &bd) { return bandRow(localRow, bd); },
        [&](const BandAt &at) { loadBandAhead(n, at); },
        [&](const BandAt &at) { computeBand(n, at); },
        firstLoaded, nullptr, feedFirstTile ? FirstBandFn(computeFirst) : FirstBandFn());
  }
  Affine bandRow(int64_t localRow, const Band &bd) {
    return rowSplit().bandRow(bid, g.oh, localRow, bd.group);
  }

  /// Band `at` of image `n` into its buffer: the pad's zero rows and the
  /// map's rows.
  void loadBand(const Affine &n, const BandAt &at) { loadBand(n, at, {0, info.c1, 0}); }
  /// Planes `planes` of band `at` into its buffer.
  void loadBand(const Affine &n, const BandAt &at, PlaneRange planes) {
    if (stacked()) {
      runPendingMapRows(); // it reads the staging this load overwrites
      if (planes.first == 0)
        stageInputRows(n, at);
      buildMapRows(at, planes);
      return;
    }
    Value buf = band[at.which];
    int64_t rowElems = g.w * kC0;
    // Zero rows above and below the real ones, plane by plane.
    auto zeros = [&](int64_t row, int64_t rows) {
      if (!rows)
        return;
      t.loop(planes.count, false, [&](Affine p) {
        Affine plane = (p + Affine(planes.into)) * planeElems();
        for (int64_t e = 0; e < rows * rowElems; e += zeroChunk) {
          int64_t elems = std::min(zeroChunk, rows * rowElems - e);
          copy(t.view(uZeros, 0, elems), t.view(buf, plane + Affine(row * rowElems + e), elems), 1,
               elems * 2);
        }
      });
    };
    placeBandRows(at, g, plan.marginTop, zeros,
                  [&](const Affine &inRow, int64_t rows, const Affine &dstRow) {
                    loadRows(n, inRow, rows, buf, dstRow, planes);
                  });
  }

  /// Band `at`'s rows in a buffer whose band starts `margin` rows in, in
  /// geometry `geo` (the conv's, or the stacked conv's own): `zeros(row,
  /// rows)` for the pad's zero rows, then `load(inRow, rows, dstRow)` for
  /// its input rows. With a row split (planRowSplit) the zero rows are at
  /// fixed buffer rows and every block loads all of the band's input rows,
  /// the edge block's shifted past the zeros; else only the real rows load.
  void placeBandRows(const BandAt &at, const ConvGeometry &geo, int64_t margin,
                     llvm::function_ref<void(int64_t, int64_t)> zeros,
                     llvm::function_ref<void(const Affine &, int64_t, const Affine &)> load) {
    const Band &bd = *at.bd;
    Affine firstRow = at.outRow0 * geo.sh + Affine(-geo.padTop);
    if (plan.rowParts > 1) {
      int64_t need = bd.realRows;
      zeros(margin, bd.zeroTop);
      zeros(margin + need - bd.zeroBottom, bd.zeroBottom);
      Affine shift = rowSplit().loadShift(bid, bd);
      load(firstRow + shift, need, Affine(margin) + shift);
      return;
    }
    zeros(0, bd.zeroTop);
    zeros(bd.zeroTop + bd.realRows, bd.zeroBottom);
    if (bd.realRows)
      load(firstRow + Affine(bd.zeroTop), bd.realRows, Affine(bd.zeroTop));
  }

  /// A band's load one band ahead of its tiles (emitBands). Stacked, only
  /// its input rows load then, and its map rows are built before the
  /// current band's last tile's epilogue (computeBand, emitTile): their
  /// vector instructions wait for the load, and queued before the current
  /// band's tiles they would fill the V queue and stall the Scalar unit's
  /// issue of those tiles (the ResNet-18 stem's first mmad 4 us late).
  void loadBandAhead(const Affine &n, const BandAt &at) {
    if (!stacked())
      return loadBand(n, at);
    runPendingMapRows();
    stageInputRows(n, at);
    PlaneRange all{0, info.c1, 0};
    pendingMapRows = [this, at, all] { buildMapRows(at, all); };
  }
  void runPendingMapRows() {
    if (!pendingMapRows)
      return;
    std::function<void()> build = std::move(pendingMapRows);
    pendingMapRows = nullptr;
    build();
  }

  /// Row stacking (ConvInfo::stackChannels): band `at`'s input rows of
  /// image `n`, every channel, into the UB staging as plain rows
  /// stagingWidth apart, with the pad's zero rows (buildMapRows converts
  /// them to f16).
  /// The rows, pads and row split are those the unstacked conv's band
  /// buffer would hold (ConvPlan::bands).
  void stageInputRows(const Affine &n, const BandAt &at) {
    const ConvGeometry &from = *info.tensors.stackedFrom;
    bool f32 = xStorage().isF32();
    Value stage = f32 ? uStage32 : uStage16;
    int64_t es = f32 ? 4 : 2, width = stagingWidth, channelElems = stagingRows * width;
    // A vdup writes whole repeats: past the pad rows into rows loaded
    // after it, or into the buffer's slack.
    int64_t lanes = 256 / es;
    auto zeros = [&](int64_t row, int64_t rows) {
      for (int64_t c = 0; rows && c < from.c; ++c)
        vdup(t.view(stage, c * channelElems + row * width, rows * width + lanes), rows * width,
             0.0);
    };
    Value x = gm[info.xArg];
    int64_t hw = from.h * from.w;
    auto load = [&](const Affine &inRow, int64_t rows, const Affine &dstRow) {
      if (from.w == width) {
        copy(t.view(x, n * (from.c * hw) + inRow * from.w, ((from.c - 1) * from.h + rows) * from.w),
             t.view(stage, dstRow * width, (from.c - 1) * channelElems + rows * width), from.c,
             rows * from.w * es, (from.h - rows) * from.w * es, (stagingRows - rows) * width * es);
        return;
      }
      for (int64_t c = 0; c < from.c; ++c)
        copy(t.view(x, n * (from.c * hw) + Affine(c * hw) + inRow * from.w, rows * from.w),
             t.view(stage, Affine(c * channelElems) + dstRow * width, (rows - 1) * width + from.w),
             rows, from.w * es, 0, (width - from.w) * es);
    };
    placeBandRows(at, from, plan.stagingMarginTop, zeros, load);
  }

  /// Planes `planes` of band `at`'s stacked map rows into its L1 buffer:
  /// map row i, plane p, lane (cl kh + dy) at pixel x is channel
  /// p stackChannels + cl of input row sh i + dh dy (from the band's first
  /// staged row) at x. Per map row and plane: one vcopy a channel gathers
  /// its kh rows as the 32-byte rows of 16 x 16 tiles (one a 16 pixels),
  /// one vtranspose turns them into NC1HWC0 pixels, one copy takes them to
  /// L1. Map rows alternate between two tile buffers.
  void buildMapRows(const BandAt &at, PlaneRange planes) {
    const ConvGeometry &from = *info.tensors.stackedFrom;
    int64_t tiles = stagingWidth / kC0, channelElems = stagingRows * stagingWidth;
    // The staged rows to f16 here rather than with their load: a vconv
    // waiting for the load would hold the tiles' epilogues behind it in
    // the V queue.
    if (planes.first == 0 && xStorage().isF32())
      convert(uStage32, uStage16, from.c * channelElems);
    int64_t lanes = from.kh * kC0;
    DenseI64ArrayAttr mask = prefixMask(b, lanes);
    auto mapRow = [&](const Affine &i, int which) {
      for (int64_t p = planes.first; p < planes.first + planes.count; ++p) {
        bool partial = (p + 1) * info.stackChannels > from.c;
        Value tile = uRowTiles[partial][which];
        for (int64_t cl = 0; cl < info.stackChannels; ++cl) {
          int64_t c = p * info.stackChannels + cl;
          if (c >= from.c)
            break;
          Affine src = Affine(c * channelElems + plan.stagingMarginTop * stagingWidth) +
                       i * (from.sh * stagingWidth);
          // Repeat j: tile j's rows cl kh .. + kh from column block j of
          // the kh rows (dh rows apart); the views span a whole repeat's 8
          // blocks (the staging and the tiles have the slack).
          dv::VCopyOp::create(
              b, loc, t.view(uStage16, src, 7 * from.dh * stagingWidth + stagingWidth),
              t.view(tile, cl * lanes, (tiles - 1) * kFractalElems + 8 * kC0), t.i64(tiles),
              b.getDenseI64ArrayAttr({1, from.dh * tiles}), b.getDenseI64ArrayAttr({16, 1}),
              mask);
        }
        dv::VTransposeOp::create(b, loc, t.view(tile, 0, tiles * kFractalElems), uMapRow[which],
                                 t.i64(tiles));
        Affine dst = Affine((planes.into + p - planes.first) * planeElems()) + i * (g.w * kC0);
        copy(t.view(uMapRow[which], 0, g.w * kC0), t.view(band[at.which], dst, g.w * kC0), 1,
             g.w * kC0 * 2);
      }
    };
    int64_t rows = at.bd->outRows;
    t.loop(rows / 2, false, [&](Affine q) {
      mapRow(q * 2, 0);
      mapRow(q * 2 + Affine(1), 1);
    });
    if (rows % 2)
      mapRow(Affine(rows - 1), 0);
  }

  /// The tiles of band `at` of image `n` (loaded by loadBand).
  void computeBand(const Affine &n, const BandAt &at) {
    const Band &bd = *at.bd;
    const Affine &outRow0 = at.outRow0;
    Value buf = band[at.which];
    int64_t fullTiles = bd.outRows / plan.rowsT, tailRows = bd.outRows % plan.rowsT;
    // The next band's map rows (loadBandAhead) go before the last tile's
    // epilogue (emitTile): by then their input rows have loaded, and
    // issued earlier their instructions, waiting for that load, held the
    // Scalar unit's issue of this band's tiles (the ResNet-18 stem at
    // batch 8: 8 us without a store between bands; before the middle
    // tile's, their copies to L1 queued behind that band's stores on MTE3,
    // 182.9 -> 189.8 us).
    std::function<void()> nextMapRows = std::move(pendingMapRows);
    pendingMapRows = nullptr;
    auto tileAt = [&](int64_t first, int64_t rows) {
      emitTile(n, buf, outRow0 + Affine(first), Affine(first), rows);
    };
    int64_t looped = fullTiles - (tailRows || !nextMapRows ? 0 : 1);
    loopFirstStatic(looped, [&](const Affine &tile) {
      emitTile(n, buf, outRow0 + tile * plan.rowsT, tile * plan.rowsT, plan.rowsT);
    });
    pendingMapRows = std::move(nextMapRows);
    if (looped < fullTiles)
      tileAt(looped * plan.rowsT, plan.rowsT);
    if (tailRows)
      tileAt(fullTiles * plan.rowsT, tailRows);
    runPendingMapRows();
  }

  /// `rows` input rows of every plane from row `inRow` of image `n` into
  /// `buf` from buffer row `dstRow`.
  void loadRows(const Affine &n, const Affine &inRow, int64_t rows, Value buf, const Affine &dstRow,
                PlaneRange planes) {
    Value x = gm[info.xArg];
    int64_t rowElems = g.w * kC0, hw = g.h * g.w;
    if (xLayout == ActLayout::NC1HWC0) {
      Affine src = (n * (info.c1 * g.h) + Affine(planes.first * g.h) + inRow) * rowElems;
      copy(t.view(x, src, ((planes.count - 1) * g.h + rows) * rowElems),
           t.view(buf, Affine(planes.into * planeElems()) + dstRow * rowElems,
                  ((planes.count - 1) * plan.bufRows + rows) * rowElems),
           planes.count, rows * rowElems * 2, (g.h - rows) * rowElems * 2,
           (plan.bufRows - rows) * rowElems * 2);
      return;
    }
    // NCHW: a plane of up to 16 channels at a time (plane p of the range).
    auto plane = [&](const Affine &p, int64_t channels) {
      Affine channel0 = n * g.c + (p + Affine(planes.first)) * kC0;
      Affine bufPlane = (p + Affine(planes.into)) * planeElems();
      if (xStorage().isF16()) {
        t.loadNchwPixels(x, channel0 * hw + inRow * g.w, channels, rows * g.w, hw, buf,
                         bufPlane + dstRow * rowElems);
        return;
      }
      // f32: through UB, chunkPixels pixels (whole rows unless they are
      // wide) at a time, converted to f16; the two staging buffers
      // alternate, so that MTE2 loads a chunk while the Vector unit
      // converts the one before.
      auto chunk = [&](const Affine &pixel, int64_t count, int which) {
        t.loadNchwPixels(x, channel0 * hw + inRow * g.w + pixel, channels, count, hw,
                         uIn32[which], Affine(0));
        convert(uIn32[which], uIn16[which], roundUp(count * kC0, 64));
        copy(t.view(uIn16[which], 0, count * kC0),
             t.view(buf, bufPlane + dstRow * rowElems + pixel * kC0, count * kC0), 1,
             count * kC0 * 2);
      };
      int64_t pixels = rows * g.w;
      int64_t full = pixels / chunkPixels, tail = pixels % chunkPixels;
      t.loop(full / 2, false, [&](Affine q) {
        chunk(q * (2 * chunkPixels), chunkPixels, 0);
        chunk(q * (2 * chunkPixels) + Affine(chunkPixels), chunkPixels, 1);
      });
      if (full % 2)
        chunk(Affine((full - 1) * chunkPixels), chunkPixels, 0);
      if (tail)
        chunk(Affine(full * chunkPixels), tail, int(full % 2));
    };
    // Whole 16-channel planes, and the partial last one.
    int64_t fullPlanes = std::min(planes.count, g.c / kC0 - planes.first);
    int64_t lastChannels = g.c % kC0;
    t.loop(fullPlanes, false, [&](Affine p) { plane(p, kC0); });
    if (lastChannels && planes.first + planes.count == info.c1)
      plane(Affine(fullPlanes), lastChannels);
  }

  /// One M tile: `rows` output rows from `outRow` (whose windows start
  /// `shiftRows` x stride_h buffer rows into the band), all channel tiles.
  void emitTile(const Affine &n, Value buf, const Affine &outRow, const Affine &shiftRows,
                int64_t rows) {
    int64_t mpT = mp(rows);
    forEachChannelTile([&](const ChannelTile &ct) {
      Value c = t.view(l0c, 0, ct.nt * mpT * kC0);
      startAtBias(ct, mpT, c);
      emitKSteps(buf, shiftRows, mpT, ct, c, {0, info.c1, 0},
                 [&] { prefetchResidual(n, outRow * g.ow, rows * g.ow, mpT, ct); });
      // The next band's map rows (computeBand) before the tile's store:
      // behind it in MTE3's queue, their copies to L1 would hold the Vector
      // unit and, through its queue, the issue of the next tiles.
      runPendingMapRows();
      epilogue(n, outRow, rows, mpT, ct, c, /*residualLoaded=*/true);
    });
  }

  /// The residual of a tile into UB before its last K part: issued in the
  /// epilogue, MTE2's load would start only when the Cube is done (a
  /// 7 x 7 x 512 conv's tile waits 1 us for it). The epilogue's first
  /// residual step then uses it (its residualLoaded).
  void prefetchResidual(const Affine &n, const Affine &m0, int64_t mt, int64_t mpT,
                        const ChannelTile &ct) {
    for (const EpilogueStep &e : info.epilogue)
      if (e.kind == EpilogueStep::Full) {
        loadTile(gm[e.arg], layouts[e.arg], n, m0, mt, mpT, ct,
                 t.view(uResRaw, 0, ct.nt * mpT * kC0));
        return;
      }
  }

  /// `fn` for each of the block's channel tiles (channelTiles' runs).
  void forEachChannelTile(llvm::function_ref<void(const ChannelTile &)> fn) {
    for (const ChannelRun &run : channelTiles()) {
      auto tile = [&](const Affine &i) {
        ChannelTile ct;
        ct.local = i * run.nt + Affine(run.start);
        ct.first = blockChannelFractal() + ct.local;
        ct.nt = run.nt;
        ct.channels = run.channels;
        fn(ct);
      };
      loopFirstStatic(run.count, tile);
    }
  }

  /// `body` for 0 .. count - 1 as t.loop, but with its first iteration
  /// static while the K parts are being fed (feed: the loads it issues must
  /// not repeat in a loop).
  void loopFirstStatic(int64_t count, llvm::function_ref<void(const Affine &)> body) {
    int64_t peeled = (feed || pendingMapRows) && count > 1 ? 1 : 0;
    if (peeled)
      body(Affine());
    t.loop(count - peeled, false, [&](Affine i) { body(i + Affine(peeled)); });
  }

  /// The init mmad: accumulator `c` of channel tile `ct` starts at the bias.
  void startAtBias(const ChannelTile &ct, int64_t mpT, Value c) {
    if (!oneChannelTile())
      copy(t.view(l1Bias, ct.local * kFractalElems, ct.nt * kFractalElems),
           t.view(l0Bias, 0, ct.nt * kFractalElems), 1, ct.nt * 512);
    dv::MmadOp::create(b, loc, t.view(l0Ones, 0, mpT * kC0),
                       t.view(l0Bias, 0, ct.nt * kFractalElems), c, t.i64(mpT),
                       t.i64(ct.nt * kC0), t.i64(kC0), b.getUnitAttr());
  }

  /// A block of one image and one channel tile whose few M tiles
  /// (plan.accumulators, every tile of its bands) take the weight's K parts
  /// together: part j + 2 of the panel and of every band's planes loads
  /// while the Cube runs part j on each tile, L0C holding all of their
  /// accumulators, and the epilogues follow the last part. Tile by tile,
  /// the later tiles would wait for the whole panel and then run with
  /// nothing left to load (a 28 x 28 x 128 conv's second band: 6 us of
  /// load_3d after the loads end).
  void emitFedBlock() {
    Affine n = blockImage();
    resetPoolCarry();
    struct FedTile {
      Value buf;
      Affine outRow;
      int64_t shiftRows, rows;
    };
    SmallVector<BandAt> bands;
    SmallVector<FedTile> tiles;
    for (auto [i, bd] : llvm::enumerate(plan.bands)) {
      bands.push_back(BandAt{&bd, bandRow(bd.outRow0, bd), int64_t(i)});
      for (int64_t r = 0; r < bd.outRows; r += plan.rowsT)
        tiles.push_back(FedTile{band[i], bands.back().outRow0 + Affine(r), r,
                                std::min(plan.rowsT, bd.outRows - r)});
    }
    assert(int64_t(tiles.size()) == plan.accumulators && plan.bands.size() <= 2 &&
           "planFedTiles: every tile of at most two bands");
    SmallVector<ChannelRun> runs = channelTiles();
    ChannelTile ct{blockChannelFractal(), Affine(), runs[0].nt, runs[0].channels};
    int64_t mpFull = mp(plan.rowsT);
    auto accumulator = [&](size_t i, int64_t mpT) {
      return t.view(l0c, int64_t(i) * ct.nt * mpFull * kC0, ct.nt * mpT * kC0);
    };
    SmallVector<std::pair<int64_t, int64_t>> parts = kParts();
    int64_t loadedPlanes = 0;
    auto loadPart = [&](size_t j) {
      auto [r0, r1] = parts[j];
      int64_t p1 = (r1 + info.taps - 1) / info.taps;
      loadPanelPart({r0, r1});
      if (p1 > loadedPlanes)
        for (const BandAt &at : bands)
          loadBand(n, at, {loadedPlanes, p1 - loadedPlanes, loadedPlanes});
      loadedPlanes = std::max(loadedPlanes, p1);
    };
    // Two parts ahead: the Scalar unit stalls on the full Cube and MTE1
    // queues of a part's steps, and loads issued one part ahead would wait
    // behind them (a 28 x 28 x 128 conv: 17.2 us, 18.3 one part ahead).
    size_t ahead = std::min<size_t>(kFedPartsAhead, parts.size());
    for (size_t j = 0; j < ahead; ++j)
      loadPart(j);
    int64_t stepsIssued = 0;
    for (size_t j = 0; j < parts.size(); ++j) {
      if (j + ahead < parts.size())
        loadPart(j + ahead);
      auto [f0, f1] = parts[j];
      int64_t steps = (f1 - f0 + plan.kf - 1) / plan.kf;
      bool last = j + 1 == parts.size();
      for (auto [i, tile] : llvm::enumerate(tiles)) {
        int64_t mpT = mp(tile.rows);
        Value c = accumulator(i, mpT);
        if (j == 0)
          startAtBias(ct, mpT, c);
        if (last)
          prefetchResidual(n, tile.outRow * g.ow, tile.rows * g.ow, mpT, ct);
        // Consecutive steps alternate buffers across the tiles too.
        int64_t parity = ((stepsIssued - f0 / plan.kf) % 2 + 2) % 2;
        emitKRange(tile.buf, Affine(tile.shiftRows), mpT, ct, c, {0, info.c1, 0}, f0, f1, parity);
        stepsIssued += steps;
        // A tile done goes out while the next runs its last part.
        if (last)
          epilogue(n, tile.outRow, tile.rows, mpT, ct, c, /*residualLoaded=*/true);
      }
    }
  }

  /// The plane split (plan.bandPlanes): bands of one M tile, each loaded
  /// part by part into the two band buffers (the next part while the Cube
  /// works on this one); L0C holds every channel tile's accumulator over
  /// the parts, and the epilogues follow the last. Runs of bands of one
  /// shape are loops.
  void emitPlaneSplitBands(const Affine &n) {
    resetPoolCarry();
    ArrayRef<Band> bands = plan.bands;
    for (size_t i = 0; i < bands.size();) {
      size_t j = i + 1;
      while (j < bands.size() && bands[j].sameShape(bands[i]) &&
             bands[j].outRow0 == bands[i].outRow0 + int64_t(j - i) * plan.rowsT)
        ++j;
      const Band &bd = bands[i];
      t.loop(int64_t(j - i), false,
             [&](Affine k) { emitPlaneSplitBand(n, bd, Affine(bd.outRow0) + k * plan.rowsT); });
      i = j;
    }
  }

  void emitPlaneSplitBand(const Affine &n, const Band &bd, const Affine &outRow0) {
    SmallVector<PlaneRange> parts;
    for (int64_t p = 0; p < info.c1; p += plan.bandPlanes)
      parts.push_back({p, std::min(plan.bandPlanes, info.c1 - p), 0});
    int64_t mpT = mp(bd.outRows), mpFull = mp(plan.rowsT);
    auto accumulator = [&](const ChannelTile &ct) {
      return t.view(l0c, ct.local * (mpFull * kC0), ct.nt * mpT * kC0);
    };
    loadBand(n, BandAt{&bd, outRow0, 0}, parts[0]);
    for (size_t k = 0; k < parts.size(); ++k) {
      if (k + 1 < parts.size())
        loadBand(n, BandAt{&bd, outRow0, int64_t((k + 1) % 2)}, parts[k + 1]);
      forEachChannelTile([&](const ChannelTile &ct) {
        Value c = accumulator(ct);
        if (k == 0)
          startAtBias(ct, mpT, c);
        emitKSteps(band[k % 2], Affine(), mpT, ct, c, parts[k]);
      });
    }
    forEachChannelTile([&](const ChannelTile &ct) {
      epilogue(n, outRow0, bd.outRows, mpT, ct, accumulator(ct));
    });
  }

  /// The K reduction of one tile over input planes `planes` (the band
  /// buffer's planes from 0; see period()).
  /// `beforeLastPart`, when given, is issued before the last K part's steps.
  void emitKSteps(Value buf, const Affine &shiftRows, int64_t mpT, const ChannelTile &ct, Value c,
                  PlaneRange planes, llvm::function_ref<void()> beforeLastPart = nullptr) {
    int64_t total = planes.count * info.taps;
    // All planes: kParts' parts (the resident weight arrives part by part),
    // each the whole periods inside it as a loop and the rest static.
    SmallVector<std::pair<int64_t, int64_t>> parts =
        planes.count == info.c1 ? kParts() : SmallVector<std::pair<int64_t, int64_t>>{{0, total}};
    // The first tile loads K part j + 1 before part j's steps, and the next
    // band after the last part (feed).
    bool feeding = feed && planes.count == info.c1;
    for (size_t j = 0; j < parts.size(); ++j) {
      auto [f0, f1] = parts[j];
      if (feeding && j + 1 < parts.size())
        loadKPart(j + 1);
      if (feeding && j + 2 >= parts.size() && feed->loadNextBand) {
        feed->loadNextBand();
        feed->loadNextBand = nullptr;
      }
      if (beforeLastPart && j + 1 == parts.size())
        beforeLastPart();
      emitKRange(buf, shiftRows, mpT, ct, c, planes, f0, f1, 0);
    }
    if (feeding)
      feed.reset();
  }

  /// K fractals [f0, f1) (at step boundaries) of one tile over input
  /// planes `planes`: the whole periods inside as a loop, the rest static.
  /// A step's L0A/L0B buffers are the parity of its index plus `parity`
  /// (a period's step count is even, so a loop keeps it).
  void emitKRange(Value buf, const Affine &shiftRows, int64_t mpT, const ChannelTile &ct, Value c,
                  PlaneRange planes, int64_t f0, int64_t f1, int64_t parity) {
    int64_t total = planes.count * info.taps, kf = plan.kf;
    auto step = [&](const Affine &plane, int64_t tap0, int64_t count, int64_t index) {
      int64_t which = (index + parity) % 2;
      loadA(buf, shiftRows, mpT, plane, tap0, count, which);
      loadB(ct, (plane + Affine(planes.first)) * info.taps + Affine(tap0), count, which);
      dv::MmadOp::create(b, loc, t.view(l0a[which], 0, mpT * count * kC0),
                         t.view(l0b[which], 0, count * ct.nt * kFractalElems), c, t.i64(mpT),
                         t.i64(ct.nt * kC0), t.i64(count * kC0), UnitAttr());
    };
    int64_t per = period(), perFractals = per * kf, planesPerPeriod = perFractals / info.taps;
    int64_t periodCount = (total / kf) / per;
    auto staticSteps = [&](int64_t from, int64_t to) {
      for (int64_t f = from; f < to; f += kf)
        step(Affine(f / info.taps), f % info.taps, std::min(kf, total - f), f / kf);
    };
    int64_t q0 = (f0 + perFractals - 1) / perFractals;
    int64_t q1 = std::min(f1 / perFractals, periodCount);
    if (q1 <= q0) {
      staticSteps(f0, f1);
      return;
    }
    staticSteps(f0, q0 * perFractals);
    t.loop(q1 - q0, false, [&](Affine q) {
      for (int64_t s = 0; s < per; ++s) {
        int64_t f = s * kf;
        step((q + Affine(q0)) * planesPerPeriod + Affine(f / info.taps), f % info.taps, kf, s);
      }
    });
    staticSteps(q1 * perFractals, f1);
  }

  /// load_3d of `count` fractals from plane `plane` (affine), tap `tap0`,
  /// for the tile's mpT / 16 groups of 16 positions: one instruction per
  /// group (repeat mode taps) or per fractal of K (repeat mode positions,
  /// each repeat one fractal row of the [m1][count] tile), whichever makes
  /// fewer, since every load_3d pays MTE1's start-up.
  void loadA(Value buf, const Affine &shiftRows, int64_t mpT, const Affine &plane, int64_t tap0,
             int64_t count, int64_t which) {
    int64_t lastPlane = (tap0 + count - 1) / info.taps;
    int64_t planes = lastPlane + 1, m1 = mpT / 16;
    Affine base = plane * planeElems() + shiftRows * (g.sh * g.w * kC0) +
                  Affine(plan.marginTop * g.w * kC0);
    Value src = t.view(buf, base, planes * planeElems());
    // `c1Index`: the plane from `src`'s first; `position`: the first window.
    auto load3d = [&](int64_t dstFractal, int64_t dstFractals, int64_t c1Index, int64_t tap,
                      int64_t position, dv::Load3dMode mode, int64_t repeat, int64_t jump) {
      int64_t row = position / g.ow, col = position % g.ow;
      Value dst =
          t.view(l0a[which], Affine(dstFractal * kFractalElems), dstFractals * kFractalElems);
      dv::Load3dOp::create(
          b, loc, src, dst, uint64_t(plan.bufRows), uint64_t(g.w),
          ArrayRef<int64_t>{g.padLeft, g.padRight, 0, 0}, uint64_t(c1Index),
          ArrayRef<int64_t>{g.kw, g.kh}, ArrayRef<int64_t>{g.sw, g.sh},
          ArrayRef<int64_t>{g.dw, g.dh}, ArrayRef<int64_t>{tap % g.kw, tap / g.kw},
          ArrayRef<int64_t>{-g.padLeft + col * g.sw, row * g.sh}, mode, uint64_t(repeat),
          uint64_t(jump), Attribute());
    };
    if (usePositionsMode(m1, count)) {
      for (int64_t k = 0; k < count; ++k)
        load3d(k, (m1 - 1) * count + 1, (tap0 + k) / info.taps, (tap0 + k) % info.taps, 0,
               dv::Load3dMode::Positions, m1, count);
      return;
    }
    for (int64_t f = 0; f < m1; ++f)
      load3d(f * count, count, 0, tap0, 16 * f, dv::Load3dMode::Taps, count, 1);
  }

  /// The B tile: K fractals [k, k + count) x the channel tile.
  void loadB(const ChannelTile &ct, const Affine &k, int64_t count, int64_t which) {
    Value dst = t.view(l0b[which], 0, count * ct.nt * kFractalElems);
    if (plan.panelResident) {
      Affine src = (k * plan.ocn + ct.local) * kFractalElems;
      dv::LoadFractalsOp::create(
          b, loc, t.view(panel, src, ((count - 1) * plan.ocn + ct.nt) * kFractalElems), dst,
          t.i64(count), t.i64(ct.nt), t.i64(plan.ocn), t.i64(1), t.i64(ct.nt), t.i64(1),
          UnitAttr());
      return;
    }
    Affine src = (k * info.oc1 + ct.first) * kFractalElems;
    copy(t.view(gm[info.wArg], src, ((count - 1) * info.oc1 + ct.nt) * kFractalElems), dst,
         count, ct.nt * 512, (info.oc1 - ct.nt) * 512, 0);
  }

  /// L0C -> UB, the epilogue chain, the store: `rows` output rows from
  /// `outRow`; with `residualLoaded` the first residual is in UB already
  /// (prefetchResidual).
  void epilogue(const Affine &n, const Affine &outRow, int64_t rows, int64_t mpT,
                const ChannelTile &ct, Value c, bool residualLoaded = false) {
    Affine m0 = outRow * g.ow;
    int64_t mt = rows * g.ow;
    int64_t elems = ct.nt * mpT * kC0;
    Value out = t.view(uOut, 0, elems);
    if (fastEpilogue()) {
      dv::MoveL0cUbOp::create(b, loc, c, out, t.i64(1), t.i64(elems), t.i64(0), t.i64(0),
                              info.epilogue.empty() ? UnitAttr() : b.getUnitAttr(), FloatAttr());
    } else {
      Value acc = t.view(uAcc, 0, elems);
      dv::MoveL0cUbOp::create(b, loc, c, acc, t.i64(1), t.i64(elems), t.i64(0), t.i64(0),
                              UnitAttr(), FloatAttr());
      for (const EpilogueStep &e : info.epilogue) {
        if (e.kind != EpilogueStep::Full) {
          flat.step(e, acc, elems);
          continue;
        }
        Value raw = t.view(uResRaw, 0, elems), res = t.view(uRes, 0, elems);
        if (!residualLoaded)
          loadTile(gm[e.arg], layouts[e.arg], n, m0, mt, mpT, ct, raw);
        residualLoaded = false;
        if (dv::getElementType(raw.getType()).isF32())
          res = raw;
        else
          convert(raw, res, elems);
        TileBuilder::chunks(elems, 64, soc.max_repeat, [&](int64_t off, int64_t rep) {
          flat.binary(e.op, t.view(acc, off, rep * 64), t.view(res, off, rep * 64), e.left, rep);
        });
      }
      convert(acc, out, elems);
    }
    if (info.tensors.maxPool)
      poolTile(n, outRow, rows, mpT, ct, out);
    else
      store(n, m0, mt, mpT, ct, out);
  }

  /// The fused max pool (3x3, stride 2, pads 1) of a tile of `rows` (even)
  /// conv rows from `outRow` (even) in `out` ([nt][mpT][16]): each row's
  /// pixels maxed in pairs, then with the pixel before the pair (the first
  /// pair's is the left pad), into uPoolRows; then pooled row p the max of
  /// rows 2p - 1 .. 2p + 1, row -1 the last row of the tile before, kept in
  /// uPoolCarry (-inf at an image's first tile: resetPoolCarry), stored as
  /// the pooled map's rows outRow / 2 ...
  void poolTile(const Affine &n, const Affine &outRow, int64_t rows, int64_t mpT,
                const ChannelTile &ct, Value out) {
    int64_t half = g.ow / 2, pooledRows = rows / 2, mpP = roundUp(pooledRows * half, kC0);
    auto vmax = [&](Value dst, const Affine &dstAt, Value src0, const Affine &src0At, Value src1,
                    const Affine &src1At, int64_t pixels, ArrayRef<int64_t> blk,
                    ArrayRef<int64_t> repStrides, DenseI64ArrayAttr mask = {}) {
      // Repeats of 8 pixels (blocks), the last one whole: the buffers have
      // the slack (convCubeTilingMismatch).
      int64_t repeats = (pixels + 7) / 8;
      for (int64_t r0 = 0; r0 < repeats; r0 += soc.max_repeat) {
        int64_t count = std::min<int64_t>(soc.max_repeat, repeats - r0);
        // Operand k's view: its repeats' blocks, a repeat 8 of them.
        auto at = [&](Value buf, const Affine &offset, int k) {
          int64_t elems = ((count - 1) * repStrides[k] + 7 * blk[k] + 1) * kC0;
          return t.view(buf, offset + Affine(r0 * repStrides[k] * kC0), elems);
        };
        dv::VMaxOp::create(b, loc, at(src0, src0At, 1), at(src1, src1At, 2), at(dst, dstAt, 0),
                           t.i64(count), b.getDenseI64ArrayAttr(blk),
                           b.getDenseI64ArrayAttr(repStrides), mask);
      }
    };
    for (int64_t j = 0; j < ct.nt; ++j) {
      Affine x0(j * mpT * kC0), h0(j * rows * half * kC0);
      // Pairs: H[k] = max(x[2k], x[2k + 1]).
      vmax(uPoolRows, h0, out, x0, out, x0 + Affine(kC0), rows * half, {1, 2, 2}, {8, 16, 16});
      // With the pixel before: H[k] = max(H[k], x[2k - 1]) for k >= 1; at a
      // row's first pixel that is the row before's last (fixed below).
      vmax(uPoolRows, h0 + Affine(kC0), uPoolRows, h0 + Affine(kC0), out, x0 + Affine(kC0),
           rows * half - 1, {1, 1, 2}, {8, 8, 16});
      // A row's first pixel: its pair alone (the left pad is -inf).
      for (int64_t r0 = 0; r0 < rows; r0 += soc.max_repeat) {
        int64_t count = std::min<int64_t>(soc.max_repeat, rows - r0);
        auto span = [&](int64_t stride) { return ((count - 1) * stride + 8) * kC0; };
        dv::VMaxOp::create(
            b, loc, t.view(out, x0 + Affine(r0 * g.ow * kC0), span(g.ow)),
            t.view(out, x0 + Affine((r0 * g.ow + 1) * kC0), span(g.ow)),
            t.view(uPoolRows, h0 + Affine(r0 * half * kC0), span(half)), t.i64(count),
            b.getDenseI64ArrayAttr({1, 1, 1}), b.getDenseI64ArrayAttr({half, g.ow, g.ow}),
            prefixMask(b, kC0));
      }
      // Down: P[p] = max(H[2p], H[2p + 1], H[2p - 1]), H[-1] the carry
      // (whole repeats a channel fractal, so that one fractal's copy
      // below does not spill into the next's carry).
      Affine carry = (ct.local + Affine(j)) * (roundUp(half, 8) * kC0);
      for (int64_t p = 0; p < pooledRows; ++p) {
        Affine pooled(j * mpP * kC0 + p * half * kC0);
        Affine row2p = h0 + Affine(2 * p * half * kC0);
        vmax(uPooled, pooled, uPoolRows, row2p, uPoolRows, row2p + Affine(half * kC0), half,
             {1, 1, 1}, {8, 8, 8});
        if (p == 0)
          vmax(uPooled, pooled, uPooled, pooled, uPoolCarry, carry, half, {1, 1, 1}, {8, 8, 8});
        else
          vmax(uPooled, pooled, uPooled, pooled, uPoolRows, row2p + Affine(-half * kC0), half,
               {1, 1, 1}, {8, 8, 8});
      }
      // The tile's last row is the next tile's row -1.
      int64_t repeats = (half + 7) / 8;
      Affine lastRow = h0 + Affine((rows - 1) * half * kC0);
      dv::VCopyOp::create(b, loc, t.view(uPoolRows, lastRow, repeats * 8 * kC0),
                          t.view(uPoolCarry, carry, repeats * 8 * kC0), t.i64(repeats),
                          DenseI64ArrayAttr(), DenseI64ArrayAttr(), DenseI64ArrayAttr());
    }
    Affine pooledRow = halved(outRow);
    int64_t ph = g.oh / 2, pw = half;
    Value y = gm[outArg];
    Value pooledTile = t.view(uPooled, 0, ct.nt * mpP * kC0);
    if (yLayout == ActLayout::NC1HWC0) {
      Affine dst = ((n * info.oc1 + ct.first) * (ph * pw) + pooledRow * pw) * kC0;
      int64_t mt = pooledRows * pw;
      copy(t.view(uPooled, 0, ((ct.nt - 1) * mpP + mt) * kC0),
           t.view(y, dst, ((ct.nt - 1) * ph * pw + mt) * kC0), ct.nt, mt * 32, (mpP - mt) * 32,
           (ph * pw - mt) * 32);
      return;
    }
    t.storeNchwPixels(pooledTile, uT, uT32, ct.nt, mpP, y,
                      (n * g.oc + ct.first * kC0) * (ph * pw) + pooledRow * pw, ct.channels,
                      pooledRows * pw, ph * pw, soc.max_repeat);
  }

  /// Half of an even row offset (every term's coefficient even).
  static Affine halved(const Affine &a) {
    Affine h = a;
    assert(h.c % 2 == 0 && "an even row");
    h.c /= 2;
    for (Affine::Term &term : h.terms) {
      assert(term.coef % 2 == 0 && "an even row");
      term.coef /= 2;
    }
    return h;
  }

  /// The pooled row above an image's first: -inf (f16's lowest).
  void resetPoolCarry() {
    if (uPoolCarry)
      vdup(uPoolCarry, cast<dv::BufType>(uPoolCarry.getType()).getNumElements(), -65504.0);
  }

  /// A tile of tensor `v` (the output's shape) in `layout` into UB as
  /// [nt][mpT][16].
  void loadTile(Value v, ActLayout layout, const Affine &n, const Affine &m0, int64_t mt,
                int64_t mpT, const ChannelTile &ct, Value dst) {
    int64_t hw = positions();
    int64_t es = dv::elementBytes(dv::getElementType(v.getType()));
    if (layout == ActLayout::NC1HWC0) {
      Affine src = ((n * info.oc1 + ct.first) * hw + m0) * kC0;
      copy(t.view(v, src, ((ct.nt - 1) * hw + mt) * kC0), t.view(dst, 0, ct.nt * mpT * kC0),
           ct.nt, mt * kC0 * es, (hw - mt) * kC0 * es, (mpT - mt) * kC0 * es);
      return;
    }
    for (int64_t j = 0; j < ct.nt; ++j) {
      int64_t count = std::min<int64_t>(kC0, ct.channels - j * kC0);
      if (count <= 0)
        break;
      t.loadNchwPixels(v, (n * g.oc + ct.first * kC0 + Affine(j * kC0)) * hw + m0, count, mt, hw,
                       dst, Affine(j * mpT * kC0));
    }
  }

  void store(const Affine &n, const Affine &m0, int64_t mt, int64_t mpT, const ChannelTile &ct,
             Value out) {
    Value y = gm[outArg];
    int64_t hw = positions();
    if (yLayout == ActLayout::NC1HWC0) {
      Affine dst = ((n * info.oc1 + ct.first) * hw + m0) * kC0;
      copy(out, t.view(y, dst, ((ct.nt - 1) * hw + mt) * kC0), ct.nt, mt * 32, (mpT - mt) * 32,
           (hw - mt) * 32);
      return;
    }
    // NCHW: each 16 x 16 block (16 positions x 16 channels) transposed into
    // NZ of [channels][positions], then copy_nz2nd.
    t.storeNchwPixels(out, uT, uT32, ct.nt, mpT, y, (n * g.oc + ct.first * kC0) * hw + m0,
                      ct.channels, mt, hw, soc.max_repeat);
  }

  TileBuilder t;
  OpBuilder &b;
  Location loc;
  const ConvInfo &info;
  const ConvGeometry &g;
  const ConvPlan &plan;
  ArrayRef<Value> gm;
  unsigned outArg;
  ArrayRef<ActLayout> layouts; // of the GM operands
  ActLayout xLayout, yLayout;
  const soc::SocSpec &soc;
  FlatTileEmitter flat;
  Type f16, f32;
  Value bid;
  Value band[2], panel, l1Ones, l1Bias, l0a[2], l0b[2], l0Ones, l0Bias, l0c;
  Value uOut, uAcc, uRes, uResRaw, uT, uT32, uZeros, uIn32[2], uIn16[2];
  /// The fused max pool: a tile's rows pooled across, its pooled rows, the
  /// row carried between tiles (poolTile).
  Value uPoolRows, uPooled, uPoolCarry;
  int64_t chunkPixels = 1, zeroChunk = 1;
  /// Row stacking: the staged input rows (f32 as loaded, f16), the tiles a
  /// map row's planes gather into ([last plane partial][map row parity])
  /// and their transposes.
  Value uStage32, uStage16, uRowTiles[2][2], uMapRow[2];
  /// The next band's map rows, built after the current band's first tile.
  std::function<void()> pendingMapRows;
  int64_t stagingWidth = 0, stagingRows = 0;
};

LogicalResult lowerConv(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  MLIRContext *ctx = func.getContext();
  // The conv reads its weight and bias from GM whatever their size (a
  // one-channel bias is a one-element constant, not an epilogue immediate).
  auto readByConv = [](vg::ConstantOp constant) {
    return llvm::any_of(constant->getUsers(), [](Operation *user) { return isa<vg::ConvOp>(user); });
  };
  SmallVector<vg::ConstantOp> constants;
  for (auto constant : func.getBody().front().getOps<vg::ConstantOp>())
    if (!scalarImmediate(constant.getResult()) || readByConv(constant))
      constants.push_back(constant);
  for (vg::ConstantOp constant : constants)
    hoistConstantToArgument(func, call, constant);
  ConvInfo info;
  if (std::string why = analyzeConv(func, call, info); !why.empty())
    return func.emitError() << why;
  for (auto conv : func.getBody().front().getOps<vg::ConvOp>())
    if (!isa<BlockArgument>(conv.getWeight()) ||
        (conv.getBias() && !isa<BlockArgument>(conv.getBias())))
      return func.emitError() << "kernel " << func.getSymName()
                              << ": the conv's weight and bias must be kernel arguments";

  GmSignature signature = gmSignature(call);
  unsigned outArg = call.getNumOperands();
  ActLayout yLayout = activationLayout(call, outArg);
  // A residual is read in its own layout (vinci-assign-layouts may store it
  // NC1HWC0 while the output goes ND to a consumer that takes only that).
  SmallVector<ActLayout> layouts;
  for (unsigned i = 0; i < call.getNumOperands(); ++i)
    layouts.push_back(activationLayout(call, i));
  for (unsigned i = 0; i < signature.types.size(); ++i)
    if (i != info.wArg)
      signature.types[i] = layoutGmType(call, i, signature.types[i]);

  // What the tensors need on chip, now that their storage and layouts are known.
  auto gmElement = [&](unsigned index) { return dv::getElementType(signature.types[index]); };
  info.tensors.f32Input = gmElement(info.xArg).isF32();
  info.tensors.f32Bias = info.biasArg >= 0 && gmElement(info.biasArg).isF32();
  info.tensors.f32Output = gmElement(outArg).isF32();
  info.tensors.nchwOutput = yLayout == ActLayout::NCHW;
  for (const EpilogueStep &e : info.epilogue)
    if (e.kind == EpilogueStep::Full)
      info.tensors.residualBytes = dv::elementBytes(gmElement(e.arg));
  ConvPlan plan;
  // Rows stacked into channels when the weight's values are known (to
  // rearrange them) and a tiling fits the staging.
  std::optional<std::vector<float>> weight;
  if (std::optional<ConvInfo> s = stackedRows(info, layouts[info.xArg])) {
    if ((weight = graph::f32Values(call.getOperand(info.wArg))) && planConv(*s, soc, plan)) {
      const ConvGeometry &from = *s->tensors.stackedFrom;
      OpBuilder graphBuilder(call);
      Value original = call.getOperand(info.wArg);
      Value stackedW = graph::f32Constant(
          graphBuilder, call.getLoc(), {from.oc, s->c1 * kC0, 1, from.kw},
          stackedWeight(*weight, from, s->stackChannels, s->c1),
          (func.getSymName() + "_rows_stacked_weight").str());
      call->setOperand(info.wArg, stackedW);
      if (Operation *dead = original.getDefiningOp(); dead && original.use_empty())
        dead->erase();
      info = *s;
    } else {
      plan = ConvPlan();
    }
  }
  // The weight as FRACTAL_Z [C1 * kh * kw][OC1][16][16] (the .om packs it).
  signature.types[info.wArg] =
      dv::GmType::get(ctx, {info.c1 * info.taps, info.oc1, kC0, kC0}, Float16Type::get(ctx));
  if (!info.stackChannels && !planConv(info, soc, plan))
    return func.emitError() << "kernel " << func.getSymName() << ": no conv tiling fits the "
                            << soc.name << "'s buffers (convCubeTemplateMismatch should have "
                            << "refused this conv: report it)";
  OpBuilder b(ctx);
  Block *entry = beginKernel(b, func, signature.types, plan.blockDim, "cube");
  Operation *kernel = entry->getParentOp();
  kernel->setAttr(dv::DVDialect::kFractalZWeightsAttrName,
                  b.getDenseI64ArrayAttr({int64_t(info.wArg)}));
  SmallVector<Value> gmArgs(entry->getArguments());
  ConvEmitter emitter(b, func.getLoc(), info, plan, gmArgs, outArg, layouts, yLayout, soc);
  emitter.emit();
  return finishKernel(entry, func, call);
}

/// The input, the output and each residual of its epilogue, each alone:
/// the template reads and writes each in either layout.
SmallVector<int> convNc1hwc0Classes(func::FuncOp func) {
  func::CallOp call = soleCall(func);
  ConvInfo info;
  if (!call || call.getNumResults() != 1 || !analyzeConv(func, call, info).empty())
    return {};
  SmallVector<std::pair<unsigned, int>> classOf = {{info.xArg, 0}, {call.getNumOperands(), 1}};
  int next = 2;
  for (const EpilogueStep &e : info.epilogue)
    if (e.kind == EpilogueStep::Full)
      classOf.push_back({e.arg, next++});
  return nc1hwc0ClassesOf(call, classOf);
}

} // namespace

extern const KernelTemplate kConvTemplate = {"conv", convTemplateMismatch, lowerConv,
                                             convNc1hwc0Classes};

} // namespace vinci::lower
