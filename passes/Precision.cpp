//===- Precision.cpp - which tensors keep their float type ----------------===//
#include "passes/Precision.h"

#include "passes/KernelRules.h"
#include "vg/VgOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace vinci {

/// Whether any op of an outlined kernel's body carries vinci.keep_dtype
/// (--keep_dtype names model nodes; the partition clones them, attribute
/// and all, into the kernel, so a kernel keeps its types when one of its
/// ops is kept).
static bool kernelBodyKeepsDtype(func::FuncOp kernel) {
  if (!kernel || kernel.isExternal())
    return false;
  return kernel.walk([](Operation *inner) {
                 return inner->hasAttr(kKeepDtypeAttr) ? WalkResult::interrupt()
                                                       : WalkResult::advance();
               })
      .wasInterrupted();
}

/// The outlined kernel `call` launches. Not a symbol-table lookup: while a
/// template lowers a kernel, its dv.kernel and its func share the name.
static func::FuncOp calledKernel(ModuleOp module, func::CallOp call) {
  if (module)
    for (auto kernel : module.getOps<func::FuncOp>())
      if (kernel.getSymName() == call.getCallee())
        return kernel;
  return {};
}

/// allow_fp32_to_fp16 (ATC: an op keeps fp32 where its unit takes fp32,
/// else fp16): on the 310P every kernel but a Cube one keeps its types.
static bool keepsUnderFp32ToFp16(Operation *op, ModuleOp module) {
  auto isVector = [](func::FuncOp kernel) {
    auto kind = kernel ? kernel->getAttrOfType<StringAttr>("vinci.kernel") : StringAttr();
    return kind && kind.getValue() != "cube";
  };
  if (auto kernel = dyn_cast<func::FuncOp>(op))
    return isVector(kernel);
  if (auto call = dyn_cast<func::CallOp>(op))
    return isVector(calledKernel(module, call));
  // A weight follows the kernels that read it (storageElementType).
  return op->getDialect() && op->getDialect()->getNamespace() == "vg" &&
         !isa<vg::ConstantOp>(op) && classifyOp(op) != OpRole::Cube;
}

bool keepsOriginDtype(Operation *op) {
  if (!op)
    return false;
  if (op->hasAttr(kKeepDtypeAttr))
    return true;
  auto module = op->getParentOfType<ModuleOp>();
  auto mode = module ? module->getAttrOfType<StringAttr>("vinci.precision_mode") : StringAttr();
  if (mode && mode.getValue() == "must_keep_origin_dtype")
    return true;
  if (mode && mode.getValue() == "allow_fp32_to_fp16" && keepsUnderFp32ToFp16(op, module))
    return true;
  if (auto kernel = dyn_cast<func::FuncOp>(op))
    return kernel->hasAttr("vinci.kernel") && kernelBodyKeepsDtype(kernel);
  if (auto call = dyn_cast<func::CallOp>(op))
    return kernelBodyKeepsDtype(calledKernel(module, call));
  return false;
}

/// Whether a graph constant is read by a kernel that keeps its types
/// (through views): its weights then stay in their own type too.
static bool readByKeptKernel(Value constant) {
  for (Operation *user : constant.getUsers()) {
    if (isViewOp(user)) {
      for (Value view : user->getResults())
        if (readByKeptKernel(view))
          return true;
      continue;
    }
    if (keepsOriginDtype(user))
      return true;
  }
  return false;
}

Type storageElementType(Value tensor) {
  Type element = cast<RankedTensorType>(tensor.getType()).getElementType();
  if (!isa<FloatType>(element))
    return element;
  Value root = viewRoot(tensor);
  if (isa<BlockArgument>(root) || reachesGraphOutput(root) ||
      keepsOriginDtype(root.getDefiningOp()))
    return element;
  if (root.getDefiningOp<vg::ConstantOp>() && readByKeptKernel(root))
    return element;
  return Float16Type::get(tensor.getContext());
}

} // namespace vinci
