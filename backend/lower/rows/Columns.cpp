//===- Columns.cpp - row ops along a middle axis --------------------------===//
//
// Part of the row template (backend/lower/Rows.cpp): column mode, the
// statistic lane-wise over the `cols` sub-rows of `inner` elements of each
// [cols, inner] slab (softmax and log_softmax over a middle axis, the
// reductions over a middle block of dims, reduce_prod always).
//
//===----------------------------------------------------------------------===//
#include "backend/lower/rows/RowKernel.h"

namespace vinci::lower::rows {
namespace {

/// Column mode: units of `laneTile` inner elements of one row's slab, its
/// sub-rows `subRows` at a time (passes over the chunks when several).
/// Each sub-row is padded to bp = a multiple of 64 in UB (bursts with a
/// gap), so the statistic is a lane-wise vmax/vadd/vmul over the sub-rows
/// (an inner dv.loop whose views step one padded sub-row an iteration).
class Columns {
public:
  Columns(VectorEmitter &e, const RowKernel &k, const ColumnTiling &tiling)
      : e(e), k(k), tiling(tiling), R(k.op.cols), B(k.op.inner), W(tiling.laneTile),
        bp(roundUp(tiling.laneTile, kLanes)), nb(bp / kLanes), rest(tiling.laneTile % kLanes) {
    Type f16 = e.b.getF16Type(), f32 = e.b.getF32Type();
    int64_t slab = tiling.subRows * bp;
    x = e.alloc(slab, f32);
    if (k.types.in.isF16())
      raw = e.alloc(slab, f16);
    if (needsOperandTile(k.op, false)) {
      operand = e.alloc(slab, f32);
      if (operandTileIsF16(k.op, k.types, false))
        operandRaw = e.alloc(slab, f16);
    }
    if (k.op.kind == RowKind::LogSoftmax)
      t = e.alloc(slab, f32);
    bool reduce = isReduce(k.op.kind);
    if (k.types.out.isF16() || isArg(k.op.kind))
      out = e.alloc(reduce ? bp : slab,
                    isArg(k.op.kind) ? Type(e.b.getI32Type()) : Type(f16));
    acc = e.alloc(bp, f32);
    acc2 = e.alloc(bp, f32);
    live = e.alloc(bp, f32);
    if (isArg(k.op.kind)) {
      index = e.alloc(bp, f32);
      counter = e.alloc(bp, f32);
      candidates = e.alloc(bp, f32);
      noMatch = e.alloc(bp, f32);
      bits = e.alloc(maskBytes(nb), e.b.getIntegerType(8, /*isSigned=*/false));
    }
  }

  /// Every (row, lane tile) of the block: the row's slab at row * R * B,
  /// the lane tile at its index * W.
  void emit(Value bid) {
    int64_t rows = k.op.rows, tiles = tiling.laneTiles;
    AffineExpr base = bid ? e.dim(bid) * (tiling.splitRows ? rows / tiling.blockDim
                                                            : tiles / tiling.blockDim)
                          : e.constant(0);
    VectorEmitter::Scope scope(e);
    AffineExpr row = tiling.splitRows ? base + e.loop(rows / tiling.blockDim) : e.loop(rows);
    AffineExpr lanes = tiling.splitRows ? e.loop(tiles) : base + e.loop(tiles / tiling.blockDim);
    AffineExpr in = row * (R * B) + lanes * W;
    AffineExpr outAt = isReduce(k.op.kind) ? row * B + lanes * W : in;
    emitUnit(in, outAt);
  }

private:
  /// fn over the sub-rows [0, count) of the slab buffer: subRow(buf) views
  /// the current padded sub-row.
  void overSubRows(int64_t count, function_ref<void(function_ref<Value(Value)>)> fn) {
    VectorEmitter::Scope scope(e);
    auto loop = dv::LoopOp::create(e.b, e.loc, count);
    e.b.setInsertionPointToStart(&loop.getBody().front());
    Value r = loop.getInductionVar();
    auto subRow = [&](Value buf) -> Value {
      Type element = dv::getElementType(buf.getType());
      auto type = dv::BufType::get(e.ctx, dv::MemSpace::UB, {bp}, element, dv::Layout::ND);
      AffineMap map = AffineMap::get(1, 0, e.b.getAffineDimExpr(0) * bp);
      return dv::ViewOp::create(e.b, e.loc, type, buf, ValueRange{r}, AffineMapAttr::get(map))
          .getResult();
    };
    fn(subRow);
  }

  /// fn(start, repeats, mask) over one sub-row's repeats (the last masked).
  void forLanes(function_ref<void(int64_t, int64_t, DenseI64ArrayAttr)> fn) {
    int64_t full = W / kLanes;
    for (int64_t r = 0; r < full; r += kChunk)
      fn(r * kLanes, std::min(kChunk, full - r), DenseI64ArrayAttr());
    if (rest)
      fn(full * kLanes, 1, e.maskOf(rest));
  }
  template <typename OpTy> void lanesBinary(Value a, Value b, Value dst) {
    forLanes([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
      e.binary<OpTy>({a, s}, {b, s}, {dst, s}, r, m);
    });
  }
  template <typename OpTy> void lanesScalar(Value a, double c, Value dst) {
    forLanes([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
      e.scalar<OpTy>({a, s}, c, {dst, s}, r, m);
    });
  }
  template <typename OpTy> void lanesUnary(Value a, Value dst) {
    forLanes([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
      e.unary<OpTy>({a, s}, {dst, s}, r, m);
    });
  }
  void lanesFill(Value dst, double c) {
    forLanes([&](int64_t s, int64_t r, DenseI64ArrayAttr m) { e.dup(c, {dst, s}, r, m); });
  }
  /// Over the whole loaded slab of `count` sub-rows (flat).
  template <typename OpTy> void slabScalar(Value a, double c, Value dst, int64_t count) {
    e.chunks(count * nb, [&](int64_t at, int64_t r) { e.scalar<OpTy>({a, at}, c, {dst, at}, r); });
  }
  template <typename OpTy> void slabUnary(Value a, Value dst, int64_t count) {
    e.chunks(count * nb, [&](int64_t at, int64_t r) { e.unary<OpTy>({a, at}, {dst, at}, r); });
  }

  /// Loads sub-rows [first, first + count) of the unit (f32 in x), and
  /// applies the softmax's prologue to them (column mode: scalars and
  /// tensors of the logits' shape, read where the logits are).
  void load(AffineExpr in, int64_t first, int64_t count) {
    auto slab = [&](Value from, Type element, Value staging, Value into) {
      int64_t es = dv::elementBytes(element);
      Value dst = element.isF16() ? staging : into;
      dv::CopyOp::create(e.b, e.loc, e.gm(from, in + first * B, (count - 1) * B + W), dst,
                         uint64_t(count), uint64_t(W * es),
                         uint64_t(count > 1 ? (B - W) * es : 0),
                         uint64_t(count > 1 ? (bp - W) * es : 0));
      if (element.isF16())
        e.chunks(count * nb, [&](int64_t at, int64_t r) { e.convert(staging, at, into, at, r); });
    };
    slab(k.gmIn, k.types.in, raw, x);
    for (size_t i = 0; i < k.op.prologue.size(); ++i) {
      const PrologueStep &step = k.op.prologue[i];
      if (!readsTensor(step)) {
        withScalarInstruction(step, [&](auto tag) {
          slabScalar<typename decltype(tag)::type>(x, immediateOf(step), x, count);
        });
        continue;
      }
      slab(k.gmOperands[i], k.types.operands[i], operandRaw, operand);
      withTensorInstruction(step, [&](auto tag) {
        e.chunks(count * nb, [&](int64_t at, int64_t r) {
          e.binary<typename decltype(tag)::type>({x, at}, {operand, at}, {x, at}, r);
        });
      });
    }
  }
  void store(AffineExpr outAt, int64_t first, int64_t count, Value src) {
    int64_t es = dv::elementBytes(k.types.out);
    if (src == x && out)
      e.chunks(count * nb, [&](int64_t at, int64_t r) { e.convert(x, at, out, at, r); });
    Value from = src == x && out ? out : src;
    dv::CopyOp::create(e.b, e.loc, from, e.gm(k.gmOut, outAt + first * B, (count - 1) * B + W),
                       uint64_t(count), uint64_t(W * es),
                       uint64_t(count > 1 ? (bp - W) * es : 0),
                       uint64_t(count > 1 ? (B - W) * es : 0));
  }

  /// The chunks of the slab: fn(first sub-row, count).
  void forChunks(function_ref<void(int64_t, int64_t)> fn) {
    for (int64_t c = 0; c < tiling.chunks; ++c) {
      int64_t first = c * tiling.subRows;
      fn(first, std::min(tiling.subRows, R - first));
    }
  }

  /// dst = combine over the loaded chunk's sub-rows of src, lane-wise.
  void combineSubRows(RowKind kind, Value src, Value dst, int64_t count) {
    overSubRows(count, [&](function_ref<Value(Value)> subRow) {
      Value sr = subRow(src);
      if (kind == RowKind::Max)
        lanesBinary<dv::VMaxOp>(dst, sr, dst);
      else if (kind == RowKind::Min)
        lanesBinary<dv::VMinOp>(dst, sr, dst);
      else if (kind == RowKind::Prod)
        lanesBinary<dv::VMulOp>(dst, sr, dst);
      else
        lanesBinary<dv::VAddOp>(dst, sr, dst);
    });
  }

  /// Saturates the loaded chunk (softmax family, protected).
  void saturate(int64_t count) {
    slabScalar<dv::VMinsOp>(x, k.range, x, count);
    slabScalar<dv::VMaxsOp>(x, -k.range, x, count);
  }

  /// x[s] = x[s] op stat over the chunk's sub-rows.
  template <typename OpTy> void withLanes(Value buf, Value stat, int64_t count) {
    overSubRows(count, [&](function_ref<Value(Value)> subRow) {
      Value sr = subRow(buf);
      lanesBinary<OpTy>(sr, stat, sr);
    });
  }

  void emitUnit(AffineExpr in, AffineExpr outAt) {
    bool single = tiling.chunks == 1;
    RowKind kind = k.op.kind;
    if (isArg(kind)) {
      RowKind extreme = kind == RowKind::ArgMax ? RowKind::Max : RowKind::Min;
      lanesFill(acc, identityOf(extreme));
      forChunks([&](int64_t first, int64_t count) {
        load(in, first, count);
        combineSubRows(extreme, x, acc, count);
      });
      // Over the sub-rows in order: where a sub-row equals the extreme, its
      // number (a counter) is a candidate; the first index is the min of
      // the candidates (no match: R), the last the max (no match: -1).
      double none = k.op.lastIndex ? -1.0 : double(R);
      lanesFill(index, none);
      lanesFill(noMatch, none);
      lanesFill(counter, 0.0);
      forChunks([&](int64_t first, int64_t count) {
        if (!single)
          load(in, first, count);
        overSubRows(count, [&](function_ref<Value(Value)> subRow) {
          Value sr = subRow(x);
          forLanes([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
            dv::VCmpOp::create(e.b, e.loc, dv::CmpMode::EQ, e.ub(sr, s, r * kLanes),
                               e.ub(acc, s, r * kLanes), e.ub(bits, 0, maskBytes(r)),
                               uint64_t(r), DenseI64ArrayAttr(), DenseI64ArrayAttr(), m);
            dv::VSelOp::create(e.b, e.loc, e.ub(counter, s, r * kLanes),
                               e.ub(noMatch, s, r * kLanes), e.ub(bits, 0, maskBytes(r)),
                               e.ub(candidates, s, r * kLanes), uint64_t(r), DenseI64ArrayAttr(),
                               DenseI64ArrayAttr(), m);
          });
          if (k.op.lastIndex)
            lanesBinary<dv::VMaxOp>(index, candidates, index);
          else
            lanesBinary<dv::VMinOp>(index, candidates, index);
          lanesScalar<dv::VAddsOp>(counter, 1.0, counter);
        });
      });
      forLanes([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
        e.convert(index, s, out, s, r, m);
      });
      store(outAt, 0, 1, out);
      return;
    }
    if (isReduce(kind)) {
      RowKind combine = kind == RowKind::Mean || kind == RowKind::L2 ? RowKind::Sum : kind;
      lanesFill(acc, identityOf(combine));
      forChunks([&](int64_t first, int64_t count) {
        load(in, first, count);
        if (kind == RowKind::L2)
          e.chunks(count * nb, [&](int64_t at, int64_t r) {
            e.binary<dv::VMulOp>({x, at}, {x, at}, {x, at}, r);
          });
        combineSubRows(combine, x, acc, count);
      });
      if (kind == RowKind::Mean)
        lanesScalar<dv::VMulsOp>(acc, 1.0 / double(R), acc);
      if (kind == RowKind::L2)
        lanesUnary<dv::VSqrtOp>(acc, acc);
      Value src = acc;
      if (out) {
        forLanes([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
          e.convert(acc, s, out, s, r, m);
        });
        src = out;
      }
      store(outAt, 0, 1, src);
      return;
    }
    // softmax / log_softmax over the sub-rows: the max (acc2), the sum of
    // exp (acc), then the output; one load when the slab fits.
    bool softmax = kind == RowKind::Softmax;
    bool shift = !softmax || k.safety.protect; // log_softmax's shift is its definition
    Value ex = softmax ? x : t;
    if (shift) {
      lanesFill(acc2, identityOf(RowKind::Max));
      forChunks([&](int64_t first, int64_t count) {
        load(in, first, count);
        saturate(count);
        combineSubRows(RowKind::Max, x, acc2, count);
      });
      if (softmax) {
        // live = 1 unless every logit was -inf (saturated to -range): 0.
        lanesScalar<dv::VAddsOp>(acc2, k.range, live);
        lanesScalar<dv::VMaxsOp>(live, 0.0, live);
        lanesScalar<dv::VMinsOp>(live, 1.0, live);
      }
    }
    auto shifted = [&](int64_t first, int64_t count) {
      if (!single || !shift)
        load(in, first, count);
      if (!single && shift)
        saturate(count);
      if (shift) {
        withLanes<dv::VSubOp>(x, acc2, count);
        slabScalar<dv::VMaxsOp>(x, -k.safety.clip, ex, count);
      }
      slabUnary<dv::VExpOp>(ex, ex, count);
    };
    lanesFill(acc, 0.0);
    forChunks([&](int64_t first, int64_t count) {
      shifted(first, count);
      combineSubRows(RowKind::Sum, ex, acc, count);
    });
    if (softmax) {
      if (k.safety.protect)
        lanesBinary<dv::VDivOp>(live, acc, acc); // live / sum: zeros for a masked row
      else
        lanesUnary<dv::VRecOp>(acc, acc);
    } else {
      lanesUnary<dv::VLnOp>(acc, acc);
    }
    forChunks([&](int64_t first, int64_t count) {
      if (softmax) {
        if (!single)
          shifted(first, count);
        withLanes<dv::VMulOp>(x, acc, count);
      } else {
        if (!single) {
          load(in, first, count);
          saturate(count);
          withLanes<dv::VSubOp>(x, acc2, count);
        }
        withLanes<dv::VSubOp>(x, acc, count);
      }
      store(outAt, first, count, x);
    });
  }

  VectorEmitter &e;
  const RowKernel &k;
  const ColumnTiling &tiling;
  int64_t R, B, W, bp, nb, rest;
  Value x, raw, t, out, acc, acc2, live, index, counter, candidates, noMatch, bits;
  Value operand, operandRaw; // a prologue operand (f32; its f16 staging)
};

} // namespace

void emitColumns(VectorEmitter &e, const RowKernel &k, const ColumnTiling &tiling, Value bid) {
  Columns(e, k, tiling).emit(bid);
}

} // namespace vinci::lower::rows
