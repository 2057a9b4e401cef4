//===- Depthwise.cpp - the Vector depthwise conv template -----------------===//
//
//  - depthwise (Vector): a kernel anchored by a 2-D depthwise vg.conv
//    (groups = C = OC) that KernelRules' depthwiseWindowMismatch accepts (a
//    constant weight and bias, f16 in GM), followed by the unary and scalar
//    steps of the epilogue chain the partition fused (Epilogue.h: ReLU,
//    ReLU6 / Clip, ...). A depthwise conv is one multiply-add a tap and
//    channel: on the Cube it is M = 1 a group (1/16 of its peak, and the
//    unfolded windows through GM before it), so it runs on the Vector unit.
//
// Channels on the lanes: a band of input rows of one channel group comes
// into UB as NC1HWC0 pixels (16 channels, 32 bytes, one Vector block), laid
// out with the left and right pads as zero columns (row pitch Wp) and the
// top and bottom pads as zero rows. A tap (ki, kj) is then one vmul / vmla
// over the whole band: output position q (row q / Po, column q mod Po, Po =
// sh Wp / sw the output pitch) reads input pixel sw q + ki dh Wp + kj dw, so
// the source's block stride is the column stride sw (8 output pixels a
// repeat), and the weight is the tap's 16 channel weights repeated over
// the 8 blocks of a repeat (built once per group in UB, repeat stride 0).
// The Po - OW columns past each output row are computed and dropped. The
// bias is one vadd, the epilogue steps run on the compacted tile (f16; in
// f32 for the steps f16 would lose: exp, sigmoid, ...).
//
// Layout in GM: NCHW (copy_nchw2nc1hwc0 into UB; the result goes out by a
// vtranspose of each 16 x 16 block and copy_nz2nd, TileBuilder's helpers
// shared with the conv and pooling templates) or NC1HWC0 (one burst a band).
//
// Blocks: batch parts x channel-group parts (ConvCommon's
// splitChannelGroups: the fewest (image, group) pairs a block, then the
// most blocks; groups of fewer than 16 channels when that gives idle cores
// work without more pairs a block, both sides NCHW), or output-row parts
// when that is a clear gain (chooseRowParts: few groups for the cores;
// planRowSplit's one program for every block, the pads on the edge
// block), or ragged steps (below).
//
// Bands: each block loops over its images and groups, each group over
// bands of output rows, each band's load issued one band ahead of its
// compute (two staging and two padded buffers alternate) and a group's
// first band during the previous group's last (emitGroupsPrefetched);
// bands of one shape (the ones away from the pads) are a loop of pairs.
//
// Steps: when a group's whole map fits one band, the block's groups go
// in steps of several groups instead (chooseSteps, when the planner's
// estimate says so): a step's planes are one load and one store (NC1HWC0
// planes of consecutive groups are contiguous in GM), each plane its own
// padded rows (whose pad rows then stay zero), the taps interleave the
// step's planes (no tap waits for the previous one's result), and step
// k + 1 loads during step k. Ragged steps (channel groups that an even
// split would leave cores idle on, e.g. 60 groups: 6 blocks of 10) give
// blocks 0 .. P-2 the fewest groups a block over all the cores and the
// edge block P-1 the rest, its window the last groups (its resident
// weights in bounds); the steps are static and the edge block's first
// ones repeat its first own step (same bytes written again, by the same
// core), so one program runs everywhere.
//
// Weights: the block's weights and bias stay in UB when they fit 32 KB
// (one load). Placement (place()): the template sets every UB offset, the
// accumulator and the spread weights in the first 64 KiB bank, the padded
// buffers (the taps' sources) from the second: a vmla whose source shares
// its destination's bank pays a cycle a repeat more by the UB bank rule
// (a read and a write to one bank), ~3.1-3.5 cycles a repeat -> ~2.2-2.5.
//
//===----------------------------------------------------------------------===//
#include "backend/lower/ConvCommon.h"
#include "backend/lower/Epilogue.h"
#include "backend/lower/LowerCommon.h"
#include "backend/lower/TileBuilder.h"
#include "passes/KernelRules.h"

#include "dv/DvOps.h"
#include "vg/VgOps.h"
#include "vinci/soc.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace vinci::lower {
namespace {

constexpr int64_t kC0 = 16;
constexpr int64_t kPixelBytes = 32; // 16 f16 channels: one Vector block
constexpr int64_t kPixelsPerRepeat = 8;
constexpr int64_t kRepeatElems = 128; // f16 lanes

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

struct DepthwiseInfo {
  ConvGeometry g;
  unsigned xArg = 0, wArg = 0;
  int biasArg = -1;
  SmallVector<EpilogueStep> epilogue;
  int64_t taps = 1;
};

/// Whether epilogue step `e` keeps its accuracy on an f16 tile (selects,
/// clamps and scalings; the others run in f32).
bool exactInF16(const EpilogueStep &e) {
  if (e.kind == EpilogueStep::Scalar)
    return e.op == EpilogueStep::Max || e.op == EpilogueStep::Min || e.op == EpilogueStep::Mul ||
           e.op == EpilogueStep::Add;
  return e.op == EpilogueStep::Relu || e.op == EpilogueStep::Clip ||
         e.op == EpilogueStep::LRelu || e.op == EpilogueStep::Copy ||
         e.op == EpilogueStep::Neg || e.op == EpilogueStep::Abs;
}

vg::ConvOp depthwiseConvOf(func::FuncOp func) {
  for (Operation &op : func.getBody().front()) {
    if (isConstantOp(&op))
      continue;
    auto conv = dyn_cast<vg::ConvOp>(op);
    return conv && isDepthwiseConv(conv) ? conv : vg::ConvOp();
  }
  return {};
}

/// Why the depthwise template cannot lower `func` ("": it can). `call` is
/// the kernel's launch (null when unknown: the weight is then assumed
/// constant and the storage f16).
std::string analyzeDepthwise(func::FuncOp func, func::CallOp call, DepthwiseInfo &info) {
  Block &body = func.getBody().front();
  vg::ConvOp conv = depthwiseConvOf(func);
  if (!conv)
    return "the depthwise template needs a kernel that starts with a depthwise vg.conv";
  auto argOf = [&](Value v) -> int {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner() == &body ? int(arg.getArgNumber()) : -2;
    return v.getDefiningOp<vg::ConstantOp>() ? -1 : -2; // -1: hoisted to an argument later
  };
  auto constantOperand = [&](Value v) {
    int arg = argOf(v);
    return arg == -1 || (arg >= 0 && (!call || call.getOperand(arg).getDefiningOp<vg::ConstantOp>()));
  };
  Value bias = conv.getBias();
  if (std::string why = depthwiseWindowMismatch(conv, constantOperand(conv.getWeight()),
                                                !bias || constantOperand(bias));
      !why.empty())
    return why;
  if (argOf(conv.getInput()) < 0)
    return "the depthwise conv's input must be a kernel argument";
  info.g = *convGeometry(conv);
  info.xArg = unsigned(argOf(conv.getInput()));
  info.wArg = unsigned(std::max(0, argOf(conv.getWeight())));
  info.biasArg = bias ? std::max(0, argOf(bias)) : -1;
  info.taps = info.g.kh * info.g.kw;

  Value current = conv.getResult();
  ArrayRef<int64_t> outShape = conv.getType().getShape();
  for (Operation &op : body) {
    if (&op == conv.getOperation() || isConstantOp(&op))
      continue;
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (ret.getNumOperands() != 1 || ret.getOperand(0) != current)
        return "a depthwise kernel must return the end of its epilogue chain (one result)";
      continue;
    }
    EpilogueStep step;
    if (std::string why = classifyEpilogueStep(&op, current, outShape, step); !why.empty())
      return why;
    if (step.kind != EpilogueStep::Unary && step.kind != EpilogueStep::Scalar)
      return opName(&op).str() + " with a tensor operand has no depthwise epilogue (unary and "
                                 "scalar steps only)";
    if (step.op == EpilogueStep::Gelu)
      return "gelu has no depthwise epilogue";
    Type element = cast<RankedTensorType>(op.getResult(0).getType()).getElementType();
    if (!element.isF16() && !element.isF32())
      return (opName(&op) + " to a non-float type has no depthwise epilogue").str();
    info.epilogue.push_back(step);
    current = op.getResult(0);
  }
  if (call) {
    GmSignature signature = gmSignature(call);
    unsigned outArg = call.getNumOperands();
    for (unsigned i : {info.xArg, outArg})
      if (!signature.elements[i].isF16() && !signature.elements[i].isF32())
        return "the depthwise template reads and writes f16 or f32 in GM";
    for (int i : {int(info.wArg), info.biasArg})
      if (i >= 0 && !signature.elements[i].isF16() && !signature.elements[i].isF32())
        return "the depthwise template reads an f16 or f32 weight and bias";
  }
  return {};
}

std::optional<std::string> depthwiseTemplateMismatchOf(func::FuncOp func) {
  bool hasDepthwise = false;
  func.walk([&](vg::ConvOp conv) { hasDepthwise |= isDepthwiseConv(conv); });
  if (!hasDepthwise)
    return std::nullopt;
  DepthwiseInfo info;
  return analyzeDepthwise(func, soleCall(func), info);
}

//===----------------------------------------------------------------------===//
// Plan
//===----------------------------------------------------------------------===//

struct DepthwisePlan {
  ChannelGroupSplit split;
  RowSplit rows;       // output-row parts (then split holds every pair)
  int64_t wp = 1;      // padded input row pitch (pixels)
  int64_t po = 1;      // output pitch: sh * wp / sw
  int64_t bandRows = 1;
  SmallVector<RowBand> bands;
  int64_t maxReal = 1; // most real input rows a band loads
  bool staged = true;  // loaded into a staging buffer, then into the padded rows
  bool ncIn = false, xF32 = false; // the input's layout and type in GM
  /// Staged when there are pad columns, unless one plane's NC1HWC0 rows
  /// come straight into the padded rows (a burst a row, the pad columns
  /// the destination's gap): an NCHW load or an f32 one (narrowed on
  /// chip) writes its pixels contiguously, and a step's planes are one
  /// load of contiguous planes.
  void restage(int64_t w) { staged = wp != w && (!ncIn || xF32 || planes() > 1); }
  int64_t padPixels = 1, accPixels = 1, tilePixels = 16;
  /// The block's groups' weights and bias stay in UB, loaded once (one
  /// copy_nchw2nc1hwc0 and one copy) instead of two small loads a group.
  bool residentWeights = false;
  /// Steps (0: bands): a block's groups in steps of stepGroups groups, each
  /// group's whole map one band. A step's planes are one load and one store
  /// (NC1HWC0 planes of consecutive groups are contiguous in GM), its taps
  /// interleave its groups, and step k + 1 loads during step k's compute.
  int64_t stepGroups = 0, steps = 0;
  /// Ragged steps: split.groupParts blocks of `ragged` groups, the last
  /// (edge) block the remaining ones, in steps that are static: the edge
  /// block's first steps repeat its first own step (its store writes the
  /// same bytes again), so that every block runs one program and its
  /// groups stay in bounds (its window is the last `ragged` groups).
  int64_t ragged = 0;
  int64_t groupsPerBlock() const { return ragged ? ragged : split.groups / split.groupParts; }
  /// Groups a band or step holds.
  int64_t planes() const { return std::max<int64_t>(1, stepGroups); }
  int64_t blocks() const { return split.blocks() * rows.parts; }
};

/// Output pixels the taps of a band of `rows` output rows compute (whole
/// repeats).
int64_t accPixelsOf(const DepthwisePlan &p, int64_t rows) {
  return roundUp(rows * p.po, kPixelsPerRepeat);
}
/// Padded-buffer pixels the taps of a band of `rows` output rows read.
int64_t padPixelsOf(const ConvGeometry &g, const DepthwisePlan &p, int64_t rows) {
  int64_t reach = (g.kh - 1) * g.dh * p.wp + (g.kw - 1) * g.dw + g.sw * (accPixelsOf(p, rows) - 1) + 1;
  return std::max(reach, windowInputRows(g, rows) * p.wp);
}

/// UB bytes of bands of `rows` output rows; `marginRows` padded rows
/// around each band (a row split's pad margins).
/// Pixels (16 channels) of a block's resident weights and bias.
int64_t residentPixels(const DepthwiseInfo &info, const DepthwisePlan &p) {
  return p.groupsPerBlock() * (info.taps + 1) + 4;
}
/// Resident weights cost at most this much UB.
constexpr int64_t kMaxResidentWeightBytes = 32 * 1024;

int64_t ubBytes(const DepthwiseInfo &info, const DepthwisePlan &p, int64_t rows, int64_t marginRows,
                bool f32Steps, bool ncOut, bool xF32, bool yF32) {
  const ConvGeometry &g = info.g;
  int64_t real = marginRows ? windowInputRows(g, rows) : std::min(windowInputRows(g, rows), g.h);
  int64_t s = p.planes();
  int64_t staging = p.staged ? 2 * (s * roundUp(real * g.w, 4) + 4) : 0;
  int64_t padded = 2 * s * (padPixelsOf(g, p, rows) + marginRows * p.wp + 2 * kPixelsPerRepeat);
  int64_t tile = s * roundUp(rows * g.ow, 16);
  int64_t acc = s == 1 ? std::max(accPixelsOf(p, rows), tile) : s * roundUp(accPixelsOf(p, rows), 16);
  int64_t compact = p.po != g.ow || s > 1 ? tile : 0;
  int64_t nz = ncOut ? 0 : 2 * tile;
  int64_t wide =
      (f32Steps ? 2 * tile : 0) + (yF32 ? 2 * tile : 0) + (xF32 ? 4 * s * roundUp(real * g.w, 4) + 4 : 0);
  int64_t weights = s * info.taps * (kPixelsPerRepeat + 3) + 4 * s * kPixelsPerRepeat + 8;
  if (p.residentWeights)
    weights += residentPixels(info, p);
  return (staging + padded + acc + compact + nz + wide + weights) * kPixelBytes;
}

/// The planner's estimate of a block's cycles when it computes `groups`
/// groups in bands of `rows` output rows, `planes` groups a band: the
/// first band's load and the last one's store (a GM transfer's start-up,
/// ~300 cycles, and its bytes at a core's 17 B a cycle) plus each band's
/// larger of its Vector work and its bytes. A group's Vector work is its
/// taps (an issue and ~2.6 cycles a repeat by the UB bank rule) and its
/// copies; a band of one group and one chunk also waits a pipeline depth
/// between its taps (each reads the accumulator the last one wrote), which
/// interleaving a band's groups or chunks hides.
double estimateCycles(const DepthwiseInfo &info, const DepthwisePlan &plan, bool ncOut,
                      int64_t groups, int64_t planes, int64_t rows, const soc::SocSpec &soc) {
  const ConvGeometry &g = info.g;
  constexpr double kStartCycles = 300, kBytesPerCycle = 17, kDependencyCycles = 16;
  int64_t bands = (g.oh + rows - 1) / rows;
  int64_t repeats = accPixelsOf(plan, rows) / kPixelsPerRepeat;
  double inPixels = double(std::min(g.h, windowInputRows(g, rows)) * g.w);
  double outPixels = double(rows * g.ow);
  double vector = double(info.taps) * (8 + 2.6 * double(repeats)) +
                  2 * (24 + (inPixels + outPixels) / 4) + (ncOut ? 0 : 16 + outPixels / 8);
  double band = double(planes) * vector;
  if (planes == 1 && repeats <= soc.max_repeat)
    band += kDependencyCycles * double(info.taps);
  double gm = double(planes) * (inPixels + outPixels) * kPixelBytes / kBytesPerCycle;
  return 2 * kStartCycles + gm + double(groups / planes * bands) * std::max(band, gm);
}

/// Steps for a block whose groups' maps each fit one band (plan.stepGroups
/// 0: none): the groups a step with the least estimate, when it is less
/// than `best` (the bands', plan.bandRows, without it). At least two
/// steps, so that one loads while the other computes; ragged steps divide
/// the edge block's groups too and are at most kMaxStaticSteps. Returns
/// the estimate of the plan chosen.
constexpr int64_t kMaxStaticSteps = 8;
double chooseSteps(const DepthwiseInfo &info, bool ncOut, const soc::SocSpec &soc,
                   llvm::function_ref<bool(int64_t)> fits, DepthwisePlan &plan,
                   std::optional<double> bound = std::nullopt) {
  const ConvGeometry &g = info.g;
  int64_t groups = plan.groupsPerBlock();
  int64_t edgeGroups = plan.ragged ? plan.split.groups - (plan.split.groupParts - 1) * groups : 0;
  double best = bound ? *bound : estimateCycles(info, plan, ncOut, groups, 1, plan.bandRows, soc);
  int64_t bestGroups = 0;
  for (int64_t s = 1; 2 * s <= groups; ++s) {
    if (groups % s || s * info.taps > soc.max_repeat)
      continue;
    if (plan.ragged && (edgeGroups % s || groups / s > kMaxStaticSteps))
      continue;
    plan.stepGroups = s;
    plan.restage(g.w);
    if (!fits(g.oh))
      break;
    double cost = estimateCycles(info, plan, ncOut, groups, s, g.oh, soc);
    if (cost < best)
      best = cost, bestGroups = s;
  }
  plan.stepGroups = bestGroups;
  plan.restage(g.w);
  plan.steps = bestGroups ? groups / bestGroups : 0;
  return best;
}

bool planDepthwise(const DepthwiseInfo &info, ActLayout xLayout, ActLayout yLayout, bool xF32,
                   bool yF32, bool paramsF16, const soc::SocSpec &soc, DepthwisePlan &plan,
                   bool allowRowSplit = true) {
  const ConvGeometry &g = info.g;
  bool nchw = xLayout == ActLayout::NCHW && yLayout == ActLayout::NCHW;
  plan.split = splitChannelGroups(g, soc.ai_core_count, nchw, /*fewestPairs=*/true);
  // The padded row pitch, widened so that sh * wp is a multiple of sw
  // (then output row r, column c reads input pixel sw (r po + c)).
  plan.wp = g.padLeft + g.w + g.padRight;
  while ((g.sh * plan.wp) % g.sw)
    ++plan.wp;
  plan.po = g.sh * plan.wp / g.sw;
  plan.ncIn = xLayout == ActLayout::NC1HWC0;
  plan.xF32 = xF32;
  plan.restage(g.w);
  bool f32Steps = llvm::any_of(info.epilogue, [](const EpilogueStep &e) { return !exactInF16(e); });
  bool ncOut = yLayout == ActLayout::NC1HWC0;
  // Output rows over the blocks instead when the (image, group) pairs
  // leave cores idle or uneven: each tap is a repeat for 8 output pixels
  // of a row of pitch po.
  double vectorPerPixel = double(info.taps + 2) * double(plan.po) / double(kPixelsPerRepeat * g.ow);
  int64_t budget = int64_t(soc.bufferBytes(soc::Space::UB)) - 2048;
  int64_t margin = 0;
  auto fits = [&](int64_t rows) {
    return ubBytes(info, plan, rows, margin, f32Steps, ncOut, xF32, yF32) <= budget;
  };
  auto mostRows = [&](int64_t limit) {
    int64_t rows = 1;
    while (rows < limit && fits(rows + 1))
      ++rows;
    return rows;
  };
  int64_t parts = allowRowSplit ? chooseRowParts(g, plan.split, soc, vectorPerPixel, mostRows(g.oh)) : 1;
  if (parts > 1)
    plan.split = ChannelGroupSplit{kC0, (g.c + kC0 - 1) / kC0, 1, 1};
  plan.residentWeights = paramsF16 && plan.split.cg == kC0 &&
                         residentPixels(info, plan) * kPixelBytes <= kMaxResidentWeightBytes;
  int64_t partRows = g.oh / parts;
  margin = parts > 1 ? g.padTop + g.padBottom : 0;
  int64_t rows = mostRows(partRows);
  if (!fits(rows))
    return false;
  // A band's positions are one copy_nz2nd (at most 65535 columns).
  rows = std::max<int64_t>(1, std::min(rows, 65535 / g.ow));
  int64_t perBlock = (g.n / plan.split.batchParts) * (plan.split.groups / plan.split.groupParts);
  plan.bandRows = bandRowsFor(partRows, rows, perBlock, parts > 1);
  if (parts == 1 && rows >= g.oh && plan.residentWeights) {
    double even = chooseSteps(info, ncOut, soc, fits, plan);
    // Ragged steps when an even split leaves cores idle: the fewest groups
    // a block over all the cores, the edge block the rest.
    int64_t groups = plan.split.groups;
    int64_t ragged = (groups + soc.ai_core_count - 1) / soc.ai_core_count;
    int64_t raggedBlocks = (groups + ragged - 1) / ragged;
    if (plan.split.batchParts == 1 && g.c % kC0 == 0 && raggedBlocks > 1 &&
        ragged < plan.groupsPerBlock() && groups % ragged) {
      DepthwisePlan even_ = plan;
      plan.ragged = ragged;
      plan.split.groupParts = raggedBlocks;
      chooseSteps(info, ncOut, soc, fits, plan, even);
      if (!plan.stepGroups)
        plan = even_;
    }
  }
  if (plan.stepGroups) {
    plan.bandRows = g.oh;
    plan.bands.push_back(rowBandAt(g, 0, g.oh));
  } else if (parts > 1) {
    if (!planRowSplit(g, parts, plan.bandRows, plan.rows, plan.bands)) {
      // Not one program for every block: plan again without the row split.
      plan = DepthwisePlan();
      return planDepthwise(info, xLayout, yLayout, xF32, yF32, paramsF16, soc, plan,
                           /*allowRowSplit=*/false);
    }
  } else {
    for (int64_t r = 0; r < g.oh; r += plan.bandRows)
      plan.bands.push_back(rowBandAt(g, r, std::min(plan.bandRows, g.oh - r)));
  }
  for (const RowBand &bd : plan.bands)
    plan.maxReal = std::max(plan.maxReal, bd.realRows);
  plan.padPixels =
      padPixelsOf(g, plan, plan.bandRows) + (plan.rows.marginTop + plan.rows.marginBottom) * plan.wp;
  plan.accPixels = accPixelsOf(plan, plan.bandRows);
  plan.tilePixels = roundUp(plan.bandRows * g.ow, 16);
  return true;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

class DepthwiseEmitter {
public:
  DepthwiseEmitter(OpBuilder &b, Location loc, const DepthwiseInfo &info, const DepthwisePlan &plan,
                   ArrayRef<Value> gm, unsigned outArg, ActLayout xLayout, ActLayout yLayout,
                   const soc::SocSpec &soc)
      : t(b, loc), b(b), loc(loc), info(info), g(info.g), plan(plan), gm(gm), outArg(outArg),
        xLayout(xLayout), yLayout(yLayout), soc(soc), flat(b, loc, soc.max_repeat),
        f16(b.getF16Type()), f32(b.getF32Type()) {}

  void emit() {
    const ChannelGroupSplit &split = plan.split;
    if (plan.blocks() > 1)
      bid = dv::BlockIdxOp::create(b, loc, b.getIndexType()).getResult();
    allocate();
    // The pad columns (and rows) of both padded buffers are zero from the
    // start; a band's load writes only the real pixels.
    for (Value buf : padded)
      fill(buf, plan.planes() * paddedElems(), 0.0);
    int64_t images = g.n / split.batchParts, groups = plan.groupsPerBlock();
    // One image in steps: its first step's load first, beside the weights
    // (the taps wait for both).
    bool weightsAfterLoad = plan.stepGroups && images == 1;
    if (plan.residentWeights && !weightsAfterLoad)
      loadResidentWeights(blockGroup(groups), groups);
    t.loop(images, false, [&](Affine image) {
      Affine n = blockImage(images) + image;
      if (plan.stepGroups) {
        emitSteps(n, blockGroup(groups), [&] {
          if (weightsAfterLoad)
            loadResidentWeights(blockGroup(groups), groups);
        });
        return;
      }
      // A partial last group (channels not a multiple of the group): only
      // one block holds groups then.
      int64_t lastChannels = g.c % split.cg ? g.c % split.cg : split.cg;
      emitGroupsPrefetched(
          t, blockGroup(groups), groups, split.cg, lastChannels, plan.bands, plan.bandRows,
          [&](int64_t localRow, const RowBand &bd) {
            return plan.rows.bandRow(bid, g.oh, localRow, bd.group);
          },
          [&](const GroupAt &at) { loadWeights(at); },
          [&](const GroupAt &at) { spreadWeights(at); },
          [&](const GroupAt &at, const BandAt &band) { loadBand(n, at, band); },
          [&](const GroupAt &at, const BandAt &band) { computeBand(n, at, band); });
    });
  }

private:
  /// The block's groups from `group0` in plan.steps steps, buffers
  /// alternating, each step's load issued during the previous step's
  /// compute; pairs of steps a loop, the last step static (it may hold the
  /// partial last group).
  void emitSteps(const Affine &n, const Affine &group0, llvm::function_ref<void()> afterFirstLoad) {
    int64_t s = plan.stepGroups, steps = plan.steps;
    int64_t lastChannels = g.c % kC0 ? g.c % kC0 : kC0;
    const RowBand &bd = plan.bands.front();
    auto stepAt = [&](const Affine &k, bool last) {
      if (!plan.ragged)
        return GroupAt{group0 + k * s, k * s, last ? lastChannels : kC0};
      // Static steps: the edge block's step k is its group max(k s, first
      // own) of its window.
      int64_t ks = k.c * s, own = plan.ragged - (plan.split.groups - (plan.split.groupParts - 1) *
                                                                     plan.ragged);
      Affine local = Affine(ks) + edgeOr(0, std::max(ks, own) - ks);
      return GroupAt{group0 + local, local, kC0};
    };
    auto load = [&](const Affine &k, bool last, int64_t which) {
      loadBand(n, stepAt(k, last), BandAt{&bd, Affine(0), which});
    };
    auto compute = [&](const Affine &k, bool last, int64_t which) {
      GroupAt at = stepAt(k, last);
      spreadWeights(at, /*withBias=*/false); // the bias before its vadd
      computeBand(n, at, BandAt{&bd, Affine(0), which});
    };
    load(Affine(0), steps == 1, 0);
    afterFirstLoad();
    int64_t pairs = steps >= 4 && !plan.ragged ? steps / 2 - 1 : 0;
    t.loop(pairs, false, [&](Affine pair) {
      Affine k = pair * 2;
      load(k + Affine(1), false, 1);
      compute(k, false, 0);
      load(k + Affine(2), false, 0);
      compute(k + Affine(1), false, 1);
    });
    for (int64_t k = 2 * pairs; k < steps; ++k) {
      if (k + 1 < steps)
        load(Affine(k + 1), k + 2 == steps, (k + 1) % 2);
      compute(Affine(k), k + 1 == steps, k % 2);
    }
  }

  /// `coef` b on blocks b = 0 .. P - 2 and `edge` on block P - 1 (a
  /// ragged split's block grid).
  Affine edgeOr(int64_t coef, int64_t edge) {
    int64_t middle = plan.split.groupParts - 1;
    Affine at = coef ? Affine::mod(bid, middle, coef) : Affine();
    return edge ? at + Affine::floorDiv(bid, middle, edge) : at;
  }

  /// Pixels between the planes (groups) of a step in each buffer.
  /// (Whole 64-element runs: copy_nchw2nc1hwc0's destination view.)
  int64_t stagePitch() const { return roundUp(plan.maxReal * g.w, 4); }
  int64_t padPitch() const { return paddedElems() / kC0; }
  int64_t accPitch() const { return roundUp(plan.accPixels, 16); }
  /// NC1HWC0 out: the planes as in GM (one store); NCHW: the transposes'
  /// whole 16 x 16 blocks.
  int64_t tilePitch() const {
    return plan.stepGroups > 1 && yLayout == ActLayout::NC1HWC0 ? g.oh * g.ow : plan.tilePixels;
  }
  int64_t tileElems() const { return roundUp(plan.planes() * tilePitch(), 16) * kC0; }
  /// Channels of plane `s` of a step whose last plane has `lastChannels`.
  int64_t channelsOf(int64_t s, int64_t lastChannels) const {
    return s + 1 == plan.planes() ? lastChannels : kC0;
  }

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
    if (plan.ragged)
      return edgeOr(groups, s.groups - groups);
    return s.batchParts == 1 ? Affine::of(bid, groups) : Affine::mod(bid, s.groupParts, groups);
  }

  /// A padded buffer: the taps' reach, and a repeat of slack for the
  /// zero-row fills.
  int64_t paddedElems() const { return roundUp(plan.padPixels * kC0, kRepeatElems) + kRepeatElems; }

  /// An f32 graph input or output: converted in UB (vconv).
  /// A weight or bias the partition cloned into the kernel (at most 16
  /// elements) stays f32 in GM; larger ones are f16.
  bool f32Arg(int arg) const { return dv::getElementType(gm[arg].getType()).isF32(); }
  bool xF32() const { return dv::getElementType(gm[info.xArg].getType()).isF32(); }
  bool yF32() const { return dv::getElementType(gm[outArg].getType()).isF32(); }

  bool f32Steps() const {
    return llvm::any_of(info.epilogue, [](const EpilogueStep &e) { return !exactInF16(e); });
  }

  void allocate() {
    int64_t planes = plan.planes();
    if (plan.staged)
      for (Value &buf : staging)
        buf = t.alloc(dv::MemSpace::UB, roundUp(planes * stagePitch() * kC0, 64), f16);
    if (xF32())
      for (Value &buf : wideIn)
        buf = t.alloc(dv::MemSpace::UB, roundUp(planes * stagePitch() * kC0, 64), f32);
    for (Value &buf : padded)
      buf = t.alloc(dv::MemSpace::UB, planes * paddedElems(), f16);
    // One plane: the tile is the accumulator's first pixels when no
    // columns are dropped.
    if (planes == 1)
      acc = t.alloc(dv::MemSpace::UB, std::max(plan.accPixels, plan.tilePixels) * kC0, f16);
    else
      acc = t.alloc(dv::MemSpace::UB, planes * accPitch() * kC0, f16);
    tile = plan.po != g.ow || planes > 1 ? t.alloc(dv::MemSpace::UB, tileElems(), f16) : acc;
    if (f32Steps())
      wide = t.alloc(dv::MemSpace::UB, tileElems(), f32);
    if (yLayout == ActLayout::NCHW)
      for (Value &buf : nz)
        buf = t.alloc(dv::MemSpace::UB, tileElems(), f16);
    if (yF32())
      nz32 = t.alloc(dv::MemSpace::UB, tileElems(), f32);
    int64_t blockGroups = plan.groupsPerBlock();
    rawWeights = t.alloc(dv::MemSpace::UB,
                         roundUp((plan.residentWeights ? blockGroups : 1) * info.taps * kC0, 64), f16);
    if (f32Arg(info.wArg))
      rawWeights32 = t.alloc(dv::MemSpace::UB, roundUp(info.taps * kC0, 64), f32);
    if (info.biasArg >= 0 && f32Arg(info.biasArg))
      rawBias32 = t.alloc(dv::MemSpace::UB, 64, f32);
    weights = t.alloc(dv::MemSpace::UB, planes * info.taps * kRepeatElems, f16);
    if (info.biasArg >= 0) {
      rawBias = t.alloc(dv::MemSpace::UB,
                        roundUp((plan.residentWeights ? blockGroups : 1) * kC0, kRepeatElems), f16);
      biasRow = t.alloc(dv::MemSpace::UB, planes * kRepeatElems, f16);
    }
    place();
  }

  /// Explicit UB offsets (the allocator keeps them; every buffer is live
  /// for the whole kernel): the accumulator and the spread weights and
  /// bias first, the padded buffers, the taps' sources, last, from the
  /// second 64 KiB bank when they fit there. A vmla whose source is in its
  /// destination's bank waits a cycle a repeat more (a read and a write to
  /// one bank, the UB bank rule): ~3.1-3.5 -> ~2.2-2.5 cycles a repeat.
  void place() {
    uint64_t cursor = 0;
    auto put = [&](Value buf) {
      if (!buf)
        return;
      cursor = (cursor + 31) / 32 * 32;
      cast<dv::AllocOp>(buf.getDefiningOp()).setOffsetAttr(b.getI64IntegerAttr(int64_t(cursor)));
      cursor += dv::getBufferBytes(buf.getType());
    };
    constexpr uint64_t kBank = 64 * 1024;
    for (Value buf : {acc, weights, biasRow, tile != acc ? tile : Value(), wide, nz[0], nz[1], nz32,
                      rawWeights, rawWeights32, rawBias, rawBias32, staging[0], staging[1], wideIn[0],
                      wideIn[1]})
      put(buf);
    uint64_t padBytes = 2 * dv::getBufferBytes(padded[0].getType()) + 64;
    if (cursor < kBank && kBank + padBytes <= soc.bufferBytes(soc::Space::UB))
      cursor = kBank;
    put(padded[0]);
    put(padded[1]);
  }

  DenseI64ArrayAttr none() { return DenseI64ArrayAttr(); }
  DenseI64ArrayAttr attr(ArrayRef<int64_t> v) { return b.getDenseI64ArrayAttr(v); }
  Value pixels(Value buf, const Affine &p0, int64_t count) {
    return t.view(buf, p0 * kC0, count * kC0);
  }

  void fill(Value buf, int64_t elems, double value) {
    TileBuilder::chunks(elems, kRepeatElems, soc.max_repeat, [&](int64_t off, int64_t n) {
      dv::VDupOp::create(b, loc, b.getF32FloatAttr(float(value)),
                         t.view(buf, off, n * kRepeatElems), t.i64(n), none(), none(), none());
    });
  }

  /// The block's `groups` groups' weights and bias from group `group0`, GM
  /// -> UB: group k's at rawWeights pixel k taps and rawBias pixel k.
  void loadResidentWeights(const Affine &group0, int64_t groups) {
    // A split over groups divides the channels evenly.
    int64_t channels = plan.split.groupParts > 1 ? groups * kC0 : g.c;
    if (plan.ragged)
      channels = groups * kC0;
    dv::CopyNchw2Nc1hwc0Op::create(
        b, loc, t.view(gm[info.wArg], group0 * (kC0 * info.taps), channels * info.taps),
        t.view(rawWeights, 0, {groups * info.taps, kC0}, dv::Layout::NC1HWC0), t.i64(channels),
        t.i64(info.taps), t.i64(info.taps));
    if (info.biasArg < 0)
      return;
    if (channels % kC0)
      fill(rawBias, roundUp(groups * kC0, kRepeatElems), 0.0);
    dv::CopyOp::create(b, loc, t.view(gm[info.biasArg], group0 * kC0, channels),
                       t.view(rawBias, 0, channels), 1, uint64_t(channels * 2), 0, 0);
  }

  /// The group's weights (and bias), GM -> UB, issued beside its first
  /// band's load (during the previous group's last band).
  void loadWeights(const GroupAt &at) {
    if (plan.residentWeights)
      return;
    const Affine &group = at.group;
    int64_t cg = plan.split.cg, channels = at.channels;
    // copy_nchw2nc1hwc0 zeroes the lanes above `channels`.
    t.loadNchwPixels(gm[info.wArg], group * (cg * info.taps), channels, info.taps, info.taps,
                     rawWeights32 ? rawWeights32 : rawWeights, Affine(0));
    if (info.biasArg < 0)
      return;
    // Only a partial group leaves lanes of the bias unwritten (zero: the
    // padded channels of an NC1HWC0 result must be 0).
    if (channels < kC0) {
      if (rawBias32)
        dv::VDupOp::create(b, loc, b.getF32FloatAttr(0.0f), rawBias32, t.i64(1), none(), none(),
                           none());
      else
        fill(rawBias, kRepeatElems, 0.0);
    }
    Value raw = rawBias32 ? rawBias32 : rawBias;
    dv::CopyOp::create(b, loc, t.view(gm[info.biasArg], group * cg, channels),
                       t.view(raw, 0, channels), 1,
                       uint64_t(channels * (rawBias32 ? 4 : 2)), 0, 0);
  }

  /// The group's weights spread for the taps: each tap's 16 channel
  /// weights repeated over the 8 blocks of a repeat, the second operand of
  /// every tap's vmla (read with repeat stride 0); the bias likewise.
  void spreadWeights(const GroupAt &at, bool withBias = true) {
    int64_t elems = info.taps * kC0;
    if (rawWeights32)
      t.convert(rawWeights32, rawWeights, elems, soc.max_repeat);
    // Resident: group k's pixels from k taps (its bias pixel k).
    Affine local = plan.residentWeights ? at.local : Affine(0);
    // dst block j of repeat k = source block k: a 0-stride read of each tap.
    // A step's groups' weights are consecutive (plane s's from s taps).
    int64_t planes = plan.planes();
    dv::VMulsOp::create(b, loc, t.view(rawWeights, local * elems, planes * elems),
                        b.getF32FloatAttr(1.0f), weights, t.i64(planes * info.taps), attr({1, 0}),
                        attr({8, 1}), none());
    if (withBias)
      spreadBias(at);
  }
  void spreadBias(const GroupAt &at) {
    if (info.biasArg < 0)
      return;
    Affine local = plan.residentWeights ? at.local : Affine(0);
    int64_t planes = plan.planes();
    if (rawBias32)
      t.convert(rawBias32, t.view(rawBias, 0, 64), kC0, soc.max_repeat);
    dv::VMulsOp::create(b, loc, t.view(rawBias, local * kC0, planes * kC0), b.getF32FloatAttr(1.0f),
                        biasRow, t.i64(planes), attr({1, 0}), attr({8, 1}), none());
  }

  /// A band's first input row is padded row margin(); its load starts
  /// loadShift(bd) rows below.
  Affine loadShift(const RowBand &bd) const { return plan.rows.loadShift(bid, bd); }
  int64_t margin() const { return plan.rows.marginTop; }

  /// The band's zero rows and its real input rows, GM -> UB.
  void loadBand(const Affine &n, const GroupAt &at, const BandAt &band) {
    const RowBand &bd = *band.bd;
    const Affine &group = at.group;
    Value x = gm[info.xArg], pad = padded[band.which];
    int64_t cg = plan.split.cg, hw = g.h * g.w, planes = plan.planes();
    Affine inRow = band.outRow0 * g.sh + Affine(-g.padTop) + loadShift(bd); // first loaded row
    int64_t need = windowInputRows(g, bd.outRows);
    // Zero rows of the pads first (the other bands of this buffer may have
    // left real rows there; with one band they stay zero from the start);
    // whole repeats, so a fill may run into the real rows, which the load
    // then writes (the buffer has a repeat of slack).
    auto zeroRows = [&](int64_t row, int64_t rows) {
      int64_t elems = roundUp(rows * plan.wp * kC0, kRepeatElems);
      fill(t.view(pad, row * plan.wp * kC0, elems), elems, 0.0);
    };
    if (bd.zeroTop && plan.bands.size() > 1)
      zeroRows(margin(), bd.zeroTop);
    if (bd.zeroBottom && plan.bands.size() > 1)
      zeroRows(margin() + need - bd.zeroBottom, bd.zeroBottom);
    if (bd.realRows == 0)
      return; // every row in the pads: the zero rows are the band's input
    // Into the padded rows directly when not staged; an f32
    // graph input into f32 pixels (narrowed by computeBand).
    bool direct = !xF32() && !plan.staged;
    Value dst = xF32() ? wideIn[band.which] : plan.staged ? staging[band.which] : pad;
    Affine dstAt = direct ? (loadShift(bd) + margin()) * (plan.wp * kC0) : Affine(0);
    int64_t pitch = direct ? padPitch() : stagePitch(), count = bd.realRows * g.w;
    if (xLayout == ActLayout::NC1HWC0 && direct && plan.wp != g.w) {
      // One plane: a burst a row into its padded row.
      Affine src = ((n * plan.split.groups + group) * g.h + inRow) * (g.w * kC0);
      dv::CopyOp::create(b, loc, t.view(x, src, count * kC0),
                         pixels(pad, (loadShift(bd) + margin()) * plan.wp + Affine(g.padLeft),
                                (bd.realRows - 1) * plan.wp + g.w),
                         uint64_t(bd.realRows), uint64_t(g.w * kPixelBytes), 0,
                         uint64_t((plan.wp - g.w) * kPixelBytes));
      return;
    }
    if (xLayout == ActLayout::NC1HWC0) {
      // A step's planes: consecutive in GM, a burst each (one burst when
      // the planes are contiguous in both).
      Affine src = ((n * plan.split.groups + group) * g.h + inRow) * (g.w * kC0);
      int64_t srcGap = hw - count, dstGap = pitch - count;
      bool whole = planes == 1 || (srcGap == 0 && dstGap == 0);
      int64_t bursts = whole ? 1 : planes, burst = whole ? planes * count : count;
      dv::CopyOp::create(b, loc, t.view(x, src, ((planes - 1) * hw + count) * kC0),
                         t.view(dst, dstAt, ((planes - 1) * pitch + count) * kC0), uint64_t(bursts),
                         uint64_t(burst * kPixelBytes), uint64_t(whole ? 0 : srcGap * kPixelBytes),
                         uint64_t(whole ? 0 : dstGap * kPixelBytes));
      return;
    }
    for (int64_t s = 0; s < planes; ++s)
      t.loadNchwPixels(x, (n * g.c + (group + Affine(s)) * cg) * hw + inRow * g.w,
                       channelsOf(s, at.channels), count, hw, dst, dstAt + Affine(s * pitch * kC0));
  }

  /// The band's taps, epilogue and store.
  void computeBand(const Affine &n, const GroupAt &at, const BandAt &band) {
    const RowBand &bd = *band.bd;
    const Affine &group = at.group;
    const Affine &outRow0 = band.outRow0;
    int64_t which = band.which, planes = plan.planes();
    Value y = gm[outArg], pad = padded[which];
    int64_t cg = plan.split.cg, ohw = g.oh * g.ow;
    Affine realAt = (loadShift(bd) + margin()) * plan.wp; // the first real row's padded pixel
    for (int64_t s = 0; s < planes && bd.realRows; ++s) {
      Affine padAt = realAt + Affine(s * padPitch());
      int64_t stageAt = s * stagePitch();
      if (xF32()) {
        // The f32 pixels narrowed where the f16 ones go.
        int64_t elems = bd.realRows * g.w * kC0;
        Value dst = plan.staged ? staging[which] : pad;
        Affine dstAt = plan.staged ? Affine(stageAt) : padAt;
        t.convert(t.view(wideIn[which], stageAt * kC0, roundUp(elems, 64)),
                  t.view(dst, dstAt * kC0, roundUp(elems, 64)), elems, soc.max_repeat);
      }
      if (plan.staged)
        dv::CopyOp::create(b, loc, pixels(staging[which], Affine(stageAt), bd.realRows * g.w),
                           pixels(pad, padAt + Affine(g.padLeft), (bd.realRows - 1) * plan.wp + g.w),
                           uint64_t(bd.realRows), uint64_t(g.w * kPixelBytes), 0,
                           uint64_t((plan.wp - g.w) * kPixelBytes));
    }

    // The taps: acc = sum over (ki, kj) of w[ki, kj] x the band's pixels
    // from ki dh wp + kj dw, sw apart. Tap-major, and a step's planes
    // within a tap, so that the instructions on one chunk of acc are a
    // chunk and plane count apart (each reads what the last one wrote).
    int64_t outPixels = accPixelsOf(plan, bd.outRows), repeats = outPixels / kPixelsPerRepeat;
    for (int64_t tap = 0; tap < info.taps; ++tap) {
      int64_t ki = tap / g.kw, kj = tap % g.kw;
      int64_t from = (margin() + ki * g.dh) * plan.wp + kj * g.dw;
      for (int64_t s = 0; s < planes; ++s)
        for (int64_t r0 = 0; r0 < repeats; r0 += soc.max_repeat) {
          int64_t n = std::min<int64_t>(soc.max_repeat, repeats - r0);
          int64_t q0 = r0 * kPixelsPerRepeat;
          Value d = pixels(acc, Affine(s * accPitch() + q0), n * kPixelsPerRepeat);
          Value src = pixels(pad, Affine(s * padPitch() + from + g.sw * q0),
                             (n * kPixelsPerRepeat - 1) * g.sw + 1);
          Value w = t.view(weights, (s * info.taps + tap) * kRepeatElems, kRepeatElems);
          DenseI64ArrayAttr blk = attr({1, g.sw, 1}), rep = attr({8, 8 * g.sw, 0});
          if (tap == 0)
            dv::VMulOp::create(b, loc, src, w, d, t.i64(n), blk, rep, none());
          else
            dv::VMlaOp::create(b, loc, src, w, d, t.i64(n), blk, rep, none());
        }
    }
    if (info.biasArg >= 0 && plan.stepGroups)
      spreadBias(at);
    if (info.biasArg >= 0)
      for (int64_t s = 0; s < planes; ++s)
        for (int64_t r0 = 0; r0 < repeats; r0 += soc.max_repeat) {
          int64_t n = std::min<int64_t>(soc.max_repeat, repeats - r0);
          Value d = pixels(acc, Affine(s * accPitch() + r0 * kPixelsPerRepeat), n * kPixelsPerRepeat);
          dv::VAddOp::create(b, loc, d, t.view(biasRow, s * kRepeatElems, kRepeatElems), d, t.i64(n),
                             attr({1, 1, 1}), attr({8, 8, 0}), none());
        }

    // Output rows compacted (the po - ow columns past each row dropped).
    int64_t positions = bd.outRows * g.ow, mp = roundUp(positions, 16);
    if (tile != acc)
      for (int64_t s = 0; s < planes; ++s)
        dv::CopyOp::create(
            b, loc, pixels(acc, Affine(s * accPitch()), (bd.outRows - 1) * plan.po + g.ow),
            pixels(tile, Affine(s * tilePitch()), positions), uint64_t(bd.outRows),
            uint64_t(g.ow * kPixelBytes), uint64_t((plan.po - g.ow) * kPixelBytes), 0);
    epilogue(planes == 1 ? mp * kC0 : tileElems());

    if (yLayout == ActLayout::NC1HWC0) {
      // A step's planes at pitch oh ow: one store.
      Affine at = ((n * plan.split.groups + group) * ohw + outRow0 * g.ow) * kC0;
      dv::CopyOp::create(b, loc, pixels(tile, Affine(0), planes * positions),
                         t.view(y, at, planes * positions * kC0), 1,
                         uint64_t(planes * positions * kPixelBytes), 0, 0);
      return;
    }
    t.storeNchwPixels(tile, nz[which], nz32, planes, planes == 1 ? mp : tilePitch(), y,
                      (n * g.c + group * cg) * ohw + outRow0 * g.ow,
                      (planes - 1) * kC0 + at.channels, positions, ohw, soc.max_repeat);
  }

  /// The epilogue steps on the tile's first `elems` elements: in f16, or
  /// widened to f32 and back when a step would lose accuracy in f16.
  void epilogue(int64_t elems) {
    if (info.epilogue.empty())
      return;
    if (!f32Steps()) {
      for (const EpilogueStep &e : info.epilogue)
        flat.step(e, t.view(tile, 0, elems), elems);
      return;
    }
    Value w = t.view(wide, 0, elems);
    t.convert(t.view(tile, 0, elems), w, elems, soc.max_repeat);
    for (const EpilogueStep &e : info.epilogue)
      flat.step(e, w, elems);
    t.convert(w, t.view(tile, 0, elems), elems, soc.max_repeat);
  }

  TileBuilder t;
  OpBuilder &b;
  Location loc;
  const DepthwiseInfo &info;
  const ConvGeometry &g;
  const DepthwisePlan &plan;
  ArrayRef<Value> gm;
  unsigned outArg;
  ActLayout xLayout, yLayout;
  const soc::SocSpec &soc;
  FlatTileEmitter flat;
  Type f16, f32;
  Value bid;
  Value staging[2], wideIn[2], padded[2], acc, tile, wide, nz[2], nz32, rawWeights, rawWeights32,
      weights, rawBias, rawBias32, biasRow;
};

LogicalResult lowerDepthwise(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  // The conv reads its weight and bias from GM whatever their size.
  auto readByConv = [](vg::ConstantOp constant) {
    return llvm::any_of(constant->getUsers(), [](Operation *user) { return isa<vg::ConvOp>(user); });
  };
  SmallVector<vg::ConstantOp> constants;
  for (auto constant : func.getBody().front().getOps<vg::ConstantOp>())
    if (!scalarImmediate(constant.getResult()) || readByConv(constant))
      constants.push_back(constant);
  for (vg::ConstantOp constant : constants)
    hoistConstantToArgument(func, call, constant);
  DepthwiseInfo info;
  if (std::string why = analyzeDepthwise(func, call, info); !why.empty())
    return func.emitError() << why;
  GmSignature signature = gmSignature(call);
  unsigned outArg = call.getNumOperands();
  ActLayout xLayout = activationLayout(call, info.xArg), yLayout = activationLayout(call, outArg);
  for (unsigned i : {info.xArg, outArg})
    signature.types[i] = layoutGmType(call, i, signature.types[i]);
  DepthwisePlan plan;
  auto f16Arg = [&](int arg) { return arg < 0 || dv::getElementType(signature.types[arg]).isF16(); };
  if (!planDepthwise(info, xLayout, yLayout, dv::getElementType(signature.types[info.xArg]).isF32(),
                     dv::getElementType(signature.types[outArg]).isF32(),
                     f16Arg(int(info.wArg)) && f16Arg(info.biasArg), soc, plan))
    return func.emitError() << "kernel " << func.getSymName()
                            << ": no depthwise band fits the SoC's UB";
  OpBuilder b(func.getContext());
  Block *entry = beginKernel(b, func, signature.types, plan.blocks(), "vector");
  SmallVector<Value> gmArgs(entry->getArguments());
  DepthwiseEmitter(b, func.getLoc(), info, plan, gmArgs, outArg, xLayout, yLayout, soc).emit();
  return finishKernel(entry, func, call);
}

/// The input and the output, each in either layout.
SmallVector<int> depthwiseNc1hwc0Classes(func::FuncOp func) {
  func::CallOp call = soleCall(func);
  DepthwiseInfo info;
  if (!call || call.getNumResults() != 1 || !analyzeDepthwise(func, call, info).empty())
    return {};
  return nc1hwc0ClassesOf(call, {{info.xArg, 0}, {call.getNumOperands(), 1}});
}

} // namespace

bool depthwiseRunsOnVector(func::FuncOp kernel) {
  // The analysis builds the kernel's GM signature (dv types); the task
  // estimates asking it need not have loaded the dialect.
  kernel.getContext()->getOrLoadDialect<dv::DVDialect>();
  DepthwiseInfo info;
  return depthwiseConvOf(kernel) && analyzeDepthwise(kernel, soleCall(kernel), info).empty();
}

extern const KernelTemplate kDepthwiseTemplate = {"depthwise", depthwiseTemplateMismatchOf,
                                                  lowerDepthwise, depthwiseNc1hwc0Classes};

} // namespace vinci::lower
