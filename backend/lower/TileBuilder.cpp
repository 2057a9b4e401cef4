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

void TileBuilder::loadNchwPixels(Value x, const Affine &at, int64_t channels, int64_t pixels,
                                 int64_t planeStride, Value dst, const Affine &dstAt) {
  constexpr int64_t kC0 = 16;
  dv::CopyNchw2Nc1hwc0Op::create(
      b, loc, view(x, at, (channels - 1) * planeStride + pixels),
      view(dst, dstAt * 1, {pixels, kC0}, dv::Layout::NC1HWC0), i64(channels), i64(pixels),
      i64(planeStride));
}

void TileBuilder::storeNchwPixels(Value src, Value nz, Value nz32, int64_t nt, int64_t mp, Value y,
                                  const Affine &at, int64_t channels, int64_t positions,
                                  int64_t planeStride, int64_t maxRepeat) {
  constexpr int64_t kC0 = 16, kBlock = 256;
  int64_t rowsNz = nt * kC0, elems = rowsNz * mp;
  if (nt == 1) {
    // One channel block: the NZ tile is the transposed blocks in order.
    chunks(elems, kBlock, maxRepeat, [&](int64_t off, int64_t tiles) {
      dv::VTransposeOp::create(b, loc, view(src, off, tiles * kBlock),
                               view(nz, off, tiles * kBlock), i64(tiles));
    });
  } else {
    // Block (f, j) of positions 16 f.. and channels 16 j.. goes to NZ
    // column group f, rows 16 j...
    for (int64_t f = 0; f < mp / kC0; ++f)
      for (int64_t j = 0; j < nt; ++j)
        dv::VTransposeOp::create(b, loc, view(src, Affine((j * mp + kC0 * f) * kC0), kBlock),
                                 view(nz, Affine((f * rowsNz + j * kC0) * kC0), kBlock), i64(1));
  }
  Value tile = view(nz, 0, {rowsNz, mp}, dv::Layout::NZ);
  if (dv::getElementType(y.getType()).isF32()) {
    convert(view(nz, 0, elems), view(nz32, 0, elems), elems, maxRepeat);
    tile = view(nz32, 0, {rowsNz, mp}, dv::Layout::NZ);
  }
  dv::CopyNz2NdOp::create(b, loc, tile, view(y, at, (channels - 1) * planeStride + positions),
                          uint64_t(channels), uint64_t(positions), uint64_t(planeStride),
                          uint64_t(rowsNz));
}

void TileBuilder::convert(Value src, Value dst, int64_t elems, int64_t maxRepeat) {
  bool widen = dv::getElementType(dst.getType()).isF32();
  auto rep = b.getDenseI64ArrayAttr(widen ? ArrayRef<int64_t>{8, 4} : ArrayRef<int64_t>{4, 8});
  mlir::DenseI64ArrayAttr none;
  auto round = dv::RoundModeAttr::get(b.getContext(), dv::RoundMode::Rint);
  int64_t full = elems - elems % 64;
  chunks(full, 64, maxRepeat, [&](int64_t off, int64_t n) {
    dv::VConvOp::create(b, loc, view(src, off, n * 64), view(dst, off, n * 64), round, i64(n),
                        none, rep, none);
  });
  if (int64_t tail = elems % 64) // a masked last repeat: nothing past `elems` is written
    dv::VConvOp::create(b, loc, view(src, full, 64), view(dst, full, 64), round, i64(1), none, rep,
                        b.getDenseI64ArrayAttr({int64_t((uint64_t(1) << tail) - 1), 0}));
}

} // namespace vinci::lower
