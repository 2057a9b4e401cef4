//===- TileBuilder.h - affine offsets and buffer views for templates -*- C++ -*-===//
//
// What a template needs to address tiles: affine element offsets over loop
// induction variables and block_idx (the ISA's operand form), dv.view of a
// GM or on-chip buffer at such an offset, dv.alloc, and loops that become
// static copies when the ISA's four loop levels are used up. The conv
// family (Conv.cpp, Depthwise.cpp, Pool.cpp) builds on it.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_LOWER_TILEBUILDER_H
#define VINCI_BACKEND_LOWER_TILEBUILDER_H

#include "dv/DvOps.h"

#include "mlir/IR/Builders.h"

#include <functional>

namespace vinci::lower {

/// An affine element offset: c + sum coef * index (an index is a dv.loop
/// induction variable or dv.block_idx; a null index stands for 0).
struct Affine {
  /// coef * index, coef * (index mod divisor) or coef * (index floordiv
  /// divisor) (the last two for block_idx on a 2-D block grid).
  struct Term {
    mlir::Value index;
    int64_t coef;
    enum Kind { Whole, Mod, FloorDiv } kind = Whole;
    int64_t divisor = 0;
    bool sameAtom(const Term &o) const {
      return index == o.index && kind == o.kind && divisor == o.divisor;
    }
  };
  int64_t c = 0;
  llvm::SmallVector<Term, 4> terms;

  Affine() = default;
  Affine(int64_t c) : c(c) {}
  static Affine of(mlir::Value index, int64_t coef);
  static Affine mod(mlir::Value index, int64_t divisor, int64_t coef);
  static Affine floorDiv(mlir::Value index, int64_t divisor, int64_t coef);
  Affine operator+(const Affine &o) const;
  Affine operator*(int64_t s) const;
};

/// Builds dv ops for one kernel body at a builder's insertion point.
class TileBuilder {
public:
  TileBuilder(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::OpBuilder &builder() { return b; }
  mlir::Location location() { return loc; }
  mlir::IntegerAttr i64(int64_t v) { return b.getI64IntegerAttr(v); }

  /// An unplaced on-chip buffer of `elems` elements (ND) or of `shape`.
  mlir::Value alloc(dv::MemSpace space, int64_t elems, mlir::Type element);
  mlir::Value alloc(dv::MemSpace space, llvm::ArrayRef<int64_t> shape, mlir::Type element,
                    dv::Layout layout);
  /// A view of `elems` elements of `buf` (GM or on-chip) at `offset`.
  mlir::Value view(mlir::Value buf, const Affine &offset, int64_t elems);
  /// The same with a shaped on-chip type (layout as given).
  mlir::Value view(mlir::Value buf, const Affine &offset, llvm::ArrayRef<int64_t> shape,
                   dv::Layout layout);

  /// A dv.loop of `trip` iterations whose body is `body(iv)`; a trip of 1
  /// calls the body once with a null index. With `unroll` (no loop level
  /// left) the body is emitted `trip` times with constant offsets.
  void loop(int64_t trip, bool unroll, llvm::function_ref<void(Affine)> body);

  /// `fn(offset, repeats)` over `elems` elements of `lanes` a repeat, at
  /// most `maxRepeat` repeats a call.
  static void chunks(int64_t elems, int64_t lanes, int64_t maxRepeat,
                     llvm::function_ref<void(int64_t, int64_t)> fn);

  //===--------------------------------------------------------------------===//
  // NCHW activations in GM and NC1HWC0 pixels on chip (the conv family:
  // Conv.cpp, Depthwise.cpp and Pool.cpp load and store through these)
  //===--------------------------------------------------------------------===//

  /// `pixels` consecutive positions of `channels` (<= 16) NCHW planes,
  /// `planeStride` elements apart, from element `at` of GM `x`, into
  /// on-chip `dst` from element `dstAt` as NC1HWC0 pixels of 16 channels
  /// (copy_nchw2nc1hwc0; the lanes above `channels` zero). The element
  /// types of `x` and `dst` are the same (an f32 source goes through UB).
  void loadNchwPixels(mlir::Value x, const Affine &at, int64_t channels, int64_t pixels,
                      int64_t planeStride, mlir::Value dst, const Affine &dstAt);

  /// Stores the f16 NC1HWC0 tile [nt][mp][16] of UB `src` (mp positions, a
  /// multiple of 16) as `channels` NCHW planes of `positions` elements from
  /// element `at` of GM `y`, planes `planeStride` apart: each 16 x 16 block
  /// is transposed (vtranspose) into `nz` (of src's size) as the NZ tile of
  /// [nt * 16 channels][mp positions], widened into `nz32` when `y` is f32,
  /// then copy_nz2nd.
  void storeNchwPixels(mlir::Value src, mlir::Value nz, mlir::Value nz32, int64_t nt, int64_t mp,
                       mlir::Value y, const Affine &at, int64_t channels, int64_t positions,
                       int64_t planeStride, int64_t maxRepeat);

  /// dst = src converted (vconv, 64 lanes a repeat) over `elems` elements,
  /// f16 <-> f32 (a partial last repeat masked; both views reach a whole
  /// repeat).
  void convert(mlir::Value src, mlir::Value dst, int64_t elems, int64_t maxRepeat);

private:
  mlir::AffineMapAttr mapOf(const Affine &a, llvm::SmallVectorImpl<mlir::Value> &indices);

  mlir::OpBuilder &b;
  mlir::Location loc;
};

} // namespace vinci::lower

#endif // VINCI_BACKEND_LOWER_TILEBUILDER_H
