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
//                                   (size-1 dims ignored), keepdims either way
//      vg.arg_max / arg_min         along one axis (the last: rows; a middle
//                                   one: columns), keepdims either way,
//                                   select_last_index; i32 indices
//
//  and, in column mode, softmax / log_softmax over a middle axis and the
//  reductions over a contiguous middle block of dims: [rows, cols, inner]
//  slabs, the statistic lane-wise over the `cols` sub-rows of `inner`;
//  vg.reduce_prod always runs in column mode (no in-repeat product: over
//  the last dims each element is its own sub-row). A slab is one iteration
//  of the block's loop; it must fit UB.
//
// A kernel is the row op alone (the partition ends a kernel at a
// reduction); anything else in it (an elementwise op, a constant operand)
// is rejected with a reason, as are non-contiguous reduced dims, a scale
// that broadcasts within the normalised dims and element types other than
// f16/f32.
//
// arg_max / arg_min: the extreme (as reduce_max / reduce_min), then where
// an element equals it its index is a candidate (rows: an iota built in UB
// once a block; columns: a counter stepped once a sub-row), elsewhere C
// (or -1 for the last index); the min (max) of the candidates is the first
// (last) index, exact in f32 below 2^24, converted to s32 with vconv.
//
// Numerics: everything is computed in f32 in UB whatever the storage type
// (f16 rows are converted with vconv after loading and before storing), so
// the statistics (softmax max and sum, norm mean and variance, reductions)
// are fp32. The softmax is the safe form of DESIGN.md: non-finite logits
// saturate to the storage type's range, the row max is subtracted and the
// shifted logits are clipped to [-clip, 0] before exp (clip 50 unless the
// module says otherwise: --softmax_clip; log_softmax subtracts ln(sum) from
// the unclipped shifted logits). A softmax row whose logits are all -inf
// (or the lowest finite value) gives zeros: its sum is divided by a 0/1
// "live" statistic. The SoftmaxProtection switch off (module attribute
// vinci.softmax_unprotected) emits exp(x) / sum(exp(x)) as written. Layer
// norm: two-pass variance (mean first, then the mean of the centred squares).
//
// Tiling: the R rows are split into block_dim equal contiguous shares
// (block_dim = the largest divisor of R that is <= the AI core count, as the
// elementwise template does); the whole row is in UB (a row that does not
// fit UB is rejected with its size and the SoC's UB size). Softmax and the
// norms loop over tiles of K rows (K <= 32 dividing the block's rows, as
// many as fit UB): one copy in and one out a tile, each row padded to a
// multiple of 64 elements in UB (burst gaps), the rows' vector work in an
// inner dv.loop whose view steps one padded row. Reductions loop over single
// rows and store one element a row. A row is ceil(C / 64) f32 repeats; the
// last one is masked. Row statistics are reduced with vcadd/vcmax/vcmin across the
// repeats (the masked-off lanes of the last repeat set to the reduction's
// identity with a masked vdup first; rows of more than 255 repeats reduce in
// two levels) and broadcast back with vbrcb into one 64-lane repeat that the
// row's vector ops read with a repeat stride of 0. Layer norm's scale and
// bias are loaded once per block, before the loop.
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
#include <map>
#include <tuple>
#include <limits>

using namespace mlir;

namespace vinci::lower {
namespace {

/// f32 lanes of one vector repeat (256 bytes).
constexpr int64_t kLanes = 64;
/// Repeats per vector instruction: <= 255 and a multiple of 8, so every
/// chunk of an f32 or f16 row starts 32-byte aligned.
constexpr int64_t kChunk = 248;
/// Most rows a tile of the softmax / norm path (one copy in and out a tile).
constexpr int64_t kMaxTileRows = 32;
enum class RowKind {
  Softmax, LogSoftmax, LayerNorm, RmsNorm, Sum, Mean, Max, Min, L2, Prod, ArgMax, ArgMin
};

struct RowPlan {
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

/// The row op of `func`, if there is one.
Operation *findAnchor(func::FuncOp func) {
  for (Operation &op : func.getBody().front())
    if (isa<vg::SoftmaxOp, vg::LogSoftmaxOp, vg::LayerNormOp, vg::RmsNormOp, vg::ReduceSumOp,
            vg::ReduceMeanOp, vg::ReduceMaxOp, vg::ReduceMinOp, vg::ReduceL2Op, vg::ReduceProdOp,
            vg::ArgMaxOp, vg::ArgMinOp>(op))
      return &op;
  return nullptr;
}

/// Rows of the trailing dims from `axis`: fills plan.rows / plan.cols.
void splitAt(RowPlan &plan, ArrayRef<int64_t> shape, int64_t axis) {
  plan.cols = product(shape.drop_front(axis));
  plan.rows = product(shape.take_front(axis));
}

bool isArg(RowKind kind) { return kind == RowKind::ArgMax || kind == RowKind::ArgMin; }

bool isReduce(RowKind kind) {
  return kind == RowKind::Sum || kind == RowKind::Mean || kind == RowKind::Max ||
         kind == RowKind::Min || kind == RowKind::L2 || kind == RowKind::Prod || isArg(kind);
}

/// UB bytes a row of `cols` elements needs with this plan's buffers.
int64_t rowBytes(const RowPlan &plan, Type inElem, Type outElem, Type scaleElem,
                 Type biasElem) {
  int64_t cp = roundUp(plan.cols, kLanes);
  int64_t bytes = 4 * cp; // x (f32)
  if (inElem.isF16())
    bytes += 2 * cp;
  bool reduce = isReduce(plan.kind);
  if (!reduce && outElem.isF16())
    bytes += 2 * cp;
  if (plan.kind == RowKind::LogSoftmax || plan.kind == RowKind::LayerNorm ||
      plan.kind == RowKind::RmsNorm)
    bytes += 4 * cp; // t
  for (Type w : {scaleElem, biasElem})
    if (w)
      bytes += w.isF16() ? 6 * cp : 4 * cp;
  if (isArg(plan.kind))
    bytes += 8 * cp + 4 * 256 + 2048; // iota, candidates, fill, i32 index, compare bits
  int64_t nrep = cp / kLanes;
  if (nrep > 255)
    bytes += 4 * roundUp(nrep, kLanes);
  return bytes + 4 * 256; // stat, broadcast, f16 stat
}

/// UB bytes of the column mode's buffers: the slab (cols rows of `inner`
/// elements, each padded to 64) in f32, its f16 staging, exp of the slab
/// (log_softmax), the f16 result, and the per-column statistic.
int64_t columnBytes(const RowPlan &plan, Type inElem, Type outElem) {
  int64_t bp = roundUp(plan.inner, kLanes);
  int64_t slab = plan.cols * bp;
  int64_t bytes = 4 * slab + 4 * bp;
  if (inElem.isF16())
    bytes += 2 * slab;
  if (plan.kind == RowKind::LogSoftmax)
    bytes += 4 * slab;
  if (outElem.isF16())
    bytes += isReduce(plan.kind) ? 2 * bp : 2 * slab;
  if (isArg(plan.kind))
    bytes += 5 * 4 * bp + 2048; // index, counter, candidates, fill, i32 index; compare bits
  return bytes;
}

/// Blocks: the largest divisor of `rows` that is <= the AI core count (equal
/// contiguous shares, so every block runs the same program).
int64_t blockDimFor(int64_t rows, const soc::SocSpec &soc) {
  int64_t blockDim = std::max<int64_t>(1, std::min<int64_t>(soc.ai_core_count, rows));
  while (rows % blockDim)
    --blockDim;
  return blockDim;
}

/// Rows (slabs) one block may loop over: keeps the dynamic instruction count
/// of a block (a few dozen a row) far below the ISA's 2^26.
constexpr int64_t kMaxRowsPerBlock = int64_t(1) << 20;

/// nullopt: not a row kernel; "": lowerable (plan filled); else why not.
std::optional<std::string> analyse(func::FuncOp func, RowPlan &plan) {
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

  const soc::SocSpec &soc = dv::getSoc(func);
  if (int64_t share = plan.rows / blockDimFor(plan.rows, soc); share > kMaxRowsPerBlock)
    return (name + ": " + std::to_string(share) + " rows a block (of " +
            std::to_string(plan.rows) + ") exceed the " + std::to_string(kMaxRowsPerBlock) +
            " one block loops over")
        .str();
  // The whole row (column mode: the cols x inner slab) must fit in UB.
  auto elemOf = [](Value v) -> Type { return v ? storageElementType(v) : Type(); };
  Type inElem = storageElementType(plan.input);
  Type outElem = storageElementType(anchor->getResult(0));
  int64_t ub = static_cast<int64_t>(soc.bufferBytes(soc::Space::UB));
  if (plan.columns) {
    int64_t bytes = columnBytes(plan, inElem, outElem);
    if (bytes > ub)
      return (name + ": a slab of " + std::to_string(plan.cols) + " x " +
              std::to_string(plan.inner) + " elements (the reduced axis by the dims after it) " +
              "needs " + std::to_string(bytes) + " UB bytes, more than the " +
              std::to_string(ub) + " bytes of UB on " + soc.name +
              ": slabs that do not fit UB have no lowering template yet")
          .str();
    return std::string();
  }
  int64_t bytes = rowBytes(plan, inElem, outElem, elemOf(plan.scale), elemOf(plan.bias));
  if (bytes > ub)
    return (name + ": a row of " + std::to_string(plan.cols) + " elements needs " +
            std::to_string(bytes) + " UB bytes, more than the " + std::to_string(ub) +
            " bytes of UB on " + soc.name + ": rows that do not fit UB have no lowering "
            "template yet")
        .str();
  return std::string();
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

class RowEmitter {
public:
  RowEmitter(OpBuilder &b, Location loc, int64_t cols)
      : b(b), loc(loc), cols(cols), cp(roundUp(cols, kLanes)), nrep(cp / kLanes),
        full(cols / kLanes), rest(cols % kLanes), f16(b.getF16Type()), f32(b.getF32Type()) {}

  Value alloc(int64_t elems, Type element) {
    return dv::AllocOp::create(b, loc,
                               dv::BufType::get(b.getContext(), dv::MemSpace::UB, {elems},
                                                element, dv::Layout::ND),
                               IntegerAttr())
        .getResult();
  }
  Value rowBuf(Type element) { return alloc(cp, element); }

  /// A view of `buf` at element `start` spanning `elems` elements (the
  /// buffer itself when it is the whole).
  Value sub(Value buf, int64_t start, int64_t elems) {
    auto type = cast<dv::BufType>(buf.getType());
    if (start == 0 && elems == int64_t(type.getNumElements()))
      return buf;
    // One view per (buffer, range) in a block: the same range is read and
    // written by consecutive instructions.
    auto key = std::make_tuple(buf.getAsOpaquePointer(), start, elems,
                               static_cast<void *>(b.getInsertionBlock()));
    if (auto it = views.find(key); it != views.end())
      return it->second;
    auto view = dv::BufType::get(b.getContext(), dv::MemSpace::UB, {elems},
                                 type.getElementType(), dv::Layout::ND);
    AffineMap map = AffineMap::get(0, 0, b.getAffineConstantExpr(start));
    Value result =
        dv::ViewOp::create(b, loc, view, buf, ValueRange{}, AffineMapAttr::get(map)).getResult();
    views[key] = result;
    return result;
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

  /// fn(start element, repeats, mask) over the row's repeats: chunks of full
  /// repeats, then the masked partial last one.
  void forRow(function_ref<void(int64_t, int64_t, DenseI64ArrayAttr)> fn) {
    for (int64_t r = 0; r < full; r += kChunk)
      fn(r * kLanes, std::min(kChunk, full - r), DenseI64ArrayAttr());
    if (rest)
      fn(full * kLanes, 1, maskOf(rest));
  }
  Value at(Value buf, int64_t start, int64_t repeat) { return sub(buf, start, repeat * kLanes); }

  template <typename OpTy> void unary(Value src, Value dst) {
    forRow([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
      OpTy::create(b, loc, at(src, s, r), at(dst, s, r), uint64_t(r), DenseI64ArrayAttr(),
                   DenseI64ArrayAttr(), m);
    });
  }
  template <typename OpTy> void binary(Value x, Value y, Value dst) {
    forRow([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
      OpTy::create(b, loc, at(x, s, r), at(y, s, r), at(dst, s, r), uint64_t(r),
                   DenseI64ArrayAttr(), DenseI64ArrayAttr(), m);
    });
  }
  /// dst = x op bc, bc one 64-lane repeat read by every repeat (stride 0).
  template <typename OpTy> void withBroadcast(Value x, Value bc, Value dst) {
    forRow([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
      OpTy::create(b, loc, at(x, s, r), bc, at(dst, s, r), uint64_t(r), DenseI64ArrayAttr(),
                   b.getDenseI64ArrayAttr({8, 8, 0}), m);
    });
  }
  template <typename OpTy> void scalar(Value x, double c, Value dst) {
    Attribute attr = b.getF32FloatAttr(static_cast<float>(c));
    forRow([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
      OpTy::create(b, loc, at(x, s, r), attr, at(dst, s, r), uint64_t(r), DenseI64ArrayAttr(),
                   DenseI64ArrayAttr(), m);
    });
  }
  /// f16 <-> f32 over the row (64 lanes a repeat: the f16 side advances 4 blocks).
  void convert(Value src, Value dst) {
    bool widen = dv::getElementType(dst.getType()) == f32;
    auto rep = b.getDenseI64ArrayAttr(widen ? ArrayRef<int64_t>{8, 4} : ArrayRef<int64_t>{4, 8});
    forRow([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
      dv::VConvOp::create(b, loc, at(src, s, r), at(dst, s, r), dv::RoundMode::Rint, uint64_t(r),
                          DenseI64ArrayAttr(), rep, m);
    });
  }

  /// dst = c over the row's repeats.
  void fill(Value dst, double c) {
    forRow([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
      dv::VDupOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(c)), at(dst, s, r),
                         uint64_t(r), DenseI64ArrayAttr(), DenseI64ArrayAttr(), m);
    });
  }

  /// buf[i] = i over the padded row (exact in f32 below 2^24): lane l of
  /// the first repeat is the sum of the masked vadds of its set bits, then
  /// each doubling adds its length to a copy of the filled prefix.
  void iota(Value buf) {
    Value first = sub(buf, 0, kLanes);
    dv::VDupOp::create(b, loc, b.getF32FloatAttr(0.0f), first, uint64_t(1), DenseI64ArrayAttr(),
                       DenseI64ArrayAttr(), DenseI64ArrayAttr());
    for (int64_t bit = 0; (int64_t(1) << bit) < kLanes; ++bit) {
      uint64_t lanesWithBit = 0;
      for (int64_t l = 0; l < kLanes; ++l)
        if ((l >> bit) & 1)
          lanesWithBit |= uint64_t(1) << l;
      dv::VAddsOp::create(b, loc, first, b.getF32FloatAttr(float(int64_t(1) << bit)), first,
                          uint64_t(1), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                          b.getDenseI64ArrayAttr({int64_t(lanesWithBit), 0}));
    }
    for (int64_t len = kLanes; len < cp; len *= 2) {
      int64_t repeats = std::min(len, cp - len) / kLanes;
      for (int64_t r0 = 0; r0 < repeats; r0 += kChunk) {
        int64_t n = std::min(kChunk, repeats - r0);
        dv::VAddsOp::create(b, loc, sub(buf, r0 * kLanes, n * kLanes),
                            b.getF32FloatAttr(float(len)), sub(buf, len + r0 * kLanes, n * kLanes),
                            uint64_t(n), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                            DenseI64ArrayAttr());
      }
    }
  }

  /// dst = (x == y) ? onTrue : onFalse over the row; y and onFalse are
  /// whole rows, or (`repeated`) one 64-lane repeat every repeat reads.
  /// `bits` holds a chunk's compare mask (kChunk * 8 bytes).
  void selectEqual(Value x, Value y, Value onTrue, Value onFalse, Value dst, Value bits,
                   bool repeated) {
    forRow([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
      Value yv = repeated ? y : at(y, s, r), falseV = repeated ? onFalse : at(onFalse, s, r);
      DenseI64ArrayAttr strides =
          repeated ? b.getDenseI64ArrayAttr({8, 8, 0}) : DenseI64ArrayAttr();
      dv::VCmpOp::create(b, loc, dv::CmpMode::EQ, at(x, s, r), yv, bits, uint64_t(r),
                         DenseI64ArrayAttr(), strides, m);
      dv::VSelOp::create(b, loc, at(onTrue, s, r), falseV, bits, at(dst, s, r), uint64_t(r),
                         DenseI64ArrayAttr(), strides, m);
    });
  }

  /// f32 -> s32 (exact: the values are integers) over `repeats` 64-lane repeats.
  void toIndex(Value src, Value dst, int64_t repeats, DenseI64ArrayAttr mask) {
    dv::VConvOp::create(b, loc, src, dst, dv::RoundMode::Rint, uint64_t(repeats),
                        DenseI64ArrayAttr(), b.getDenseI64ArrayAttr({8, 8}), mask);
  }

  Value compareBits() {
    return alloc(roundUp(kChunk * kLanes / 8, 32), b.getIntegerType(8, /*isSigned=*/false));
  }

  /// An op on lane 0 of a 64-lane stat buffer.
  template <typename OpTy> void statScalar(Value st, double c) {
    OpTy::create(b, loc, st, b.getF32FloatAttr(static_cast<float>(c)), st, uint64_t(1),
                 DenseI64ArrayAttr(), DenseI64ArrayAttr(), maskOf(1));
  }
  template <typename OpTy> void statUnary(Value st) {
    OpTy::create(b, loc, st, st, uint64_t(1), DenseI64ArrayAttr(), DenseI64ArrayAttr(), maskOf(1));
  }
  /// Every lane of `bc` (64 f32) = lane 0 of `st`.
  void broadcast(Value st, Value bc) {
    dv::VBrcbOp::create(b, loc, st, bc, uint64_t(1), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                        DenseI64ArrayAttr());
  }

  template <typename OpTy>
  void reduceOp(Value src, Value dst, int64_t repeat, bool across) {
    OpTy::create(b, loc, src, dst, across ? b.getUnitAttr() : UnitAttr(),
                 b.getI64IntegerAttr(repeat), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                 DenseI64ArrayAttr());
  }
  template <typename OpTy> void reduce(Value src, Value dst, int64_t repeat, bool across) {
    reduceOp<OpTy>(src, dst, repeat, across);
  }

  /// Lane 0 of `st` = the reduction of the row in `src` (whose masked-off
  /// last lanes are overwritten with the identity). `part` holds the
  /// partials of rows longer than 255 repeats.
  void reduceRow(RowKind kind, Value src, Value st, Value part) {
    double identity = kind == RowKind::Max   ? -std::numeric_limits<double>::infinity()
                      : kind == RowKind::Min ? std::numeric_limits<double>::infinity()
                                             : 0.0;
    auto pad = [&](Value buf, int64_t start, int64_t from) {
      dv::VDupOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(identity)),
                         sub(buf, start, kLanes), uint64_t(1), DenseI64ArrayAttr(),
                         DenseI64ArrayAttr(), maskFrom(from));
    };
    auto emit = [&](Value s, Value d, int64_t repeat, bool across) {
      switch (kind) {
      case RowKind::Max:
        return reduce<dv::VCMaxOp>(s, d, repeat, across);
      case RowKind::Min:
        return reduce<dv::VCMinOp>(s, d, repeat, across);
      default:
        return reduce<dv::VCAddOp>(s, d, repeat, across);
      }
    };
    if (rest)
      pad(src, full * kLanes, rest);
    if (nrep <= 255)
      return emit(src, st, nrep, true);
    // Two levels: one partial per repeat, then across the partials.
    for (int64_t r = 0; r < nrep; r += kChunk) {
      int64_t n = std::min(kChunk, nrep - r);
      emit(at(src, r * kLanes, n), sub(part, r, n), n, false);
    }
    int64_t partElems = roundUp(nrep, kLanes);
    if (nrep % kLanes)
      pad(part, partElems - kLanes, nrep % kLanes);
    emit(part, st, partElems / kLanes, true);
  }

  OpBuilder &b;
  Location loc;
  int64_t cols, cp, nrep, full, rest;
  Type f16, f32;
  std::map<std::tuple<const void *, int64_t, int64_t, void *>, Value> views;
};

/// Column mode: slabs of `plan.cols` sub-rows of `plan.inner` elements (the
/// op's axis is a middle one), one slab an iteration of the block's loop.
/// Each sub-row is padded to a multiple of 64 in UB (bursts with a gap), so
/// the statistic is a lane-wise vmax/vadd over the sub-rows (an inner
/// dv.loop whose views step one padded sub-row an iteration).
void emitColumns(OpBuilder &b, Location loc, const RowPlan &plan, Value gmIn, Value gmOut,
                 Value bid, int64_t share, Type inElem, Type outElem, SoftmaxSafety safety) {
  MLIRContext *ctx = b.getContext();
  int64_t R = plan.cols, B = plan.inner;
  RowEmitter col(b, loc, B); // one sub-row
  int64_t bp = col.cp;
  RowEmitter flat(b, loc, R * bp); // the whole slab (a multiple of 64: no tail)
  Type f16 = b.getF16Type(), f32 = b.getF32Type();
  bool reduce = isReduce(plan.kind);
  Value raw = inElem.isF16() ? flat.rowBuf(f16) : Value();
  Value x = flat.rowBuf(f32);
  Value t = plan.kind == RowKind::LogSoftmax ? flat.rowBuf(f32) : Value();
  Value out16 = (!reduce && outElem.isF16()) ? flat.rowBuf(f16) : Value();
  Value acc = col.rowBuf(f32);
  Value acc16 = (reduce && outElem.isF16()) ? col.rowBuf(f16) : Value();
  bool softmax = plan.kind == RowKind::Softmax;
  bool shift = !softmax || safety.protect; // log_softmax's shift is its definition
  Value live = softmax && safety.protect ? col.rowBuf(f32) : Value();
  // arg_max / arg_min: the index so far, the sub-row counter, the
  // candidates, the no-match value, the s32 result and the compare mask.
  bool arg = isArg(plan.kind);
  Value index = arg ? col.rowBuf(f32) : Value(), counter = arg ? col.rowBuf(f32) : Value();
  Value candidates = arg ? col.rowBuf(f32) : Value(), noMatch = arg ? col.rowBuf(f32) : Value();
  Value index32 = arg ? col.rowBuf(b.getI32Type()) : Value();
  Value bits = arg ? col.compareBits() : Value();

  auto loop = dv::LoopOp::create(b, loc, share);
  b.setInsertionPointToStart(&loop.getBody().front());
  Value iv = loop.getInductionVar();
  auto gmView = [&](Value gm, int64_t elems) {
    SmallVector<Value> indices{iv};
    AffineExpr expr = b.getAffineDimExpr(0) * elems;
    if (bid) {
      indices.push_back(bid);
      expr = expr + b.getAffineDimExpr(1) * (share * elems);
    }
    Type element = dv::getElementType(gm.getType());
    return dv::ViewOp::create(b, loc, dv::GmType::get(ctx, {elems}, element), gm, indices,
                              AffineMapAttr::get(AffineMap::get(indices.size(), 0, expr)))
        .getResult();
  };
  // fn(subRow) in a dv.loop over the R sub-rows; subRow(buf) views the
  // current padded sub-row of a slab buffer.
  auto overSubRows = [&](function_ref<void(function_ref<Value(Value)>)> fn) {
    auto inner = dv::LoopOp::create(b, loc, R);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&inner.getBody().front());
    Value r = inner.getInductionVar();
    auto subRow = [&](Value buf) -> Value {
      Type element = dv::getElementType(buf.getType());
      auto type = dv::BufType::get(ctx, dv::MemSpace::UB, {bp}, element, dv::Layout::ND);
      AffineMap map = AffineMap::get(1, 0, b.getAffineDimExpr(0) * bp);
      return dv::ViewOp::create(b, loc, type, buf, ValueRange{r}, AffineMapAttr::get(map))
          .getResult();
    };
    fn(subRow);
  };
  // acc = the lane-wise reduction of the sub-rows of `src`.
  auto reduceSubRows = [&](RowKind kind, Value src) {
    double identity = kind == RowKind::Max    ? -std::numeric_limits<double>::infinity()
                      : kind == RowKind::Min  ? std::numeric_limits<double>::infinity()
                      : kind == RowKind::Prod ? 1.0
                                              : 0.0;
    Attribute id = b.getF32FloatAttr(static_cast<float>(identity));
    col.forRow([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
      dv::VDupOp::create(b, loc, id, col.at(acc, s, r), uint64_t(r), DenseI64ArrayAttr(),
                         DenseI64ArrayAttr(), m);
    });
    overSubRows([&](function_ref<Value(Value)> subRow) {
      Value sr = subRow(src);
      if (kind == RowKind::Max)
        col.binary<dv::VMaxOp>(acc, sr, acc);
      else if (kind == RowKind::Min)
        col.binary<dv::VMinOp>(acc, sr, acc);
      else if (kind == RowKind::Prod)
        col.binary<dv::VMulOp>(acc, sr, acc);
      else
        col.binary<dv::VAddOp>(acc, sr, acc);
    });
  };

  // Load the slab, each sub-row padded to bp elements.
  int64_t inBytes = dv::elementBytes(inElem);
  dv::CopyOp::create(b, loc, gmView(gmIn, R * B), raw ? raw : x, uint64_t(R),
                     uint64_t(B * inBytes), uint64_t(0), uint64_t((bp - B) * inBytes));
  if (raw)
    flat.convert(raw, x);

  int64_t outBytes = dv::elementBytes(outElem);
  if (arg) {
    // The extreme lane-wise, then over the sub-rows in order: where a
    // sub-row equals it, its number (a counter) is a candidate; the first
    // index is the min of the candidates (no match: R), the last the max
    // (no match: -1).
    reduceSubRows(plan.kind == RowKind::ArgMax ? RowKind::Max : RowKind::Min, x);
    double none = plan.lastIndex ? -1.0 : double(R);
    col.fill(index, none);
    col.fill(noMatch, none);
    col.fill(counter, 0.0);
    overSubRows([&](function_ref<Value(Value)> subRow) {
      col.selectEqual(subRow(x), acc, counter, noMatch, candidates, bits, /*repeated=*/false);
      if (plan.lastIndex)
        col.binary<dv::VMaxOp>(index, candidates, index);
      else
        col.binary<dv::VMinOp>(index, candidates, index);
      col.scalar<dv::VAddsOp>(counter, 1.0, counter);
    });
    col.forRow([&](int64_t s, int64_t r, DenseI64ArrayAttr m) {
      col.toIndex(col.at(index, s, r), col.at(index32, s, r), r, m);
    });
    dv::CopyOp::create(b, loc, index32, gmView(gmOut, B), uint64_t(1), uint64_t(B * outBytes));
  } else if (reduce) {
    if (plan.kind == RowKind::L2)
      flat.binary<dv::VMulOp>(x, x, x);
    bool sum = plan.kind == RowKind::Mean || plan.kind == RowKind::L2;
    reduceSubRows(sum ? RowKind::Sum : plan.kind, x);
    if (plan.kind == RowKind::Mean)
      col.scalar<dv::VMulsOp>(acc, 1.0 / double(R), acc);
    if (plan.kind == RowKind::L2)
      col.unary<dv::VSqrtOp>(acc, acc);
    Value src = acc;
    if (acc16) {
      col.convert(acc, acc16);
      src = acc16;
    }
    dv::CopyOp::create(b, loc, src, gmView(gmOut, B), uint64_t(1), uint64_t(B * outBytes));
  } else {
    Value ex = softmax ? x : t;
    if (shift) {
      double range = inElem.isF16() ? 65504.0 : double(std::numeric_limits<float>::max());
      flat.scalar<dv::VMinsOp>(x, range, x);
      flat.scalar<dv::VMaxsOp>(x, -range, x);
      reduceSubRows(RowKind::Max, x);
      if (live) {
        // live = 1 unless every logit was -inf (saturated to -range): 0.
        col.scalar<dv::VAddsOp>(acc, range, live);
        col.scalar<dv::VMaxsOp>(live, 0.0, live);
        col.scalar<dv::VMinsOp>(live, 1.0, live);
      }
      overSubRows([&](function_ref<Value(Value)> subRow) {
        Value xr = subRow(x);
        col.binary<dv::VSubOp>(xr, acc, xr);
      });
      flat.scalar<dv::VMaxsOp>(x, -safety.clip, ex);
    }
    flat.unary<dv::VExpOp>(ex, ex);
    reduceSubRows(RowKind::Sum, ex);
    if (plan.kind == RowKind::LogSoftmax)
      col.unary<dv::VLnOp>(acc, acc);
    if (live) // a fully masked row divides by +inf: zeros, not 1/C
      col.binary<dv::VDivOp>(acc, live, acc);
    overSubRows([&](function_ref<Value(Value)> subRow) {
      Value xr = subRow(x);
      if (plan.kind == RowKind::Softmax)
        col.binary<dv::VDivOp>(xr, acc, xr);
      else
        col.binary<dv::VSubOp>(xr, acc, xr);
    });
    Value src = x;
    if (out16) {
      flat.convert(x, out16);
      src = out16;
    }
    dv::CopyOp::create(b, loc, src, gmView(gmOut, R * B), uint64_t(R), uint64_t(B * outBytes),
                       uint64_t((bp - B) * outBytes), uint64_t(0));
  }
  b.setInsertionPointAfter(loop);
}

LogicalResult lowerRows(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  RowPlan plan;
  std::optional<std::string> why = analyse(func, plan);
  if (!why || !why->empty())
    return func.emitError() << "kernel " << func.getSymName() << ": "
                            << (why ? *why : std::string("not a row kernel"));
  MLIRContext *ctx = func.getContext();
  Location loc = func.getLoc();

  // GM types: operands then results, in their storage precision.
  GmSignature signature = gmSignature(call);
  SmallVector<Type> &gmTypes = signature.types, &gmElements = signature.elements;
  auto argIndex = [&](Value v) { return cast<BlockArgument>(v).getArgNumber(); };
  unsigned outIndex = call.getNumOperands();
  Type inElem = gmElements[argIndex(plan.input)];
  Type outElem = gmElements[outIndex];

  int64_t R = plan.rows, C = plan.cols;
  int64_t blockDim = blockDimFor(R, soc);
  int64_t share = R / blockDim;
  bool reduceKind = isReduce(plan.kind);

  OpBuilder b(ctx);
  Block *entry = beginKernel(b, func, gmTypes, blockDim, "vector");
  Value bid;
  if (blockDim > 1)
    bid = dv::BlockIdxOp::create(b, loc, b.getIndexType()).getResult();

  auto finish = [&]() { return finishKernel(entry, func, call); };
  if (plan.columns) {
    emitColumns(b, loc, plan, entry->getArgument(argIndex(plan.input)),
                entry->getArgument(outIndex), bid, share, inElem, outElem, softmaxSafetyOf(func));
    return finish();
  }

  RowEmitter e(b, loc, C);
  Type f16 = b.getF16Type(), f32 = b.getF32Type();
  // Rows a tile (softmax and norms): one copy in and one out a tile of K
  // rows (each padded to a multiple of 64 in UB), which amortises the DMA
  // start-up; each row's vector work runs in an inner dv.loop. K is the
  // largest divisor of the block's rows, up to kMaxTileRows, that fits UB.
  int64_t K = 1;
  if (!reduceKind) {
    auto elemOf = [](Value v) -> Type { return v ? storageElementType(v) : Type(); };
    int64_t perRow = e.cp * (4 + (inElem.isF16() ? 2 : 0) + (outElem.isF16() ? 2 : 0));
    int64_t fixed =
        rowBytes(plan, inElem, outElem, elemOf(plan.scale), elemOf(plan.bias)) - perRow;
    int64_t ub = static_cast<int64_t>(soc.bufferBytes(soc::Space::UB));
    for (int64_t k = std::min<int64_t>(kMaxTileRows, share); k > 1; --k)
      if (share % k == 0 && fixed + k * perRow <= ub) {
        K = k;
        break;
      }
  }
  RowEmitter tile(b, loc, K * e.cp); // a whole tile: full repeats only
  // Buffers, all created before the loop.
  Value raw = inElem.isF16() ? e.alloc(K * e.cp, f16) : Value();
  Value x = e.alloc(K * e.cp, f32);
  bool needT = plan.kind == RowKind::LogSoftmax || plan.kind == RowKind::LayerNorm ||
               plan.kind == RowKind::RmsNorm;
  Value t = needT ? e.rowBuf(f32) : Value();
  Value out16 = (!reduceKind && outElem.isF16()) ? e.alloc(K * e.cp, f16) : Value();
  Value st = e.alloc(kLanes, f32), bc = e.alloc(kLanes, f32);
  SoftmaxSafety safety = softmaxSafetyOf(func);
  bool softmax = plan.kind == RowKind::Softmax;
  Value live = softmax && safety.protect ? e.alloc(kLanes, f32) : Value();
  Value st16 = (reduceKind && outElem.isF16()) ? e.alloc(kLanes, f16) : Value();
  Value part = e.nrep > 255 ? e.alloc(roundUp(e.nrep, kLanes), f32) : Value();
  // arg_max / arg_min: element indices, candidates, the no-match value
  // (one repeat), the s32 result and the compare mask.
  bool arg = isArg(plan.kind);
  Value iota, candidates, noMatch, index32, bits;
  if (arg) {
    iota = e.rowBuf(f32);
    e.iota(iota);
    candidates = e.rowBuf(f32);
    noMatch = e.alloc(kLanes, f32);
    dv::VDupOp::create(b, loc, b.getF32FloatAttr(plan.lastIndex ? -1.0f : float(C)), noMatch,
                       uint64_t(1), DenseI64ArrayAttr(), DenseI64ArrayAttr(), DenseI64ArrayAttr());
    index32 = e.alloc(kLanes, b.getI32Type());
    bits = e.compareBits();
  }

  // Scale and bias: loaded once per block.
  auto loadWeight = [&](Value w) -> Value {
    if (!w)
      return Value();
    unsigned index = argIndex(w);
    Type element = gmElements[index];
    Value gm = entry->getArgument(index);
    auto gmType = dv::GmType::get(ctx, {C}, element);
    Value whole = gm;
    if (cast<dv::GmType>(gm.getType()).getShape() != ArrayRef<int64_t>{C})
      whole = dv::ViewOp::create(b, loc, gmType, gm, ValueRange{},
                                 AffineMapAttr::get(AffineMap::get(0, 0, b.getAffineConstantExpr(0))))
                  .getResult();
    Value f = e.rowBuf(f32);
    if (element.isF16()) {
      Value h = e.rowBuf(f16);
      dv::CopyOp::create(b, loc, whole, h, uint64_t(1), uint64_t(C * 2));
      e.convert(h, f);
    } else {
      dv::CopyOp::create(b, loc, whole, f, uint64_t(1), uint64_t(C * 4));
    }
    return f;
  };
  Value scale = loadWeight(plan.scale);
  Value bias = loadWeight(plan.bias);

  auto loop = dv::LoopOp::create(b, loc, share / K);
  b.setInsertionPointToStart(&loop.getBody().front());
  Value iv = loop.getInductionVar();
  // GM view of the K rows (bid * share + iv * K ...), `elems` elements a row.
  auto rowView = [&](Value gm, int64_t elems) {
    SmallVector<Value> indices{iv};
    AffineExpr expr = b.getAffineDimExpr(0) * (K * elems);
    if (bid) {
      indices.push_back(bid);
      expr = expr + b.getAffineDimExpr(1) * (share * elems);
    }
    Type element = dv::getElementType(gm.getType());
    return dv::ViewOp::create(b, loc, dv::GmType::get(ctx, {K * elems}, element), gm, indices,
                              AffineMapAttr::get(AffineMap::get(indices.size(), 0, expr)))
        .getResult();
  };
  auto convertTile = [&](Value src, Value dst) {
    if (K == 1)
      e.convert(src, dst);
    else
      tile.convert(src, dst);
  };
  // Gap between the padded rows of a tile in UB (bytes).
  auto gapOf = [&](Type element) {
    return uint64_t(K == 1 ? 0 : (e.cp - C) * dv::elementBytes(element));
  };

  // Load the rows as f32.
  Value gmIn = entry->getArgument(argIndex(plan.input));
  Type inGm = raw ? f16 : f32;
  dv::CopyOp::create(b, loc, rowView(gmIn, C), raw ? raw : x, uint64_t(K),
                     uint64_t(C * dv::elementBytes(inGm)), uint64_t(0), gapOf(inGm));
  if (raw)
    convertTile(raw, x);

  // Each row of the tile: a view stepping one padded row an iteration.
  Value tileX = x;
  std::optional<OpBuilder::InsertionGuard> rowScope;
  dv::LoopOp rowLoop;
  if (K > 1) {
    rowLoop = dv::LoopOp::create(b, loc, K);
    rowScope.emplace(b);
    b.setInsertionPointToStart(&rowLoop.getBody().front());
    auto type = dv::BufType::get(ctx, dv::MemSpace::UB, {e.cp}, f32, dv::Layout::ND);
    AffineMap map = AffineMap::get(1, 0, b.getAffineDimExpr(0) * e.cp);
    x = dv::ViewOp::create(b, loc, type, tileX, ValueRange{rowLoop.getInductionVar()},
                           AffineMapAttr::get(map))
            .getResult();
  }

  double invC = 1.0 / double(C);
  switch (plan.kind) {
  case RowKind::Softmax:
  case RowKind::LogSoftmax: {
    Value ex = softmax ? x : t;
    // Unprotected (the SoftmaxProtection switch off): exp(x) / sum(exp(x))
    // as written, for bisecting; log_softmax's shift is its definition.
    if (!softmax || safety.protect) {
      // Saturate non-finite logits to the storage type's range.
      double range = inElem.isF16() ? 65504.0 : double(std::numeric_limits<float>::max());
      e.scalar<dv::VMinsOp>(x, range, x);
      e.scalar<dv::VMaxsOp>(x, -range, x);
      e.reduceRow(RowKind::Max, x, st, part);
      if (live) {
        // live = 1 unless every logit was -inf (saturated to -range): 0.
        dv::VAddsOp::create(b, loc, st, b.getF32FloatAttr(static_cast<float>(range)), live,
                            uint64_t(1), DenseI64ArrayAttr(), DenseI64ArrayAttr(), e.maskOf(1));
        e.statScalar<dv::VMaxsOp>(live, 0.0);
        e.statScalar<dv::VMinsOp>(live, 1.0);
      }
      e.broadcast(st, bc);
      e.withBroadcast<dv::VSubOp>(x, bc, x); // x - max <= 0
      e.scalar<dv::VMaxsOp>(x, -safety.clip, ex);
    }
    e.unary<dv::VExpOp>(ex, ex);
    e.reduceRow(RowKind::Sum, ex, st, part);
    if (plan.kind == RowKind::Softmax) {
      if (live) // a fully masked row divides by +inf: zeros, not 1/C
        dv::VDivOp::create(b, loc, st, live, st, uint64_t(1), DenseI64ArrayAttr(),
                           DenseI64ArrayAttr(), e.maskOf(1));
      e.broadcast(st, bc);
      e.withBroadcast<dv::VDivOp>(x, bc, x);
    } else {
      e.statUnary<dv::VLnOp>(st);
      e.broadcast(st, bc);
      e.withBroadcast<dv::VSubOp>(x, bc, x);
    }
    break;
  }
  case RowKind::LayerNorm:
  case RowKind::RmsNorm: {
    if (plan.kind == RowKind::LayerNorm) {
      e.reduceRow(RowKind::Sum, x, st, part);
      e.statScalar<dv::VMulsOp>(st, invC);
      e.broadcast(st, bc);
      e.withBroadcast<dv::VSubOp>(x, bc, x); // centred
    }
    e.binary<dv::VMulOp>(x, x, t);
    e.reduceRow(RowKind::Sum, t, st, part);
    e.statScalar<dv::VMulsOp>(st, invC);
    e.statScalar<dv::VAddsOp>(st, plan.epsilon);
    e.statUnary<dv::VRsqrtOp>(st);
    e.broadcast(st, bc);
    e.withBroadcast<dv::VMulOp>(x, bc, x);
    e.binary<dv::VMulOp>(x, scale, x);
    if (bias)
      e.binary<dv::VAddOp>(x, bias, x);
    break;
  }
  case RowKind::L2:
    e.binary<dv::VMulOp>(x, x, x);
    e.reduceRow(RowKind::Sum, x, st, part);
    e.statUnary<dv::VSqrtOp>(st);
    break;
  case RowKind::ArgMax:
  case RowKind::ArgMin: {
    // The row's extreme, broadcast; where an element equals it its index
    // is a candidate (else C, or -1 for the last index); the min (max) of
    // the candidates is the first (last) index of the extreme.
    e.reduceRow(plan.kind == RowKind::ArgMax ? RowKind::Max : RowKind::Min, x, st, part);
    e.broadcast(st, bc);
    e.selectEqual(x, bc, iota, noMatch, candidates, bits, /*repeated=*/true);
    e.reduceRow(plan.lastIndex ? RowKind::Max : RowKind::Min, candidates, st, part);
    e.toIndex(st, index32, 1, e.maskOf(1));
    break;
  }
  default: {
    e.reduceRow(plan.kind, x, st, part);
    if (plan.kind == RowKind::Mean)
      e.statScalar<dv::VMulsOp>(st, invC);
    break;
  }
  }

  if (K > 1) {
    rowScope.reset();
    b.setInsertionPointAfter(rowLoop);
  }
  x = tileX;

  // Store.
  Value gmOut = entry->getArgument(outIndex);
  if (reduceKind) {
    Value src = arg ? index32 : st;
    if (st16) {
      dv::VConvOp::create(b, loc, st, st16, dv::RoundMode::Rint, uint64_t(1), DenseI64ArrayAttr(),
                          b.getDenseI64ArrayAttr({4, 8}), e.maskOf(1));
      src = st16;
    }
    dv::CopyOp::create(b, loc, src, rowView(gmOut, 1), uint64_t(1),
                       uint64_t(dv::elementBytes(outElem)));
  } else {
    Value src = x;
    if (out16) {
      convertTile(x, out16);
      src = out16;
    }
    dv::CopyOp::create(b, loc, src, rowView(gmOut, C), uint64_t(K),
                       uint64_t(C * dv::elementBytes(outElem)), gapOf(outElem), uint64_t(0));
  }

  b.setInsertionPointAfter(loop);
  return finish();
}

std::optional<std::string> rowsMismatch(func::FuncOp func) {
  RowPlan plan;
  return analyse(func, plan);
}

} // namespace

extern const KernelTemplate kRowsTemplate;
const KernelTemplate kRowsTemplate = {"rows", rowsMismatch, lowerRows};

} // namespace vinci::lower
