//===- Address.cpp - the ISA operand address of a dv buffer ---------------===//
#include "vinci/backend/Address.h"

#include <functional>

#include "dv/DvOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/SmallVector.h"

namespace vinci::backend {

using namespace mlir;

LogicalResult resolveAddress(Operation *kernel, Operation *user, Value buffer,
                             OperandAddress &out, Operation *&where, std::string &message) {
  auto fail = [&](Operation *at, const Twine &text) {
    where = at;
    message = text.str();
    return failure();
  };
  if (auto arg = dyn_cast<BlockArgument>(buffer)) {
    if (arg.getOwner()->getParentOp() != kernel)
      return fail(user, "operand is a block argument that is not a kernel argument");
    out = OperandAddress{};
    out.space = uint8_t(dv::MemSpace::GM);
    out.arg = uint8_t(arg.getArgNumber());
    out.root = buffer;
    return success();
  }
  Operation *def = buffer.getDefiningOp();
  if (auto alloc = dyn_cast<dv::AllocOp>(def)) {
    std::optional<int64_t> offset = alloc.getOffset();
    if (!offset)
      return fail(alloc, "has no offset (used by '" + user->getName().getStringRef() +
                             "'): run the buffer allocation pass first");
    out = OperandAddress{};
    out.space = uint8_t(dv::getSpace(alloc.getType()));
    out.base = *offset;
    out.root = buffer;
    return success();
  }
  auto view = dyn_cast<dv::ViewOp>(def);
  if (!view)
    return fail(user, "operand must be a kernel argument, a dv.alloc or a dv.view, got '" +
                          def->getName().getStringRef() + "'");
  if (failed(resolveAddress(kernel, user, view.getSource(), out, where, message)))
    return failure();

  // The offset map in elements: base + sum c * index, with block_idx also as
  // (block_idx mod G) and (block_idx floordiv G). The verifier accepts only
  // that form; anything else is reported here too.
  const int64_t es = dv::elementBytes(dv::getElementType(view.getSource().getType()));
  AffineMap map = view.getMap();
  if (map.getNumResults() != 1)
    return fail(view, "offset map must have one result");
  SmallVector<Value> indices(view.getIndices());
  // Index kinds: loop depth (0..3), or -1 for block_idx.
  SmallVector<int> depthOf;
  for (Value index : indices) {
    if (auto arg = dyn_cast<BlockArgument>(index))
      if (auto loop = dyn_cast<dv::LoopOp>(arg.getOwner()->getParentOp())) {
        unsigned d = loop.getDepth();
        if (d >= kAddressLoopDepth)
          return fail(view, "index of a loop nested deeper than the ISA's 4");
        depthOf.push_back(int(d));
        continue;
      }
    if (index.getDefiningOp<dv::BlockIdxOp>()) {
      depthOf.push_back(-1);
      continue;
    }
    return fail(view, "indices must be dv.loop induction variables or dv.block_idx");
  }
  std::string why;
  std::function<bool(AffineExpr, int64_t)> add = [&](AffineExpr e, int64_t scale) -> bool {
    if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      out.base += scale * c.getValue() * es;
      return true;
    }
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      int depth = depthOf[d.getPosition()];
      (depth < 0 ? out.blockWhole : out.iv[depth]) += scale * es;
      return true;
    }
    auto bin = dyn_cast<AffineBinaryOpExpr>(e);
    if (!bin) {
      why = "offset uses a symbol";
      return false;
    }
    AffineExpr lhs = bin.getLHS(), rhs = bin.getRHS();
    switch (e.getKind()) {
    case AffineExprKind::Add:
      return add(lhs, scale) && add(rhs, scale);
    case AffineExprKind::Mul:
      if (auto c = dyn_cast<AffineConstantExpr>(rhs)) return add(lhs, scale * c.getValue());
      if (auto c = dyn_cast<AffineConstantExpr>(lhs)) return add(rhs, scale * c.getValue());
      why = "offset multiplies two indices";
      return false;
    case AffineExprKind::Mod:
    case AffineExprKind::FloorDiv: {
      auto d = dyn_cast<AffineDimExpr>(lhs);
      auto c = dyn_cast<AffineConstantExpr>(rhs);
      if (!d || !c || c.getValue() <= 0 || depthOf[d.getPosition()] >= 0) {
        why = "mod/floordiv only of block_idx by a positive constant";
        return false;
      }
      if (out.split && out.split != c.getValue()) {
        why = "block split G = " + std::to_string(c.getValue()) + " differs from G = " +
              std::to_string(out.split) +
              " of the view's source: the ISA has one G per operand";
        return false;
      }
      out.split = c.getValue();
      (e.getKind() == AffineExprKind::Mod ? out.blockMod : out.blockDiv) += scale * es;
      return true;
    }
    default:
      why = "offset is not base + sum c * index";
      return false;
    }
  };
  if (!add(map.getResult(0), 1))
    return fail(view, why);
  return success();
}

}  // namespace vinci::backend
