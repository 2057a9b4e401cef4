//===- SupportCheck.cpp - --check_support, a pre-check that compiles ------===//
//
// The report has two parts. The op-type table (one row per op type: opset,
// count, whether the importer maps it) is what the pre-check always printed.
// Then the model is compiled with the user's options into a scratch folder
// (also with an unmapped op type: the import's own errors and exit code are
// the truth), and
// a CompileObserver records, per kernel the partition made, the templates'
// answer (backend::templateCapabilities(), the question the partition itself
// asks) and, once lowered, the template that took it; and every error with
// the nodes its location names. Each node of the model then gets one line.
//
// The exit code is the compile's, so the check cannot promise more than the
// compile delivers: a node every template refuses, a lowering that fails
// after a template took the kernel, a missing input shape, all fail both.
//
//===----------------------------------------------------------------------===//
#include "driver/SupportCheck.h"

#include "backend/Passes.h"
#include "onnx/OnnxImporter.h"
#include "passes/KernelRules.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace vinci::driver {
namespace {

using Status = NodeVerdict::Status;

/// The node names a location carries (NameLoc, also inside fused or
/// call-site locations), as the importer and the partition name them.
void collectNodeNames(mlir::Location loc, llvm::SmallVectorImpl<std::string> &names) {
  loc->walk([&](mlir::Location inner) {
    if (auto name = llvm::dyn_cast<mlir::NameLoc>(inner))
      names.push_back(name.getName().str());
    return mlir::WalkResult::advance();
  });
}

std::string nameOf(mlir::Operation *op) {
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(op->getLoc()))
    return name.getName().str();
  return {};
}

/// What the compile showed of each node, as it went.
class CheckObserver final : public CompileObserver {
public:
  struct Kernel {
    std::vector<std::string> sources;
    std::string mismatch; // "" when a template takes it
    std::string templ;    // set once lowered
  };

  void diagnostic(const mlir::Diagnostic &diag) override {
    llvm::SmallVector<std::string> names;
    collectNodeNames(diag.getLocation(), names);
    for (const std::string &name : names)
      if (!errorAt.count(name))
        errorAt[name] = diag.str();
  }

  void partitioned(mlir::ModuleOp module) override {
    reachedPartition = true;
    for (auto func : module.getOps<mlir::func::FuncOp>()) {
      if (func->hasAttr("vinci.kernel")) {
        Kernel &kernel = kernels[func.getSymName()];
        kernelOrder.push_back(func.getSymName().str());
        if (auto sources = func->getAttrOfType<mlir::ArrayAttr>("vinci.source_nodes"))
          for (mlir::Attribute source : sources)
            if (auto name = llvm::dyn_cast<mlir::StringAttr>(source)) {
              kernel.sources.push_back(name.str());
              kernelsOf[name.getValue()].push_back(func.getSymName().str());
            }
        kernel.mismatch = backend::templateCapabilities().mismatch(func);
        continue;
      }
      // What stays in the graph: views and constants.
      func.walk([&](mlir::Operation *op) {
        std::string name = nameOf(op);
        if (name.empty())
          return;
        if (classifyOp(op) == OpRole::Constant)
          constants.insert(name);
        else if (isViewOp(op))
          views.insert(name);
      });
    }
  }

  /// An error the importer reported as text ("node 'NAME' (OpType, opset
  /// N): ..."), which carries no location.
  void importError(llvm::StringRef line) {
    size_t at = line.find("node '");
    if (at == llvm::StringRef::npos)
      return;
    auto [name, rest] = line.substr(at + 6).split('\'');
    // The reason without the node's own "(OpType, opset N): " heading.
    if (size_t colon = rest.find("): "); rest.starts_with(" (") && colon != llvm::StringRef::npos)
      rest = rest.substr(colon + 3);
    if (!errorAt.count(name))
      errorAt[name] = rest.str();
  }

  void lowered(mlir::ModuleOp module) override {
    for (mlir::Operation &op : module.getBody()->getOperations())
      if (auto templ = op.getAttrOfType<mlir::StringAttr>("vinci.template"))
        if (auto name = mlir::SymbolTable::getSymbolName(&op))
          if (auto found = kernels.find(name.getValue()); found != kernels.end())
            found->second.templ = templ.str();
  }

  NodeVerdict verdict(const onnx_import::NodeSupport &node) const {
    NodeVerdict v;
    v.name = node.name;
    v.opType = node.opType;
    if (auto found = kernelsOf.find(node.name); found != kernelsOf.end()) {
      v.status = Status::Kernel;
      for (const std::string &name : found->second) {
        const Kernel &kernel = kernels.find(name)->second;
        if (v.kernel.empty() || !kernel.mismatch.empty()) {
          v.kernel = name;
          v.templ = kernel.templ;
        }
        if (!kernel.mismatch.empty()) {
          v.status = Status::NoTemplate;
          v.reason = kernel.mismatch;
          break;
        }
      }
    } else if (views.count(node.name)) {
      v.status = Status::View;
    } else if (constants.count(node.name)) {
      v.status = Status::Constant;
    } else if (reachedPartition) {
      v.status = Status::Folded;
    }
    if (auto error = errorAt.find(node.name); error != errorAt.end() && v.status != Status::NoTemplate) {
      v.status = Status::Failed;
      v.reason = error->second;
    }
    return v;
  }

  int64_t kernelCount() const { return static_cast<int64_t>(kernelOrder.size()); }

private:
  bool reachedPartition = false;
  llvm::StringMap<Kernel> kernels;
  std::vector<std::string> kernelOrder;
  llvm::StringMap<std::vector<std::string>> kernelsOf; // node -> its kernels
  llvm::StringSet<> views, constants;
  llvm::StringMap<std::string> errorAt; // node -> the first error located there
};

void printOpTable(const std::string &model, const onnx_import::SupportReport &report,
                  llvm::raw_ostream &out) {
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
}

std::string statusText(const NodeVerdict &v) {
  switch (v.status) {
  case Status::Kernel:
    return v.kernel + " (" + (v.templ.empty() ? "a template takes it" : v.templ) + ")";
  case Status::View:
    return "view of its input (no kernel)";
  case Status::Constant:
    return "constant";
  case Status::Folded:
    return "folded or fused by the graph passes (no kernel of its own)";
  case Status::NoImporter:
    return "UNSUPPORTED: " + v.reason;
  case Status::NoTemplate:
    return "UNSUPPORTED in " + v.kernel + ": " + v.reason;
  case Status::Failed:
    return "FAILED: " + v.reason;
  case Status::NotReached:
    return "not reached (the compile stopped earlier)";
  }
  return {};
}

void printNodes(const SupportCheckResult &result, llvm::raw_ostream &out) {
  out << llvm::format("%-40s %-20s %s\n", "node", "op type", "kernel (template) or why not");
  for (const NodeVerdict &v : result.nodes)
    out << llvm::format("%-40s %-20s ", v.name.c_str(), v.opType.c_str()) << statusText(v)
        << "\n";
}

/// The compile's error lines, without the tool's prefix.
std::vector<std::string> errorLines(llvm::StringRef log) {
  std::vector<std::string> lines;
  llvm::SmallVector<llvm::StringRef> split;
  log.split(split, '\n', -1, false);
  for (llvm::StringRef line : split) {
    if (!line.contains("error: "))
      continue;
    line.consume_front("vinci-compile: ");
    // This is that report.
    line.consume_back("; run vinci-compile --check_support for the full report");
    lines.push_back(line.str());
  }
  return lines;
}

} // namespace

std::string statusName(NodeVerdict::Status status) {
  switch (status) {
  case Status::Kernel:
    return "kernel";
  case Status::View:
    return "view";
  case Status::Constant:
    return "constant";
  case Status::Folded:
    return "folded";
  case Status::NoImporter:
    return "no_importer";
  case Status::NoTemplate:
    return "no_template";
  case Status::Failed:
    return "failed";
  case Status::NotReached:
    return "not_reached";
  }
  return {};
}

bool NodeVerdict::blocks() const {
  return status == Status::NoImporter || status == Status::NoTemplate || status == Status::Failed;
}

int checkSupport(const CompileOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err,
                 SupportCheckResult *resultOut) {
  SupportCheckResult local;
  SupportCheckResult &result = resultOut ? *resultOut : local;
  result.model = options.model;
  result.socVersion = options.socVersion;

  onnx_import::SupportReport report;
  std::string error;
  if (!onnx_import::checkOnnxSupport(options.model, report, error)) {
    err << "vinci-compile: error: " << error << "\n";
    return result.exitCode = 2;
  }
  printOpTable(options.model, report, out);

  // The compile itself, into a scratch folder that goes away.
  llvm::SmallString<128> scratch;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("vinci-check", scratch)) {
    err << "vinci-compile: error: --check_support cannot create a scratch folder: " << ec.message()
        << "\n";
    return result.exitCode = 2;
  }
  CompileOptions compileOptions = options;
  compileOptions.checkSupport = false;
  compileOptions.mode = "0";
  compileOptions.log.clear();
  compileOptions.emit = "om";
  compileOptions.report.clear();
  llvm::SmallString<128> om(scratch);
  llvm::sys::path::append(om, "check.om");
  compileOptions.output = om.str().str();

  CheckObserver observer;
  std::string log, ignored;
  llvm::raw_string_ostream logStream(log), ignoredStream(ignored);
  result.exitCode = compile(compileOptions, ignoredStream, logStream, &observer);
  llvm::sys::fs::remove(om);
  llvm::sys::fs::remove(scratch);
  result.errors = errorLines(log);
  for (const std::string &line : result.errors)
    observer.importError(line);

  for (const onnx_import::NodeSupport &node : report.nodes) {
    NodeVerdict v = observer.verdict(node);
    if (!node.supported) {
      v.status = Status::NoImporter;
      v.reason = "no converter for " + node.opType;
    }
    result.nodes.push_back(std::move(v));
  }
  result.kernels = result.exitCode == 0 ? observer.kernelCount() : 0;

  out << "\nCompile check for " << options.socVersion;
  if (!options.precisionMode.empty())
    out << ", " << options.precisionMode;
  out << (options.inputShape.empty() ? ", input shapes as the model declares them"
                                     : ", input shapes " + options.inputShape)
      << ":\n";
  printNodes(result, out);
  if (result.exitCode == 0) {
    out << "The model compiles: " << result.kernels << " kernel(s).\n";
    return 0;
  }
  int64_t failing = 0;
  for (const NodeVerdict &v : result.nodes)
    failing += v.blocks();
  out << "The model does not compile";
  if (failing)
    out << " (" << failing << " node(s) above)";
  out << ":\n";
  for (const std::string &line : result.errors)
    out << "  " << line << "\n";
  // Bad input (exit 2) is the user's to fix and an error like the compile's.
  if (result.exitCode == 2)
    for (const std::string &line : result.errors)
      err << "vinci-compile: " << line << "\n";
  return result.exitCode;
}

std::string checkResultJson(const SupportCheckResult &result) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, 2);
  json.object([&] {
    json.attribute("model", result.model);
    json.attribute("soc_version", result.socVersion);
    json.attribute("result", result.exitCode == 0 ? "success" : "failed");
    json.attribute("kernels", result.kernels);
    json.attributeArray("nodes", [&] {
      for (const NodeVerdict &v : result.nodes)
        json.object([&] {
          json.attribute("name", v.name);
          json.attribute("op_type", v.opType);
          json.attribute("status", statusName(v.status));
          json.attribute("supported", !v.blocks() && v.status != Status::NotReached);
          if (!v.kernel.empty())
            json.attribute("kernel", v.kernel);
          if (!v.templ.empty())
            json.attribute("template", v.templ);
          if (!v.reason.empty())
            json.attribute("reason", v.reason);
        });
    });
    json.attributeArray("errors", [&] {
      for (const std::string &line : result.errors)
        json.value(line);
    });
  });
  os << "\n";
  return text;
}

} // namespace vinci::driver
