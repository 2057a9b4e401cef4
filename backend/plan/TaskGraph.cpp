//===- TaskGraph.cpp - the task list of a partitioned model ---------------===//
#include "plan/TaskGraph.h"

#include "backend/Passes.h"
#include "backend/lower/LowerCommon.h"
#include "passes/KernelRules.h"
#include "passes/Layouts.h"
#include "vg/VgOps.h"
#include "vinci/backend/InPlace.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace vinci::backend {
namespace {

/// The bytes of a graph tensor in GM, in its storage type (the one the
/// lowering gives it: storageElementType) and layout (an NC1HWC0 tensor
/// pads its channels to 16).
uint64_t storageBytes(Value tensor) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  if (!type || !type.hasStaticShape())
    return 0;
  Type element = storageElementType(tensor);
  uint64_t bits = element.isInteger(1) ? 8 : element.getIntOrFloatBitWidth();
  uint64_t count = 1;
  for (int64_t dim : storageShape(type, layoutOf(tensor)))
    count *= static_cast<uint64_t>(dim);
  return count * bits / 8;
}

/// The element type of a graph tensor as stored in GM, spelled for
/// in-place checks.
std::string storageTypeName(Value tensor) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << storageElementType(tensor);
  return text;
}

/// Whether vinci-lower-kernels will lower `kernel` with the elementwise
/// Vector template, the one template that reads each element of a
/// same-shaped input before it writes that position: a Vector kernel of
/// elementwise ops only (every other template needs a Cube, reduction or
/// data-movement op, which KernelRules classifies apart). The .om writer
/// asks the lowered kernel's "vinci.template" instead; the two agree
/// because the elementwise template is the one that takes such kernels.
bool lowersAsElementwise(func::FuncOp kernel) {
  if (kernel->getAttrOfType<StringAttr>("vinci.kernel").getValue() != "vector")
    return false;
  bool onlyElementwise = true;
  kernel.walk([&](Operation *op) {
    if (op == kernel.getOperation() || isa<func::ReturnOp>(op))
      return;
    OpRole role = classifyOp(op);
    if (role != OpRole::Elementwise && role != OpRole::Constant && role != OpRole::View)
      onlyElementwise = false;
  });
  return onlyElementwise;
}

double elements(Value value) {
  auto tensor = cast<RankedTensorType>(value.getType());
  return tensor.hasStaticShape() ? double(tensor.getNumElements()) : 0.0;
}

/// Arithmetic work of one vg op. Cube ops count multiply-adds as 2; vector
/// ops count operations per output (or input, for reductions) element, with
/// transcendental functions at the cost of their usual polynomial lowering.
double opFlops(Operation *op) {
  return llvm::TypeSwitch<Operation *, double>(op)
      .Case([](vg::MatMulOp matmul) {
        auto a = matmul.getA().getType();
        int64_t k = matmul.getTransposeA() || a.getRank() == 1 ? a.getShape().front()
                                                                : a.getShape().back();
        if (matmul.getTransposeA() && a.getRank() >= 2)
          k = a.getShape()[a.getRank() - 2];
        return 2.0 * elements(matmul.getResult()) * double(k);
      })
      .Case([](vg::ConvOp conv) {
        auto weight = conv.getWeight().getType();
        double perOutput = 1;
        for (int64_t d : weight.getShape().drop_front(1))
          perOutput *= double(d); // C/group x kernel window
        return 2.0 * elements(conv.getResult()) * perOutput;
      })
      .Case<vg::ExpOp, vg::LogOp, vg::TanhOp, vg::ErfOp, vg::SigmoidOp, vg::SoftplusOp,
            vg::SinOp, vg::CosOp, vg::PowOp, vg::GeluOp>(
          [](Operation *op) { return 8.0 * elements(op->getResult(0)); })
      .Case<vg::SoftmaxOp, vg::LogSoftmaxOp>(
          [](Operation *op) { return 12.0 * elements(op->getResult(0)); })
      .Case<vg::LayerNormOp, vg::RmsNormOp, vg::BatchNormOp>(
          [](Operation *op) { return 8.0 * elements(op->getResult(0)); })
      .Case<vg::ReduceMeanOp, vg::ReduceSumOp, vg::ReduceMaxOp, vg::ReduceMinOp,
            vg::ReduceProdOp, vg::ReduceL2Op, vg::ArgMaxOp, vg::ArgMinOp,
            vg::GlobalAveragePoolOp, vg::GlobalMaxPoolOp>(
          [](Operation *op) { return 1.0 * elements(op->getOperand(0)); })
      .Case<vg::MaxPoolOp, vg::AveragePoolOp>([](Operation *op) {
        auto kernel = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape");
        double window = 1;
        for (int64_t d : kernel.asArrayRef())
          window *= double(d);
        return window * elements(op->getResult(0));
      })
      .Case<vg::ConstantOp>([](Operation *) { return 0.0; })
      .Default([](Operation *op) {
        return op->getNumResults() ? elements(op->getResult(0)) : 0.0;
      });
}

void estimate(TaskInfo &task, func::FuncOp kernel, func::CallOp call, const soc::SocSpec &soc) {
  bool cube = task.kind == "cube";
  kernel.walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "vg")
      task.flops += opFlops(op);
  });
  for (BlockArgument argument : kernel.getArguments()) {
    Value tensor = call.getOperand(argument.getArgNumber());
    // A table read only through gather moves the gathered rows, not itself.
    bool onlyGathered = !argument.use_empty() && llvm::all_of(argument.getUses(), [](OpOperand &use) {
      auto gather = dyn_cast<vg::GatherOp>(use.getOwner());
      return gather && use.getOperandNumber() == 0;
    });
    if (!onlyGathered) {
      task.gmBytes += storageBytes(tensor);
      continue;
    }
    uint64_t tableBytes = storageBytes(tensor);
    double tableElements = std::max(1.0, elements(tensor));
    for (Operation *user : argument.getUsers())
      task.gmBytes += static_cast<uint64_t>(tableBytes / tableElements * elements(user->getResult(0)));
  }
  for (Value result : call.getResults())
    task.gmBytes += storageBytes(result);
  // Peaks per cycle for the whole chip: the Cube does one fractal a cycle;
  // the Vector unit one 256-byte repeat a cycle (128 fp16 lanes, or 64 fp32
  // lanes for a kernel that keeps fp32: an fp32 matmul on the Vector unit
  // does one multiply-add, 2 flops, per lane).
  double cores = soc.ai_core_count;
  double cubeFlopsPerCycle = 2.0 * soc.cubeMacsPerCyclePerCore(soc::CubeInput::F16) * cores;
  bool keepsFp32 = keepsOriginDtype(call);
  double lanes = double(soc.vector_bytes_per_repeat) / (keepsFp32 ? 4.0 : 2.0);
  double vectorFlopsPerCycle = lanes * cores;
  bool onVector = cube && lower::matmulRunsOnVector(kernel, call);
  // A depthwise conv runs on the Vector unit: one multiply-add a lane.
  if (cube && lower::depthwiseRunsOnVector(kernel))
    cube = false;
  double compute = task.flops / (onVector  ? 2.0 * vectorFlopsPerCycle
                                 : cube    ? cubeFlopsPerCycle
                                           : vectorFlopsPerCycle);
  double gmBytesPerCycle = soc.gm_bytes_per_second / soc.clock_hz;
  double traffic = double(task.gmBytes) / gmBytesPerCycle;
  task.estimatedCycles = static_cast<uint64_t>(std::ceil(std::max(compute, traffic)));
}

} // namespace

bool buildTaskGraph(ModuleOp module, func::FuncOp graph, const soc::SocSpec &soc,
                    TaskGraph &result, std::string &error) {
  SymbolTable symbols(module);
  // A buffer per kernel result; views (KernelRules' isViewOp, left in the
  // graph) alias their source, so a use of a view is a use of the buffer.
  llvm::DenseMap<Value, uint64_t> bufferOf;
  llvm::DenseSet<Value> graphOutputs;
  for (Value value : graph.getBody().front().getTerminator()->getOperands())
    graphOutputs.insert(value);

  // Every launch as in-place legality sees it (backend/memplan/InPlace.h).
  std::vector<KernelLaunch> launches;
  auto describe = [&](Value value) {
    LaunchTensor tensor;
    if (auto found = bufferOf.find(value); found != bufferOf.end())
      tensor.arenaBuffer = found->second;
    auto type = cast<RankedTensorType>(value.getType());
    tensor.shape.assign(type.getShape().begin(), type.getShape().end());
    tensor.storageType = storageTypeName(value);
    return tensor;
  };

  int64_t taskIndex = 0;
  for (Operation &op : graph.getBody().front()) {
    auto noteUses = [&](Operation &user, int64_t at) {
      for (Value operand : user.getOperands()) {
        auto found = bufferOf.find(operand);
        if (found != bufferOf.end())
          result.buffers[found->second].lastTask =
              std::max(result.buffers[found->second].lastTask, at);
      }
    };
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto kernel = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!kernel || !kernel->hasAttr("vinci.kernel")) {
        error = "the graph calls '" + call.getCallee().str() +
                "', which is not a kernel: run vinci-partition-kernels first";
        return false;
      }
      TaskInfo task;
      task.kernel = kernel.getSymName().str();
      task.kind = kernel->getAttrOfType<StringAttr>("vinci.kernel").getValue().str();
      if (auto sources = kernel->getAttrOfType<ArrayAttr>("vinci.source_nodes"))
        for (Attribute source : sources)
          task.sourceNodes.push_back(cast<StringAttr>(source).getValue().str());
      estimate(task, kernel, call, soc);
      SmallVector<int> classes = templateCapabilities().nc1hwc0Classes(kernel);
      for (auto [index, layoutClass] : llvm::enumerate(classes))
        if (layoutClass != KernelCapabilities::kNdOnly &&
            layoutOfArgument(call, index) == TensorLayout::ND)
          ++task.layoutConversions;
      result.layoutConversions += task.layoutConversions;
      for (unsigned i = 0; i < call.getNumResults(); ++i)
        if (layoutOfArgument(call, call.getNumOperands() + i) == TensorLayout::NC1HWC0)
          ++result.nc1hwc0Tensors;
      result.tasks.push_back(std::move(task));
      noteUses(op, taskIndex);
      KernelLaunch launch;
      launch.task = taskIndex;
      launch.readsEachElementBeforeWritingIt = lowersAsElementwise(kernel);
      for (Value operand : call.getOperands())
        launch.inputs.push_back(describe(operand));
      for (Value value : call.getResults()) {
        PlanBuffer buffer;
        buffer.id = result.buffers.size();
        buffer.name = result.tasks.back().kernel + ":" +
                      std::to_string(cast<OpResult>(value).getResultNumber());
        buffer.size = storageBytes(value);
        buffer.firstTask = buffer.lastTask = taskIndex;
        bufferOf[value] = buffer.id;
        result.buffers.push_back(std::move(buffer));
        launch.outputs.push_back(describe(value));
      }
      launches.push_back(std::move(launch));
      ++taskIndex;
    } else if (auto constant = dyn_cast<vg::ConstantOp>(op)) {
      result.weightsBytes += storageBytes(constant.getResult());
    } else if (isa<func::ReturnOp>(op)) {
      continue;
    } else if (isViewOp(&op)) {
      // A view: its results are bytes of its source's buffer (a split's
      // pieces at offsets within it).
      if (auto source = bufferOf.find(op.getOperand(0)); source != bufferOf.end())
        for (Value result : op.getResults())
          bufferOf[result] = source->second;
    }
  }
  // Graph outputs are the caller's buffers: a kernel writes them directly.
  llvm::DenseSet<uint64_t> outputBuffers;
  for (Value value : graphOutputs)
    if (auto found = bufferOf.find(value); found != bufferOf.end())
      outputBuffers.insert(found->second);
  std::vector<PlanBuffer> arena;
  for (const PlanBuffer &buffer : result.buffers)
    if (!outputBuffers.contains(buffer.id))
      arena.push_back(buffer);
  result.buffers = std::move(arena);
  // Graph outputs are the caller's memory: they never take part in
  // in-place reuse (graph inputs and weights have no arena buffer at all).
  for (KernelLaunch &launch : launches)
    for (LaunchTensor &output : launch.outputs)
      if (output.arenaBuffer && outputBuffers.contains(*output.arenaBuffer))
        output.arenaBuffer.reset();
  offerInPlaceCandidates(launches, result.buffers);
  PlanOptions options;
  options.verify = true;
  return planMemory(result.buffers, result.plan, error, options);
}

} // namespace vinci::backend
