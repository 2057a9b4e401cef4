//===- LongRow.cpp - rows longer than a tile ------------------------------===//
//
// Part of the row template (backend/lower/Rows.cpp): a row too long for a
// tile runs in passes over its segments, two buffer sets in turn, with
// running statistics in UB (one pass for a reduction, two for rms_norm and
// arg max / min, three for softmax, log_softmax and layer_norm).
//
//===----------------------------------------------------------------------===//
#include "backend/lower/rows/RowKernel.h"

namespace vinci::lower::rows {
namespace {

/// A row of C elements in segments of S repeats (the last one shorter):
/// passes over the segments with running statistics in UB.
class LongRow {
public:
  LongRow(VectorEmitter &e, const RowKernel &k, const RowTiling &tiling)
      : e(e), k(k), S(tiling.segmentRepeats), segments(tiling.segments),
        lastElems(k.C - (tiling.segments - 1) * tiling.segmentRepeats * kLanes) {
    Type f32 = e.b.getF32Type();
    for (int64_t i = 0; i < 2; ++i)
      sets.push_back(allocTile(e, k, 1, S, /*segments=*/true));
    run = e.alloc(kLanes, f32);
    run2 = e.alloc(kLanes, f32);
    live = e.alloc(kLanes, f32);
    bc = e.alloc(kLanes, f32);
    tmp = e.alloc(kLanes, f32);
    result = e.alloc(kLanes, isArg(k.op.kind) ? Type(e.b.getI32Type())
                                              : k.types.out.isF16() ? Type(e.b.getF16Type()) : f32);
    if (isArg(k.op.kind))
      offset = e.alloc(kLanes, f32);
  }

  /// Every row of the block: its passes, then its result.
  void emit(Value bid, int64_t share) {
    AffineExpr base = bid ? e.dim(bid) * share : e.constant(0);
    VectorEmitter::Scope scope(e);
    AffineExpr row = base + e.loop(share);
    emitRow(row);
  }

private:
  enum class Pass { Max, Sum, Output, Mean, Variance, Squares, Candidates };

  void emitRow(AffineExpr row) {
    switch (k.op.kind) {
    case RowKind::Softmax:
    case RowKind::LogSoftmax:
      if (k.op.kind == RowKind::LogSoftmax || k.safety.protect) {
        begin(RowKind::Max);
        passes(row, Pass::Max);
      }
      begin(RowKind::Sum);
      passes(row, Pass::Sum);
      finishSoftmaxStats();
      passes(row, Pass::Output);
      return;
    case RowKind::LayerNorm:
      begin(RowKind::Sum);
      passes(row, Pass::Mean);
      e.scalar<dv::VMulsOp>({run, 0}, 1.0 / double(k.C), {run2, 0}, 1, e.maskOf(1)); // mean
      begin(RowKind::Sum);
      passes(row, Pass::Variance);
      normScale();
      passes(row, Pass::Output);
      return;
    case RowKind::RmsNorm:
      begin(RowKind::Sum);
      passes(row, Pass::Squares);
      normScale();
      passes(row, Pass::Output);
      return;
    case RowKind::ArgMax:
    case RowKind::ArgMin: {
      RowKind extreme = k.op.kind == RowKind::ArgMax ? RowKind::Max : RowKind::Min;
      begin(extreme);
      passes(row, Pass::Max);
      e.unary<dv::VCopyOp>({run, 0}, {run2, 0}, 1); // the extreme
      begin(k.op.lastIndex ? RowKind::Max : RowKind::Min);
      e.dup(0.0, {offset, 0}, 1);
      passes(row, Pass::Candidates);
      store(row);
      return;
    }
    default: {
      RowKind combine = k.op.kind == RowKind::Mean || k.op.kind == RowKind::L2 ? RowKind::Sum
                                                                               : k.op.kind;
      begin(combine);
      passes(row, k.op.kind == RowKind::L2 ? Pass::Squares : Pass::Max);
      if (k.op.kind == RowKind::Mean)
        e.scalar<dv::VMulsOp>({run, 0}, 1.0 / double(k.C), {run, 0}, 1, e.maskOf(1));
      if (k.op.kind == RowKind::L2)
        e.unary<dv::VSqrtOp>({run, 0}, {run, 0}, 1, e.maskOf(1));
      store(row);
      return;
    }
    }
  }

  /// run = the identity of the statistic `kind` combines with.
  void begin(RowKind kind) {
    combine = kind;
    e.dup(identityOf(kind), {run, 0}, 1, e.maskOf(1));
  }

  /// live and 1 / sum (softmax) or ln(sum) (log_softmax) after the sum
  /// pass; run2 holds the max.
  void finishSoftmaxStats() {
    bool softmax = k.op.kind == RowKind::Softmax;
    if (softmax && k.safety.protect) {
      e.scalar<dv::VAddsOp>({run2, 0}, k.range, {live, 0}, 1, e.maskOf(1));
      e.scalar<dv::VMaxsOp>({live, 0}, 0.0, {live, 0}, 1, e.maskOf(1));
      e.scalar<dv::VMinsOp>({live, 0}, 1.0, {live, 0}, 1, e.maskOf(1));
      e.binary<dv::VDivOp>({live, 0}, {run, 0}, {run, 0}, 1, e.maskOf(1));
    } else if (softmax) {
      e.unary<dv::VRecOp>({run, 0}, {run, 0}, 1, e.maskOf(1));
    } else {
      e.unary<dv::VLnOp>({run, 0}, {run, 0}, 1, e.maskOf(1));
    }
  }

  /// run = rsqrt(sum / C + eps) after the squares' pass.
  void normScale() {
    e.scalar<dv::VMulsOp>({run, 0}, 1.0 / double(k.C), {run, 0}, 1, e.maskOf(1));
    e.scalar<dv::VAddsOp>({run, 0}, k.op.epsilon, {run, 0}, 1, e.maskOf(1));
    e.unary<dv::VRsqrtOp>({run, 0}, {run, 0}, 1, e.maskOf(1));
  }

  /// The segments of the row, two sets in turn, for one pass.
  void passes(AffineExpr row, Pass pass) {
    int64_t segElems = S * kLanes;
    auto elemsOf = [&](bool last) { return last ? lastElems : segElems; };
    pipelined(
        e, segments - 1, true, 2,
        [&](AffineExpr index, int64_t set, bool last) {
          int64_t elems = elemsOf(last);
          loadRows(e, k, sets[set], k.gmIn, row * k.C + index * segElems, index * segElems, 1,
                   elems, k.C, roundUp(elems, kLanes));
        },
        [&](AffineExpr index, int64_t set, bool last) {
          segment(row, index, sets[set], elemsOf(last), pass);
        });
    if (pass == Pass::Max && (k.op.kind == RowKind::Softmax || k.op.kind == RowKind::LogSoftmax))
      e.unary<dv::VCopyOp>({run, 0}, {run2, 0}, 1); // the max, for the later passes
  }

  /// run = combine(run, reduction of the segment's `elems` elements in `buf`).
  void accumulate(Value buf, int64_t elems) {
    int64_t repeats = (elems + kLanes - 1) / kLanes;
    if (int64_t rest = elems % kLanes) // the segment's masked-off tail lanes
      e.dup(identityOf(combine), {buf, (repeats - 1) * kLanes}, 1, e.maskFrom(rest));
    e.chunks(repeats, [&](int64_t at, int64_t r) {
      if (combine == RowKind::Max)
        e.reduce<dv::VCMaxOp>({buf, at}, tmp, 0, r, true);
      else if (combine == RowKind::Min)
        e.reduce<dv::VCMinOp>({buf, at}, tmp, 0, r, true);
      else
        e.reduce<dv::VCAddOp>({buf, at}, tmp, 0, r, true);
      if (combine == RowKind::Max)
        e.binary<dv::VMaxOp>({run, 0}, {tmp, 0}, {run, 0}, 1, e.maskOf(1));
      else if (combine == RowKind::Min)
        e.binary<dv::VMinOp>({run, 0}, {tmp, 0}, {run, 0}, 1, e.maskOf(1));
      else
        e.binary<dv::VAddOp>({run, 0}, {tmp, 0}, {run, 0}, 1, e.maskOf(1));
    });
  }

  /// dst = src op (lane 0 of `stat`, broadcast), over `repeats` repeats.
  template <typename OpTy> void withValue(Value src, Value stat, Value dst, int64_t repeats) {
    e.broadcast(stat, {bc, 0}, 1);
    e.chunks(repeats, [&](int64_t at, int64_t r) {
      e.binary<OpTy>({src, at}, {bc, 0, 0}, {dst, at}, r);
    });
  }
  template <typename OpTy> void flatScalar(Value src, double c, Value dst, int64_t repeats) {
    e.chunks(repeats, [&](int64_t at, int64_t r) { e.scalar<OpTy>({src, at}, c, {dst, at}, r); });
  }
  template <typename OpTy> void flatUnary(Value src, Value dst, int64_t repeats) {
    e.chunks(repeats, [&](int64_t at, int64_t r) { e.unary<OpTy>({src, at}, {dst, at}, r); });
  }
  template <typename OpTy> void flatBinary(Value a, Value b, Value dst, int64_t repeats) {
    e.chunks(repeats, [&](int64_t at, int64_t r) {
      e.binary<OpTy>({a, at}, {b, at}, {dst, at}, r);
    });
  }

  /// Loads a weight's segment (f32) into `dst`.
  void loadWeight(Value gm, Type element, Value dst, Value staging, AffineExpr at, int64_t elems) {
    int64_t es = dv::elementBytes(element);
    Value into = element.isF16() ? staging : dst;
    dv::CopyOp::create(e.b, e.loc, e.gm(gm, at, elems), e.ub(into, 0, roundUp(elems, kLanes)),
                       uint64_t(1), uint64_t(elems * es));
    if (element.isF16())
      e.chunks((elems + kLanes - 1) / kLanes, [&](int64_t a, int64_t r) {
        e.convert(staging, a, dst, a, r);
      });
  }

  void segment(AffineExpr row, AffineExpr index, const TileBuffers &t, int64_t elems, Pass pass) {
    int64_t segElems = S * kLanes, repeats = (elems + kLanes - 1) / kLanes;
    AffineExpr at = row * k.C + index * segElems;
    Value x = t.x; // loaded by passes()
    bool softmaxKind = k.op.kind == RowKind::Softmax || k.op.kind == RowKind::LogSoftmax;
    bool protect = k.op.kind == RowKind::LogSoftmax || k.safety.protect;
    if (softmaxKind && protect) {
      flatScalar<dv::VMinsOp>(x, k.range, x, repeats);
      flatScalar<dv::VMaxsOp>(x, -k.range, x, repeats);
    }
    switch (pass) {
    case Pass::Max:
    case Pass::Mean:
      return accumulate(x, elems);
    case Pass::Squares:
      flatBinary<dv::VMulOp>(x, x, x, repeats);
      return accumulate(x, elems);
    case Pass::Variance:
      withValue<dv::VSubOp>(x, run2, x, repeats);
      flatBinary<dv::VMulOp>(x, x, x, repeats);
      return accumulate(x, elems);
    case Pass::Sum:
      if (protect) {
        withValue<dv::VSubOp>(x, run2, x, repeats);
        flatScalar<dv::VMaxsOp>(x, -k.safety.clip, x, repeats);
      }
      flatUnary<dv::VExpOp>(x, x, repeats);
      return accumulate(x, elems);
    case Pass::Candidates: {
      // Where x equals the extreme: the element's index (iota + the
      // segment's offset), else the no-match value.
      withValue<dv::VAddOp>(k.shared.iota, offset, t.second, repeats);
      e.broadcast(run2, {bc, 0}, 1);
      e.chunks(repeats, [&](int64_t a, int64_t r) {
        Opnd xs{x, a}, stat{bc, 0, 0}, cand{t.second, a}, none{k.shared.noMatch, 0, 0};
        dv::VCmpOp::create(e.b, e.loc, dv::CmpMode::EQ, e.view(xs, r), e.view(stat, r),
                           e.ub(t.bits, 0, maskBytes(r)), uint64_t(r), DenseI64ArrayAttr(),
                           e.reps({cand, xs, stat}), DenseI64ArrayAttr());
        dv::VSelOp::create(e.b, e.loc, e.view(cand, r), e.view(none, r),
                           e.ub(t.bits, 0, maskBytes(r)), e.view(cand, r), uint64_t(r),
                           DenseI64ArrayAttr(), e.reps({cand, cand, none}), DenseI64ArrayAttr());
      });
      e.scalar<dv::VAddsOp>({offset, 0}, double(segElems), {offset, 0}, 1, e.maskOf(1));
      return accumulate(t.second, elems);
    }
    case Pass::Output:
      break;
    }
    // The output pass.
    if (softmaxKind) {
      Value ex = x;
      if (protect)
        withValue<dv::VSubOp>(x, run2, x, repeats);
      if (k.op.kind == RowKind::Softmax) {
        if (protect)
          flatScalar<dv::VMaxsOp>(x, -k.safety.clip, x, repeats);
        flatUnary<dv::VExpOp>(x, x, repeats);
        withValue<dv::VMulOp>(x, run, x, repeats);
      } else {
        withValue<dv::VSubOp>(ex, run, x, repeats);
      }
    } else {
      if (k.op.kind == RowKind::LayerNorm)
        withValue<dv::VSubOp>(x, run2, x, repeats);
      withValue<dv::VMulOp>(x, run, x, repeats);
      AffineExpr w = index * segElems;
      loadWeight(k.gmScale, k.types.scale, k.shared.scale, k.shared.stage, w, elems);
      flatBinary<dv::VMulOp>(x, k.shared.scale, x, repeats);
      if (k.shared.bias) {
        loadWeight(k.gmBias, k.types.bias, k.shared.bias, k.shared.stage, w, elems);
        flatBinary<dv::VAddOp>(x, k.shared.bias, x, repeats);
      }
    }
    storeRows(e, k, t, at, 1, elems, k.C, roundUp(elems, kLanes));
  }

  void store(AffineExpr row) {
    Value src = run;
    if (isArg(k.op.kind) || k.types.out.isF16()) {
      e.convert(run, 0, result, 0, 1, e.maskOf(1));
      src = result;
    }
    dv::CopyOp::create(e.b, e.loc, e.ub(src, 0, 8), e.gm(k.gmOut, row, 1), uint64_t(1),
                       uint64_t(dv::elementBytes(k.types.out)));
  }

  VectorEmitter &e;
  const RowKernel &k;
  int64_t S, segments, lastElems;
  SmallVector<TileBuffers, 2> sets;
  Value run, run2, live, bc, tmp, result, offset;
  RowKind combine = RowKind::Sum;
};

} // namespace

void emitLongRows(VectorEmitter &e, const RowKernel &k, const RowTiling &tiling, Value bid) {
  LongRow(e, k, tiling).emit(bid, tiling.share);
}

} // namespace vinci::lower::rows
