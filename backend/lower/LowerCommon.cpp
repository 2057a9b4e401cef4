//===- LowerCommon.cpp - shared by the vg -> dv lowering templates --------===//
#include "backend/lower/LowerCommon.h"

#include "dv/DvOps.h"
#include "passes/KernelRules.h"
#include "passes/Layouts.h"
#include "vg/VgOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <functional>

using namespace mlir;

namespace vinci::lower {

int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

void hoistConstantToArgument(func::FuncOp kernel, func::CallOp call, Operation *constant) {
  OpBuilder graph(call);
  Operation *outer = graph.clone(*constant);
  unsigned index = kernel.getNumArguments();
  Value result = constant->getResult(0);
  (void)kernel.insertArgument(index, result.getType(), DictionaryAttr(), constant->getLoc());
  result.replaceAllUsesWith(kernel.getArgument(index));
  constant->erase();
  // The layouts (passes/Layouts.h) are indexed operands first: the new
  // operand, a weight, is ND and goes before the results'.
  if (auto layouts = call->getAttrOfType<ArrayAttr>(kLayoutsAttr)) {
    SmallVector<Attribute> shifted(layouts.getValue());
    shifted.insert(shifted.begin() + std::min<size_t>(call.getNumOperands(), shifted.size()),
                   StringAttr::get(call.getContext(), layoutName(TensorLayout::ND)));
    call->setAttr(kLayoutsAttr, ArrayAttr::get(call.getContext(), shifted));
  }
  call->insertOperands(call->getNumOperands(), outer->getResult(0));
}

func::CallOp soleCall(func::FuncOp kernel) {
  // The graph functions' calls by callee name: a symbol-use walk visits
  // every attribute of the module, and asked once per kernel and template
  // it took 98% of a 2,000-kernel compile (ConvNeXt-B: 126 of 132 s).
  auto module = kernel->getParentOfType<ModuleOp>();
  if (!module)
    return {};
  func::CallOp found;
  int count = 0;
  for (auto graph : module.getOps<func::FuncOp>()) {
    if (graph->hasAttr("vinci.kernel") || graph.isExternal())
      continue;
    for (Block &block : graph.getBody())
      for (auto call : block.getOps<func::CallOp>())
        if (call.getCallee() == kernel.getSymName()) {
          found = call;
          ++count;
        }
  }
  return count == 1 ? found : func::CallOp();
}

bool isConstantOp(Operation *op) { return isa<vg::ConstantOp>(op); }

SoftmaxSafety softmaxSafetyOf(func::FuncOp kernel) {
  SoftmaxSafety safety;
  auto module = kernel->getParentOfType<ModuleOp>();
  if (!module)
    return safety;
  if (auto clip = module->getAttrOfType<FloatAttr>("vinci.softmax_clip"))
    safety.clip = clip.getValueAsDouble();
  safety.protect = !module->hasAttr("vinci.softmax_unprotected");
  return safety;
}

/// A one-element float constant's value (a scalar immediate).
std::optional<double> scalarImmediate(Value value) {
  auto constant = value.getDefiningOp<vg::ConstantOp>();
  if (!constant || constant.getValue().getNumElements() != 1)
    return std::nullopt;
  auto values = constant.getValue().tryGetValues<APFloat>();
  if (!values)
    return std::nullopt;
  return (*values->begin()).convertToDouble();
}

StringRef opName(Operation *op) { return op->getName().stripDialect(); }


GmSignature gmSignature(func::CallOp call) {
  GmSignature signature;
  auto add = [&](Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    Type element = storageElementType(tensor);
    SmallVector<int64_t> shape(type.getShape());
    if (shape.empty())
      shape.push_back(1);
    signature.types.push_back(dv::GmType::get(call.getContext(), shape, element));
    signature.elements.push_back(element);
  };
  for (Value operand : call.getOperands())
    add(operand);
  for (Value result : call.getResults())
    add(result);
  return signature;
}

void emitLoopNest(OpBuilder &b, Location loc, ArrayRef<int64_t> trips,
                  function_ref<void(ArrayRef<Value>)> body) {
  SmallVector<Value> ivs;
  std::function<void()> nest = [&]() {
    if (ivs.size() == trips.size())
      return body(ivs);
    int64_t trip = trips[ivs.size()];
    if (trip <= 1) {
      ivs.push_back(Value());
      nest();
      ivs.pop_back();
      return;
    }
    auto loop = dv::LoopOp::create(b, loc, trip);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&loop.getBody().front());
    ivs.push_back(loop.getInductionVar());
    nest();
    ivs.pop_back();
  };
  nest();
}

Block *beginKernel(OpBuilder &b, func::FuncOp func, ArrayRef<Type> gmTypes, int64_t blockDim,
                   StringRef kind) {
  b.setInsertionPoint(func);
  auto kernel = dv::KernelOp::create(
      b, func.getLoc(), func.getSymName(), FunctionType::get(func.getContext(), gmTypes, {}),
      StringAttr(), ArrayAttr(), ArrayAttr(), uint64_t(blockDim), kind);
  Block *body = b.createBlock(&kernel.getBody());
  for (Type type : gmTypes)
    body->addArgument(type, func.getLoc());
  b.setInsertionPointToStart(body);
  return body;
}

LogicalResult finishKernel(Block *body, func::FuncOp func, func::CallOp call) {
  OpBuilder end = OpBuilder::atBlockEnd(body);
  dv::ReturnOp::create(end, func.getLoc());
  OpBuilder caller(call);
  auto launch = dv::LaunchOp::create(caller, call.getLoc(), call.getResultTypes(),
                                     func.getSymName(), call.getOperands());
  // The launch stands for the call from now on: kernels lowered later ask
  // it (through storageElementType) how the tensors it shares are stored.
  if (keepsOriginDtype(call) || keepsOriginDtype(func))
    launch->setAttr(kKeepDtypeAttr, UnitAttr::get(call.getContext()));
  // ... and in which layout (passes/Layouts.h).
  if (Attribute layouts = call->getAttr(kLayoutsAttr))
    launch->setAttr(kLayoutsAttr, layouts);
  call.replaceAllUsesWith(launch.getResults());
  call.erase();
  func.erase();
  return success();
}

mlir::AffineExpr AffineLoops::dim(mlir::Value v) {
  dims.push_back(v);
  return b.getAffineDimExpr(dims.size() - 1);
}

mlir::AffineExpr AffineLoops::loop(int64_t trips) {
  if (trips <= 1)
    return constant(0);
  auto op = dv::LoopOp::create(b, loc, trips);
  b.setInsertionPointToStart(&op.getBody().front());
  return dim(op.getInductionVar());
}

DenseI64ArrayAttr prefixMask(Builder &b, int64_t lanes) {
  uint64_t lo = lanes >= 64 ? ~uint64_t(0) : (uint64_t(1) << lanes) - 1;
  uint64_t hi =
      lanes <= 64 ? 0 : (lanes >= 128 ? ~uint64_t(0) : (uint64_t(1) << (lanes - 64)) - 1);
  return b.getDenseI64ArrayAttr({int64_t(lo), int64_t(hi)});
}

} // namespace vinci::lower
