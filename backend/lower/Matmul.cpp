//===- Matmul.cpp - the Cube matmul template -------------------------------===//
//
//  - matmul (Cube): a cube kernel whose anchor is vg.matmul, [M,K] x [K,N],
//    [B..,M,K] x [B..,K,N] (equal batch dims) or [B..,M,K] x [K,N] (a 2-D
//    weight broadcast over the batch: folded into M), transpose_a /
//    transpose_b, any M, N, K; followed by the epilogue chain the partition
//    fused (applied in UB after move_l0c_ub, in place on the output tile):
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
// Tiling: output tiles Mt x Nt and K steps Kt, multiples of 16, start at
// 128 x 128 x 256 and are halved until every buffer fits the SoC table's
// L1, L0A, L0B, L0C and UB (one buffer set, allocated once per kernel; a
// smaller tile uses a view of it). The output is split into block_dim equal
// parts along the batch, M or N (block_dim = the largest such divisor <=
// ai_core_count; M/N parts are multiples of 16), so every block runs the
// same program and writes disjoint GM bytes. Within a block, tiles of the
// same size (full, M tail, N tail) share one loop nest (batch, m, n); when a
// row of tiles has several N tiles and its A panel (Mt x all of K) fits L1
// next to a B tile, the panel is loaded once per row and stays while the N
// tiles go by. The K reduction peels the first step (mmad init), loops over
// the remaining full steps and ends with the K tail. No double buffering yet.
//
//===----------------------------------------------------------------------===//
#include "backend/lower/Epilogue.h"
#include "backend/lower/LowerCommon.h"
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

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

/// f32 lanes of the softmax epilogue's per-row statistics: one per tile
/// row (Mt <= 128), two whole vector repeats.
constexpr int64_t kStatLanes = 128;
/// f32 elements a 16-lane row repeat (2 blocks a row) reads past its row.
constexpr int64_t kRowRepeatSlack = 48;

/// A step of the epilogue chain (Epilogue.h, shared with the Vector matmul).
using Epilogue = EpilogueStep;

struct MatmulInfo {
  unsigned aArg = 0, bArg = 0;
  bool ta = false, tb = false;
  int64_t batch = 1, M = 0, N = 0, K = 0;
  bool bBatched = false;
  SmallVector<Epilogue> epilogue;
  /// The kernel ends with a head-merge transpose ([.., H, M, N] ->
  /// [.., M, H, N], KernelRules' cubeStoreTakesTranspose): tiles are stored
  /// with batch stride N and row stride H * N (H = batch).
  bool storeHeadMerged = false;
  /// The kernel ends with a head split (reshape [S, H * D] -> [S, H, D],
  /// transpose to [H, S, D], KernelRules' cubeStoreHeadSplitDim): D, else 0.
  /// N tiles and block parts are multiples of D; each D-column group of a
  /// tile is stored at head * M * D + row * D with row stride D.
  int64_t storeHeadSplitDim = 0;
  /// The epilogue ends with a softmax over the last axis: N tiles and block
  /// parts span all N columns, so each tile holds whole rows.
  bool rowSoftmax = false;
  /// The softmax's protection (LowerCommon's softmaxSafetyOf).
  SoftmaxSafety softmax;
  /// The kernel goes on with attention's PV matmul after the softmax: V is
  /// argument `vArg`, [batch.., N, headDim]; the kernel's output is
  /// [batch.., M, headDim] (head-merged when storeHeadMerged).
  bool attention = false;
  unsigned vArg = 0;
  int64_t headDim = 0;
};


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
  if (bs.size() == 2) {
    if (as.size() > 2 && info.ta)
      return "vg.matmul of a batched transpose_a operand by a 2-D weight has no Cube lowering yet";
    // [B.., M, K] x [K, N] is [B*M, K] x [K, N].
    info.batch = 1;
    info.M = product(as.drop_back());
    if (info.ta)
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

/// An affine element offset: c + sum coef * index.
struct Aff {
  int64_t c = 0;
  SmallVector<std::pair<Value, int64_t>> terms;
  Aff() = default;
  Aff(int64_t c) : c(c) {}
  static Aff of(Value v, int64_t coef) {
    Aff a;
    if (v && coef)
      a.terms.push_back({v, coef});
    return a;
  }
  Aff operator+(const Aff &o) const {
    Aff r = *this;
    r.c += o.c;
    for (auto [v, k] : o.terms) {
      bool merged = false;
      for (auto &t : r.terms)
        if (t.first == v) {
          t.second += k;
          merged = true;
        }
      if (!merged)
        r.terms.push_back({v, k});
    }
    return r;
  }
  Aff operator*(int64_t s) const {
    Aff r;
    r.c = c * s;
    for (auto [v, k] : terms)
      if (k * s)
        r.terms.push_back({v, k * s});
    return r;
  }
};

struct Plan {
  int64_t Mt = 0, Nt = 0, Kt = 0;
  int64_t blockDim = 1;
  enum Split { None, Batch, Rows, Cols } split = None;
  int64_t Bb = 1, Mb = 0, Nb = 0; // per block
  /// The A panel of a row of tiles (Mt x all of K) stays in L1 while the
  /// row's N tiles go by (loaded once, not once per N tile).
  bool panelA = false;
  /// B is a constant weight the .om stores in FRACTAL_NZ ([N/16][K padded
  /// to 16][16], zero padded): a B tile is then one copy with a burst per
  /// 16 columns instead of a copy_nd2nz with a burst per row.
  bool nzB = false;
};

class MatmulEmitter {
public:
  MatmulEmitter(OpBuilder &b, Location loc, const MatmulInfo &info, const Plan &plan,
                ArrayRef<Value> gm, unsigned outArg, const soc::SocSpec &soc)
      : b(b), loc(loc), info(info), plan(plan), gm(gm), outArg(outArg), soc(soc),
        f16(b.getF16Type()), f32(b.getF32Type()), flat(b, loc, soc.max_repeat) {}

  void emit() {
    if (plan.blockDim > 1)
      bid = dv::BlockIdxOp::create(b, loc, b.getIndexType()).getResult();
    // The epilogue computes in f32 (L0C's precision); without one the tile
    // moves out of L0C straight into the output's GM type.
    gmOutType = dv::getElementType(gm[outArg].getType());
    outType = info.epilogue.empty() && !info.rowSoftmax ? gmOutType : f32;
    aType = dv::getElementType(gm[info.aArg].getType());
    bType = dv::getElementType(gm[info.bArg].getType());
    int64_t Mt = plan.Mt, Nt = plan.Nt, Kt = plan.Kt;
    // One buffer set for the kernel; smaller tiles use views of it.
    int64_t KpAll = roundUp(info.K, 16);
    if (plan.panelA)
      l1A = alloc(dv::MemSpace::L1, info.ta ? KpAll : Mt, info.ta ? Mt : KpAll, f16);
    else
      l1A = alloc(dv::MemSpace::L1, info.ta ? Kt : Mt, info.ta ? Mt : Kt, f16);
    l1B = alloc(dv::MemSpace::L1, info.tb ? Nt : Kt, info.tb ? Kt : Nt, f16);
    if (!aType.isF16()) {
      ubA32 = alloc(dv::MemSpace::UB, info.ta ? Kt : Mt, info.ta ? Mt : Kt, aType);
      ubA16 = alloc(dv::MemSpace::UB, info.ta ? Kt : Mt, info.ta ? Mt : Kt, f16);
    }
    if (!bType.isF16()) {
      ubB32 = alloc(dv::MemSpace::UB, info.tb ? Nt : Kt, info.tb ? Kt : Nt, bType);
      ubB16 = alloc(dv::MemSpace::UB, info.tb ? Nt : Kt, info.tb ? Kt : Nt, f16);
    }
    l0A = alloc(dv::MemSpace::L0A, Mt, Kt, f16);
    l0B = alloc(dv::MemSpace::L0B, Kt, Nt, f16);
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
    // Epilogue operands: raw buffers per GM element type, converted ones in
    // the output's type; gelu's scratch tile.
    for (const Epilogue &e : info.epilogue) {
      if (e.kind == Epilogue::Unary && e.op == Epilogue::Gelu && !ubScratch)
        ubScratch = alloc(dv::MemSpace::UB, Mt, Nt, outType);
      if (e.kind != Epilogue::Row && e.kind != Epilogue::Elem && e.kind != Epilogue::Full)
        continue;
      Type t = dv::getElementType(gm[e.arg].getType());
      if (e.kind != Epilogue::Full) {
        if (!ubRow)
          ubRow = allocNd(roundUp(Nt, 128), outType);
        if (t != outType && !ubRowRaw.count(t))
          ubRowRaw[t] = allocNd(roundUp(Nt, 128), t);
      }
      if (e.kind == Epilogue::Elem && !ubBcast)
        ubBcast = allocNd(256 / dv::elementBytes(outType), outType);
      if (e.kind == Epilogue::Full) {
        if (!ubRes)
          ubRes = alloc(dv::MemSpace::UB, Mt, Nt, outType);
        if (t != outType && !ubResRaw.count(t))
          ubResRaw[t] = alloc(dv::MemSpace::UB, Mt, Nt, t);
      }
    }

    // Tile categories: full and tail tiles in M and N.
    struct Range {
      int64_t size, count, base;
    };
    SmallVector<Range> ms, ns;
    if (plan.Mb / Mt)
      ms.push_back({Mt, plan.Mb / Mt, 0});
    if (plan.Mb % Mt)
      ms.push_back({plan.Mb % Mt, 1, plan.Mb / Mt * Mt});
    if (plan.Nb / Nt)
      ns.push_back({Nt, plan.Nb / Nt, 0});
    if (plan.Nb % Nt)
      ns.push_back({plan.Nb % Nt, 1, plan.Nb / Nt * Nt});
    for (const Range &m : ms)
      loopNest({plan.Bb, m.count}, [&](ArrayRef<Value> rowIvs) {
        Aff batch = blockTerm(Plan::Batch, plan.Bb) + Aff::of(rowIvs[0], 1);
        Aff row = blockTerm(Plan::Rows, plan.Mb) + Aff::of(rowIvs[1], Mt) + Aff(m.base);
        if (plan.panelA)
          loadPanel(batch, row, m.size);
        for (const Range &n : ns)
          loopNest({n.count}, [&](ArrayRef<Value> colIvs) {
            Tile t;
            t.ms = m.size;
            t.ns = n.size;
            t.batch = batch;
            t.row = row;
            t.col = blockTerm(Plan::Cols, plan.Nb) + Aff::of(colIvs[0], Nt) + Aff(n.base);
            emitTile(t);
          });
      });
  }

private:
  struct Tile {
    int64_t ms, ns;
    Aff batch, row, col; // batch index, first output row and column
  };

  Aff blockTerm(Plan::Split split, int64_t per) {
    return plan.split == split ? Aff::of(bid, per) : Aff();
  }

  void loopNest(ArrayRef<int64_t> trips, function_ref<void(ArrayRef<Value>)> body) {
    emitLoopNest(b, loc, trips, body);
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
    for (auto [v, k] : a.terms) {
      if (!k)
        continue;
      expr = expr + b.getAffineDimExpr(indices.size()) * k;
      indices.push_back(v);
    }
    return AffineMapAttr::get(AffineMap::get(indices.size(), 0, expr));
  }

  /// A view of on-chip `buf` at element `offset` typed as an NZ tile.
  Value tileView(Value buf, int64_t rows, int64_t cols, int64_t offset = 0) {
    auto src = cast<dv::BufType>(buf.getType());
    auto type = dv::BufType::get(b.getContext(), src.getSpace(), {rows, cols},
                                 src.getElementType(), dv::Layout::NZ);
    if (type == src && offset == 0)
      return buf;
    SmallVector<Value> idx;
    return dv::ViewOp::create(b, loc, type, buf, idx, mapOf(Aff(offset), idx)).getResult();
  }
  /// A view of on-chip `buf` at an affine element offset typed as an NZ tile.
  Value tileViewAt(Value buf, int64_t rows, int64_t cols, const Aff &offset) {
    if (offset.terms.empty())
      return tileView(buf, rows, cols, offset.c);
    auto src = cast<dv::BufType>(buf.getType());
    auto type = dv::BufType::get(b.getContext(), src.getSpace(), {rows, cols},
                                 src.getElementType(), dv::Layout::NZ);
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
  Value ndView(Value buf, int64_t offset, int64_t elems) {
    auto src = cast<dv::BufType>(buf.getType());
    auto type = dv::BufType::get(b.getContext(), src.getSpace(), {elems}, src.getElementType(),
                                 dv::Layout::ND);
    SmallVector<Value> idx;
    return dv::ViewOp::create(b, loc, type, buf, idx, mapOf(Aff(offset), idx)).getResult();
  }
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
  void loadNz(Value gmArg, Value l1, const Aff &k0, const Aff &col, int64_t ks, int64_t ns) {
    int64_t Kp = roundUp(info.K, 16), rowsP = roundUp(ks, 16), colsP = roundUp(ns, 16);
    Value src = gmView(gmArg, col * Kp + k0 * 16, (colsP / 16 - 1) * Kp * 16 + rowsP * 16);
    Value dst = tileViewAt(l1, rowsP, colsP, Aff());
    dv::CopyOp::create(b, loc, src, dst, I(colsP / 16), I(rowsP * 32), I((Kp - rowsP) * 32),
                       I(0));
  }

  /// The A panel of one row of tiles: ms rows and all of K into L1 (f16: one
  /// copy_nd2nz; f32: per K step through UB, each step's fractal columns a
  /// contiguous part of the NZ panel).
  void loadPanel(const Aff &batch, const Aff &row, int64_t ms) {
    int64_t M = info.M, K = info.K, Kt = plan.Kt, Mp = roundUp(ms, 16);
    Aff aBase = batch * (M * K);
    if (!ubA32) {
      if (!info.ta)
        load(gm[info.aArg], l1A, Value(), Value(), aBase + row * K, ms, K, K);
      else
        load(gm[info.aArg], l1A, Value(), Value(), aBase + row, K, ms, M);
      return;
    }
    // f32 (not transposed: planned so).
    int64_t kFull = K / Kt, kTail = K % Kt;
    if (kFull > 1) {
      auto loop = dv::LoopOp::create(b, loc, kFull);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&loop.getBody().front());
      Aff k0 = Aff::of(loop.getInductionVar(), Kt);
      load(gm[info.aArg], l1A, ubA32, ubA16, aBase + row * K + k0, ms, Kt, K, k0 * Mp);
    } else if (kFull == 1) {
      load(gm[info.aArg], l1A, ubA32, ubA16, aBase + row * K, ms, Kt, K);
    }
    if (kTail)
      load(gm[info.aArg], l1A, ubA32, ubA16, aBase + row * K + Aff(kFull * Kt), ms, kTail, K,
           Aff(kFull * Kt * Mp));
  }

  void kStep(const Tile &t, int64_t ks, const Aff &k0, bool init) {
    int64_t Mp = roundUp(t.ms, 16), Np = roundUp(t.ns, 16), Kp = roundUp(ks, 16);
    int64_t M = info.M, N = info.N, K = info.K;
    // A: [M,K] (or [K,M] with transpose_a) per batch.
    Aff aBase = t.batch * (M * K);
    if (plan.panelA)
      ; // in L1 already (loadPanel)
    else if (!info.ta)
      load(gm[info.aArg], l1A, ubA32, ubA16, aBase + t.row * K + k0, t.ms, ks, K);
    else
      load(gm[info.aArg], l1A, ubA32, ubA16, aBase + k0 * M + t.row, ks, t.ms, M);
    Aff bBase = info.bBatched ? t.batch * (K * N) : Aff();
    if (plan.nzB)
      loadNz(gm[info.bArg], l1B, k0, t.col, ks, t.ns);
    else if (!info.tb)
      load(gm[info.bArg], l1B, ubB32, ubB16, bBase + k0 * N + t.col, ks, t.ns, N);
    else
      load(gm[info.bArg], l1B, ubB32, ubB16, bBase + t.col * K + k0, t.ns, ks, K);
    int64_t m1 = Mp / 16, n1 = Np / 16, k1 = Kp / 16;
    Value a0 = tileView(l0A, Mp, Kp), b0 = tileView(l0B, Kp, Np);
    if (plan.panelA && !info.ta) {
      // Panel NZ [Mp x KpAll]: the step's fractal columns are contiguous.
      dv::LoadFractalsOp::create(b, loc, tileViewAt(l1A, Mp, Kp, k0 * Mp), a0, I(m1), I(k1), I(1),
                                 I(m1), I(k1), I(1), UnitAttr());
    } else if (plan.panelA) {
      // Panel NZ [KpAll x Mp]: fractal (k1, m1) at m1 * KpAll/16 + k1.
      int64_t kAll1 = roundUp(K, 16) / 16;
      Value src = ndViewAt(l1A, k0 * 16, ((m1 - 1) * kAll1 + k1) * 256);
      dv::LoadFractalsOp::create(b, loc, src, a0, I(m1), I(k1), I(kAll1), I(1), I(k1), I(1),
                                 b.getUnitAttr());
    } else if (!info.ta) {
      dv::LoadFractalsOp::create(b, loc, tileView(l1A, Mp, Kp), a0, I(m1), I(k1), I(1), I(m1),
                                 I(k1), I(1), UnitAttr());
    } else {
      dv::LoadFractalsOp::create(b, loc, tileView(l1A, Kp, Mp), a0, I(m1), I(k1), I(k1), I(1),
                                 I(k1), I(1), b.getUnitAttr());
    }
    if (!info.tb)
      dv::LoadFractalsOp::create(b, loc, tileView(l1B, Kp, Np), b0, I(k1), I(n1), I(1), I(k1),
                                 I(n1), I(1), b.getUnitAttr());
    else
      dv::LoadFractalsOp::create(b, loc, tileView(l1B, Np, Kp), b0, I(k1), I(n1), I(n1), I(1),
                                 I(n1), I(1), UnitAttr());
    dv::MmadOp::create(b, loc, a0, b0, tileView(l0C, Mp, Np), I(Mp), I(Np), I(Kp),
                       init ? b.getUnitAttr() : UnitAttr());
  }

  template <typename OpTy> void tileUnary(Value tile, int64_t elems) {
    flat.unary<OpTy>(tile, elems);
  }
  template <typename OpTy> void tileScalar(Value tile, int64_t elems, double c) {
    flat.scalar<OpTy>(tile, elems, c);
  }

  /// out[m][n] = out[m][n] op row[n] over an NZ tile Mp x Np: per 16-column
  /// fractal column, every 32-byte row block (f16: one row; f32: half a
  /// row) meets the same block of the row (stride 0). `scalar`: the row is
  /// one broadcast value (offset 0 for every fractal column).
  void rowOp(const Epilogue &e, Value out, Value row, int64_t Mp, int64_t Np, bool scalar) {
    int64_t repeats = Mp / 8; // 8 rows of 16 per repeat
    for (int64_t n1 = 0; n1 < Np / 16; ++n1) {
      int64_t at = scalar ? 0 : n1 * 16;
      if (outType.isF16()) {
        flat.binary(e.op, ndView(out, n1 * Mp * 16, Mp * 16), ndView(row, at, 16), e.left, repeats,
                    {1, 0}, {8, 0});
        continue;
      }
      for (int64_t h = 0; h < 2; ++h)
        flat.binary(e.op, ndView(out, n1 * Mp * 16 + h * 8, Mp * 16 - 8),
                    ndView(row, at + h * 8, 8), e.left, repeats, {2, 0}, {16, 0});
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

  void emitTile(const Tile &t) {
    int64_t Kt = plan.Kt, K = info.K;
    int64_t kFull = K / Kt, kTail = K % Kt;
    if (kFull) {
      kStep(t, Kt, Aff(0), /*init=*/true);
      if (kFull > 2) {
        auto loop = dv::LoopOp::create(b, loc, kFull - 1);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&loop.getBody().front());
        kStep(t, Kt, Aff::of(loop.getInductionVar(), Kt) + Aff(Kt), false);
      } else if (kFull == 2) {
        kStep(t, Kt, Aff(Kt), false);
      }
    }
    if (kTail)
      kStep(t, kTail, Aff(kFull * Kt), kFull == 0);

    // Epilogue in UB, in the output's GM type.
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
        // The row's ns columns (or the one element) -> UB, in the output's type.
        Type t0 = dv::getElementType(gm[e.arg].getType());
        bool one = e.kind == Epilogue::Elem;
        int64_t count = one ? 1 : t.ns;
        Value raw = t0 == outType ? ubRow : ubRowRaw.lookup(t0);
        dv::CopyOp::create(b, loc, gmView(gm[e.arg], one ? Aff() : t.col, count),
                           ndView(raw, 0, count), I(1), I(count * dv::elementBytes(t0)),
                           IntegerAttr(), IntegerAttr());
        if (raw != ubRow)
          convert(raw, ubRow, roundUp(count, 64));
        Value row = ubRow;
        if (one) {
          dv::VBrcbOp::create(b, loc, ndView(ubRow, 0, 16), ubBcast, I(1), DenseI64ArrayAttr(),
                              DenseI64ArrayAttr(), DenseI64ArrayAttr());
          row = ubBcast;
        }
        rowOp(e, out, row, Mp, Np, one);
        break;
      }
      case Epilogue::Full: {
        Type t0 = dv::getElementType(gm[e.arg].getType());
        Value res = tileView(ubRes, Mp, Np);
        Value raw = t0 == outType ? res : tileView(ubResRaw.lookup(t0), Mp, Np);
        dv::CopyNd2NzOp::create(b, loc, gmView(gm[e.arg], outOffset, (t.ms - 1) * N + t.ns), raw,
                                I(t.ms), I(t.ns), I(N), I(Mp), I(Np));
        if (res != raw)
          convert(raw, res, elems);
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

  OpBuilder &b;
  Location loc;
  const MatmulInfo &info;
  const Plan &plan;
  ArrayRef<Value> gm;
  unsigned outArg;
  const soc::SocSpec &soc;
  Type f16, f32, outType, gmOutType, aType, bType;
  Value ubOutGm;
  Value bid;
  Value l1A, l1B, ubA32, ubA16, ubB32, ubB16, l0A, l0B, l0C, ubOut;
  Value ubRow, ubBcast, ubRes, ubScratch;
  Value ubFold, ubRowsBc, ubStat, ubLive; // the softmax epilogue's
  Value ubP16, l1P, l1V, ubV32, ubV16, l0P, l0V, l0C2, ubOut2; // attention's PV matmul
  FlatTileEmitter flat; // vector instructions over a tile's contiguous elements
  llvm::DenseMap<Type, Value> ubRowRaw, ubResRaw;
};

/// Tile sizes that fit the SoC's buffers with one buffer set.
bool planTiles(const MatmulInfo &info, Plan &plan, ArrayRef<Type> gmElements, unsigned outArg,
               const soc::SocSpec &soc) {
  auto bytes = [&](soc::Space s) { return static_cast<int64_t>(soc.bufferBytes(s)); };
  bool aF32 = !gmElements[info.aArg].isF16(), bF32 = !gmElements[info.bArg].isF16();
  int64_t eOut = info.epilogue.empty() && !info.rowSoftmax ? (gmElements[outArg].isF16() ? 2 : 4)
                                        : (gmElements[outArg].isF16() ? 6 : 4);
  bool bias = false, residual = false, gelu = false;
  for (const Epilogue &e : info.epilogue) {
    bias |= e.kind == Epilogue::Row || e.kind == Epilogue::Elem;
    residual |= e.kind == Epilogue::Full;
    gelu |= e.kind == Epilogue::Unary && e.op == Epilogue::Gelu;
  }
  int64_t KpAll = roundUp(info.K, 16);
  auto fits = [&](int64_t Mt, int64_t Nt, int64_t Kt) {
    int64_t ub = (aF32 ? Mt * Kt * 6 : 0) + (bF32 ? Kt * Nt * 6 : 0) + Mt * Nt * eOut +
                 (bias ? roundUp(Nt, 128) * 8 + 256 : 0) + (gelu ? Mt * Nt * 4 : 0) +
                 (residual ? Mt * Nt * 8 : 0) + 32 * 8 +
                 (info.rowSoftmax ? 2 * (Mt * 16 + kRowRepeatSlack) * 4 + 2 * kStatLanes * 4 : 0);
    bool panel = plan.Nb > Nt && !(info.ta && aF32) &&
                 (Mt * KpAll + Kt * Nt) * 2 <= bytes(soc::Space::L1);
    plan.panelA = panel;
    // Attention's PV matmul: P (Mt x Nt) and V (Nt x D) in L1 and L0A/L0B,
    // its [Mt, D] result in L0C and UB (V through UB when it is f32).
    int64_t D = info.attention ? info.headDim : 0;
    int64_t pv = Mt * Nt * 2, v = Nt * D * 2;
    if (info.attention)
      ub += Mt * D * 4 + (gmElements[info.vArg].isF16() ? 0 : Nt * D * 6) +
            (gmElements[outArg].isF16() ? 0 : Mt * Nt * 2); // the f16 probabilities
    return (Mt * Kt + Kt * Nt) * 2 + (D ? pv + v : 0) <= bytes(soc::Space::L1) &&
           Mt * Kt * 2 + (D ? pv : 0) <= bytes(soc::Space::L0A) &&
           Kt * Nt * 2 + (D ? v : 0) <= bytes(soc::Space::L0B) &&
           Mt * Nt * 4 + Mt * D * 4 <= bytes(soc::Space::L0C) && ub <= bytes(soc::Space::UB) &&
           Mt <= int64_t(soc.mmad_max_m) && Nt <= int64_t(soc.mmad_max_n) &&
           Kt <= int64_t(soc.mmad_max_k);
  };
  int64_t &Mt = plan.Mt, &Nt = plan.Nt, &Kt = plan.Kt;
  // A head-split store needs N tiles of whole heads (Nb is a multiple of D,
  // and D divides kCubeMaxNTile).
  // A softmax epilogue keeps all N columns in one tile (N <= kCubeMaxNTile).
  int64_t nStep = info.storeHeadSplitDim ? info.storeHeadSplitDim
                  : info.rowSoftmax      ? roundUp(info.N, 16)
                                         : 16;
  Mt = std::min<int64_t>(roundUp(plan.Mb, 16), 128);
  Nt = std::min<int64_t>(roundUp(plan.Nb, 16), kCubeMaxNTile);
  Kt = std::min<int64_t>(roundUp(info.K, 16), 256);
  while (!fits(Mt, Nt, Kt)) {
    if (Kt > 16 && Kt >= Mt && Kt >= Nt)
      Kt = roundUp(Kt / 2, 16);
    else if (Mt > 16 && Mt >= Nt)
      Mt = roundUp(Mt / 2, 16);
    else if (Nt > nStep)
      Nt = roundUp(Nt / 2, nStep);
    // Only a head-split Nt stops above 16 (at D): M and K shrink instead.
    else if (Mt > 16)
      Mt = roundUp(Mt / 2, 16);
    else if (Kt > 16)
      Kt = roundUp(Kt / 2, 16);
    else
      return false;
  }
  return true;
}

/// Equal parts of the output over at most ai_core_count blocks.
void planBlocks(const MatmulInfo &info, Plan &plan, const soc::SocSpec &soc) {
  int64_t cores = soc.ai_core_count;
  auto best = [&](int64_t extent, bool fractal) {
    for (int64_t d = std::min(cores, extent); d > 1; --d)
      if (extent % d == 0 && (!fractal || (extent / d) % 16 == 0))
        return d;
    return int64_t(1);
  };
  int64_t dB = best(info.batch, false), dM = best(info.M, true), dN = best(info.N, true);
  // A softmax epilogue needs whole rows in every block.
  if (info.rowSoftmax)
    dN = 1;
  // A head-split store's column parts hold whole heads.
  if (int64_t D = info.storeHeadSplitDim) {
    dN = 1;
    for (int64_t d = std::min(cores, info.N / D); d > 1 && dN == 1; --d)
      if (info.N % (d * D) == 0)
        dN = d;
  }
  plan.Bb = info.batch;
  plan.Mb = info.M;
  plan.Nb = info.N;
  // Each split is ranked by a roofline: the Cube work shared by its blocks
  // or its GM reads (f16) over the chip's shared bandwidth, whichever is
  // longer; ties go to more blocks, then fewer bytes. A block reads its A
  // rows once (the panel stays in L1 while the N tiles go by) and its B
  // columns once per M tile of up to 128 rows, so splitting the rows of a
  // small activation re-reads the whole weight on every core (BERT: 128 x
  // 768 by 768 x 3072), while splitting the columns of a tall one re-reads B
  // per M tile. The most blocks is not always fastest: attention's batched
  // matmuls (12 heads) split by head over 6 blocks read each head's K or V
  // once, where 8 row parts re-read them on every block; a head-split
  // store's column parts hold whole heads (QKV: 2304 columns of 64-wide
  // heads split 6 ways read the 3.5 MB weight once, 8 row parts 8 times).
  auto traffic = [&](int64_t blocks, int64_t batches, int64_t rows, int64_t cols) {
    double mTiles = double(roundUp(rows, 128) / 128);
    double perBatch = double(rows) * info.K + mTiles * double(info.K) * cols;
    return double(blocks) * batches * perBatch;
  };
  struct Choice {
    Plan::Split split;
    int64_t blocks;
    double traffic;
  };
  Choice choices[] = {
      {Plan::Batch, dB, traffic(dB, info.batch / dB, info.M, info.N)},
      {Plan::Rows, dM, traffic(dM, info.batch, info.M / dM, info.N)},
      {Plan::Cols, dN, traffic(dN, info.batch, info.M, info.N / dN)},
  };
  double macsPerSecond = soc.cubeMacsPerCyclePerCore(soc::CubeInput::F16) * soc.clock_hz;
  auto seconds = [&](const Choice &c) {
    double macs = double(info.batch) * info.M * info.N * info.K;
    return std::max(macs / (c.blocks * macsPerSecond), c.traffic * 2 / soc.gm_bytes_per_second);
  };
  const Choice *chosen = nullptr;
  for (const Choice &c : choices) {
    if (c.blocks <= 1)
      continue;
    if (!chosen) {
      chosen = &c;
      continue;
    }
    double cs = seconds(c), best = seconds(*chosen);
    if (cs < best || (cs == best && (c.blocks > chosen->blocks ||
                                     (c.blocks == chosen->blocks && c.traffic < chosen->traffic))))
      chosen = &c;
  }
  if (!chosen)
    return;
  plan.split = chosen->split;
  plan.blockDim = chosen->blocks;
  if (chosen->split == Plan::Batch)
    plan.Bb = info.batch / dB;
  else if (chosen->split == Plan::Rows)
    plan.Mb = info.M / dM;
  else
    plan.Nb = info.N / dN;
}

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
  // A constant f16 weight (2-D, not transposed) is stored in FRACTAL_NZ at
  // compile time; the kernel's GM argument is its NZ storage.
  Value weight = info.bArg < call.getNumOperands() ? call.getOperand(info.bArg) : Value();
  plan.nzB = weight && weight.getDefiningOp<vg::ConstantOp>() && !info.tb && !info.bBatched &&
             gmElements[info.bArg].isF16();
  if (plan.nzB)
    gmTypes[info.bArg] = dv::GmType::get(
        ctx, {roundUp(info.N, 16) / 16, roundUp(info.K, 16), 16}, gmElements[info.bArg]);
  planBlocks(info, plan, soc);
  if (!planTiles(info, plan, gmElements, outArg, soc))
    return func.emitError() << "kernel " << func.getSymName()
                            << ": no 16x16x16 matmul tile fits the SoC's buffers";

  OpBuilder b(ctx);
  Block *entry = beginKernel(b, func, gmTypes, plan.blockDim, "cube");
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
