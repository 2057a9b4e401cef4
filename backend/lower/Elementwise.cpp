//===- Elementwise.cpp - the elementwise Vector template ------------------===//
//
//  - elementwise (Vector): every op a float elementwise vg op whose tensor
//    operands have the result's shape or broadcast to it (numpy rules, see
//    Broadcasts below); scalar immediates (one-element constants) become the
//    scalar forms vadds/vmuls/vmaxs/vmins.
//
// Broadcasts: the result is viewed as [rows, rowLen], its dims split where
// every kernel argument is the whole tensor (Full), constant along the rows
// (Row: a bias [C] over [.., C], a mask [1, 1, 1, S] over [1, H, S, S]),
// constant along each row (Col: [.., R, 1] over [.., R, C], per-channel
// [1, C, 1, 1] over [1, C, H, W]) or one element (Scalar); the split with
// the fewest padded elements wins. Rows are padded to a multiple of 16
// elements in UB (32-byte aligned rows) and tiles hold whole rows, so GM is
// copied in bursts of one row with gaps on the UB side and never past a
// tensor. Row and Scalar operands are tiled into one UB buffer before any
// tile (vcopy with a source repeat stride of 0 re-reads the same 256 bytes
// for every row); Col operands load the tile's row values and vbrcb spreads
// value r over row r (dst repeat stride = one padded row, masked lanes).
// When some operand needs it, the rows are further grouped into slabs,
// [outer][mid rows][rowLen]: Mid operands ([1, C, 1, 1] over [N > 1, C, H,
// W]) are read like Col at the tile's row within its slab, OuterInner
// operands (a mask [N, 1, 1, S] over [N, H, S, S]) load the slab's row per
// tile and tile it like Row, Slab operands ([M, I] over [N, M, I]) load like
// Full within the slab; tiles stay within a slab and blocks take whole slabs
// (a dv.loop over a block's slabs). Anything else (an operand constant along
// two separate groups of dims, rows longer than kMaxRow) is rejected with
// the reason "broadcast of A to B is not supported yet"; a row whose two
// buffer sets do not fit UB (many operands) with its own reason.
//
// Integer kernels (every tensor but bools i32, every op one the vector
// unit has for i32: add, sub, mul, max, min, abs, neg, relu, comparisons,
// where, sign) compute in i32 in UB (64 lanes a repeat, no conversions; no
// immediates). Other kernels with integer tensors (i8, u8, or i32 beside
// floats or under div/mod/pow/clip) compute in f32, converting with vconv
// both ways: exact for 8-bit values and for i32 below 2^24, integer
// division truncates and mod is a - floor(a / b) b (fmod: trunc) through
// s32; results out of an 8-bit range saturate (ONNX wraps: partial). The
// vector unit has no 16-bit or 64-bit integer, u32 or f64 type: those
// tensors are rejected by name. bf16 tensors compute in f32 on SoCs that
// have bf16 (Ascend910B-class); on the 310P the error names such a target.
//
// Bools (i1) are one byte an element in GM (0 or 1, u8 to the vector unit,
// as the .om and numpy store them) and 0/1 in the compute type in UB:
// comparisons are vcmp/vcmps into a packed bit mask and vsel between 1 and
// 0; and = a * b, or = max, xor = |a - b|, not = 1 - a; where(c, x, y) is
// vsel on c != 0. Float functions without a vector instruction: floor,
// ceil and round (halves to even: vconv's rint) through vconv to s32 (x kept where |x| >= 2^23, already integral);
// sin and cos by a Cody-Waite reduction by pi and a Taylor polynomial;
// erf by its series below 0.5 and Abramowitz-Stegun 7.1.26 above; gelu
// from erf (or tanh with approximate = "tanh").
//
// Storage precision is force_fp16: graph inputs and outputs keep their type
// in GM (f32 as the model says), every other float tensor (weights,
// intermediates) is f16 in GM; the kernel computes in f16 in UB and converts
// with vconv after loading an f32 input and before storing an f32 output.
// A kernel that keepsOriginDtype (must_keep_origin_dtype, --keep_dtype) and
// has an f32 tensor computes in f32 in UB (64 lanes a repeat) and stores f32
// tensors as they are; a cast to f16 inside it rounds through f16.
//
// Tiling: the N elements are split into block_dim contiguous equal shares
// (block_dim = the largest divisor of N that is <= min(ai cores, ceil(N /
// tile)), so no block needs a different program and no GM access leaves its
// tensor). Each block runs a dv.loop over pairs of full tiles (two buffer
// sets: ping-pong for double buffering), then at most one more full tile and
// one tail tile with a smaller copy and masked last vector repeats.
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
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;

namespace vinci::lower {
namespace {

/// Largest elementwise tile (elements): keeps every vector instruction of a
/// tile within 255 repeats, also for 64-lane f32 conversions (8192 / 64 = 128).
constexpr int64_t kMaxTile = 8192;
/// Vector lanes of one repeat: 256 bytes of the widest element involved.
constexpr int64_t kLanesF16 = 128;
constexpr int64_t kLanesF32 = 64;
/// Repeats of one vector instruction (the ISA's limit).
constexpr int64_t kMaxRepeat = 255;


//===----------------------------------------------------------------------===//
// Elementwise template: can it lower this kernel?
//===----------------------------------------------------------------------===//

bool isSupportedFloat(Type type) { return type.isF16() || type.isF32(); }

/// Bool tensors (i1) are one byte an element in GM (0 or 1), u8 to the
/// vector unit, and 0/1 in the compute type in UB.
bool isBool(Type type) { return type.isInteger(1); }

Type elementOf(Type tensor) { return cast<RankedTensorType>(tensor).getElementType(); }

/// Integer types that vconv turns into f32 and back exactly (i32 below
/// 2^24 in magnitude): a float kernel computes them in f32.
bool isF32ExactInteger(Type type) {
  return type.isSignlessInteger(8) || type.isUnsignedInteger(8) || type.isSignlessInteger(32);
}

/// A one-element constant's value, float or integer (a scalar immediate:
/// vadds/vmuls/vcmps... take f32 bits for floats, s32 for integers).
std::optional<double> immediate(Value value) {
  if (std::optional<double> f = scalarImmediate(value))
    return f;
  auto constant = value.getDefiningOp<vg::ConstantOp>();
  if (!constant || constant.getValue().getNumElements() != 1 ||
      !isa<IntegerType>(constant.getValue().getElementType()))
    return std::nullopt;
  return double((*constant.getValue().tryGetValues<APInt>()->begin()).getSExtValue());
}

/// Whether the vector unit of `soc` holds `type`: f16, f32, bools, the
/// integers f32 computes exactly, and bf16 where the SoC has it.
bool hasVectorForm(Type type, const soc::SocSpec &soc) {
  return isSupportedFloat(type) || isBool(type) || isF32ExactInteger(type) ||
         (type.isBF16() && soc.supports_bf16);
}

/// Why `what` (tensors or results) of `type` have no vector form.
std::string noVectorForm(StringRef what, Type type, const soc::SocSpec &soc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << what << " of " << type;
  if (type.isBF16())
    os << ": " << soc.name << " has no bf16 (Ascend910B-class targets do: --soc_version "
       << "Ascend910B)";
  else
    os << " have no lowering template yet (f16/f32/bool/i8/u8/i32; the vector unit has no "
          "other integer or f64 type)";
  return text;
}

/// The ops the i32 path computes with the vector unit's i32 instructions.
bool isI32Op(Operation *op);

/// Ops whose result is bool: comparisons and logic.
bool isCompareOp(Operation *op) {
  return isa<vg::EqualOp, vg::LessOp, vg::LessOrEqualOp, vg::GreaterOp, vg::GreaterOrEqualOp>(op);
}
bool isLogicOp(Operation *op) { return isa<vg::AndOp, vg::OrOp, vg::XorOp, vg::NotOp>(op); }

/// Extra compute-type UB buffers (beyond the result's) an op needs per
/// element: every vector instruction of its sequence writes a new buffer.
int64_t scratchBuffers(Operation *op) {
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case<vg::SigmoidOp>([](auto) { return 3; })
      .Case<vg::TanhOp>([](auto) { return 5; })
      .Case<vg::PReluOp>([](auto) { return 3; })
      .Case<vg::ClipOp, vg::SubOp>([](auto) { return 1; })
      .Case<vg::DivOp>([](auto) { return 3; }) // integer division truncates through s32
      .Case<vg::EluOp>([](auto) { return 5; })
      .Case<vg::SeluOp, vg::SoftplusOp>([](auto) { return 6; })
      .Case<vg::HardSigmoidOp>([](auto) { return 3; })
      .Case<vg::HardSwishOp>([](auto) { return 4; })
      .Case<vg::PowOp>([](auto) { return 2; })
      .Case<vg::ModOp>([](auto) { return 6; })
      .Case<vg::EqualOp, vg::LessOp, vg::LessOrEqualOp, vg::GreaterOp, vg::GreaterOrEqualOp,
            vg::WhereOp>([](auto) { return 4; })
      .Case<vg::XorOp, vg::NotOp>([](auto) { return 1; })
      .Case<vg::FloorOp, vg::CeilOp, vg::RoundOp>([](auto) { return 6; })
      .Case<vg::SignOp>([](auto) { return 8; })
      .Case<vg::SinOp, vg::CosOp>([](auto) { return 32; })
      .Case<vg::ErfOp>([](auto) { return 40; })
      .Case<vg::GeluOp>([](auto) { return 48; })
      .Default([](Operation *) { return 0; });
}

/// How a kernel argument is read, with the result viewed as [rows, rowLen]
/// (the result's dims split at `split`): the whole tensor, constant along
/// the rows (a row broadcast: operand = the trailing dims), constant along
/// each row (a column broadcast: operand = the leading dims), or one element.
enum class Bcast {
  Full,       // the whole tensor
  Row,        // constant along the rows (and slabs)
  Col,        // constant along each row
  Scalar,     // one element
  Mid,        // [1, M, 1]: constant along the slabs and each row
  OuterInner, // [O, 1, I]: one row per slab
  Slab,       // [1, M, I]: the same slab for every slab
};

/// The result as [outer slabs][mid rows][rowLen] (rows padded to padLen
/// elements in UB, a multiple of 16 so that every row starts 32-byte
/// aligned) and the kind of each kernel argument. split = -1: no broadcast
/// (flat tiling). outer = 1 unless an argument is Mid, OuterInner or Slab.
struct Geometry {
  int64_t split = -1;
  int64_t outer = 1, mid = 0; // rows = outer * mid
  int64_t rows = 0, rowLen = 1, padLen = 1;
  SmallVector<Bcast> kinds; // per kernel argument
};

/// Longest padded row the broadcast tiling takes: a tile holds whole rows,
/// so one row must fit the largest tile (Swin's window mask rows are
/// 49 x 49 = 2401 elements).
constexpr int64_t kMaxRow = kMaxTile;

/// UB bytes (per buffer set) the broadcast operands' own buffers take:
/// values and slack, and for Row and OuterInner operands their line as
/// loaded (up to f32) and converted (prepareShared, loadOuterRow).
int64_t broadcastReserve(const Geometry &geo) {
  int64_t reserve = 0;
  for (Bcast kind : geo.kinds) {
    if (kind != Bcast::Full)
      reserve += 8192;
    if (kind == Bcast::Row || kind == Bcast::OuterInner)
      reserve += roundUp(geo.padLen, 128) * (4 + 4);
  }
  return reserve;
}

/// The kind of `operand` against `result` split into [0, j1) [j1, j2)
/// [j2, rank): in each part the operand's dims are all the result's (E) or
/// all 1.
std::optional<Bcast> classify(ArrayRef<int64_t> result, ArrayRef<int64_t> operand, int64_t j1,
                              int64_t j2) {
  if (operand == result)
    return Bcast::Full;
  if (ShapedType::getNumElements(operand) == 1)
    return Bcast::Scalar;
  if (operand.size() > result.size())
    return std::nullopt;
  SmallVector<int64_t> padded(result.size() - operand.size(), 1);
  padded.append(operand.begin(), operand.end());
  auto part = [&](int64_t lo, int64_t hi, bool equal) {
    for (int64_t d = lo; d < hi; ++d)
      if (padded[d] != (equal ? result[d] : 1))
        return false;
    return true;
  };
  int64_t r = result.size();
  bool e0 = part(0, j1, true), o0 = part(0, j1, false);
  bool e1 = part(j1, j2, true), o1 = part(j1, j2, false);
  bool e2 = part(j2, r, true), o2 = part(j2, r, false);
  if (o0 && o1 && e2)
    return Bcast::Row;
  if (e0 && e1 && o2)
    return Bcast::Col;
  if (o0 && e1 && o2)
    return Bcast::Mid;
  if (e0 && o1 && e2)
    return Bcast::OuterInner;
  if (o0 && e1 && e2)
    return Bcast::Slab;
  return std::nullopt;
}

int64_t bytesPerElement(func::FuncOp func, ArrayRef<Type> gmElements);

/// UB bytes a tile of one padded row of `geo` needs at least: two buffer
/// sets beside the broadcast operands' buffers, with every GM tensor taken
/// as stored in f32 (the widest storage: the partition asks before the
/// lowering knows each tensor's), so that a kernel the partition forms
/// always lowers.
int64_t oneRowUbBytes(func::FuncOp func, const Geometry &geo) {
  SmallVector<Type> widest(func.getNumArguments() + func.getNumResults(),
                           Float32Type::get(func.getContext()));
  int64_t bytes = bytesPerElement(func, widest) + 2 * int64_t(widest.size());
  return 2 * bytes * geo.padLen + broadcastReserve(geo);
}

/// The smallest UB of any SoC: the templates judge kernels before the
/// target's buffers are looked at.
int64_t smallestUbBytes() {
  uint64_t ub = UINT64_MAX;
  for (const soc::SocSpec *spec : soc::allSocs())
    ub = std::min<uint64_t>(ub, spec->bufferBytes(soc::Space::UB));
  return int64_t(ub);
}

/// Picks the split of the result's dims under which every argument is read
/// as one of the Bcast kinds: no slabs if possible, then the fewest padded
/// elements, then the longest rows. `why` gets the reason when none fits.
std::optional<Geometry> chooseGeometry(func::FuncOp func, std::string *why) {
  auto resultType = cast<RankedTensorType>(func.getFunctionType().getResult(0));
  ArrayRef<int64_t> shape = resultType.getShape();
  Geometry geo;
  geo.rows = resultType.getNumElements();
  geo.mid = geo.rows;
  bool broadcast = false;
  for (BlockArgument arg : func.getArguments()) {
    auto type = cast<RankedTensorType>(arg.getType());
    geo.kinds.push_back(Bcast::Full);
    if (!arg.use_empty() && type.getShape() != shape)
      broadcast = true;
  }
  if (!broadcast)
    return geo;
  std::optional<Geometry> best;
  auto better = [](const Geometry &g, const Geometry &o) {
    if ((g.outer > 1) != (o.outer > 1))
      return g.outer == 1;
    if (g.rows * g.padLen != o.rows * o.padLen)
      return g.rows * g.padLen < o.rows * o.padLen;
    return g.rowLen > o.rowLen;
  };
  for (int64_t j2 = 0, e = shape.size(); j2 <= e; ++j2) {
    for (int64_t j1 = 0; j1 <= j2; ++j1) {
      Geometry g;
      g.split = j2;
      for (int64_t d = 0; d < e; ++d)
        (d < j1 ? g.outer : d < j2 ? g.mid : g.rowLen) *= shape[d];
      g.mid = 1;
      for (int64_t d = j1; d < j2; ++d)
        g.mid *= shape[d];
      g.rows = g.outer * g.mid;
      g.padLen = roundUp(g.rowLen, 16);
      if (g.padLen > kMaxRow)
        continue;
      bool ok = true;
      for (BlockArgument arg : func.getArguments()) {
        std::optional<Bcast> kind =
            arg.use_empty()
                ? Bcast::Full
                : classify(shape, cast<RankedTensorType>(arg.getType()).getShape(), j1, j2);
        // One slab: the slab kinds are the two-level ones.
        if (kind && g.outer == 1)
          kind = *kind == Bcast::Mid          ? Bcast::Col
                 : *kind == Bcast::OuterInner ? Bcast::Row
                 : *kind == Bcast::Slab       ? Bcast::Full
                                              : *kind;
        ok &= kind.has_value();
        g.kinds.push_back(kind.value_or(Bcast::Full));
      }
      if (!ok || oneRowUbBytes(func, g) > smallestUbBytes())
        continue;
      if (g.outer == 1) {
        g.mid = g.rows;
      }
      if (!best || better(g, *best))
        best = g;
    }
  }
  if (!best && why) {
    for (BlockArgument arg : func.getArguments()) {
      auto type = cast<RankedTensorType>(arg.getType());
      if (arg.use_empty() || type.getShape() == shape)
        continue;
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "broadcast of " << type << " to " << resultType << " is not supported yet";
      bool fitsSomeSplit = false;
      for (int64_t j2 = 0, e = shape.size(); j2 <= e; ++j2)
        for (int64_t j1 = 0; j1 <= j2; ++j1)
          fitsSomeSplit |= classify(shape, type.getShape(), j1, j2).has_value();
      if (fitsSomeSplit)
        os << " (with the kernel's other operands: rows of at most " << kMaxRow
           << " elements whose tiles fit UB, each operand constant along the rows or along "
              "each row)";
      *why = text;
      return best;
    }
  }
  return best;
}

/// Whether `from` broadcasts to `to` (numpy rules).
bool broadcastsTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  for (auto [f, t] : llvm::zip(llvm::reverse(from), llvm::reverse(to)))
    if (f != t && f != 1)
      return false;
  return true;
}

/// Integer kernels: every tensor that is not bool i32 (at least one),
/// computed in i32 in UB (64 lanes a repeat) with the ops the vector unit
/// has for i32; bools are i32 0/1 there.
bool isIntegerKernel(func::FuncOp func) {
  auto type = func.getFunctionType();
  SmallVector<Type> types(type.getInputs());
  llvm::append_range(types, type.getResults());
  for (Operation &op : func.getBody().front())
    llvm::append_range(types, op.getResultTypes());
  for (Operation &op : func.getBody().front())
    if (!isa<func::ReturnOp>(op) && !isI32Op(&op))
      return false;
  bool anyI32 = false;
  for (Type t : types) {
    Type element = elementOf(t);
    if (isBool(element))
      continue;
    if (!element.isSignlessInteger(32))
      return false;
    anyI32 = true;
  }
  return anyI32;
}

/// The type a kernel computes in, in UB: i32 for integer kernels; f32 when
/// the kernel keeps its origin dtype (must_keep_origin_dtype, or
/// --keep_dtype naming it) and some tensor of it is f32, so that fp32 stays
/// fp32 between loads and stores; f16 otherwise (force_fp16).
Type kernelComputeType(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  if (isIntegerKernel(func))
    return IntegerType::get(ctx, 32);
  // Integers in a float kernel (8-bit ones, or i32 beside floats or under
  // ops with no i32 instruction): f32 holds them exactly.
  // bf16 too: f16 would round it a second time.
  auto isInteger = [](Type type) {
    Type element = elementOf(type);
    return (isa<IntegerType>(element) && !isBool(element)) || element.isBF16();
  };
  auto fnType = func.getFunctionType();
  bool anyInteger = llvm::any_of(fnType.getInputs(), isInteger) ||
                    llvm::any_of(fnType.getResults(), isInteger);
  for (Operation &op : func.getBody().front())
    anyInteger |= llvm::any_of(op.getResultTypes(), isInteger);
  if (anyInteger)
    return Float32Type::get(ctx);
  if (!keepsOriginDtype(func) && !keepsOriginDtype(soleCall(func)))
    return Float16Type::get(ctx);
  auto isF32 = [](Type type) { return cast<RankedTensorType>(type).getElementType().isF32(); };
  auto type = func.getFunctionType();
  bool anyF32 = llvm::any_of(type.getInputs(), isF32) || llvm::any_of(type.getResults(), isF32);
  for (Operation &op : func.getBody().front())
    anyF32 |= llvm::any_of(op.getResultTypes(), isF32);
  return anyF32 ? Type(Float32Type::get(ctx)) : Type(Float16Type::get(ctx));
}

bool isI32Op(Operation *op) {
  return isa<vg::AddOp, vg::SubOp, vg::MulOp, vg::MaxOp, vg::MinOp, vg::AbsOp, vg::NegOp,
             vg::ReluOp, vg::WhereOp, vg::SignOp, vg::ConstantOp>(op) ||
         isCompareOp(op) || isLogicOp(op);
}

std::string integerMismatch(func::FuncOp func, ArrayRef<int64_t> shape) {
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    if (isa<vg::ConstantOp>(op)) {
      if (!immediate(op.getResult(0)))
        return "an i32 constant of more than one element inside the kernel has no lowering "
               "template yet";
      continue;
    }
    if (!isa<vg::AddOp, vg::SubOp, vg::MulOp, vg::MaxOp, vg::MinOp, vg::AbsOp, vg::NegOp,
             vg::ReluOp, vg::WhereOp, vg::SignOp>(op) &&
        !isCompareOp(&op) && !isLogicOp(&op))
      return (opName(&op) + " on i32 has no lowering template yet").str();
    auto resultType = cast<RankedTensorType>(op.getResult(0).getType());
    Type resultElement = resultType.getElementType();
    if (!resultElement.isSignlessInteger(32) && !isBool(resultElement))
      return (opName(&op) + " to a type other than i32 or bool in an i32 kernel has no lowering "
                            "template yet").str();
    if (!broadcastsTo(resultType.getShape(), shape))
      return (opName(&op) + " changes the kernel's shape: no lowering template yet").str();
  }
  for (Type type : func.getFunctionType().getResults())
    if (cast<RankedTensorType>(type).getShape() != shape)
      return "a kernel with results of different shapes has no lowering template yet";
  std::string why;
  if (!chooseGeometry(func, &why))
    return why;
  return {};
}

/// Why the elementwise template cannot lower `func` (empty: it can).
std::string elementwiseMismatch(func::FuncOp func) {
  auto results = func.getFunctionType().getResults();
  if (results.empty())
    return "a kernel without results has no lowering template";
  auto shape = cast<RankedTensorType>(results.front()).getShape();
  if (isIntegerKernel(func))
    return integerMismatch(func, shape);
  const soc::SocSpec &soc = dv::getSoc(func);
  for (Type type : func.getFunctionType().getInputs())
    if (!hasVectorForm(elementOf(type), soc))
      return noVectorForm("tensors", elementOf(type), soc);
  for (Type type : results)
    if (!hasVectorForm(elementOf(type), soc))
      return noVectorForm("results", elementOf(type), soc);
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    if (auto constant = dyn_cast<vg::ConstantOp>(op)) {
      if (!immediate(constant.getResult()))
        return "a constant of more than one element inside the kernel has no lowering template yet";
      continue;
    }
    bool elementwise =
        isa<vg::AddOp, vg::SubOp, vg::MulOp, vg::DivOp, vg::MaxOp, vg::MinOp, vg::ReluOp,
            vg::LeakyReluOp, vg::ExpOp, vg::LogOp, vg::SqrtOp, vg::ReciprocalOp, vg::AbsOp,
            vg::NegOp, vg::SigmoidOp, vg::TanhOp, vg::ClipOp, vg::CastOp, vg::PReluOp,
            vg::EluOp, vg::SeluOp, vg::HardSigmoidOp, vg::HardSwishOp, vg::SoftplusOp,
            vg::PowOp, vg::WhereOp, vg::FloorOp, vg::CeilOp, vg::RoundOp, vg::SignOp, vg::SinOp,
            vg::CosOp, vg::ErfOp, vg::GeluOp, vg::ModOp>(op) ||
        isCompareOp(&op) || isLogicOp(&op);
    if (!elementwise)
      return (opName(&op) + " has no lowering template yet").str();
    auto resultType = cast<RankedTensorType>(op.getResult(0).getType());
    Type resultElement = resultType.getElementType();
    if (!hasVectorForm(resultElement, soc)) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << opName(&op) << " to " << resultElement << " has no lowering template yet";
      return text;
    }
    // Every value is held broadcast to the kernel's shape (broadcasting
    // commutes with elementwise ops), so an op on broadcast values is fine
    // as long as its result broadcasts to the kernel's shape.
    if (!broadcastsTo(resultType.getShape(), shape))
      return (opName(&op) + " changes the kernel's shape: no lowering template yet").str();
    int tensors = 0;
    for (Value operand : op.getOperands()) {
      auto type = cast<RankedTensorType>(operand.getType());
      if (!hasVectorForm(type.getElementType(), soc))
        return (opName(&op) + " on a non-float operand has no lowering template yet").str();
      if (immediate(operand))
        continue;
      ++tensors;
    }
    if (tensors == 0)
      return (opName(&op) + " of two constants has no lowering template (fold it)").str();
    if (isa<vg::PReluOp>(op) && immediate(op.getOperand(0)))
      return "prelu of a constant input has no lowering template yet";
  }
  for (Type type : results)
    if (cast<RankedTensorType>(type).getShape() != shape)
      return "a kernel with results of different shapes has no lowering template yet";
  std::string why;
  if (!chooseGeometry(func, &why))
    return why;
  return {};
}

//===----------------------------------------------------------------------===//
// Elementwise template: emission
//===----------------------------------------------------------------------===//

/// Emits the dv code of one tile of an elementwise kernel: `rows` rows of
/// the result viewed as [geo.rows, geo.rowLen] starting at row
/// `offset(indices)`, each row padded to geo.padLen elements in UB (flat
/// kernels: rows = elements, rowLen = padLen = 1), in UB buffers of
/// `bufElems` elements (a multiple of 128 >= count = rows * padLen). Row and
/// scalar broadcast operands are tile-shaped buffers filled once before
/// any tile (`shared`, see prepareShared); column broadcast operands are
/// loaded per tile (their `rows` values) and spread along the rows with vbrcb.
/// An affine GM offset (in rows, or slabs) over loop ivs and the block index.
struct Addr {
  SmallVector<Value> indices;
  AffineMap map;
};

class ElementwiseTile {
public:
  /// row: the tile's first row; mid: that row within its slab; outer: the
  /// slab (the last two only with slabs).
  ElementwiseTile(OpBuilder &b, Location loc, func::FuncOp func, ArrayRef<Value> gmArgs,
                  const Addr &row, const Addr &mid, const Addr &outer, const Geometry &geo,
                  int64_t rows, ArrayRef<Value> shared, OpBuilder *allocBuilder = nullptr)
      : b(b), allocAt(allocBuilder ? *allocBuilder : b), loc(loc), func(func), gmArgs(gmArgs),
        rowA(row), midA(mid), outerA(outer), geo(geo), shared(shared), rows(rows),
        count(rows * geo.padLen), bufElems(roundUp(count, kLanesF16)), computeType(kernelComputeType(func)),
        lanes(computeType.isF16() ? kLanesF16 : kLanesF32) {}

  /// The tile-shaped f16 buffer of a row or scalar broadcast operand, filled
  /// once (before every tile): the operand's row (or element) is loaded,
  /// converted to f16 and repeated over `rows` rows by vcopy with a source
  /// repeat stride of 0 (every repeat re-reads the same 256 bytes).
  Value prepareShared(Value gm, Bcast kind) {
    Type element = dv::getElementType(gm.getType());
    int64_t bytes = dv::elementBytes(element);
    int64_t len = kind == Bcast::Row ? geo.rowLen : 1;
    int64_t lineElems = roundUp(kind == Bcast::Row ? geo.padLen : 1, lanes);
    Value raw = allocN(element, lineElems);
    dv::CopyOp::create(b, loc, gm, raw, uint64_t(1), uint64_t(len * bytes), uint64_t(0),
                       uint64_t(0));
    Value line = raw;
    if (element != computeType) {
      line = allocN(computeType, lineElems);
      convertN(raw, line, len);
    }
    Value dst = allocN(computeType, bufElems + lanes);
    if (kind == Bcast::Scalar)
      fillScalar(line, dst);
    else
      tileLine(line, dst);
    return dst;
  }

  /// dst = line[0] over the whole tile: vbrcb to 128 lanes, then vcopy.
  void fillScalar(Value line, Value dst) {
    Value spread = allocN(computeType, lanes);
    dv::VBrcbOp::create(b, loc, line, spread, uint64_t(1), DenseI64ArrayAttr(),
                        DenseI64ArrayAttr(), DenseI64ArrayAttr());
    int64_t repeats = bufElems / lanes;
    for (int64_t r0 = 0; r0 < repeats; r0 += kMaxRepeat) {
      int64_t n = std::min(kMaxRepeat, repeats - r0);
      dv::VCopyOp::create(b, loc, spread, view(dst, r0 * lanes, n * lanes), uint64_t(n),
                          DenseI64ArrayAttr(), b.getDenseI64ArrayAttr({8, 0}),
                          DenseI64ArrayAttr());
    }
  }

  /// Row r of dst, lanes [c, c + 128) = line[c, c + 128) for the tile's
  /// rows: one vcopy a 128-lane column chunk, repeats over the rows (dst
  /// repeat stride = one padded row, source repeat stride 0).
  void tileLine(Value line, Value dst) {
    for (int64_t c = 0; c < geo.padLen; c += lanes) {
      int64_t w = std::min(lanes, geo.padLen - c);
      for (int64_t r0 = 0; r0 < rows; r0 += kMaxRepeat) {
        int64_t n = std::min(kMaxRepeat, rows - r0);
        dv::VCopyOp::create(b, loc, view(line, c, lanes),
                            view(dst, r0 * geo.padLen + c, (n - 1) * geo.padLen + lanes),
                            uint64_t(n), DenseI64ArrayAttr(),
                            b.getDenseI64ArrayAttr({geo.padLen * int64_t(dv::elementBytes(computeType)) / 32, 0}),
                            w < lanes ? prefixMask(b, w) : DenseI64ArrayAttr());
      }
    }
  }

  /// An OuterInner operand: the slab's row, loaded and repeated over the
  /// tile's rows.
  Value loadOuterRow(Value gm) {
    Type element = dv::getElementType(gm.getType());
    int64_t lineElems = roundUp(geo.padLen, lanes);
    Value raw = allocN(element, lineElems);
    dv::CopyOp::create(b, loc, gmTile(gm, geo.rowLen, geo.rowLen, outerA), raw, uint64_t(1),
                       uint64_t(geo.rowLen * dv::elementBytes(element)));
    Value line = raw;
    if (element != computeType) {
      line = allocN(computeType, lineElems);
      convertN(raw, line, geo.rowLen);
    }
    Value dst = allocN(computeType, bufElems + lanes);
    tileLine(line, dst);
    return dst;
  }

  void emit() {
    Block &body = func.getBody().front();
    unsigned numInputs = func.getNumArguments();
    for (auto [index, arg] : llvm::enumerate(body.getArguments())) {
      if (arg.use_empty())
        continue;
      switch (geo.kinds[index]) {
      case Bcast::Full:
        values[arg] = load(gmArgs[index], rowA);
        break;
      case Bcast::Slab:
        values[arg] = load(gmArgs[index], midA);
        break;
      case Bcast::OuterInner:
        values[arg] = loadOuterRow(gmArgs[index]);
        break;
      case Bcast::Mid:
        values[arg] = loadColumn(gmArgs[index], midA);
        break;
      case Bcast::Row:
      case Bcast::Scalar:
        values[arg] = shared[index];
        break;
      case Bcast::Col:
        values[arg] = loadColumn(gmArgs[index], rowA);
        break;
      }
    }
    for (Operation &op : body) {
      if (isa<vg::ConstantOp>(op))
        continue;
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (auto [index, result] : llvm::enumerate(ret.getOperands()))
          store(values.lookup(result), gmArgs[numInputs + index]);
        continue;
      }
      values[op.getResult(0)] = compute(&op);
    }
  }

private:
  Value alloc(Type element) { return allocN(element, bufElems); }

  Value allocN(Type element, int64_t elems) {
    return dv::AllocOp::create(allocAt, loc,
                               dv::BufType::get(b.getContext(), dv::MemSpace::UB, {elems},
                                                element, dv::Layout::ND),
                               IntegerAttr())
        .getResult();
  }

  /// The GM elements [offset * scale, + elems) of `gm`.
  Value gmTile(Value gm, int64_t elems, int64_t scale, const Addr &at) {
    Type element = dv::getElementType(gm.getType());
    auto type = dv::GmType::get(b.getContext(), {elems}, element);
    AffineMap map = at.map;
    if (scale != 1)
      map = AffineMap::get(map.getNumDims(), 0, map.getResult(0) * scale);
    return dv::ViewOp::create(b, loc, type, gm, at.indices, AffineMapAttr::get(map)).getResult();
  }

  /// Copies `rows` rows of rowLen elements between GM (contiguous) and UB
  /// (rows padLen apart): one burst when rows are not padded.
  void copyRows(Value src, Value dst, Type element, bool toUb) {
    int64_t bytes = dv::elementBytes(element);
    if (geo.rowLen == geo.padLen) {
      dv::CopyOp::create(b, loc, src, dst, uint64_t(1), uint64_t(count * bytes));
      return;
    }
    uint64_t gap = uint64_t((geo.padLen - geo.rowLen) * bytes);
    dv::CopyOp::create(b, loc, src, dst, uint64_t(rows), uint64_t(geo.rowLen * bytes),
                       toUb ? uint64_t(0) : gap, toUb ? gap : uint64_t(0));
  }

  /// GM tile -> UB f16 (through an f32 buffer and vconv for f32 tensors).
  Value load(Value gm, const Addr &at) {
    Type element = dv::getElementType(gm.getType());
    Value tile = gmTile(gm, rows * geo.rowLen, geo.rowLen, at);
    Value raw = alloc(element);
    copyRows(tile, raw, element, /*toUb=*/true);
    if (element == computeType)
      return raw;
    Value half = alloc(computeType);
    convert(raw, half);
    return half;
  }

  /// A column broadcast operand: its `rows` values (one a row) -> UB f16,
  /// then vbrcb puts value r in every lane of row r (repeat stride = one
  /// padded row, lanes masked to the row), one vbrcb a 128-lane chunk.
  Value loadColumn(Value gm, const Addr &at) {
    Type element = dv::getElementType(gm.getType());
    int64_t valueElems = roundUp(rows, lanes);
    Value raw = allocN(element, valueElems);
    dv::CopyOp::create(b, loc, gmTile(gm, rows, 1, at), raw, uint64_t(1),
                       uint64_t(rows * dv::elementBytes(element)));
    Value half = raw;
    if (element != computeType) {
      half = allocN(computeType, valueElems);
      convertN(raw, half, rows);
    }
    Value dst = allocN(computeType, bufElems + lanes);
    // Row chunks of 240 (<= 255 repeats, 32-byte aligned source offsets).
    constexpr int64_t kRowChunk = 240;
    for (int64_t c = 0; c < geo.padLen; c += lanes) {
      int64_t w = std::min(lanes, geo.padLen - c);
      for (int64_t r0 = 0; r0 < rows; r0 += kRowChunk) {
        int64_t n = std::min(kRowChunk, rows - r0);
        dv::VBrcbOp::create(b, loc, view(half, r0, n),
                            view(dst, r0 * geo.padLen + c, (n - 1) * geo.padLen + lanes),
                            uint64_t(n), DenseI64ArrayAttr(),
                            b.getDenseI64ArrayAttr({geo.padLen * dv::elementBytes(computeType) / 32}),
                            w < lanes ? prefixMask(b, w) : DenseI64ArrayAttr());
      }
    }
    return dst;
  }

  /// UB f16 -> GM tile (through vconv for f32 tensors).
  void store(Value half, Value gm) {
    Type element = dv::getElementType(gm.getType());
    Value src = half;
    if (element != computeType) {
      src = alloc(element);
      convert(half, src);
    }
    copyRows(src, gmTile(gm, rows * geo.rowLen, geo.rowLen, rowA), element, /*toUb=*/false);
  }

  /// A view of UB buffer `buf` at element `start` spanning `elems` elements
  /// (the buffer itself when it is exactly that).
  Value view(Value buf, int64_t start, int64_t elems) {
    auto bufType = cast<dv::BufType>(buf.getType());
    if (start == 0 && ArrayRef<int64_t>{elems} == bufType.getShape())
      return buf;
    auto type = dv::BufType::get(b.getContext(), dv::MemSpace::UB, {elems},
                                 dv::getElementType(buf.getType()), dv::Layout::ND);
    AffineMap map = AffineMap::get(0, 0, b.getAffineConstantExpr(start));
    return dv::ViewOp::create(b, loc, type, buf, ValueRange{}, AffineMapAttr::get(map)).getResult();
  }

  /// A view of UB buffer `buf` at element `start` spanning `elems` elements
  /// (the buffer itself when it is the whole).
  Value sub(Value buf, int64_t start, int64_t elems) {
    if (start == 0 && elems == bufElems)
      return buf;
    auto type = dv::BufType::get(b.getContext(), dv::MemSpace::UB, {elems},
                                 dv::getElementType(buf.getType()), dv::Layout::ND);
    AffineMap map = AffineMap::get(0, 0, b.getAffineConstantExpr(start));
    return dv::ViewOp::create(b, loc, type, buf, ValueRange{}, AffineMapAttr::get(map)).getResult();
  }


  /// Calls fn(operands, repeat, mask) for the full repeats over `count`
  /// elements and once more, masked, for a partial last repeat.
  void forRepeats(ArrayRef<Value> buffers, int64_t lanes,
                  function_ref<void(ArrayRef<Value>, int64_t, DenseI64ArrayAttr)> fn) {
    forRepeatsN(buffers, lanes, count, fn);
  }

  /// forRepeats over the first `n` elements of whole buffers.
  void forRepeatsN(ArrayRef<Value> buffers, int64_t lanes, int64_t n,
                   function_ref<void(ArrayRef<Value>, int64_t, DenseI64ArrayAttr)> fn) {
    int64_t full = n / lanes, rest = n % lanes;
    if (full) {
      SmallVector<Value> ops(buffers);
      fn(ops, full, DenseI64ArrayAttr());
    }
    if (rest) {
      SmallVector<Value> ops;
      for (Value buf : buffers)
        ops.push_back(sub(buf, full * lanes, lanes));
      fn(ops, 1, prefixMask(b, rest));
    }
  }

  void convert(Value src, Value dst, dv::RoundMode mode = dv::RoundMode::Rint) {
    convertN(src, dst, count, mode);
  }

  void convertN(Value src, Value dst, int64_t n, dv::RoundMode mode = dv::RoundMode::Rint) {
    // A repeat covers 256 bytes of the wider type (64 lanes of a 4-byte
    // type, 128 of a 2-byte one); each side advances that many elements.
    auto bytes = [](Value buf) {
      return int64_t(dv::elementBytes(dv::getElementType(buf.getType())));
    };
    int64_t convLanes = 256 / std::max(bytes(src), bytes(dst));
    auto rep = b.getDenseI64ArrayAttr({convLanes * bytes(dst) / 32, convLanes * bytes(src) / 32});
    forRepeatsN({src, dst}, convLanes, n,
               [&](ArrayRef<Value> o, int64_t repeat, DenseI64ArrayAttr mask) {
                 dv::VConvOp::create(b, loc, o[0], o[1], mode, uint64_t(repeat),
                                     DenseI64ArrayAttr(), rep, mask);
               });
  }

  template <typename OpTy> Value binary(Value x, Value y) {
    Value dst = alloc(computeType);
    forRepeats({x, y, dst}, lanes,
               [&](ArrayRef<Value> o, int64_t repeat, DenseI64ArrayAttr mask) {
                 OpTy::create(b, loc, o[0], o[1], o[2], uint64_t(repeat), DenseI64ArrayAttr(),
                              DenseI64ArrayAttr(), mask);
               });
    return dst;
  }

  /// A scalar operand in the compute type's form: f32 bits for floats, i32
  /// for integer kernels.
  Attribute scalarAttr(double c) {
    if (computeType.isInteger(32))
      return b.getI32IntegerAttr(static_cast<int32_t>(c));
    return b.getF32FloatAttr(static_cast<float>(c));
  }

  template <typename OpTy> Value scalar(Value x, double c) {
    Value dst = alloc(computeType);
    Attribute attr = scalarAttr(c);
    forRepeats({x, dst}, lanes, [&](ArrayRef<Value> o, int64_t repeat, DenseI64ArrayAttr mask) {
      OpTy::create(b, loc, o[0], attr, o[1], uint64_t(repeat), DenseI64ArrayAttr(),
                   DenseI64ArrayAttr(), mask);
    });
    return dst;
  }

  template <typename OpTy> Value unary(Value x) {
    Value dst = alloc(computeType);
    forRepeats({x, dst}, lanes, [&](ArrayRef<Value> o, int64_t repeat, DenseI64ArrayAttr mask) {
      OpTy::create(b, loc, o[0], o[1], uint64_t(repeat), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                   mask);
    });
    return dst;
  }

  /// x < 0 ? alpha * (e^x - 1) : x = relu(x) + alpha * (e^min(x, 0) - 1), no branch
  Value elu(Value x, double alpha) {
    Value negative = scalar<dv::VAddsOp>(unary<dv::VExpOp>(scalar<dv::VMinsOp>(x, 0.0)), -1.0);
    return binary<dv::VAddOp>(unary<dv::VReluOp>(x), scalar<dv::VMulsOp>(negative, alpha));
  }

  /// max(0, min(1, alpha * x + beta))
  Value hardSigmoid(Value x, double alpha, double beta) {
    Value line = scalar<dv::VAddsOp>(scalar<dv::VMulsOp>(x, alpha), beta);
    return scalar<dv::VMinsOp>(scalar<dv::VMaxsOp>(line, 0.0), 1.0);
  }

  /// a ^ b. Exponents 1, 2, 3 and 0.5 are exact products or a square root;
  /// otherwise e^(b ln a), defined for a > 0 (NaN for a negative base, as
  /// in fp32 pow with a non-integer exponent).
  Value pow(Operation *op) {
    std::optional<double> base = immediate(op->getOperand(0));
    std::optional<double> exponent = immediate(op->getOperand(1));
    Value lhs = values.lookup(op->getOperand(0)), rhs = values.lookup(op->getOperand(1));
    if (base) // c ^ b = e^(b ln c)
      return unary<dv::VExpOp>(scalar<dv::VMulsOp>(rhs, std::log(*base)));
    if (exponent && *exponent == 1.0)
      return scalar<dv::VMulsOp>(lhs, 1.0);
    if (exponent && *exponent == 2.0)
      return binary<dv::VMulOp>(lhs, lhs);
    if (exponent && *exponent == 3.0)
      return binary<dv::VMulOp>(binary<dv::VMulOp>(lhs, lhs), lhs);
    if (exponent && *exponent == 0.5)
      return unary<dv::VSqrtOp>(lhs);
    Value lnA = unary<dv::VLnOp>(lhs);
    return unary<dv::VExpOp>(exponent ? scalar<dv::VMulsOp>(lnA, *exponent)
                                      : binary<dv::VMulOp>(lnA, rhs));
  }

  /// A float cast of a UB value: under force_fp16 f16 <-> f32 casts are the
  /// same f16 values; computing in f32, a cast to f16 or bf16 rounds to it
  /// (vconv there and back) as the graph says.
  Value castTo(Value x, Type to) {
    if (!computeType.isF32() || !(to.isF16() || to.isBF16()))
      return x;
    Value half = alloc(to);
    convert(x, half);
    Value back = alloc(computeType);
    convert(half, back);
    return back;
  }

  /// A tile-shaped buffer holding `c` in every lane (vdup).
  Value filled(double c) {
    Value dst = alloc(computeType);
    forRepeats({dst}, lanes, [&](ArrayRef<Value> o, int64_t repeat, DenseI64ArrayAttr mask) {
      dv::VDupOp::create(b, loc, scalarAttr(c), o[0], uint64_t(repeat), DenseI64ArrayAttr(),
                         DenseI64ArrayAttr(), mask);
    });
    return dst;
  }

  /// Lane by lane (x <mode> y) ? onTrue : onFalse, with y a tensor or
  /// (null) the immediate `c`: vcmp/vcmps write a packed bit mask, vsel
  /// picks. The mask buffer is reused by each run of repeats (a masked
  /// tail repeat's bits start at its beginning, so no view needs a
  /// 16-byte offset that UB alignment forbids).
  Value select(dv::CmpMode mode, Value x, Value y, double c, Value onTrue, Value onFalse) {
    Value dst = alloc(computeType);
    int64_t fullRepeats = std::max<int64_t>(count / lanes, 1);
    Value bits = allocN(b.getIntegerType(8, /*isSigned=*/false), roundUp(fullRepeats * lanes / 8, 32));
    SmallVector<Value> buffers{x, onTrue, onFalse, dst};
    if (y)
      buffers.push_back(y);
    forRepeats(buffers, lanes, [&](ArrayRef<Value> o, int64_t repeat, DenseI64ArrayAttr mask) {
      if (y)
        dv::VCmpOp::create(b, loc, mode, o[0], o[4], bits, uint64_t(repeat), DenseI64ArrayAttr(),
                           DenseI64ArrayAttr(), mask);
      else
        dv::VCmpsOp::create(b, loc, mode, o[0], scalarAttr(c), bits, uint64_t(repeat),
                            DenseI64ArrayAttr(), DenseI64ArrayAttr(), mask);
      dv::VSelOp::create(b, loc, o[1], o[2], bits, o[3], uint64_t(repeat), DenseI64ArrayAttr(),
                         DenseI64ArrayAttr(), mask);
    });
    return dst;
  }

  /// The value of operand i in UB: its buffer, or an immediate filled in.
  Value operandValue(Operation *op, unsigned i) {
    if (std::optional<double> c = immediate(op->getOperand(i)))
      return filled(*c);
    return values.lookup(op->getOperand(i));
  }

  /// A comparison as 0/1 in the compute type; an immediate on either side
  /// becomes vcmps (mirrored when it is on the left).
  Value compare(Operation *op) {
    dv::CmpMode mode = llvm::TypeSwitch<Operation *, dv::CmpMode>(op)
                           .Case<vg::EqualOp>([](auto) { return dv::CmpMode::EQ; })
                           .Case<vg::LessOp>([](auto) { return dv::CmpMode::LT; })
                           .Case<vg::LessOrEqualOp>([](auto) { return dv::CmpMode::LE; })
                           .Case<vg::GreaterOp>([](auto) { return dv::CmpMode::GT; })
                           .Case<vg::GreaterOrEqualOp>([](auto) { return dv::CmpMode::GE; });
    Value ones = filled(1.0), zeros = filled(0.0);
    if (std::optional<double> rhs = immediate(op->getOperand(1)))
      return select(mode, values.lookup(op->getOperand(0)), Value(), *rhs, ones, zeros);
    if (std::optional<double> lhs = immediate(op->getOperand(0))) {
      dv::CmpMode mirrored = mode == dv::CmpMode::LT   ? dv::CmpMode::GT
                             : mode == dv::CmpMode::LE ? dv::CmpMode::GE
                             : mode == dv::CmpMode::GT ? dv::CmpMode::LT
                             : mode == dv::CmpMode::GE ? dv::CmpMode::LE
                                                       : mode;
      return select(mirrored, values.lookup(op->getOperand(1)), Value(), *lhs, ones, zeros);
    }
    return select(mode, values.lookup(op->getOperand(0)), values.lookup(op->getOperand(1)), 0.0,
                  ones, zeros);
  }

  /// x rounded to an integer value by vconv to s32 in `mode` and back. Only
  /// |x| below 2^31 converts exactly; callers guard larger values.
  Value roundThroughInt(Value x, dv::RoundMode mode) {
    Value asInt = alloc(b.getI32Type());
    convert(x, asInt, mode);
    Value back = alloc(computeType);
    convert(asInt, back);
    return back;
  }

  /// floor / ceil / round: through s32 where |x| < 2^23 (f32; 2^10 in f16); at and
  /// above that every float is an integer already (and beyond 2^31 the
  /// conversion would saturate), so x is kept, as are inf and NaN (the
  /// compare is false for them).
  Value roundToIntegral(Value x, dv::RoundMode mode) {
    double exact = computeType.isF16() ? 1024.0 : 8388608.0;
    return select(dv::CmpMode::LT, unary<dv::VAbsOp>(x), Value(), exact,
                  roundThroughInt(x, mode), x);
  }

  /// sin(x), or cos(x) = sin(x + pi/2), on the Vector unit: x = m * pi + r
  /// with r in [-pi/2, pi/2] (m = k = rint(x / pi) for sin, m = k - 1/2
  /// with k = rint(x / pi + 1/2) for cos, so that cos is exact near its
  /// zeros too), r = x - m * pi in three steps (Cody-Waite: m * 3.140625 is
  /// exact), sin(x) = (-1)^k sin(r) with the Taylor polynomial to r^13
  /// (error below 6e-10 on [-pi/2, pi/2]). Accurate while m * pi's parts
  /// stay exact: |x| below about 2^15 * pi in f32.
  Value sinCos(Value x, bool cosine) {
    constexpr double kPi1 = 3.140625, kPi2 = 9.67502593994140625e-4,
                     kPi3 = 1.509957990978376432e-7;
    Value q = scalar<dv::VMulsOp>(x, 1.0 / M_PI);
    if (cosine)
      q = scalar<dv::VAddsOp>(q, 0.5);
    Value k = roundThroughInt(q, dv::RoundMode::Rint);
    Value m = cosine ? scalar<dv::VAddsOp>(k, -0.5) : k;
    Value r = x;
    for (double part : {kPi1, kPi2, kPi3})
      r = binary<dv::VSubOp>(r, scalar<dv::VMulsOp>(m, part));
    Value z = binary<dv::VMulOp>(r, r);
    // r + r z (-1/3! + z (1/5! - z (1/7! ...)))
    const double coefs[] = {-1.0 / 6227020800.0, 1.0 / 39916800.0, -1.0 / 362880.0,
                            1.0 / 5040.0, -1.0 / 120.0, 1.0 / 6.0};
    Value poly = scalar<dv::VMulsOp>(z, coefs[0]);
    for (double c : ArrayRef<double>(coefs).drop_front()) {
      poly = binary<dv::VMulOp>(scalar<dv::VAddsOp>(poly, c), z);
    }
    // poly = z (1/3! ... ) ; sin r = r - r * poly
    Value sinR = binary<dv::VSubOp>(r, binary<dv::VMulOp>(r, poly));
    // (-1)^k = 1 - 2 (k - 2 floor(k / 2))
    Value half = roundThroughInt(scalar<dv::VMulsOp>(k, 0.5), dv::RoundMode::Floor);
    Value parity = binary<dv::VAddOp>(k, scalar<dv::VMulsOp>(half, -2.0));
    Value sign = scalar<dv::VAddsOp>(scalar<dv::VMulsOp>(parity, -2.0), 1.0);
    return binary<dv::VMulOp>(sinR, sign);
  }

  /// erf(x) in pieces: for |x| < 0.5 the odd Taylor series to x^11
  /// (relative error below 3e-8 there); elsewhere Abramowitz & Stegun
  /// 7.1.26, erf|x| = 1 - tail with tail = t (a1 + t (a2 + ...)) e^(-x^2),
  /// t = 1 / (1 + p |x|) (absolute error below 1.5e-7).
  struct ErfPieces {
    Value series, tail, magnitude;
  };
  ErfPieces erfPieces(Value x) {
    Value z = binary<dv::VMulOp>(x, x);
    const double taylor[] = {-1.0 / 1320.0, 1.0 / 216.0, -1.0 / 42.0, 1.0 / 10.0, -1.0 / 3.0};
    Value series = scalar<dv::VMulsOp>(z, taylor[0]);
    for (double c : ArrayRef<double>(taylor).drop_front())
      series = binary<dv::VMulOp>(scalar<dv::VAddsOp>(series, c), z);
    // x (1 + z (...)) 2 / sqrt(pi)
    series = scalar<dv::VMulsOp>(binary<dv::VMulOp>(scalar<dv::VAddsOp>(series, 1.0), x),
                                 M_2_SQRTPI);
    Value a = unary<dv::VAbsOp>(x);
    Value t = unary<dv::VRecOp>(scalar<dv::VAddsOp>(scalar<dv::VMulsOp>(a, 0.3275911), 1.0));
    const double as[] = {1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592};
    Value poly = scalar<dv::VMulsOp>(t, as[0]);
    for (double c : ArrayRef<double>(as).drop_front())
      poly = binary<dv::VMulOp>(scalar<dv::VAddsOp>(poly, c), t);
    return {series, binary<dv::VMulOp>(poly, unary<dv::VExpOp>(unary<dv::VNegOp>(z))), a};
  }

  /// erf(x): the series below |x| = 0.5, else (1 - tail) with x's sign.
  Value erf(Value x) {
    ErfPieces p = erfPieces(x);
    Value large = scalar<dv::VAddsOp>(unary<dv::VNegOp>(p.tail), 1.0);
    Value signedLarge = select(dv::CmpMode::LT, x, Value(), 0.0, unary<dv::VNegOp>(large), large);
    return select(dv::CmpMode::LT, p.magnitude, Value(), 0.5, p.series, signedLarge);
  }

  /// 1 + erf(x) with no cancellation where erf(x) nears -1: the tail itself
  /// for x <= -0.5 (gelu's left side keeps its relative accuracy).
  Value onePlusErf(Value x) {
    ErfPieces p = erfPieces(x);
    Value right = scalar<dv::VAddsOp>(unary<dv::VNegOp>(p.tail), 2.0);
    Value outer = select(dv::CmpMode::LT, x, Value(), 0.0, p.tail, right);
    return select(dv::CmpMode::LT, p.magnitude, Value(), 0.5, scalar<dv::VAddsOp>(p.series, 1.0),
                  outer);
  }

  /// tanh(x) = 2 * sigmoid(2x) - 1 = 2 / (1 + e^-2x) - 1: saturates
  /// correctly at both ends (e^-2x -> inf gives -1, -> 0 gives 1).
  Value tanh(Value x) {
    Value e = unary<dv::VExpOp>(scalar<dv::VMulsOp>(x, -2.0));
    Value s = unary<dv::VRecOp>(scalar<dv::VAddsOp>(e, 1.0));
    return scalar<dv::VAddsOp>(scalar<dv::VMulsOp>(s, 2.0), -1.0);
  }

  /// gelu: x * Phi(x), with Phi(x) = (1 + erf(x / sqrt 2)) / 2, or with
  /// approximate = "tanh", (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2.
  Value gelu(Value x, bool tanhForm) {
    Value onePlus;
    if (tanhForm) {
      Value cube = binary<dv::VMulOp>(binary<dv::VMulOp>(x, x), x);
      Value u = binary<dv::VAddOp>(x, scalar<dv::VMulsOp>(cube, 0.044715));
      onePlus = scalar<dv::VAddsOp>(tanh(scalar<dv::VMulsOp>(u, std::sqrt(2.0 / M_PI))), 1.0);
    } else {
      onePlus = onePlusErf(scalar<dv::VMulsOp>(x, M_SQRT1_2));
    }
    Value phi = scalar<dv::VMulsOp>(onePlus, 0.5);
    return binary<dv::VMulOp>(x, phi);
  }

  /// 1 / (1 + e^-x)
  Value sigmoid(Value x) {
    Value e = unary<dv::VExpOp>(unary<dv::VNegOp>(x));
    return unary<dv::VRecOp>(scalar<dv::VAddsOp>(e, 1.0));
  }

  Value compute(Operation *op) {
    Value result = computeFloat(op);
    // Integer division truncates (computed in f32 here).
    Type element = elementOf(op->getResult(0).getType());
    if (isa<vg::DivOp>(op) && isa<IntegerType>(element) && !computeType.isInteger(32))
      result = roundThroughInt(result, dv::RoundMode::Trunc);
    return result;
  }

  Value computeFloat(Operation *op) {
    auto in = [&](unsigned i) { return values.lookup(op->getOperand(i)); };
    // Binary ops: two tensors, or a tensor and a scalar immediate.
    if (isa<vg::AddOp, vg::SubOp, vg::MulOp, vg::DivOp, vg::MaxOp, vg::MinOp>(op)) {
      std::optional<double> lhsImm = immediate(op->getOperand(0));
      std::optional<double> rhsImm = immediate(op->getOperand(1));
      if (!lhsImm && !rhsImm)
        return llvm::TypeSwitch<Operation *, Value>(op)
            .Case<vg::AddOp>([&](auto) { return binary<dv::VAddOp>(in(0), in(1)); })
            .Case<vg::SubOp>([&](auto) { return binary<dv::VSubOp>(in(0), in(1)); })
            .Case<vg::MulOp>([&](auto) { return binary<dv::VMulOp>(in(0), in(1)); })
            .Case<vg::DivOp>([&](auto) { return binary<dv::VDivOp>(in(0), in(1)); })
            .Case<vg::MaxOp>([&](auto) { return binary<dv::VMaxOp>(in(0), in(1)); })
            .Case<vg::MinOp>([&](auto) { return binary<dv::VMinOp>(in(0), in(1)); });
      bool immLeft = lhsImm.has_value();
      Value x = immLeft ? in(1) : in(0);
      double c = immLeft ? *lhsImm : *rhsImm;
      return llvm::TypeSwitch<Operation *, Value>(op)
          .Case<vg::AddOp>([&](auto) { return scalar<dv::VAddsOp>(x, c); })
          .Case<vg::MulOp>([&](auto) { return scalar<dv::VMulsOp>(x, c); })
          .Case<vg::MaxOp>([&](auto) { return scalar<dv::VMaxsOp>(x, c); })
          .Case<vg::MinOp>([&](auto) { return scalar<dv::VMinsOp>(x, c); })
          // x - c = x + (-c); c - x = -x + c
          .Case<vg::SubOp>([&](auto) {
            return immLeft ? scalar<dv::VAddsOp>(unary<dv::VNegOp>(x), c)
                           : scalar<dv::VAddsOp>(x, -c);
          })
          // x / c = x * (1/c); c / x = (1/x) * c
          .Case<vg::DivOp>([&](auto) {
            return immLeft ? scalar<dv::VMulsOp>(unary<dv::VRecOp>(x), c)
                           : scalar<dv::VMulsOp>(x, 1.0 / c);
          });
    }
    // prelu(x, slope) = max(x, 0) + slope * min(x, 0): x exactly where
    // x >= 0, one rounding of slope * x elsewhere; a scalar slope is vlrelu.
    if (isa<vg::PReluOp>(op)) {
      if (std::optional<double> slope = immediate(op->getOperand(1)))
        return scalar<dv::VLeakyReluOp>(in(0), *slope);
      Value negative = binary<dv::VMulOp>(scalar<dv::VMinsOp>(in(0), 0.0), in(1));
      return binary<dv::VAddOp>(unary<dv::VReluOp>(in(0)), negative);
    }
    if (isa<vg::PowOp>(op))
      return pow(op);
    if (isCompareOp(op))
      return compare(op);
    // a mod b = a - k b with k = floor(a / b) (the divisor's sign), or
    // trunc(a / b) with fmod = 1 (the dividend's sign), k through s32.
    if (auto mod = dyn_cast<vg::ModOp>(op)) {
      Value a = operandValue(op, 0), d = operandValue(op, 1);
      Value k = roundThroughInt(binary<dv::VDivOp>(a, d),
                                mod.getFmod() ? dv::RoundMode::Trunc : dv::RoundMode::Floor);
      return binary<dv::VSubOp>(a, binary<dv::VMulOp>(k, d));
    }
    // Bools are 0/1: and = a * b, or = max(a, b), xor = |a - b|, not = 1 - a.
    if (isLogicOp(op))
      return llvm::TypeSwitch<Operation *, Value>(op)
          .Case<vg::AndOp>([&](auto) { return binary<dv::VMulOp>(in(0), in(1)); })
          .Case<vg::OrOp>([&](auto) { return binary<dv::VMaxOp>(in(0), in(1)); })
          .Case<vg::XorOp>(
              [&](auto) { return unary<dv::VAbsOp>(binary<dv::VSubOp>(in(0), in(1))); })
          .Case<vg::NotOp>(
              [&](auto) { return scalar<dv::VAddsOp>(unary<dv::VNegOp>(in(0)), 1.0); });
    if (isa<vg::WhereOp>(op))
      return select(dv::CmpMode::NE, in(0), Value(), 0.0, operandValue(op, 1),
                    operandValue(op, 2));
    // sign(x) = (x > 0) - (x < 0)
    if (isa<vg::SignOp>(op)) {
      Value ones = filled(1.0), zeros = filled(0.0);
      Value positive = select(dv::CmpMode::GT, in(0), Value(), 0.0, ones, zeros);
      Value negative = select(dv::CmpMode::LT, in(0), Value(), 0.0, ones, zeros);
      return binary<dv::VSubOp>(positive, negative);
    }
    return llvm::TypeSwitch<Operation *, Value>(op)
        .Case<vg::ReluOp>([&](auto) { return unary<dv::VReluOp>(in(0)); })
        .Case<vg::EluOp>([&](vg::EluOp elu) {
          return this->elu(in(0), elu.getAlpha().convertToDouble());
        })
        .Case<vg::SeluOp>([&](vg::SeluOp selu) {
          return scalar<dv::VMulsOp>(this->elu(in(0), selu.getAlpha().convertToDouble()),
                                     selu.getGamma().convertToDouble());
        })
        .Case<vg::HardSigmoidOp>([&](vg::HardSigmoidOp hs) {
          return hardSigmoid(in(0), hs.getAlpha().convertToDouble(),
                             hs.getBeta().convertToDouble());
        })
        // x * hard_sigmoid(x) with alpha 1/6, beta 1/2
        .Case<vg::HardSwishOp>([&](auto) {
          return binary<dv::VMulOp>(in(0), hardSigmoid(in(0), 1.0 / 6.0, 0.5));
        })
        // ln(1 + e^x) = max(x, 0) + ln(1 + e^-|x|): no overflow of e^x in fp16
        .Case<vg::SoftplusOp>([&](auto) {
          Value tail = unary<dv::VLnOp>(
              scalar<dv::VAddsOp>(unary<dv::VExpOp>(unary<dv::VNegOp>(unary<dv::VAbsOp>(in(0)))),
                                  1.0));
          return binary<dv::VAddOp>(unary<dv::VReluOp>(in(0)), tail);
        })
        .Case<vg::ExpOp>([&](auto) { return unary<dv::VExpOp>(in(0)); })
        .Case<vg::LogOp>([&](auto) { return unary<dv::VLnOp>(in(0)); })
        .Case<vg::SqrtOp>([&](auto) { return unary<dv::VSqrtOp>(in(0)); })
        .Case<vg::ReciprocalOp>([&](auto) { return unary<dv::VRecOp>(in(0)); })
        .Case<vg::AbsOp>([&](auto) { return unary<dv::VAbsOp>(in(0)); })
        .Case<vg::NegOp>([&](auto) { return unary<dv::VNegOp>(in(0)); })
        .Case<vg::LeakyReluOp>([&](vg::LeakyReluOp lrelu) {
          return scalar<dv::VLeakyReluOp>(in(0), lrelu.getAlpha().convertToDouble());
        })
        .Case<vg::SigmoidOp>([&](auto) { return sigmoid(in(0)); })
        .Case<vg::TanhOp>([&](auto) { return tanh(in(0)); })
        .Case<vg::FloorOp>([&](auto) { return roundToIntegral(in(0), dv::RoundMode::Floor); })
        .Case<vg::CeilOp>([&](auto) { return roundToIntegral(in(0), dv::RoundMode::Ceil); })
        .Case<vg::RoundOp>([&](auto) { return roundToIntegral(in(0), dv::RoundMode::Rint); })
        .Case<vg::SinOp>([&](auto) { return sinCos(in(0), /*cosine=*/false); })
        .Case<vg::CosOp>([&](auto) { return sinCos(in(0), /*cosine=*/true); })
        .Case<vg::ErfOp>([&](auto) { return erf(in(0)); })
        .Case<vg::GeluOp>([&](vg::GeluOp g) { return gelu(in(0), g.getApproximate() == "tanh"); })
        .Case<vg::ClipOp>([&](vg::ClipOp clip) {
          Value x = in(0);
          if (auto lo = clip.getMin())
            x = scalar<dv::VMaxsOp>(x, lo->convertToDouble());
          if (auto hi = clip.getMax())
            x = scalar<dv::VMinsOp>(x, hi->convertToDouble());
          return x;
        })
        .Case<vg::CastOp>([&](vg::CastOp cast) { return castTo(in(0), cast.getTo()); });
  }

  OpBuilder &b;
  OpBuilder &allocAt; // where buffers are created (before a loop: live for all of it)
  Location loc;
  func::FuncOp func;
  ArrayRef<Value> gmArgs;
  const Addr &rowA, &midA, &outerA;
  const Geometry &geo;
  ArrayRef<Value> shared;
  int64_t rows, count, bufElems;
  Type computeType; // what UB holds while computing: kernelComputeType
  int64_t lanes;    // lanes of a computeType repeat
  llvm::DenseMap<Value, Value> values; // vg tensor -> UB f16 buffer
};

/// UB bytes per element of one tile's buffer set (no reuse counted).
int64_t bytesPerElement(func::FuncOp func, ArrayRef<Type> gmElements) {
  Type computeType = kernelComputeType(func);
  int64_t computeBytes = dv::elementBytes(computeType);
  // A GM tensor of another type needs its own buffer beside the converted one.
  auto staging = [&](Type element) {
    return element == computeType ? 0 : int64_t(dv::elementBytes(element));
  };
  int64_t bytes = 0;
  unsigned numInputs = func.getNumArguments();
  for (auto [index, arg] : llvm::enumerate(func.getArguments()))
    if (!arg.use_empty())
      bytes += computeBytes + staging(gmElements[index]);
  for (Operation &op : func.getBody().front())
    if (!isa<vg::ConstantOp, func::ReturnOp, vg::CastOp>(op))
      bytes += computeBytes * (1 + scratchBuffers(&op));
  for (unsigned i = numInputs; i < gmElements.size(); ++i)
    bytes += staging(gmElements[i]);
  return bytes;
}

struct TilePlan {
  int64_t tile = 0;     // rows of a full tile (flat: elements, a multiple of 128)
  int64_t blockDim = 1; // blocks, dividing the row count
  int64_t share = 0;    // rows per block
};

/// Flat kernels (geo.split < 0): n = elements, tiles of a multiple of 128.
/// Broadcast kernels: n = rows, tiles of whole padded rows; `reserve` UB
/// bytes are kept for the broadcast operands' small buffers.
TilePlan planElementwise(int64_t n, int64_t bytesPerElem, const soc::SocSpec &soc,
                         const Geometry &geo, int64_t reserve) {
  TilePlan plan;
  // Two buffer sets (ping-pong) must fit in UB together.
  int64_t perSet = (static_cast<int64_t>(soc.bufferBytes(soc::Space::UB)) - reserve) / 2;
  if (geo.split < 0)
    plan.tile = std::min<int64_t>(kMaxTile, perSet / bytesPerElem / kLanesF16 * kLanesF16);
  else
    plan.tile = std::min<int64_t>(kMaxTile, perSet / bytesPerElem) / geo.padLen;
  if (plan.tile < 1)
    return plan;
  if (geo.outer > 1) {
    // Tiles within one slab; blocks take whole slabs.
    plan.tile = std::min(plan.tile, geo.mid);
    for (plan.blockDim = std::min<int64_t>(soc.ai_core_count, geo.outer);
         geo.outer % plan.blockDim; --plan.blockDim)
      ;
    plan.share = geo.outer / plan.blockDim * geo.mid;
    return plan;
  }
  int64_t wanted = std::min<int64_t>(
      soc.ai_core_count,
      std::max<int64_t>(1, (n + plan.tile - 1) / std::max<int64_t>(plan.tile, 1)));
  // Equal contiguous shares: the largest block count that divides n.
  for (plan.blockDim = wanted; n % plan.blockDim; --plan.blockDim)
    ;
  plan.share = n / plan.blockDim;
  return plan;
}

LogicalResult lowerElementwise(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  MLIRContext *ctx = func.getContext();
  Location loc = func.getLoc();
  // GM types: operands then results, in their storage precision.
  GmSignature signature = gmSignature(call);
  SmallVector<Type> &gmTypes = signature.types, &gmElements = signature.elements;
  // Bools are one byte an element in GM (0 or 1): u8 to the vector unit.
  for (auto [type, element] : llvm::zip(gmTypes, gmElements)) {
    if (!isBool(element))
      continue;
    element = IntegerType::get(ctx, 8, IntegerType::Unsigned);
    type = dv::GmType::get(ctx, cast<dv::GmType>(type).getShape(), element);
  }

  std::optional<Geometry> geometry = chooseGeometry(func, nullptr);
  if (!geometry)
    return func.emitError() << "kernel " << func.getSymName()
                            << ": no broadcast geometry (checked by the template's match)";
  const Geometry &geo = *geometry;
  bool flat = geo.split < 0;
  int64_t n = geo.rows;
  int64_t bytesPerElem = bytesPerElement(func, gmElements);
  int64_t reserve = broadcastReserve(geo);
  TilePlan plan = planElementwise(n, bytesPerElem, soc, geo, reserve);
  if (flat && plan.tile < kLanesF16)
    return func.emitError() << "kernel " << func.getSymName()
                            << ": one 128-element tile of the elementwise template needs "
                            << bytesPerElem * kLanesF16 * 2 << " UB bytes";
  if (!flat && plan.tile < 1)
    return func.emitError() << "kernel " << func.getSymName() << ": one row of " << geo.padLen
                            << " elements of the broadcast elementwise template needs "
                            << bytesPerElem * geo.padLen * 2 + reserve << " UB bytes";

  OpBuilder b(ctx);
  Block *entry = beginKernel(b, func, gmTypes, plan.blockDim, "vector");
  SmallVector<Value> gmArgs(entry->getArguments());
  SmallVector<Value> blockIndex;
  if (plan.blockDim > 1)
    blockIndex.push_back(dv::BlockIdxOp::create(b, loc, b.getIndexType()).getResult());
  // base + sum coef * index (terms with a zero coefficient left out).
  auto addr = [&](ArrayRef<std::pair<Value, int64_t>> terms, int64_t base) {
    Addr a;
    AffineExpr expr = b.getAffineConstantExpr(base);
    for (auto [value, coef] : terms) {
      if (!value || coef == 0)
        continue;
      expr = expr + b.getAffineDimExpr(a.indices.size()) * coef;
      a.indices.push_back(value);
    }
    a.map = AffineMap::get(a.indices.size(), 0, expr);
    return a;
  };
  Value bid = blockIndex.empty() ? Value() : blockIndex.front();

  int64_t T = plan.tile;
  // Rows of a slab handled by one block: a block's share, or a whole slab.
  int64_t span = geo.outer > 1 ? geo.mid : plan.share;
  int64_t fullTiles = span / T, tail = span % T;
  int64_t pairs = fullTiles / 2;
  // Row and scalar broadcast operands: one tile-shaped buffer each, filled
  // before any tile and only read after.
  SmallVector<Value> shared(func.getNumArguments());
  if (!flat) {
    Addr none = addr({}, 0);
    ElementwiseTile prologue(b, loc, func, gmArgs, none, none, none, geo, std::min(T, span),
                             shared);
    for (auto [index, arg] : llvm::enumerate(func.getArguments()))
      if (!arg.use_empty() && (geo.kinds[index] == Bcast::Row || geo.kinds[index] == Bcast::Scalar))
        shared[index] = prologue.prepareShared(gmArgs[index], geo.kinds[index]);
  }
  // Slabs: each block runs a loop over its outer / blockDim slabs.
  Value slab;
  int64_t slabsPerBlock = geo.outer > 1 ? geo.outer / plan.blockDim : 1;
  OpBuilder body = b;
  if (geo.outer > 1 && slabsPerBlock > 1) {
    auto slabLoop = dv::LoopOp::create(b, loc, slabsPerBlock);
    slab = slabLoop.getInductionVar();
    body = OpBuilder::atBlockBegin(&slabLoop.getBody().front());
  }
  // The tile at row `base` (+ iv * ivCoef) of the block's span.
  auto tileAddrs = [&](Value iv, int64_t ivCoef, int64_t base) {
    SmallVector<Addr> a;
    if (geo.outer > 1) {
      a.push_back(addr({{iv, ivCoef}, {slab, geo.mid}, {bid, slabsPerBlock * geo.mid}}, base));
      a.push_back(addr({{iv, ivCoef}}, base));
      a.push_back(addr({{slab, 1}, {bid, slabsPerBlock}}, 0));
    } else {
      a.push_back(addr({{iv, ivCoef}, {bid, plan.share}}, base));
      a.push_back(a.front());
      a.push_back(a.front());
    }
    return a;
  };
  if (pairs > 0) {
    // Two buffer sets created before the loop, so they are live for all of
    // it and never share bytes: one tile's copies can overlap the other's
    // vector work once vinci-insert-sync orders them.
    auto loop = dv::LoopOp::create(body, loc, pairs);
    OpBuilder hoist(loop);
    OpBuilder inner = OpBuilder::atBlockBegin(&loop.getBody().front());
    for (int64_t half = 0; half < 2; ++half) {
      SmallVector<Addr> a = tileAddrs(loop.getInductionVar(), 2 * T, half * T);
      ElementwiseTile(inner, loc, func, gmArgs, a[0], a[1], a[2], geo, T, shared, &hoist).emit();
    }
  }
  if (fullTiles % 2) {
    SmallVector<Addr> a = tileAddrs(Value(), 0, 2 * pairs * T);
    ElementwiseTile(body, loc, func, gmArgs, a[0], a[1], a[2], geo, T, shared).emit();
  }
  if (tail) {
    SmallVector<Addr> a = tileAddrs(Value(), 0, fullTiles * T);
    ElementwiseTile(body, loc, func, gmArgs, a[0], a[1], a[2], geo, tail, shared).emit();
  }
  return finishKernel(entry, func, call);
}


std::optional<std::string> elementwiseTemplateMismatch(func::FuncOp func) {
  if (func->getAttrOfType<StringAttr>("vinci.kernel").getValue() != "vector") {
    std::string why = elementwiseMismatch(func);
    return why.empty() ? std::string("cube kernels have no lowering template yet") : why;
  }
  return elementwiseMismatch(func);
}

} // namespace

const KernelTemplate kElementwiseTemplate = {"elementwise", elementwiseTemplateMismatch,
                                             lowerElementwise};

} // namespace vinci::lower
