//===- RowKernel.h - what the row template's files share ------*- C++ -*-===//
//
// The row Vector template (Rows.cpp: softmax, norms, reductions; its
// rationale is at the top of that file) by family: the analysis of the
// kernel (Analysis.cpp), the UB plan (Plan.cpp), and the emission of row
// tiles (RowTile.cpp), of rows longer than a tile (LongRow.cpp) and of
// column mode (Columns.cpp). This header is what they share: the op as
// rows, its tilings, the vector emitter and the kernel's GM arguments.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_LOWER_ROWS_ROWKERNEL_H
#define VINCI_BACKEND_LOWER_ROWS_ROWKERNEL_H

#include "backend/lower/LowerCommon.h"

#include "dv/DvOps.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>

namespace vinci::soc {
struct SocSpec;
}

namespace vinci::lower::rows {

using namespace mlir;

/// f32 lanes of one vector repeat (256 bytes).
constexpr int64_t kLanes = 64;
/// Repeats per vector instruction: <= 255 and a multiple of 8, so every
/// chunk of an f32 or f16 row starts 32-byte aligned.
constexpr int64_t kChunk = 248;
/// Most rows a tile: instructions across the rows repeat once a row.
constexpr int64_t kMaxTileRows = 255;
/// UB bytes a compare mask of `repeats` 64-lane repeats takes.
inline int64_t maskBytes(int64_t repeats) { return repeats * kLanes / 8; }

//===----------------------------------------------------------------------===//
// The op as rows (Analysis.cpp)
//===----------------------------------------------------------------------===//

enum class RowKind {
  Softmax, LogSoftmax, LayerNorm, RmsNorm, Sum, Mean, Max, Min, L2, Prod, ArgMax, ArgMin
};

/// One step of a softmax's prologue, the elementwise ops of its kernel
/// before it: x = x op operand, applied in f32 to every tile of logits as
/// it is loaded, before the row max.
struct PrologueStep {
  enum class Op { Mul, Add, Div, Sub };
  /// The operand: a scalar immediate; a kernel argument of the logits'
  /// shape, read where the logits are; or one row of C elements shared by
  /// every row (row mode only).
  enum class Form { Scalar, Full, Row };
  Op op;
  Form form;
  double scalar = 0;
  Value operand; // the kernel block argument (Full, Row)
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
  /// softmax / log_softmax: the elementwise steps from `input` to the
  /// logits, in program order (empty: the logits are `input`).
  SmallVector<PrologueStep, 2> prologue;
};

/// Whether a prologue step reads a tensor (not an immediate).
inline bool readsTensor(const PrologueStep &step) {
  return step.form != PrologueStep::Form::Scalar;
}

inline bool isArg(RowKind kind) { return kind == RowKind::ArgMax || kind == RowKind::ArgMin; }

/// Kinds whose result has one element a row.
inline bool isReduce(RowKind kind) {
  return kind == RowKind::Sum || kind == RowKind::Mean || kind == RowKind::Max ||
         kind == RowKind::Min || kind == RowKind::L2 || kind == RowKind::Prod || isArg(kind);
}

/// The row op of `func` as rows of columns: nullopt when `func` is not a
/// row kernel; "" when the template lowers it (`plan` filled); else why not.
std::optional<std::string> analyse(func::FuncOp func, RowOp &plan);

//===----------------------------------------------------------------------===//
// The UB plan (Plan.cpp)
//===----------------------------------------------------------------------===//

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
  /// The prologue steps' operands, parallel to RowOp::prologue (null for
  /// a scalar).
  SmallVector<Type, 2> operands;
};

/// Whether a tile set holds a prologue operand buffer: for Full operands,
/// and for Row operands of rows in segments (whole rows share one row).
bool needsOperandTile(const RowOp &op, bool segments);
/// Whether a prologue operand read into that buffer is stored as f16.
bool operandTileIsF16(const RowOp &op, const RowTypes &t, bool segments);

/// Whether the kind keeps a second tile-sized f32 buffer beside x: the
/// squares of the norms, log_softmax's exponentials, arg's candidates.
inline bool needsSecondTile(RowKind kind) {
  return kind == RowKind::LogSoftmax || kind == RowKind::LayerNorm || kind == RowKind::RmsNorm ||
         isArg(kind);
}

/// Row mode: K whole rows a tile when one row fits (as many as fit two
/// sets, at most half the block's rows so that two tiles take turns, at
/// most kMaxTileRows); else segments of a row (as long as fit two sets).
RowTiling planRows(const RowOp &op, const RowTypes &t, const soc::SocSpec &soc);

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
ColumnTiling planColumns(const RowOp &op, const RowTypes &t, const soc::SocSpec &soc);

//===----------------------------------------------------------------------===//
// Vector instructions on UB buffers
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

inline double identityOf(RowKind kind) {
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
// The kernel and its tiles (RowTile.cpp)
//===----------------------------------------------------------------------===//

/// One buffer set of a row tile (views of fewer rows serve a tail tile).
struct TileBuffers {
  Value x, raw, second, out16; // K x cp elements each (raw, second, out16 may be null)
  Value lanes;                 // K x 64: lane-wise partials, broadcast statistics
  Value stat, other;           // roundUp(K, 64): the statistic; live or the typed result
  Value partials;              // per-repeat partials of rows over 255 repeats
  Value bits;                  // a compare mask (arg)
  Value operand, operandRaw;   // a prologue operand (f32; its f16 staging)
};

/// What every tile of a kernel reads: the norm weights (f32, one row),
/// arg's iota and no-match repeat.
struct SharedBuffers {
  Value scale, bias, iota, noMatch;
  Value stage; // f16 staging of a long row's weight segments
  /// The Row operands of the prologue (f32, loaded once; whole rows only),
  /// parallel to RowOp::prologue.
  SmallVector<Value, 2> rows;
};

/// Everything a row kernel's tiles share: GM arguments, types, buffers.
struct RowKernel {
  const RowOp &op;
  RowTypes types;
  Value gmIn, gmOut, gmScale, gmBias;
  SmallVector<Value, 2> gmOperands; // the prologue's, parallel to RowOp::prologue
  SoftmaxSafety safety;
  /// Where non-finite logits saturate: the input storage type's largest
  /// finite value, or f32's when a prologue computes the logits in f32.
  double range;
  int64_t C, n, cp;
  SharedBuffers shared;
};

/// A buffer set of K rows of `repeats` repeats (a segment of a row when
/// `segments`).
TileBuffers allocTile(VectorEmitter &e, const RowKernel &k, int64_t K, int64_t repeats,
                      bool segments = false);
/// Loads `rows` rows of `elems` elements (row stride `rowStride` in GM, cp
/// in UB) as f32 into t.x, from `offset`, `along` elements into a row, and
/// applies the prologue to them.
void loadRows(VectorEmitter &e, const RowKernel &k, const TileBuffers &t, Value gm,
              AffineExpr offset, AffineExpr along, int64_t rows, int64_t elems,
              int64_t rowStride, int64_t cp);
/// Stores `rows` rows of `elems` elements of t.x (row stride cp in UB).
void storeRows(VectorEmitter &e, const RowKernel &k, const TileBuffers &t, AffineExpr offset,
               int64_t rows, int64_t elems, int64_t rowStride, int64_t cp);

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
               function_ref<void(AffineExpr, int64_t, bool)> work);

/// fn(Tag<OpTy>{}) with the dv instruction of a prologue step: the
/// immediate form (vmuls, vadds: a division or subtraction by a constant is
/// a multiplication by its reciprocal or an addition of its negation), or
/// the two-tensor form (vmul, vadd, vdiv, vsub).
template <typename T> struct Tag {
  using type = T;
};
template <typename F> void withScalarInstruction(const PrologueStep &step, F &&fn) {
  using Op = PrologueStep::Op;
  if (step.op == Op::Mul || step.op == Op::Div)
    return fn(Tag<dv::VMulsOp>{});
  return fn(Tag<dv::VAddsOp>{});
}
template <typename F> void withTensorInstruction(const PrologueStep &step, F &&fn) {
  switch (step.op) {
  case PrologueStep::Op::Mul:
    return fn(Tag<dv::VMulOp>{});
  case PrologueStep::Op::Add:
    return fn(Tag<dv::VAddOp>{});
  case PrologueStep::Op::Div:
    return fn(Tag<dv::VDivOp>{});
  case PrologueStep::Op::Sub:
    return fn(Tag<dv::VSubOp>{});
  }
}
/// The immediate a scalar step applies with its instruction.
inline double immediateOf(const PrologueStep &step) {
  using Op = PrologueStep::Op;
  return step.op == Op::Div ? 1.0 / step.scalar : step.op == Op::Sub ? -step.scalar : step.scalar;
}

/// The block's rows in tiles of K (the last tile holds the rest), software
/// pipelined over the buffer sets.
void emitRowTiles(VectorEmitter &e, const RowKernel &k, const RowTiling &tiling, Value bid);

//===----------------------------------------------------------------------===//
// Rows longer than a tile (LongRow.cpp), column mode (Columns.cpp)
//===----------------------------------------------------------------------===//

/// Every row of the block in segments of tiling.segmentRepeats repeats:
/// passes over the segments with running statistics in UB, then its
/// result.
void emitLongRows(VectorEmitter &e, const RowKernel &k, const RowTiling &tiling, Value bid);
/// Every (row, lane tile) unit of the block, a [cols, inner] slab of the
/// row's sub-rows each.
void emitColumns(VectorEmitter &e, const RowKernel &k, const ColumnTiling &tiling, Value bid);

} // namespace vinci::lower::rows

#endif // VINCI_BACKEND_LOWER_ROWS_ROWKERNEL_H
