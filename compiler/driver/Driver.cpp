//===- Driver.cpp - the library behind vinci-compile ----------------------===//
#include "driver/Driver.h"
#include "driver/AippConfig.h"
#include "driver/Calibration.h"
#include "driver/FusionSwitch.h"
#include "driver/Gears.h"
#include "driver/InsertAipp.h"
#include "driver/KeepDtype.h"
#include "driver/SupportCheck.h"

#include "backend/Passes.h"
#include "dv/DvOps.h"
#include "onnx/OnnxImporter.h"
#include "passes/KernelRules.h"
#include "passes/Passes.h"
#include "passes/graph/Passes.h"
#include "ascendc/ExportAscendC.h"
#include "om/EmitOm.h"
#include "plan/TaskGraph.h"
#include "vg/VgOps.h"
#include "vinci/soc.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unistd.h> // environ

namespace vinci::driver {
namespace {

constexpr const char *kTool = "vinci-compile";

int fail(llvm::raw_ostream &err, const llvm::Twine &message, int code = 2) {
  err << kTool << ": error: " << message << "\n";
  return code;
}

double secondsSince(std::chrono::steady_clock::time_point from) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
}

std::string knownSocs() {
  std::string list;
  for (const soc::SocSpec *spec : soc::allSocs())
    list += (list.empty() ? "" : ", ") + std::string(spec->name);
  return list;
}

struct ModuleStats {
  int64_t ops = 0, constants = 0, weightBlobs = 0, weightBytes = 0;
  std::map<std::string, int64_t> opCounts;
};

ModuleStats collectStats(mlir::ModuleOp module) {
  ModuleStats stats;
  module.walk([&](mlir::Operation *op) {
    if (op->getDialect() == nullptr || op->getDialect()->getNamespace() != "vg")
      return;
    ++stats.ops;
    ++stats.opCounts[op->getName().getStringRef().str()];
    if (auto constant = llvm::dyn_cast<vg::ConstantOp>(op)) {
      ++stats.constants;
      if (auto blob = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(constant.getValue())) {
        ++stats.weightBlobs;
        if (auto *data = blob.getRawHandle().getBlob())
          stats.weightBytes += data->getData().size();
      }
    }
  });
  return stats;
}


/// Per-stage wall times, in the order they ran.
/// --log: how much goes to stderr besides the errors. Default: errors
/// and the one-line summary; error (or ATC's null): errors alone; warning:
/// MLIR's warnings too; info: a line per stage of each gear; debug: every
/// pass and its time too.
enum class LogLevel { Error, Default, Warning, Info, Debug };

std::optional<LogLevel> parseLogLevel(llvm::StringRef text) {
  return llvm::StringSwitch<std::optional<LogLevel>>(text)
      .Cases({"null", "error"}, LogLevel::Error)
      .Case("", LogLevel::Default)
      .Case("warning", LogLevel::Warning)
      .Case("info", LogLevel::Info)
      .Case("debug", LogLevel::Debug)
      .Default(std::nullopt);
}

struct CompileTimer {
  std::vector<std::pair<std::string, double>> passes;
  size_t passesRun = 0; // numbers the --dump_dir files across pass managers
  void record(std::string name, double seconds) { passes.emplace_back(std::move(name), seconds); }
};

mlir::OpPrintingFlags printFlags(bool printWeights) {
  mlir::OpPrintingFlags flags;
  // Local scope prints the module without its top-level sections, so the
  // weight blobs are neither hex-encoded nor printed: the IR names each
  // weight as dense_resource<name>, and dense constants over 16 elements
  // print as dense_resource<__elided__>. --print_weights keeps everything.
  if (!printWeights)
    flags.useLocalScope().elideLargeElementsAttrs(16);
  return flags;
}

std::string printModule(mlir::Operation *op, const mlir::OpPrintingFlags &flags) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, flags);
  return text;
}

std::string dumpPath(const std::string &dir, size_t index, llvm::StringRef stage) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, llvm::formatv("{0:d2}-{1}.mlir", index, stage).str());
  return path.str().str();
}

/// Times every pass and, with --dump_dir, writes the IR after each one.
class PassRecorder : public mlir::PassInstrumentation {
public:
  /// `debugLog`: where --log debug prints each pass (null: nowhere).
  PassRecorder(CompileTimer &timer, std::string dumpDir, mlir::OpPrintingFlags flags,
               llvm::raw_ostream *debugLog, std::string gearPrefix)
      : timer(timer), dumpDir(std::move(dumpDir)), flags(flags), debugLog(debugLog),
        gearPrefix(std::move(gearPrefix)) {}

  void runBeforePass(mlir::Pass *, mlir::Operation *) override {
    started = std::chrono::steady_clock::now();
  }
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    llvm::StringRef name = pass->getArgument().empty() ? pass->getName() : pass->getArgument();
    timer.record(name.str(), seconds);
    if (debugLog)
      *debugLog << kTool << ": debug: " << gearPrefix << "pass " << name << ": "
                << llvm::format("%.4f", seconds) << " s\n";
    size_t index = ++timer.passesRun;
    if (!dumpDir.empty()) {
      std::string error;
      (void)writeFileAtomically(dumpPath(dumpDir, index, name), printModule(op, flags), error);
    }
  }

private:
  CompileTimer &timer;
  std::string dumpDir;
  mlir::OpPrintingFlags flags;
  llvm::raw_ostream *debugLog;
  std::string gearPrefix;
  std::chrono::steady_clock::time_point started;
};

/// The graph-level rewrites, in order: fold, then recompose what exporters
/// decompose (each unless its GraphFusion switch is off), then clean up
/// what the rewrites left.
void buildGraphPipeline(mlir::PassManager &pm, const FusionSwitches &switches) {
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  if (switches.isOn("LayerNormFusion"))
    pm.addPass(graph::createFuseLayerNorm());
  if (switches.isOn("GeluFusion"))
    pm.addPass(graph::createFuseGelu());
  if (switches.isOn("QkvFusion"))
    pm.addPass(graph::createFuseQkv());
  if (switches.isOn("ConvBatchNormFusion"))
    pm.addPass(graph::createFoldBatchNorm());
  pm.addPass(graph::createExpandBatchNorm());
  pm.addPass(graph::createUnfoldWindows());
  pm.addPass(graph::createDecomposeResize());
  pm.addPass(mlir::createCanonicalizerPass());
}

/// From partitioned vg to placed, synchronised dv kernels.
mlir::LogicalResult buildKernelPipeline(mlir::PassManager &pm, const soc::SocSpec &soc,
                                        llvm::raw_ostream &err) {
  std::string pipeline = llvm::formatv("vinci-lower-kernels{{soc={0}},vinci-allocate-buffers,"
                                       "vinci-insert-sync",
                                       soc.name)
                             .str();
  std::string message;
  llvm::raw_string_ostream errors(message);
  if (failed(mlir::parsePassPipeline(pipeline, pm, errors))) {
    err << kTool << ": error: the kernel pipeline '" << pipeline
        << "' is not available in this build: "
        << llvm::StringRef(message).trim().split('\n').first << "\n";
    return mlir::failure();
  }
  return mlir::success();
}

/// The checked options every stage reads.
struct Settings {
  CompileOptions options; // --emit resolved
  const soc::SocSpec *soc = nullptr;
  FusionSwitches switches;
  std::string precisionMode;
  std::vector<KeepDtypeEntry> keepDtype;
  std::vector<AippConfig> aipp; // --insert_op_conf
  LogLevel log = LogLevel::Default;
  bool logs(LogLevel level) const { return log >= level; }
  std::optional<QuantConfig> quantConfig; // --quant_config (with --calibration)
  bool toKernels() const {
    return options.emit == "dv" || options.emit == "om" || options.emit == "ascendc";
  }
};

/// Where each gear's graph comes from: the ONNX model read once, or
/// another front end's one graph.
struct GearSource {
  GearPlan plan; // no gears: one static graph
  /// Reads the model into the compilation's context, once, before any gear
  /// (may be empty); false with one-line messages in `errors`.
  std::function<bool(mlir::MLIRContext &, std::vector<std::string> &errors)> prepare;
  std::function<mlir::OwningOpRef<mlir::ModuleOp>(mlir::MLIRContext &, size_t gear,
                                                  std::vector<std::string> &errors)>
      import;
  backend::ReleaseSource releaseWeightPages; // may be empty
};

/// What --calibration found, for the report.
struct CalibrationResult {
  size_t samples = 0;
  CalibrationTimes times;
  std::vector<ObservedTensor> observed;
  std::vector<RangeKeep> kept;
};

/// One gear's results (or the static model's), for the report.
struct GearResult {
  std::vector<int64_t> values;
  std::string label; // "" for a static model
  backend::TaskGraph tasks;
  backend::GearSummary om;
  CompileTimer timer;
  double seconds = 0;
  std::optional<CalibrationResult> calibration;
  /// The windows vinci-unfold-windows unfolded because no template takes
  /// them: node, op, the template's reason.
  std::vector<std::array<std::string, 3>> unfolded;
};

/// A gear's kernels, their roofline estimate and its arena, as the report
/// lists them. `om` holds the written .om's figures (its GM arena plan,
/// the one the runtime uses); without an .om the plan is the task list's.
void reportKernels(llvm::json::OStream &json, const GearResult &gear, bool withOm) {
  const backend::TaskGraph &tasks = gear.tasks;
  json.attribute("num_kernels", static_cast<int64_t>(tasks.tasks.size()));
  json.attributeArray("kernels", [&] {
    for (const backend::TaskInfo &task : tasks.tasks)
      json.object([&] {
        json.attribute("name", task.kernel);
        json.attribute("kind", task.kind);
        json.attributeArray("source_nodes", [&] {
          for (const std::string &node : task.sourceNodes)
            json.value(node);
        });
        json.attribute("flops", task.flops);
        json.attribute("gm_bytes", static_cast<int64_t>(task.gmBytes));
        json.attribute("estimated_cycles", static_cast<int64_t>(task.estimatedCycles));
        json.attribute("layout_conversions", task.layoutConversions);
      });
  });
  // NC1HWC0 between conv-family kernels (vinci-assign-layouts), and the
  // activations still converted on chip at the layout's boundaries.
  json.attribute("nc1hwc0_tensors", tasks.nc1hwc0Tensors);
  json.attribute("layout_conversions", tasks.layoutConversions);
  uint64_t cycles = 0;
  for (const backend::TaskInfo &task : tasks.tasks)
    cycles += task.estimatedCycles;
  json.attribute("estimated_cycles", static_cast<int64_t>(cycles));
  json.attributeArray("unfolded_windows", [&] {
    for (const auto &[node, op, reason] : gear.unfolded)
      json.object([&] {
        json.attribute("node", node);
        json.attribute("op", op);
        json.attribute("reason", reason);
      });
  });
  json.attribute("arena_bytes",
                 static_cast<int64_t>(withOm ? gear.om.arenaBytes : tasks.plan.arenaBytes));
  json.attribute("arena_lower_bound_bytes",
                 static_cast<int64_t>(withOm ? gear.om.arenaLowerBoundBytes
                                             : tasks.plan.arenaLowerBoundBytes));
}

void reportPassSeconds(llvm::json::OStream &json, const CompileTimer &timer) {
  json.attributeArray("pass_seconds", [&] {
    for (const auto &[name, seconds] : timer.passes)
      json.object([&] {
        json.attribute("pass", name);
        json.attribute("seconds", seconds);
      });
  });
}

/// The compile report: the model's kernels (per gear for a model with
/// gears), the GM arena plan, weights and .om sizes, and the pass times.
std::string renderReport(const Settings &settings, const GearPlan &plan,
                         const std::vector<GearResult> &gears, const backend::OmSummary *om,
                         double seconds) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, 2);
  json.object([&] {
    json.attribute("model", settings.options.model);
    json.attribute("soc_version", settings.soc->name);
    json.attribute("precision_mode", settings.precisionMode);
    json.attribute("note", "estimated_cycles is a per-kernel roofline estimate from the SoC table "
                           "(a 310P modelled from published numbers), not a measurement; "
                           "vinci-run reports the simulated cycles");
    if (!plan.hasGears()) {
      reportKernels(json, gears.front(), om != nullptr);
    } else {
      json.attribute("gear_option", plan.option());
      json.attributeArray("gears", [&] {
        for (const GearResult &gear : gears)
          json.object([&] {
            json.attributeArray("values", [&] {
              for (int64_t value : gear.values)
                json.value(value);
            });
            reportKernels(json, gear, om != nullptr);
            if (om) {
              json.attribute("new_kernel_programs", static_cast<int64_t>(gear.om.newKernels));
              json.attribute("shared_kernel_programs", static_cast<int64_t>(gear.om.sharedKernels));
            }
            json.attribute("compile_seconds", gear.seconds);
            reportPassSeconds(json, gear.timer);
          });
      });
    }
    uint64_t weights = om ? om->weightsBytes : gears.front().tasks.weightsBytes;
    json.attribute("weights_bytes", static_cast<int64_t>(weights));
    if (om) {
      json.attribute("kernel_programs", static_cast<int64_t>(om->numKernels));
      json.attribute("om_bytes", static_cast<int64_t>(om->fileBytes));
    }
    json.attribute("compile_seconds", seconds);
    if (!plan.hasGears())
      reportPassSeconds(json, gears.front().timer);
    if (const std::optional<CalibrationResult> &calibration = gears.front().calibration)
      reportCalibration(json, calibration->samples, calibration->times, calibration->observed,
                        settings.quantConfig ? &*settings.quantConfig : nullptr,
                        calibration->kept);
  });
  os << "\n";
  return text;
}

/// --out_nodes, --output_type and --input_fp16_nodes name ONNX nodes and
/// tensors, so the ONNX reader applies them; elsewhere they are an error.
int checkOnnxOnlyOptions(const CompileOptions &options, llvm::StringRef source,
                         llvm::raw_ostream &err) {
  for (auto [flag, value] : {std::pair{"--out_nodes", &options.outNodes},
                             std::pair{"--output_type", &options.outputType},
                             std::pair{"--input_fp16_nodes", &options.inputFp16Nodes}})
    if (!value->empty())
      return fail(err, llvm::Twine(flag) + " names the ONNX model's nodes and tensors: it is "
                       "not available for " + source + " (export the model to ONNX)");
  return 0;
}

/// --framework pytorch: the model is Python code (model.py:factory), so the
/// PyTorch front end runs in Python (vinci.torch_cli, from the vinci package
/// beside this tool), captures the module
/// and comes back into this library through the package's extension. The
/// child inherits stdout/stderr; its exit code is ours.
int compileWithPythonFrontEnd(const CompileOptions &options, llvm::raw_ostream &err) {
  if (!options.insertOpConf.empty())
    return fail(err, "--insert_op_conf is not available with --framework pytorch yet: export "
                     "the model to ONNX (or preprocess on the host)");
  if (int code = checkOnnxOnlyOptions(options, "--framework pytorch", err))
    return code;
  std::string python = "/usr/bin/python3";
  if (const char *chosen = std::getenv("VINCI_PYTHON"))
    python = chosen;
  if (!llvm::sys::fs::can_execute(python))
    return fail(err, "--framework pytorch runs the PyTorch front end with '" + python +
                         "', which is not installed (install python3 and python3-torch, or set "
                         "VINCI_PYTHON)");
  // The package beside this tool: <build>/python in a build tree, the
  // prefix's site directory once installed (a .deb, or a scratch root).
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  llvm::StringRef prefix = llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe));
  llvm::SmallString<256> package;
  for (llvm::StringRef site : {llvm::StringRef("python"), llvm::StringRef(VINCI_PYTHON_INSTALL_DIR)}) {
    llvm::SmallString<256> candidate(prefix);
    llvm::sys::path::append(candidate, site);
    if (llvm::sys::fs::exists(candidate + "/vinci/__init__.py")) {
      package = candidate;
      break;
    }
  }
  if (package.empty())
    return fail(err, "--framework pytorch needs the vinci Python package, not found in '" +
                         prefix + "/python' nor '" + prefix + "/" VINCI_PYTHON_INSTALL_DIR
                         "' (build it with cmake -DVINCI_BUILD_PYTHON=ON, or install the vinci "
                         "package)");

  std::vector<std::string> args = {python, "-m", "vinci.torch_cli"};
  auto pass = [&](const char *flag, const std::string &value) {
    if (!value.empty()) {
      args.push_back(flag);
      args.push_back(value);
    }
  };
  pass("--model", options.model);
  pass("--output", options.output);
  pass("--soc_version", options.socVersion);
  pass("--input_shape", options.inputShape);
  pass("--dynamic_batch_size", options.dynamicBatchSize);
  pass("--dynamic_image_size", options.dynamicImageSize);
  pass("--dynamic_dims", options.dynamicDims);
  pass("--input_format", options.inputFormat);
  pass("--const_input", options.constInput);
  pass("--emit", options.emit);
  pass("--dump_dir", options.dumpDir);
  pass("--report", options.report);
  pass("--fusion_switch_file", options.fusionSwitchFile);
  pass("--precision_mode", options.precisionMode);
  pass("--keep_dtype", options.keepDtype);
  pass("--log", options.log);
  pass("--calibration", options.calibration);
  pass("--quant_config", options.quantConfig);
  char clip[32];
  std::snprintf(clip, sizeof clip, "%.17g", options.softmaxClip);
  pass("--softmax_clip", clip);
  if (options.checkSupport)
    args.push_back("--check_support");
  if (options.printWeights)
    args.push_back("--print_weights");

  std::vector<std::string> environment;
  std::string pythonPath = "PYTHONPATH=" + package.str().str();
  for (char **entry = environ; *entry; ++entry) {
    llvm::StringRef variable(*entry);
    if (variable.consume_front("PYTHONPATH="))
      pythonPath += ":" + variable.str();
    else
      environment.push_back(*entry);
  }
  environment.push_back(pythonPath);

  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::vector<llvm::StringRef> envRefs(environment.begin(), environment.end());
  std::string message;
  int code = llvm::sys::ExecuteAndWait(python, argRefs, envRefs, {}, 0, 0, &message);
  if (code < 0)
    return fail(err, "cannot run the PyTorch front end ('" + python + "'): " + message);
  return code;
}

} // namespace

bool writeFileAtomically(const std::string &path, const std::string &contents,
                         std::string &error) {
  llvm::SmallString<256> temp(path);
  temp += ".tmp-%%%%%%";
  int fd = -1;
  llvm::SmallString<256> tempPath;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(temp, fd, tempPath)) {
    error = "cannot create a file beside '" + path + "': " + ec.message();
    return false;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    os.close();
    if (os.has_error()) {
      error = "cannot write '" + path + "': " + os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(tempPath);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tempPath, path)) {
    error = "cannot write '" + path + "': " + ec.message();
    llvm::sys::fs::remove(tempPath);
    return false;
  }
  return true;
}

namespace {

//===----------------------------------------------------------------------===//
// Validation: the options that need no model
//===----------------------------------------------------------------------===//

/// Fills `settings` from `requested`; 0, or the exit code after a one-line
/// error on `err`.
int validateOptions(const CompileOptions &requested, Settings &settings, llvm::raw_ostream &err) {
  CompileOptions &options = settings.options;
  options = requested;
  settings.soc = soc::findSoc(options.socVersion);
  if (!settings.soc)
    return fail(err, "unknown --soc_version '" + options.socVersion + "' (known: " + knownSocs() +
                         ")");
  if (options.emit.empty())
    options.emit = llvm::StringRef(options.output).ends_with(".om") ? "om" : "vg";
  if (options.emit != "vg" && options.emit != "vg-opt" && options.emit != "dv" &&
      options.emit != "om" && options.emit != "ascendc")
    return fail(err, "unknown --emit '" + options.emit + "' (available: vg, vg-opt, dv, om, ascendc)");
  if (options.emit == "om" && options.output.empty())
    return fail(err, "--emit=om writes a file: give it with --output model.om");
  if (options.emit == "ascendc" && options.output.empty())
    return fail(err, "--emit=ascendc writes a folder: give it with --output DIR");
  if (options.emit == "ascendc" && !(settings.soc = soc::ascendCTarget(*settings.soc)))
    return fail(err, "--emit=ascendc targets Ascend310P3 (--soc_version '" + options.socVersion +
                         "' is another SoC)");
  if (!options.fusionSwitchFile.empty()) {
    std::string error;
    if (!settings.switches.load(options.fusionSwitchFile, error))
      return fail(err, error);
  }
  if (!(options.softmaxClip > 0) || !std::isfinite(options.softmaxClip))
    return fail(err, "--softmax_clip must be a positive number (default 50), got " +
                         std::to_string(options.softmaxClip));
  std::string error;
  settings.precisionMode = resolvePrecisionMode(options.precisionMode, *settings.soc, error);
  if (settings.precisionMode.empty())
    return fail(err, error);
  if (!options.keepDtype.empty() && !loadKeepDtype(options.keepDtype, settings.keepDtype, error))
    return fail(err, error);
  if (!options.insertOpConf.empty() && !parseAippConfig(options.insertOpConf, settings.aipp, error))
    return fail(err, "--insert_op_conf " + error);
  std::optional<LogLevel> log = parseLogLevel(options.log);
  if (!log)
    return fail(err, "unknown --log '" + options.log +
                         "' (known: null, error, warning, info, debug)");
  settings.log = *log;
  if (!options.quantConfig.empty()) {
    if (options.calibration.empty())
      return fail(err, "--quant_config '" + options.quantConfig +
                           "' needs --calibration DIR (the samples its ranges come from)");
    settings.quantConfig.emplace();
    if (!loadQuantConfig(options.quantConfig, *settings.quantConfig, error))
      return fail(err, error);
  }
  if (!options.calibration.empty()) {
    if (!llvm::sys::fs::is_directory(options.calibration))
      return fail(err, "--calibration '" + options.calibration +
                           "' is not a folder (give a folder of samples: one sub-folder per "
                           "sample with a .npy or .pb file per input)");
    if (options.emit == "vg")
      return fail(err, "--calibration observes the optimised graph: --emit=vg prints the "
                       "import, before it (use --emit=vg-opt, dv or om)");
  }
  return 0;
}

/// A model with gears is only an .om: the IR of one gear is one static
/// shape, which --input_shape without -1 shows.
int checkGearEmission(const Settings &settings, const GearPlan &plan, llvm::raw_ostream &err) {
  if (plan.hasGears() && !settings.options.calibration.empty())
    return fail(err, "--calibration with " + std::string(plan.option()) +
                         " is not implemented yet: calibrate one static shape (--input_shape "
                         "without -1)");
  if (plan.hasGears() && settings.options.emit != "om")
    return fail(err, std::string(plan.option()) + " compiles an .om; --emit=" +
                         settings.options.emit +
                         " prints one static graph: give one gear's shape in --input_shape "
                         "(without -1) to see its IR");
  return 0;
}

/// The keys of the context's resource blobs (the weights and the constants
/// passes made).
std::set<std::string> blobKeys(mlir::MLIRContext &context) {
  std::set<std::string> keys;
  mlir::DenseResourceElementsHandle::getManagerInterface(&context).getBlobManager().getBlobMap(
      [&](const llvm::StringMap<mlir::DialectResourceBlobManager::BlobEntry> &map) {
        for (const auto &entry : map)
          keys.insert(entry.getKey().str());
      });
  return keys;
}

/// Frees the blobs a gear's passes made (keys not in `beforePasses`) that
/// the .om does not stream from: with the gear's module gone, nothing reads
/// them again (a weight joined again for a later gear, equal to the first
/// gear's, is one of them), and their heap copies would add up over gears.
void releasePassBlobs(mlir::MLIRContext &context, const std::set<std::string> &beforePasses,
                      const backend::OmBuilder &builder) {
  auto &manager = mlir::DenseResourceElementsHandle::getManagerInterface(&context).getBlobManager();
  for (const std::string &key : blobKeys(context)) {
    if (beforePasses.count(key))
      continue;
    mlir::DialectResourceBlobManager::BlobEntry *entry = manager.lookup(key);
    mlir::AsmResourceBlob *blob = entry ? entry->getBlob() : nullptr;
    if (blob && !builder.streamsFrom(blob->getData().data()))
      entry->setBlob(mlir::AsmResourceBlob());
  }
}

//===----------------------------------------------------------------------===//
// One compilation: import, graph and kernel stages per gear, then the .om
//===----------------------------------------------------------------------===//

class Compilation {
public:
  Compilation(const Settings &settings, llvm::raw_ostream &err, CompileObserver *observer)
      : settings(settings), options(settings.options), err(err), observer(observer),
        diagnostics(&context, [this](mlir::Diagnostic &diag) {
          // MLIR's errors go to `err` as MLIR's default handler prints them
          // (errors only, one line each), with the gear they arose in.
          bool error = diag.getSeverity() == mlir::DiagnosticSeverity::Error;
          bool warning = diag.getSeverity() == mlir::DiagnosticSeverity::Warning &&
                         this->settings.logs(LogLevel::Warning);
          if (!error && !warning)
            return mlir::success();
          if (error && this->observer)
            this->observer->diagnostic(diag);
          if (!llvm::isa<mlir::UnknownLoc>(diag.getLocation()))
            this->err << diag.getLocation() << ": ";
          this->err << (error ? "error: " : "warning: ") << gearPrefix << diag << "\n";
          return mlir::success();
        }) {
    context.disableMultithreading();
  }

  int run(GearSource &source, llvm::raw_ostream &out);

private:
  int importGear(GearSource &source, size_t gear, mlir::OwningOpRef<mlir::ModuleOp> &module,
                 GearResult &result);
  int graphStage(mlir::ModuleOp module, GearResult &result);
  int calibrationStage(mlir::ModuleOp module, GearResult &result);
  mlir::LogicalResult unfoldKeptConvs(mlir::ModuleOp module);
  int compileObserver(mlir::ModuleOp observer, const std::string &omPath);
  int kernelStage(mlir::ModuleOp module, GearResult &result);
  int emitText(mlir::ModuleOp module, llvm::raw_ostream &out);

  std::unique_ptr<mlir::PassManager> passManager(GearResult &result) {
    auto pm = std::make_unique<mlir::PassManager>(&context);
    pm->addInstrumentation(std::make_unique<PassRecorder>(
        result.timer, dumpDir, printFlags(options.printWeights),
        settings.logs(LogLevel::Debug) ? &err : nullptr, gearPrefix));
    return pm;
  }
  /// A --log info line about the gear being compiled.
  void info(const llvm::Twine &message) {
    if (settings.logs(LogLevel::Info))
      err << kTool << ": info: " << gearPrefix << message << "\n";
  }
  /// "model.onnx" or "model.onnx (gear 1,128)", for messages.
  std::string where() const { return options.model + gearSuffix; }

  const Settings &settings;
  const CompileOptions &options;
  llvm::raw_ostream &err;
  // Sees every error, and the first gear's partition and lowering.
  CompileObserver *observer;
  bool observeGear = true;
  mlir::MLIRContext context;
  mlir::ScopedDiagnosticHandler diagnostics;
  std::string gearPrefix, gearSuffix; // the gear being compiled, in messages
  std::string dumpDir;                // this gear's --dump_dir folder
  ModuleStats stats;                  // of the first gear's import
};

int Compilation::importGear(GearSource &source, size_t gear,
                            mlir::OwningOpRef<mlir::ModuleOp> &module, GearResult &result) {
  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> errors;
  module = source.import(context, gear, errors);
  if (!module) {
    for (const std::string &message : errors)
      err << kTool << ": error: " << where() << ": " << message << "\n";
    if (errors.empty())
      err << kTool << ": error: " << where() << ": import failed\n";
    return errors.empty() || errors.back().find("unsupported operators") == std::string::npos ? 2
                                                                                                 : 1;
  }
  if (!settings.aipp.empty()) {
    std::string error;
    if (!insertAipp(*module, settings.aipp, error))
      return fail(err, "--insert_op_conf " + error);
  }
  result.timer.record("import", secondsSince(start));
  if (!dumpDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpDir))
      return fail(err, "cannot create --dump_dir '" + dumpDir + "': " + ec.message());
    std::string error;
    if (!writeFileAtomically(dumpPath(dumpDir, 0, "import"),
                             printModule(*module, printFlags(options.printWeights)), error))
      return fail(err, error);
  }
  if (!settings.keepDtype.empty()) {
    std::string error;
    if (!checkKeepDtypeNames(*module, options.keepDtype, settings.keepDtype, error))
      return fail(err, error);
  }
  // The softmax template reads its protection from the module; the
  // lowering templates read the precision mode (passes/Precision).
  mlir::Builder attrs(&context);
  (*module)->setAttr("vinci.precision_mode", attrs.getStringAttr(settings.precisionMode));
  if (options.softmaxClip != CompileOptions().softmaxClip)
    (*module)->setAttr("vinci.softmax_clip", attrs.getF64FloatAttr(options.softmaxClip));
  if (!settings.switches.isOn("SoftmaxProtection"))
    (*module)->setAttr("vinci.softmax_unprotected", attrs.getUnitAttr());
  if (gear == 0)
    stats = collectStats(*module);
  return 0;
}

/// A conv marked to keep fp32 after the graph passes (--keep_dtype,
/// range-checked precision) that the Cube conv template would have taken
/// in f16 unfolds: im2col on the Vector unit, its replacement kept too
/// (the 310P Cube takes no fp32).
mlir::LogicalResult Compilation::unfoldKeptConvs(mlir::ModuleOp module) {
  mlir::PassManager pm(&context);
  pm.addPass(graph::createUnfoldWindows());
  return pm.run(module);
}

/// Graph passes (what --emit=vg-opt shows), then the marks kernels are made
/// from: --keep_dtype and allow_mix_precision, after the graph passes, which
/// replace ops (a fused op keeps its nodes' names).
int Compilation::graphStage(mlir::ModuleOp module, GearResult &result) {
  if (options.emit != "vg") {
    auto pm = passManager(result);
    buildGraphPipeline(*pm, settings.switches);
    if (failed(pm->run(module)))
      return fail(err, where() + ": the graph passes failed (see the diagnostics above)");
  }
  if (!settings.keepDtype.empty()) {
    std::string error;
    if (!applyKeepDtype(module, options.keepDtype, settings.keepDtype, error))
      return fail(err, error);
    if (failed(unfoldKeptConvs(module)))
      return fail(err, where() + ": unfolding the convs --keep_dtype keeps failed");
  }
  if (settings.precisionMode == "allow_mix_precision")
    markMixPrecisionOps(module);
  return 0;
}

/// --calibration: the optimised graph's ranges over the samples (from its
/// fp32 build, run on the simulator); then, under a float precision mode,
/// the ops whose ranges do not fit fp16 keep fp32, and with --quant_config
/// each op gets its activation quantisation.
int Compilation::calibrationStage(mlir::ModuleOp module, GearResult &result) {
  if (options.calibration.empty())
    return 0;
  std::vector<CalibrationSample> samples;
  std::string error;
  if (!loadCalibrationSet(options.calibration, graphInputs(module), samples, error))
    return fail(err, error);
  CalibrationResult &calibration = result.calibration.emplace();
  calibration.samples = samples.size();
  llvm::SmallString<256> scratch;
  llvm::sys::path::system_temp_directory(/*erasedOnReboot=*/true, scratch);
  if (int code = calibrate(
          module, samples,
          [&](mlir::ModuleOp observer, const std::string &omPath) {
            return compileObserver(observer, omPath);
          },
          scratch.str().str(), calibration.observed, calibration.times, error))
    return fail(err, where() + ": " + error, code);
  if (settings.quantConfig &&
      !recordQuantParams(module, options.quantConfig, *settings.quantConfig, calibration.observed,
                         error))
    return fail(err, error);
  if (settings.precisionMode != "must_keep_origin_dtype") {
    calibration.kept = keepOutOfRangeOps(module, calibration.observed);
    if (failed(unfoldKeptConvs(module)))
      return fail(err, where() + ": unfolding the convs range-checked precision keeps failed");
  }
  result.timer.record("calibration", calibration.times.compileSeconds +
                                         calibration.times.runSeconds);
  err << kTool << ": calibration: " << samples.size() << " samples, "
      << calibration.observed.size() << " tensors observed in "
      << llvm::format("%.1f", calibration.times.compileSeconds + calibration.times.runSeconds)
      << " s (fp32 build " << llvm::format("%.1f", calibration.times.compileSeconds)
      << " s, simulator " << llvm::format("%.1f", calibration.times.runSeconds) << " s)";
  if (settings.precisionMode != "must_keep_origin_dtype")
    err << "; " << calibration.kept.size() << " ops keep fp32 (ranges outside fp16"
        << (options.report.empty() ? "" : ", listed in the report") << ")";
  err << "\n";
  return 0;
}

/// The calibration build: `observer` (the optimised graph in fp32 with its
/// tensors as outputs) through the kernel stage into an .om, with the
/// default fusions, no report, no observer hooks and no dumps.
int Compilation::compileObserver(mlir::ModuleOp observer, const std::string &omPath) {
  observer->setAttr(dv::DVDialect::kSocAttrName,
                    mlir::Builder(observer.getContext()).getStringAttr(settings.soc->name));
  mlir::PassManager pm(&context);
  // Windows the Cube conv template took in f16 unfold for the Vector unit.
  pm.addPass(graph::createUnfoldWindows());
  pm.addPass(createNarrowInt64());
  pm.addPass(createMaterializeOutputs());
  pm.addPass(createPartitionKernels(PartitionKernelsOptions{true, true, true},
                                    backend::templateCapabilities()));
  if (failed(buildKernelPipeline(pm, *settings.soc, err)))
    return 2;
  if (failed(pm.run(observer)))
    return 1;
  backend::OmOptions omOptions;
  omOptions.modelName = llvm::sys::path::stem(options.model).str() + "-calibration";
  backend::OmBuilder builder(*settings.soc, std::move(omOptions));
  backend::GearSummary gear;
  backend::OmSummary summary;
  std::string error;
  if (!builder.addGear(observer, {}, gear, error) || !builder.write(omPath, summary, error))
    return fail(err, where() + ": the calibration build: " + error);
  return 0;
}

/// Kernels: the partition and its task list (for the report), then the
/// lowering to dv kernels and the kernel passes (what --emit=dv shows).
int Compilation::kernelStage(mlir::ModuleOp module, GearResult &result) {
  if (options.report.empty() && !settings.toKernels())
    return 0;
  if (auto unfolded = module->getAttrOfType<mlir::ArrayAttr>(kUnfoldedWindowsAttr))
    for (mlir::Attribute entry : unfolded) {
      auto dict = mlir::cast<mlir::DictionaryAttr>(entry);
      auto text = [&](llvm::StringRef key) {
        auto value = dict.getAs<mlir::StringAttr>(key);
        return value ? value.getValue().str() : std::string();
      };
      result.unfolded.push_back({text("node"), text("op"), text("reason")});
    }
  {
    // The target, for the templates the partition asks (and the lowering).
    module->setAttr(dv::DVDialect::kSocAttrName,
                    mlir::Builder(module.getContext()).getStringAttr(settings.soc->name));
    auto pm = passManager(result);
    pm->addPass(createNarrowInt64());
    pm->addPass(createMaterializeOutputs());
    pm->addPass(createSplitWideConcats());
    pm->addPass(createPartitionKernels(
        PartitionKernelsOptions{settings.switches.isOn("CubeEpilogueFusion"),
                                settings.switches.isOn("ElementwiseFusion"),
                                settings.switches.isOn("AttentionFusion"),
                                settings.switches.isOn("SoftmaxPrologueFusion")},
        backend::templateCapabilities()));
    pm->addPass(createAssignLayouts(backend::templateCapabilities()));
    if (failed(pm->run(module)))
      return fail(err, where() + ": partitioning into kernels failed");
    if (observer && observeGear)
      observer->partitioned(module);
  }
  if (!options.report.empty()) {
    std::string error;
    auto graph = module.lookupSymbol<mlir::func::FuncOp>("main");
    if (!backend::buildTaskGraph(module, graph, *settings.soc, result.tasks, error))
      return fail(err, where() + ": " + error);
  }
  if (!settings.toKernels())
    return 0;
  auto pm = passManager(result);
  if (failed(buildKernelPipeline(*pm, *settings.soc, err)))
    return 2;
  bool lowered = succeeded(pm->run(module));
  if (observer && observeGear)
    observer->lowered(module);
  if (!lowered)
    return fail(err, where() + ": lowering to Da Vinci kernels failed (see above)", 1);
  return 0;
}

/// --emit=vg, vg-opt or dv: the module's text, to --output or `out`.
int Compilation::emitText(mlir::ModuleOp module, llvm::raw_ostream &out) {
  std::string text = printModule(module, printFlags(options.printWeights));
  if (options.output.empty()) {
    out << text;
    return 0;
  }
  std::string error;
  if (!writeFileAtomically(options.output, text, error))
    return fail(err, error);
  return 0;
}

int Compilation::run(GearSource &source, llvm::raw_ostream &out) {
  auto start = std::chrono::steady_clock::now();
  const GearPlan &plan = source.plan;
  size_t numGears = plan.hasGears() ? plan.gears.size() : 1;

  std::optional<backend::OmBuilder> builder;
  if (options.emit == "om") {
    backend::OmOptions omOptions;
    omOptions.modelName = llvm::sys::path::stem(options.model).str();
    omOptions.gearKind = static_cast<uint8_t>(plan.kind);
    for (const GearDim &dim : plan.dims)
      omOptions.gearDims.push_back({dim.value, dim.input, dim.axis});
    omOptions.releaseSource = source.releaseWeightPages;
    builder.emplace(*settings.soc, std::move(omOptions));
  }

  if (source.prepare) {
    std::vector<std::string> errors;
    if (!source.prepare(context, errors)) {
      // The model file's own errors (compiler/onnx/ModelFile.cpp) name the file.
      for (const std::string &message : errors)
        err << kTool << ": error: "
            << (llvm::StringRef(message).starts_with("'" + options.model + "'")
                    ? ""
                    : options.model + ": ")
            << message << "\n";
      return 2;
    }
  }
  std::vector<GearResult> results(numGears);
  for (size_t gear = 0; gear < numGears; ++gear) {
    auto gearStart = std::chrono::steady_clock::now();
    GearResult &result = results[gear];
    if (plan.hasGears()) {
      result.values = plan.gears[gear].values;
      result.label = plan.label(gear);
      gearPrefix = "gear " + result.label + ": ";
      gearSuffix = " (gear " + result.label + ")";
    }
    observeGear = gear == 0;
    dumpDir = options.dumpDir;
    if (!dumpDir.empty() && plan.hasGears())
      dumpDir = (llvm::Twine(dumpDir) + "/gear-" + result.label).str();

    mlir::OwningOpRef<mlir::ModuleOp> module;
    if (int code = importGear(source, gear, module, result))
      return code;
    info(where() + ": imported, " + llvm::Twine(collectStats(*module).ops) + " vg ops");
    std::set<std::string> importedBlobs = builder ? blobKeys(context) : std::set<std::string>();
    if (int code = graphStage(*module, result))
      return code;
    if (options.emit != "vg")
      info("graph passes done, " + llvm::Twine(collectStats(*module).ops) + " vg ops");
    if (int code = calibrationStage(*module, result))
      return code;
    if (options.emit == "vg" || options.emit == "vg-opt") {
      // The text is the graph before partitioning; the report goes on.
      if (int code = emitText(*module, out))
        return code;
    }
    if (int code = kernelStage(*module, result))
      return code;
    if (settings.toKernels())
      info("partitioned and lowered: " +
           llvm::Twine(llvm::range_size(module->getOps<dv::KernelOp>())) + " kernels");
    if (options.emit == "dv")
      if (int code = emitText(*module, out))
        return code;
    if (options.emit == "ascendc") {
      backend::AscendCSummary exported;
      std::string error;
      if (!backend::exportAscendC(*module, llvm::sys::path::stem(options.model).str(),
                                  options.output, exported, error))
        return fail(err, options.model + ": " + error, 1);
    }
    if (builder) {
      auto emitStart = std::chrono::steady_clock::now();
      std::string error;
      if (!builder->addGear(*module, result.values, result.om, error))
        return fail(err, where() + ": " + error);
      result.timer.record("emit-om", secondsSince(emitStart));
    }
    // The module goes; weights stay in the context for the .om writer, and
    // the pages of mapped ones the passes touched leave the process.
    module = nullptr;
    if (builder)
      releasePassBlobs(context, importedBlobs, *builder);
    if (source.releaseWeightPages)
      source.releaseWeightPages(nullptr, 0);
    result.seconds = secondsSince(gearStart);
  }
  gearPrefix.clear();
  gearSuffix.clear();

  backend::OmSummary summary;
  if (builder) {
    auto writeStart = std::chrono::steady_clock::now();
    std::string error;
    if (!builder->write(options.output, summary, error))
      return fail(err, options.model + ": " + error);
    results.back().timer.record("write-om", secondsSince(writeStart));
    info("wrote " + options.output + " (" + llvm::Twine(summary.fileBytes) + " bytes)");
  }
  if (!options.report.empty()) {
    std::string reportText = renderReport(settings, plan, results, builder ? &summary : nullptr,
                                          secondsSince(start));
    std::string error;
    if (!writeFileAtomically(options.report, reportText, error))
      return fail(err, error);
  }

  if (!settings.logs(LogLevel::Default))
    return 0;
  err << kTool << ": imported " << options.model << " for " << settings.soc->name << ": "
      << stats.ops << " vg ops (" << stats.constants << " constants, " << stats.weightBlobs
      << " weight blobs, " << llvm::format("%.1f", stats.weightBytes / 1e6) << " MB), emitted "
      << options.emit;
  if (plan.hasGears())
    err << " with " << numGears << " gears (" << plan.option() << ")";
  err << " in " << llvm::format("%.2f", secondsSince(start)) << " s";
  if (!options.output.empty())
    err << "; wrote " << options.output;
  if (!options.report.empty())
    err << "; report " << options.report;
  err << "\n";
  return 0;
}

/// The -1 dims of --input_shape must be dims the model leaves open.
std::string checkGearDims(const GearPlan &plan,
                          const std::vector<onnx_import::DeclaredInput> &inputs) {
  for (const GearDim &dim : plan.dims)
    for (const onnx_import::DeclaredInput &input : inputs)
      if (input.name == dim.input && input.hasShape && dim.axis < input.dims.size() &&
          input.dims[dim.axis] >= 0)
        return "--input_shape gives input '" + dim.input + "' dim " + std::to_string(dim.axis) +
               " = -1 (set by " + plan.option() + "), but the model fixes it to " +
               std::to_string(input.dims[dim.axis]);
  return "";
}

} // namespace

CompileObserver::~CompileObserver() = default;
void CompileObserver::diagnostic(const mlir::Diagnostic &) {}
void CompileObserver::partitioned(mlir::ModuleOp) {}
void CompileObserver::lowered(mlir::ModuleOp) {}

int compile(const CompileOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err,
            CompileObserver *observer) {
  std::string framework = llvm::StringRef(options.framework).lower();
  if (framework == "pytorch")
    return compileWithPythonFrontEnd(options, err);
  if (framework != "5" && framework != "onnx")
    return fail(err, "unknown --framework '" + options.framework +
                         "' (known: 5 or onnx, and pytorch for model.py:factory)");
  if (!soc::findSoc(options.socVersion))
    return fail(err, "unknown --soc_version '" + options.socVersion + "' (known: " + knownSocs() +
                         ")");
  if (options.model.empty())
    return fail(err, "--model is required (an .onnx file)");
  if (!llvm::sys::fs::exists(options.model))
    return fail(err, "--model '" + options.model + "' does not exist");
  if (llvm::sys::fs::is_directory(options.model))
    return fail(err, "--model '" + options.model + "' is a folder, not an .onnx file");
  if (options.mode != "0" && options.mode != "3")
    return fail(err, "--mode " + options.mode + " compiles no model: --mode=1 converts an .om "
                     "to JSON (with --om and --json); the known modes are 0, 1 and 3");
  if (options.checkSupport || options.mode == "3") {
    SupportCheckResult result;
    int code = checkSupport(options, out, err, &result);
    if (options.mode != "3" || code == 2)
      return code;
    // ATC's --mode=3 writes check_result.json (here, or to --json).
    std::string path = options.json.empty() ? "check_result.json" : options.json, error;
    if (!writeFileAtomically(path, checkResultJson(result), error))
      return fail(err, error);
    return code;
  }

  GearSource source;
  std::string error = parseGearPlan(ShapeOptions{options.inputShape, options.dynamicBatchSize,
                                                 options.dynamicImageSize, options.dynamicDims,
                                                 options.inputFormat},
                                    source.plan);
  if (!error.empty())
    return fail(err, error);
  onnx_import::ImportOptions importOptions;
  if (!options.constInput.empty())
    error = onnx_import::parseConstInputs(options.constInput, importOptions.constInputs);
  if (error.empty() && !options.outNodes.empty())
    error = onnx_import::parseOutNodes(options.outNodes, importOptions.outNodes);
  if (error.empty() && !options.outputType.empty())
    error = onnx_import::parseOutputTypes(options.outputType, importOptions.outputTypes);
  if (error.empty() && !options.inputFp16Nodes.empty())
    error = onnx_import::parseFp16Inputs(options.inputFp16Nodes, importOptions.fp16Inputs);
  if (!error.empty())
    return fail(err, error);
  Settings settings;
  if (int code = validateOptions(options, settings, err))
    return code;
  if (int code = checkGearEmission(settings, source.plan, err))
    return code;

  // The model is read once, by the first gear's import, into the
  // compilation's context; every gear's graph shares its weights.
  std::unique_ptr<onnx_import::OnnxModel> model;
  source.prepare = [&](mlir::MLIRContext &context, std::vector<std::string> &errors) {
    model = onnx_import::OnnxModel::load(context, options.model, errors);
    if (!model)
      return false;
    if (std::string fault = checkGearDims(source.plan, model->inputs()); !fault.empty()) {
      errors.push_back(fault);
      return false;
    }
    return true;
  };
  source.import = [&](mlir::MLIRContext &, size_t gear,
                      std::vector<std::string> &errors) -> mlir::OwningOpRef<mlir::ModuleOp> {
    importOptions.inputShapes = source.plan.hasGears() ? source.plan.gears[gear].shapes
                                                       : source.plan.staticShapes();
    return model->import(importOptions, errors);
  };
  source.releaseWeightPages = [&](const void *data, size_t size) {
    if (!model)
      return;
    if (data)
      model->releaseWeightPages(data, size);
    else
      model->releaseAllWeightPages();
  };
  Compilation compilation(settings, err, observer);
  return compilation.run(source, out);
}

int compileImported(const CompileOptions &options, const ModuleImporter &importer,
                    llvm::raw_ostream &out, llvm::raw_ostream &err, CompileObserver *observer) {
  if (!options.dynamicBatchSize.empty() || !options.dynamicImageSize.empty() ||
      !options.dynamicDims.empty())
    return fail(err, "--dynamic_batch_size, --dynamic_image_size and --dynamic_dims need an ONNX "
                     "model (one graph per gear): export the module with torch.onnx.export and "
                     "dynamic_axes, then compile the .onnx");
  if (int code = checkOnnxOnlyOptions(options, "a module from another front end", err))
    return code;
  Settings settings;
  if (int code = validateOptions(options, settings, err))
    return code;
  GearSource source;
  source.import = [&](mlir::MLIRContext &context, size_t,
                      std::vector<std::string> &errors) { return importer(context, errors); };
  Compilation compilation(settings, err, observer);
  return compilation.run(source, out);
}

} // namespace vinci::driver
