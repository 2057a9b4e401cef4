//===- Analysis.cpp - a row kernel as rows of columns ---------------------===//
//
// Part of the row template (backend/lower/Rows.cpp): which kernels it takes
// and the op as R rows of C elements, or [R, cols, inner] slabs in column
// mode, with the reason for every kernel it does not take.
//
//===----------------------------------------------------------------------===//
#include "backend/lower/rows/RowKernel.h"

#include "vg/VgOps.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

namespace vinci::lower::rows {
namespace {

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

/// Rows of the trailing dims from `axis`: fills op.rows / op.cols.
void splitAt(RowOp &op, ArrayRef<int64_t> shape, int64_t axis) {
  op.cols = product(shape.drop_front(axis));
  op.rows = product(shape.take_front(axis));
}

/// The operand of a prologue op that continues the chain back to the
/// kernel's input (a prologue op's result, or an argument of the logits'
/// shape), and the other one; nulls when neither does.
std::pair<Value, Value> chainAndOperand(Operation *op, ArrayRef<int64_t> logits) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  auto continues = [&](Value v) {
    if (Operation *def = v.getDefiningOp())
      return !isConstantOp(def);
    return cast<RankedTensorType>(v.getType()).getShape() == logits;
  };
  bool commutes = isa<vg::MulOp, vg::AddOp>(op);
  // A computed value continues the chain before an argument does.
  if (commutes && !lhs.getDefiningOp() && rhs.getDefiningOp() && continues(rhs))
    return {rhs, lhs};
  if (continues(lhs))
    return {lhs, rhs};
  if (commutes && continues(rhs))
    return {rhs, lhs};
  return {};
}

/// plan.prologue and plan.input: the steps from a kernel argument to the
/// softmax's logits, each a mul / div / add / sub by a scalar immediate, a
/// tensor of the logits' shape or (row mode) one row of C elements.
std::string analysePrologue(RowOp &plan) {
  StringRef name = opName(plan.anchor);
  auto logits = cast<RankedTensorType>(plan.anchor->getOperand(0).getType());
  int64_t total = logits.getNumElements();
  SmallVector<PrologueStep, 2> reversed;
  Value v = plan.anchor->getOperand(0);
  while (Operation *def = v.getDefiningOp()) {
    using Op = PrologueStep::Op;
    std::optional<Op> kind = llvm::TypeSwitch<Operation *, std::optional<Op>>(def)
                                 .Case([](vg::MulOp) { return Op::Mul; })
                                 .Case([](vg::AddOp) { return Op::Add; })
                                 .Case([](vg::DivOp) { return Op::Div; })
                                 .Case([](vg::SubOp) { return Op::Sub; })
                                 .Default([](Operation *) { return std::nullopt; });
    if (!kind)
      return (opName(def) + " before a " + name +
              " has no prologue form (a mul, div, add or sub by a scalar, a row of the last "
              "dim or a tensor of the logits' shape)")
          .str();
    auto [chain, other] = chainAndOperand(def, logits.getShape());
    if (!chain || cast<RankedTensorType>(def->getResult(0).getType()).getShape() !=
                      logits.getShape())
      return (opName(def) + " before a " + name + ": the logits " + typeText(logits) +
              " must flow through its first operand (or either, for mul and add) unbroadcast")
          .str();
    PrologueStep step{*kind, PrologueStep::Form::Scalar};
    auto type = cast<RankedTensorType>(other.getType());
    if (std::optional<double> c = scalarImmediate(other)) {
      step.scalar = *c;
    } else if (!isa<BlockArgument>(other) || !isSupportedFloat(type.getElementType())) {
      return (opName(def) + " before a " + name + ": an operand " + typeText(type) +
              " computed in the kernel, or not f16/f32, has no prologue form")
          .str();
    } else if (type.getNumElements() == total) {
      step.form = PrologueStep::Form::Full;
    } else if (!plan.columns && type.getRank() > 0 && type.getShape().back() == plan.cols &&
               type.getNumElements() == plan.cols) {
      step.form = PrologueStep::Form::Row;
    } else {
      return (opName(def) + " before a " + name + ": an operand " + typeText(type) +
              " broadcast over the logits " + typeText(logits) +
              " has no prologue form yet (a scalar constant, a row of the last dim in row "
              "mode, or the logits' shape)")
          .str();
    }
    if (readsTensor(step))
      step.operand = other;
    reversed.push_back(step);
    v = chain;
  }
  plan.input = v;
  plan.prologue.assign(reversed.rbegin(), reversed.rend());
  return std::string();
}

} // namespace

std::optional<std::string> analyse(func::FuncOp func, RowOp &plan) {
  Operation *anchor = findAnchor(func);
  if (!anchor)
    return std::nullopt;
  plan.anchor = anchor;
  StringRef name = opName(anchor);
  if (func->getAttrOfType<StringAttr>("vinci.kernel").getValue() != "vector")
    return (name + " in a cube kernel has no lowering template").str();
  // Only a softmax has a prologue: the ops before it (and their immediates).
  bool softmaxKind = isa<vg::SoftmaxOp, vg::LogSoftmaxOp>(anchor);
  for (Operation &op : func.getBody().front()) {
    if (&op == anchor || isa<func::ReturnOp>(op) || isConstantOp(&op) ||
        (softmaxKind && op.isBeforeInBlock(anchor)))
      continue;
    return (opName(&op) + " in a row kernel (with " + name +
            ") has no lowering template yet: one row op a kernel, ending it" +
            (op.isBeforeInBlock(anchor) ? "; only a softmax takes a prologue" : ""))
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
    if (!isa<BlockArgument>(v) && !softmaxKind)
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
  if (softmaxKind)
    return analysePrologue(plan);
  return std::string();
}

} // namespace vinci::lower::rows
