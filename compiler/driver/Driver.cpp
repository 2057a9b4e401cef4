//===- Driver.cpp - the library behind vinci-compile ----------------------===//
#include "driver/Driver.h"
#include "driver/AippConfig.h"
#include "driver/FusionSwitch.h"
#include "driver/InsertAipp.h"
#include "driver/KeepDtype.h"

#include "backend/Passes.h"
#include "dv/DvOps.h"
#include "onnx/OnnxImporter.h"
#include "passes/Passes.h"
#include "passes/graph/Passes.h"
#include "om/EmitOm.h"
#include "plan/TaskGraph.h"
#include "vg/VgOps.h"
#include "vinci/soc.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h> // environ
#include <map>

namespace vinci::driver {
namespace {

constexpr const char *kTool = "vinci-compile";

int fail(llvm::raw_ostream &err, const llvm::Twine &message, int code = 2) {
  err << kTool << ": error: " << message << "\n";
  return code;
}

std::string knownSocs() {
  std::string list;
  for (const soc::SocSpec *spec : soc::allSocs())
    list += (list.empty() ? "" : ", ") + std::string(spec->name);
  return list;
}

int printSupportReport(const std::string &model, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  onnx_import::SupportReport report;
  std::string error;
  if (!onnx_import::checkOnnxSupport(model, report, error))
    return fail(err, error);
  out << "Operator support report for " << model << "\n";
  out << llvm::format("%-28s %6s %6s  %s\n", "op type", "opset", "count", "status");
  int64_t unsupported = 0;
  for (const onnx_import::OpSupport &op : report.ops) {
    std::string name = (op.domain.empty() ? "" : op.domain + ".") + op.opType;
    out << llvm::format("%-28s %6lld %6lld  %s\n", name.c_str(), (long long)op.opset,
                        (long long)op.count, op.supported ? "supported" : "UNSUPPORTED");
    if (!op.supported)
      unsupported += op.count;
  }
  out << (report.allSupported()
              ? std::string("All operators are supported.\n")
              : std::to_string(unsupported) + " node(s) use unsupported operators.\n");
  return report.allSupported() ? 0 : 1;
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
  PassRecorder(CompileTimer &timer, std::string dumpDir, mlir::OpPrintingFlags flags)
      : timer(timer), dumpDir(std::move(dumpDir)), flags(flags) {}

  void runBeforePass(mlir::Pass *, mlir::Operation *) override {
    started = std::chrono::steady_clock::now();
  }
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    llvm::StringRef name = pass->getArgument().empty() ? pass->getName() : pass->getArgument();
    timer.record(name.str(), seconds);
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

/// The compile report. `om` holds the written .om's figures (its GM arena
/// plan, the one the runtime uses); without an .om the plan is the task
/// list's.
std::string renderReport(const CompileOptions &options, const std::string &precisionMode,
                         const soc::SocSpec &soc,
                         const backend::TaskGraph &tasks, const CompileTimer &timer,
                         const backend::OmSummary *om) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, 2);
  json.object([&] {
    json.attribute("model", options.model);
    json.attribute("soc_version", soc.name);
    json.attribute("precision_mode", precisionMode);
    json.attribute("note", "estimated_cycles is a per-kernel roofline estimate from the SoC table "
                           "(a 310P modelled from published numbers), not a measurement; "
                           "vinci-run reports the simulated cycles");
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
        });
    });
    uint64_t cycles = 0;
    for (const backend::TaskInfo &task : tasks.tasks)
      cycles += task.estimatedCycles;
    json.attribute("estimated_cycles", static_cast<int64_t>(cycles));
    json.attribute("arena_bytes",
                   static_cast<int64_t>(om ? om->arenaBytes : tasks.plan.arenaBytes));
    json.attribute("arena_lower_bound_bytes",
                   static_cast<int64_t>(om ? om->arenaLowerBoundBytes
                                           : tasks.plan.arenaLowerBoundBytes));
    json.attribute("weights_bytes", static_cast<int64_t>(om ? om->weightsBytes : tasks.weightsBytes));
    if (om)
      json.attribute("om_bytes", static_cast<int64_t>(om->fileBytes));
    double total = timer.passes.empty() ? 0 : timer.passes.back().second;
    json.attribute("compile_seconds", total);
    json.attributeArray("pass_seconds", [&] {
      for (const auto &[name, seconds] : timer.passes)
        if (name != "total")
          json.object([&] {
            json.attribute("pass", name);
            json.attribute("seconds", seconds);
          });
    });
  });
  os << "\n";
  return text;
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
  pass("--const_input", options.constInput);
  pass("--emit", options.emit);
  pass("--dump_dir", options.dumpDir);
  pass("--report", options.report);
  pass("--fusion_switch_file", options.fusionSwitchFile);
  pass("--precision_mode", options.precisionMode);
  pass("--keep_dtype", options.keepDtype);
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

int compile(const CompileOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err) {
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
  if (options.checkSupport)
    return printSupportReport(options.model, out, err);

  onnx_import::ImportOptions importOptions;
  if (!options.inputShape.empty()) {
    std::string error = onnx_import::parseInputShapes(options.inputShape, importOptions.inputShapes);
    if (!error.empty())
      return fail(err, error);
  }
  if (!options.constInput.empty()) {
    std::string error = onnx_import::parseConstInputs(options.constInput, importOptions.constInputs);
    if (!error.empty())
      return fail(err, error);
  }
  return compileImported(
      options,
      [&](mlir::MLIRContext &context, std::vector<std::string> &errors) {
        return onnx_import::importOnnxFile(context, options.model, importOptions, errors);
      },
      out, err);
}

int compileImported(const CompileOptions &requested, const ModuleImporter &importer,
                    llvm::raw_ostream &out, llvm::raw_ostream &err) {
  CompileOptions options = requested;
  auto start = std::chrono::steady_clock::now();
  auto secondsSince = [](auto from) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
  };
  const soc::SocSpec *soc = soc::findSoc(options.socVersion);
  if (!soc)
    return fail(err, "unknown --soc_version '" + options.socVersion + "' (known: " + knownSocs() +
                         ")");
  if (options.emit.empty())
    options.emit = llvm::StringRef(options.output).ends_with(".om") ? "om" : "vg";
  if (options.emit != "vg" && options.emit != "vg-opt" && options.emit != "dv" &&
      options.emit != "om")
    return fail(err, "unknown --emit '" + options.emit + "' (available: vg, vg-opt, dv, om)");
  if (options.emit == "om" && options.output.empty())
    return fail(err, "--emit=om writes a file: give it with --output model.om");
  FusionSwitches switches;
  if (!options.fusionSwitchFile.empty()) {
    std::string error;
    if (!switches.load(options.fusionSwitchFile, error))
      return fail(err, error);
  }
  if (!(options.softmaxClip > 0) || !std::isfinite(options.softmaxClip))
    return fail(err, "--softmax_clip must be a positive number (default 50), got " +
                         std::to_string(options.softmaxClip));
  std::string precisionMode;
  {
    std::string error;
    precisionMode = resolvePrecisionMode(options.precisionMode, *soc, error);
    if (precisionMode.empty())
      return fail(err, error);
  }
  std::vector<KeepDtypeEntry> keepDtype;
  if (!options.keepDtype.empty()) {
    std::string error;
    if (!loadKeepDtype(options.keepDtype, keepDtype, error))
      return fail(err, error);
  }

  std::vector<AippConfig> aipp;
  if (!options.insertOpConf.empty()) {
    std::string error;
    if (!parseAippConfig(options.insertOpConf, aipp, error))
      return fail(err, "--insert_op_conf " + error);
  }

  mlir::MLIRContext context;
  context.disableMultithreading();
  // MLIR's errors go to `err`, printed as MLIR's default handler prints them
  // (errors only, one line each): stderr for the tool, the exception's
  // message for the Python package.
  mlir::ScopedDiagnosticHandler diagnostics(&context, [&](mlir::Diagnostic &diag) {
    if (diag.getSeverity() != mlir::DiagnosticSeverity::Error)
      return mlir::success();
    if (!llvm::isa<mlir::UnknownLoc>(diag.getLocation()))
      err << diag.getLocation() << ": ";
    err << "error: " << diag << "\n";
    return mlir::success();
  });
  std::vector<std::string> errors;
  mlir::OwningOpRef<mlir::ModuleOp> module = importer(context, errors);
  if (!module) {
    for (const std::string &message : errors)
      err << kTool << ": error: " << options.model << ": " << message << "\n";
    if (errors.empty())
      err << kTool << ": error: " << options.model << ": import failed\n";
    return errors.empty() || errors.back().find("unsupported operators") == std::string::npos ? 2
                                                                                                 : 1;
  }

  if (!aipp.empty()) {
    std::string error;
    if (!insertAipp(*module, aipp, error))
      return fail(err, "--insert_op_conf " + error);
  }

  CompileTimer timer;
  timer.record("import", secondsSince(start));
  auto makePassManager = [&]() {
    auto pm = std::make_unique<mlir::PassManager>(&context);
    pm->addInstrumentation(std::make_unique<PassRecorder>(timer, options.dumpDir,
                                                          printFlags(options.printWeights)));
    return pm;
  };
  mlir::OpPrintingFlags flags = printFlags(options.printWeights);
  if (!options.dumpDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(options.dumpDir))
      return fail(err, "cannot create --dump_dir '" + options.dumpDir + "': " + ec.message());
    std::string error;
    if (!writeFileAtomically(dumpPath(options.dumpDir, 0, "import"), printModule(*module, flags),
                             error))
      return fail(err, error);
  }

  if (!keepDtype.empty()) {
    std::string error;
    if (!checkKeepDtypeNames(*module, options.keepDtype, keepDtype, error))
      return fail(err, error);
  }

  // The softmax template reads its protection from the module; the
  // lowering templates read the precision mode (passes/Precision).
  mlir::Builder attrs(&context);
  (*module)->setAttr("vinci.precision_mode", attrs.getStringAttr(precisionMode));
  if (options.softmaxClip != CompileOptions().softmaxClip)
    (*module)->setAttr("vinci.softmax_clip", attrs.getF64FloatAttr(options.softmaxClip));
  if (!switches.isOn("SoftmaxProtection"))
    (*module)->setAttr("vinci.softmax_unprotected", attrs.getUnitAttr());

  ModuleStats stats = collectStats(*module);
  bool toKernels = options.emit == "dv" || options.emit == "om";

  // Graph passes: what --emit=vg-opt shows.
  if (options.emit != "vg") {
    auto pm = makePassManager();
    buildGraphPipeline(*pm, switches);
    if (failed(pm->run(*module)))
      return fail(err, options.model + ": the graph passes failed (see the diagnostics above)");
  }
  // --keep_dtype (and allow_mix_precision) mark the ops kernels are made
  // from: after the graph passes, which replace ops (a fused op keeps its
  // nodes' names).
  if (!keepDtype.empty()) {
    std::string error;
    if (!applyKeepDtype(*module, options.keepDtype, keepDtype, error))
      return fail(err, error);
  }
  if (precisionMode == "allow_mix_precision")
    markMixPrecisionOps(*module);
  std::string text;
  if (!toKernels)
    text = printModule(*module, flags);

  // Kernels, then the task list and its GM plan for the compile report.
  if (!options.report.empty() || toKernels) {
    // The target, for the templates the partition asks (and the lowering).
    (*module)->setAttr(dv::DVDialect::kSocAttrName, attrs.getStringAttr(soc->name));
    auto pm = makePassManager();
    pm->addPass(createNarrowInt64());
    pm->addPass(createMaterializeOutputs());
    pm->addPass(createPartitionKernels(
        PartitionKernelsOptions{switches.isOn("CubeEpilogueFusion"),
                                switches.isOn("ElementwiseFusion"), switches.isOn("AttentionFusion")},
        backend::templateCapabilities()));
    if (failed(pm->run(*module)))
      return fail(err, options.model + ": partitioning into kernels failed");
  }
  backend::TaskGraph tasks;
  if (!options.report.empty()) {
    std::string error;
    auto graph = module->lookupSymbol<mlir::func::FuncOp>("main");
    if (!backend::buildTaskGraph(*module, graph, *soc, tasks, error))
      return fail(err, options.model + ": " + error);
  }

  // Lowering to dv kernels and the kernel passes: what --emit=dv shows.
  if (toKernels) {
    auto pm = makePassManager();
    if (failed(buildKernelPipeline(*pm, *soc, err)))
      return 2;
    if (failed(pm->run(*module)))
      return fail(err, options.model + ": lowering to Da Vinci kernels failed (see above)", 1);
    if (options.emit == "dv")
      text = printModule(*module, flags);
  }

  std::string error;
  backend::OmSummary summary;
  if (options.emit == "om") {
    auto emitStart = std::chrono::steady_clock::now();
    if (!backend::emitOm(*module, llvm::sys::path::stem(options.model).str(), options.output,
                         summary, error))
      return fail(err, options.model + ": " + error);
    timer.record("emit-om", secondsSince(emitStart));
  } else if (options.output.empty()) {
    out << text;
  } else if (!writeFileAtomically(options.output, text, error)) {
    return fail(err, error);
  }
  if (!options.report.empty()) {
    timer.record("total", secondsSince(start));
    std::string reportText = renderReport(options, precisionMode, *soc, tasks, timer,
                                          options.emit == "om" ? &summary : nullptr);
    if (!writeFileAtomically(options.report, reportText, error))
      return fail(err, error);
  }

  err << kTool << ": imported " << options.model << " for " << soc->name << ": " << stats.ops
      << " vg ops (" << stats.constants << " constants, " << stats.weightBlobs
      << " weight blobs, " << llvm::format("%.1f", stats.weightBytes / 1e6) << " MB), emitted "
      << options.emit << " in " << llvm::format("%.2f", secondsSince(start)) << " s";
  if (!options.output.empty())
    err << "; wrote " << options.output;
  if (!options.report.empty())
    err << "; report " << options.report;
  err << "\n";
  return 0;
}

} // namespace vinci::driver
