//===- ExportAscendC.cpp - a lowered model as a CANN project --------------===//
//
// Reads the graph function into the device-memory plan (Project.h), writes
// each kernel (KernelSource.cpp) and the host-side files (HostProgram.cpp),
// and puts the folder in place whole.
//
//===----------------------------------------------------------------------===//
#include "ExportAscendC.h"

#include "Project.h"
#include "dv/DvOps.h"
#include "passes/KernelRules.h"
#include "plan/GraphOutputs.h"
#include "plan/WeightData.h"
#include "vg/VgOps.h"
#include "vinci/soc.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>

using namespace mlir;

namespace vinci::backend {
namespace {

using namespace ascendc;

/// Set by vinci-narrow-int64 on graph arguments and results the caller
/// passes in another element type than the kernels compute in.
constexpr llvm::StringLiteral kIoElementTypeAttr = "vinci.io_element_type";
constexpr uint64_t kWeightAlignment = 512;

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// numpy's name and the size of a caller's element type.
bool hostDtype(Type element, std::string &name, unsigned &bytes) {
  if (element.isF32()) return name = "float32", bytes = 4, true;
  if (element.isF16()) return name = "float16", bytes = 2, true;
  if (element.isInteger(1)) return name = "bool", bytes = 1, true;
  if (auto integer = dyn_cast<IntegerType>(element)) {
    unsigned width = integer.getWidth();
    if (width != 8 && width != 16 && width != 32 && width != 64)
      return false;
    name = (integer.isUnsigned() ? "uint" : "int") + std::to_string(width);
    bytes = width / 8;
    return true;
  }
  return false;
}

uint64_t elementCount(ArrayRef<int64_t> shape) {
  uint64_t count = 1;
  for (int64_t dim : shape)
    count *= uint64_t(dim);
  return count;
}

std::string identifierOf(const std::string &name) {
  std::string id;
  for (char c : name)
    id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0])))
    id = "model_" + id;
  return id;
}

class Planner {
public:
  Planner(ModuleOp module, func::FuncOp graph) : module(module), graph(graph) {}

  bool run(ProjectPlan &plan, std::string &error) {
    this->plan = &plan;
    return placeInputs(error) && placeOutputs(error) && walkGraph(error);
  }

private:
  dv::KernelOp kernelOf(dv::LaunchOp launch) {
    return SymbolTable::lookupNearestSymbolFrom<dv::KernelOp>(launch, launch.getKernelAttr());
  }

  /// The GM element type the kernel takes for its argument `index`.
  Type storageType(dv::LaunchOp launch, unsigned index) {
    return cast<dv::GmType>(kernelOf(launch).getArgumentTypes()[index]).getElementType();
  }

  static bool takesNz(dv::KernelOp kernel, unsigned index) {
    auto nz = kernel->getAttrOfType<DenseI64ArrayAttr>(dv::DVDialect::kNzWeightsAttrName);
    return nz && llvm::is_contained(nz.asArrayRef(), int64_t(index));
  }

  int addTensor(DeviceTensor::Kind kind, std::string var, std::string what, uint64_t bytes) {
    DeviceTensor t;
    t.kind = kind;
    t.var = std::move(var);
    t.what = std::move(what);
    t.bytes = bytes;
    plan->tensors.push_back(t);
    return int(plan->tensors.size()) - 1;
  }

  bool io(Value value, std::string name, bool isInput, TypeAttr hostElement, IoTensor &out,
          std::string &error) {
    auto type = cast<RankedTensorType>(value.getType());
    Type caller = hostElement ? hostElement.getValue() : type.getElementType();
    unsigned bytes = 0;
    if (!hostDtype(caller, out.dtype, bytes)) {
      error = "graph " + std::string(isInput ? "input" : "output") + " '" + name + "' has type " +
              typeText(type) + ", which the host program cannot pass";
      return false;
    }
    out.name = std::move(name);
    out.shape.assign(type.getShape().begin(), type.getShape().end());
    out.hostBytes = elementCount(type.getShape()) * bytes;
    out.narrowedInt64 = hostElement != nullptr;
    unsigned deviceBytes = bytes;
    if (out.narrowedInt64) {
      std::string deviceName;
      if (!hostDtype(type.getElementType(), deviceName, deviceBytes) || out.dtype != "int64" ||
          deviceName != "int32") {
        error = "graph " + std::string(isInput ? "input" : "output") + " '" + out.name +
                "' is computed as " + typeText(type) +
                ": the host program converts int64 narrowed to int32 only";
        return false;
      }
    }
    uint64_t device = elementCount(type.getShape()) * deviceBytes;
    size_t index = isInput ? plan->inputs.size() : plan->outputs.size();
    std::string var = (isInput ? "in" : "out") + std::to_string(index);
    std::string what = std::string(isInput ? "input " : "output ") + std::to_string(index) + " '" +
                       out.name + "'";
    out.tensor = addTensor(isInput ? DeviceTensor::Kind::Input : DeviceTensor::Kind::Output, var,
                           what, device);
    return true;
  }

  bool placeInputs(std::string &error) {
    for (BlockArgument argument : graph.getArguments()) {
      unsigned index = argument.getArgNumber();
      auto name = graph.getArgAttrOfType<StringAttr>(index, "vg.name");
      IoTensor tensor;
      if (!io(argument, name ? name.str() : "input" + std::to_string(index), true,
              graph.getArgAttrOfType<TypeAttr>(index, kIoElementTypeAttr), tensor, error))
        return false;
      placements[argument] = ArgPlacement{tensor.tensor, 0};
      plan->inputs.push_back(tensor);
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
      IoTensor tensor;
      if (!io(value, name ? name.str() : "output" + std::to_string(index), false,
              graph.getResultAttrOfType<TypeAttr>(index, kIoElementTypeAttr), tensor, error))
        return false;
      placements[produced] = ArgPlacement{tensor.tensor, 0};
      plan->outputs.push_back(tensor);
    }
    return true;
  }

  bool weight(dv::LaunchOp launch, unsigned index, Value operand, ArgPlacement &out,
              std::string &error) {
    dv::KernelOp kernel = kernelOf(launch);
    bool nz = takesNz(kernel, index);
    auto &cache = nz ? nzWeights : weights;
    if (auto found = cache.find(operand); found != cache.end()) {
      out = found->second;
      return true;
    }
    auto constant = operand.getDefiningOp<vg::ConstantOp>();
    if (!constant) {
      error = "operand " + std::to_string(index) + " of the launch of '" +
              launch.getKernel().str() + "' is neither a graph input, a weight nor a kernel result";
      return false;
    }
    Type storage = storageType(launch, index);
    std::vector<uint8_t> bytes;
    if (!weightBytes(constant, storage, bytes, error))
      return false;
    auto type = cast<RankedTensorType>(constant.getType());
    if (nz) {
      if (type.getRank() < 2) {
        error = "the kernel of '" + launch.getKernel().str() +
                "' wants a weight in FRACTAL_NZ, which needs rank >= 2";
        return false;
      }
      bytes = toFractalNz(bytes, type.getShape()[type.getRank() - 2], type.getShape().back(),
                          dv::elementBytes(storage));
    }
    std::vector<uint8_t> &image = plan->weights;
    uint64_t offset = (image.size() + kWeightAlignment - 1) / kWeightAlignment * kWeightAlignment;
    image.resize(offset, 0);
    image.insert(image.end(), bytes.begin(), bytes.end());
    ProjectPlan::Weight w;
    if (auto loc = dyn_cast<NameLoc>(constant.getLoc()))
      w.name = loc.getName().str();
    w.offset = offset;
    w.bytes = bytes.size();
    w.nz = nz;
    plan->weightList.push_back(w);
    out = ArgPlacement{-1, offset};
    cache[operand] = out;
    return true;
  }

  bool walkGraph(std::string &error) {
    llvm::DenseMap<Operation *, unsigned> kernelIndex;
    for (Operation &op : graph.getBody().front()) {
      if (auto launch = dyn_cast<dv::LaunchOp>(op)) {
        dv::KernelOp kernel = kernelOf(launch);
        if (!kernel) {
          error = "the launch of '" + launch.getKernel().str() + "' names no dv.kernel";
          return false;
        }
        auto [entry, inserted] = kernelIndex.try_emplace(kernel.getOperation(), 0);
        if (inserted) {
          KernelSource source;
          if (!writeKernelSource(kernel, source, error))
            return false;
          entry->second = unsigned(plan->kernels.size());
          plan->kernels.push_back(std::move(source));
        }
        Task task;
        task.kernel = entry->second;
        for (auto [i, operand] : llvm::enumerate(launch.getInputs())) {
          ArgPlacement arg;
          if (auto found = placements.find(operand);
              found != placements.end() && !takesNz(kernel, unsigned(i)))
            arg = found->second;
          else if (!weight(launch, unsigned(i), operand, arg, error))
            return false;
          task.args.push_back(arg);
        }
        unsigned numInputs = launch.getInputs().size();
        for (auto [i, result] : llvm::enumerate(launch.getOutputs())) {
          if (!placements.count(result)) {
            auto type = cast<RankedTensorType>(result.getType());
            uint64_t bytes = elementCount(type.getShape()) *
                             dv::elementBytes(storageType(launch, numInputs + unsigned(i)));
            std::string what = launch.getKernel().str() + " result " + std::to_string(i);
            int t = addTensor(DeviceTensor::Kind::Intermediate,
                              "t" + std::to_string(intermediates++), what, bytes);
            placements[result] = ArgPlacement{t, 0};
          }
          task.args.push_back(placements[result]);
        }
        plan->tasks.push_back(std::move(task));
        continue;
      }
      if (isa<vg::ConstantOp, func::ReturnOp>(op))
        continue;
      if (isViewOp(&op) && placements.count(op.getOperand(0))) {
        // A view: bytes of its source, at an offset, under another shape.
        ArgPlacement source = placements[op.getOperand(0)];
        auto sourceType = cast<RankedTensorType>(op.getOperand(0).getType());
        uint64_t sourceBytes = source.tensor >= 0 ? plan->tensors[source.tensor].bytes : 0;
        uint64_t elementBytes = sourceBytes / std::max<uint64_t>(1, elementCount(sourceType.getShape()));
        for (OpResult result : op.getResults()) {
          if (placements.count(result)) {
            error = "graph output " + typeText(result.getType()) +
                    " is a view of another tensor; such models are not supported yet";
            return false;
          }
          ArgPlacement view = source;
          view.offset += uint64_t(viewElementOffset(result)) * elementBytes;
          placements[result] = view;
        }
        continue;
      }
      error = "the graph still holds '" + op.getName().getStringRef().str() +
              "' outside any kernel: lower every kernel before exporting";
      return false;
    }
    return true;
  }

  ModuleOp module;
  func::FuncOp graph;
  ProjectPlan *plan = nullptr;
  llvm::DenseMap<Value, ArgPlacement> placements, weights, nzWeights;
  unsigned intermediates = 0;
};

/// Whether `dir` holds an earlier export (its io.json says so).
bool isEarlierExport(const std::string &dir) {
  llvm::SmallString<256> manifest(dir);
  llvm::sys::path::append(manifest, "io.json");
  auto buffer = llvm::MemoryBuffer::getFile(manifest);
  return buffer && (*buffer)->getBuffer().contains("\"producer\": \"vinci-compile --emit=ascendc\"");
}

bool writeFile(const llvm::Twine &path, llvm::StringRef bytes, std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path.str(), ec);
  if (!ec) {
    os << bytes;
    os.close();
    if (!os.has_error())
      return true;
    ec = os.error();
    os.clear_error();
  }
  error = "cannot write '" + path.str() + "': " + ec.message();
  return false;
}

} // namespace

bool exportAscendC(ModuleOp module, const std::string &modelName, const std::string &dir,
                   AscendCSummary &summary, std::string &error) {
  auto graph = module.lookupSymbol<func::FuncOp>("main");
  if (!graph) {
    error = "the module has no graph function @main";
    return false;
  }
  if (dir.empty()) {
    error = "--emit=ascendc writes a folder: give it with --output DIR";
    return false;
  }
  if (llvm::sys::fs::exists(dir) && (!llvm::sys::fs::is_directory(dir) || !isEarlierExport(dir))) {
    error = "--output '" + dir + "' exists and is not an earlier Ascend C export: remove it or "
            "choose another folder";
    return false;
  }
  ProjectPlan plan;
  plan.model = modelName;
  plan.identifier = identifierOf(modelName);
  plan.socVersion = soc::cannSocVersion(dv::getSoc(module));
  Planner planner(module, graph);
  if (!planner.run(plan, error))
    return false;

  // Everything goes into a fresh folder beside `dir`, renamed into place.
  llvm::SmallString<256> absolute(dir);
  (void)llvm::sys::fs::make_absolute(absolute);
  llvm::SmallString<256> parent(llvm::sys::path::parent_path(absolute));
  llvm::SmallString<256> staging(parent);
  llvm::sys::path::append(staging, llvm::sys::path::filename(dir) + ".tmp-%%%%%%");
  llvm::SmallString<256> temp;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(staging, temp)) {
    error = "cannot create a folder beside '" + dir + "': " + ec.message();
    return false;
  }
  auto abandon = [&](const std::string &message) {
    (void)llvm::sys::fs::remove_directories(temp);
    error = message;
    return false;
  };
  llvm::SmallString<256> kernels(temp);
  llvm::sys::path::append(kernels, "kernels");
  if (std::error_code ec = llvm::sys::fs::create_directory(kernels))
    return abandon("cannot create '" + kernels.str().str() + "': " + ec.message());
  auto file = [&](llvm::StringRef sub, llvm::StringRef name) {
    llvm::SmallString<256> path(temp);
    llvm::sys::path::append(path, sub, name);
    return path;
  };
  std::string message;
  for (const KernelSource &kernel : plan.kernels)
    if (!writeFile(file("kernels", kernel.fileName), kernel.text, message))
      return abandon(message);
  llvm::StringRef weights(reinterpret_cast<const char *>(plan.weights.data()), plan.weights.size());
  if (!writeFile(file("", "main.cpp"), hostProgram(plan), message) ||
      !writeFile(file("", "weights.bin"), weights, message) ||
      !writeFile(file("", "io.json"), ioManifest(plan), message) ||
      !writeFile(file("", "CMakeLists.txt"), cmakeLists(plan), message) ||
      !writeFile(file("", "README.md"), readme(plan), message))
    return abandon(message);

  // An earlier export is moved aside first, then removed.
  llvm::SmallString<256> old;
  if (llvm::sys::fs::exists(dir)) {
    llvm::SmallString<256> pattern(parent);
    llvm::sys::path::append(pattern, llvm::sys::path::filename(dir) + ".old-%%%%%%");
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(pattern, old))
      return abandon("cannot replace '" + dir + "': " + ec.message());
    (void)llvm::sys::fs::remove(old);
    if (std::error_code ec = llvm::sys::fs::rename(dir, old))
      return abandon("cannot replace '" + dir + "': " + ec.message());
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, dir)) {
    if (!old.empty())
      (void)llvm::sys::fs::rename(old, dir);
    return abandon("cannot write '" + dir + "': " + ec.message());
  }
  if (!old.empty())
    (void)llvm::sys::fs::remove_directories(old);
  summary.numKernels = plan.kernels.size();
  summary.numTasks = plan.tasks.size();
  summary.weightsBytes = plan.weights.size();
  return true;
}

} // namespace vinci::backend
