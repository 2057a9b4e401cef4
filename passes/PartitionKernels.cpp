//===- PartitionKernels.cpp - group vg ops into kernels and outline them --===//
#include "passes/KernelRules.h"
#include "passes/Passes.h"
#include "passes/Precision.h"

#include "vg/VgOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "vinci-partition-kernels"

namespace vinci {
#define GEN_PASS_DEF_PARTITIONKERNELS
#include "passes/Passes.h.inc"
} // namespace vinci

using namespace mlir;

namespace vinci {
namespace {

/// Constants with at most this many elements are cloned into the kernel as
/// immediates; larger ones (weights) are passed as arguments.
constexpr int64_t kMaxImmediateElements = 16;

struct Kernel {
  KernelKind kind;
  OpRole anchorRole;
  SmallVector<Operation *> ops; // in program order
};

/// Whether `value` is cloned into the kernel of `user` as an immediate. Row
/// ops (norms, reductions, pools) read every operand from GM, a small norm
/// scale included; elementwise ops take one-element constants only (the
/// scalar operand of a vector instruction), so a small mask or table is an
/// argument; the other templates hoist what they cannot use.
bool isImmediate(Operation *user, Value value) {
  auto constant = value.getDefiningOp<vg::ConstantOp>();
  if (!constant)
    return false;
  int64_t elements = constant.getValue().getNumElements();
  switch (classifyOp(user)) {
  case OpRole::Reduction:
    return false;
  case OpRole::Elementwise:
    return elements == 1;
  default:
    return elements <= kMaxImmediateElements;
  }
}

/// The name of the ONNX node (or other source) an op came from.
StringRef sourceName(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().getValue();
  return {};
}

/// Whether the Cube-kind kernel anchored at `anchor` multiplies in f32 on
/// the Vector unit (must_keep_origin_dtype or --keep_dtype, f32 operands:
/// the 310P Cube takes no fp32). That template has no softmax epilogue and
/// no attention form, so those fusions are the Cube template's alone.
bool matmulKeepsF32(Operation *anchor) {
  auto isF32 = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getElementType().isF32();
  };
  return keepsOriginDtype(anchor) &&
         (llvm::any_of(anchor->getOperands(), isF32) || llvm::any_of(anchor->getResults(), isF32));
}

/// What a kernel made of `ops` reads and writes: the values it reads from
/// outside (immediates are cloned in instead) in order of first use, and
/// its results read outside it.
struct KernelInterface {
  llvm::SetVector<Value> inputs;
  SmallVector<Value> outputs;
};

KernelInterface interfaceOf(ArrayRef<Operation *> ops) {
  llvm::SmallPtrSet<Operation *, 8> members(ops.begin(), ops.end());
  KernelInterface io;
  for (Operation *op : ops)
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if ((producer && members.contains(producer)) || isImmediate(op, operand))
        continue;
      io.inputs.insert(operand);
    }
  for (Operation *op : ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !members.contains(user); }))
        io.outputs.push_back(result);
  return io;
}

/// The private kernel function of `ops` (clones, with immediates cloned in),
/// tagged with its kind and source nodes, inserted after `insertAfter`.
func::FuncOp buildKernelFunction(ArrayRef<Operation *> ops, const KernelInterface &io,
                                 KernelKind kind, StringRef name, Operation *insertAfter,
                                 SymbolTable &symbols) {
  Operation *anchor = ops.front();
  OpBuilder builder(insertAfter);
  builder.setInsertionPointAfter(insertAfter);
  auto type = builder.getFunctionType(ValueRange(io.inputs.getArrayRef()).getTypes(),
                                      ValueRange(io.outputs).getTypes());
  auto kernelFunc = func::FuncOp::create(builder, anchor->getLoc(), name, type);
  kernelFunc.setPrivate();
  symbols.insert(kernelFunc, builder.getInsertionPoint());
  kernelFunc->setAttr("vinci.kernel", builder.getStringAttr(kernelKindName(kind)));
  // A node may import as several ops (Gemm: matmul + add): name it once.
  llvm::SetVector<Attribute> sources;
  for (Operation *op : ops)
    if (StringRef source = sourceName(op); !source.empty())
      sources.insert(builder.getStringAttr(source));
  kernelFunc->setAttr("vinci.source_nodes", builder.getArrayAttr(sources.getArrayRef()));
  // Each result as "node:index", the node's output it is (as --out_nodes
  // and ATC's dumps name tensors): the .om's per-task outputs, for dumps.
  SmallVector<Attribute> outputNodes;
  for (Value output : io.outputs) {
    auto result = cast<OpResult>(output);
    StringRef node = sourceName(result.getOwner());
    outputNodes.push_back(builder.getStringAttr(
        (node.empty() ? anchor->getName().stripDialect() : node) + ":" +
        llvm::Twine(result.getResultNumber())));
  }
  kernelFunc->setAttr("vinci.output_nodes", builder.getArrayAttr(outputNodes));

  Block *body = kernelFunc.addEntryBlock();
  OpBuilder inside = OpBuilder::atBlockBegin(body);
  IRMapping mapping;
  for (auto [value, argument] : llvm::zip(io.inputs, body->getArguments()))
    mapping.map(value, argument);
  for (Operation *op : ops) {
    for (Value operand : op->getOperands())
      if (!mapping.contains(operand) && isImmediate(op, operand))
        mapping.map(operand, inside.clone(*operand.getDefiningOp())->getResult(0));
    inside.clone(*op, mapping);
  }
  SmallVector<Value> returned;
  for (Value output : io.outputs)
    returned.push_back(mapping.lookup(output));
  func::ReturnOp::create(inside, anchor->getLoc(), returned);
  return kernelFunc;
}

/// Which kernel-level fusions are on (the pass options).
struct FusionRules {
  bool cubeEpilogues = true;
  bool elementwiseChains = true;
  bool attention = true;
  bool softmaxPrologues = true;
};

class Partitioner {
public:
  Partitioner(func::FuncOp func, FusionRules rules, const KernelCapabilities &capabilities,
              SymbolTable &symbols)
      : func(func), rules(rules), capabilities(capabilities), symbols(symbols) {}

  void formKernels() {
    for (Operation &op : func.getBody().front()) {
      if (op.getDialect() == nullptr || op.getDialect()->getNamespace() != "vg")
        continue;
      OpRole role = classifyOp(&op);
      if (role == OpRole::Constant || role == OpRole::View)
        continue;
      if (auto [kernel, reshape] = headSplitStoreOf(&op); kernel) {
        for (Operation *member : {reshape, &op}) {
          kernel->ops.push_back(member);
          kernelOf[member] = kernel;
        }
        continue;
      }
      if (Kernel *producer = joinableProducer(&op, role)) {
        producer->ops.push_back(&op);
        kernelOf[&op] = producer;
        continue;
      }
      kernels.push_back(std::make_unique<Kernel>(Kernel{
          role == OpRole::Cube ? KernelKind::Cube : KernelKind::Vector, role, {&op}}));
      kernelOf[&op] = kernels.back().get();
    }
  }

  void outline() {
    // Kernels follow the graph function in execution order.
    Operation *insertAfter = func;
    for (auto [index, kernel] : llvm::enumerate(kernels))
      insertAfter = outlineOne(*kernel, index, insertAfter);
    // Constants cloned into kernels as immediates may have no user left.
    for (Operation &op : llvm::make_early_inc_range(func.getBody().front()))
      if (isa<vg::ConstantOp>(op) && op.use_empty())
        op.erase();
  }

private:
  /// The kernel `op` may join: the one whose last result `op` consumes as
  /// that value's only user, when the rules allow the pair.
  Kernel *joinableProducer(Operation *op, OpRole role) {
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      auto found = producer ? kernelOf.find(producer) : kernelOf.end();
      if (found == kernelOf.end())
        continue;
      Kernel *kernel = found->second;
      bool switchedOff = (kernel->anchorRole == OpRole::Cube && !rules.cubeEpilogues) ||
                         (kernel->anchorRole == OpRole::Elementwise && !rules.elementwiseChains);
      // Data movement and reductions end a kernel: a transpose taken as a
      // Cube kernel's store addressing, or a softmax as its epilogue, is its
      // last step.
      // The one exception: attention's PV matmul joins the QK^T kernel
      // whose softmax epilogue produced its probabilities.
      OpRole producerRole = classifyOp(producer);
      bool cube = kernel->anchorRole == OpRole::Cube;
      // elementwise kernel -> softmax: the kernel becomes the softmax's
      // prologue, computed in f32 in the softmax's tiles; a fusion of its
      // own, so it needs no elementwise chains.
      bool prologue = rules.softmaxPrologues && kernel->anchorRole == OpRole::Elementwise &&
                      producerRole == OpRole::Elementwise && rowOpTakesPrologue(op);
      bool attentionFusion =
          cube && rules.attention && !matmulKeepsF32(kernel->ops.front());
      bool attentionValue = attentionFusion && cubeKernelTakesAttentionValue(op, operand);
      if (kernel->ops.back() != producer || !operand.hasOneUse() || (switchedOff && !prologue) ||
          producerRole == OpRole::DataMovement ||
          (producerRole == OpRole::Reduction && !attentionValue))
        continue;
      // After the PV matmul only its head-merge store joins.
      bool secondMatmul = cube && producer != kernel->ops.front() && producerRole == OpRole::Cube;
      bool epilogue = !secondMatmul && !switchedOff &&
                      ((mayJoinKernel(kernel->anchorRole, role) &&
                        (!cube || cubeEpilogueTakes(op, operand))) ||
                       (attentionFusion && cubeEpilogueTakesSoftmax(op)) ||
                       (cube && isa<vg::ConvOp>(kernel->ops.front()) && cubeEpilogueTakesPool(op)));
      bool store = cube && cubeStoreTakesTranspose(op, kernel->ops.front());
      if ((epilogue || store || attentionValue || prologue) && templatesLower(*kernel, {op}))
        return kernel;
    }
    return nullptr;
  }

  /// Whether a template lowers `kernel` with `joining` appended: the kernel
  /// is outlined as outline() would (its function, and its call after the
  /// last op with the outside uses of its results moved to the call's), the
  /// templates are asked, and all of it is undone.
  bool templatesLower(const Kernel &kernel, ArrayRef<Operation *> joining) {
    SmallVector<Operation *> ops(kernel.ops);
    llvm::append_range(ops, joining);
    KernelInterface io = interfaceOf(ops);
    func::FuncOp trial =
        buildKernelFunction(ops, io, kernel.kind, "vinci_trial_kernel", func, symbols);
    OpBuilder caller(ops.back());
    caller.setInsertionPointAfter(ops.back());
    auto call = func::CallOp::create(caller, ops.back()->getLoc(), trial,
                                     ValueRange(io.inputs.getArrayRef()));
    llvm::SmallPtrSet<Operation *, 8> members(ops.begin(), ops.end());
    for (auto [output, result] : llvm::zip(io.outputs, call.getResults()))
      output.replaceUsesWithIf(result, [&](OpOperand &use) {
        return !members.contains(use.getOwner());
      });
    std::string why = capabilities.mismatch(trial);
    for (auto [output, result] : llvm::zip(io.outputs, call.getResults()))
      result.replaceAllUsesWith(output);
    call.erase();
    symbols.erase(trial);
    if (why.empty())
      return true;
    LLVM_DEBUG(llvm::dbgs() << "vinci-partition-kernels: " << joining.back()->getName() << " at "
                            << joining.back()->getLoc() << " stays out of the kernel of "
                            << ops.front()->getName() << ": " << why << "\n");
    return false;
  }

  /// The Cube kernel whose store the transpose `op` becomes together with
  /// the reshape between them (KernelRules' cubeStoreHeadSplitDim), and
  /// that reshape; {nullptr, nullptr} when `op` is no such store.
  std::pair<Kernel *, Operation *> headSplitStoreOf(Operation *op) {
    if (!isa<vg::TransposeOp>(op) || !rules.cubeEpilogues)
      return {};
    Value split = op->getOperand(0);
    auto reshape = split.getDefiningOp<vg::ReshapeOp>();
    if (!reshape || !split.hasOneUse() || !reshape.getInput().hasOneUse())
      return {};
    Operation *producer = reshape.getInput().getDefiningOp();
    auto found = producer ? kernelOf.find(producer) : kernelOf.end();
    if (found == kernelOf.end())
      return {};
    Kernel *kernel = found->second;
    if (kernel->anchorRole != OpRole::Cube || kernel->ops.back() != producer ||
        classifyOp(producer) == OpRole::DataMovement ||
        !cubeStoreHeadSplitDim(op, kernel->ops.front()) || !templatesLower(*kernel, {reshape, op}))
      return {};
    return {kernel, reshape};
  }

  Operation *outlineOne(Kernel &kernel, size_t index, Operation *insertAfter) {
    KernelInterface io = interfaceOf(kernel.ops);
    // The kernel function, named after its index and first op.
    Operation *anchor = kernel.ops.front();
    std::string name = "k" + std::to_string(index) + "_" +
                       anchor->getName().stripDialect().str();
    func::FuncOp kernelFunc =
        buildKernelFunction(kernel.ops, io, kernel.kind, name, insertAfter, symbols);

    // One call where the kernel's last op stood: every input is defined
    // before it, and no op in between uses a member's result (joins need
    // the only use).
    OpBuilder caller(kernel.ops.back());
    auto call = func::CallOp::create(caller, anchor->getLoc(), kernelFunc,
                                     ValueRange(io.inputs.getArrayRef()));
    for (auto [output, result] : llvm::zip(io.outputs, call.getResults()))
      output.replaceAllUsesWith(result);
    for (Operation *op : llvm::reverse(kernel.ops))
      op->erase();
    return kernelFunc;
  }

  func::FuncOp func;
  FusionRules rules;
  const KernelCapabilities &capabilities;
  SymbolTable &symbols;
  std::vector<std::unique_ptr<Kernel>> kernels;
  llvm::DenseMap<Operation *, Kernel *> kernelOf;
};

struct PartitionKernels : impl::PartitionKernelsBase<PartitionKernels> {
  using PartitionKernelsBase::PartitionKernelsBase;
  PartitionKernels(const PartitionKernelsOptions &options, const KernelCapabilities *capabilities)
      : PartitionKernelsBase(options), capabilities(capabilities) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const KernelCapabilities *asked =
        capabilities ? capabilities : installedKernelCapabilities();
    if (!asked) {
      module.emitError("vinci-partition-kernels needs the kernel layer's capabilities: register "
                       "the backend's passes (vinci::backend::registerVinciBackendPasses)");
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> graphs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func->hasAttr("vinci.kernel") && !func.isExternal())
        graphs.push_back(func);
    SymbolTable symbols(module);
    for (func::FuncOp func : graphs) {
      if (!func.getBody().hasOneBlock()) {
        func.emitError("vinci-partition-kernels expects a single-block graph function");
        return signalPassFailure();
      }
      Partitioner partitioner(func, FusionRules{cubeEpilogues, elementwiseChains, attention, softmaxPrologues},
                              *asked, symbols);
      partitioner.formKernels();
      partitioner.outline();
    }
  }

  const KernelCapabilities *capabilities = nullptr;
};

} // namespace

std::unique_ptr<Pass> createPartitionKernels(const PartitionKernelsOptions &options,
                                             const KernelCapabilities &capabilities) {
  return std::make_unique<PartitionKernels>(options, &capabilities);
}

} // namespace vinci
