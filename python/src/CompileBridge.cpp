//===- CompileBridge.cpp - the Driver for the Python extension ------------===//
#include "CompileBridge.h"

#include "backend/Passes.h"
#include "passes/Passes.h"
#include "torch/TorchImporter.h"

#include "llvm/Support/raw_ostream.h"

#include <mutex>

namespace vinci::python {
namespace {

// The kernel pipeline is parsed from its textual form, which needs the
// passes registered, as vinci-compile's main does.
void registerPassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerVinciPasses();
    backend::registerVinciBackendPasses();
  });
}

template <typename Run>
CompileResult capture(Run run) {
  registerPassesOnce();
  CompileResult result;
  llvm::raw_string_ostream out(result.output), log(result.log);
  result.exitCode = run(out, log);
  return result;
}

} // namespace

CompileResult compileFile(const driver::CompileOptions &options) {
  return capture([&](llvm::raw_ostream &out, llvm::raw_ostream &log) {
    return driver::compile(options, out, log);
  });
}

CompileResult compileGraph(const driver::CompileOptions &options,
                           const torch_import::GraphSpec &graph) {
  return capture([&](llvm::raw_ostream &out, llvm::raw_ostream &log) {
    return driver::compileImported(
        options,
        [&](mlir::MLIRContext &context, std::vector<std::string> &errors) {
          return torch_import::importGraph(context, graph, errors);
        },
        out, log);
  });
}

} // namespace vinci::python
