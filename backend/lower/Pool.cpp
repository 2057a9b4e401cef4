//===- Pool.cpp - the pooling template (windows reduced in UB) ------------===//
//
//  - pool (Vector): a vector kernel of one 2-D vg.max_pool or
//    vg.average_pool that KernelRules' poolTemplateMismatch accepts (f16 in
//    GM, every window holding an input element, one divisor for every
//    position of an average). No window is unfolded through GM: a band of
//    input rows of one channel group comes into UB as NC1HWC0 pixels (16
//    channels, 32 bytes, one Vector block each), the kernel rows of each
//    output row are reduced into a row of W pixels (vmax / vadd over whole
//    rows), and the kernel columns of that row into the output row by
//    vector ops whose source block stride is the window's column stride
//    (8 output pixels a repeat). An average is then scaled by 1 / count.
//
// Pads: a band buffer holds every input row its windows read, the pad rows
// filled with the pad value (-inf for max, 0 for a counted sum: what each
// leaves unchanged), so that every output row reduces kh rows whichever
// band and block it is in. A column tap covers the output columns whose
// tap lies inside the row (the output row starts at -inf for max, 0 for
// sum), so a pad column is never read.
//
// Layout in GM: NCHW (copy_nchw2nc1hwc0 into UB; the result goes out by a
// vtranspose of each 16 x 16 block and copy_nz2nd, like the conv
// template's) or NC1HWC0 (one burst a band). A channel group is 16
// channels, or fewer (8, 4, 2, 1: the lanes above stay zero) when that
// gives idle cores work: 64 channels at batch 1 are 8 groups of 8 on 8
// cores instead of 4 planes on 4.
//
// Blocks: batch parts x channel-group parts (block = (b floordiv G, b mod
// G)), or output-row parts when the groups leave cores idle (ConvCommon's
// chooseRowParts and planRowSplit: the pads on the edge block). Each block
// loops over its images and groups, and each group over bands of output
// rows, each band's load issued one band ahead of its reduction and a
// group's first band during the previous group's last
// (emitGroupsPrefetched); bands of one shape (the ones away from the pads)
// are a loop of pairs, the two input and output buffers alternating.
//
//===----------------------------------------------------------------------===//
#include "backend/lower/ConvCommon.h"
#include "backend/lower/LowerCommon.h"
#include "backend/lower/TileBuilder.h"
#include "passes/KernelRules.h"

#include "dv/DvOps.h"
#include "vg/VgOps.h"
#include "vinci/soc.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <limits>

using namespace mlir;

namespace vinci::lower {
namespace {

constexpr int64_t kC0 = 16;
constexpr int64_t kPixelBytes = 32; // 16 f16 channels: one Vector block
constexpr int64_t kPixelsPerRepeat = 8;

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

struct PoolInfo {
  ConvGeometry g;
  bool isMax = true;
  double scale = 1.0; // an average's 1 / count
};

Operation *poolOf(func::FuncOp func) {
  if (auto max = soleOp<vg::MaxPoolOp>(func, /*skipConstants=*/true))
    return max;
  return soleOp<vg::AveragePoolOp>(func, /*skipConstants=*/true);
}

std::string analyzePool(func::FuncOp func, func::CallOp call, PoolInfo &info) {
  Operation *pool = poolOf(func);
  if (!pool)
    return "the pooling template needs a kernel of one vg.max_pool or vg.average_pool";
  if (std::string why = poolWindowMismatch(pool); !why.empty())
    return why;
  auto arg = dyn_cast<BlockArgument>(pool->getOperand(0));
  if (!arg || arg.getArgNumber() != 0)
    return "the pool's input must be the kernel's first argument";
  if (call) {
    GmSignature signature = gmSignature(call);
    for (Type element : signature.elements)
      if (!element.isF16())
        return "the pooling template reads and writes f16 in GM";
  }
  info.g = *poolGeometry(pool);
  info.isMax = isa<vg::MaxPoolOp>(pool);
  info.scale = info.isMax ? 1.0 : 1.0 / double(info.g.kh * info.g.kw);
  return {};
}

std::optional<std::string> poolTemplateMismatchOf(func::FuncOp func) {
  bool hasPool = false;
  func.walk([&](Operation *op) { hasPool |= isa<vg::MaxPoolOp, vg::AveragePoolOp>(op); });
  if (!hasPool)
    return std::nullopt;
  PoolInfo info;
  return analyzePool(func, soleCall(func), info);
}

//===----------------------------------------------------------------------===//
// Plan
//===----------------------------------------------------------------------===//

struct PoolPlan {
  ChannelGroupSplit split;
  RowSplit rows;         // output-row parts (then split holds every pair)
  int64_t bandRows = 1;  // output rows a full band
  SmallVector<RowBand> bands;
  int64_t bufRows = 1;   // input rows a band buffer holds (with the row split's margins)
  int64_t blocks() const { return split.blocks() * rows.parts; }
};

/// Pixels of slack past a buffer: a masked repeat's envelope, and a
/// repeat for a pad-row fill rounded up to whole repeats.
int64_t slackPixels(const ConvGeometry &g) {
  return kPixelsPerRepeat * std::max(g.sw, int64_t(1)) + kPixelsPerRepeat;
}

/// UB bytes a plan with bands of `outRows` output rows needs, `marginRows`
/// input rows around each band (a row split's pad margins).
int64_t ubBytes(const ConvGeometry &g, int64_t outRows, int64_t marginRows, bool ncOut) {
  int64_t in = 2 * ((windowInputRows(g, outRows) + marginRows) * g.w + slackPixels(g));
  int64_t rowsBuf = g.kh > 1 ? outRows * g.w + slackPixels(g) : 0;
  int64_t outPx = roundUp(outRows * g.ow, 16) + kPixelsPerRepeat;
  int64_t out = 2 * outPx * (ncOut ? 1 : 2);
  return (in + rowsBuf + out) * kPixelBytes;
}

bool planPool(const PoolInfo &info, ActLayout xLayout, ActLayout yLayout, const soc::SocSpec &soc,
              PoolPlan &plan, bool allowRowSplit = true) {
  const ConvGeometry &g = info.g;
  bool nchw = xLayout == ActLayout::NCHW && yLayout == ActLayout::NCHW;
  // The widest channel group that gives every core a part (NCHW on both
  // sides: an NC1HWC0 pixel is one 32-byte burst of 16 channels).
  plan.split = splitChannelGroups(g, soc.ai_core_count, nchw);

  // Bands: as many output rows as the buffers leave room for, then equal.
  int64_t budget = int64_t(soc.bufferBytes(soc::Space::UB)) - 1024;
  bool ncOut = yLayout == ActLayout::NC1HWC0;
  int64_t margin = 0;
  auto mostRows = [&](int64_t limit) {
    int64_t rows = 1;
    while (rows < limit && ubBytes(g, rows + 1, margin, ncOut) <= budget)
      ++rows;
    // A band's positions are one copy_nz2nd (at most 65535 columns).
    return std::max<int64_t>(1, std::min(rows, 65535 / g.ow));
  };
  // Output rows over the blocks instead when the (image, group) pairs
  // leave cores idle or uneven: an output row reduces kh input rows of w
  // pixels, then kw taps of its ow pixels, 8 pixels a repeat.
  double vectorPerPixel = double((g.kh - 1) * g.w + (g.kw + 2) * g.ow) /
                          double(kPixelsPerRepeat * g.ow);
  int64_t parts =
      allowRowSplit ? chooseRowParts(g, plan.split, soc, vectorPerPixel, mostRows(g.oh)) : 1;
  if (parts > 1) {
    plan.split = ChannelGroupSplit{kC0, (g.c + kC0 - 1) / kC0, 1, 1};
    margin = g.padTop + g.padBottom;
  }
  int64_t partRows = g.oh / parts, rows = mostRows(partRows);
  if (ubBytes(g, rows, margin, ncOut) > budget)
    return false;
  plan.bandRows = bandRowsFor(partRows, rows, plan.split.pairsPerBlock(g.n), parts > 1);
  if (parts > 1) {
    if (!planRowSplit(g, parts, plan.bandRows, plan.rows, plan.bands)) {
      plan = PoolPlan();
      return planPool(info, xLayout, yLayout, soc, plan, /*allowRowSplit=*/false);
    }
  } else {
    for (int64_t r = 0; r < g.oh; r += plan.bandRows)
      plan.bands.push_back(rowBandAt(g, r, std::min(plan.bandRows, g.oh - r)));
  }
  plan.bufRows =
      plan.rows.marginTop + windowInputRows(g, plan.bandRows) + plan.rows.marginBottom;
  return true;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

class PoolEmitter {
public:
  PoolEmitter(OpBuilder &b, Location loc, const PoolInfo &info, const PoolPlan &plan,
              ArrayRef<Value> gm, ActLayout xLayout, ActLayout yLayout, const soc::SocSpec &soc)
      : t(b, loc), b(b), loc(loc), info(info), g(info.g), plan(plan), x(gm[0]), y(gm[1]),
        xLayout(xLayout), yLayout(yLayout), soc(soc), f16(b.getF16Type()) {}

  void emit() {
    const ChannelGroupSplit &split = plan.split;
    if (plan.blocks() > 1)
      bid = dv::BlockIdxOp::create(b, loc, b.getIndexType()).getResult();
    allocate();
    int64_t images = g.n / split.batchParts, groups = split.groups / split.groupParts;
    t.loop(images, false, [&](Affine image) {
      Affine n = blockImage(images) + image;
      // A partial last group (channels not a multiple of the group): only
      // one block holds groups then.
      int64_t lastChannels = g.c % split.cg ? g.c % split.cg : split.cg;
      emitGroupsPrefetched(
          t, blockGroup(groups), groups, split.cg, lastChannels, plan.bands, plan.bandRows,
          [&](int64_t localRow, const RowBand &bd) {
            return plan.rows.bandRow(bid, g.oh, localRow, bd.group);
          },
          [](const GroupAt &) {}, [](const GroupAt &) {},
          [&](const GroupAt &at, const BandAt &band) { loadBand(n, at, band); },
          [&](const GroupAt &at, const BandAt &band) { computeBand(n, at, band); });
    });
  }

private:
  Affine blockImage(int64_t images) {
    const ChannelGroupSplit &s = plan.split;
    if (s.batchParts == 1)
      return Affine();
    return s.groupParts == 1 ? Affine::of(bid, images) : Affine::floorDiv(bid, s.groupParts, images);
  }
  Affine blockGroup(int64_t groups) {
    const ChannelGroupSplit &s = plan.split;
    if (s.groupParts == 1)
      return Affine();
    return s.batchParts == 1 ? Affine::of(bid, groups) : Affine::mod(bid, s.groupParts, groups);
  }

  int64_t outPixels(int64_t rows) const { return roundUp(rows * g.ow, 16); }
  /// The pad rows' value: what a max or a counted sum leaves unchanged.
  double padValue() const { return info.isMax ? -std::numeric_limits<double>::infinity() : 0.0; }

  void allocate() {
    for (Value &buf : in)
      buf = t.alloc(dv::MemSpace::UB, (plan.bufRows * g.w + slackPixels(g)) * kC0, f16);
    if (g.kh > 1)
      rowBuf = t.alloc(dv::MemSpace::UB, (plan.bandRows * g.w + slackPixels(g)) * kC0, f16);
    for (Value &buf : out)
      buf = t.alloc(dv::MemSpace::UB, (outPixels(plan.bandRows) + kPixelsPerRepeat) * kC0, f16);
    if (yLayout == ActLayout::NCHW)
      for (Value &buf : nz)
        buf = t.alloc(dv::MemSpace::UB, outPixels(plan.bandRows) * kC0, f16);
  }

  DenseI64ArrayAttr none() { return DenseI64ArrayAttr(); }
  DenseI64ArrayAttr attr(ArrayRef<int64_t> v) { return b.getDenseI64ArrayAttr(v); }

  /// `pixels` pixels of `buf` from pixel `p0` (a view fit for the strided
  /// footprint: the buffers carry a repeat's slack).
  Value pixels(Value buf, int64_t p0, int64_t count) { return t.view(buf, p0 * kC0, count * kC0); }

  /// The kernel's reduction: dst = dst op src over `count` pixels, src's
  /// pixels `stride` apart (8 a repeat; the last repeat masked).
  void reduce(Value dst, int64_t d0, Value src0, int64_t s0, Value src1, int64_t s1,
              int64_t count, int64_t stride) {
    int64_t full = count / kPixelsPerRepeat, tail = count % kPixelsPerRepeat;
    auto one = [&](int64_t at, int64_t repeats, DenseI64ArrayAttr mask) {
      int64_t src1Span = ((repeats - 1) * kPixelsPerRepeat + kPixelsPerRepeat - 1) * stride + 1;
      int64_t span = repeats * kPixelsPerRepeat;
      Value d = pixels(dst, d0 + at, span), a = pixels(src0, s0 + at, span),
            c = pixels(src1, s1 + at * stride, src1Span);
      DenseI64ArrayAttr blk = stride == 1 ? none() : attr({1, 1, stride});
      DenseI64ArrayAttr rep = stride == 1 ? none() : attr({8, 8, 8 * stride});
      if (info.isMax)
        dv::VMaxOp::create(b, loc, a, c, d, t.i64(repeats), blk, rep, mask);
      else
        dv::VAddOp::create(b, loc, a, c, d, t.i64(repeats), blk, rep, mask);
    };
    for (int64_t at = 0; at < full * kPixelsPerRepeat;) {
      int64_t repeats = std::min<int64_t>(full - at / kPixelsPerRepeat, soc.max_repeat);
      one(at, repeats, none());
      at += repeats * kPixelsPerRepeat;
    }
    if (tail) {
      one(full * kPixelsPerRepeat, 1, prefixMask(b, tail * kC0));
    }
  }

  /// `elems` elements of `buf` from element 0 set to `value`, then scaled.
  void fill(Value buf, int64_t elems, double value) {
    TileBuilder::chunks(elems, 128, soc.max_repeat, [&](int64_t off, int64_t n) {
      dv::VDupOp::create(b, loc, b.getF32FloatAttr(float(value)), t.view(buf, off, n * 128),
                         t.i64(n), none(), none(), none());
    });
  }
  void scale(Value buf, int64_t elems) {
    TileBuilder::chunks(elems, 128, soc.max_repeat, [&](int64_t off, int64_t n) {
      Value v = t.view(buf, off, n * 128);
      dv::VMulsOp::create(b, loc, v, b.getF32FloatAttr(float(info.scale)), v, t.i64(n), none(),
                          none(), none());
    });
  }

  /// A band's first input row is buffer row margin(); its load starts
  /// loadShift(bd) rows below.
  Affine loadShift(const RowBand &bd) const { return plan.rows.loadShift(bid, bd); }
  int64_t margin() const { return plan.rows.marginTop; }

  /// The band's pad rows (the pad value: a window's taps outside the map
  /// change nothing) and its input rows, GM -> UB.
  void loadBand(const Affine &n, const GroupAt &at, const BandAt &band) {
    const RowBand &bd = *band.bd;
    Value src = in[band.which];
    int64_t need = windowInputRows(g, bd.outRows), rowElems = g.w * kC0;
    // Whole repeats: a fill may run into the rows the load then writes (or
    // the buffer's slack).
    auto padRows = [&](int64_t row, int64_t rows) {
      int64_t elems = roundUp(rows * rowElems, 128);
      fill(t.view(src, row * rowElems, elems), elems, padValue());
    };
    if (bd.zeroTop)
      padRows(margin(), bd.zeroTop);
    if (bd.zeroBottom)
      padRows(margin() + need - bd.zeroBottom, bd.zeroBottom);
    if (bd.realRows == 0)
      return;
    Affine inRow = band.outRow0 * g.sh + Affine(-g.padTop) + loadShift(bd);
    Affine dstAt = (loadShift(bd) + margin()) * rowElems;
    int64_t hw = g.h * g.w, pixelsIn = bd.realRows * g.w;
    if (xLayout == ActLayout::NC1HWC0) {
      Affine from = ((n * plan.split.groups + at.group) * g.h + inRow) * rowElems;
      dv::CopyOp::create(b, loc, t.view(x, from, pixelsIn * kC0), t.view(src, dstAt, pixelsIn * kC0),
                         1, uint64_t(pixelsIn * kPixelBytes), 0, 0);
      return;
    }
    t.loadNchwPixels(x, (n * g.c + at.group * plan.split.cg) * hw + inRow * g.w, at.channels,
                     pixelsIn, hw, src, dstAt);
  }

  /// The band's windows reduced, and its output rows stored.
  void computeBand(const Affine &n, const GroupAt &at, const BandAt &band) {
    const RowBand &bd = *band.bd;
    const Affine &outRow0 = band.outRow0;
    const Affine &group = at.group;
    int64_t channels = at.channels, which = band.which;
    Value src = in[which], dst = out[which];
    int64_t ohw = g.oh * g.ow;
    int64_t positions = bd.outRows * g.ow, mp = outPixels(bd.outRows);
    fill(dst, mp * kC0, padValue()); // what the window's taps then reduce into
    for (int64_t r = 0; r < bd.outRows; ++r) {
      // The window's rows (pad rows hold the pad value) into one row of W
      // pixels, or the input row itself.
      auto rowOf = [&](int64_t k) { return (margin() + r * g.sh + k * g.dh) * g.w; };
      Value rowSrc = src;
      int64_t rowAt = rowOf(0);
      if (g.kh > 1) {
        rowSrc = rowBuf;
        rowAt = r * g.w;
        reduce(rowBuf, rowAt, src, rowOf(0), src, rowOf(1), g.w, 1);
        for (int64_t k = 2; k < g.kh; ++k)
          reduce(rowBuf, rowAt, rowBuf, rowAt, src, rowOf(k), g.w, 1);
      }
      // The window's columns: tap kj covers the output columns whose input
      // column ow * sw - pad_left + kj * dw is inside the row.
      for (int64_t kj = 0; kj < g.kw; ++kj) {
        int64_t offset = kj * g.dw - g.padLeft;
        int64_t lo = std::max<int64_t>(0, (-offset + g.sw - 1) / g.sw);
        if (offset >= 0)
          lo = 0;
        int64_t hi = std::min<int64_t>(g.ow - 1, (g.w - 1 - offset) / g.sw);
        if (g.w - 1 - offset < 0 || hi < lo)
          continue;
        int64_t o0 = r * g.ow + lo;
        reduce(dst, o0, dst, o0, rowSrc, rowAt + lo * g.sw + offset, hi - lo + 1, g.sw);
      }
    }
    if (!info.isMax && info.scale != 1.0)
      scale(dst, mp * kC0);
    // The band's output positions, UB -> GM.
    if (yLayout == ActLayout::NC1HWC0) {
      Affine at = ((n * plan.split.groups + group) * ohw + outRow0 * g.ow) * kC0;
      dv::CopyOp::create(b, loc, pixels(dst, 0, positions), t.view(y, at, positions * kC0), 1,
                         uint64_t(positions * kPixelBytes), 0, 0);
      return;
    }
    // NCHW: each 16 x 16 block (16 positions x 16 channels) transposed into
    // NZ of [channels][positions], then copy_nz2nd.
    t.storeNchwPixels(dst, nz[which], Value(), 1, mp, y,
                      (n * g.c + group * plan.split.cg) * ohw + outRow0 * g.ow, channels, positions, ohw,
                      soc.max_repeat);
  }

  TileBuilder t;
  OpBuilder &b;
  Location loc;
  const PoolInfo &info;
  const ConvGeometry &g;
  const PoolPlan &plan;
  Value x, y;
  ActLayout xLayout, yLayout;
  const soc::SocSpec &soc;
  Type f16;
  Value bid;
  Value in[2], rowBuf, out[2], nz[2];
};

LogicalResult lowerPool(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  PoolInfo info;
  if (std::string why = analyzePool(func, call, info); !why.empty())
    return func.emitError() << why;
  GmSignature signature = gmSignature(call);
  if (signature.types.size() != 2)
    return func.emitError() << "kernel " << func.getSymName()
                            << ": a pool kernel has one input and one output";
  ActLayout xLayout = activationLayout(call, 0), yLayout = activationLayout(call, 1);
  for (unsigned i = 0; i < 2; ++i)
    signature.types[i] = layoutGmType(call, i, signature.types[i]);
  PoolPlan plan;
  if (!planPool(info, xLayout, yLayout, soc, plan))
    return func.emitError() << "kernel " << func.getSymName()
                            << ": no pooling band fits the SoC's UB";
  OpBuilder b(func.getContext());
  Block *entry = beginKernel(b, func, signature.types, plan.blocks(), "vector");
  SmallVector<Value> gmArgs(entry->getArguments());
  PoolEmitter(b, func.getLoc(), info, plan, gmArgs, xLayout, yLayout, soc).emit();
  return finishKernel(entry, func, call);
}

/// The input and the output, each in either layout.
SmallVector<int> poolNc1hwc0Classes(func::FuncOp func) {
  func::CallOp call = soleCall(func);
  PoolInfo info;
  if (!call || call.getNumOperands() != 1 || call.getNumResults() != 1 ||
      !analyzePool(func, call, info).empty())
    return {};
  return nc1hwc0ClassesOf(call, {{0, 0}, {1, 1}});
}

} // namespace

extern const KernelTemplate kPoolTemplate = {"pool", poolTemplateMismatchOf, lowerPool,
                                             poolNc1hwc0Classes};

} // namespace vinci::lower
