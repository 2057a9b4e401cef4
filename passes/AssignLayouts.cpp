//===- AssignLayouts.cpp - NC1HWC0 between conv-family kernels ------------===//
#include "passes/KernelRules.h"
#include "passes/Layouts.h"
#include "passes/Passes.h"
#include "passes/Precision.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace vinci {
#define GEN_PASS_DEF_ASSIGNLAYOUTS
#include "passes/Passes.h.inc"
} // namespace vinci

using namespace mlir;

namespace vinci {
namespace {

/// Whether `tensor` can be stored NC1HWC0 between conv-family kernels: a
/// 4-D tensor stored as f16 (the templates' pixels; an f32 tensor between
/// kernels is one kept in fp32, read by no conv-family template in f32).
bool nc1hwc0Storable(Value tensor) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  return type && type.hasStaticShape() && type.getRank() == 4 &&
         storageElementType(tensor).isF16();
}

/// A kernel launch and the template's layout classes for its GM arguments.
struct Launch {
  func::CallOp call;
  SmallVector<int> classes; // one per operand, then per result

  Value tensorAt(unsigned index) const {
    func::CallOp op = call; // the op accessors are not const
    unsigned operands = op.getNumOperands();
    return index < operands ? op.getOperand(index) : op.getResult(index - operands);
  }
  int classOfOperand(unsigned index) const {
    return index < classes.size() ? classes[index] : KernelCapabilities::kNdOnly;
  }
};

class LayoutAssigner {
public:
  LayoutAssigner(func::FuncOp graph, const KernelCapabilities &capabilities,
                 SymbolTable &symbols) {
    for (auto call : graph.getBody().front().getOps<func::CallOp>()) {
      auto kernel = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!kernel || !kernel->hasAttr("vinci.kernel"))
        continue;
      Launch launch{call, capabilities.nc1hwc0Classes(kernel)};
      if (launch.classes.size() != call.getNumOperands() + call.getNumResults())
        launch.classes.clear();
      launchOf[call] = launches.size();
      launches.push_back(std::move(launch));
    }
  }

  void run() {
    proposeCandidates();
    enforceSharedClasses();
    for (const Launch &launch : launches)
      record(launch);
  }

private:
  /// A kernel result whose producer can write it in NC1HWC0 and whose every
  /// user is a kernel that can read it so (a graph output, a view or any
  /// other user keeps it ND), and that can be stored so.
  void proposeCandidates() {
    for (const Launch &launch : launches) {
      func::CallOp producer = launch.call;
      for (OpResult result : producer->getResults()) {
        unsigned index = producer.getNumOperands() + result.getResultNumber();
        if (launch.classOfOperand(index) == KernelCapabilities::kNdOnly ||
            !nc1hwc0Storable(result))
          continue;
        bool allRead = llvm::all_of(result.getUses(), [&](OpOperand &use) {
          auto consumer = dyn_cast<func::CallOp>(use.getOwner());
          auto found = consumer ? launchOf.find(consumer) : launchOf.end();
          return found != launchOf.end() &&
                 launches[found->second].classOfOperand(use.getOperandNumber()) !=
                     KernelCapabilities::kNdOnly;
        });
        if (allRead)
          nc1hwc0.insert(result);
      }
    }
  }

  /// The arguments of one class share a layout: where some of a class's
  /// tensors cannot be NC1HWC0, none of them is. Demoting a tensor can
  /// break another launch's class, so repeat until nothing changes (each
  /// round only removes, so it ends).
  void enforceSharedClasses() {
    for (bool changed = true; changed;) {
      changed = false;
      for (const Launch &launch : launches) {
        llvm::DenseMap<int, SmallVector<Value>> members;
        for (auto [index, layoutClass] : llvm::enumerate(launch.classes))
          if (layoutClass != KernelCapabilities::kNdOnly)
            members[layoutClass].push_back(launch.tensorAt(index));
        for (auto &[layoutClass, tensors] : members) {
          bool all = llvm::all_of(tensors, [&](Value v) { return nc1hwc0.contains(v); });
          if (all)
            continue;
          for (Value v : tensors)
            changed |= nc1hwc0.erase(v);
        }
      }
    }
  }

  void record(const Launch &launch) {
    func::CallOp call = launch.call;
    unsigned args = call.getNumOperands() + call.getNumResults();
    SmallVector<Attribute> names;
    bool any = false;
    for (unsigned i = 0; i < args; ++i) {
      bool nc = nc1hwc0.contains(launch.tensorAt(i));
      any |= nc;
      names.push_back(StringAttr::get(call.getContext(),
                                      layoutName(nc ? TensorLayout::NC1HWC0 : TensorLayout::ND)));
    }
    if (any)
      call->setAttr(kLayoutsAttr, ArrayAttr::get(call.getContext(), names));
    else
      call->removeAttr(kLayoutsAttr);
  }

  std::vector<Launch> launches;
  llvm::DenseMap<Operation *, size_t> launchOf;
  llvm::DenseSet<Value> nc1hwc0; // the tensors stored NC1HWC0
};

struct AssignLayouts : impl::AssignLayoutsBase<AssignLayouts> {
  using AssignLayoutsBase::AssignLayoutsBase;
  explicit AssignLayouts(const KernelCapabilities *capabilities) : capabilities(capabilities) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const KernelCapabilities *asked =
        capabilities ? capabilities : installedKernelCapabilities();
    if (!asked) {
      module.emitError("vinci-assign-layouts needs the kernel layer's capabilities: register "
                       "the backend's passes (vinci::backend::registerVinciBackendPasses)");
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    for (auto graph : module.getOps<func::FuncOp>()) {
      if (graph->hasAttr("vinci.kernel") || graph.isExternal() || !graph.getBody().hasOneBlock())
        continue;
      LayoutAssigner(graph, *asked, symbols).run();
    }
  }

  const KernelCapabilities *capabilities = nullptr;
};

} // namespace

std::unique_ptr<Pass> createAssignLayouts(const KernelCapabilities &capabilities) {
  return std::make_unique<AssignLayouts>(&capabilities);
}

} // namespace vinci
