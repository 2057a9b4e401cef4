//===- InsertSync.cpp - set_flag / wait_flag between dependent pipes ------===//
//
// vinci-insert-sync: orders every pair of instructions on different pipes
// that touch overlapping bytes of one buffer (RAW, WAR, WAW) with a
// dv.set_flag / dv.wait_flag pair, as the simulator's hazard detector
// requires (docs/isa.md, "Execution and hazards"). Instructions of one pipe
// run in order there, so no dv.pipe_barrier is needed and none is emitted.
//
// The algorithm works on one block at a time, innermost dv.loop first. A
// block is a sequence of items: instructions and nested loops (a loop stands
// for everything inside it). The pass
//  1. collects each item's accesses (pipe, read/write, buffer, byte range
//     with affine terms over loop counters and block_idx),
//  2. forward pass: for each item k and pipe pair (PA, PB), the latest
//     earlier item j whose PA access conflicts with k's PB access must be
//     ordered before k; if the flags chosen so far (simulated as vector
//     clocks over item indices, the detector's own model) do not already
//     order it, a pair "set PA->PB after j, wait before k" is added,
//  3. loop bodies only: the same over two consecutive iterations, for
//     dependences from an item of iteration i to an earlier-or-equal item of
//     iteration i+1 (e.g. V reads a UB tile that MTE2 refills next
//     iteration). Each carried pair waits before its consumer and sets after
//     its producer, plus a set before the loop and a wait after it, so every
//     set is consumed and every wait has a set. Dependences that one pair
//     does not already order get pairs of their own (a double-buffered
//     loop's slot 0 refill waits for the read of slot 0, not of slot 1);
//     when that needs more event ids than are free, the carried pairs of a
//     pipe pair merge into one (wait before the earliest consumer, set after
//     the latest producer),
//  4. assigns event ids per (src, dst) pipe pair so that no two live pairs
//     share one (a carried pair reserves its id for the whole loop; a set is
//     moved later when all eight are live) and inserts the ops.
// Conflicts inside a nested loop are that loop's business: its flags order
// them across iterations and across executions of the loop, so the outer
// block only sees the loop as one item.
//
//===----------------------------------------------------------------------===//
#include "backend/Passes.h"

#include "dv/DvOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <array>
#include <functional>
#include <vector>

namespace vinci::backend {
#define GEN_PASS_DEF_INSERTSYNC
#include "backend/Passes.h.inc"
} // namespace vinci::backend

using namespace mlir;

namespace vinci::backend {
namespace {

constexpr unsigned kNumPipes = 6;  // S V M MTE1 MTE2 MTE3
constexpr unsigned kNumEvents = 8; // the ISA's event ids (SoC table: 8 on every target)
constexpr uint64_t kGranule = 32;  // the detector's on-chip granule (docs/isa.md)

//===----------------------------------------------------------------------===//
// Which operands an instruction reads and writes
//===----------------------------------------------------------------------===//

struct OperandUse {
  Value buffer;
  bool write;
};

/// The table, grouped by op kind. The destination is the `to` operand (the
/// last one); read-modify-write destinations (mmad without init, vmla,
/// vaxpy) need no read entry, since a write already conflicts with every
/// other access. Unknown instructions: every buffer operand written.
SmallVector<OperandUse> operandUses(Operation *op) {
  SmallVector<OperandUse> uses;
  auto r = [&](Value v) { uses.push_back({v, false}); };
  auto w = [&](Value v) { uses.push_back({v, true}); };
  llvm::TypeSwitch<Operation *>(op)
      // Data movement: src -> dst.
      .Case<dv::CopyOp, dv::CopyNd2NzOp, dv::CopyNz2NdOp, dv::CopyNchw2Nc1hwc0Op,
            dv::LoadFractalsOp, dv::Load3dOp, dv::MoveL0cUbOp>([&](auto o) {
        r(o.getSrc());
        w(o.getDst());
      })
      .Case<dv::CopyGatherOp>([&](dv::CopyGatherOp o) {
        r(o.getSrc());
        r(o.getIndices());
        w(o.getDst());
      })
      // Cube: a, b -> c.
      .Case<dv::MmadOp>([&](dv::MmadOp o) {
        r(o.getA());
        r(o.getB());
        w(o.getC());
      })
      // Vector, two sources.
      .Case<dv::VAddOp, dv::VSubOp, dv::VMulOp, dv::VDivOp, dv::VMaxOp, dv::VMinOp, dv::VMlaOp,
            dv::VCmpOp>([&](auto o) {
        r(o.getSrc0());
        r(o.getSrc1());
        w(o.getDst());
      })
      .Case<dv::VSelOp>([&](dv::VSelOp o) {
        r(o.getSrc0());
        r(o.getSrc1());
        r(o.getSelMask());
        w(o.getDst());
      })
      // Vector, one source (scalar operands are attributes).
      .Case<dv::VAddsOp, dv::VMulsOp, dv::VMaxsOp, dv::VMinsOp, dv::VLeakyReluOp, dv::VAxpyOp,
            dv::VExpOp, dv::VLnOp, dv::VSqrtOp, dv::VRsqrtOp, dv::VRecOp, dv::VAbsOp, dv::VReluOp,
            dv::VNegOp, dv::VCopyOp, dv::VBrcbOp, dv::VConvOp, dv::VCmpsOp, dv::VCAddOp,
            dv::VCMaxOp, dv::VCMinOp, dv::VTransposeOp>([&](auto o) {
        r(o.getSrc0());
        w(o.getDst());
      })
      // Vector, no source.
      .Case<dv::VDupOp>([&](dv::VDupOp o) { w(o.getDst()); })
      .Default([&](Operation *other) {
        for (Value v : other->getOperands())
          if (isa<dv::GmType, dv::BufType>(v.getType()))
            w(v);
      });
  return uses;
}

//===----------------------------------------------------------------------===//
// Footprints
//===----------------------------------------------------------------------===//

/// `coef * x` where x is a loop counter (0 .. trip-1) or a block_idx atom.
struct Term {
  enum Kind { Iv, Bid, BidMod, BidDiv } kind;
  Value iv;          // Iv only
  int64_t divisor;   // BidMod / BidDiv
  int64_t coef;      // bytes
  int64_t maxValue;  // x in [0, maxValue]
  bool sameAtom(const Term &o) const {
    return kind == o.kind && iv == o.iv && (kind == Iv || kind == Bid || divisor == o.divisor);
  }
};

/// One operand access: bytes [base + sum terms, + len) of a buffer.
struct Access {
  unsigned pipe;
  bool write;
  dv::MemSpace space;
  Value root;   // kernel argument (GM) or the dv.alloc result
  bool placed;  // on-chip: the alloc has an offset, so roots may alias by bytes
  bool whole;   // the address could not be decomposed: the whole buffer
  int64_t base = 0;
  int64_t len = 0;
  SmallVector<Term> terms;
};

int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

/// Splits an affine offset (the ISA's form) into a constant and terms.
bool decompose(AffineExpr expr, int64_t scale, ValueRange operands, unsigned numDims,
               int64_t blockDim, Access &acc) {
  auto operandOf = [&](AffineExpr e) -> Value {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return operands[d.getPosition()];
    if (auto s = dyn_cast<AffineSymbolExpr>(e))
      return operands[numDims + s.getPosition()];
    return {};
  };
  auto isBid = [](Value v) { return v && v.getDefiningOp<dv::BlockIdxOp>(); };
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    acc.base += scale * c.getValue();
    return true;
  }
  if (Value v = operandOf(expr)) {
    if (isBid(v)) {
      acc.terms.push_back({Term::Bid, {}, 0, scale, blockDim - 1});
      return true;
    }
    auto arg = dyn_cast<BlockArgument>(v);
    auto loop = arg ? dyn_cast<dv::LoopOp>(arg.getOwner()->getParentOp()) : dv::LoopOp();
    if (!loop)
      return false;
    acc.terms.push_back({Term::Iv, v, 0, scale, std::max<int64_t>(loop.getTrip() - 1, 0)});
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return false;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return decompose(bin.getLHS(), scale, operands, numDims, blockDim, acc) &&
           decompose(bin.getRHS(), scale, operands, numDims, blockDim, acc);
  case AffineExprKind::Mul:
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return decompose(bin.getLHS(), scale * c.getValue(), operands, numDims, blockDim, acc);
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getLHS()))
      return decompose(bin.getRHS(), scale * c.getValue(), operands, numDims, blockDim, acc);
    return false;
  case AffineExprKind::Mod:
  case AffineExprKind::FloorDiv: {
    auto g = dyn_cast<AffineConstantExpr>(bin.getRHS());
    if (!g || g.getValue() <= 0 || !isBid(operandOf(bin.getLHS())))
      return false;
    int64_t G = g.getValue();
    if (expr.getKind() == AffineExprKind::Mod)
      acc.terms.push_back({Term::BidMod, {}, G, scale, std::min(G, blockDim) - 1});
    else
      acc.terms.push_back({Term::BidDiv, {}, G, scale, (blockDim - 1) / G});
    return true;
  }
  default:
    return false;
  }
}

Access makeAccess(Value buffer, unsigned pipe, bool write, int64_t blockDim) {
  Access acc;
  acc.pipe = pipe;
  acc.write = write;
  acc.space = dv::getSpace(buffer.getType());
  acc.len = int64_t(dv::getBufferBytes(buffer.getType()));
  acc.whole = false;
  acc.placed = false;
  Value v = buffer;
  while (auto view = v.getDefiningOp<dv::ViewOp>()) {
    AffineMap map = view.getMap();
    int64_t bytes = dv::elementBytes(dv::getElementType(view.getSource().getType()));
    if (map.getNumResults() != 1 || bytes == 0 ||
        !decompose(map.getResult(0), bytes, view.getIndices(), map.getNumDims(), blockDim, acc))
      acc.whole = true;
    v = view.getSource();
  }
  acc.root = v;
  if (auto alloc = v.getDefiningOp<dv::AllocOp>()) {
    if (auto offset = alloc.getOffset()) {
      acc.placed = true;
      acc.base += int64_t(*offset);
    }
    if (acc.whole) {
      acc.base = acc.placed ? int64_t(*alloc.getOffset()) : 0;
      acc.len = int64_t(dv::getBufferBytes(v.getType()));
      acc.terms.clear();
      acc.whole = false;
    }
  }
  if (acc.space != dv::MemSpace::GM) {
    // The detector tracks on-chip memory in 32-byte granules; bases and
    // coefficients are aligned to at least that, so rounding the length up
    // gives exactly its notion of overlap.
    acc.len = roundUp(acc.len, kGranule);
  }
  return acc;
}

/// Whether some iteration of x's loops and some iteration of y's loops (the
/// same block) touch a common byte. Conservative: any two iterations count,
/// not only the same one; a dependence carried to a later iteration needs
/// ordering just as well.
bool overlap(const Access &x, const Access &y) {
  if (x.space != y.space)
    return false;
  if (x.space == dv::MemSpace::GM) {
    if (x.root != y.root)
      return false;
  } else if (!(x.placed && y.placed)) {
    if (x.placed != y.placed)
      return true; // a placed and an unplaced buffer of one space may share bytes
    if (x.root != y.root)
      return false; // distinct unplaced buffers: distinct storage
  }
  if (x.whole || y.whole)
    return true;
  // D = start(y) - start(x) = (y.base - x.base) + sum c * t; overlap iff
  // -y.len < D < x.len for some choice of the t's.
  struct Var {
    int64_t coef, lo, hi;
  };
  SmallVector<Var> vars;
  SmallVector<bool> usedY(y.terms.size(), false);
  for (const Term &tx : x.terms) {
    bool paired = false;
    for (auto [i, ty] : llvm::enumerate(y.terms)) {
      if (usedY[i] || !tx.sameAtom(ty))
        continue;
      usedY[i] = true;
      paired = true;
      if (tx.kind == Term::Iv) {
        if (tx.coef == ty.coef)
          vars.push_back({tx.coef, -tx.maxValue, tx.maxValue}); // c * (iy - ix)
        else {
          vars.push_back({ty.coef, 0, ty.maxValue});
          vars.push_back({-tx.coef, 0, tx.maxValue});
        }
      } else {
        vars.push_back({ty.coef - tx.coef, 0, tx.maxValue}); // one block: same bid
      }
      break;
    }
    if (!paired)
      vars.push_back({-tx.coef, 0, tx.maxValue});
  }
  for (auto [i, ty] : llvm::enumerate(y.terms))
    if (!usedY[i])
      vars.push_back({ty.coef, 0, ty.maxValue});
  llvm::erase_if(vars, [](const Var &v) { return v.coef == 0 || v.lo == v.hi; });
  const int64_t lo = -y.len + 1, hi = x.len - 1;
  int64_t c0 = y.base - x.base;
  // Bounds of the remaining sum for pruning.
  SmallVector<int64_t> minRest(vars.size() + 1, 0), maxRest(vars.size() + 1, 0);
  for (int i = int(vars.size()) - 1; i >= 0; --i) {
    int64_t a = vars[i].coef * vars[i].lo, b = vars[i].coef * vars[i].hi;
    minRest[i] = minRest[i + 1] + std::min(a, b);
    maxRest[i] = maxRest[i + 1] + std::max(a, b);
  }
  if (c0 + maxRest[0] < lo || c0 + minRest[0] > hi)
    return false;
  // Exact search with pruning; past a budget, the interval answer (overlap).
  int64_t budget = 1 << 20;
  std::function<bool(size_t, int64_t)> search = [&](size_t i, int64_t sum) -> bool {
    if (--budget < 0)
      return true;
    if (sum + maxRest[i] < lo || sum + minRest[i] > hi)
      return false;
    if (i == vars.size())
      return true;
    for (int64_t t = vars[i].lo; t <= vars[i].hi; ++t)
      if (search(i + 1, sum + vars[i].coef * t))
        return true;
    return false;
  };
  return search(0, c0);
}

//===----------------------------------------------------------------------===//
// Blocks, items and pairs
//===----------------------------------------------------------------------===//

using EventMasks = std::array<std::array<uint8_t, kNumPipes>, kNumPipes>;
using Clock = std::array<int64_t, kNumPipes>;
using Clocks = std::array<Clock, kNumPipes>; // know[P][Q]

/// A carried pair of a nested loop as the enclosing block sees it: a set
/// before the loop, a wait after it.
struct Closure {
  unsigned src, dst;
  bool coversLoop; // the in-body set follows every src instruction of the body
};

struct Item {
  Operation *op;
  Operation *first, *last; // ops the item spans in its block (closure flags included)
  unsigned pipes = 0;      // bit per pipe
  SmallVector<Access> accesses;
  EventMasks used{};       // events live inside the item, per (src, dst)
  SmallVector<Closure> closures;
};

struct Pair {
  unsigned src, dst;
  int setAfter, waitBefore; // item indices
  bool carried;
  int event = -1;
};

/// What processing a loop body hands to the enclosing block.
struct LoopSummary {
  unsigned pipes = 0;
  SmallVector<Access> accesses;
  EventMasks used{};
  SmallVector<Closure> closures;
  Operation *first, *last;
};

bool isSync(Operation *op) { return isa<dv::SetFlagOp, dv::WaitFlagOp, dv::PipeBarrierOp>(op); }

class Inserter {
public:
  Inserter(dv::KernelOp kernel) : kernel(kernel), blockDim(kernel.getBlockDim()) {}

  LogicalResult run() {
    LoopSummary ignored;
    return processBlock(kernel.getBody().front(), nullptr, ignored);
  }

private:
  dv::KernelOp kernel;
  int64_t blockDim;

  LogicalResult processBlock(Block &block, dv::LoopOp loop, LoopSummary &summary);

  // --- state of the block being processed
  SmallVector<Item> items;
  SmallVector<Pair> pairs;
  SmallVector<uint64_t> conflicts; // [j * n + k]: bit src*kNumPipes+dst when j's src access meets k's dst access

  bool conflict(int j, int k, unsigned src, unsigned dst) const {
    return conflicts[j * items.size() + k] >> (src * kNumPipes + dst) & 1;
  }

  /// Vector clocks over item indices (iteration t, item x -> t * n + x) for
  /// `iters` iterations with the pairs chosen so far. `before[i]` is the
  /// state when item i starts (after its waits), `after[i]` when the sets
  /// that follow it are issued.
  void simulate(unsigned iters, std::vector<Clocks> &before, std::vector<Clocks> &after) {
    const int n = items.size();
    before.assign(iters * n, {});
    after.assign(iters * n, {});
    Clocks know;
    for (auto &row : know)
      row.fill(-1);
    for (unsigned t = 0; t < iters; ++t) {
      for (int x = 0; x < n; ++x) {
        const int idx = t * n + x;
        for (const Pair &p : pairs) {
          if (p.waitBefore != x)
            continue;
          int from = p.carried ? int(t) - 1 : int(t);
          if (from < 0)
            continue; // the pre-set before the loop: nothing of this body
          const Clock &snap = after[from * n + p.setAfter][p.src];
          for (unsigned q = 0; q < kNumPipes; ++q)
            know[p.dst][q] = std::max(know[p.dst][q], snap[q]);
        }
        before[idx] = know;
        Clocks entry = know; // what the nested loop's pre-sets snapshot
        for (unsigned p = 0; p < kNumPipes; ++p)
          if (items[x].pipes >> p & 1)
            know[p][p] = idx;
        for (const Closure &c : items[x].closures) {
          Clock snap = entry[c.src];
          if (c.coversLoop)
            snap[c.src] = idx;
          for (unsigned q = 0; q < kNumPipes; ++q)
            know[c.dst][q] = std::max(know[c.dst][q], snap[q]);
        }
        after[idx] = know;
      }
    }
  }

  void forwardPass();
  void carriedPass(bool merge);
  /// Event ids for every pair; false (with an error on `where` when
  /// `report`) when some pair finds none free.
  bool assignEvents(Operation *where, bool report);
  void materialize(dv::LoopOp loop, LoopSummary &summary);
};

void Inserter::forwardPass() {
  const int n = items.size();
  std::vector<Clocks> before, after;
  for (int k = 0; k < n; ++k) {
    while (true) {
      simulate(1, before, after);
      // need[src][dst]: the latest earlier item k's dst access depends on.
      struct Need {
        unsigned src, dst;
        int j;
      };
      SmallVector<Need> open;
      for (unsigned dst = 0; dst < kNumPipes; ++dst) {
        if (!(items[k].pipes >> dst & 1))
          continue;
        for (unsigned src = 0; src < kNumPipes; ++src) {
          if (src == dst)
            continue;
          for (int j = k - 1; j >= 0; --j) {
            if (!conflict(j, k, src, dst))
              continue;
            if (before[k][dst][src] < j)
              open.push_back({src, dst, j});
            break;
          }
        }
      }
      if (open.empty())
        break;
      // The pair whose set carries the most: it may order other needs too.
      auto covers = [&](const Need &a) {
        int count = 0;
        for (const Need &b : open)
          if (b.dst == a.dst && after[a.j][a.src][b.src] >= b.j)
            ++count;
        return count;
      };
      const Need *best = &open.front();
      for (const Need &cand : open)
        if (covers(cand) > covers(*best))
          best = &cand;
      pairs.push_back({best->src, best->dst, best->j, k, false});
    }
  }
}

void Inserter::carriedPass(bool merge) {
  const int n = items.size();
  std::vector<Clocks> before, after;
  struct Need {
    int c, p;
    unsigned src, dst;
  };
  while (true) {
    simulate(2, before, after);
    // A dependence from item p of iteration i to item c < p of iteration
    // i + 1. (c == p: both inside one nested loop, which orders them itself.)
    SmallVector<Need> open;
    for (int c = 0; c < n; ++c) {
      for (unsigned dst = 0; dst < kNumPipes; ++dst) {
        if (!(items[c].pipes >> dst & 1))
          continue;
        for (unsigned src = 0; src < kNumPipes; ++src) {
          if (src == dst)
            continue;
          for (int p = n - 1; p > c; --p) {
            if (!conflict(p, c, src, dst))
              continue;
            if (before[n + c][dst][src] < p)
              open.push_back({c, p, src, dst});
            break;
          }
        }
      }
    }
    if (open.empty())
      return;
    // The pair whose set carries the most (the latest producer first).
    auto covers = [&](const Need &a) {
      int count = 0;
      for (const Need &b : open)
        if (b.dst == a.dst && b.c >= a.c && after[a.p][a.src][b.src] >= b.p)
          ++count;
      return count;
    };
    const Need *best = &open.front();
    for (const Need &cand : open) {
      int cc = covers(cand), cb = covers(*best);
      if (cc > cb || (cc == cb && cand.p > best->p))
        best = &cand;
    }
    auto it = !merge ? pairs.end() : llvm::find_if(pairs, [&](const Pair &q) {
      return q.carried && q.src == best->src && q.dst == best->dst;
    });
    if (it == pairs.end())
      pairs.push_back({best->src, best->dst, best->p, best->c, true});
    else {
      it->setAfter = std::max(it->setAfter, best->p);
      it->waitBefore = std::min(it->waitBefore, best->c);
    }
  }
}

bool Inserter::assignEvents(Operation *where, bool report) {
  const int n = items.size();
  EventMasks reserved{};
  EventMasks inside{};
  for (const Item &item : items)
    for (unsigned s = 0; s < kNumPipes; ++s)
      for (unsigned d = 0; d < kNumPipes; ++d)
        inside[s][d] |= item.used[s][d];
  auto lowest = [](unsigned mask) -> int {
    for (unsigned e = 0; e < kNumEvents; ++e)
      if (mask >> e & 1)
        return e;
    return -1;
  };
  for (Pair &p : pairs) {
    if (!p.carried)
      continue;
    p.event = lowest(~unsigned(inside[p.src][p.dst] | reserved[p.src][p.dst]) & 0xff);
    if (p.event < 0) {
      if (report)
        where->emitError("vinci-insert-sync: no free event id for ")
            << stringifyPipe(dv::Pipe(p.src)) << " -> " << stringifyPipe(dv::Pipe(p.dst));
      return false;
    }
    reserved[p.src][p.dst] |= 1u << p.event;
  }
  SmallVector<Pair *> forward;
  for (Pair &p : pairs)
    if (!p.carried)
      forward.push_back(&p);
  llvm::stable_sort(forward, [](Pair *a, Pair *b) { return a->waitBefore < b->waitBefore; });
  for (auto [i, p] : llvm::enumerate(forward)) {
    for (int s = p->setAfter; s < p->waitBefore; ++s) {
      unsigned busy = reserved[p->src][p->dst];
      for (int x = s + 1; x < p->waitBefore; ++x)
        busy |= items[x].used[p->src][p->dst];
      for (size_t o = 0; o < i; ++o) {
        const Pair *q = forward[o];
        if (q->src == p->src && q->dst == p->dst && s < q->waitBefore)
          busy |= 1u << q->event;
      }
      int e = lowest(~busy & 0xff);
      if (e >= 0) {
        p->event = e;
        p->setAfter = s; // later than needed only when every id is live
        break;
      }
    }
    if (p->event < 0) {
      if (report)
        where->emitError("vinci-insert-sync: no free event id for ")
            << stringifyPipe(dv::Pipe(p->src)) << " -> " << stringifyPipe(dv::Pipe(p->dst));
      return false;
    }
  }
  (void)n;
  return true;
}

void Inserter::materialize(dv::LoopOp loop, LoopSummary &summary) {
  auto pipe = [](unsigned p) { return dv::Pipe(p); };
  for (const Pair &p : pairs) {
    OpBuilder b(items[p.setAfter].last->getContext());
    b.setInsertionPointAfter(items[p.setAfter].last);
    dv::SetFlagOp::create(b, items[p.setAfter].op->getLoc(), pipe(p.src), pipe(p.dst), p.event);
    b.setInsertionPoint(items[p.waitBefore].first);
    dv::WaitFlagOp::create(b, items[p.waitBefore].op->getLoc(), pipe(p.src), pipe(p.dst), p.event);
  }
  if (!loop)
    return;
  summary.first = summary.last = loop;
  OpBuilder b(loop);
  for (const Pair &p : pairs) {
    if (!p.carried)
      continue;
    auto set = dv::SetFlagOp::create(b, loop.getLoc(), pipe(p.src), pipe(p.dst), p.event);
    if (summary.first == loop.getOperation())
      summary.first = set;
  }
  b.setInsertionPointAfter(loop);
  for (const Pair &p : pairs) {
    if (!p.carried)
      continue;
    summary.last = dv::WaitFlagOp::create(b, loop.getLoc(), pipe(p.src), pipe(p.dst), p.event);
    bool covers = true;
    for (size_t x = p.setAfter + 1; x < items.size(); ++x)
      if (items[x].pipes >> p.src & 1)
        covers = false;
    summary.closures.push_back({p.src, p.dst, covers});
  }
  for (const Item &item : items)
    for (unsigned s = 0; s < kNumPipes; ++s)
      for (unsigned d = 0; d < kNumPipes; ++d)
        summary.used[s][d] |= item.used[s][d];
  for (const Pair &p : pairs)
    summary.used[p.src][p.dst] |= 1u << p.event;
}

LogicalResult Inserter::processBlock(Block &block, dv::LoopOp loop, LoopSummary &summary) {
  // Nested loops first: their flags are settled before this block looks at them.
  SmallVector<Item> local;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (auto inner = dyn_cast<dv::LoopOp>(op)) {
      LoopSummary s;
      if (failed(processBlock(inner.getBody().front(), inner, s)))
        return failure();
      if (s.pipes == 0)
        continue;
      Item item{inner, s.first, s.last, s.pipes, std::move(s.accesses), s.used,
                std::move(s.closures)};
      local.push_back(std::move(item));
      continue;
    }
    if (isSync(&op))
      continue;
    auto piped = dyn_cast<dv::PipeOpInterface>(&op);
    if (!piped)
      continue;
    unsigned p = unsigned(piped.getPipe());
    if (p == unsigned(dv::Pipe::S) || p >= kNumPipes)
      continue;
    Item item{&op, &op, &op, 1u << p, {}, {}, {}};
    for (const OperandUse &use : operandUses(&op))
      item.accesses.push_back(makeAccess(use.buffer, p, use.write, blockDim));
    local.push_back(std::move(item));
  }

  items = std::move(local);
  pairs.clear();
  const size_t n = items.size();
  conflicts.assign(n * n, 0);
  for (size_t j = 0; j < n; ++j)
    for (size_t k = 0; k < n; ++k) {
      if (j == k)
        continue;
      uint64_t bits = 0;
      for (const Access &x : items[j].accesses)
        for (const Access &y : items[k].accesses) {
          uint64_t bit = uint64_t(1) << (x.pipe * kNumPipes + y.pipe);
          if (x.pipe == y.pipe || (bits & bit) || !(x.write || y.write))
            continue;
          if (overlap(x, y))
            bits |= bit;
        }
      conflicts[j * n + k] = bits;
    }

  forwardPass();
  Operation *where = loop ? loop.getOperation() : kernel.getOperation();
  if (loop) {
    SmallVector<Pair> forward = pairs;
    carriedPass(/*merge=*/false);
    if (!assignEvents(where, /*report=*/false)) {
      pairs = std::move(forward);
      carriedPass(/*merge=*/true);
      if (!assignEvents(where, /*report=*/true))
        return failure();
    }
  } else if (!assignEvents(where, /*report=*/true)) {
    return failure();
  }
  materialize(loop, summary);
  for (Item &item : items) {
    summary.pipes |= item.pipes;
    summary.accesses.append(item.accesses.begin(), item.accesses.end());
  }
  return success();
}

struct InsertSyncPass : impl::InsertSyncBase<InsertSyncPass> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<dv::KernelOp>()) {
      // A kernel that already has sync ops was synchronised by its author.
      if (kernel.walk([](Operation *op) {
                  return isSync(op) ? WalkResult::interrupt() : WalkResult::advance();
                })
              .wasInterrupted())
        continue;
      Inserter inserter(kernel);
      if (failed(inserter.run()))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace vinci::backend
