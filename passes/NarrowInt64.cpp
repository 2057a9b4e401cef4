//===- NarrowInt64.cpp - store int64 tensors as int32 ---------------------===//
//
// The Da Vinci Vector unit and DMA engines have no 64-bit integer type, and
// the int64 tensors of ONNX models (token ids, positions, masks, shapes)
// never need the range. Narrowing them once, before partitioning, lets every
// kernel template see i32 only. Values are checked where they are known:
// constants here, graph inputs by the runtime when it copies them in.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "vg/VgOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

namespace vinci {
#define GEN_PASS_DEF_NARROWINT64
#include "passes/Passes.h.inc"
} // namespace vinci

using namespace mlir;

namespace vinci {
namespace {

constexpr llvm::StringLiteral kIoElementTypeAttr = "vinci.io_element_type";

bool isI64(Type element) { return element.isSignlessInteger(64); }

/// `type` with i64 elements replaced by i32; other types unchanged.
Type narrowed(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isI64(tensor.getElementType()))
    return type;
  return tensor.clone(IntegerType::get(type.getContext(), 32));
}

std::string constantName(vg::ConstantOp constant) {
  if (auto name = dyn_cast<NameLoc>(constant.getLoc()))
    return name.getName().str();
  return "a constant";
}

/// The int64 values of a constant, whatever its storage.
FailureOr<SmallVector<int64_t>> int64Values(vg::ConstantOp constant) {
  ElementsAttr value = constant.getValue();
  SmallVector<int64_t> values;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return failure();
    ArrayRef<char> raw = blob->getData();
    values.resize(raw.size() / sizeof(int64_t));
    std::memcpy(values.data(), raw.data(), values.size() * sizeof(int64_t));
    return values;
  }
  auto dense = dyn_cast<DenseIntElementsAttr>(value);
  if (!dense)
    return failure();
  for (const APInt &v : dense.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

// vg.constant dense<int64 values> -> vg.constant dense<the same values as int32>
LogicalResult narrowConstant(vg::ConstantOp constant) {
  FailureOr<SmallVector<int64_t>> values = int64Values(constant);
  if (failed(values))
    return constant.emitError() << constantName(constant) << ": its int64 data is unavailable";
  SmallVector<int32_t> narrow;
  narrow.reserve(values->size());
  for (auto [index, v] : llvm::enumerate(*values)) {
    if (v < INT32_MIN || v > INT32_MAX)
      return constant.emitError()
             << constantName(constant) << " holds " << v << " at element " << index
             << ", outside int32: the Da Vinci core has no 64-bit integers; change the model "
                "to keep such values in float or within int32";
    narrow.push_back(static_cast<int32_t>(v));
  }
  auto type = cast<RankedTensorType>(narrowed(constant.getType()));
  ElementsAttr value;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue())) {
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(reinterpret_cast<const char *>(narrow.data()),
                       narrow.size() * sizeof(int32_t)),
        alignof(int64_t));
    value = DenseResourceElementsAttr::get(type, resource.getRawHandle().getKey().str() + "_i32",
                                           std::move(blob));
  } else {
    value = DenseElementsAttr::get(type, ArrayRef<int32_t>(narrow));
  }
  constant.setValueAttr(value);
  constant.getResult().setType(type);
  return success();
}

LogicalResult narrowFunction(func::FuncOp func) {
  Builder b(func.getContext());
  TypeAttr i64 = TypeAttr::get(b.getI64Type());
  for (BlockArgument arg : func.getArguments()) {
    Type type = narrowed(arg.getType());
    if (type == arg.getType())
      continue;
    arg.setType(type);
    func.setArgAttr(arg.getArgNumber(), kIoElementTypeAttr, i64);
  }

  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    if (auto constant = dyn_cast<vg::ConstantOp>(op)) {
      if (isI64(constant.getType().getElementType()) && failed(narrowConstant(constant)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    if (auto cast = dyn_cast<vg::CastOp>(op); cast && isI64(cast.getTo()))
      cast.setToAttr(TypeAttr::get(b.getI32Type()));
    for (OpResult result : op->getResults())
      result.setType(narrowed(result.getType()));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  FunctionType type = func.getFunctionType();
  SmallVector<Type> results;
  for (auto [index, result] : llvm::enumerate(type.getResults())) {
    results.push_back(narrowed(result));
    if (results.back() != result)
      func.setResultAttr(index, kIoElementTypeAttr, i64);
  }
  SmallVector<Type> inputs(func.getBody().getArgumentTypes());
  func.setFunctionType(FunctionType::get(func.getContext(), inputs, results));
  return success();
}

struct NarrowInt64 : impl::NarrowInt64Base<NarrowInt64> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(narrowFunction(func)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace vinci
