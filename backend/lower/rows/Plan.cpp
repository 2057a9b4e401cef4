//===- Plan.cpp - how a row kernel's rows go through UB -------------------===//
//
// Part of the row template (backend/lower/Rows.cpp): blocks, tiles of whole
// rows or segments of a long row (row mode), lane tiles and sub-row chunks
// (column mode), from the SoC's UB size and the bytes each buffer takes.
//
//===----------------------------------------------------------------------===//
#include "backend/lower/rows/RowKernel.h"

#include "vinci/soc.h"

namespace vinci::lower::rows {
namespace {

/// The UB bytes of a set of buffers as vinci-allocate-buffers places them
/// (each at a 32-byte aligned offset).
struct UbBytes {
  int64_t bytes = 0;
  UbBytes &add(int64_t elems, int64_t elemBytes) {
    bytes += roundUp(elems * elemBytes, 32);
    return *this;
  }
};

/// UB bytes of one buffer set of a tile of `rows` rows of `repeats` repeats
/// (a segment of a row when `segments`).
int64_t tileSetBytes(const RowOp &op, const RowTypes &t, int64_t rows, int64_t repeats,
                     bool segments) {
  int64_t elems = rows * repeats * kLanes;
  UbBytes ub;
  ub.add(elems, 4); // x
  if (t.in.isF16())
    ub.add(elems, 2); // staging of the load
  if (needsOperandTile(op, segments)) {
    ub.add(elems, 4); // a prologue operand
    if (operandTileIsF16(op, t, segments))
      ub.add(elems, 2);
  }
  if (needsSecondTile(op.kind))
    ub.add(elems, 4);
  if (!isReduce(op.kind) && t.out.isF16())
    ub.add(elems, 2); // staging of the store
  ub.add(rows * kLanes, 4);           // lane-wise partials, broadcast statistics
  ub.add(roundUp(rows, kLanes), 4);   // the statistic
  ub.add(roundUp(rows, kLanes), 4);   // live (softmax) or the result in its type
  if (repeats > 255 && repeats > rows)
    ub.add(roundUp(repeats, kLanes), 4); // per-repeat partials
  if (isArg(op.kind))
    ub.add(maskBytes(std::max(rows, std::min(repeats, kChunk))), 1);
  return ub.bytes;
}

/// UB bytes allocated once per kernel: the norm weights of a row (or a
/// segment), the prologue's Row operands (whole rows), arg's iota and
/// no-match repeat, the running statistics.
int64_t fixedBytes(const RowOp &op, const RowTypes &t, int64_t repeats, bool segments) {
  UbBytes ub;
  SmallVector<Type, 4> rowWeights = {t.scale, t.bias};
  if (!segments)
    for (auto [step, type] : llvm::zip(op.prologue, t.operands))
      if (step.form == PrologueStep::Form::Row)
        rowWeights.push_back(type);
  for (Type w : rowWeights)
    if (w) {
      ub.add(repeats * kLanes, 4);
      if (w.isF16())
        ub.add(repeats * kLanes, 2);
    }
  if (isArg(op.kind))
    ub.add(repeats * kLanes, 4).add(kLanes, 4);
  ub.add(4 * kLanes, 4); // running statistics of segmented rows
  return ub.bytes;
}

/// Blocks: the largest divisor of `units` that is <= the AI core count
/// (equal contiguous shares, so every block runs the same program).
int64_t blockDimFor(int64_t units, const soc::SocSpec &soc) {
  int64_t blockDim = std::max<int64_t>(1, std::min<int64_t>(soc.ai_core_count, units));
  while (units % blockDim)
    --blockDim;
  return blockDim;
}

int64_t ubCapacity(const soc::SocSpec &soc) {
  return static_cast<int64_t>(soc.bufferBytes(soc::Space::UB));
}

/// UB bytes of a column-mode unit: `subRows` sub-rows of `laneTile` lanes.
int64_t columnBytes(const RowOp &op, const RowTypes &t, int64_t laneTile, int64_t subRows) {
  int64_t bp = roundUp(laneTile, kLanes), slab = subRows * bp;
  UbBytes ub;
  ub.add(slab, 4);
  if (t.in.isF16())
    ub.add(slab, 2);
  if (needsOperandTile(op, false)) { // a prologue operand (Full: column mode has no Row)
    ub.add(slab, 4);
    if (operandTileIsF16(op, t, false))
      ub.add(slab, 2);
  }
  if (op.kind == RowKind::LogSoftmax)
    ub.add(slab, 4);
  if (t.out.isF16() || isArg(op.kind))
    ub.add(isReduce(op.kind) ? bp : slab, 4);
  ub.add(bp, 4).add(bp, 4).add(bp, 4); // accumulator, second statistic, live
  if (isArg(op.kind))
    ub.add(bp, 4).add(bp, 4).add(bp, 4).add(bp, 4).add(maskBytes(bp / kLanes), 1);
  return ub.bytes;
}

} // namespace

bool needsOperandTile(const RowOp &op, bool segments) {
  return llvm::any_of(op.prologue, [&](const PrologueStep &step) {
    return step.form == PrologueStep::Form::Full ||
           (segments && step.form == PrologueStep::Form::Row);
  });
}

bool operandTileIsF16(const RowOp &op, const RowTypes &t, bool segments) {
  for (auto [step, type] : llvm::zip(op.prologue, t.operands))
    if (type && type.isF16() &&
        (step.form == PrologueStep::Form::Full ||
         (segments && step.form == PrologueStep::Form::Row)))
      return true;
  return false;
}

RowTiling planRows(const RowOp &op, const RowTypes &t, const soc::SocSpec &soc) {
  RowTiling tiling;
  tiling.blockDim = blockDimFor(op.rows, soc);
  tiling.share = op.rows / tiling.blockDim;
  int64_t n = (op.cols + kLanes - 1) / kLanes;
  int64_t ub = ubCapacity(soc);
  auto fits = [&](int64_t rows, int64_t repeats, int64_t sets, bool segments = false) {
    return fixedBytes(op, t, repeats, segments) +
               sets * tileSetBytes(op, t, rows, repeats, segments) <=
           ub;
  };
  int64_t sets = tiling.share > 1 ? 2 : 1;
  int64_t limit = std::min<int64_t>({kMaxTileRows, tiling.share,
                                     sets == 2 ? (tiling.share + 1) / 2 : 1});
  for (int64_t k = limit; k >= 1; --k)
    if (fits(k, n, sets)) {
      tiling.tileRows = k;
      tiling.sets = tiling.share / k > 1 ? 2 : 1;
      return tiling;
    }
  if (sets == 2 && fits(1, n, 1)) {
    tiling.tileRows = 1;
    return tiling;
  }
  // Segments: multiples of kChunk repeats when longer than one chunk, so
  // every chunk of a segment starts where a full chunk would.
  tiling.sets = 2;
  int64_t s = std::min(n, kChunk);
  while (s > 1 && !fits(1, s, 2, true))
    s /= 2;
  while (s >= kChunk && s + kChunk < n && fits(1, s + kChunk, 2, true))
    s += kChunk;
  tiling.segmentRepeats = s;
  tiling.segments = (n + s - 1) / s;
  return tiling;
}

ColumnTiling planColumns(const RowOp &op, const RowTypes &t, const soc::SocSpec &soc) {
  ColumnTiling tiling;
  int64_t ub = ubCapacity(soc);
  int64_t B = op.inner, R = op.cols;
  // The widest equal lane tile whose whole slab fits; else 64 lanes (or
  // fewer: a divisor of inner) with sub-rows in chunks.
  int64_t best = 0;
  for (int64_t k = 1; k <= B; ++k) {
    if (B % k)
      continue;
    int64_t width = B / k;
    if (columnBytes(op, t, width, R) <= ub) {
      best = width;
      break;
    }
    if (roundUp(width, kLanes) == kLanes)
      break; // narrower tiles take as much UB a sub-row
  }
  if (best) {
    tiling.laneTile = best;
    tiling.subRows = R;
  } else {
    int64_t width = B;
    for (int64_t k = 1; k <= B; ++k)
      if (B % k == 0 && B / k <= kLanes) {
        width = B / k;
        break;
      }
    tiling.laneTile = width;
    int64_t s = R;
    while (s > 1 && columnBytes(op, t, width, s) > ub)
      s = (s + 1) / 2;
    tiling.subRows = s;
  }
  tiling.laneTiles = B / tiling.laneTile;
  tiling.chunks = (R + tiling.subRows - 1) / tiling.subRows;
  tiling.blockDim = blockDimFor(op.rows, soc);
  if (tiling.blockDim == 1 && tiling.laneTiles > 1) {
    tiling.splitRows = false;
    tiling.blockDim = blockDimFor(tiling.laneTiles, soc);
  }
  return tiling;
}

} // namespace vinci::lower::rows
