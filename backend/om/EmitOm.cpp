//===- EmitOm.cpp - write a lowered model as an .om -----------------------===//
#include "om/EmitOm.h"
#include "om/WeightStore.h"

#include "dv/DvOps.h"
#include "passes/KernelRules.h"
#include "passes/Layouts.h"
#include "plan/GraphOutputs.h"
#include "vg/VgOps.h"
#include "vinci/backend/Encode.h"
#include "vinci/backend/InPlace.h"
#include "vinci/backend/MemoryPlan.h"
#include "vinci/format/writer.h"
#include "vinci/soc.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"

#include <set>

using namespace mlir;

namespace vinci::backend {
namespace {

namespace om = ::vinci::om;

uint64_t elementCount(ArrayRef<int64_t> shape) {
  uint64_t count = 1;
  for (int64_t dim : shape)
    count *= static_cast<uint64_t>(dim);
  return count;
}

/// Set by vinci-narrow-int64 on graph arguments and results whose caller
/// type (int64) differs from the one the kernels compute in.
constexpr llvm::StringLiteral kIoElementTypeAttr = "vinci.io_element_type";

/// Where a tensor lives in GM, as task arguments name it.
struct Placement {
  om::Space space = om::Space::Arena;
  uint32_t index = 0;   // io index
  uint64_t offset = 0;  // arena or weights offset
  uint64_t size = 0;    // bytes in storage precision
  int64_t arenaBuffer = -1;
  /// Where a view (a piece of a split) starts within its arena buffer;
  /// planArena adds it to the buffer's offset.
  uint64_t viewOffset = 0;
};

/// One gear's tables (or the static model's): io with this gear's shapes,
/// sizes and arena offsets, its tasks and its arena plan.
struct GearTables {
  std::vector<int64_t> values;
  std::vector<format::IoInfo> inputs, outputs;
  std::vector<format::TaskInfo> tasks;
  std::vector<format::BufferInfo> buffers;
  uint64_t arenaSize = 0;
};

} // namespace

struct OmBuilder::State {
  State(const soc::SocSpec &soc, OmOptions options)
      : soc(soc), options(std::move(options)), writer(soc.name),
        weights(writer, this->options.releaseSource) {}

  /// The index of `kernel`'s program in the .om: one entry for every
  /// launch of identical code (same program, block_dim, arguments, kind).
  bool internKernel(dv::KernelOp kernel, const std::string &gearLabel, uint32_t &index,
                    GearSummary &summary, std::string &error);

  const soc::SocSpec &soc;
  OmOptions options;
  format::OmWriter writer;
  WeightStore weights;
  std::map<std::string, uint32_t> kernelsByContent;
  std::set<std::string> kernelNames;
  std::vector<GearTables> gears;
  uint64_t arenaLowerBoundBytes = 0;
  bool precisionSet = false;
};

namespace {

/// Reads one lowered module into its gear's tables, placing weights and
/// kernels in the builder's shared store.
class Emitter {
public:
  Emitter(ModuleOp module, func::FuncOp graph, OmBuilder::State &state, GearTables &tables,
          std::string gearLabel)
      : module(module), graph(graph), state(state), tables(tables),
        gearLabel(std::move(gearLabel)), gears(state.options.gearKind != 0) {}

  bool run(GearSummary &summary, std::string &error) {
    if (!state.precisionSet) {
      state.writer.setPrecision(precisionMode());
      state.precisionSet = true;
    }
    if (!placeInputs(error) || !placeOutputs(error) || !collectTasks(error) ||
        !planArena(summary, error) || !addTasks(summary, error))
      return false;
    summary.numTasks = launches.size();
    return true;
  }

private:
  /// The module's precision mode (the driver sets `vinci.precision_mode`;
  /// none is force_fp16, the default).
  om::PrecisionMode precisionMode() const {
    auto mode = module->getAttrOfType<StringAttr>("vinci.precision_mode");
    if (mode && mode.getValue() == "allow_mix_precision")
      return om::PrecisionMode::AllowMixPrecision;
    if (mode && mode.getValue() == "must_keep_origin_dtype")
      return om::PrecisionMode::MustKeepOriginDtype;
    return om::PrecisionMode::ForceFp16;
  }

  /// The GM element type a kernel uses for operand or result `index` of
  /// `launch` (the tensor's storage type).
  Type storageType(dv::LaunchOp launch, unsigned index) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<dv::KernelOp>(launch, launch.getKernelAttr());
    return cast<dv::GmType>(kernel.getArgumentTypes()[index]).getElementType();
  }

  /// The bytes of GM argument `index` of the kernel `launch` runs.
  uint64_t gmArgumentBytes(dv::LaunchOp launch, unsigned index) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<dv::KernelOp>(launch, launch.getKernelAttr());
    return cast<dv::GmType>(kernel.getArgumentTypes()[index]).getSizeInBytes();
  }

  format::TensorInfo tensorInfo(std::string name, RankedTensorType type, Type storage) {
    format::TensorInfo info;
    info.name = std::move(name);
    info.dtype = dtypeOf(storage);
    info.shape.assign(type.getShape().begin(), type.getShape().end());
    return info;
  }

  /// The descriptor and placement of a graph input or output, which the
  /// caller passes in its own dtype (no fp16 conversion at the boundary).
  /// `hostElement` is the caller's element type when the graph computes
  /// the tensor in another (int64 narrowed to int32): then the tensor gets
  /// an arena buffer, and the runtime converts on the way in or out.
  /// `storage` (default: `value`) is the tensor that gets the placement: a
  /// kernel result that `value`, a graph output, is a view of.
  bool placeIo(Value value, std::string name, om::Space space, TypeAttr hostElement,
               std::string &error, Value storage = {}) {
    if (!storage)
      storage = value;
    bool isInput = space == om::Space::Input;
    auto type = cast<RankedTensorType>(value.getType());
    format::IoInfo io;
    io.tensor = tensorInfo(std::move(name), type,
                           hostElement ? hostElement.getValue() : type.getElementType());
    if (io.tensor.dtype == om::DType::Unknown) {
      error = "graph " + std::string(isInput ? "input" : "output") + " '" + io.tensor.name +
              "' has type " + typeText(type) + ", which the .om cannot describe";
      return false;
    }
    Placement placement;
    placement.size = elementCount(type.getShape()) *
                     format::dtypeSize(static_cast<uint8_t>(dtypeOf(type.getElementType())));
    auto add = [&](format::IoInfo info) {
      std::vector<format::IoInfo> &list = isInput ? tables.inputs : tables.outputs;
      list.push_back(std::move(info));
      return static_cast<uint32_t>(list.size() - 1);
    };
    if (!hostElement) {
      placement.space = space;
      placement.index = add(io);
      placements[storage] = placement;
      return true;
    }
    io.placement = om::IoPlacement::Arena;
    io.device_dtype = dtypeOf(type.getElementType());
    // An empty tensor has nothing to convert: no arena buffer for it (and,
    // alone, no arena placement; a gear keeps the placement of the others).
    if (placement.size == 0) {
      if (!gears) {
        io.placement = om::IoPlacement::Separate;
        io.device_dtype = om::DType::Unknown;
      }
      placement.space = gears ? om::Space::Arena : space;
      placement.index = add(io);
      placements[storage] = placement;
      return true;
    }
    PlanBuffer buffer;
    buffer.id = buffers.size();
    buffer.name = std::string(isInput ? "input:" : "output:") + io.tensor.name;
    buffer.size = placement.size;
    buffers.push_back(buffer);
    placement.space = om::Space::Arena;
    placement.arenaBuffer = static_cast<int64_t>(buffer.id);
    uint32_t index = add(io);
    arenaIo.push_back({isInput, index, buffer.id});
    placements[storage] = placement;
    return true;
  }

  bool placeInputs(std::string &error) {
    for (BlockArgument argument : graph.getArguments()) {
      unsigned index = argument.getArgNumber();
      auto name = graph.getArgAttrOfType<StringAttr>(index, "vg.name");
      if (!placeIo(argument, name ? name.str() : "input" + std::to_string(index),
                   om::Space::Input,
                   graph.getArgAttrOfType<TypeAttr>(index, kIoElementTypeAttr), error))
        return false;
    }
    return true;
  }

  bool placeOutputs(std::string &error) {
    auto ret = cast<func::ReturnOp>(graph.getBody().front().getTerminator());
    for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
      Value produced = viewedProducer(value);
      if (!checkKernelWritesOutput(value, produced, placements.count(produced), index, error))
        return false;
      auto name = graph.getResultAttrOfType<StringAttr>(index, "vg.name");
      if (!placeIo(value, name ? name.str() : "output" + std::to_string(index), om::Space::Output,
                   graph.getResultAttrOfType<TypeAttr>(index, kIoElementTypeAttr), error,
                   produced))
        return false;
    }
    return true;
  }

  /// Walks the graph: launches become tasks, constants weights, views share
  /// their source's placement, and launch results become arena buffers.
  bool collectTasks(std::string &error) {
    for (Operation &op : graph.getBody().front()) {
      if (auto launch = dyn_cast<dv::LaunchOp>(op)) {
        int64_t task = static_cast<int64_t>(launches.size());
        launches.push_back(launch);
        for (auto [i, operand] : llvm::enumerate(launch.getInputs()))
          if (!placeOperand(launch, i, operand, task, error))
            return false;
        for (auto [i, result] : llvm::enumerate(launch.getOutputs())) {
          if (auto output = placements.find(result); output != placements.end()) {
            // A graph output; one the runtime converts lives in the arena
            // from here to the end of the run.
            if (output->second.arenaBuffer >= 0)
              buffers[output->second.arenaBuffer].firstTask = task;
            continue;
          }
          // The kernel's GM argument has the tensor's storage shape (an
          // NC1HWC0 activation pads its channels to 16).
          PlanBuffer buffer;
          buffer.id = buffers.size();
          buffer.name = launch.getKernel().str() + ":" + std::to_string(i);
          buffer.size = gmArgumentBytes(launch, launch.getInputs().size() + i);
          buffer.firstTask = buffer.lastTask = task;
          Placement placement;
          placement.space = om::Space::Arena;
          placement.size = buffer.size;
          placement.arenaBuffer = static_cast<int64_t>(buffer.id);
          placements[result] = placement;
          buffers.push_back(buffer);
        }
        continue;
      }
      if (isa<vg::ConstantOp, func::ReturnOp>(op))
        continue; // constants are placed by the launches that read them
      if (isViewOp(&op) && placements.count(op.getOperand(0))) {
        // A view (reshape-like, or a split into contiguous pieces): bytes
        // of its source, at an offset, under another shape.
        Placement source = placements[op.getOperand(0)];
        auto sourceType = cast<RankedTensorType>(op.getOperand(0).getType());
        uint64_t elementBytes =
            source.size / std::max<uint64_t>(1, elementCount(sourceType.getShape()));
        for (OpResult result : op.getResults()) {
          if (placements.count(result)) {
            error = "graph output " + typeText(result.getType()) +
                    " is a view of another tensor; such models are not supported yet";
            return false;
          }
          auto type = cast<RankedTensorType>(result.getType());
          uint64_t offset = uint64_t(viewElementOffset(result)) * elementBytes;
          Placement view = source;
          view.viewOffset += offset; // for an arena buffer, not placed yet
          view.offset += offset;     // for a graph output's buffer
          view.size = elementCount(type.getShape()) * elementBytes;
          placements[result] = view;
        }
        continue;
      }
      error = "the graph still holds '" + op.getName().getStringRef().str() +
              "' outside any kernel: lower every kernel before writing an .om";
      return false;
    }
    return true;
  }

  /// The device layout in which the kernel of `launch` takes GM argument
  /// `index`, when it is a weight packed at compile time.
  static om::Format weightFormat(dv::LaunchOp launch, unsigned index) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<dv::KernelOp>(launch, launch.getKernelAttr());
    auto listed = [&](StringRef attr) {
      auto args = kernel->getAttrOfType<DenseI64ArrayAttr>(attr);
      return args && llvm::is_contained(args.asArrayRef(), int64_t(index));
    };
    if (listed(dv::DVDialect::kNzWeightsAttrName))
      return om::Format::FRACTAL_NZ;
    if (listed(dv::DVDialect::kFractalZWeightsAttrName))
      return om::Format::FRACTAL_Z;
    return om::Format::ND;
  }

  /// The placements of weights stored in `format` (a constant read in two
  /// layouts is stored twice).
  llvm::DenseMap<Value, Placement> &placementsIn(om::Format format) {
    if (format == om::Format::FRACTAL_NZ)
      return nzPlacements;
    if (format == om::Format::FRACTAL_Z)
      return fractalZPlacements;
    return placements;
  }

  /// The placement a launch's GM argument `index` (holding `tensor`) uses.
  const Placement &placementOf(dv::LaunchOp launch, unsigned index, Value tensor) {
    return placementsIn(weightFormat(launch, index))[tensor];
  }

  bool placeOperand(dv::LaunchOp launch, unsigned index, Value operand, int64_t task,
                    std::string &error) {
    om::Format format = weightFormat(launch, index);
    bool packed = format != om::Format::ND;
    if (packed && placementsIn(format).count(operand))
      return true;
    auto found = placements.find(operand);
    if (packed)
      found = placements.end();
    if (found != placements.end()) {
      if (found->second.arenaBuffer >= 0) {
        PlanBuffer &buffer = buffers[found->second.arenaBuffer];
        buffer.lastTask = std::max(buffer.lastTask, task);
      }
      return true;
    }
    auto constant = operand.getDefiningOp<vg::ConstantOp>();
    if (!constant) {
      error = "operand " + std::to_string(index) + " of the launch of '" +
              launch.getKernel().str() + "' is neither a graph input, a weight nor a kernel result";
      return false;
    }
    WeightStore::Placed weight;
    if (!state.weights.place(constant, storageType(launch, index), format, weight, error)) {
      error = "the launch of '" + launch.getKernel().str() + "': " + error;
      return false;
    }
    Placement placement;
    placement.space = om::Space::Weight;
    placement.offset = weight.offset;
    placement.size = weight.size;
    placementsIn(format)[operand] = placement;
    return true;
  }

  /// Offers in-place reuse where backend/memplan/InPlace.h finds it legal:
  /// an output of a kernel lowered by the elementwise template (recorded by
  /// vinci-lower-kernels as "vinci.template") over a same-shaped input that
  /// dies there. Graph inputs and outputs that the runtime converts through
  /// the arena are the caller's tensors and take no part.
  void offerInPlace() {
    llvm::DenseSet<uint64_t> ioBuffers;
    for (const ArenaIo &io : arenaIo)
      ioBuffers.insert(io.buffer);
    auto describe = [&](dv::LaunchOp launch, unsigned index, Value value) {
      LaunchTensor tensor;
      auto found = placements.find(value);
      if (found != placements.end() && found->second.arenaBuffer >= 0 &&
          !ioBuffers.contains(uint64_t(found->second.arenaBuffer)))
        tensor.arenaBuffer = uint64_t(found->second.arenaBuffer);
      auto type = cast<RankedTensorType>(value.getType());
      tensor.shape.assign(type.getShape().begin(), type.getShape().end());
      tensor.storageType = typeText(storageType(launch, index));
      return tensor;
    };
    std::vector<KernelLaunch> described;
    for (auto [task, launch] : llvm::enumerate(launches)) {
      auto kernel =
          SymbolTable::lookupNearestSymbolFrom<dv::KernelOp>(launch, launch.getKernelAttr());
      auto lowering = kernel->getAttrOfType<StringAttr>("vinci.template");
      KernelLaunch entry;
      entry.task = static_cast<int64_t>(task);
      entry.readsEachElementBeforeWritingIt = lowering && lowering.getValue() == "elementwise";
      unsigned numInputs = launch.getInputs().size();
      for (auto [i, operand] : llvm::enumerate(launch.getInputs()))
        entry.inputs.push_back(describe(launch, i, operand));
      for (auto [i, result] : llvm::enumerate(launch.getOutputs()))
        entry.outputs.push_back(describe(launch, numInputs + i, result));
      described.push_back(std::move(entry));
    }
    offerInPlaceCandidates(described, buffers);
  }

  bool planArena(GearSummary &summary, std::string &error) {
    for (const ArenaIo &io : arenaIo)
      if (!io.isInput)
        buffers[io.buffer].lastTask = std::max<int64_t>(0, int64_t(launches.size()) - 1);
    offerInPlace();
    MemoryPlan plan;
    PlanOptions options;
    options.verify = true;
    if (!planMemory(buffers, plan, error, options))
      return false;
    for (auto &[value, placement] : placements)
      if (placement.arenaBuffer >= 0)
        placement.offset = plan.buffers[placement.arenaBuffer].offset + placement.viewOffset;
    tables.arenaSize = plan.arenaBytes;
    for (const ArenaIo &io : arenaIo)
      (io.isInput ? tables.inputs : tables.outputs)[io.index].arena_offset =
          plan.buffers[io.buffer].offset;
    for (auto [buffer, placed] : llvm::zip(buffers, plan.buffers)) {
      format::BufferInfo info;
      info.name = buffer.name;
      info.offset = placed.offset;
      info.size = placed.allocatedSize;
      info.first_task = static_cast<uint32_t>(buffer.firstTask);
      info.last_task = static_cast<uint32_t>(buffer.lastTask);
      tables.buffers.push_back(info);
    }
    summary.arenaBytes = plan.arenaBytes;
    summary.arenaLowerBoundBytes = plan.arenaLowerBoundBytes;
    return true;
  }

  bool addTasks(GearSummary &summary, std::string &error) {
    for (dv::LaunchOp launch : launches) {
      auto kernel =
          SymbolTable::lookupNearestSymbolFrom<dv::KernelOp>(launch, launch.getKernelAttr());
      uint32_t index = 0;
      if (!state.internKernel(kernel, gearLabel, index, summary, error))
        return false;
      format::TaskInfo task;
      task.kernel = index;
      SmallVector<Value> tensors(launch.getInputs());
      llvm::append_range(tensors, launch.getOutputs());
      for (auto [i, tensor] : llvm::enumerate(tensors)) {
        const Placement &placement = placementOf(launch, i, tensor);
        format::TaskArgInfo arg;
        arg.space = placement.space;
        arg.index = placement.index;
        arg.offset = placement.offset;
        arg.size = placement.size;
        task.args.push_back(arg);
      }
      auto names = kernel->getAttrOfType<ArrayAttr>("vinci.output_nodes");
      for (auto [i, result] : llvm::enumerate(launch.getOutputs())) {
        format::TensorInfo output;
        output.name = names && i < names.size() ? cast<StringAttr>(names[i]).str()
                                                : kernel.getSymName().str() + ":" + std::to_string(i);
        unsigned argument = launch.getInputs().size() + i;
        output.dtype = dtypeOf(storageType(launch, argument));
        // An activation kept NC1HWC0 between conv-family kernels (vinci-
        // assign-layouts) is described so: its size is the padded storage.
        if (layoutOfArgument(launch, argument) == TensorLayout::NC1HWC0)
          output.format = om::Format::NC1HWC0;
        output.shape.assign(cast<RankedTensorType>(result.getType()).getShape().begin(),
                            cast<RankedTensorType>(result.getType()).getShape().end());
        output.size = task.args[argument].size;
        task.outputs.push_back(std::move(output));
      }
      tables.tasks.push_back(std::move(task));
    }
    return true;
  }

  ModuleOp module;
  func::FuncOp graph;
  OmBuilder::State &state;
  GearTables &tables;
  std::string gearLabel;
  bool gears; // part of a model with gears: io placements are the same in every gear
  llvm::DenseMap<Value, Placement> placements;
  /// Weights stored in FRACTAL_NZ for the kernels that take them so (a
  /// constant read by both kinds of kernel is stored twice).
  llvm::DenseMap<Value, Placement> nzPlacements;
  llvm::DenseMap<Value, Placement> fractalZPlacements;
  std::vector<dv::LaunchOp> launches;
  std::vector<PlanBuffer> buffers;
  /// Graph inputs and outputs the runtime converts through the arena.
  struct ArenaIo {
    bool isInput;
    uint32_t index;
    uint64_t buffer;
  };
  std::vector<ArenaIo> arenaIo;
};

std::string joined(const std::vector<int64_t> &values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? "," : "") + std::to_string(values[i]);
  return text;
}

} // namespace

bool OmBuilder::State::internKernel(dv::KernelOp kernel, const std::string &gearLabel,
                                    uint32_t &index, GearSummary &summary, std::string &error) {
  format::KernelInfo info;
  info.name = kernel.getSymName().str();
  if (!encodeKernel(kernel, info.program, error)) {
    error = "kernel " + info.name + ": " + error;
    return false;
  }
  info.block_dim = static_cast<uint32_t>(kernel.getBlockDim());
  info.num_args = static_cast<uint32_t>(kernel.getArgumentTypes().size());
  info.kind = kernel.getKind() == "cube"    ? om::KernelKind::Cube
              : kernel.getKind() == "vector" ? om::KernelKind::Vector
                                             : om::KernelKind::Mixed;
  std::string key(info.program.begin(), info.program.end());
  key += ":" + std::to_string(info.block_dim) + ":" + std::to_string(info.num_args) + ":" +
         std::to_string(static_cast<int>(info.kind));
  if (auto found = kernelsByContent.find(key); found != kernelsByContent.end()) {
    index = found->second;
    ++summary.sharedKernels;
    return true;
  }
  if (auto sources = kernel->getAttrOfType<ArrayAttr>("vinci.source_nodes"))
    for (Attribute source : sources)
      info.source_nodes.push_back(cast<StringAttr>(source).str());
  // Names stay unique: another gear's different kernel of the same name
  // is told apart by its gear.
  if (kernelNames.count(info.name) && !gearLabel.empty())
    info.name += "@" + gearLabel;
  for (int copy = 2; kernelNames.count(info.name); ++copy)
    info.name = kernel.getSymName().str() + "#" + std::to_string(copy);
  kernelNames.insert(info.name);
  index = writer.addKernel(std::move(info));
  kernelsByContent.emplace(std::move(key), index);
  ++summary.newKernels;
  return true;
}

OmBuilder::OmBuilder(const soc::SocSpec &soc, OmOptions options)
    : state(std::make_unique<State>(soc, std::move(options))) {
  state->writer.setModelName(state->options.modelName);
  state->writer.setProducer("vinci-compile", "0.1");
}

OmBuilder::~OmBuilder() = default;

bool OmBuilder::streamsFrom(const void *data) const { return state->weights.streamsFrom(data); }

bool OmBuilder::addGear(ModuleOp module, std::vector<int64_t> values, GearSummary &summary,
                        std::string &error) {
  auto graph = module.lookupSymbol<func::FuncOp>("main");
  if (!graph) {
    error = "the module has no graph function @main";
    return false;
  }
  if (dv::getSoc(module).name != state->soc.name) {
    error = "the module targets " + std::string(dv::getSoc(module).name) + ", the .om " +
            state->soc.name;
    return false;
  }
  GearTables &tables = state->gears.emplace_back();
  tables.values = std::move(values);
  Emitter emitter(module, graph, *state, tables, joined(tables.values));
  if (!emitter.run(summary, error))
    return false;
  state->arenaLowerBoundBytes = std::max(state->arenaLowerBoundBytes, summary.arenaLowerBoundBytes);
  return true;
}

namespace {

/// The model's view of an io over all gears: `dynamic[d]` marks the dims
/// that get -1; the size and arena offset are per gear.
format::IoInfo topLevelIo(format::IoInfo io, const std::vector<bool> &dynamic) {
  for (size_t d = 0; d < io.tensor.shape.size(); ++d)
    if (dynamic[d])
      io.tensor.shape[d] = -1;
  io.tensor.size = 0;
  io.arena_offset = 0;
  return io;
}

} // namespace

bool OmBuilder::write(const std::string &path, OmSummary &summary, std::string &error) {
  format::OmWriter &writer = state->writer;
  std::vector<GearTables> &gears = state->gears;
  if (gears.empty()) {
    error = "an .om needs a graph: no module was added";
    return false;
  }
  if (state->options.gearKind == 0) {
    if (gears.size() != 1) {
      error = "a static model is one module; " + std::to_string(gears.size()) + " were added";
      return false;
    }
    GearTables &model = gears.front();
    for (format::IoInfo &io : model.inputs)
      writer.addInput(io);
    for (format::IoInfo &io : model.outputs)
      writer.addOutput(io);
    writer.setArenaSize(model.arenaSize);
    for (format::TaskInfo &task : model.tasks)
      writer.addTask(task.kernel, task.args, task.outputs);
    for (format::BufferInfo &buffer : model.buffers)
      writer.addBuffer(buffer);
  } else {
    const GearTables &first = gears.front();
    writer.setGearKind(static_cast<om::GearKind>(state->options.gearKind));
    for (auto [role, list] : {std::pair{"input", &GearTables::inputs},
                              std::pair{"output", &GearTables::outputs}}) {
      for (size_t i = 0; i < (first.*list).size(); ++i) {
        const format::IoInfo &io = (first.*list)[i];
        std::vector<bool> dynamic(io.tensor.shape.size(), false);
        for (const GearTables &gear : gears) {
          const format::IoInfo &other = (gear.*list)[i];
          if ((gear.*list).size() != (first.*list).size() || other.tensor.name != io.tensor.name ||
              other.tensor.shape.size() != io.tensor.shape.size() ||
              other.tensor.dtype != io.tensor.dtype || other.placement != io.placement) {
            error = std::string(role) + " '" + io.tensor.name + "' differs between gears " +
                    joined(first.values) + " and " + joined(gear.values) +
                    " in more than its dims";
            return false;
          }
          for (size_t d = 0; d < dynamic.size(); ++d)
            dynamic[d] = dynamic[d] || other.tensor.shape[d] != io.tensor.shape[d];
        }
        if (list == &GearTables::inputs)
          for (const OmGearDim &dim : state->options.gearDims)
            if (dim.input == io.tensor.name && dim.axis < dynamic.size())
              dynamic[dim.axis] = true;
        if (list == &GearTables::inputs)
          writer.addInput(topLevelIo(io, dynamic));
        else
          writer.addOutput(topLevelIo(io, dynamic));
      }
    }
    for (const OmGearDim &dim : state->options.gearDims) {
      auto input = llvm::find_if(first.inputs, [&](const format::IoInfo &io) {
        return io.tensor.name == dim.input;
      });
      if (input == first.inputs.end()) {
        error = "gear dims name input '" + dim.input + "', which the graph does not take";
        return false;
      }
      writer.addGearDim(dim.value, static_cast<uint32_t>(input - first.inputs.begin()), dim.axis);
    }
    for (GearTables &tables : gears) {
      format::GearInfo gear;
      gear.values = tables.values;
      for (const format::IoInfo &io : tables.inputs)
        gear.inputs.push_back({io.tensor.shape, 0, io.arena_offset});
      for (const format::IoInfo &io : tables.outputs)
        gear.outputs.push_back({io.tensor.shape, 0, io.arena_offset});
      gear.tasks = std::move(tables.tasks);
      gear.buffers = std::move(tables.buffers);
      gear.arena_size = tables.arenaSize;
      writer.addGear(std::move(gear));
    }
  }
  format::Status status = writer.writeToFile(path);
  if (!status.ok()) {
    error = status.message;
    return false;
  }
  summary.numKernels = state->kernelsByContent.size();
  summary.numTasks = 0;
  summary.arenaBytes = 0;
  for (const GearTables &gear : gears) {
    summary.numTasks += state->options.gearKind == 0 ? gear.tasks.size() : 0;
    summary.arenaBytes = std::max(summary.arenaBytes, gear.arenaSize);
  }
  summary.arenaLowerBoundBytes = state->arenaLowerBoundBytes;
  summary.weightsBytes = state->weights.bytes();
  uint64_t size = 0;
  if (!llvm::sys::fs::file_size(path, size))
    summary.fileBytes = size;
  return true;
}

bool emitOm(ModuleOp module, const std::string &modelName, const std::string &path,
            OmSummary &summary, std::string &error) {
  OmOptions options;
  options.modelName = modelName;
  OmBuilder builder(dv::getSoc(module), std::move(options));
  GearSummary gear;
  return builder.addGear(module, {}, gear, error) && builder.write(path, summary, error);
}

} // namespace vinci::backend
