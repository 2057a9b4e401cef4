//===- LowerCommon.cpp - shared by the vg -> dv lowering templates --------===//
#include "passes/lower/LowerCommon.h"

#include "dv/DvOps.h"
#include "passes/KernelRules.h"
#include "vg/VgOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"

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
  call->insertOperands(call->getNumOperands(), outer->getResult(0));
}

func::CallOp soleCall(func::FuncOp kernel) {
  auto uses = SymbolTable::getSymbolUses(kernel, kernel->getParentOp());
  if (!uses || std::distance(uses->begin(), uses->end()) != 1)
    return {};
  return dyn_cast<func::CallOp>(uses->begin()->getUser());
}

/// The value a graph tensor is a view of (through the views of
/// KernelRules' isViewOp, which stay in the graph and share their source's
/// GM bytes).
Value viewRoot(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (!isViewOp(op))
      break;
    value = op->getOperand(0);
  }
  return value;
}

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
  call.replaceAllUsesWith(launch.getResults());
  call.erase();
  func.erase();
  return success();
}

} // namespace vinci::lower
