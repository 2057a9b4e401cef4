//===- RowTile.cpp - row kernels in tiles of whole rows -------------------===//
//
// Part of the row template (backend/lower/Rows.cpp): the instructions of
// one tile of K whole rows in UB, the tile loads and stores, and the block's
// tiles software pipelined over two buffer sets.
//
//===----------------------------------------------------------------------===//
#include "backend/lower/rows/RowKernel.h"

namespace vinci::lower::rows {
namespace {

/// The instructions of one tile of `K` rows of `n` repeats (row stride cp
/// = 64 n elements) in UB, in f32.
class RowTile {
public:
  RowTile(VectorEmitter &e, const RowOp &op, int64_t K, int64_t cols)
      : e(e), op(op), K(K), C(cols), n((cols + kLanes - 1) / kLanes), cp(n * kLanes),
        rest(cols % kLanes), byPosition(n <= K) {}

  /// Row r, repeat j of a tile buffer, read with stride one row (across
  /// rows) or dense (along a row).
  Opnd across(Value buf, int64_t j) const { return {buf, j * kLanes, n * 8}; }

  /// x = op(x) over the whole tile (padding lanes too: never stored).
  template <typename F> void flat(F fn) const {
    e.chunks(K * n, [&](int64_t at, int64_t repeats) { fn(at, repeats); });
  }
  template <typename OpTy> void flatUnary(Value src, Value dst) const {
    flat([&](int64_t at, int64_t r) { e.unary<OpTy>({src, at}, {dst, at}, r); });
  }
  template <typename OpTy> void flatScalar(Value src, double c, Value dst) const {
    flat([&](int64_t at, int64_t r) { e.scalar<OpTy>({src, at}, c, {dst, at}, r); });
  }
  template <typename OpTy> void flatBinary(Value a, Value b, Value dst) const {
    flat([&](int64_t at, int64_t r) { e.binary<OpTy>({a, at}, {b, at}, {dst, at}, r); });
  }

  /// The masked-off lanes of every row's last repeat = c.
  void pad(Value buf, double c) const {
    if (rest)
      e.dup(c, across(buf, n - 1), K, e.maskFrom(rest));
  }

  /// stat[r] = the reduction of row r of `src` (padding already the
  /// identity), through the [K][64] `lanes` buffer.
  template <typename LaneOp, typename ReduceOp>
  void reduceRows(Value src, const TileBuffers &t) const {
    if (n == 1)
      return e.reduce<ReduceOp>({src, 0}, t.stat, 0, K, false);
    if (byPosition) {
      // Lane-wise over the repeat positions, all rows at once.
      e.binary<LaneOp>(across(src, 0), across(src, 1), {t.lanes, 0}, K);
      for (int64_t j = 2; j < n; ++j)
        e.binary<LaneOp>({t.lanes, 0}, across(src, j), {t.lanes, 0}, K);
      return e.reduce<ReduceOp>({t.lanes, 0}, t.stat, 0, K, false);
    }
    // Each row across its repeats into lane 0 of its own 64-lane slot (a
    // 32-byte aligned result), then lane 0 of every slot into stat.
    for (int64_t r = 0; r < K; ++r) {
      if (n <= 255) {
        e.reduce<ReduceOp>({src, r * cp}, t.lanes, r * kLanes, n, true);
        continue;
      }
      int64_t parts = 0;
      e.chunks(n, [&](int64_t at, int64_t repeats) {
        e.reduce<ReduceOp>({src, r * cp + at}, t.partials, parts, repeats, false);
        parts += repeats;
      });
      int64_t padded = roundUp(parts, kLanes);
      if (parts % kLanes)
        e.dup(identityFor<ReduceOp>(), {t.partials, padded - kLanes}, 1,
              e.maskFrom(parts % kLanes));
      e.reduce<ReduceOp>({t.partials, 0}, t.lanes, r * kLanes, padded / kLanes, true);
    }
    e.reduce<ReduceOp>({t.lanes, 0}, t.stat, 0, K, false, e.maskOf(1));
  }
  template <typename ReduceOp> static double identityFor() {
    if constexpr (std::is_same_v<ReduceOp, dv::VCMaxOp>)
      return -std::numeric_limits<double>::infinity();
    if constexpr (std::is_same_v<ReduceOp, dv::VCMinOp>)
      return std::numeric_limits<double>::infinity();
    return 0.0;
  }
  void reduceRows(RowKind kind, Value src, const TileBuffers &t) const {
    if (kind == RowKind::Max)
      return reduceRows<dv::VMaxOp, dv::VCMaxOp>(src, t);
    if (kind == RowKind::Min)
      return reduceRows<dv::VMinOp, dv::VCMinOp>(src, t);
    return reduceRows<dv::VAddOp, dv::VCAddOp>(src, t);
  }

  /// x[r, :] = x[r, :] op stat[r] (broadcast to `lanes` first).
  template <typename OpTy> void withStat(Value x, const TileBuffers &t) const {
    e.broadcast(t.stat, {t.lanes, 0}, K);
    if (byPosition) {
      for (int64_t j = 0; j < n; ++j)
        e.binary<OpTy>(across(x, j), {t.lanes, 0}, across(x, j), K);
      return;
    }
    for (int64_t r = 0; r < K; ++r)
      e.chunks(n, [&](int64_t at, int64_t repeats) {
        e.binary<OpTy>({x, r * cp + at}, {t.lanes, r * kLanes, 0}, {x, r * cp + at}, repeats);
      });
  }

  /// x[r, :] = x[r, :] op w (one row shared by every row).
  template <typename OpTy> void withRow(Value x, Value w) const {
    if (byPosition) {
      for (int64_t j = 0; j < n; ++j)
        e.binary<OpTy>(across(x, j), {w, j * kLanes, 0}, across(x, j), K);
      return;
    }
    for (int64_t r = 0; r < K; ++r)
      e.chunks(n, [&](int64_t at, int64_t repeats) {
        e.binary<OpTy>({x, r * cp + at}, {w, at}, {x, r * cp + at}, repeats);
      });
  }

  /// dst[r, j] = x[r, j] == stat[r] ? iota[j] : noMatch (arg's candidates).
  void selectExtreme(Value x, const TileBuffers &t, const SharedBuffers &s, Value dst) const {
    e.broadcast(t.stat, {t.lanes, 0}, K);
    auto select = [&](Opnd xs, Opnd stat, Opnd iota, Opnd out, int64_t repeat) {
      dv::VCmpOp::create(e.b, e.loc, dv::CmpMode::EQ, e.view(xs, repeat), e.view(stat, repeat),
                         e.ub(t.bits, 0, maskBytes(repeat)), uint64_t(repeat),
                         DenseI64ArrayAttr(), e.reps({out, xs, stat}), DenseI64ArrayAttr());
      Opnd none{s.noMatch, 0, 0};
      dv::VSelOp::create(e.b, e.loc, e.view(iota, repeat), e.view(none, repeat),
                         e.ub(t.bits, 0, maskBytes(repeat)), e.view(out, repeat),
                         uint64_t(repeat), DenseI64ArrayAttr(), e.reps({out, iota, none}),
                         DenseI64ArrayAttr());
    };
    if (byPosition) {
      for (int64_t j = 0; j < n; ++j)
        select(across(x, j), {t.lanes, 0}, {s.iota, j * kLanes, 0}, across(dst, j), K);
      return;
    }
    for (int64_t r = 0; r < K; ++r)
      e.chunks(n, [&](int64_t at, int64_t repeats) {
        select({x, r * cp + at}, {t.lanes, r * kLanes, 0}, {s.iota, at}, {dst, r * cp + at},
               repeats);
      });
  }

  /// An op on the K statistics (whole repeats, the last one masked).
  template <typename F> void stats(F fn) const {
    for (int64_t r = 0; r < K; r += kLanes) {
      int64_t lanes = std::min(kLanes, K - r);
      fn(r, lanes < kLanes ? e.maskOf(lanes) : DenseI64ArrayAttr());
    }
  }
  template <typename OpTy> void statScalar(Value st, double c, Value dst) const {
    stats([&](int64_t at, DenseI64ArrayAttr m) { e.scalar<OpTy>({st, at}, c, {dst, at}, 1, m); });
  }
  template <typename OpTy> void statUnary(Value st) const {
    stats([&](int64_t at, DenseI64ArrayAttr m) { e.unary<OpTy>({st, at}, {st, at}, 1, m); });
  }
  template <typename OpTy> void statBinary(Value a, Value b, Value dst) const {
    stats([&](int64_t at, DenseI64ArrayAttr m) {
      e.binary<OpTy>({a, at}, {b, at}, {dst, at}, 1, m);
    });
  }

  /// The vector work of the op on the tile in t.x (loaded, f32).
  void compute(const TileBuffers &t, const SharedBuffers &s, SoftmaxSafety safety,
               double range) const {
    Value x = t.x;
    double invC = 1.0 / double(C);
    switch (op.kind) {
    case RowKind::Softmax:
    case RowKind::LogSoftmax: {
      bool softmax = op.kind == RowKind::Softmax;
      Value ex = softmax ? x : t.second;
      // Unprotected (the SoftmaxProtection switch off): exp(x) / sum(exp(x))
      // as written; log_softmax's shift is its definition.
      if (!softmax || safety.protect) {
        flatScalar<dv::VMinsOp>(x, range, x); // non-finite logits saturate
        flatScalar<dv::VMaxsOp>(x, -range, x);
        pad(x, -std::numeric_limits<double>::infinity());
        reduceRows(RowKind::Max, x, t);
        if (softmax) {
          // live = 1 unless every logit was -inf (saturated to -range): 0.
          statScalar<dv::VAddsOp>(t.stat, range, t.other);
          statScalar<dv::VMaxsOp>(t.other, 0.0, t.other);
          statScalar<dv::VMinsOp>(t.other, 1.0, t.other);
        }
        withStat<dv::VSubOp>(x, t); // x - max <= 0
        flatScalar<dv::VMaxsOp>(x, -safety.clip, ex);
      }
      flatUnary<dv::VExpOp>(ex, ex);
      pad(ex, 0.0);
      reduceRows(RowKind::Sum, ex, t);
      if (softmax) {
        // x * (live / sum): a fully masked row gives zeros, not 1/C.
        if (safety.protect)
          statBinary<dv::VDivOp>(t.other, t.stat, t.stat);
        else
          statUnary<dv::VRecOp>(t.stat);
        withStat<dv::VMulOp>(x, t);
      } else {
        statUnary<dv::VLnOp>(t.stat);
        withStat<dv::VSubOp>(x, t);
      }
      return;
    }
    case RowKind::LayerNorm:
    case RowKind::RmsNorm: {
      if (op.kind == RowKind::LayerNorm) {
        pad(x, 0.0);
        reduceRows(RowKind::Sum, x, t);
        statScalar<dv::VMulsOp>(t.stat, invC, t.stat);
        withStat<dv::VSubOp>(x, t); // centred
      }
      flatBinary<dv::VMulOp>(x, x, t.second);
      pad(t.second, 0.0);
      reduceRows(RowKind::Sum, t.second, t);
      statScalar<dv::VMulsOp>(t.stat, invC, t.stat);
      statScalar<dv::VAddsOp>(t.stat, op.epsilon, t.stat);
      statUnary<dv::VRsqrtOp>(t.stat);
      withStat<dv::VMulOp>(x, t);
      withRow<dv::VMulOp>(x, s.scale);
      if (s.bias)
        withRow<dv::VAddOp>(x, s.bias);
      return;
    }
    case RowKind::ArgMax:
    case RowKind::ArgMin: {
      RowKind extreme = op.kind == RowKind::ArgMax ? RowKind::Max : RowKind::Min;
      pad(x, identityOf(extreme));
      reduceRows(extreme, x, t);
      selectExtreme(x, t, s, t.second);
      RowKind pick = op.lastIndex ? RowKind::Max : RowKind::Min;
      pad(t.second, identityOf(pick)); // a padding lane is never an index
      reduceRows(pick, t.second, t);
      return;
    }
    case RowKind::L2:
      flatBinary<dv::VMulOp>(x, x, x);
      pad(x, 0.0);
      reduceRows(RowKind::Sum, x, t);
      statUnary<dv::VSqrtOp>(t.stat);
      return;
    default:
      pad(x, identityOf(op.kind == RowKind::Mean ? RowKind::Sum : op.kind));
      reduceRows(op.kind == RowKind::Mean ? RowKind::Sum : op.kind, x, t);
      if (op.kind == RowKind::Mean)
        statScalar<dv::VMulsOp>(t.stat, invC, t.stat);
      return;
    }
  }

  VectorEmitter &e;
  const RowOp &op;
  int64_t K, C, n, cp, rest;
  /// Row statistics one instruction a repeat position (all rows), rather
  /// than one a row: min(n, K) instructions either way.
  bool byPosition;
};

/// Stores `rows` results (t.stat, converted to the output's type).
void storeStats(VectorEmitter &e, const RowKernel &k, const TileBuffers &t, AffineExpr offset,
                int64_t rows) {
  Value src = t.stat;
  if (isArg(k.op.kind) || k.types.out.isF16()) {
    for (int64_t r = 0; r < rows; r += kLanes) {
      int64_t lanes = std::min(kLanes, rows - r);
      e.convert(t.stat, r, t.other, r, 1, lanes < kLanes ? e.maskOf(lanes) : DenseI64ArrayAttr());
    }
    src = t.other;
  }
  int64_t es = dv::elementBytes(k.types.out);
  dv::CopyOp::create(e.b, e.loc, e.ub(src, 0, roundUp(rows, 8)), e.gm(k.gmOut, offset, rows),
                     uint64_t(1), uint64_t(rows * es));
}

} // namespace

TileBuffers allocTile(VectorEmitter &e, const RowKernel &k, int64_t K, int64_t repeats,
                      bool segments) {
  Type f16 = e.b.getF16Type(), f32 = e.b.getF32Type();
  int64_t elems = K * repeats * kLanes;
  TileBuffers t;
  t.x = e.alloc(elems, f32);
  if (k.types.in.isF16())
    t.raw = e.alloc(elems, f16);
  if (needsOperandTile(k.op, segments)) {
    t.operand = e.alloc(elems, f32);
    if (operandTileIsF16(k.op, k.types, segments))
      t.operandRaw = e.alloc(elems, f16);
  }
  if (needsSecondTile(k.op.kind))
    t.second = e.alloc(elems, f32);
  if (!isReduce(k.op.kind) && k.types.out.isF16())
    t.out16 = e.alloc(elems, f16);
  t.lanes = e.alloc(K * kLanes, f32);
  t.stat = e.alloc(roundUp(K, kLanes), f32);
  Type otherType = isArg(k.op.kind) ? Type(e.b.getI32Type())
                   : (isReduce(k.op.kind) && k.types.out.isF16()) ? Type(f16)
                                                                  : Type(f32);
  t.other = e.alloc(roundUp(K, kLanes), otherType);
  // Per-repeat partials: rows over 255 repeats reduced one row at a time.
  if (repeats > 255 && repeats > K)
    t.partials = e.alloc(roundUp(repeats, kLanes), f32);
  if (isArg(k.op.kind))
    t.bits = e.alloc(maskBytes(std::max(K, std::min(repeats, kChunk))),
                     e.b.getIntegerType(8, /*isSigned=*/false));
  return t;
}

void loadRows(VectorEmitter &e, const RowKernel &k, const TileBuffers &t, Value gm,
              AffineExpr offset, AffineExpr along, int64_t rows, int64_t elems,
              int64_t rowStride, int64_t cp) {
  // `rows` rows of `elems` elements of `from` (storage `element`) at `at`,
  // as f32 in `into` (through `staging` for f16).
  auto load = [&](Value from, Type element, AffineExpr at, Value staging, Value into) {
    int64_t es = dv::elementBytes(element);
    Value dst = element.isF16() ? staging : into;
    dv::CopyOp::create(e.b, e.loc, e.gm(from, at, (rows - 1) * rowStride + elems), dst,
                       uint64_t(rows), uint64_t(elems * es),
                       uint64_t(rows > 1 ? (rowStride - elems) * es : 0),
                       uint64_t(rows > 1 ? (cp - elems) * es : 0));
    if (element.isF16())
      e.chunks(rows * cp / kLanes, [&](int64_t a, int64_t repeats) {
        e.convert(staging, a, into, a, repeats);
      });
  };
  load(gm, k.types.in, offset, t.raw, t.x);

  // The softmax's prologue on the loaded logits, in f32.
  RowTile tile(e, k.op, rows, elems);
  for (size_t i = 0; i < k.op.prologue.size(); ++i) {
    const PrologueStep &step = k.op.prologue[i];
    if (!readsTensor(step)) {
      withScalarInstruction(step, [&](auto tag) {
        tile.flatScalar<typename decltype(tag)::type>(t.x, immediateOf(step), t.x);
      });
      continue;
    }
    if (step.form == PrologueStep::Form::Row && k.shared.rows[i]) {
      withTensorInstruction(step, [&](auto tag) {
        tile.withRow<typename decltype(tag)::type>(t.x, k.shared.rows[i]);
      });
      continue;
    }
    // A tensor of the logits' shape is read where the logits are; a row
    // (segments: one row at a time) is read from its element `along`.
    assert((step.form == PrologueStep::Form::Full || rows == 1) && "a row operand in segments");
    load(k.gmOperands[i], k.types.operands[i],
         step.form == PrologueStep::Form::Full ? offset : along, t.operandRaw, t.operand);
    withTensorInstruction(step, [&](auto tag) {
      tile.flatBinary<typename decltype(tag)::type>(t.x, t.operand, t.x);
    });
  }
}

void storeRows(VectorEmitter &e, const RowKernel &k, const TileBuffers &t, AffineExpr offset,
               int64_t rows, int64_t elems, int64_t rowStride, int64_t cp) {
  Value src = t.x;
  if (t.out16) {
    e.chunks(rows * cp / kLanes, [&](int64_t at, int64_t repeats) {
      e.convert(t.x, at, t.out16, at, repeats);
    });
    src = t.out16;
  }
  int64_t es = dv::elementBytes(k.types.out);
  dv::CopyOp::create(e.b, e.loc, src, e.gm(k.gmOut, offset, (rows - 1) * rowStride + elems),
                     uint64_t(rows), uint64_t(elems * es),
                     uint64_t(rows > 1 ? (cp - elems) * es : 0),
                     uint64_t(rows > 1 ? (rowStride - elems) * es : 0));
}

void pipelined(VectorEmitter &e, int64_t full, bool last, int64_t sets,
               function_ref<void(AffineExpr, int64_t, bool)> load,
               function_ref<void(AffineExpr, int64_t, bool)> work) {
  int64_t units = full + (last ? 1 : 0);
  if (sets == 1 || units == 1) {
    if (full) {
      VectorEmitter::Scope scope(e);
      AffineExpr u = e.loop(full);
      load(u, 0, false);
      work(u, 0, false);
    }
    if (last) {
      load(e.constant(full), 0, true);
      work(e.constant(full), 0, true);
    }
    return;
  }
  auto isLast = [&](int64_t u) { return last && u == units - 1; };
  load(e.constant(0), 0, isLast(0));
  // Pairs whose prefetch (unit 2p + 2) is a full unit too.
  int64_t pairs = full >= 1 ? (full - 1) / 2 : 0;
  if (pairs) {
    VectorEmitter::Scope scope(e);
    AffineExpr p = e.loop(pairs);
    load(p * 2 + 1, 1, false);
    work(p * 2, 0, false);
    load(p * 2 + 2, 0, false);
    work(p * 2 + 1, 1, false);
  }
  for (int64_t u = 2 * pairs; u < units; ++u) {
    if (u + 1 < units)
      load(e.constant(u + 1), (u + 1) % 2, isLast(u + 1));
    work(e.constant(u), u % 2, isLast(u));
  }
}

void emitRowTiles(VectorEmitter &e, const RowKernel &k, const RowTiling &tiling, Value bid) {
  int64_t K = tiling.tileRows, full = tiling.share / K, tail = tiling.share % K;
  SmallVector<TileBuffers, 2> sets;
  for (int64_t i = 0; i < tiling.sets; ++i)
    sets.push_back(allocTile(e, k, K, k.n));
  AffineExpr base = bid ? e.dim(bid) * tiling.share : e.constant(0);
  auto rowsOf = [&](bool last) { return last && tail ? tail : K; };
  pipelined(
      e, full, tail != 0, tiling.sets,
      [&](AffineExpr tile, int64_t set, bool last) {
        AffineExpr row = base + tile * K;
        loadRows(e, k, sets[set], k.gmIn, row * k.C, e.constant(0), rowsOf(last), k.C, k.C,
                 k.cp);
      },
      [&](AffineExpr tile, int64_t set, bool last) {
        const TileBuffers &t = sets[set];
        AffineExpr row = base + tile * K;
        int64_t rows = rowsOf(last);
        RowTile(e, k.op, rows, k.C).compute(t, k.shared, k.safety, k.range);
        if (isReduce(k.op.kind))
          storeStats(e, k, t, row, rows);
        else
          storeRows(e, k, t, row * k.C, rows, k.C, k.C, k.cp);
      });
}

} // namespace vinci::lower::rows
