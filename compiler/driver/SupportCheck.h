//===- SupportCheck.h - --check_support, a pre-check that compiles --------===//
//
// ATC's pre-check (--mode=3) judges each operator with its attributes, shapes
// and dtypes. Vinci's answers the same question by asking the compiler
// itself: the op-type table first (which op types the importer maps), then
// the whole compile of the model with the given options (into a scratch
// folder), watched through CompileObserver: which
// kernel each node landed in, which template took that kernel or the
// template's own reason for refusing it, and every error the compile met.
// It exits as that compile exits, so 0 means the model compiles.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_COMPILER_DRIVER_SUPPORTCHECK_H
#define VINCI_COMPILER_DRIVER_SUPPORTCHECK_H

#include "driver/Driver.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vinci::driver {

/// What the pre-check found for one node of the model.
struct NodeVerdict {
  enum class Status {
    Kernel,       // in a kernel a template lowers
    View,         // stays in the graph as a view of its input: no kernel
    Constant,     // a constant: weights or a folded value
    Folded,       // gone before the partition: folded or fused by the graph passes
    NoImporter,   // the importer has no converter for its op type
    NoTemplate,   // in a kernel no template lowers
    Failed,       // the compile reported an error at this node
    NotReached,   // the compile stopped before it could place the node
  };
  std::string name;
  std::string opType;
  Status status = Status::NotReached;
  std::string kernel;   // the kernel it is part of, if any
  std::string templ;    // the template that lowered that kernel
  std::string reason;   // why not, for NoTemplate / Failed / NoImporter
  /// Whether this node keeps the model from compiling (NoImporter,
  /// NoTemplate, Failed); NotReached nodes wait on another's error.
  bool blocks() const;
};

struct SupportCheckResult {
  std::string model;
  std::string socVersion;
  std::string precisionMode;
  std::vector<NodeVerdict> nodes; // in graph order
  int64_t kernels = 0;            // kernels of the compiled model
  std::vector<std::string> errors; // the compile's error lines, in order
  int exitCode = 0;                // the compile's: 0 when the model compiles
};

/// Runs the pre-check for `options` (an ONNX model): the op-type table and
/// the per-node report on `out`, nothing on `err` unless the input itself is
/// bad (exit 2, as the compile would). The result, for --mode=3's JSON,
/// goes to `result` when given.
int checkSupport(const CompileOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err,
                 SupportCheckResult *result = nullptr);

/// The pre-check as --mode=3 writes it (check_result.json): the model, the
/// target, "result" (success when the model compiles), the kernels, per
/// node its status, kernel, template and reason, and the compile's errors.
std::string checkResultJson(const SupportCheckResult &result);

} // namespace vinci::driver

#endif // VINCI_COMPILER_DRIVER_SUPPORTCHECK_H
