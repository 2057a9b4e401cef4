//===- Epilogue.cpp - a matmul's elementwise epilogue chain ---------------===//
#include "backend/lower/Epilogue.h"

#include "backend/lower/LowerCommon.h"

#include "dv/DvOps.h"
#include "vg/VgOps.h"

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace vinci::lower {
namespace {

std::optional<EpilogueStep::Op> binaryStepOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<EpilogueStep::Op>>(op)
      .Case<vg::AddOp>([](auto) { return EpilogueStep::Add; })
      .Case<vg::SubOp>([](auto) { return EpilogueStep::Sub; })
      .Case<vg::MulOp>([](auto) { return EpilogueStep::Mul; })
      .Case<vg::DivOp>([](auto) { return EpilogueStep::Div; })
      .Case<vg::MaxOp>([](auto) { return EpilogueStep::Max; })
      .Case<vg::MinOp>([](auto) { return EpilogueStep::Min; })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<EpilogueStep::Op> unaryStepOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<EpilogueStep::Op>>(op)
      .Case<vg::ReluOp>([](auto) { return EpilogueStep::Relu; })
      .Case<vg::SigmoidOp>([](auto) { return EpilogueStep::Sigmoid; })
      .Case<vg::TanhOp>([](auto) { return EpilogueStep::Tanh; })
      .Case<vg::ExpOp>([](auto) { return EpilogueStep::Exp; })
      .Case<vg::LogOp>([](auto) { return EpilogueStep::Log; })
      .Case<vg::SqrtOp>([](auto) { return EpilogueStep::Sqrt; })
      .Case<vg::ReciprocalOp>([](auto) { return EpilogueStep::Rec; })
      .Case<vg::AbsOp>([](auto) { return EpilogueStep::Abs; })
      .Case<vg::NegOp>([](auto) { return EpilogueStep::Neg; })
      .Case<vg::LeakyReluOp>([](auto) { return EpilogueStep::LRelu; })
      .Case<vg::ClipOp>([](auto) { return EpilogueStep::Clip; })
      .Case<vg::CastOp>([](auto) { return EpilogueStep::Copy; })
      .Case<vg::GeluOp>([](auto) { return EpilogueStep::Gelu; })
      .Case<vg::HardSigmoidOp>([](auto) { return EpilogueStep::HardSigmoid; })
      .Default([](Operation *) { return std::nullopt; });
}

} // namespace

std::string classifyEpilogueStep(Operation *op, Value current, ArrayRef<int64_t> outShape,
                                 EpilogueStep &step) {
  std::string name = opName(op).str();
  if (op->getNumResults() != 1 || !llvm::is_contained(op->getOperands(), current))
    return name + " beside the matmul's epilogue chain";
  if (cast<RankedTensorType>(op->getResult(0).getType()).getShape() != outShape)
    return name + " changes the matmul's shape";
  step = EpilogueStep();
  if (std::optional<EpilogueStep::Op> unary = unaryStepOf(op)) {
    step.op = *unary;
    if (auto lrelu = dyn_cast<vg::LeakyReluOp>(op))
      step.value = lrelu.getAlpha().convertToDouble();
    if (auto hardSigmoid = dyn_cast<vg::HardSigmoidOp>(op)) {
      step.value = hardSigmoid.getAlpha().convertToDouble();
      step.value2 = hardSigmoid.getBeta().convertToDouble();
    }
    if (auto clip = dyn_cast<vg::ClipOp>(op)) {
      if (auto lo = clip.getMin()) {
        step.hasLo = true;
        step.value = lo->convertToDouble();
      }
      if (auto hi = clip.getMax()) {
        step.hasHi = true;
        step.value2 = hi->convertToDouble();
      }
    }
    return {};
  }
  std::optional<EpilogueStep::Op> binary = binaryStepOf(op);
  if (!binary)
    return name + " has no epilogue form";
  step.op = *binary;
  step.left = op->getOperand(0) != current;
  Value other = step.left ? op->getOperand(0) : op->getOperand(1);
  if (other == current)
    return name + " of the matmul's result with itself has no epilogue form";
  if (std::optional<double> imm = scalarImmediate(other)) {
    step.kind = EpilogueStep::Scalar;
    step.value = *imm;
    return {};
  }
  ArrayRef<int64_t> shape = cast<RankedTensorType>(other.getType()).getShape();
  int64_t columns = outShape.empty() ? 1 : outShape.back();
  // A matrix broadcast over the batch dims: [1.., M, N] on [B.., M, N].
  auto batchBroadcast = [&] {
    size_t rank = outShape.size();
    if (rank < 3 || shape.size() > rank || shape.size() < 2 ||
        shape.take_back(2) != outShape.take_back(2))
      return false;
    return llvm::all_of(shape.drop_back(2), [](int64_t d) { return d == 1; });
  };
  if (shape == outShape) {
    step.kind = EpilogueStep::Full;
  } else if (batchBroadcast()) {
    step.kind = EpilogueStep::Full;
    step.batchBroadcast = true;
  } else if (!shape.empty() && shape.back() == columns && product(shape) == columns)
    step.kind = EpilogueStep::Row;
  else if (product(shape) == 1)
    step.kind = EpilogueStep::Elem;
  else
    return name + " broadcasting other than a [N] row, one element or an [M, N] matrix over the "
                  "batch";
  step.other = other;
  return {};
}

void FlatTileEmitter::chunks(Value tile, int64_t elems, function_ref<void(Value, int64_t)> fn) {
  auto type = cast<dv::BufType>(tile.getType());
  Type element = type.getElementType();
  int64_t lanes = 256 / dv::elementBytes(element);
  int64_t repeats = elems / lanes;
  for (int64_t r = 0; r < repeats; r += maxRepeat) {
    int64_t n = std::min(maxRepeat, repeats - r);
    auto view = dv::BufType::get(b.getContext(), type.getSpace(), {n * lanes}, element,
                                 dv::Layout::ND);
    AffineMap at = AffineMap::get(0, 0, b.getAffineConstantExpr(r * lanes));
    fn(dv::ViewOp::create(b, loc, view, tile, ValueRange{}, AffineMapAttr::get(at)).getResult(),
       n);
  }
}

void FlatTileEmitter::binary(EpilogueStep::Op op, Value tile, Value other, bool left,
                             int64_t repeat, ArrayRef<int64_t> blk, ArrayRef<int64_t> rep) {
  // Operands in instruction order (dst, src0, src1): the strides follow them.
  Value x = left ? other : tile, y = left ? tile : other;
  auto order = [&](ArrayRef<int64_t> strides) {
    if (strides.empty())
      return DenseI64ArrayAttr();
    return b.getDenseI64ArrayAttr(left ? ArrayRef<int64_t>{strides[0], strides[1], strides[0]}
                                       : ArrayRef<int64_t>{strides[0], strides[0], strides[1]});
  };
  DenseI64ArrayAttr blkAttr = order(blk), repAttr = order(rep), none;
  auto make = [&](auto tag) {
    decltype(tag)::create(b, loc, x, y, tile, uint64_t(repeat), blkAttr, repAttr, none);
  };
  switch (op) {
  case EpilogueStep::Add: return make(dv::VAddOp());
  case EpilogueStep::Sub: return make(dv::VSubOp());
  case EpilogueStep::Mul: return make(dv::VMulOp());
  case EpilogueStep::Div: return make(dv::VDivOp());
  case EpilogueStep::Max: return make(dv::VMaxOp());
  case EpilogueStep::Min: return make(dv::VMinOp());
  default: llvm_unreachable("not a binary epilogue step");
  }
}

void FlatTileEmitter::step(const EpilogueStep &e, Value tile, int64_t elems, Value scratch) {
  if (e.kind == EpilogueStep::Scalar) {
    double c = e.value;
    switch (e.op) {
    case EpilogueStep::Add: return scalar<dv::VAddsOp>(tile, elems, c);
    case EpilogueStep::Mul: return scalar<dv::VMulsOp>(tile, elems, c);
    case EpilogueStep::Max: return scalar<dv::VMaxsOp>(tile, elems, c);
    case EpilogueStep::Min: return scalar<dv::VMinsOp>(tile, elems, c);
    case EpilogueStep::Sub: // x - c = x + (-c); c - x = -x + c
      if (e.left)
        unary<dv::VNegOp>(tile, elems);
      return scalar<dv::VAddsOp>(tile, elems, e.left ? c : -c);
    case EpilogueStep::Div: // x / c = x * (1/c); c / x = (1/x) * c
      if (e.left)
        unary<dv::VRecOp>(tile, elems);
      return scalar<dv::VMulsOp>(tile, elems, e.left ? c : 1.0 / c);
    default: llvm_unreachable("not a binary epilogue step");
    }
  }
  switch (e.op) {
  case EpilogueStep::Relu: return unary<dv::VReluOp>(tile, elems);
  case EpilogueStep::Exp: return unary<dv::VExpOp>(tile, elems);
  case EpilogueStep::Log: return unary<dv::VLnOp>(tile, elems);
  case EpilogueStep::Sqrt: return unary<dv::VSqrtOp>(tile, elems);
  case EpilogueStep::Rec: return unary<dv::VRecOp>(tile, elems);
  case EpilogueStep::Abs: return unary<dv::VAbsOp>(tile, elems);
  case EpilogueStep::Neg: return unary<dv::VNegOp>(tile, elems);
  case EpilogueStep::LRelu: return scalar<dv::VLeakyReluOp>(tile, elems, e.value);
  case EpilogueStep::Copy: return; // the tile's type is the template's
  case EpilogueStep::Clip:
    if (e.hasLo)
      scalar<dv::VMaxsOp>(tile, elems, e.value);
    if (e.hasHi)
      scalar<dv::VMinsOp>(tile, elems, e.value2);
    return;
  case EpilogueStep::HardSigmoid: // min(max(alpha x + beta, 0), 1), in place
    scalar<dv::VMulsOp>(tile, elems, e.value);
    scalar<dv::VAddsOp>(tile, elems, e.value2);
    scalar<dv::VMaxsOp>(tile, elems, 0.0);
    return scalar<dv::VMinsOp>(tile, elems, 1.0);
  case EpilogueStep::Sigmoid: // 1 / (1 + e^-x)
    unary<dv::VNegOp>(tile, elems);
    unary<dv::VExpOp>(tile, elems);
    scalar<dv::VAddsOp>(tile, elems, 1.0);
    return unary<dv::VRecOp>(tile, elems);
  case EpilogueStep::Tanh: // 2 / (1 + e^-2x) - 1
    scalar<dv::VMulsOp>(tile, elems, -2.0);
    unary<dv::VExpOp>(tile, elems);
    scalar<dv::VAddsOp>(tile, elems, 1.0);
    unary<dv::VRecOp>(tile, elems);
    scalar<dv::VMulsOp>(tile, elems, 2.0);
    return scalar<dv::VAddsOp>(tile, elems, -1.0);
  case EpilogueStep::Gelu: {
    // x * sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)): the tanh form, also for
    // approximate = "none" (within 3e-4 of the erf form). Overflow
    // saturates correctly: e^-inf -> 1 * x, e^inf -> 0.
    assert(scratch && "gelu needs a scratch tile");
    int64_t lanes = 256 / dv::elementBytes(cast<dv::BufType>(tile.getType()).getElementType());
    DenseI64ArrayAttr none;
    // Both tiles, chunk by chunk: s = x (copy), s = s * x, or x = x * s.
    enum { Copy, ScratchTimesX, XTimesScratch };
    auto both = [&](int what) {
      for (int64_t r = 0, repeats = elems / lanes; r < repeats; r += maxRepeat) {
        int64_t n = std::min(maxRepeat, repeats - r);
        auto view = [&](Value buf) {
          auto type = cast<dv::BufType>(buf.getType());
          auto flat = dv::BufType::get(b.getContext(), type.getSpace(), {n * lanes},
                                       type.getElementType(), dv::Layout::ND);
          AffineMap at = AffineMap::get(0, 0, b.getAffineConstantExpr(r * lanes));
          return dv::ViewOp::create(b, loc, flat, buf, ValueRange{}, AffineMapAttr::get(at))
              .getResult();
        };
        Value x = view(tile), s = view(scratch);
        if (what == Copy)
          dv::VCopyOp::create(b, loc, x, s, uint64_t(n), none, none, none);
        else if (what == ScratchTimesX)
          dv::VMulOp::create(b, loc, s, x, s, uint64_t(n), none, none, none);
        else
          dv::VMulOp::create(b, loc, x, s, x, uint64_t(n), none, none, none);
      }
    };
    both(Copy);                                          // s = x
    both(ScratchTimesX);                                 // s = x^2
    scalar<dv::VMulsOp>(scratch, elems, 0.044715);       // s = 0.044715 x^2
    scalar<dv::VAddsOp>(scratch, elems, 1.0);            // s = 1 + 0.044715 x^2
    both(ScratchTimesX);                                 // s = x + 0.044715 x^3
    scalar<dv::VMulsOp>(scratch, elems, -1.5957691216);  // -2 sqrt(2/pi) s
    unary<dv::VExpOp>(scratch, elems);
    scalar<dv::VAddsOp>(scratch, elems, 1.0);
    unary<dv::VRecOp>(scratch, elems);                   // sigmoid
    both(XTimesScratch);                                 // x = x * sigmoid
    return;
  }
  default: llvm_unreachable("not a unary epilogue step");
  }
}

} // namespace vinci::lower
