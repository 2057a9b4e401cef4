//===- TileBuilder.cpp - affine offsets and buffer views for templates ----===//
#include "backend/lower/TileBuilder.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace vinci::lower {

Affine Affine::of(Value index, int64_t coef) {
  Affine a;
  if (index && coef)
    a.terms.push_back({index, coef, Term::Whole, 0});
  return a;
}

Affine Affine::mod(Value index, int64_t divisor, int64_t coef) {
  Affine a;
  if (index && coef)
    a.terms.push_back({index, coef, Term::Mod, divisor});
  return a;
}

Affine Affine::floorDiv(Value index, int64_t divisor, int64_t coef) {
  Affine a;
  if (index && coef)
    a.terms.push_back({index, coef, Term::FloorDiv, divisor});
  return a;
}

Affine Affine::operator+(const Affine &o) const {
  Affine r = *this;
  r.c += o.c;
  for (const Term &t : o.terms) {
    auto it = llvm::find_if(r.terms, [&](const Term &u) { return u.sameAtom(t); });
    if (it != r.terms.end())
      it->coef += t.coef;
    else
      r.terms.push_back(t);
  }
  llvm::erase_if(r.terms, [](const Term &t) { return t.coef == 0; });
  return r;
}

Affine Affine::operator*(int64_t s) const {
  Affine r;
  r.c = c * s;
  for (Term t : terms) {
    t.coef *= s;
    if (t.coef)
      r.terms.push_back(t);
  }
  return r;
}

Value TileBuilder::alloc(dv::MemSpace space, int64_t elems, Type element) {
  return alloc(space, {elems}, element, dv::Layout::ND);
}

Value TileBuilder::alloc(dv::MemSpace space, ArrayRef<int64_t> shape, Type element,
                         dv::Layout layout) {
  auto type = dv::BufType::get(b.getContext(), space, shape, element, layout);
  return dv::AllocOp::create(b, loc, type, IntegerAttr()).getResult();
}

AffineMapAttr TileBuilder::mapOf(const Affine &a, SmallVectorImpl<Value> &indices) {
  AffineExpr expr = b.getAffineConstantExpr(a.c);
  for (const Affine::Term &t : a.terms) {
    unsigned dim = indices.size();
    auto found = llvm::find(indices, t.index);
    if (found != indices.end())
      dim = unsigned(found - indices.begin());
    else
      indices.push_back(t.index);
    AffineExpr atom = b.getAffineDimExpr(dim);
    if (t.kind == Affine::Term::Mod)
      atom = atom % t.divisor;
    else if (t.kind == Affine::Term::FloorDiv)
      atom = atom.floorDiv(t.divisor);
    expr = expr + atom * t.coef;
  }
  return AffineMapAttr::get(AffineMap::get(indices.size(), 0, expr));
}

Value TileBuilder::view(Value buf, const Affine &offset, int64_t elems) {
  Type element = dv::getElementType(buf.getType());
  Type type = isa<dv::GmType>(buf.getType())
                  ? Type(dv::GmType::get(b.getContext(), {elems}, element))
                  : Type(dv::BufType::get(b.getContext(), dv::getSpace(buf.getType()), {elems},
                                          element, dv::Layout::ND));
  if (type == buf.getType() && offset.c == 0 && offset.terms.empty())
    return buf;
  SmallVector<Value> indices;
  AffineMapAttr map = mapOf(offset, indices);
  return dv::ViewOp::create(b, loc, type, buf, indices, map).getResult();
}

Value TileBuilder::view(Value buf, const Affine &offset, ArrayRef<int64_t> shape,
                        dv::Layout layout) {
  auto type = dv::BufType::get(b.getContext(), dv::getSpace(buf.getType()), shape,
                               dv::getElementType(buf.getType()), layout);
  if (Type(type) == buf.getType() && offset.c == 0 && offset.terms.empty())
    return buf;
  SmallVector<Value> indices;
  AffineMapAttr map = mapOf(offset, indices);
  return dv::ViewOp::create(b, loc, type, buf, indices, map).getResult();
}

void TileBuilder::loop(int64_t trip, bool unroll, function_ref<void(Affine)> body) {
  if (trip <= 0)
    return;
  if (trip == 1)
    return body(Affine());
  if (unroll) {
    for (int64_t i = 0; i < trip; ++i)
      body(Affine(i));
    return;
  }
  auto loopOp = dv::LoopOp::create(b, loc, trip);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&loopOp.getBody().front());
  body(Affine::of(loopOp.getInductionVar(), 1));
}

void TileBuilder::chunks(int64_t elems, int64_t lanes, int64_t maxRepeat,
                         function_ref<void(int64_t, int64_t)> fn) {
  int64_t repeats = (elems + lanes - 1) / lanes;
  for (int64_t r = 0; r < repeats; r += maxRepeat)
    fn(r * lanes, std::min(maxRepeat, repeats - r));
}

} // namespace vinci::lower
