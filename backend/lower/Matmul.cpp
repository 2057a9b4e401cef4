//===- Matmul.cpp - the Cube matmul template -------------------------------===//
//
//  - matmul (Cube): a cube kernel whose anchor is vg.matmul, [M,K] x [K,N],
//    [B..,M,K] x [B..,K,N] (equal batch dims) or [B..,M,K] x [K,N] (a 2-D
//    weight broadcast over the batch: folded into M; with transpose_a, a
//    batch whose B has batch stride 0), transpose_a / transpose_b, any M,
//    N, K; followed by the epilogue chain the partition fused (applied in
//    UB after move_l0c_ub, in place on the output tile):
//    relu, sigmoid, tanh, gelu (tanh form, also for approximate = "none"),
//    exp, log, sqrt, reciprocal, abs, neg, leaky relu, clip, cast; add, sub,
//    mul, div, max, min with a scalar immediate, a [N] (or [1,..,N]) row
//    broadcast over the rows, a one-element tensor, or a tensor of the
//    output's shape, on either side; and, last, a softmax over the rows
//    when a row fits one N tile (KernelRules' cubeEpilogueTakesSoftmax:
//    attention's QK^T kernel then stores probabilities, not scores); and
//    after that softmax, attention's PV matmul (KernelRules'
//    cubeKernelTakesAttentionValue): each probability tile goes UB -> L1 as
//    the A operand of a second mmad with V's [S, D] panel of the same batch,
//    so the kernel stores softmax(QK^T) x V and the probabilities never
//    reach GM either (a flash-style attention kernel for S <= 128; only the
//    head-merge store may follow it). Tensor constants the partition cloned
//    into the kernel (small biases) become kernel arguments, handed over by
//    the graph like weights. Anything else is rejected with a reason.
//
// Storage precision (force_fp16): the Cube reads f16. f16 operands in GM go
// GM -ND->NZ-> L1 with copy_nd2nz; f32 operands (graph inputs) go GM -> UB
// (NZ, f32) -> vconv f16 -> L1. L1 -> L0A is a fractal gather (transposed
// for transpose_a), L1 -> L0B a gather with transpose (none for
// transpose_b). L0C accumulates in f32; with an epilogue, move_l0c_ub keeps
// f32 and the epilogue computes in f32 (one vconv to f16 at the end for an
// f16 output); without one it converts straight to the output's GM type.
// copy_nz2nd writes the valid rows and columns only. Tiles are zero padded
// to 16 x 16 fractals in L1 (copy_nd2nz pads), so padded rows, columns and
// K contribute 0.
//
// The block grid and the tiles are MatmulPlan.h's (planGrid; on a ragged
// grid the edge block's first tile starts at its first own column, tileAt
// and edgeOr, the depthwise template's form of the same split): one buffer
// set, allocated once per kernel for the largest tile (a smaller tile uses
// a view of it). Double buffering: the K-step buffers (L1 A and B, L0A,
// L0B) have two slots, step s loads into slot s mod 2 while the Cube reads
// the other; the step count is made even (a block of several tiles cuts a
// one-step K in two) so the slots alternate across tiles too, and a tile's
// steps run as a loop of pairs between straight first and last pairs, so
// the next tile's loads wait for exactly the step that frees their slot
// (a weight stream, one fractal row of A, runs all its steps straight and
// loads its bias once: Plan::straightKSteps, blockRowOperands).
// When a row of tiles has several N tiles and its A panel (Mt x all of K)
// fits L1 beside the B slots, the panel is loaded once per row and stays
// while the N tiles go by. The epilogue overlaps the next tile: its
// operands (bias row, residual tile) are loaded before the tile's K steps
// end, its move out of L0C precedes the next tile's first mmad, and the
// rest is cut into groups placed between the next tile's K steps (the
// Scalar unit issues in order and stalls on a full Vector queue, so an
// epilogue issued in one piece holds back the next tile's loads). Tiles walk
// (batch, M, N), each level's full tiles then its tail; a level's tiles
// after the first are a loop whose iteration i runs tile i + 1 beside tile
// i's epilogue; the last tile's epilogue follows its steps. The L0C tile
// and the output tile in UB are single: not yet double-buffered.
//
//===----------------------------------------------------------------------===//
#include "backend/lower/Epilogue.h"
#include "backend/lower/LowerCommon.h"
#include "backend/lower/MatmulPlan.h"
#include "passes/KernelRules.h"

#include "dv/DvOps.h"
#include "vg/VgOps.h"
#include "vinci/soc.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <limits>

using namespace mlir;

namespace vinci::lower {
namespace {

using namespace matmul;

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

/// The fewest instructions of an epilogue group placed between two K steps
/// of the next tile (the Vector queue holds 8).
constexpr int64_t kEpilogueGroup = 4;
/// Bytes a Vector repeat reads from each operand.
constexpr int64_t kRepeatBytes = 256;

std::string str(const Twine &t) { return t.str(); }

/// A constant of more than one element inside the kernel: lowering passes
/// it in as an argument (the graph then hands it over like a weight).
bool isTensorConstant(Value v) {
  return v.getDefiningOp<vg::ConstantOp>() && !scalarImmediate(v);
}

/// The kernel argument `v` is (-1 for a tensor constant, -2 otherwise).
int argIndex(Block &body, Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == &body ? int(arg.getArgNumber()) : -2;
  return isTensorConstant(v) ? -1 : -2;
}

/// Why the matmul template cannot lower `func` ("": it can).
std::string analyzeMatmul(func::FuncOp func, vg::MatMulOp mm, MatmulInfo &info) {
  Block &body = func.getBody().front();
  int aArg = argIndex(body, mm.getA()), bArg = argIndex(body, mm.getB());
  if (aArg == -2 || bArg == -2)
    return "vg.matmul operands computed inside the kernel have no Cube lowering yet";
  info.aArg = aArg;
  info.bArg = bArg;
  info.ta = mm.getTransposeA();
  info.tb = mm.getTransposeB();
  auto aType = cast<RankedTensorType>(mm.getA().getType());
  auto bType = cast<RankedTensorType>(mm.getB().getType());
  auto cType = cast<RankedTensorType>(mm.getResult().getType());
  for (RankedTensorType t : {aType, bType, cType})
    if (!t.getElementType().isF16() && !t.getElementType().isF32())
      return str("vg.matmul on " + Twine(t.getElementType().isInteger() ? "integer" : "non-f16/f32") +
                 " tensors has no Cube lowering yet (f16/f32 only)");
  ArrayRef<int64_t> as = aType.getShape(), bs = bType.getShape();
  if (as.size() < 2 || bs.size() < 2)
    return "vg.matmul with a 1-D operand has no Cube lowering yet";
  int64_t aRows = as[as.size() - 2], aCols = as.back();
  int64_t bRows = bs[bs.size() - 2], bCols = bs.back();
  int64_t M = info.ta ? aCols : aRows, K = info.ta ? aRows : aCols;
  int64_t Kb = info.tb ? bCols : bRows, N = info.tb ? bRows : bCols;
  if (K != Kb)
    return "vg.matmul with mismatched K";
  if (bs.size() == 2 && !info.ta) {
    // [B.., M, K] x [K, N] is [B*M, K] x [K, N].
    info.batch = 1;
    info.M = product(as.drop_back());
  } else if (bs.size() == 2) {
    // [B.., K, M]^T x [K, N]: a batch's rows are columns of its [K, M]
    // slab, so the batch cannot fold into the rows; it is a batch whose B
    // is the same weight for every batch (batch stride 0).
    info.batch = product(as.drop_back(2));
    info.M = M;
  } else {
    if (as.size() != bs.size() || as.drop_back(2) != bs.drop_back(2))
      return "vg.matmul broadcasting batch dims has no Cube lowering yet (equal batch dims, or a "
             "2-D weight)";
    info.batch = product(as.drop_back(2));
    info.M = M;
    info.bBatched = true;
  }
  info.N = N;
  info.K = K;
  if (cType.getNumElements() != info.batch * info.M * info.N)
    return "vg.matmul result shape does not match its operands";

  // The epilogue: a chain on the matmul's result.
  Value current = mm.getResult();
  ArrayRef<int64_t> outShape = cType.getShape();
  for (Operation &op : body) {
    if (&op == mm.getOperation() || isa<vg::ConstantOp>(op))
      continue;
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (ret.getNumOperands() != 1 || ret.getOperand(0) != current)
        return "a Cube kernel must return the end of its epilogue chain (one result)";
      continue;
    }
    // The head split's reshape is store addressing, with its transpose.
    if (auto reshape = dyn_cast<vg::ReshapeOp>(op)) {
      Operation *user = reshape->hasOneUse() ? *reshape->user_begin() : nullptr;
      if (info.storeHeadMerged || info.storeHeadSplitDim || reshape.getInput() != current ||
          !user || !cubeStoreHeadSplitDim(user, mm))
        return "a reshape in a Cube kernel other than a head split's has no Cube lowering yet";
      current = reshape.getOutput();
      continue;
    }
    if (isa<vg::TransposeOp>(op) && op.getOperand(0).getDefiningOp<vg::ReshapeOp>()) {
      int64_t headDim = cubeStoreHeadSplitDim(&op, mm);
      if (op.getOperand(0) != current || headDim == 0)
        return "a transpose of a reshape in a Cube kernel other than a head split has no Cube "
               "lowering yet";
      info.storeHeadSplitDim = headDim;
      current = op.getResult(0);
      continue;
    }
    if (isa<vg::TransposeOp>(op)) {
      if (info.storeHeadMerged || info.storeHeadSplitDim ||
          !llvm::is_contained(op.getOperands(), current) || !cubeStoreTakesTranspose(&op, mm) ||
          !info.bBatched)
        return "a transpose in a Cube kernel other than a head merge of a batched matmul's "
               "result has no Cube lowering yet";
      info.storeHeadMerged = true;
      current = op.getResult(0);
      continue;
    }
    if (info.storeHeadMerged)
      return (opName(&op) + " after the head-merge store has no Cube lowering yet").str();
    if (current.getDefiningOp<vg::ReshapeOp>() || info.storeHeadSplitDim)
      return (opName(&op) + " after the head-split store has no Cube lowering yet").str();
    // softmax(QK^T) x V: the probabilities stay on chip.
    if (auto pv = dyn_cast<vg::MatMulOp>(op)) {
      if (!info.rowSoftmax || info.attention || !cubeKernelTakesAttentionValue(pv, current))
        return "a second vg.matmul in a Cube kernel other than attention's softmax(QK^T) x V has "
               "no Cube lowering yet";
      int vArg = argIndex(body, pv.getB());
      if (vArg < 0)
        return "attention's V operand must be a kernel argument for the Cube template";
      info.attention = true;
      info.vArg = vArg;
      info.headDim = cast<RankedTensorType>(pv.getB().getType()).getShape().back();
      current = pv.getResult();
      continue;
    }
    if (info.rowSoftmax)
      return (opName(&op) + " after the softmax epilogue has no Cube lowering yet").str();
    if (isa<vg::SoftmaxOp>(op)) {
      if (op.getOperand(0) != current || !cubeEpilogueTakesSoftmax(&op))
        return "a softmax in a Cube kernel other than over the last axis of at most " +
               std::to_string(kCubeMaxNTile) + " columns (a multiple of 16) has no Cube lowering";
      info.rowSoftmax = true;
      current = op.getResult(0);
      continue;
    }
    Epilogue e;
    if (std::string why = classifyEpilogueStep(&op, current, outShape, e); !why.empty())
      return why;
    if (e.batchBroadcast && product(outShape.drop_back(2)) != info.batch)
      return (opName(&op) + " of a matrix broadcast over a batch folded into the rows has no "
                            "Cube epilogue")
          .str();
    Type resultElement = cast<RankedTensorType>(op.getResult(0).getType()).getElementType();
    if (!resultElement.isF16() && !resultElement.isF32())
      return (opName(&op) + " to a non-float type has no Cube epilogue").str();
    if (e.other) {
      int arg = argIndex(body, e.other);
      if (arg == -2)
        return (opName(&op) + " of a value computed inside the kernel has no Cube epilogue yet")
            .str();
      Type element = cast<RankedTensorType>(e.other.getType()).getElementType();
      if (!element.isF16() && !element.isF32())
        return (opName(&op) + " of a non-float tensor has no Cube epilogue").str();
      e.arg = arg;
    }
    info.epilogue.push_back(e);
    current = op.getResult(0);
  }
  return {};
}

/// The kernel's first vg.matmul (the second, if any, is attention's PV
/// matmul, which analyzeMatmul takes as part of the epilogue).
vg::MatMulOp findMatmul(func::FuncOp func) {
  vg::MatMulOp found;
  func.walk([&](vg::MatMulOp mm) {
    if (!found)
      found = mm;
  });
  return found;
}

std::optional<std::string> matmulTemplateMismatch(func::FuncOp func) {
  auto kind = func->getAttrOfType<StringAttr>("vinci.kernel");
  if (!kind || kind.getValue() != "cube")
    return std::nullopt;
  int count = 0;
  func.walk([&](vg::MatMulOp) { ++count; });
  if (count == 0)
    return std::nullopt;
  if (count > 2)
    return std::string("a Cube kernel with more than two vg.matmul ops has no lowering template");
  MatmulInfo info;
  return analyzeMatmul(func, findMatmul(func), info);
}

//===----------------------------------------------------------------------===//
// Emission helpers
//===----------------------------------------------------------------------===//

/// An affine element offset: c + sum coef * term, a term being an index (a
/// loop counter or block_idx) or, for a 2-D grid of blocks, block_idx mod G
/// or block_idx floordiv G.
struct Aff {
  struct Term {
    Value v;
    int64_t coef;
    int64_t mod = 0, div = 0; // G of `v mod G` / `v floordiv G`; 0: v itself
    bool sameAtom(const Term &o) const { return v == o.v && mod == o.mod && div == o.div; }
  };
  int64_t c = 0;
  SmallVector<Term> terms;
  Aff() = default;
  Aff(int64_t c) : c(c) {}
  static Aff of(Value v, int64_t coef, int64_t mod = 0, int64_t div = 0) {
    Aff a;
    if (v && coef)
      a.terms.push_back({v, coef, mod, div});
    return a;
  }
  Aff operator+(const Aff &o) const {
    Aff r = *this;
    r.c += o.c;
    for (const Term &t : o.terms) {
      auto it = llvm::find_if(r.terms, [&](const Term &x) { return x.sameAtom(t); });
      if (it != r.terms.end())
        it->coef += t.coef;
      else
        r.terms.push_back(t);
    }
    llvm::erase_if(r.terms, [](const Term &t) { return t.coef == 0; });
    return r;
  }
  Aff operator*(int64_t s) const {
    Aff r;
    r.c = c * s;
    for (Term t : terms)
      if (t.coef * s) {
        t.coef *= s;
        r.terms.push_back(t);
      }
    return r;
  }
};

/// K step `s` of a tile: its first row of K and its depth.
struct KStep {
  int64_t k0, ks;
};

class MatmulEmitter {
public:
  MatmulEmitter(OpBuilder &b, Location loc, const MatmulInfo &info, const Plan &plan,
                ArrayRef<Value> gm, unsigned outArg, const soc::SocSpec &soc)
      : b(b), loc(loc), info(info), plan(plan), gm(gm), outArg(outArg), soc(soc),
        f16(b.getF16Type()), f32(b.getF32Type()), flat(b, loc, soc.max_repeat) {}

  void emit() {
    if (plan.blockDim() > 1)
      bid = dv::BlockIdxOp::create(b, loc, b.getIndexType()).getResult();
    allocate();
    if (plan.blockRowOperands)
      loadBlockRowOperands();
    // Tiles in (batch, rows, columns) order; each level's full tiles, then
    // its tail.
    SmallVector<Segment> batches = {{1, plan.Bb, 0}}, rows, cols;
    auto segments = [](int64_t extent, int64_t tile, SmallVectorImpl<Segment> &out) {
      if (extent / tile)
        out.push_back({tile, extent / tile, 0});
      if (extent % tile)
        out.push_back({extent % tile, 1, extent / tile * tile});
    };
    segments(plan.Mb, plan.Mt, rows);
    segments(plan.Nb, plan.Nt, cols);
    levels = {batches, rows, cols};
    Pos first;
    walk(0, first, std::nullopt);
    Pos last;
    for (unsigned l = 0; l < 3; ++l) {
      last.seg[l] = int(levels[l].size()) - 1;
      last.idx[l] = Aff(levels[l].back().count - 1);
    }
    emitEpilogue(tileAt(last));
  }

private:
  struct Segment {
    int64_t size, count, base;
  };
  /// A tile's place in the walk: per level (batch, row, column) its segment
  /// and its index within the segment.
  struct Pos {
    int seg[3] = {0, 0, 0};
    Aff idx[3];
  };
  struct Tile {
    int64_t ms, ns;
    Aff batch, row, col; // batch index, first output row and column
    bool newRow = false; // the first tile of a row of tiles
    bool firstRow = false; // in the block's first row of tiles (of its first batch)
    Aff colInBlock;        // t.col without the block's first column
  };

  void allocate() {
    int64_t Mt = plan.Mt, Nt = plan.Nt, Kt = plan.Kt;
    gmOutType = dv::getElementType(gm[outArg].getType());
    // The epilogue computes in f32 (L0C's precision); without one the tile
    // moves out of L0C straight into the output's GM type.
    outType = info.epilogue.empty() && !info.rowSoftmax ? gmOutType : f32;
    aType = dv::getElementType(gm[info.aArg].getType());
    bType = dv::getElementType(gm[info.bArg].getType());
    int64_t KpAll = roundUp(info.K, 16);
    // Two slots of every K-step buffer: step s loads into slot s % 2 while
    // the Cube reads the other (one when every tile is one step).
    if (plan.panelA)
      l1A[0] = alloc(dv::MemSpace::L1, info.ta ? KpAll : Mt, info.ta ? Mt : KpAll, f16);
    if (plan.panelB)
      l1BStrip = alloc(dv::MemSpace::L1, KpAll, roundUp(plan.Nb, 16), f16);
    for (int s = 0; s < (plan.kSteps > 1 ? 2 : 1); ++s) {
      if (!plan.panelA)
        l1A[s] = alloc(dv::MemSpace::L1, info.ta ? Kt : Mt, info.ta ? Mt : Kt, f16);
      if (!plan.panelB)
        l1B[s] = alloc(dv::MemSpace::L1, info.tb ? Nt : Kt, info.tb ? Kt : Nt, f16);
      l0A[s] = alloc(dv::MemSpace::L0A, Mt, Kt, f16);
      l0B[s] = alloc(dv::MemSpace::L0B, Kt, Nt, f16);
    }
    if (!aType.isF16()) {
      ubA32 = alloc(dv::MemSpace::UB, info.ta ? Kt : Mt, info.ta ? Mt : Kt, aType);
      ubA16 = alloc(dv::MemSpace::UB, info.ta ? Kt : Mt, info.ta ? Mt : Kt, f16);
    }
    if (!bType.isF16()) {
      ubB32 = alloc(dv::MemSpace::UB, info.tb ? Nt : Kt, info.tb ? Kt : Nt, bType);
      ubB16 = alloc(dv::MemSpace::UB, info.tb ? Nt : Kt, info.tb ? Kt : Nt, f16);
    }
    l0C = alloc(dv::MemSpace::L0C, Mt, Nt, f32);
    ubOut = alloc(dv::MemSpace::UB, Mt, Nt, outType);
    if (gmOutType != outType && !info.attention)
      ubOutGm = alloc(dv::MemSpace::UB, Mt, Nt, gmOutType);
    if (info.attention) {
      int64_t D = info.headDim;
      ubP16 = alloc(dv::MemSpace::UB, Mt, Nt, f16);
      l1P = alloc(dv::MemSpace::L1, Mt, Nt, f16);
      l1V = alloc(dv::MemSpace::L1, Nt, D, f16);
      Type vType = dv::getElementType(gm[info.vArg].getType());
      if (!vType.isF16()) {
        ubV32 = alloc(dv::MemSpace::UB, Nt, D, vType);
        ubV16 = alloc(dv::MemSpace::UB, Nt, D, f16);
      }
      l0P = alloc(dv::MemSpace::L0A, Mt, Nt, f16);
      l0V = alloc(dv::MemSpace::L0B, Nt, D, f16);
      l0C2 = alloc(dv::MemSpace::L0C, Mt, D, f32);
      ubOut2 = alloc(dv::MemSpace::UB, Mt, D, gmOutType);
    }
    if (info.rowSoftmax) {
      // A masked repeat still spans 8 blocks: the last row's reaches 48
      // elements past the [Mt][16] data.
      ubFold = allocNd(Mt * 16 + kRowRepeatSlack, f32);
      ubRowsBc = allocNd(Mt * 16 + kRowRepeatSlack, f32);
      ubStat = allocNd(kStatLanes, f32);
      if (info.softmax.protect)
        ubLive = allocNd(kStatLanes, f32);
    }
    // Epilogue operands, one buffer set per step (they are all loaded
    // before the tile's K steps): the GM type's, and the output type's when
    // it differs; gelu's scratch tile.
    operandBufs.resize(info.epilogue.size());
    for (auto [i, e] : llvm::enumerate(info.epilogue)) {
      if (e.kind == Epilogue::Unary && e.op == Epilogue::Gelu && !ubScratch)
        ubScratch = alloc(dv::MemSpace::UB, Mt, Nt, outType);
      if (e.kind != Epilogue::Row && e.kind != Epilogue::Elem && e.kind != Epilogue::Full)
        continue;
      Type t = dv::getElementType(gm[e.arg].getType());
      OperandBufs &bufs = operandBufs[i];
      if (e.kind == Epilogue::Full) {
        bufs.value = alloc(dv::MemSpace::UB, Mt, Nt, outType);
        bufs.raw = t == outType ? bufs.value : alloc(dv::MemSpace::UB, Mt, Nt, t);
        continue;
      }
      int64_t rowElems = roundUp(plan.blockRowOperands ? plan.Nb : Nt, 128);
      bufs.value = allocNd(rowElems, outType);
      bufs.raw = t == outType ? bufs.value : allocNd(rowElems, t);
      if (e.kind == Epilogue::Row)
        bufs.pattern = allocNd(roundUp(Nt, 16) / 16 * kRepeatBytes / dv::elementBytes(outType),
                               outType);
      if (e.kind == Epilogue::Elem && !ubBcast)
        ubBcast = allocNd(256 / dv::elementBytes(outType), outType);
    }
  }

  //===--------------------------------------------------------------------===//
  // The walk over the block's tiles
  //===--------------------------------------------------------------------===//
  //
  // Tiles in (batch, row, column) order, each level's full tiles then its
  // tail. Each tile's epilogue is emitted with the next tile's K steps:
  // after each K step, a few of its instructions (`EpilogueGroups`). The
  // Scalar unit issues in program order and stalls while a pipe's queue is
  // full, so an epilogue issued in one piece after its tile's K steps holds
  // back the next tile's loads until its Vector instructions are nearly all
  // under way, and the GM port idles; interleaved, each K step's loads are
  // queued before the epilogue's next few instructions. The last tile's
  // epilogue follows its K steps. At each level, the first tile of a
  // segment follows the previous segment's last tile; the others are a
  // loop whose iteration i runs tile i + 1 after tile i.

  Tile tileAt(const Pos &p) {
    const Segment &ms = levels[1][p.seg[1]], &ns = levels[2][p.seg[2]];
    Tile t;
    t.ms = ms.size;
    t.ns = ns.size;
    t.batch = blockTerm(Axis::Batch, plan.Bb) + p.idx[0];
    t.row = blockTerm(Axis::Rows, plan.Mb) + p.idx[1] * plan.Mt + Aff(ms.base);
    // A new row of tiles loads its A panel.
    auto first = [&](unsigned level) {
      return p.seg[level] == 0 && p.idx[level].terms.empty() && p.idx[level].c == 0;
    };
    t.colInBlock = p.idx[2] * plan.Nt + Aff(ns.base);
    // Ragged blocks: the edge block's first tile starts at its first own
    // column (planGrid made it the only one that starts before it; walk
    // emits it and its epilogue outside loops).
    if (plan.raggedEdge && first(2))
      t.colInBlock = t.colInBlock + edgeOr(0, plan.edgeShift());
    t.col = blockTerm(Axis::Cols, plan.Nb) + t.colInBlock;
    t.newRow = first(2);
    t.firstRow = first(0) && first(1);
    return t;
  }

  /// The last tile of the subtree at `p` below `level`.
  Pos lastBelow(Pos p, unsigned level) {
    for (unsigned l = level + 1; l < 3; ++l) {
      p.seg[l] = int(levels[l].size()) - 1;
      p.idx[l] = Aff(levels[l].back().count - 1);
    }
    return p;
  }

  void walk(unsigned level, Pos pos, std::optional<Pos> prev) {
    if (level == 3) {
      emitTile(tileAt(pos), prev ? std::optional<Tile>(tileAt(*prev)) : std::nullopt);
      return;
    }
    for (auto [g, seg] : llvm::enumerate(levels[level])) {
      pos.seg[level] = int(g);
      pos.idx[level] = Aff();
      walk(level + 1, pos, prev);
      if (seg.count > 1) {
        auto run = [&](Aff index) {
          Pos here = pos, before = pos;
          here.idx[level] = index + Aff(1);
          before.idx[level] = index;
          walk(level + 1, here, lastBelow(before, level));
        };
        // Run i emits tile i + 1 and tile i's epilogue. On a ragged grid
        // the first column tile's epilogue stores at its shifted column,
        // which a loop's index cannot give: its run is static.
        int64_t runs = seg.count - 1, peeled = plan.raggedEdge && level == 2 && g == 0;
        if (peeled)
          run(Aff(0));
        if (runs - peeled == 1) {
          run(Aff(peeled));
        } else if (runs - peeled > 1) {
          auto loop = dv::LoopOp::create(b, loc, runs - peeled);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(&loop.getBody().front());
          run(Aff::of(loop.getInductionVar(), 1) + Aff(peeled));
        }
      }
      pos.idx[level] = Aff(seg.count - 1);
      prev = lastBelow(pos, level);
    }
  }

  //===--------------------------------------------------------------------===//
  // Loads
  //===--------------------------------------------------------------------===//

  KStep kStepAt(int64_t s) const {
    int64_t k0 = s * plan.Kt;
    return {k0, std::min(plan.Kt, info.K - k0)};
  }

  /// K step `s` of tile `t` GM -> L1 slot s % 2 (A unless it is the panel).
  void loadStep(const Tile &t, int64_t s) { loadStepAt(t, Aff(kStepAt(s).k0), kStepAt(s).ks, s % 2); }

  void loadStepAt(const Tile &t, const Aff &k0, int64_t ks, int slot) {
    int64_t M = info.M, N = info.N, K = info.K;
    Aff aBase = t.batch * (M * K);
    if (!plan.panelA) {
      if (!info.ta)
        load(gm[info.aArg], l1A[slot], ubA32, ubA16, aBase + t.row * K + k0, t.ms, ks, K);
      else
        load(gm[info.aArg], l1A[slot], ubA32, ubA16, aBase + k0 * M + t.row, ks, t.ms, M);
    }
    Aff bBase = info.bBatched ? t.batch * (K * N) : Aff();
    if (plan.panelB)
      return;
    if (plan.nzB && info.tb)
      loadNzRows(gm[info.bArg], l1B[slot], k0, t.col, ks, t.ns);
    else if (plan.nzB)
      loadNz(gm[info.bArg], l1B[slot], k0, t.col, ks, t.ns);
    else if (!info.tb)
      load(gm[info.bArg], l1B[slot], ubB32, ubB16, bBase + k0 * N + t.col, ks, t.ns, N);
    else
      load(gm[info.bArg], l1B[slot], ubB32, ubB16, bBase + t.col * K + k0, t.ns, ks, K);
  }

  /// NZ tile conversion (same element order in both types: C0 = 16).
  void convert(Value src, Value dst, int64_t elems) {
    bool widen = dv::getElementType(dst.getType()) == f32;
    auto rep = b.getDenseI64ArrayAttr(widen ? ArrayRef<int64_t>{8, 4} : ArrayRef<int64_t>{4, 8});
    chunks(elems, 64, [&](int64_t off, int64_t n) {
      dv::VConvOp::create(b, loc, ndView(src, off, n * 64), ndView(dst, off, n * 64),
                          dv::RoundModeAttr::get(b.getContext(), dv::RoundMode::Rint), I(n),
                          DenseI64ArrayAttr(), rep, DenseI64ArrayAttr());
    });
  }

  /// GM ND rows x cols (row stride `stride`) at `offset` -> the f16 NZ tile
  /// `l1` (rowsP x colsP), through UB and vconv for f32 tensors.
  void load(Value gmArg, Value l1, Value ub32, Value ub16, const Aff &offset, int64_t rows,
            int64_t cols, int64_t stride, const Aff &l1Offset = Aff()) {
    int64_t rowsP = roundUp(rows, 16), colsP = roundUp(cols, 16);
    Value src = gmView(gmArg, offset, (rows - 1) * stride + cols);
    Value dst = tileViewAt(l1, rowsP, colsP, l1Offset);
    if (!ub32) {
      dv::CopyNd2NzOp::create(b, loc, src, dst, I(rows), I(cols), I(stride), I(rowsP), I(colsP));
      return;
    }
    Value raw = tileView(ub32, rowsP, colsP), half = tileView(ub16, rowsP, colsP);
    dv::CopyNd2NzOp::create(b, loc, src, raw, I(rows), I(cols), I(stride), I(rowsP), I(colsP));
    convert(raw, half, rowsP * colsP);
    dv::CopyOp::create(b, loc, half, dst, I(1), I(rowsP * colsP * 2), IntegerAttr(),
                       IntegerAttr());
  }

  /// Rows [k0, k0 + ks) and columns [col, col + ns) of a FRACTAL_NZ weight
  /// [N/16][Kp][16] -> the NZ tile in L1: one burst of the tile's padded
  /// rows per 16 columns. The GM padding (K to Kp, N to a multiple of 16)
  /// is zeros, so the K tail (k0 + its padded rows = Kp) and the N tail
  /// read them instead of needing copy_nd2nz's padding.
  void loadNz(Value gmArg, Value l1, const Aff &k0, const Aff &col, int64_t ks, int64_t ns,
              const Aff &l1Offset = Aff()) {
    int64_t Kp = roundUp(info.K, 16), rowsP = roundUp(ks, 16), colsP = roundUp(ns, 16);
    Value src = gmView(gmArg, col * Kp + k0 * 16, (colsP / 16 - 1) * Kp * 16 + rowsP * 16);
    Value dst = tileViewAt(l1, rowsP, colsP, l1Offset);
    dv::CopyOp::create(b, loc, src, dst, I(colsP / 16), I(rowsP * 32), I((Kp - rowsP) * 32),
                       I(0));
  }

  /// Columns [k0, k0 + ks) and rows [row, row + ns) of a FRACTAL_NZ weight
  /// stored as it is given to a transposed-B matmul, [N, K] -> [K/16][Np][16]
  /// (Np: N padded to 16), into the NZ tile [ns, ks] in L1: per 16 columns
  /// of K one burst of the ns rows, 32 bytes each and contiguous from any
  /// row (a block may start mid-fractal). The tile's padding rows past ns
  /// are not read (the bytes of the next block's columns: a tile of 88
  /// columns reads 1/12 less): they keep what L1 held and feed only output
  /// columns that are never stored.
  void loadNzRows(Value gmArg, Value l1, const Aff &k0, const Aff &row, int64_t ks, int64_t ns) {
    int64_t Np = roundUp(info.N, 16), rowsP = roundUp(ns, 16), colsP = roundUp(ks, 16);
    Value src = gmView(gmArg, k0 * Np + row * 16, (colsP / 16 - 1) * Np * 16 + ns * 16);
    dv::CopyOp::create(b, loc, src, tileView(l1, rowsP, colsP), I(colsP / 16), I(ns * 32),
                       I((Np - ns) * 32), I((rowsP - ns) * 32));
  }

  /// The A panel of one row of tiles: ms rows and all of K into L1 (f16: one
  /// copy_nd2nz; f32: per K step through UB, each step's fractal columns a
  /// contiguous part of the NZ panel).
  void loadPanel(const Aff &batch, const Aff &row, int64_t ms) {
    int64_t M = info.M, K = info.K, Kt = plan.Kt, Mp = roundUp(ms, 16);
    Aff aBase = batch * (M * K);
    if (!ubA32) {
      if (!info.ta)
        load(gm[info.aArg], l1A[0], Value(), Value(), aBase + row * K, ms, K, K);
      else
        load(gm[info.aArg], l1A[0], Value(), Value(), aBase + row, K, ms, M);
      return;
    }
    // f32 (not transposed: planned so), one K step at a time through UB.
    int64_t kFull = K / Kt, kTail = K % Kt;
    if (kFull > 1) {
      auto loop = dv::LoopOp::create(b, loc, kFull);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&loop.getBody().front());
      Aff k0 = Aff::of(loop.getInductionVar(), Kt);
      load(gm[info.aArg], l1A[0], ubA32, ubA16, aBase + row * K + k0, ms, Kt, K, k0 * Mp);
    } else if (kFull == 1) {
      load(gm[info.aArg], l1A[0], ubA32, ubA16, aBase + row * K, ms, Kt, K);
    }
    if (kTail)
      load(gm[info.aArg], l1A[0], ubA32, ubA16, aBase + row * K + Aff(kFull * Kt), ms, kTail, K,
           Aff(kFull * Kt * Mp));
  }

  /// Tile `t`'s columns of B, all of K, into their place in the block's
  /// resident B strip (NZ [Nb/16][Kp][16]: the tile's fractal columns start
  /// at colInBlock * Kp), once, in the block's first row of tiles.
  void loadStripTile(const Tile &t) {
    int64_t K = info.K, N = info.N, Kp = roundUp(K, 16);
    Aff at = t.colInBlock * Kp;
    if (plan.nzB)
      loadNz(gm[info.bArg], l1BStrip, Aff(), t.col, K, t.ns, at);
    else
      load(gm[info.bArg], l1BStrip, Value(), Value(), t.col, K, t.ns, N, at);
  }

  //===--------------------------------------------------------------------===//
  // The K steps of a tile
  //===--------------------------------------------------------------------===//

  /// L1 slot -> L0A/L0B slot, and the mmad into L0C.
  void computeStep(const Tile &t, const Aff &k0, int64_t ks, int slot, bool init) {
    int64_t Mp = roundUp(t.ms, 16), Np = roundUp(t.ns, 16), Kp = roundUp(ks, 16);
    int64_t m1 = Mp / 16, n1 = Np / 16, k1 = Kp / 16;
    Value a0 = tileView(l0A[slot], Mp, Kp), b0 = tileView(l0B[slot], Kp, Np);
    if (plan.panelA && !info.ta) {
      // Panel NZ [Mp x KpAll]: the step's fractal columns are contiguous.
      dv::LoadFractalsOp::create(b, loc, tileViewAt(l1A[0], Mp, Kp, k0 * Mp), a0, I(m1), I(k1),
                                 I(1), I(m1), I(k1), I(1), UnitAttr());
    } else if (plan.panelA) {
      // Panel NZ [KpAll x Mp]: fractal (k1, m1) at m1 * KpAll/16 + k1.
      int64_t kAll1 = roundUp(info.K, 16) / 16;
      Value src = ndViewAt(l1A[0], k0 * 16, ((m1 - 1) * kAll1 + k1) * 256);
      dv::LoadFractalsOp::create(b, loc, src, a0, I(m1), I(k1), I(kAll1), I(1), I(k1), I(1),
                                 b.getUnitAttr());
    } else if (!info.ta) {
      dv::LoadFractalsOp::create(b, loc, tileView(l1A[slot], Mp, Kp), a0, I(m1), I(k1), I(1),
                                 I(m1), I(k1), I(1), UnitAttr());
    } else {
      dv::LoadFractalsOp::create(b, loc, tileView(l1A[slot], Kp, Mp), a0, I(m1), I(k1), I(k1),
                                 I(1), I(k1), I(1), b.getUnitAttr());
    }
    if (plan.panelB) {
      // The strip NZ [Nb/16][KpAll][16]: fractal (k1, n1) of the step at
      // (colInBlock / 16 + n1) * KpAll/16 + k0/16 + k1.
      int64_t kAll1 = roundUp(info.K, 16) / 16;
      Value src = ndViewAt(l1BStrip, t.colInBlock * (kAll1 * 16) + k0 * 16,
                           ((n1 - 1) * kAll1 + k1) * 256);
      dv::LoadFractalsOp::create(b, loc, src, b0, I(k1), I(n1), I(1), I(kAll1), I(n1), I(1),
                                 b.getUnitAttr());
    } else if (!info.tb)
      dv::LoadFractalsOp::create(b, loc, tileView(l1B[slot], Kp, Np), b0, I(k1), I(n1), I(1),
                                 I(k1), I(n1), I(1), b.getUnitAttr());
    else
      dv::LoadFractalsOp::create(b, loc, tileView(l1B[slot], Np, Kp), b0, I(k1), I(n1), I(n1),
                                 I(1), I(n1), I(1), UnitAttr());
    dv::MmadOp::create(b, loc, a0, b0, tileView(l0C, Mp, Np), I(Mp), I(Np), I(Kp),
                       init ? b.getUnitAttr() : UnitAttr());
  }

  /// Tile `t`'s K steps, with the epilogue of the tile before it (`prev`)
  /// interleaved: its first group (which moves `prev` out of L0C) before
  /// the first mmad, one group after each K step outside the loop of pairs
  /// (pairs are peeled off that loop until every group has a place), the
  /// rest after the last step. Step s loads into slot s % 2; the loop of
  /// pairs leaves out the last two steps, so that the next tile's loads into
  /// those slots wait for exactly the step that frees them, not the loop.
  /// The tile's epilogue operands are loaded last, once `prev`'s epilogue
  /// has read the buffers.
  void emitTile(const Tile &t, std::optional<Tile> prev) {
    int64_t S = plan.kSteps;
    EpilogueGroups groups;
    if (prev)
      groups = deferEpilogue(*prev);
    size_t nextGroup = 0;
    auto placeGroup = [&]() {
      if (nextGroup < groups.size())
        splice(groups[nextGroup++]);
    };
    placeGroup();
    if (plan.panelA && t.newRow)
      loadPanel(t.batch, t.row, t.ms);
    if (plan.panelB && t.firstRow)
      loadStripTile(t);
    auto step = [&](int64_t s) {
      loadStep(t, s);
      computeStep(t, Aff(kStepAt(s).k0), kStepAt(s).ks, int(s % 2), s == 0);
      placeGroup();
    };
    // Steps [loopFirst, loopEnd) in pairs: peel pairs until the straight
    // steps give every group a place.
    int64_t loopFirst = std::min<int64_t>(plan.straightKSteps ? S : 2, S);
    int64_t loopEnd = std::max<int64_t>(S - 2, loopFirst);
    while (loopFirst < loopEnd && int64_t(groups.size()) - 1 > S - (loopEnd - loopFirst))
      loopFirst += 2;
    for (int64_t s = 0; s < loopFirst; ++s)
      step(s);
    int64_t pairs = (loopEnd - loopFirst) / 2;
    if (pairs == 1) {
      step(loopFirst);
      step(loopFirst + 1);
    } else if (pairs > 1) {
      auto loop = dv::LoopOp::create(b, loc, pairs);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&loop.getBody().front());
      Aff k0 = Aff::of(loop.getInductionVar(), 2 * plan.Kt) + Aff(loopFirst * plan.Kt);
      for (int slot = 0; slot < 2; ++slot) {
        Aff k = k0 + Aff(slot * plan.Kt);
        loadStepAt(t, k, plan.Kt, slot);
        computeStep(t, k, plan.Kt, slot, false);
      }
    }
    for (int64_t s = loopFirst + 2 * pairs; s < S; ++s)
      step(s);
    while (nextGroup < groups.size())
      placeGroup();
    loadEpilogueOperands(t);
  }

  /// An epilogue's instructions, cut into groups of a few Vector (or MTE3)
  /// instructions each, with the views they use.
  using EpilogueGroups = SmallVector<SmallVector<Operation *>>;

  /// Emits the epilogue of `t` aside and cuts it into groups: the first
  /// holds the move out of L0C, the others an equal share of the rest over
  /// the next tile's K steps (at least kEpilogueGroup instructions), so the
  /// Vector queue never holds back the loads placed between them for long.
  EpilogueGroups deferEpilogue(const Tile &t) {
    Block scratch;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&scratch);
      emitEpilogue(t);
    }
    auto issues = [](Operation &op) {
      auto piped = dyn_cast<dv::PipeOpInterface>(&op);
      return piped && piped.getPipe() != dv::Pipe::S;
    };
    int64_t total = llvm::count_if(scratch, issues);
    int64_t perGroup = std::max<int64_t>(kEpilogueGroup, (total + plan.kSteps - 1) / plan.kSteps);
    EpilogueGroups groups(1);
    int64_t issued = 0;
    for (Operation &op : llvm::make_early_inc_range(scratch)) {
      op.remove();
      groups.back().push_back(&op);
      if (!issues(op))
        continue;
      if (isa<dv::MoveL0cUbOp>(op) && groups.size() == 1) {
        groups.emplace_back();
        continue;
      }
      if (++issued % perGroup == 0)
        groups.emplace_back();
    }
    if (groups.back().empty())
      groups.pop_back();
    return groups;
  }

  void splice(ArrayRef<Operation *> ops) {
    for (Operation *op : ops)
      b.insert(op);
  }

  //===--------------------------------------------------------------------===//
  // The epilogue
  //===--------------------------------------------------------------------===//

  /// Row and one-element epilogue operands of the block's Nb columns GM ->
  /// UB in the output's type, once, before the block's first K step
  /// (Plan::blockRowOperands).
  void loadBlockRowOperands() {
    for (auto [i, e] : llvm::enumerate(info.epilogue)) {
      if (e.kind != Epilogue::Row && e.kind != Epilogue::Elem)
        continue;
      int64_t count = loadRowOperand(i, e, blockTerm(Axis::Cols, plan.Nb), plan.Nb);
      if (operandBufs[i].raw != operandBufs[i].value)
        convert(operandBufs[i].raw, operandBufs[i].value, roundUp(count, 64));
    }
  }

  /// Row operand `i` (`e`) GM -> UB raw, `columns` of them from `col`, or
  /// a one-element operand's element; returns the elements copied.
  int64_t loadRowOperand(size_t i, const Epilogue &e, const Aff &col, int64_t columns) {
    Type t0 = dv::getElementType(gm[e.arg].getType());
    bool one = e.kind == Epilogue::Elem;
    int64_t count = one ? 1 : columns;
    dv::CopyOp::create(b, loc, gmView(gm[e.arg], one ? Aff() : col, count),
                       ndView(operandBufs[i].raw, 0, count), I(1),
                       I(count * dv::elementBytes(t0)), IntegerAttr(), IntegerAttr());
    return count;
  }

  /// Row, one-element and full-tile epilogue operands of tile `t` GM -> UB,
  /// issued before its K steps so that they do not hold up the epilogue
  /// (the block's row operands are there already with blockRowOperands).
  void loadEpilogueOperands(const Tile &t) {
    int64_t Mp = roundUp(t.ms, 16), Np = roundUp(t.ns, 16), N = info.N;
    for (auto [i, e] : llvm::enumerate(info.epilogue)) {
      if (e.kind != Epilogue::Row && e.kind != Epilogue::Elem && e.kind != Epilogue::Full)
        continue;
      if (e.kind != Epilogue::Full && plan.blockRowOperands)
        continue;
      if (e.kind == Epilogue::Full) {
        Aff outOffset = (e.batchBroadcast ? Aff() : t.batch * (info.M * N)) + t.row * N + t.col;
        dv::CopyNd2NzOp::create(b, loc, gmView(gm[e.arg], outOffset, (t.ms - 1) * N + t.ns),
                                tileView(operandBufs[i].raw, Mp, Np), I(t.ms), I(t.ns), I(N),
                                I(Mp), I(Np));
        continue;
      }
      loadRowOperand(i, e, t.col, t.ns);
    }
  }

  /// L0C -> UB, the epilogue chain in place (f32), the softmax and
  /// attention's PV matmul when the kernel has them, the store.
  void emitEpilogue(const Tile &t) {
    int64_t Mp = roundUp(t.ms, 16), Np = roundUp(t.ns, 16), N = info.N;
    Value out = tileView(ubOut, Mp, Np);
    bool reluFirst = !info.epilogue.empty() && info.epilogue.front().kind == Epilogue::Unary &&
                     info.epilogue.front().op == Epilogue::Relu;
    dv::MoveL0cUbOp::create(b, loc, tileView(l0C, Mp, Np), out, I(1), I(Mp * Np), I(0), I(0),
                            reluFirst ? b.getUnitAttr() : UnitAttr(), FloatAttr());
    Aff outOffset = t.batch * (info.M * N) + t.row * N + t.col;
    // The head-merged store: tile row r of head h lands at row r, head h of
    // [M, H, N] (info.batch is H: every dim before it is 1).
    int64_t storeRowStride = info.storeHeadMerged ? info.batch * N : N;
    Aff storeOffset =
        info.storeHeadMerged ? t.batch * N + t.row * storeRowStride + t.col : outOffset;
    int64_t elems = Mp * Np;
    for (auto [index, e] : llvm::enumerate(info.epilogue)) {
      const OperandBufs &bufs = operandBufs[index];
      switch (e.kind) {
      case Epilogue::Unary:
        if (!(index == 0 && reluFirst))
          flat.step(e, out, elems, ubScratch ? ndView(ubScratch, 0, elems) : Value());
        break;
      case Epilogue::Scalar:
        flat.step(e, out, elems);
        break;
      case Epilogue::Row:
      case Epilogue::Elem: {
        // The row's ns columns (or the one element), in the output's type.
        bool one = e.kind == Epilogue::Elem;
        if (bufs.raw != bufs.value && !plan.blockRowOperands)
          convert(bufs.raw, bufs.value, roundUp(one ? 1 : t.ns, 64));
        if (!one) {
          Value row = plan.blockRowOperands ? ndViewAt(bufs.value, t.colInBlock, Np) : bufs.value;
          rowPattern(row, bufs.pattern, Np);
          patternOp(e, out, bufs.pattern, Mp, Np);
          break;
        }
        dv::VBrcbOp::create(b, loc, ndView(bufs.value, 0, 16), ubBcast, I(1), DenseI64ArrayAttr(),
                            DenseI64ArrayAttr(), DenseI64ArrayAttr());
        elemOp(e, out, ubBcast, Mp, Np);
        break;
      }
      case Epilogue::Full: {
        Value res = tileView(bufs.value, Mp, Np);
        if (bufs.raw != bufs.value)
          convert(tileView(bufs.raw, Mp, Np), res, elems);
        int64_t lanes = 256 / dv::elementBytes(outType);
        chunks(elems, lanes, [&](int64_t off, int64_t n) {
          flat.binary(e.op, ndView(out, off, n * lanes), ndView(res, off, n * lanes), e.left, n);
        });
        break;
      }
      }
    }
    if (info.rowSoftmax)
      softmaxRows(out, Mp, Np);
    if (info.attention)
      return attentionValue(t, out, Mp, Np);
    if (ubOutGm) {
      Value half = tileView(ubOutGm, Mp, Np);
      convert(out, half, elems);
      out = half;
    }
    if (int64_t D = info.storeHeadSplitDim) {
      // The head-split store: the tile starts at a head boundary (t.col is a
      // multiple of D), so its g-th D-column group is head t.col / D + g,
      // [M, D] rows at (t.col / D + g) * M * D = (t.col + g * D) * M.
      for (int64_t g = 0; g < t.ns / D; ++g) {
        Aff headOffset = (t.col + Aff(g * D)) * info.M + t.row * D;
        dv::CopyNz2NdOp::create(b, loc, tileView(out, Mp, D, g * D * Mp),
                                gmView(gm[outArg], headOffset, (t.ms - 1) * D + D), I(t.ms),
                                I(D), I(D), I(Mp));
      }
      return;
    }
    dv::CopyNz2NdOp::create(b, loc, out,
                            gmView(gm[outArg], storeOffset, (t.ms - 1) * storeRowStride + t.ns),
                            I(t.ms), I(t.ns), I(storeRowStride), I(Mp));
  }

  /// The row operand's Np columns (ND in UB) -> `pattern`: per fractal
  /// column, its 16 values repeated over the rows of one 256-byte repeat
  /// of the NZ tile (4 rows in f32, 8 in f16), by one UB -> UB copy per
  /// repeated row (a burst of 16 values per fractal column).
  void rowPattern(Value row, Value pattern, int64_t Np) {
    int64_t es = dv::elementBytes(outType), rowBytes = 16 * es;
    int64_t rowsPerRepeat = kRepeatBytes / rowBytes, groupElems = kRepeatBytes / es;
    for (int64_t r = 0; r < rowsPerRepeat; ++r)
      dv::CopyOp::create(b, loc, ndView(row, 0, Np),
                         ndView(pattern, r * 16, (Np / 16 - 1) * groupElems + 16), I(Np / 16),
                         I(rowBytes), I(0), I(kRepeatBytes - rowBytes));
  }

  /// out (op)= the row operand over every row of the NZ tile: one
  /// instruction per fractal column, its Mp x 16 elements contiguous, the
  /// pattern's 256 bytes read by every repeat (repeat stride 0). The row
  /// read in place with block stride 0 put a repeat's 8 blocks in one UB
  /// bank group: two instructions of 16 repeats, 152 cycles each, per
  /// fractal column of a 128-row f32 tile, where the pattern takes one of
  /// 32 repeats, 72 cycles (BERT-base's attention mask and matmul biases).
  void patternOp(const Epilogue &e, Value out, Value pattern, int64_t Mp, int64_t Np) {
    int64_t groupElems = kRepeatBytes / dv::elementBytes(outType);
    int64_t repeats = Mp * 16 / groupElems;
    for (int64_t n1 = 0; n1 < Np / 16; ++n1)
      flat.binary(e.op, ndView(out, n1 * Mp * 16, Mp * 16),
                  ndView(pattern, n1 * groupElems, groupElems), e.left, repeats, {1, 1}, {8, 0});
  }

  /// out (op)= a one-element operand, broadcast by vbrcb into `bcast`'s
  /// first blocks, read with block stride 0.
  void elemOp(const Epilogue &e, Value out, Value bcast, int64_t Mp, int64_t Np) {
    int64_t repeats = Mp / 8; // 8 rows of 16 per repeat
    for (int64_t n1 = 0; n1 < Np / 16; ++n1) {
      int64_t at = 0;
      if (outType.isF16()) {
        flat.binary(e.op, ndView(out, n1 * Mp * 16, Mp * 16), ndView(bcast, at, 16), e.left,
                    repeats, {1, 0}, {8, 0});
        continue;
      }
      for (int64_t h = 0; h < 2; ++h)
        flat.binary(e.op, ndView(out, n1 * Mp * 16 + h * 8, Mp * 16 - 8),
                    ndView(bcast, at + h * 8, 8), e.left, repeats, {2, 0}, {16, 0});
    }
  }

  /// The safe softmax of DESIGN.md along the rows of the f32 NZ tile `out`
  /// ([Np/16][Mp][16], whole rows): a row statistic folds the Np/16 fractal
  /// columns lane-wise into [Mp][16] (contiguous vector ops), reduces each
  /// row's 16 lanes with one masked repeat per row (Mp results), and comes
  /// back as [Mp][16] by vbrcb for one contiguous op per fractal column.
  /// Protected: logits saturate to f32's range, the row max is subtracted,
  /// shifted logits are clipped to [-clip, 0] before exp, and a row whose
  /// logits were all -inf divides by a 0 "live" flag: zeros, not NaN.
  void softmaxRows(Value out, int64_t Mp, int64_t Np) {
    int64_t slab = Mp * 16, columns = Np / 16, elems = Mp * Np;
    int64_t statRepeats = roundUp(Mp, 64) / 64;
    auto column = [&](int64_t j, int64_t off, int64_t n) {
      return ndView(out, j * slab + off, n * 64);
    };
    auto sixteenLanes = b.getDenseI64ArrayAttr({0xFFFF, 0});
    // fold = the lane-wise max (or sum) of the fractal columns; st[m] = the
    // max (or sum) of row m.
    auto rowStatistic = [&](bool max) {
      chunks(slab, 64, [&](int64_t off, int64_t n) {
        Value fold = ndView(ubFold, off, n * 64);
        dv::VCopyOp::create(b, loc, column(0, off, n), fold, I(n), DenseI64ArrayAttr(),
                            DenseI64ArrayAttr(), DenseI64ArrayAttr());
        for (int64_t j = 1; j < columns; ++j) {
          if (max)
            dv::VMaxOp::create(b, loc, fold, column(j, off, n), fold, I(n), DenseI64ArrayAttr(),
                               DenseI64ArrayAttr(), DenseI64ArrayAttr());
          else
            dv::VAddOp::create(b, loc, fold, column(j, off, n), fold, I(n), DenseI64ArrayAttr(),
                               DenseI64ArrayAttr(), DenseI64ArrayAttr());
        }
      });
      auto rowStride = b.getDenseI64ArrayAttr({1, 2}); // a row of 16 f32 is 2 blocks
      if (max)
        dv::VCMaxOp::create(b, loc, ubFold, ndView(ubStat, 0, Mp), UnitAttr(), I(Mp),
                            DenseI64ArrayAttr(), rowStride, sixteenLanes);
      else
        dv::VCAddOp::create(b, loc, ubFold, ndView(ubStat, 0, Mp), UnitAttr(), I(Mp),
                            DenseI64ArrayAttr(), rowStride, sixteenLanes);
    };
    // Every fractal column (op)= the row statistic.
    auto withRowStatistic = [&](bool subtract) {
      dv::VBrcbOp::create(b, loc, ndView(ubStat, 0, Mp), ubRowsBc, I(Mp), DenseI64ArrayAttr(),
                          b.getDenseI64ArrayAttr({2}), sixteenLanes);
      for (int64_t j = 0; j < columns; ++j)
        chunks(slab, 64, [&](int64_t off, int64_t n) {
          Value x = column(j, off, n), bc = ndView(ubRowsBc, off, n * 64);
          if (subtract)
            dv::VSubOp::create(b, loc, x, bc, x, I(n), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                               DenseI64ArrayAttr());
          else
            dv::VDivOp::create(b, loc, x, bc, x, I(n), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                               DenseI64ArrayAttr());
        });
    };
    auto stat = [&](Value buf) { return ndView(buf, 0, statRepeats * 64); };
    if (info.softmax.protect) {
      double range = double(std::numeric_limits<float>::max());
      tileScalar<dv::VMinsOp>(out, elems, range);
      tileScalar<dv::VMaxsOp>(out, elems, -range);
      rowStatistic(/*max=*/true);
      // live = 1 unless the row max is -range (every logit was -inf): 0.
      dv::VAddsOp::create(b, loc, stat(ubStat), b.getF32FloatAttr(float(range)), stat(ubLive),
                          I(statRepeats), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                          DenseI64ArrayAttr());
      dv::VMinsOp::create(b, loc, stat(ubLive), b.getF32FloatAttr(1.0f), stat(ubLive),
                          I(statRepeats), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                          DenseI64ArrayAttr());
      withRowStatistic(/*subtract=*/true); // x - max <= 0
      tileScalar<dv::VMaxsOp>(out, elems, -info.softmax.clip);
    }
    tileUnary<dv::VExpOp>(out, elems);
    rowStatistic(/*max=*/false);
    if (info.softmax.protect) // a fully masked row divides by +inf: zeros
      dv::VDivOp::create(b, loc, stat(ubStat), stat(ubLive), stat(ubStat), I(statRepeats),
                         DenseI64ArrayAttr(), DenseI64ArrayAttr(), DenseI64ArrayAttr());
    withRowStatistic(/*subtract=*/false);
  }

  /// softmax(QK^T) x V for the tile's rows: the f32 probabilities (NZ
  /// [Np/16][Mp][16], whole rows) become f16 and go UB -> L1, already in the
  /// NZ layout of an A operand; V's [N, D] panel of the tile's batch is B;
  /// one mmad (K = N) into a second L0C tile, which leaves L0C in the
  /// output's type and is stored (head-merged when the kernel says so).
  void attentionValue(const Tile &t, Value probabilities, int64_t Mp, int64_t Np) {
    int64_t D = info.headDim, N = info.N, m1 = Mp / 16, k1 = Np / 16, n1 = D / 16;
    Value p16 = tileView(ubP16, Mp, Np), pL1 = tileView(l1P, Mp, Np);
    convert(probabilities, p16, Mp * Np);
    dv::CopyOp::create(b, loc, p16, pL1, I(1), I(Mp * Np * 2), IntegerAttr(), IntegerAttr());
    load(gm[info.vArg], l1V, ubV32, ubV16, t.batch * (N * D), N, D, D);
    Value a = tileView(l0P, Mp, Np), v = tileView(l0V, Np, D), acc = tileView(l0C2, Mp, D);
    dv::LoadFractalsOp::create(b, loc, pL1, a, I(m1), I(k1), I(1), I(m1), I(k1), I(1),
                               UnitAttr());
    dv::LoadFractalsOp::create(b, loc, tileView(l1V, Np, D), v, I(k1), I(n1), I(1), I(k1), I(n1),
                               I(1), b.getUnitAttr());
    dv::MmadOp::create(b, loc, a, v, acc, I(Mp), I(D), I(Np), b.getUnitAttr());
    Value result = tileView(ubOut2, Mp, D);
    dv::MoveL0cUbOp::create(b, loc, acc, result, I(1), I(Mp * D), I(0), I(0), UnitAttr(),
                            FloatAttr());
    // Head-merged: row r of head h at r * H * D + h * D (as the PV kernel's
    // store would be without the fusion).
    int64_t rowStride = info.storeHeadMerged ? info.batch * D : D;
    Aff offset = info.storeHeadMerged ? t.batch * D + t.row * rowStride
                                      : t.batch * (info.M * D) + t.row * D;
    dv::CopyNz2NdOp::create(b, loc, result,
                            gmView(gm[outArg], offset, (t.ms - 1) * rowStride + D), I(t.ms),
                            I(D), I(rowStride), I(Mp));
  }


  //===--------------------------------------------------------------------===//
  // Views
  //===--------------------------------------------------------------------===//

  /// This block's first batch, row or column along `axis`, `per` a block.
  Aff blockTerm(Axis axis, int64_t per) {
    if (!bid)
      return Aff();
    // Ragged column blocks: the edge block's window is the last Nb columns.
    if (plan.raggedEdge)
      return axis == Axis::Cols ? edgeOr(per, info.N - per) : Aff();
    if (plan.outer == axis)
      return Aff::of(bid, per, 0, plan.innerParts > 1 ? plan.innerParts : 0);
    if (plan.inner == axis)
      return Aff::of(bid, per, plan.outerParts > 1 ? plan.innerParts : 0, 0);
    return Aff();
  }

  /// `coef` b on blocks b = 0 .. P-2 and `edge` on block P-1 of a ragged
  /// grid (Plan::raggedEdge): coef (b mod (P-1)) + edge (b floordiv (P-1)),
  /// as Depthwise.cpp's edgeOr.
  Aff edgeOr(int64_t coef, int64_t edge) {
    int64_t middle = plan.outerParts - 1;
    return Aff::of(bid, coef, middle, 0) + Aff::of(bid, edge, 0, middle);
  }

  IntegerAttr I(int64_t v) { return b.getI64IntegerAttr(v); }

  Value alloc(dv::MemSpace space, int64_t rows, int64_t cols, Type element) {
    auto type = dv::BufType::get(b.getContext(), space, {rows, cols}, element, dv::Layout::NZ);
    return dv::AllocOp::create(b, loc, type, IntegerAttr()).getResult();
  }
  Value allocNd(int64_t elems, Type element) {
    auto type = dv::BufType::get(b.getContext(), dv::MemSpace::UB, {elems}, element,
                                 dv::Layout::ND);
    return dv::AllocOp::create(b, loc, type, IntegerAttr()).getResult();
  }

  AffineMapAttr mapOf(const Aff &a, SmallVectorImpl<Value> &indices) {
    AffineExpr expr = b.getAffineConstantExpr(a.c);
    for (const Aff::Term &t : a.terms) {
      auto at = llvm::find(indices, t.v);
      unsigned pos = at - indices.begin();
      if (at == indices.end())
        indices.push_back(t.v);
      AffineExpr d = b.getAffineDimExpr(pos);
      if (t.mod)
        d = d % t.mod;
      else if (t.div)
        d = d.floorDiv(t.div);
      expr = expr + d * t.coef;
    }
    return AffineMapAttr::get(AffineMap::get(indices.size(), 0, expr));
  }

  /// A view of on-chip `buf` at element `offset` typed as an NZ tile.
  Value tileView(Value buf, int64_t rows, int64_t cols, int64_t offset = 0) {
    return tileViewAt(buf, rows, cols, Aff(offset));
  }
  /// A view of on-chip `buf` at an affine element offset typed as an NZ tile.
  Value tileViewAt(Value buf, int64_t rows, int64_t cols, const Aff &offset) {
    auto src = cast<dv::BufType>(buf.getType());
    auto type = dv::BufType::get(b.getContext(), src.getSpace(), {rows, cols},
                                 src.getElementType(), dv::Layout::NZ);
    if (type == src && offset.c == 0 && offset.terms.empty())
      return buf;
    SmallVector<Value> idx;
    AffineMapAttr map = mapOf(offset, idx);
    return dv::ViewOp::create(b, loc, type, buf, idx, map).getResult();
  }
  Value ndViewAt(Value buf, const Aff &offset, int64_t elems) {
    auto src = cast<dv::BufType>(buf.getType());
    auto type = dv::BufType::get(b.getContext(), src.getSpace(), {elems}, src.getElementType(),
                                 dv::Layout::ND);
    SmallVector<Value> idx;
    AffineMapAttr map = mapOf(offset, idx);
    return dv::ViewOp::create(b, loc, type, buf, idx, map).getResult();
  }
  Value ndView(Value buf, int64_t offset, int64_t elems) { return ndViewAt(buf, Aff(offset), elems); }
  Value gmView(Value buf, const Aff &offset, int64_t elems) {
    auto type = dv::GmType::get(b.getContext(), {elems}, dv::getElementType(buf.getType()));
    SmallVector<Value> idx;
    AffineMapAttr map = mapOf(offset, idx);
    return dv::ViewOp::create(b, loc, type, buf, idx, map).getResult();
  }

  /// Calls fn(offset, repeats) over `elems` elements in chunks of at most
  /// max_repeat repeats of `lanes`.
  void chunks(int64_t elems, int64_t lanes, function_ref<void(int64_t, int64_t)> fn) {
    int64_t repeats = elems / lanes, maxRep = soc.max_repeat;
    for (int64_t r = 0; r < repeats; r += maxRep)
      fn(r * lanes, std::min(maxRep, repeats - r));
  }

  template <typename OpTy> void tileUnary(Value tile, int64_t elems) {
    flat.unary<OpTy>(tile, elems);
  }
  template <typename OpTy> void tileScalar(Value tile, int64_t elems, double c) {
    flat.scalar<OpTy>(tile, elems, c);
  }

  /// An epilogue operand's buffers in UB: as loaded (its GM type) and in
  /// the output's type (the same buffer when the types agree).
  struct OperandBufs {
    Value raw, value;
    /// A row operand's repeat pattern (rowPattern): per fractal column,
    /// its 16 values over the rows of one 256-byte repeat.
    Value pattern;
  };

  OpBuilder &b;
  Location loc;
  const MatmulInfo &info;
  const Plan &plan;
  ArrayRef<Value> gm;
  unsigned outArg;
  const soc::SocSpec &soc;
  Type f16, f32, outType, gmOutType, aType, bType;
  SmallVector<SmallVector<Segment>, 3> levels;
  Value ubOutGm;
  Value bid;
  Value l1A[2], l1B[2], l0A[2], l0B[2]; // two slots (the panel, when there is one, is l1A[0])
  Value l1BStrip; // the block's B columns, all of K, when they stay in L1 (plan.panelB)
  Value ubA32, ubA16, ubB32, ubB16, l0C, ubOut;
  Value ubBcast, ubScratch;
  SmallVector<OperandBufs> operandBufs; // per epilogue step
  Value ubFold, ubRowsBc, ubStat, ubLive; // the softmax epilogue's
  Value ubP16, l1P, l1V, ubV32, ubV16, l0P, l0V, l0C2, ubOut2; // attention's PV matmul
  FlatTileEmitter flat; // vector instructions over a tile's contiguous elements
};

//===----------------------------------------------------------------------===//
// The template
//===----------------------------------------------------------------------===//

LogicalResult lowerMatmul(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  MLIRContext *ctx = func.getContext();
  Location loc = func.getLoc();
  // Tensor constants inside the kernel become arguments: cloned before the
  // call in the graph, they are passed (and stored) like weights.
  SmallVector<vg::ConstantOp> constants;
  for (auto constant : func.getBody().front().getOps<vg::ConstantOp>())
    if (isTensorConstant(constant.getResult()))
      constants.push_back(constant);
  for (vg::ConstantOp constant : constants)
    hoistConstantToArgument(func, call, constant);
  MatmulInfo info;
  std::string why = analyzeMatmul(func, findMatmul(func), info);
  if (!why.empty())
    return func.emitError() << why;
  info.softmax = softmaxSafetyOf(func);

  GmSignature signature = gmSignature(call);
  SmallVector<Type> &gmTypes = signature.types, &gmElements = signature.elements;
  unsigned outArg = call.getNumOperands();
  if (!gmElements[outArg].isF16() && !gmElements[outArg].isF32())
    return func.emitError() << "kernel " << func.getSymName()
                            << ": the matmul template writes f16/f32 outputs only";

  Plan plan;
  // A constant f16 weight (2-D) is stored in FRACTAL_NZ at compile time;
  // the kernel's GM argument is its NZ storage.
  Value weight = info.bArg < call.getNumOperands() ? call.getOperand(info.bArg) : Value();
  plan.nzB = weight && weight.getDefiningOp<vg::ConstantOp>() && !info.bBatched &&
             gmElements[info.bArg].isF16();
  // The .om packs the weight as it is given, [K, N] or (transposed) [N, K].
  int64_t weightRows = info.tb ? info.N : info.K, weightCols = info.tb ? info.K : info.N;
  if (plan.nzB)
    gmTypes[info.bArg] = dv::GmType::get(
        ctx, {roundUp(weightCols, 16) / 16, roundUp(weightRows, 16), 16}, gmElements[info.bArg]);
  if (!planGrid(info, plan, gmElements, outArg, soc))
    return func.emitError() << "kernel " << func.getSymName()
                            << ": no 16x16x16 matmul tile fits the SoC's buffers";

  OpBuilder b(ctx);
  Block *entry = beginKernel(b, func, gmTypes, plan.blockDim(), "cube");
  if (plan.nzB)
    entry->getParentOp()->setAttr(dv::DVDialect::kNzWeightsAttrName,
                                  b.getDenseI64ArrayAttr({int64_t(info.bArg)}));
  SmallVector<Value> gmArgs(entry->getArguments());
  MatmulEmitter(b, loc, info, plan, gmArgs, outArg, soc).emit();
  return finishKernel(entry, func, call);
}

} // namespace

extern const KernelTemplate kMatmulTemplate = {"matmul", matmulTemplateMismatch, lowerMatmul};

} // namespace vinci::lower
