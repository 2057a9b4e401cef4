//===- LowerCommon.h - shared by the vg -> dv lowering templates -*- C++ -*-===//
//
// vinci-lower-kernels turns each outlined vg kernel into a dv.kernel with
// one of the templates below; this header is what they share: the storage
// precision rule, scalar immediates, and the template interface. A template
// lives in its own file (backend/lower/<Name>.cpp) and is listed once in
// LowerKernels.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_LOWER_LOWERCOMMON_H
#define VINCI_BACKEND_LOWER_LOWERCOMMON_H

#include "passes/Precision.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <optional>
#include <string>

namespace vinci::soc {
struct SocSpec;
}

namespace vinci::lower {

/// One way of lowering a kind of kernel.
struct KernelTemplate {
  const char *name;
  /// nullopt: the kernel is not of this template's kind; "": the template
  /// lowers it; otherwise why it cannot (shown when no template lowers it).
  std::optional<std::string> (*mismatch)(mlir::func::FuncOp kernel);
  /// Replaces `kernel` and its single `call` with a dv.kernel and dv.launch.
  mlir::LogicalResult (*lower)(mlir::func::FuncOp kernel, mlir::func::CallOp call,
                               const soc::SocSpec &soc);
  /// KernelCapabilities::nc1hwc0Classes for a kernel this template lowers;
  /// null: every argument ND only.
  llvm::SmallVector<int> (*nc1hwc0Classes)(mlir::func::FuncOp kernel) = nullptr;
};

/// The templates, defined in their own files.
extern const KernelTemplate kDepthwiseTemplate;   // Depthwise.cpp: depthwise conv, Vector unit
extern const KernelTemplate kConvTemplate;        // Conv.cpp: conv on the Cube (load_3d)
extern const KernelTemplate kPoolTemplate;        // Pool.cpp: max / average pools in UB
extern const KernelTemplate kVectorMatmulTemplate; // VectorMatmul.cpp: fp32 matmul, Vector unit
extern const KernelTemplate kMatmulTemplate;      // Matmul.cpp: Cube matmul + epilogue
extern const KernelTemplate kRowsTemplate;        // Rows.cpp: softmax, norms, reductions
extern const KernelTemplate kTransposeTemplate;   // Transpose.cpp: row-moving transposes
extern const KernelTemplate kDataMovementTemplate; // DataMovement.cpp: slice, split, concat
extern const KernelTemplate kGatherTemplate;      // Gather.cpp: indexed row copies
extern const KernelTemplate kPadTemplate;         // Pad.cpp: constant pads of the last two dims
extern const KernelTemplate kElementwiseTemplate; // Elementwise.cpp: with broadcasts
extern const KernelTemplate kAippTemplate;        // Aipp.cpp: static AIPP (image preprocessing)

/// Whether the Vector matmul template (VectorMatmul.cpp) lowers the Cube-kind
/// `kernel` launched by `call`: an fp32 matmul that keeps its type, which
/// the 310P Cube cannot take. The task estimates ask it.
bool matmulRunsOnVector(mlir::func::FuncOp kernel, mlir::func::CallOp call);

/// Whether the depthwise template (Depthwise.cpp) lowers the Cube-kind
/// `kernel`: a depthwise conv, which runs on the Vector unit. The task
/// estimates ask it.
bool depthwiseRunsOnVector(mlir::func::FuncOp kernel);

int64_t roundUp(int64_t value, int64_t multiple);
/// The number of elements of a shape.
int64_t product(llvm::ArrayRef<int64_t> dims);
/// The one call of an outlined kernel in the graph (null if there is not
/// exactly one).
mlir::func::CallOp soleCall(mlir::func::FuncOp kernel);
/// Turns `constant`, which the partition cloned into `kernel`, into a new
/// last argument: the graph clones it before `call` and passes it, so it is
/// stored in GM like a weight.
void hoistConstantToArgument(mlir::func::FuncOp kernel, mlir::func::CallOp call,
                             mlir::Operation *constant);

/// A kernel's GM arguments: the call's operands then its results, each as
/// a !dv.gm of its storage element type (a scalar tensor as one element).
struct GmSignature {
  llvm::SmallVector<mlir::Type> types;
  llvm::SmallVector<mlir::Type> elements;
};
GmSignature gmSignature(mlir::func::CallOp call);

/// Emits nested dv.loops with the given trip counts at `b` and calls
/// `body` inside with one induction variable per trip count; a trip count
/// of 1 (or 0) makes no loop and passes a null value, which an affine
/// offset term then drops.
void emitLoopNest(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<int64_t> trips,
                  llvm::function_ref<void(llvm::ArrayRef<mlir::Value>)> body);

/// Creates the dv.kernel that replaces `func` (same name, one GM argument
/// per type) and puts `b` at the start of its body; returns the body.
mlir::Block *beginKernel(mlir::OpBuilder &b, mlir::func::FuncOp func,
                         llvm::ArrayRef<mlir::Type> gmTypes, int64_t blockDim,
                         llvm::StringRef kind);
/// Ends the kernel body with dv.return, replaces `call` with a dv.launch of
/// the kernel on the same tensors, and erases `call` and `func`.
mlir::LogicalResult finishKernel(mlir::Block *body, mlir::func::FuncOp func,
                                 mlir::func::CallOp call);

/// How vg.softmax is protected in reduced precision: the module attributes
/// the driver sets (vinci.softmax_clip from --softmax_clip; and
/// vinci.softmax_unprotected when the SoftmaxProtection switch is off). The
/// shifted logits are clipped to [-clip, 0] before exp.
struct SoftmaxSafety {
  bool protect = true;
  double clip = 50.0;
};
SoftmaxSafety softmaxSafetyOf(mlir::func::FuncOp kernel);

/// Whether `op` is a vg.constant (a kernel's immediate or tensor constant).
bool isConstantOp(mlir::Operation *op);
/// The kernel's one op, of type OpTy, when its body holds nothing else but
/// the return (and constants, with `skipConstants`); null otherwise.
template <typename OpTy>
OpTy soleOp(mlir::func::FuncOp kernel, bool skipConstants = false) {
  OpTy found;
  for (mlir::Operation &op : kernel.getBody().front()) {
    if (mlir::isa<mlir::func::ReturnOp>(op) ||
        (skipConstants && isConstantOp(&op)))
      continue;
    auto candidate = mlir::dyn_cast<OpTy>(op);
    if (!candidate || found)
      return {};
    found = candidate;
  }
  return found;
}

/// A one-element float constant's value (a scalar immediate).
std::optional<double> scalarImmediate(mlir::Value value);
llvm::StringRef opName(mlir::Operation *op);

/// Affine offsets over the dv.loop induction variables (and the block
/// index) in scope, for the templates that emit loop nests: dim() names a
/// value, loop() opens a dv.loop and moves the insertion point into it, and
/// the loops opened within a Scope end with it.
class AffineLoops {
public:
  AffineLoops(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  struct Scope {
    explicit Scope(AffineLoops &e) : e(e), guard(e.b), depth(e.dims.size()) {}
    ~Scope() { e.dims.resize(depth); }
    AffineLoops &e;
    mlir::OpBuilder::InsertionGuard guard;
    size_t depth;
  };

  mlir::AffineExpr dim(mlir::Value v);
  mlir::AffineExpr constant(int64_t c) { return b.getAffineConstantExpr(c); }
  /// A loop of `trips` (none for one trip); its iv's expression.
  mlir::AffineExpr loop(int64_t trips);

  mlir::OpBuilder &b;
  mlir::Location loc;
  llvm::SmallVector<mlir::Value> dims; // the block index and loop ivs in scope
};

/// The mask of a vector repeat whose first `lanes` (<= 128) lanes are
/// active.
mlir::DenseI64ArrayAttr prefixMask(mlir::Builder &b, int64_t lanes);

} // namespace vinci::lower

#endif // VINCI_BACKEND_LOWER_LOWERCOMMON_H
