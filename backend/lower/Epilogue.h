//===- Epilogue.h - a matmul's elementwise epilogue chain -------*- C++ -*-===//
//
// The Cube matmul template (Matmul.cpp) and the Vector one (VectorMatmul.cpp)
// both apply the chain of elementwise ops the partition fused after a matmul
// to its output tile in UB. This is what they share: which op a step of the
// chain is, and the vector instructions of a step; each template lays out
// its tile (NZ or ND) and reads the GM operands of Row/Elem/Full steps.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_LOWER_EPILOGUE_H
#define VINCI_BACKEND_LOWER_EPILOGUE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

#include <string>

namespace vinci::lower {

/// One elementwise step of a matmul's epilogue chain.
struct EpilogueStep {
  /// Unary: `op` on the tile; Scalar: `op` with the immediate `value`
  /// (`left`: the immediate is the left operand); Row: with a [N] row of
  /// `other` broadcast over the rows; Elem: with a one-element `other`;
  /// Full: with an `other` of the output's shape.
  enum Kind { Unary, Scalar, Row, Elem, Full } kind = Unary;
  enum Op { Add, Sub, Mul, Div, Max, Min, Relu, Sigmoid, Tanh, Exp, Log, Sqrt, Rec, Abs, Neg,
            LRelu, Clip, Copy, Gelu, HardSigmoid } op = Copy;
  mlir::Value other;            // Row / Elem / Full: the other operand
  unsigned arg = 0;             // ... as the kernel argument the template assigns
  double value = 0, value2 = 0; // scalar; leaky relu alpha; clip bounds; hard sigmoid alpha, beta
  bool left = false;            // the tile is the right operand (sub, div)
  /// Full: `other` is one [M, N] matrix for every batch (its leading dims
  /// are 1: GPT-2's [1, 1, S, S] causal mask on [1, H, S, S] scores).
  bool batchBroadcast = false;
  bool hasLo = false, hasHi = false;
};

/// Classifies `op`, the chain's next op, which consumes `current` (the
/// chain so far, of shape `outShape`): "" and `step` when it is an
/// elementwise op a step can be (a Row/Elem/Full step's `other` still to be
/// checked by the template: where it lives and its type), else why not.
std::string classifyEpilogueStep(mlir::Operation *op, mlir::Value current,
                                 llvm::ArrayRef<int64_t> outShape, EpilogueStep &step);

/// Emits the vector instructions of steps on a tile in UB whose `elems`
/// elements are contiguous (a multiple of one repeat), `maxRepeat` repeats
/// an instruction at most.
class FlatTileEmitter {
public:
  FlatTileEmitter(mlir::OpBuilder &b, mlir::Location loc, int64_t maxRepeat)
      : b(b), loc(loc), maxRepeat(maxRepeat) {}

  /// A Unary or Scalar step in place. Gelu needs `scratch`, a buffer of the
  /// tile's size and type.
  void step(const EpilogueStep &step, mlir::Value tile, int64_t elems,
            mlir::Value scratch = mlir::Value());

  template <typename OpTy> void unary(mlir::Value tile, int64_t elems) {
    mlir::DenseI64ArrayAttr none;
    chunks(tile, elems, [&](mlir::Value v, int64_t repeat) {
      OpTy::create(b, loc, v, v, uint64_t(repeat), none, none, none);
    });
  }
  template <typename OpTy> void scalar(mlir::Value tile, int64_t elems, double c) {
    mlir::DenseI64ArrayAttr none;
    chunks(tile, elems, [&](mlir::Value v, int64_t repeat) {
      OpTy::create(b, loc, v, b.getF32FloatAttr(float(c)), v, uint64_t(repeat), none, none, none);
    });
  }
  /// dst = x op y over `tile` (dst and x, or y when `left`) and `other`,
  /// with block and repeat strides listed as (tile, other), or none.
  void binary(EpilogueStep::Op op, mlir::Value tile, mlir::Value other, bool left,
              int64_t repeat, llvm::ArrayRef<int64_t> blk = {}, llvm::ArrayRef<int64_t> rep = {});

private:
  /// fn(view, repeats) over `elems` elements of `tile` in chunks of at most
  /// maxRepeat repeats (a repeat is 256 bytes).
  void chunks(mlir::Value tile, int64_t elems,
              llvm::function_ref<void(mlir::Value, int64_t)> fn);

  mlir::OpBuilder &b;
  mlir::Location loc;
  int64_t maxRepeat;
};

} // namespace vinci::lower

#endif // VINCI_BACKEND_LOWER_EPILOGUE_H
