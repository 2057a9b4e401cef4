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
// reduction), or a softmax / log_softmax after its prologue: the
// elementwise kernel of its input, which the partition lets it join
// (KernelRules' rowOpTakesPrologue), made of mul, div, add and sub steps
// from one kernel argument of the logits' shape to the logits, each by a
// scalar immediate, an argument of the logits' shape (read where the
// logits are) or, in row mode, one row of C elements (loaded once, or a
// segment a pass for long rows). The steps run in f32 on every tile as it
// is loaded, before the saturation and the row max: a scale, temperature
// or mask is never rounded to the storage type first (softmax(1e5 x) in
// fp16 storage is not softmax(fp16(1e5 x))), and the logits saturate at
// f32's range, not the input storage type's. Anything else in a kernel is
// rejected with a reason, as are non-contiguous reduced dims, a scale that
// broadcasts within the normalised dims, a prologue operand with another
// broadcast and element types other than f16/f32.
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
// The files (backend/lower/rows/, RowKernel.h is what they share):
// Analysis.cpp (analyse): the op as R rows of C (or [R, cols, inner] slabs).
// Plan.cpp (planRows / planColumns), from the SoC's UB size and the bytes each
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
// Emit (RowTile.cpp, LongRow.cpp, Columns.cpp): each row is padded to n = ceil(C / 64)
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
#include "backend/lower/rows/RowKernel.h"

#include "vinci/soc.h"

using namespace mlir;

namespace vinci::lower {
namespace {

using namespace rows;

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
                 op.bias ? signature.elements[argIndex(op.bias)] : Type(),
                 {}};
  for (const PrologueStep &step : op.prologue)
    types.operands.push_back(readsTensor(step) ? signature.elements[argIndex(step.operand)]
                                               : Type());

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
              op.bias ? entry->getArgument(argIndex(op.bias)) : Value(), {},
              softmaxSafetyOf(func),
              types.in.isF16() && op.prologue.empty() ? 65504.0
                                                      : double(std::numeric_limits<float>::max()),
              op.cols, n, n * kLanes, {}};
  k.shared.rows.resize(op.prologue.size());
  for (const PrologueStep &step : op.prologue)
    k.gmOperands.push_back(readsTensor(step) ? entry->getArgument(argIndex(step.operand))
                                             : Value());

  if (columns) {
    emitColumns(e, k, *columns, bid);
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
    for (size_t i = 0; i < op.prologue.size(); ++i)
      if (op.prologue[i].form == PrologueStep::Form::Row)
        k.shared.rows[i] = loadWeightRow(e, k.gmOperands[i], types.operands[i], op.cols, k.cp);
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
    emitLongRows(e, k, *rows, bid);
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
