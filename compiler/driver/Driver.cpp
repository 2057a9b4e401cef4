//===- Driver.cpp - the library behind vinci-compile ----------------------===//
#include "driver/Driver.h"

#include "onnx/OnnxImporter.h"
#include "vg/VgOps.h"
#include "vinci/soc.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
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
  auto start = std::chrono::steady_clock::now();
  std::string framework = llvm::StringRef(options.framework).lower();
  if (framework != "5" && framework != "onnx") {
    if (framework == "pytorch")
      return fail(err, "--framework pytorch is not available yet; export the model to ONNX "
                       "and use --framework 5");
    return fail(err, "unknown --framework '" + options.framework + "' (known: 5 or onnx)");
  }
  const soc::SocSpec *soc = soc::findSoc(options.socVersion);
  if (!soc)
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
  if (options.emit != "vg")
    return fail(err, "unknown --emit '" + options.emit +
                         "' (available: vg; dv and om arrive with the backend)");

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

  mlir::MLIRContext context;
  context.disableMultithreading();
  std::vector<std::string> errors;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      onnx_import::importOnnxFile(context, options.model, importOptions, errors);
  if (!module) {
    for (const std::string &message : errors)
      err << kTool << ": error: " << options.model << ": " << message << "\n";
    if (errors.empty())
      err << kTool << ": error: " << options.model << ": import failed\n";
    return errors.empty() || errors.back().find("unsupported operators") == std::string::npos ? 2
                                                                                                 : 1;
  }

  auto imported = std::chrono::steady_clock::now();
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  // Local scope prints the module without its top-level sections, so the
  // weight blobs are neither hex-encoded nor printed: the IR names each
  // weight as dense_resource<name>, and dense constants over 16 elements
  // print as dense_resource<__elided__>. --print_weights keeps everything.
  if (!options.printWeights)
    flags.useLocalScope().elideLargeElementsAttrs(16);
  module->print(os, flags);
  if (options.output.empty()) {
    out << text;
  } else {
    std::string error;
    if (!writeFileAtomically(options.output, text, error))
      return fail(err, error);
  }

  ModuleStats stats = collectStats(*module);
  auto secondsSince = [](auto from) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
  };
  double seconds = secondsSince(start), printSeconds = secondsSince(imported);
  err << kTool << ": imported " << options.model << " for " << soc->name << ": " << stats.ops
      << " vg ops (" << stats.constants << " constants, " << stats.weightBlobs
      << " weight blobs, " << llvm::format("%.1f", stats.weightBytes / 1e6) << " MB) in "
      << llvm::format("%.2f", seconds) << " s (printing " << llvm::format("%.2f", printSeconds)
      << " s)";
  if (!options.output.empty())
    err << "; wrote " << options.output;
  err << "\n";
  return 0;
}

} // namespace vinci::driver
