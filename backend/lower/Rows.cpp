//===- Rows.cpp - the row Vector template: softmax, norms, reductions -----===//
//
//  - rows (Vector): one op that normalises or reduces along the trailing
//    dims of its input, seen as R rows of C contiguous elements:
//      vg.softmax, vg.log_softmax   axis = the last dim (or only size-1 dims
//                                   after it)
//      vg.layer_norm, vg.rms_norm   normalised dims [axis, rank); scale (and
//                                   the layer norm's optional bias) of C
//                                   elements, broadcast over the rows
//      vg.reduce_sum / reduce_mean / reduce_max / reduce_min / reduce_l2
//                                   over a trailing suffix of the dims
//                                   (size-1 dims ignored), keepdims either
//                                   way; global pooling (vinci-unfold-windows
//                                   makes it a reduce over H, W)
//      vg.arg_max / arg_min         along one axis (the last: rows; a middle
//                                   one: columns), keepdims either way,
//                                   select_last_index; i32 indices
//
//    and, in column mode, softmax / log_softmax over a middle axis and the
//    reductions over a contiguous middle block of dims: [rows, cols, inner]
//    with the statistic lane-wise over the `cols` sub-rows of `inner`
//    elements; vg.reduce_prod always runs in column mode (there is no
//    in-repeat product). Rows and slabs of any size lower: nothing is
//    refused for its length.
//
// A kernel is the row op alone (the partition ends a kernel at a
// reduction); anything else in it is rejected with a reason, as are
// non-contiguous reduced dims, a scale that broadcasts within the
// normalised dims and element types other than f16/f32.
//
// Numerics: everything is computed in f32 in UB whatever the storage type
// (f16 is converted with vconv after loading and before storing), so the
// statistics (softmax max and sum, norm mean and variance, reductions) are
// fp32. The softmax is the safe form of DESIGN.md: non-finite logits
// saturate to the storage type's range, the row max is subtracted and the
// shifted logits are clipped to [-clip, 0] before exp (clip 50 unless the
// module says otherwise: --softmax_clip; log_softmax subtracts ln(sum) from
// the unclipped shifted logits). A row whose logits are all -inf (or the
// lowest finite value) gives zeros: the reciprocal of its sum is multiplied
// by a 0/1 "live" statistic. The SoftmaxProtection switch off (module
// attribute vinci.softmax_unprotected) emits exp(x) / sum(exp(x)) as
// written. Layer norm: two-pass variance (mean first, then the mean of the
// centred squares). arg_max / arg_min: the extreme, then where an element
// equals it its index is a candidate (an iota built once in UB; columns: a
// counter stepped once a sub-row), elsewhere C (or -1 for the last index);
// the min (max) of the candidates is the first (last) index, exact in f32
// below 2^24, converted to s32 with vconv.
//
// Analyse (analyse): the op as R rows of C (or [R, cols, inner] slabs).
// Plan (planRows / planColumns), from the SoC's UB size and the bytes each
// buffer takes there (32-byte aligned): the rows are split into block_dim
// equal contiguous shares (the largest divisor of R up to the AI core
// count, so every block runs the same program); a block's rows go in tiles
// of K whole rows (K <= 255, the repeat limit), two buffer sets in turn
// (ping-pong: the next tile loads while this one computes and the last one
// stores; a dv.loop over pairs of tiles, then an odd tile and a tail tile
// of fewer rows). A row too long for a tile is cut into segments and runs
// in passes over them: one for a reduction, two for rms_norm and arg max /
// min (statistic, then output), three for softmax, log_softmax and
// layer_norm (max or mean, sum, output). Column mode tiles the inner
// lanes (equal lane tiles: a divisor of inner) and, when even 64 lanes of
// all the sub-rows do not fit, the sub-rows too, with the same passes.
// Emit (RowTile, LongRow, Columns): each row is padded to n = ceil(C / 64)
// f32 repeats in UB (bursts with gaps; the masked-off lanes of a row's last
// repeat are set to the reduction's identity before each reduction). With
// K rows a tile, a row statistic takes min(n, K) instructions: for n <= K
// one instruction per repeat position j over all K rows (repeat stride one
// padded row), lane-wise into a [K][64] buffer and one vcadd/vcmax/vcmin of
// K repeats; otherwise one vcadd/vcmax/vcmin across each row's repeats. A
// statistic goes back to its row by one vbrcb of K repeats and min(n, K)
// instructions (src1 repeat stride 0 along a row, or 8 across rows);
// elementwise steps are flat over the whole tile, a norm's scale and bias
// are loaded once per kernel (per segment for long rows).
//
//===----------------------------------------------------------------------===//
#include "backend/lower/LowerCommon.h"

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

#include <cmath>
#include <limits>
#include <map>
#include <tuple>

using namespace mlir;

namespace vinci::lower {
namespace {

/// f32 lanes of one vector repeat (256 bytes).
constexpr int64_t kLanes = 64;
/// Repeats per vector instruction: <= 255 and a multiple of 8, so every
/// chunk of an f32 or f16 row starts 32-byte aligned.
constexpr int64_t kChunk = 248;
/// Most rows a tile: instructions across the rows repeat once a row.
constexpr int64_t kMaxTileRows = 255;
/// UB bytes a compare mask of `repeats` 64-lane repeats takes.
int64_t maskBytes(int64_t repeats) { return repeats * kLanes / 8; }

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

enum class RowKind {
  Softmax, LogSoftmax, LayerNorm, RmsNorm, Sum, Mean, Max, Min, L2, Prod, ArgMax, ArgMin
};

/// The row op, as rows of columns.
struct RowOp {
  RowKind kind;
  Operation *anchor = nullptr;
  int64_t rows = 0, cols = 0;
  /// > 1: column mode, the op runs along a middle axis: [rows, cols, inner]
  /// with the statistic over `cols`, one per (row, inner position).
  int64_t inner = 1;
  /// Column mode even with inner == 1 (reduce_prod: there is no in-repeat
  /// product, so each element is its own padded sub-row).
  bool columns = false;
  double epsilon = 0;
  /// arg_max / arg_min: the last index of the extreme rather than the first.
  bool lastIndex = false;
  Value input, scale, bias; // kernel block arguments (scale/bias may be null)
};

bool isSupportedFloat(Type type) { return type.isF16() || type.isF32(); }

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

bool isArg(RowKind kind) { return kind == RowKind::ArgMax || kind == RowKind::ArgMin; }

/// Kinds whose result has one element a row.
bool isReduce(RowKind kind) {
  return kind == RowKind::Sum || kind == RowKind::Mean || kind == RowKind::Max ||
         kind == RowKind::Min || kind == RowKind::L2 || kind == RowKind::Prod || isArg(kind);
}

/// The row op of `func`, if there is one.
Operation *findAnchor(func::FuncOp func) {
  for (Operation &op : func.getBody().front())
    if (isa<vg::SoftmaxOp, vg::LogSoftmaxOp, vg::LayerNormOp, vg::RmsNormOp, vg::ReduceSumOp,
            vg::ReduceMeanOp, vg::ReduceMaxOp, vg::ReduceMinOp, vg::ReduceL2Op, vg::ReduceProdOp,
            vg::ArgMaxOp, vg::ArgMinOp>(op))
      return &op;
  return nullptr;
}

/// Rows of the trailing dims from `axis`: fills op.rows / op.cols.
void splitAt(RowOp &op, ArrayRef<int64_t> shape, int64_t axis) {
  op.cols = product(shape.drop_front(axis));
  op.rows = product(shape.take_front(axis));
}

/// nullopt: not a row kernel; "": lowerable (op filled); else why not.
std::optional<std::string> analyse(func::FuncOp func, RowOp &plan) {
  Operation *anchor = findAnchor(func);
  if (!anchor)
    return std::nullopt;
  plan.anchor = anchor;
  StringRef name = opName(anchor);
  if (func->getAttrOfType<StringAttr>("vinci.kernel").getValue() != "vector")
    return (name + " in a cube kernel has no lowering template").str();
  for (Operation &op : func.getBody().front()) {
    if (&op == anchor || isa<func::ReturnOp>(op))
      continue;
    return (opName(&op) + " in a row kernel (with " + name +
            ") has no lowering template yet: one row op a kernel")
        .str();
  }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (ret.getNumOperands() != 1 || ret.getOperand(0) != anchor->getResult(0))
    return ("a row kernel must return the result of its " + name + " alone").str();

  auto inType = cast<RankedTensorType>(anchor->getOperand(0).getType());
  auto outType = cast<RankedTensorType>(anchor->getResult(0).getType());
  for (Value v : anchor->getOperands())
    if (!isSupportedFloat(cast<RankedTensorType>(v.getType()).getElementType()))
      return (name + " on " + typeText(v.getType()) + " has no lowering template (f16/f32 only)")
          .str();
  bool argOp = isa<vg::ArgMaxOp, vg::ArgMinOp>(anchor);
  if (argOp && !outType.getElementType().isSignlessInteger(32))
    return (name + " to " + typeText(outType) +
            " has no lowering template (i32 indices: vinci-narrow-int64 narrows i64 ones)")
        .str();
  if (!argOp && !isSupportedFloat(outType.getElementType()))
    return (name + " to " + typeText(outType) + " has no lowering template (f16/f32 only)").str();
  for (Value v : anchor->getOperands())
    if (!isa<BlockArgument>(v))
      return (name + ": an operand computed inside the kernel has no lowering template yet")
          .str();
  plan.input = anchor->getOperand(0);
  ArrayRef<int64_t> shape = inType.getShape();
  int64_t rank = shape.size();
  auto normAxis = [&](int64_t axis) { return axis < 0 ? axis + rank : axis; };

  std::optional<std::string> why =
      llvm::TypeSwitch<Operation *, std::optional<std::string>>(anchor)
          .Case<vg::SoftmaxOp, vg::LogSoftmaxOp>([&](auto op) -> std::optional<std::string> {
            plan.kind = isa<vg::SoftmaxOp>(op) ? RowKind::Softmax : RowKind::LogSoftmax;
            int64_t axis = rank == 0 ? 0 : normAxis(int64_t(op.getAxis()));
            splitAt(plan, shape, std::min(axis, rank));
            if (rank > 0 && product(shape.drop_front(axis + 1)) != 1) {
              plan.inner = product(shape.drop_front(axis + 1));
              plan.cols = shape[axis];
              plan.columns = true;
            }
            return std::nullopt;
          })
          .Case<vg::LayerNormOp, vg::RmsNormOp>([&](auto op) -> std::optional<std::string> {
            plan.kind = isa<vg::LayerNormOp>(op) ? RowKind::LayerNorm : RowKind::RmsNorm;
            int64_t axis = normAxis(int64_t(op.getAxis()));
            splitAt(plan, shape, axis);
            plan.epsilon = op.getEpsilon().convertToDouble();
            plan.scale = op.getScale();
            if constexpr (std::is_same_v<decltype(op), vg::LayerNormOp>)
              plan.bias = op.getBias();
            for (Value w : {plan.scale, plan.bias})
              if (w && cast<RankedTensorType>(w.getType()).getNumElements() != plan.cols)
                return (name + ": a scale or bias of " + typeText(w.getType()) +
                        " broadcast within the normalised dims has no lowering template yet")
                    .str();
            return std::nullopt;
          })
          .Case<vg::ArgMaxOp, vg::ArgMinOp>([&](auto op) -> std::optional<std::string> {
            plan.kind = isa<vg::ArgMaxOp>(op) ? RowKind::ArgMax : RowKind::ArgMin;
            plan.lastIndex = op.getSelectLastIndex() != 0;
            int64_t axis = normAxis(int64_t(op.getAxis()));
            if (axis < 0 || axis >= std::max<int64_t>(rank, 1))
              return (name + ": axis " + std::to_string(op.getAxis()) + " out of range").str();
            splitAt(plan, shape, std::min(axis, rank));
            if (rank > 0 && product(shape.drop_front(axis + 1)) != 1) {
              plan.inner = product(shape.drop_front(axis + 1));
              plan.cols = shape[axis];
              plan.columns = true;
            }
            // Indices are exact in f32 (where they are computed) below 2^24.
            if (plan.cols > (int64_t(1) << 24))
              return (name + " over more than 2^24 elements has no lowering template").str();
            return std::nullopt;
          })
          .Default([&](Operation *op) -> std::optional<std::string> {
            plan.kind = llvm::TypeSwitch<Operation *, RowKind>(op)
                            .Case<vg::ReduceSumOp>([](auto) { return RowKind::Sum; })
                            .Case<vg::ReduceMeanOp>([](auto) { return RowKind::Mean; })
                            .Case<vg::ReduceMaxOp>([](auto) { return RowKind::Max; })
                            .Case<vg::ReduceL2Op>([](auto) { return RowKind::L2; })
                            .Case<vg::ReduceProdOp>([](auto) { return RowKind::Prod; })
                            .Default([](Operation *) { return RowKind::Min; });
            auto axesAttr = op->getAttrOfType<DenseI64ArrayAttr>("axes");
            auto noop = op->getAttrOfType<IntegerAttr>("noop_with_empty_axes");
            SmallVector<bool> reduced(rank, false);
            if (!axesAttr || axesAttr.empty()) {
              if (noop && noop.getInt() != 0)
                return (name + " with no axes and noop_with_empty_axes is a copy: no lowering "
                               "template yet")
                    .str();
              reduced.assign(rank, true);
            } else {
              for (int64_t a : axesAttr.asArrayRef()) {
                int64_t n = normAxis(a);
                if (n < 0 || n >= rank)
                  return (name + ": axis " + std::to_string(a) + " out of range").str();
                reduced[n] = true;
              }
            }
            // Reduced dims (ignoring size-1 dims) must be contiguous: the
            // last ones (rows), or a middle block (columns).
            int64_t firstReduced = rank, lastReduced = rank - 1;
            for (int64_t d = 0; d < rank; ++d)
              if (reduced[d] && shape[d] != 1) {
                firstReduced = d;
                break;
              }
            for (int64_t d = rank - 1; d >= firstReduced; --d)
              if (reduced[d] && shape[d] != 1) {
                lastReduced = d;
                break;
              }
            for (int64_t d = firstReduced; d <= lastReduced; ++d)
              if (!reduced[d] && shape[d] != 1)
                return (name + " over dims that are not contiguous in " + typeText(inType) +
                        " has no lowering template yet")
                    .str();
            splitAt(plan, shape, firstReduced);
            if (firstReduced < rank && product(shape.drop_front(lastReduced + 1)) != 1) {
              plan.inner = product(shape.drop_front(lastReduced + 1));
              plan.cols = plan.cols / plan.inner;
            }
            plan.columns = plan.inner > 1 || plan.kind == RowKind::Prod;
            if (outType.getNumElements() != plan.rows * plan.inner)
              return (name + ": unexpected result " + typeText(outType)).str();
            return std::nullopt;
          });
  if (why)
    return why;
  if (plan.cols < 1 || plan.rows < 1)
    return (name + " of an empty tensor has no lowering template").str();
  return std::string();
}

//===----------------------------------------------------------------------===//
// Plan
//===----------------------------------------------------------------------===//

/// The UB bytes of a set of buffers as vinci-allocate-buffers places them
/// (each at a 32-byte aligned offset).
struct UbBytes {
  int64_t bytes = 0;
  UbBytes &add(int64_t elems, int64_t elemBytes) {
    bytes += roundUp(elems * elemBytes, 32);
    return *this;
  }
};

/// How the rows of a row-mode op go through UB.
struct RowTiling {
  int64_t blockDim = 1, share = 1; // rows a block
  /// Whole rows a tile (K), or 0 when a row is cut into segments.
  int64_t tileRows = 0;
  /// Buffer sets used in turn (2: ping-pong).
  int64_t sets = 1;
  /// Segments: repeats (of 64 f32) a segment, segments a row.
  int64_t segmentRepeats = 0, segments = 0;
};

/// The storage element types of a row kernel's tensors.
struct RowTypes {
  Type in, out, scale, bias; // scale / bias null when absent
};

/// Passes over a row's segments (one per statistic, then the output).
int64_t passesOf(RowKind kind) {
  switch (kind) {
  case RowKind::Softmax:
  case RowKind::LogSoftmax:
  case RowKind::LayerNorm:
    return 3;
  case RowKind::RmsNorm:
  case RowKind::ArgMax:
  case RowKind::ArgMin:
    return 2;
  default:
    return 1;
  }
}

/// Whether the kind keeps a second tile-sized f32 buffer beside x: the
/// squares of the norms, log_softmax's exponentials, arg's candidates.
bool needsSecondTile(RowKind kind) {
  return kind == RowKind::LogSoftmax || kind == RowKind::LayerNorm || kind == RowKind::RmsNorm ||
         isArg(kind);
}

/// UB bytes of one buffer set of a tile of `rows` rows of `repeats` repeats.
int64_t tileSetBytes(const RowOp &op, const RowTypes &t, int64_t rows, int64_t repeats) {
  int64_t elems = rows * repeats * kLanes;
  UbBytes ub;
  ub.add(elems, 4); // x
  if (t.in.isF16())
    ub.add(elems, 2); // staging of the load
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
/// segment), arg's iota and no-match repeat, the running statistics.
int64_t fixedBytes(const RowOp &op, const RowTypes &t, int64_t repeats) {
  UbBytes ub;
  for (Type w : {t.scale, t.bias})
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

/// Row mode: K whole rows a tile when one row fits (as many as fit two
/// sets, at most half the block's rows so that two tiles take turns, at
/// most kMaxTileRows); else segments of a row (as long as fit two sets).
RowTiling planRows(const RowOp &op, const RowTypes &t, const soc::SocSpec &soc) {
  RowTiling tiling;
  tiling.blockDim = blockDimFor(op.rows, soc);
  tiling.share = op.rows / tiling.blockDim;
  int64_t n = (op.cols + kLanes - 1) / kLanes;
  int64_t ub = ubCapacity(soc);
  auto fits = [&](int64_t rows, int64_t repeats, int64_t sets) {
    return fixedBytes(op, t, repeats) + sets * tileSetBytes(op, t, rows, repeats) <= ub;
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
  while (s > 1 && !fits(1, s, 2))
    s /= 2;
  while (s >= kChunk && s + kChunk < n && fits(1, s + kChunk, 2))
    s += kChunk;
  tiling.segmentRepeats = s;
  tiling.segments = (n + s - 1) / s;
  return tiling;
}

/// Column mode: the [cols, inner] slab of a row in units of `laneTile`
/// inner elements (equal tiles: a divisor of inner, each padded to whole
/// repeats) and `subRows` sub-rows at a time; passes over the sub-row
/// chunks when they do not all fit.
struct ColumnTiling {
  /// Blocks split the rows (when there are several), else the lane tiles.
  int64_t blockDim = 1;
  bool splitRows = true;
  int64_t laneTile = 1, laneTiles = 1;
  int64_t subRows = 1, chunks = 1;
};

int64_t columnBytes(const RowOp &op, const RowTypes &t, int64_t laneTile, int64_t subRows) {
  int64_t bp = roundUp(laneTile, kLanes), slab = subRows * bp;
  UbBytes ub;
  ub.add(slab, 4);
  if (t.in.isF16())
    ub.add(slab, 2);
  if (op.kind == RowKind::LogSoftmax)
    ub.add(slab, 4);
  if (t.out.isF16() || isArg(op.kind))
    ub.add(isReduce(op.kind) ? bp : slab, 4);
  ub.add(bp, 4).add(bp, 4).add(bp, 4); // accumulator, second statistic, live
  if (isArg(op.kind))
    ub.add(bp, 4).add(bp, 4).add(bp, 4).add(bp, 4).add(maskBytes(bp / kLanes), 1);
  return ub.bytes;
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

//===----------------------------------------------------------------------===//
// Emission: vector instructions on UB buffers
//===----------------------------------------------------------------------===//

/// An operand of a vector instruction: `elems` elements of `buf` from
/// element `at`, read `rep` 32-byte blocks a repeat (8: dense f32 repeats;
/// 0: the same repeat every time).
struct Opnd {
  Value buf;
  int64_t at = 0;
  int64_t rep = 8;
};

/// Affine offsets over the block index and the loop ivs in scope, UB
/// buffers and views, and strided vector instructions.
class VectorEmitter : public AffineLoops {
public:
  VectorEmitter(OpBuilder &b, Location loc) : AffineLoops(b, loc), ctx(b.getContext()) {}


  Value alloc(int64_t elems, Type element) {
    return dv::AllocOp::create(
               b, loc, dv::BufType::get(ctx, dv::MemSpace::UB, {elems}, element, dv::Layout::ND),
               IntegerAttr())
        .getResult();
  }

  /// A UB view of `elems` elements from `at` (the buffer itself when whole).
  Value ub(Value buf, int64_t at, int64_t elems) {
    auto type = cast<dv::BufType>(buf.getType());
    if (at == 0 && elems == int64_t(type.getNumElements()))
      return buf;
    auto key = std::make_tuple(buf.getAsOpaquePointer(), at, elems,
                               static_cast<void *>(b.getInsertionBlock()));
    if (auto it = views.find(key); it != views.end())
      return it->second;
    auto view = dv::BufType::get(ctx, dv::MemSpace::UB, {elems}, type.getElementType(),
                                 dv::Layout::ND);
    Value result = dv::ViewOp::create(b, loc, view, buf, ValueRange{},
                                      AffineMapAttr::get(AffineMap::get(0, 0, constant(at))))
                       .getResult();
    views[key] = result;
    return result;
  }
  /// A GM view of `elems` elements at an affine element offset.
  Value gm(Value buf, AffineExpr offset, int64_t elems) {
    Type element = dv::getElementType(buf.getType());
    return dv::ViewOp::create(b, loc, dv::GmType::get(ctx, {elems}, element), buf, dims,
                              AffineMapAttr::get(AffineMap::get(dims.size(), 0, offset)))
        .getResult();
  }

  /// The view an operand reads over `repeat` repeats (its envelope).
  Value view(const Opnd &o, int64_t repeat) {
    Type element = dv::getElementType(o.buf.getType());
    int64_t perBlock = 32 / dv::elementBytes(element);
    int64_t elems = (repeat - 1) * o.rep * perBlock + kLanes;
    return ub(o.buf, o.at, elems);
  }

  DenseI64ArrayAttr maskOf(int64_t lanes) {
    uint64_t lo = lanes >= 64 ? ~uint64_t(0) : (uint64_t(1) << lanes) - 1;
    return b.getDenseI64ArrayAttr({int64_t(lo), 0});
  }
  /// Lanes [from, 64) of a repeat.
  DenseI64ArrayAttr maskFrom(int64_t from) {
    uint64_t lo = ~((uint64_t(1) << from) - 1);
    return b.getDenseI64ArrayAttr({int64_t(lo), 0});
  }
  DenseI64ArrayAttr reps(ArrayRef<Opnd> ops) {
    SmallVector<int64_t> r;
    bool dense = true;
    for (const Opnd &o : ops) {
      r.push_back(o.rep);
      dense &= o.rep == 8;
    }
    return dense ? DenseI64ArrayAttr() : b.getDenseI64ArrayAttr(r);
  }

  template <typename OpTy>
  void binary(Opnd src0, Opnd src1, Opnd dst, int64_t repeat, DenseI64ArrayAttr mask = {}) {
    OpTy::create(b, loc, view(src0, repeat), view(src1, repeat), view(dst, repeat),
                 uint64_t(repeat), DenseI64ArrayAttr(), reps({dst, src0, src1}), mask);
  }
  template <typename OpTy>
  void scalar(Opnd src, double c, Opnd dst, int64_t repeat, DenseI64ArrayAttr mask = {}) {
    OpTy::create(b, loc, view(src, repeat), b.getF32FloatAttr(static_cast<float>(c)),
                 view(dst, repeat), uint64_t(repeat), DenseI64ArrayAttr(), reps({dst, src}), mask);
  }
  template <typename OpTy>
  void unary(Opnd src, Opnd dst, int64_t repeat, DenseI64ArrayAttr mask = {}) {
    OpTy::create(b, loc, view(src, repeat), view(dst, repeat), uint64_t(repeat),
                 DenseI64ArrayAttr(), reps({dst, src}), mask);
  }
  void dup(double c, Opnd dst, int64_t repeat, DenseI64ArrayAttr mask = {}) {
    dv::VDupOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(c)), view(dst, repeat),
                       uint64_t(repeat), DenseI64ArrayAttr(), reps({dst}), mask);
  }
  /// One result a repeat (contiguous in dst), or one for all (`across`).
  template <typename OpTy>
  void reduce(Opnd src, Value dst, int64_t dstAt, int64_t repeat, bool across,
              DenseI64ArrayAttr mask = {}) {
    OpTy::create(b, loc, view(src, repeat), ub(dst, dstAt, across ? kLanes : roundUp(repeat, 8)),
                 across ? b.getUnitAttr() : UnitAttr(), b.getI64IntegerAttr(repeat),
                 DenseI64ArrayAttr(), src.rep == 8 ? DenseI64ArrayAttr()
                                                   : b.getDenseI64ArrayAttr({8, src.rep}),
                 mask);
  }
  /// Repeat r of dst = element r of src (contiguous), every lane.
  void broadcast(Value src, Opnd dst, int64_t repeat) {
    dv::VBrcbOp::create(b, loc, ub(src, 0, roundUp(repeat, 8)), view(dst, repeat),
                        uint64_t(repeat), DenseI64ArrayAttr(), reps({dst}), DenseI64ArrayAttr());
  }
  /// f16 <-> f32 or f32 -> s32 over `repeat` 64-lane repeats (dense).
  void convert(Value src, int64_t srcAt, Value dst, int64_t dstAt, int64_t repeat,
               DenseI64ArrayAttr mask = {}) {
    Type from = dv::getElementType(src.getType()), to = dv::getElementType(dst.getType());
    auto blocks = [](Type t) { return int64_t(dv::elementBytes(t)) * kLanes / 32; };
    dv::VConvOp::create(b, loc, ub(src, srcAt, roundUp((repeat - 1) * kLanes + kLanes, 1)),
                        ub(dst, dstAt, repeat * kLanes), dv::RoundMode::Rint, uint64_t(repeat),
                        DenseI64ArrayAttr(),
                        b.getDenseI64ArrayAttr({blocks(to), blocks(from)}), mask);
  }

  /// fn(start element, repeats) over `repeats` dense repeats from element
  /// 0, in chunks an instruction takes.
  void chunks(int64_t repeats, function_ref<void(int64_t, int64_t)> fn) {
    for (int64_t r = 0; r < repeats; r += kChunk)
      fn(r * kLanes, std::min(kChunk, repeats - r));
  }

  MLIRContext *ctx;

private:
  std::map<std::tuple<const void *, int64_t, int64_t, void *>, Value> views;
};

double identityOf(RowKind kind) {
  switch (kind) {
  case RowKind::Max:
    return -std::numeric_limits<double>::infinity();
  case RowKind::Min:
    return std::numeric_limits<double>::infinity();
  case RowKind::Prod:
    return 1.0;
  default:
    return 0.0;
  }
}

//===----------------------------------------------------------------------===//
// Emission: row tiles
//===----------------------------------------------------------------------===//

/// One buffer set of a row tile (views of fewer rows serve a tail tile).
struct TileBuffers {
  Value x, raw, second, out16; // K x cp elements each (raw, second, out16 may be null)
  Value lanes;                 // K x 64: lane-wise partials, broadcast statistics
  Value stat, other;           // roundUp(K, 64): the statistic; live or the typed result
  Value partials;              // per-repeat partials of rows over 255 repeats
  Value bits;                  // a compare mask (arg)
};

/// What every tile of a kernel reads: the norm weights (f32, one row),
/// arg's iota and no-match repeat.
struct SharedBuffers {
  Value scale, bias, iota, noMatch;
  Value stage; // f16 staging of a long row's weight segments
};

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

/// Everything a row kernel's tiles share: GM arguments, types, buffers.
struct RowKernel {
  const RowOp &op;
  RowTypes types;
  Value gmIn, gmOut, gmScale, gmBias;
  SoftmaxSafety safety;
  double range; // the input storage type's largest finite value
  int64_t C, n, cp;
  SharedBuffers shared;
};

TileBuffers allocTile(VectorEmitter &e, const RowKernel &k, int64_t K, int64_t repeats) {
  Type f16 = e.b.getF16Type(), f32 = e.b.getF32Type();
  int64_t elems = K * repeats * kLanes;
  TileBuffers t;
  t.x = e.alloc(elems, f32);
  if (k.types.in.isF16())
    t.raw = e.alloc(elems, f16);
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

/// Loads `rows` rows of `elems` elements (row stride `rowStride` in GM, cp
/// in UB) as f32 into t.x.
void loadRows(VectorEmitter &e, const RowKernel &k, const TileBuffers &t, Value gm,
              AffineExpr offset, int64_t rows, int64_t elems, int64_t rowStride, int64_t cp) {
  int64_t es = dv::elementBytes(k.types.in);
  Value dst = t.raw ? t.raw : t.x;
  dv::CopyOp::create(e.b, e.loc, e.gm(gm, offset, (rows - 1) * rowStride + elems), dst,
                     uint64_t(rows), uint64_t(elems * es),
                     uint64_t(rows > 1 ? (rowStride - elems) * es : 0),
                     uint64_t(rows > 1 ? (cp - elems) * es : 0));
  if (t.raw)
    e.chunks(rows * cp / kLanes, [&](int64_t at, int64_t repeats) {
      e.convert(t.raw, at, t.x, at, repeats);
    });
}

/// Stores `rows` rows of `elems` elements of t.x (row stride cp in UB).
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

/// `full` units and an optional smaller last one, each loaded one ahead of
/// its work, in program order: the Scalar unit issues in order, so a load
/// placed after a unit's vector work would wait for the vector queue to
/// drain and never overlap it. With two buffer sets the units take turns
/// (unit u uses set u % 2): the load of u + 1 goes before the work of u,
/// a dv.loop over pairs runs the steady state and the last units are
/// peeled. With one set each unit is loaded, then worked.
/// load / work(unit index, set, last) emit one unit's instructions.
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

/// The block's rows in tiles of K (the last tile holds the rest), software
/// pipelined over the buffer sets.
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
        loadRows(e, k, sets[set], k.gmIn, row * k.C, rowsOf(last), k.C, k.C, k.cp);
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

//===----------------------------------------------------------------------===//
// Emission: rows longer than a tile (segments, passes)
//===----------------------------------------------------------------------===//

/// A row of C elements in segments of S repeats (the last one shorter):
/// passes over the segments with running statistics in UB.
class LongRow {
public:
  LongRow(VectorEmitter &e, const RowKernel &k, const RowTiling &tiling)
      : e(e), k(k), S(tiling.segmentRepeats), segments(tiling.segments),
        lastElems(k.C - (tiling.segments - 1) * tiling.segmentRepeats * kLanes) {
    Type f32 = e.b.getF32Type();
    for (int64_t i = 0; i < 2; ++i)
      sets.push_back(allocTile(e, k, 1, S));
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
          loadRows(e, k, sets[set], k.gmIn, row * k.C + index * segElems, 1, elems, k.C,
                   roundUp(elems, kLanes));
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

//===----------------------------------------------------------------------===//
// Emission: column mode
//===----------------------------------------------------------------------===//

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

  /// Loads sub-rows [first, first + count) of the unit (f32 in x).
  void load(AffineExpr in, int64_t first, int64_t count) {
    int64_t es = dv::elementBytes(k.types.in);
    Value dst = raw ? raw : x;
    dv::CopyOp::create(e.b, e.loc, e.gm(k.gmIn, in + first * B, (count - 1) * B + W), dst,
                       uint64_t(count), uint64_t(W * es),
                       uint64_t(count > 1 ? (B - W) * es : 0),
                       uint64_t(count > 1 ? (bp - W) * es : 0));
    if (raw)
      e.chunks(count * nb, [&](int64_t at, int64_t r) { e.convert(raw, at, x, at, r); });
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
};

//===----------------------------------------------------------------------===//
// The template
//===----------------------------------------------------------------------===//

/// Loads a norm weight of C elements once into an f32 row (cp elements).
Value loadWeightRow(VectorEmitter &e, Value gm, Type element, int64_t C, int64_t cp) {
  Type f32 = e.b.getF32Type();
  Value whole = gm;
  if (cast<dv::GmType>(gm.getType()).getShape() != ArrayRef<int64_t>{C})
    whole = e.gm(gm, e.constant(0), C);
  Value row = e.alloc(cp, f32);
  int64_t es = dv::elementBytes(element);
  if (element.isF16()) {
    Value staging = e.alloc(cp, e.b.getF16Type());
    dv::CopyOp::create(e.b, e.loc, whole, staging, uint64_t(1), uint64_t(C * es));
    e.chunks(cp / kLanes, [&](int64_t at, int64_t r) { e.convert(staging, at, row, at, r); });
  } else {
    dv::CopyOp::create(e.b, e.loc, whole, row, uint64_t(1), uint64_t(C * es));
  }
  return row;
}

/// buf[i] = i over `cp` elements (exact in f32 below 2^24): lane l of the
/// first repeat is the sum of the masked vadds of its set bits, then each
/// doubling adds its length to a copy of the filled prefix.
void emitIota(VectorEmitter &e, Value buf, int64_t cp) {
  e.dup(0.0, {buf, 0}, 1);
  for (int64_t bit = 0; (int64_t(1) << bit) < kLanes; ++bit) {
    uint64_t lanesWithBit = 0;
    for (int64_t l = 0; l < kLanes; ++l)
      if ((l >> bit) & 1)
        lanesWithBit |= uint64_t(1) << l;
    e.scalar<dv::VAddsOp>({buf, 0}, double(int64_t(1) << bit), {buf, 0}, 1,
                          e.b.getDenseI64ArrayAttr({int64_t(lanesWithBit), 0}));
  }
  for (int64_t len = kLanes; len < cp; len *= 2) {
    int64_t repeats = std::min(len, cp - len) / kLanes;
    for (int64_t r0 = 0; r0 < repeats; r0 += kChunk) {
      int64_t n = std::min(kChunk, repeats - r0);
      e.scalar<dv::VAddsOp>({buf, r0 * kLanes}, double(len), {buf, len + r0 * kLanes}, n);
    }
  }
}

LogicalResult lowerRows(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  RowOp op;
  std::optional<std::string> why = analyse(func, op);
  if (!why || !why->empty())
    return func.emitError() << "kernel " << func.getSymName() << ": "
                            << (why ? *why : std::string("not a row kernel"));
  GmSignature signature = gmSignature(call);
  auto argIndex = [&](Value v) { return cast<BlockArgument>(v).getArgNumber(); };
  unsigned outIndex = call.getNumOperands();
  RowTypes types{signature.elements[argIndex(op.input)], signature.elements[outIndex],
                 op.scale ? signature.elements[argIndex(op.scale)] : Type(),
                 op.bias ? signature.elements[argIndex(op.bias)] : Type()};

  std::optional<RowTiling> rows;
  std::optional<ColumnTiling> columns;
  int64_t blockDim;
  if (op.columns) {
    columns = planColumns(op, types, soc);
    blockDim = columns->blockDim;
  } else {
    rows = planRows(op, types, soc);
    blockDim = rows->blockDim;
  }

  OpBuilder b(func.getContext());
  Block *entry = beginKernel(b, func, signature.types, blockDim, "vector");
  VectorEmitter e(b, func.getLoc());
  Value bid = blockDim > 1 ? dv::BlockIdxOp::create(b, func.getLoc(), b.getIndexType()).getResult()
                           : Value();
  int64_t n = (op.cols + kLanes - 1) / kLanes;
  RowKernel k{op, types, entry->getArgument(argIndex(op.input)), entry->getArgument(outIndex),
              op.scale ? entry->getArgument(argIndex(op.scale)) : Value(),
              op.bias ? entry->getArgument(argIndex(op.bias)) : Value(), softmaxSafetyOf(func),
              types.in.isF16() ? 65504.0 : double(std::numeric_limits<float>::max()), op.cols, n,
              n * kLanes, {}};

  if (columns) {
    Columns(e, k, *columns).emit(bid);
    return finishKernel(entry, func, call);
  }
  // What every tile shares: the weights (whole rows, or segment buffers a
  // long row's output pass loads into), arg's iota and no-match repeat.
  bool segmented = rows->tileRows == 0;
  int64_t sharedElems = segmented ? rows->segmentRepeats * kLanes : k.cp;
  Type f32 = b.getF32Type();
  if (segmented) {
    if (op.scale)
      k.shared.scale = e.alloc(sharedElems, f32);
    if (op.bias)
      k.shared.bias = e.alloc(sharedElems, f32);
  } else {
    if (op.scale)
      k.shared.scale = loadWeightRow(e, k.gmScale, types.scale, op.cols, k.cp);
    if (op.bias)
      k.shared.bias = loadWeightRow(e, k.gmBias, types.bias, op.cols, k.cp);
  }
  if (segmented && ((types.scale && types.scale.isF16()) || (types.bias && types.bias.isF16())))
    k.shared.stage = e.alloc(sharedElems, b.getF16Type());
  if (isArg(op.kind)) {
    k.shared.iota = e.alloc(sharedElems, f32);
    emitIota(e, k.shared.iota, sharedElems);
  }
  if (isArg(op.kind)) {
    k.shared.noMatch = e.alloc(kLanes, f32);
    e.dup(op.lastIndex ? -1.0 : double(op.cols), {k.shared.noMatch, 0}, 1);
  }
  if (segmented)
    LongRow(e, k, *rows).emit(bid, rows->share);
  else
    emitRowTiles(e, k, *rows, bid);
  return finishKernel(entry, func, call);
}

std::optional<std::string> rowsMismatch(func::FuncOp func) {
  RowOp op;
  return analyse(func, op);
}

} // namespace

extern const KernelTemplate kRowsTemplate;
const KernelTemplate kRowsTemplate = {"rows", rowsMismatch, lowerRows};

} // namespace vinci::lower
