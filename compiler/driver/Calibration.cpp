//===- Calibration.cpp - --calibration and --quant_config -----------------===//
#include "driver/Calibration.h"
#include "driver/JsonFile.h"
#include "driver/KeepDtype.h"

#include "passes/KernelRules.h"
#include "passes/Precision.h"
#include "vinci/runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <map>

namespace vinci::driver {
namespace {

double secondsSince(std::chrono::steady_clock::time_point from) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

vinci_dtype dtypeOf(mlir::Type type) {
  if (type.isF32())
    return VINCI_DTYPE_F32;
  if (type.isF16())
    return VINCI_DTYPE_F16;
  if (type.isBF16())
    return VINCI_DTYPE_BF16;
  if (type.isInteger(1))
    return VINCI_DTYPE_BOOL;
  if (auto integer = llvm::dyn_cast<mlir::IntegerType>(type)) {
    bool isUnsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
    case 8: return isUnsigned ? VINCI_DTYPE_U8 : VINCI_DTYPE_I8;
    case 16: return isUnsigned ? VINCI_DTYPE_U16 : VINCI_DTYPE_I16;
    case 32: return isUnsigned ? VINCI_DTYPE_U32 : VINCI_DTYPE_I32;
    case 64: return isUnsigned ? VINCI_DTYPE_U64 : VINCI_DTYPE_I64;
    default: break;
    }
  }
  return VINCI_DTYPE_UNKNOWN;
}

bool isF32Tensor(mlir::Value value) {
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
  return type && type.getElementType().isF32();
}

/// Ops whose results are new values: the ones calibration observes.
bool computesValues(mlir::Operation *op) {
  if (!op->getDialect() || op->getDialect()->getNamespace() != "vg")
    return false;
  switch (classifyOp(op)) {
  case OpRole::Cube:
  case OpRole::Elementwise:
  case OpRole::Reduction:
    return true;
  case OpRole::Constant:
  case OpRole::View:
  case OpRole::DataMovement:
    return false;
  }
  return false;
}

/// Views and data movement: their results hold their inputs' values (a pad
/// adds its constant), so a range that does not fit fp16 travels on.
bool carriesValues(mlir::Operation *op) {
  if (!op->getDialect() || op->getDialect()->getNamespace() != "vg")
    return false;
  OpRole role = classifyOp(op);
  return role == OpRole::View || role == OpRole::DataMovement;
}

std::string opLabel(mlir::Operation *op) {
  llvm::SmallVector<llvm::StringRef> names;
  collectNodeNames(op->getLoc(), names);
  std::string text;
  for (llvm::StringRef name : names)
    if (text.find(name.str()) == std::string::npos)
      text += (text.empty() ? "" : ", ") + name.str();
  return text.empty() ? op->getName().getStringRef().str() : text;
}

mlir::func::FuncOp mainOf(mlir::ModuleOp module) {
  return module.lookupSymbol<mlir::func::FuncOp>("main");
}

/// The values `observed` names in `main`, which is `module` or a clone of
/// it: the same walk finds the same ops in the same order.
std::vector<mlir::Value> observedValues(mlir::func::FuncOp main) {
  std::vector<mlir::Value> values;
  for (mlir::BlockArgument arg : main.getArguments())
    if (isF32Tensor(arg))
      values.push_back(arg);
  main.walk([&](mlir::Operation *op) {
    if (!computesValues(op))
      return;
    for (mlir::Value result : op->getResults())
      if (isF32Tensor(result))
        values.push_back(result);
  });
  return values;
}

/// Deletes a folder it made, whatever happens.
struct ScratchFolder {
  llvm::SmallString<256> path;
  ~ScratchFolder() {
    if (!path.empty())
      (void)llvm::sys::fs::remove_directories(path);
  }
};

struct ModelHandle {
  vinci_model *model = nullptr;
  vinci_context *context = nullptr;
  ~ModelHandle() {
    if (context)
      vinci_context_destroy(context);
    if (model)
      vinci_model_release(model);
  }
};

std::string runtimeError(const std::string &what, vinci_status status) {
  return what + ": " + vinci_status_name(status) + ": " + vinci_last_error_message();
}

} // namespace

//===----------------------------------------------------------------------===//
// --quant_config
//===----------------------------------------------------------------------===//

const char *methodName(CalibrationMethod method) {
  switch (method) {
  case CalibrationMethod::MinMax: return "minmax";
  case CalibrationMethod::Percentile: return "percentile";
  case CalibrationMethod::Entropy: return "entropy";
  }
  return "minmax";
}

bool loadQuantConfig(const std::string &path, QuantConfig &config, std::string &error) {
  auto fail = [&](const std::string &message) {
    error = "--quant_config '" + path + "': " + message;
    return false;
  };
  std::string readError;
  std::optional<llvm::json::Value> parsed = readJsonFile(path, readError);
  if (!parsed)
    return fail(readError);
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root)
    return fail("expected an object such as {\"calibration_method\": \"percentile\", "
                "\"percentile\": 99.99, \"activation_offset\": true, \"skip_layers\": [], "
                "\"skip_layer_types\": []}");
  auto names = [&](const llvm::json::Value &value, const std::string &key,
                   std::vector<std::string> &out) {
    const llvm::json::Array *list = value.getAsArray();
    if (!list)
      return fail("\"" + key + "\" must be a list of strings");
    for (const llvm::json::Value &item : *list) {
      std::optional<llvm::StringRef> text = item.getAsString();
      if (!text || text->trim().empty())
        return fail("\"" + key + "\" must be a list of non-empty strings");
      out.push_back(text->trim().str());
    }
    return true;
  };
  for (const auto &[keyRef, value] : *root) {
    std::string key = keyRef.str();
    if (key == "calibration_method") {
      std::optional<llvm::StringRef> text = value.getAsString();
      if (text && *text == "minmax")
        config.method = CalibrationMethod::MinMax;
      else if (text && *text == "percentile")
        config.method = CalibrationMethod::Percentile;
      else if (text && *text == "entropy")
        config.method = CalibrationMethod::Entropy;
      else
        return fail("\"calibration_method\" must be \"minmax\", \"percentile\" or \"entropy\"");
    } else if (key == "percentile") {
      std::optional<double> number = value.getAsNumber();
      if (!number || !(*number > 0 && *number <= 100))
        return fail("\"percentile\" must be a number in (0, 100], e.g. 99.999");
      config.percentile = *number;
    } else if (key == "activation_offset") {
      std::optional<bool> on = value.getAsBoolean();
      if (!on)
        return fail("\"activation_offset\" must be true (asymmetric activations, AMCT's "
                    "default) or false (symmetric)");
      config.activationOffset = *on;
    } else if (key == "skip_layers") {
      if (!names(value, key, config.skipLayers))
        return false;
    } else if (key == "skip_layer_types") {
      if (!names(value, key, config.skipLayerTypes))
        return false;
    } else {
      return fail("unknown key \"" + key + "\" (known: calibration_method, percentile, "
                  "activation_offset, skip_layers, skip_layer_types)");
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// --calibration DIR
//===----------------------------------------------------------------------===//

namespace {

/// The entries of a folder, sorted by name; false with `error`.
bool listFolder(const std::string &dir, std::vector<std::string> &files,
                std::vector<std::string> &folders, std::string &error) {
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (name.starts_with("."))
      continue;
    llvm::ErrorOr<llvm::sys::fs::basic_file_status> status = it->status();
    if (!status)
      continue;
    if (status->type() == llvm::sys::fs::file_type::directory_file)
      folders.push_back(it->path());
    else
      files.push_back(it->path());
  }
  if (ec) {
    error = "cannot list '" + dir + "': " + ec.message();
    return false;
  }
  std::sort(files.begin(), files.end());
  std::sort(folders.begin(), folders.end());
  return true;
}

bool isTensorFile(llvm::StringRef path) {
  return path.ends_with(".npy") || path.ends_with(".pb");
}

/// Checks a sample tensor against its input; "" or why not.
std::string checkTensor(const tensorio::HostTensor &tensor, const GraphInput &input) {
  if (tensor.dtype != input.dtype)
    return std::string("holds ") + vinci_dtype_name(tensor.dtype) + ", but input '" + input.name +
           "' is " + vinci_dtype_name(input.dtype);
  if (tensor.shape != input.shape)
    return "has shape " + shapeText(tensor.shape) + ", but input '" + input.name + "' is " +
           shapeText(input.shape);
  return "";
}

bool readSampleTensor(const std::string &path, const GraphInput &input,
                      tensorio::HostTensor &tensor, std::string &error) {
  std::string readError;
  if (!tensorio::readTensorFile(path, tensor, readError)) {
    error = "--calibration: " + readError;
    return false;
  }
  if (std::string fault = checkTensor(tensor, input); !fault.empty()) {
    error = "--calibration: '" + path + "' " + fault;
    return false;
  }
  return true;
}

} // namespace

bool loadCalibrationSet(const std::string &dir, const std::vector<GraphInput> &inputs,
                        std::vector<CalibrationSample> &samples, std::string &error) {
  if (!llvm::sys::fs::is_directory(dir)) {
    error = "--calibration '" + dir + "' is not a folder (give a folder of samples: one " +
            "sub-folder per sample with a .npy or .pb file per input)";
    return false;
  }
  if (inputs.empty()) {
    error = "--calibration: the model has no inputs to calibrate with";
    return false;
  }
  std::vector<std::string> files, folders;
  if (!listFolder(dir, files, folders, error)) {
    error = "--calibration: " + error;
    return false;
  }
  std::string inputNames;
  for (const GraphInput &input : inputs)
    inputNames += (inputNames.empty() ? "" : ", ") + input.name;

  if (folders.empty()) {
    // One file per sample: a model of one input only.
    std::vector<std::string> tensors;
    for (const std::string &file : files)
      if (isTensorFile(file))
        tensors.push_back(file);
    if (tensors.empty()) {
      error = "--calibration '" + dir + "' holds no samples (.npy or .pb files, or one folder " +
              "per sample)";
      return false;
    }
    if (inputs.size() > 1) {
      error = "--calibration '" + dir + "' holds files, but the model has " +
              std::to_string(inputs.size()) + " inputs (" + inputNames +
              "): give one folder per sample with a file per input";
      return false;
    }
    for (const std::string &file : tensors) {
      CalibrationSample sample;
      sample.name = llvm::sys::path::filename(file).str();
      sample.inputs.resize(1);
      if (!readSampleTensor(file, inputs[0], sample.inputs[0], error))
        return false;
      samples.push_back(std::move(sample));
    }
    return true;
  }
  for (const std::string &file : files)
    if (isTensorFile(file)) {
      error = "--calibration '" + dir + "' mixes sample folders and tensor files ('" +
              llvm::sys::path::filename(file).str() + "'): keep one layout";
      return false;
    }
  for (const std::string &folder : folders) {
    std::vector<std::string> entries, nested;
    if (!listFolder(folder, entries, nested, error)) {
      error = "--calibration: " + error;
      return false;
    }
    CalibrationSample sample;
    sample.name = llvm::sys::path::filename(folder).str();
    sample.inputs.resize(inputs.size());
    std::vector<std::string> found(inputs.size());
    for (const std::string &entry : entries) {
      if (!isTensorFile(entry))
        continue;
      llvm::StringRef stem = llvm::sys::path::stem(entry);
      std::optional<size_t> index;
      for (size_t i = 0; i < inputs.size(); ++i)
        if (stem == inputs[i].name || stem == "input_" + std::to_string(i))
          index = i;
      if (!index) {
        error = "--calibration: '" + entry + "' names no model input (inputs: " + inputNames +
                "; a file is named after its input or input_<index>)";
        return false;
      }
      if (!found[*index].empty()) {
        error = "--calibration: '" + folder + "' gives input '" + inputs[*index].name +
                "' twice ('" + llvm::sys::path::filename(found[*index]).str() + "' and '" +
                llvm::sys::path::filename(entry).str() + "')";
        return false;
      }
      found[*index] = entry;
      if (!readSampleTensor(entry, inputs[*index], sample.inputs[*index], error))
        return false;
    }
    for (size_t i = 0; i < inputs.size(); ++i)
      if (found[i].empty()) {
        error = "--calibration: sample '" + folder + "' has no file for input '" +
                inputs[i].name + "' (" + inputs[i].name + ".npy, " + inputs[i].name +
                ".pb or input_" + std::to_string(i) + ".pb)";
        return false;
      }
    samples.push_back(std::move(sample));
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The calibration run
//===----------------------------------------------------------------------===//

std::vector<GraphInput> graphInputs(mlir::ModuleOp module) {
  std::vector<GraphInput> inputs;
  mlir::func::FuncOp main = mainOf(module);
  if (!main)
    return inputs;
  for (mlir::BlockArgument arg : main.getArguments()) {
    GraphInput input;
    auto name = main.getArgAttrOfType<mlir::StringAttr>(arg.getArgNumber(), "vg.name");
    input.name = name ? name.getValue().str() : "input_" + std::to_string(arg.getArgNumber());
    if (auto type = llvm::dyn_cast<mlir::RankedTensorType>(arg.getType())) {
      input.dtype = dtypeOf(type.getElementType());
      input.shape.assign(type.getShape().begin(), type.getShape().end());
    }
    inputs.push_back(std::move(input));
  }
  return inputs;
}

int calibrate(mlir::ModuleOp module, const std::vector<CalibrationSample> &samples,
              const ObserverCompiler &compileObserver, const std::string &scratchDir,
              std::vector<ObservedTensor> &observed, CalibrationTimes &times,
              std::string &error) {
  auto compileStart = std::chrono::steady_clock::now();
  mlir::func::FuncOp main = mainOf(module);
  if (!main) {
    error = "--calibration: the graph has no @main";
    return 2;
  }
  std::vector<mlir::Value> values = observedValues(main);
  observed.clear();
  observed.resize(values.size());
  for (auto [index, value] : llvm::enumerate(values)) {
    ObservedTensor &tensor = observed[index];
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(value)) {
      tensor.resultNumber = arg.getArgNumber();
      tensor.opType = "input";
      auto name = main.getArgAttrOfType<mlir::StringAttr>(arg.getArgNumber(), "vg.name");
      tensor.label = name ? name.getValue().str() : "input_" + std::to_string(arg.getArgNumber());
    } else {
      auto result = llvm::cast<mlir::OpResult>(value);
      tensor.producer = result.getOwner();
      tensor.resultNumber = result.getResultNumber();
      tensor.opType = tensor.producer->getName().getStringRef().str();
      tensor.label = opLabel(tensor.producer);
    }
  }

  // The observer graph: the same ops, in fp32, with every observed op
  // result an extra output (graph inputs come from the samples directly).
  mlir::OwningOpRef<mlir::ModuleOp> observer(module.clone());
  mlir::func::FuncOp observerMain = mainOf(*observer);
  std::vector<mlir::Value> observerValues = observedValues(observerMain);
  mlir::Builder builder(observer->getContext());
  (*observer)->setAttr("vinci.precision_mode", builder.getStringAttr("must_keep_origin_dtype"));
  auto returnOp = llvm::cast<mlir::func::ReturnOp>(observerMain.getBody().back().getTerminator());
  unsigned numOutputs = returnOp.getNumOperands();
  // output index per observed tensor; -1 for a graph input
  std::vector<int64_t> outputOf(values.size(), -1);
  llvm::SmallVector<mlir::Value> returned(returnOp.getOperands());
  for (auto [index, value] : llvm::enumerate(observerValues)) {
    if (llvm::isa<mlir::BlockArgument>(value))
      continue;
    auto existing = llvm::find(returned, value);
    if (existing != returned.end()) {
      outputOf[index] = existing - returned.begin();
      continue;
    }
    outputOf[index] = returned.size();
    mlir::DictionaryAttr attrs = builder.getDictionaryAttr(builder.getNamedAttr(
        "vg.name", builder.getStringAttr("vinci.observed." + std::to_string(index))));
    if (failed(observerMain.insertResult(returned.size(), value.getType(), attrs))) {
      error = "--calibration: cannot expose a tensor of the graph as an output";
      return 2;
    }
    returned.push_back(value);
  }
  returnOp->setOperands(returned);
  (void)numOutputs;

  ScratchFolder scratch;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(
          scratchDir.empty() ? "vinci-calibration" : scratchDir + "/vinci-calibration",
          scratch.path)) {
    error = "--calibration: cannot create a scratch folder: " + ec.message();
    return 2;
  }
  llvm::SmallString<256> omPath(scratch.path);
  llvm::sys::path::append(omPath, "observer.om");
  if (int code = compileObserver(*observer, omPath.str().str())) {
    error = "--calibration: compiling the calibration build (the graph in fp32 with its "
            "tensors as outputs) failed (see above)";
    return code;
  }
  observer = nullptr;
  times.compileSeconds = secondsSince(compileStart);

  auto runStart = std::chrono::steady_clock::now();
  ModelHandle handle;
  if (vinci_status status = vinci_model_load_from_file(omPath.c_str(), &handle.model)) {
    error = runtimeError("--calibration: loading the calibration build", status);
    return 2;
  }
  vinci_context_options options;
  vinci_context_options_init(&options);
  if (vinci_status status = vinci_context_create(handle.model, &options, &handle.context)) {
    error = runtimeError("--calibration: creating a context for the calibration build", status);
    return 2;
  }
  uint32_t numModelInputs = vinci_model_num_inputs(handle.model);
  uint32_t numModelOutputs = vinci_model_num_outputs(handle.model);
  std::vector<std::vector<uint8_t>> outputs(numModelOutputs);
  std::vector<vinci_buffer> outputBuffers(numModelOutputs);
  std::vector<vinci_tensor_desc> outputDescs(numModelOutputs);
  for (uint32_t i = 0; i < numModelOutputs; ++i) {
    if (vinci_status status = vinci_model_get_output_desc(handle.model, i, &outputDescs[i])) {
      error = runtimeError("--calibration: the calibration build's output " + std::to_string(i),
                           status);
      return 2;
    }
    outputs[i].resize(outputDescs[i].size);
    outputBuffers[i] = {outputs[i].data(), outputs[i].size()};
  }
  for (size_t index = 0; index < values.size(); ++index)
    if (outputOf[index] >= 0 && outputDescs[outputOf[index]].dtype != VINCI_DTYPE_F32) {
      error = "--calibration: the calibration build stores '" + observed[index].label +
              "' as " + vinci_dtype_name(outputDescs[outputOf[index]].dtype) + ", not f32";
      return 2;
    }
  for (const CalibrationSample &sample : samples) {
    if (sample.inputs.size() != numModelInputs) {
      error = "--calibration: sample '" + sample.name + "' has " +
              std::to_string(sample.inputs.size()) + " inputs, the model " +
              std::to_string(numModelInputs);
      return 2;
    }
    std::vector<vinci_const_buffer> inputs;
    for (const tensorio::HostTensor &tensor : sample.inputs)
      inputs.push_back({tensor.data.data(), tensor.data.size()});
    if (vinci_status status =
            vinci_context_run(handle.context, inputs.data(), numModelInputs,
                              outputBuffers.data(), numModelOutputs)) {
      error = runtimeError("--calibration: running sample '" + sample.name + "'", status);
      return 1;
    }
    for (size_t index = 0; index < values.size(); ++index) {
      const uint8_t *data;
      size_t bytes;
      if (outputOf[index] < 0) {
        const tensorio::HostTensor &input =
            sample.inputs[llvm::cast<mlir::BlockArgument>(values[index]).getArgNumber()];
        data = input.data.data();
        bytes = input.data.size();
      } else {
        data = outputs[outputOf[index]].data();
        bytes = outputs[outputOf[index]].size();
      }
      observed[index].range.add(reinterpret_cast<const float *>(data), bytes / sizeof(float));
    }
  }
  times.runSeconds = secondsSince(runStart);
  return 0;
}

//===----------------------------------------------------------------------===//
// Range-checked precision
//===----------------------------------------------------------------------===//

std::vector<RangeKeep> keepOutOfRangeOps(mlir::ModuleOp module,
                                         const std::vector<ObservedTensor> &observed) {
  mlir::func::FuncOp main = mainOf(module);
  std::vector<mlir::Value> values = observedValues(main);
  // The tensors that do not fit, and (through views and data movement) the
  // tensors that carry their values on.
  llvm::DenseMap<mlir::Value, const ObservedTensor *> misfits;
  std::map<const ObservedTensor *, std::string> reasons;
  for (auto [index, value] : llvm::enumerate(values)) {
    std::string reason = fp16Misfit(observed[index].range);
    if (reason.empty())
      continue;
    misfits[value] = &observed[index];
    reasons[&observed[index]] = reason;
  }
  llvm::SetVector<mlir::Operation *> keep;
  llvm::DenseMap<mlir::Operation *, RangeKeep> why;
  auto mark = [&](mlir::Operation *op, const ObservedTensor *tensor, bool readsIt) {
    if (!keep.insert(op))
      return;
    RangeKeep entry;
    entry.label = opLabel(op);
    entry.opType = op->getName().getStringRef().str();
    entry.tensor = tensor->label;
    entry.min = tensor->range.min();
    entry.max = tensor->range.max();
    entry.maxAbs = tensor->range.maxAbs();
    entry.readsIt = readsIt;
    entry.reason = reasons[tensor];
    why.try_emplace(op, std::move(entry));
  };
  main.walk([&](mlir::Operation *op) {
    if (!op->getDialect() || op->getDialect()->getNamespace() != "vg")
      return;
    for (mlir::Value result : op->getResults())
      if (auto found = misfits.find(result); found != misfits.end())
        mark(op, found->second, /*readsIt=*/false);
    for (mlir::Value operand : op->getOperands()) {
      auto found = misfits.find(operand);
      if (found == misfits.end())
        continue;
      const ObservedTensor *tensor = found->second;
      if (carriesValues(op)) {
        // Its results hold the misfit's values: they do not fit either.
        mark(op, tensor, /*readsIt=*/false);
        for (mlir::Value result : op->getResults())
          if (isF32Tensor(result))
            misfits.try_emplace(result, tensor);
      } else if (computesValues(op)) {
        mark(op, tensor, /*readsIt=*/true);
      }
    }
  });
  mlir::UnitAttr unit = mlir::UnitAttr::get(module.getContext());
  std::vector<RangeKeep> kept;
  for (mlir::Operation *op : keep) {
    op->setAttr(kKeepDtypeAttr, unit);
    // A view is no kernel (its source's bytes under another shape): marked
    // so that the kernels it feeds see it kept, not listed.
    if (classifyOp(op) != OpRole::View)
      kept.push_back(why.find(op)->second);
  }
  return kept;
}

//===----------------------------------------------------------------------===//
// Quantisation parameters
//===----------------------------------------------------------------------===//

bool recordQuantParams(mlir::ModuleOp module, const std::string &configPath,
                       const QuantConfig &config, std::vector<ObservedTensor> &observed,
                       std::string &error) {
  mlir::MLIRContext *context = module.getContext();
  llvm::StringSet<> nodes, types;
  module.walk([&](mlir::Operation *op) {
    llvm::SmallVector<llvm::StringRef> names;
    collectNodeNames(op->getLoc(), names);
    for (llvm::StringRef name : names)
      nodes.insert(name);
    if (op->getDialect() && op->getDialect()->getNamespace() == "vg")
      types.insert(normalizedOpType(op->getName().getStringRef()));
  });
  for (const std::string &name : config.skipLayers)
    if (!nodes.contains(name)) {
      error = "--quant_config '" + configPath + "': \"skip_layers\" names '" + name +
              "', which no node of the model is (names are the ONNX nodes' name fields)";
      return false;
    }
  llvm::StringSet<> skipTypes;
  for (const std::string &type : config.skipLayerTypes) {
    if (!types.contains(normalizedOpType(type))) {
      error = "--quant_config '" + configPath + "': \"skip_layer_types\" names '" + type +
              "', which no op of the optimised graph has (vg op types such as Conv, MatMul: "
              "--emit=vg-opt shows them)";
      return false;
    }
    skipTypes.insert(normalizedOpType(type));
  }
  llvm::StringSet<> skipNodes;
  for (const std::string &name : config.skipLayers)
    skipNodes.insert(name);
  mlir::UnitAttr unit = mlir::UnitAttr::get(context);
  mlir::Builder builder(context);
  for (ObservedTensor &tensor : observed) {
    mlir::Operation *op = tensor.producer;
    if (!op)
      continue;
    bool skipped = skipTypes.contains(normalizedOpType(op->getName().getStringRef()));
    llvm::SmallVector<llvm::StringRef> names;
    collectNodeNames(op->getLoc(), names);
    for (llvm::StringRef name : names)
      skipped |= skipNodes.contains(name);
    if (skipped) {
      op->setAttr("vinci.quant_skip", unit);
      tensor.quantSkipped = true;
      continue;
    }
    QuantParams params = activationQuantParams(tensor.range, config.method, config.percentile,
                                               config.activationOffset);
    tensor.quant = params;
    op->setAttr("vinci.act_quant",
                builder.getF64ArrayAttr({params.scale, double(params.offset), params.low,
                                         params.high}));
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The report
//===----------------------------------------------------------------------===//

void reportCalibration(llvm::json::OStream &json, size_t numSamples, const CalibrationTimes &times,
                       const std::vector<ObservedTensor> &observed, const QuantConfig *config,
                       const std::vector<RangeKeep> &kept) {
  json.attributeObject("calibration", [&] {
    json.attribute("samples", int64_t(numSamples));
    json.attribute("note", "ranges from the model compiled in fp32 with these tensors as outputs, "
                           "run on the simulator once per sample");
    json.attribute("build_seconds", times.compileSeconds);
    json.attribute("run_seconds", times.runSeconds);
    if (config) {
      json.attribute("method", methodName(config->method));
      if (config->method == CalibrationMethod::Percentile)
        json.attribute("percentile", config->percentile);
      json.attribute("activation_offset", config->activationOffset);
    }
    json.attributeArray("tensors", [&] {
      for (const ObservedTensor &tensor : observed)
        json.object([&] {
          json.attribute("source_nodes", tensor.label);
          json.attribute("op", tensor.opType);
          json.attribute("min", tensor.range.min());
          json.attribute("max", tensor.range.max());
          json.attribute("max_abs", tensor.range.maxAbs());
          json.attribute("below_fp16_normal", tensor.range.fractionBelowFp16Normal());
          if (tensor.range.nonFinite())
            json.attribute("non_finite", int64_t(tensor.range.nonFinite()));
          if (tensor.quantSkipped)
            json.attribute("quantized", false);
          if (tensor.quant) {
            json.attribute("scale", tensor.quant->scale);
            json.attribute("offset", int64_t(tensor.quant->offset));
            json.attribute("clip_low", tensor.quant->low);
            json.attribute("clip_high", tensor.quant->high);
          }
        });
    });
  });
  json.attributeArray("range_checked_fp32", [&] {
    for (const RangeKeep &keep : kept)
      json.object([&] {
        json.attribute("source_nodes", keep.label);
        json.attribute("op", keep.opType);
        json.attribute(keep.readsIt ? "reads" : "produces", keep.tensor);
        json.attribute("min", keep.min);
        json.attribute("max", keep.max);
        json.attribute("max_abs", keep.maxAbs);
        json.attribute("reason", keep.reason);
      });
  });
}

} // namespace vinci::driver
