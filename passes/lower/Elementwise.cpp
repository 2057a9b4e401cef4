//===- Elementwise.cpp - the elementwise Vector template ------------------===//
//
//  - elementwise (Vector): every op a float elementwise vg op whose tensor
//    operands all have the result's shape; scalar immediates (one-element
//    constants) become the scalar forms vadds/vmuls/vmaxs/vmins.
//
// Storage precision is force_fp16: graph inputs and outputs keep their type
// in GM (f32 as the model says), every other float tensor (weights,
// intermediates) is f16 in GM; the kernel computes in f16 in UB and converts
// with vconv after loading an f32 input and before storing an f32 output.
//
// Tiling: the N elements are split into block_dim contiguous equal shares
// (block_dim = the largest divisor of N that is <= min(ai cores, ceil(N /
// tile)), so no block needs a different program and no GM access leaves its
// tensor). Each block runs a dv.loop over pairs of full tiles (two buffer
// sets: ping-pong for double buffering), then at most one more full tile and
// one tail tile with a smaller copy and masked last vector repeats.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/LowerCommon.h"

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

using namespace mlir;

namespace vinci::lower {
namespace {

/// Largest elementwise tile (elements): keeps every vector instruction of a
/// tile within 255 repeats, also for 64-lane f32 conversions (8192 / 64 = 128).
constexpr int64_t kMaxTile = 8192;
/// Vector lanes of one repeat: 256 bytes of the widest element involved.
constexpr int64_t kLanesF16 = 128;
constexpr int64_t kLanesF32 = 64;


//===----------------------------------------------------------------------===//
// Elementwise template: can it lower this kernel?
//===----------------------------------------------------------------------===//

bool isSupportedFloat(Type type) { return type.isF16() || type.isF32(); }

/// Extra f16 UB buffers (beyond the result's) an op needs per element.
int64_t scratchBuffers(Operation *op) {
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case<vg::SigmoidOp>([](auto) { return 3; })
      .Case<vg::TanhOp>([](auto) { return 5; })
      .Case<vg::ClipOp, vg::SubOp, vg::DivOp>([](auto) { return 1; })
      .Default([](Operation *) { return 0; });
}

/// Why the elementwise template cannot lower `func` (empty: it can).
std::string elementwiseMismatch(func::FuncOp func) {
  auto results = func.getFunctionType().getResults();
  if (results.empty())
    return "a kernel without results has no lowering template";
  auto shape = cast<RankedTensorType>(results.front()).getShape();
  for (Type type : llvm::concat<const Type>(func.getFunctionType().getInputs(), results)) {
    auto tensor = cast<RankedTensorType>(type);
    if (!isSupportedFloat(tensor.getElementType())) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "tensors of " << tensor.getElementType()
         << " have no lowering template yet (f16/f32 only)";
      return text;
    }
  }
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    if (auto constant = dyn_cast<vg::ConstantOp>(op)) {
      if (!scalarImmediate(constant.getResult()))
        return "a constant of more than one element inside the kernel has no lowering template yet";
      continue;
    }
    bool elementwise =
        isa<vg::AddOp, vg::SubOp, vg::MulOp, vg::DivOp, vg::MaxOp, vg::MinOp, vg::ReluOp,
            vg::LeakyReluOp, vg::ExpOp, vg::LogOp, vg::SqrtOp, vg::ReciprocalOp, vg::AbsOp,
            vg::NegOp, vg::SigmoidOp, vg::TanhOp, vg::ClipOp, vg::CastOp>(op);
    if (!elementwise)
      return (opName(&op) + " has no lowering template yet").str();
    auto resultType = cast<RankedTensorType>(op.getResult(0).getType());
    if (!isSupportedFloat(resultType.getElementType()))
      return (opName(&op) + " to a non-float type has no lowering template yet").str();
    if (resultType.getShape() != shape)
      return (opName(&op) + " changes the kernel's shape: no lowering template yet").str();
    int tensors = 0;
    for (Value operand : op.getOperands()) {
      auto type = cast<RankedTensorType>(operand.getType());
      if (!isSupportedFloat(type.getElementType()))
        return (opName(&op) + " on a non-float operand has no lowering template yet").str();
      if (scalarImmediate(operand))
        continue;
      ++tensors;
      if (type.getShape() != shape)
        return (opName(&op) + " broadcasts an operand: broadcasts have no lowering template yet")
            .str();
    }
    if (tensors == 0)
      return (opName(&op) + " of two constants has no lowering template (fold it)").str();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Elementwise template: emission
//===----------------------------------------------------------------------===//

/// Emits the dv code of one tile of an elementwise kernel: `count` elements
/// starting at `offset(indices)` of every GM tensor, in UB buffers of
/// `bufElems` elements (a multiple of 128 >= count).
class ElementwiseTile {
public:
  ElementwiseTile(OpBuilder &b, Location loc, func::FuncOp func, ArrayRef<Value> gmArgs,
                  ValueRange indices, AffineMap offset, int64_t count, int64_t bufElems,
                  OpBuilder *allocBuilder = nullptr)
      : b(b), allocAt(allocBuilder ? *allocBuilder : b), loc(loc), func(func), gmArgs(gmArgs),
        indices(indices), offset(offset), count(count), bufElems(bufElems), f16(b.getF16Type()),
        f32(b.getF32Type()) {}

  void emit() {
    Block &body = func.getBody().front();
    unsigned numInputs = func.getNumArguments();
    for (auto [index, arg] : llvm::enumerate(body.getArguments()))
      if (!arg.use_empty())
        values[arg] = load(gmArgs[index]);
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
  Value alloc(Type element) {
    return dv::AllocOp::create(allocAt, loc,
                               dv::BufType::get(b.getContext(), dv::MemSpace::UB, {bufElems},
                                                element, dv::Layout::ND),
                               IntegerAttr())
        .getResult();
  }

  Value gmTile(Value gm) {
    Type element = dv::getElementType(gm.getType());
    auto type = dv::GmType::get(b.getContext(), {count}, element);
    return dv::ViewOp::create(b, loc, type, gm, indices, AffineMapAttr::get(offset)).getResult();
  }

  /// GM tile -> UB f16 (through an f32 buffer and vconv for f32 tensors).
  Value load(Value gm) {
    Type element = dv::getElementType(gm.getType());
    Value tile = gmTile(gm);
    Value raw = alloc(element);
    dv::CopyOp::create(b, loc, tile, raw, uint64_t(1), uint64_t(count * dv::elementBytes(element)));
    if (element == f16)
      return raw;
    Value half = alloc(f16);
    convert(raw, half);
    return half;
  }

  /// UB f16 -> GM tile (through vconv for f32 tensors).
  void store(Value half, Value gm) {
    Type element = dv::getElementType(gm.getType());
    Value src = half;
    if (element != f16) {
      src = alloc(element);
      convert(half, src);
    }
    dv::CopyOp::create(b, loc, src, gmTile(gm), uint64_t(1),
                       uint64_t(count * dv::elementBytes(element)));
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

  /// The lanes-active mask of a partial repeat.
  DenseI64ArrayAttr maskOf(int64_t lanes) {
    uint64_t lo = lanes >= 64 ? ~uint64_t(0) : (uint64_t(1) << lanes) - 1;
    uint64_t hi =
        lanes <= 64 ? 0 : (lanes >= 128 ? ~uint64_t(0) : (uint64_t(1) << (lanes - 64)) - 1);
    return b.getDenseI64ArrayAttr({int64_t(lo), int64_t(hi)});
  }

  /// Calls fn(operands, repeat, mask) for the full repeats over `count`
  /// elements and once more, masked, for a partial last repeat.
  void forRepeats(ArrayRef<Value> buffers, int64_t lanes,
                  function_ref<void(ArrayRef<Value>, int64_t, DenseI64ArrayAttr)> fn) {
    int64_t full = count / lanes, rest = count % lanes;
    if (full) {
      SmallVector<Value> ops;
      for (Value buf : buffers)
        ops.push_back(sub(buf, 0, bufElems));
      fn(ops, full, DenseI64ArrayAttr());
    }
    if (rest) {
      SmallVector<Value> ops;
      for (Value buf : buffers)
        ops.push_back(sub(buf, full * lanes, lanes));
      fn(ops, 1, maskOf(rest));
    }
  }

  void convert(Value src, Value dst) {
    // 64 lanes a repeat (256 bytes of f32): the f16 side advances 4 blocks.
    bool widen = dv::getElementType(dst.getType()) == f32;
    auto rep = b.getDenseI64ArrayAttr(widen ? ArrayRef<int64_t>{8, 4} : ArrayRef<int64_t>{4, 8});
    forRepeats({src, dst}, kLanesF32,
               [&](ArrayRef<Value> o, int64_t repeat, DenseI64ArrayAttr mask) {
                 dv::VConvOp::create(b, loc, o[0], o[1], dv::RoundMode::Rint, uint64_t(repeat),
                                     DenseI64ArrayAttr(), rep, mask);
               });
  }

  template <typename OpTy> Value binary(Value x, Value y) {
    Value dst = alloc(f16);
    forRepeats({x, y, dst}, kLanesF16,
               [&](ArrayRef<Value> o, int64_t repeat, DenseI64ArrayAttr mask) {
                 OpTy::create(b, loc, o[0], o[1], o[2], uint64_t(repeat), DenseI64ArrayAttr(),
                              DenseI64ArrayAttr(), mask);
               });
    return dst;
  }

  template <typename OpTy> Value scalar(Value x, double c) {
    Value dst = alloc(f16);
    Attribute attr = b.getF32FloatAttr(static_cast<float>(c));
    forRepeats({x, dst}, kLanesF16, [&](ArrayRef<Value> o, int64_t repeat, DenseI64ArrayAttr mask) {
      OpTy::create(b, loc, o[0], attr, o[1], uint64_t(repeat), DenseI64ArrayAttr(),
                   DenseI64ArrayAttr(), mask);
    });
    return dst;
  }

  template <typename OpTy> Value unary(Value x) {
    Value dst = alloc(f16);
    forRepeats({x, dst}, kLanesF16, [&](ArrayRef<Value> o, int64_t repeat, DenseI64ArrayAttr mask) {
      OpTy::create(b, loc, o[0], o[1], uint64_t(repeat), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                   mask);
    });
    return dst;
  }

  /// 1 / (1 + e^-x)
  Value sigmoid(Value x) {
    Value e = unary<dv::VExpOp>(unary<dv::VNegOp>(x));
    return unary<dv::VRecOp>(scalar<dv::VAddsOp>(e, 1.0));
  }

  Value compute(Operation *op) {
    auto in = [&](unsigned i) { return values.lookup(op->getOperand(i)); };
    // Binary ops: two tensors, or a tensor and a scalar immediate.
    if (isa<vg::AddOp, vg::SubOp, vg::MulOp, vg::DivOp, vg::MaxOp, vg::MinOp>(op)) {
      std::optional<double> lhsImm = scalarImmediate(op->getOperand(0));
      std::optional<double> rhsImm = scalarImmediate(op->getOperand(1));
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
    return llvm::TypeSwitch<Operation *, Value>(op)
        .Case<vg::ReluOp>([&](auto) { return unary<dv::VReluOp>(in(0)); })
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
        // tanh(x) = 2 * sigmoid(2x) - 1 = 2 / (1 + e^-2x) - 1: saturates
        // correctly at both ends (e^-2x -> inf gives -1, -> 0 gives 1).
        .Case<vg::TanhOp>([&](auto) {
          Value e = unary<dv::VExpOp>(scalar<dv::VMulsOp>(in(0), -2.0));
          Value s = unary<dv::VRecOp>(scalar<dv::VAddsOp>(e, 1.0));
          return scalar<dv::VAddsOp>(scalar<dv::VMulsOp>(s, 2.0), -1.0);
        })
        .Case<vg::ClipOp>([&](vg::ClipOp clip) {
          Value x = in(0);
          if (auto lo = clip.getMin())
            x = scalar<dv::VMaxsOp>(x, lo->convertToDouble());
          if (auto hi = clip.getMax())
            x = scalar<dv::VMinsOp>(x, hi->convertToDouble());
          return x;
        })
        // force_fp16: f16 <-> f32 casts are the same f16 values in UB.
        .Case<vg::CastOp>([&](auto) { return in(0); });
  }

  OpBuilder &b;
  OpBuilder &allocAt; // where buffers are created (before a loop: live for all of it)
  Location loc;
  func::FuncOp func;
  ArrayRef<Value> gmArgs;
  ValueRange indices;
  AffineMap offset;
  int64_t count, bufElems;
  Type f16, f32;
  llvm::DenseMap<Value, Value> values; // vg tensor -> UB f16 buffer
};

/// UB bytes per element of one tile's buffer set (no reuse counted).
int64_t bytesPerElement(func::FuncOp func, ArrayRef<Type> gmElements) {
  int64_t bytes = 0;
  unsigned numInputs = func.getNumArguments();
  for (auto [index, arg] : llvm::enumerate(func.getArguments()))
    if (!arg.use_empty())
      bytes += gmElements[index].isF16() ? 2 : 2 + dv::elementBytes(gmElements[index]);
  for (Operation &op : func.getBody().front())
    if (!isa<vg::ConstantOp, func::ReturnOp, vg::CastOp>(op))
      bytes += 2 * (1 + scratchBuffers(&op));
  for (unsigned i = numInputs; i < gmElements.size(); ++i)
    if (!gmElements[i].isF16())
      bytes += dv::elementBytes(gmElements[i]);
  return bytes;
}

struct TilePlan {
  int64_t tile = 0;     // elements of a full tile (multiple of 128)
  int64_t blockDim = 1; // blocks, dividing the element count
  int64_t share = 0;    // elements per block
};

TilePlan planElementwise(int64_t n, int64_t bytesPerElem, const soc::SocSpec &soc) {
  TilePlan plan;
  // Two buffer sets (ping-pong) must fit in UB together.
  int64_t perSet = static_cast<int64_t>(soc.bufferBytes(soc::Space::UB)) / 2;
  plan.tile = std::min<int64_t>(kMaxTile, perSet / bytesPerElem / kLanesF16 * kLanesF16);
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
  SmallVector<Type> gmTypes, gmElements;
  auto addGm = [&](Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    Type element = storageElementType(tensor);
    SmallVector<int64_t> shape(type.getShape());
    if (shape.empty())
      shape.push_back(1);
    gmTypes.push_back(dv::GmType::get(ctx, shape, element));
    gmElements.push_back(element);
  };
  for (Value operand : call.getOperands())
    addGm(operand);
  for (Value result : call.getResults())
    addGm(result);

  int64_t n = cast<RankedTensorType>(call.getResult(0).getType()).getNumElements();
  int64_t bytesPerElem = bytesPerElement(func, gmElements);
  TilePlan plan = planElementwise(n, bytesPerElem, soc);
  if (plan.tile < kLanesF16)
    return func.emitError() << "kernel " << func.getSymName()
                            << ": one 128-element tile of the elementwise template needs "
                            << bytesPerElem * kLanesF16 * 2 << " UB bytes";

  OpBuilder b(func);
  auto kernel = dv::KernelOp::create(b, loc, func.getSymName(), FunctionType::get(ctx, gmTypes, {}),
                                     StringAttr(), ArrayAttr(), ArrayAttr(),
                                     uint64_t(plan.blockDim), "vector");
  Block *entry = b.createBlock(&kernel.getBody());
  for (Type type : gmTypes)
    entry->addArgument(type, loc);
  SmallVector<Value> gmArgs(entry->getArguments());

  b.setInsertionPointToStart(entry);
  SmallVector<Value> blockIndex;
  if (plan.blockDim > 1)
    blockIndex.push_back(dv::BlockIdxOp::create(b, loc, b.getIndexType()).getResult());
  // offset = [iv * ivCoef +] [bid * share +] base
  auto offsetMap = [&](bool withIv, int64_t ivCoef, int64_t base) {
    unsigned dims = (withIv ? 1 : 0) + blockIndex.size();
    AffineExpr expr = b.getAffineConstantExpr(base);
    unsigned d = 0;
    if (withIv)
      expr = expr + b.getAffineDimExpr(d++) * ivCoef;
    if (!blockIndex.empty())
      expr = expr + b.getAffineDimExpr(d++) * plan.share;
    return AffineMap::get(dims, 0, expr);
  };

  int64_t T = plan.tile;
  int64_t fullTiles = plan.share / T, tail = plan.share % T;
  int64_t pairs = fullTiles / 2;
  if (pairs > 0) {
    // Two buffer sets created before the loop, so they are live for all of
    // it and never share bytes: one tile's copies can overlap the other's
    // vector work once vinci-insert-sync orders them.
    auto loop = dv::LoopOp::create(b, loc, pairs);
    OpBuilder hoist(loop);
    OpBuilder inner = OpBuilder::atBlockBegin(&loop.getBody().front());
    SmallVector<Value> indices{loop.getInductionVar()};
    indices.append(blockIndex);
    for (int64_t half = 0; half < 2; ++half)
      ElementwiseTile(inner, loc, func, gmArgs, indices, offsetMap(true, 2 * T, half * T), T, T,
                      &hoist)
          .emit();
  }
  if (fullTiles % 2)
    ElementwiseTile(b, loc, func, gmArgs, blockIndex, offsetMap(false, 0, 2 * pairs * T), T, T)
        .emit();
  if (tail)
    ElementwiseTile(b, loc, func, gmArgs, blockIndex, offsetMap(false, 0, fullTiles * T), tail,
                    roundUp(tail, kLanesF16))
        .emit();
  dv::ReturnOp::create(b, loc);

  // The graph launches the kernel on the same tensors.
  OpBuilder caller(call);
  auto launch = dv::LaunchOp::create(caller, call.getLoc(), call.getResultTypes(),
                                     func.getSymName(), call.getOperands());
  call.replaceAllUsesWith(launch.getResults());
  call.erase();
  func.erase();
  return success();
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
