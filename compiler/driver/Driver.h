//===- Driver.h - the library behind vinci-compile ------------------------===//
#ifndef VINCI_COMPILER_DRIVER_DRIVER_H
#define VINCI_COMPILER_DRIVER_DRIVER_H

#include <functional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}
namespace mlir {
class MLIRContext;
class ModuleOp;
template <typename OpTy>
class OwningOpRef;
} // namespace mlir

namespace vinci::driver {

/// vinci-compile's options, named and spelled as ATC names them.
struct CompileOptions {
  std::string model;                  // --model
  std::string framework = "5";        // --framework: 5 or onnx
  std::string output;                 // --output (stdout for IR when empty)
  std::string socVersion = "Ascend310P3"; // --soc_version
  std::string inputShape;             // --input_shape "name:1,3,224,224;..."
  std::string constInput;             // --const_input "name:value.pb;..."
  std::string emit;                   // --emit: vg|vg-opt|dv|om; empty: om for an --output
                                      // ending in .om, vg otherwise
  std::string dumpDir;                // --dump_dir: IR after import and after each pass
  std::string report;                 // --report: the compile report (JSON)
  std::string fusionSwitchFile;       // --fusion_switch_file: ATC's fusion switches (JSON)
  std::string precisionMode;          // --precision_mode: ATC's names; empty: the SoC's
                                      // default (force_fp16); docs/precision.md
  std::string keepDtype;              // --keep_dtype: ops that keep their float type (ATC's file)
  std::string insertOpConf;           // --insert_op_conf: ATC's AIPP config (docs/aipp.md)
  double softmaxClip = 50;            // --softmax_clip: shifted logits clipped to [-clip, 0]
  bool checkSupport = false;          // --check_support
  bool printWeights = false;          // --print_weights: keep blobs in printed IR
};

/// Runs one compilation. Errors are one line each on `err`; IR and reports go
/// to `out` (or the output file). Returns the process exit code: 0 on
/// success, 1 for a model that is not (fully) supported, 2 for bad input.
int compile(const CompileOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err);

/// An importer: builds the vg module (one func.func @main) in `context`, or
/// returns null with one-line messages in `errors` (a last message that
/// mentions "unsupported operators" makes the exit code 1).
using ModuleImporter = std::function<mlir::OwningOpRef<mlir::ModuleOp>(
    mlir::MLIRContext &context, std::vector<std::string> &errors)>;

/// compile() on a module from another front end (the PyTorch importer):
/// the same option checks, passes, outputs and exit codes, with `importer`
/// in place of the ONNX reader. options.model only names the model (in
/// messages, the report and the .om); --framework, --input_shape,
/// --const_input and --check_support belong to the importer and are ignored.
int compileImported(const CompileOptions &options, const ModuleImporter &importer,
                    llvm::raw_ostream &out, llvm::raw_ostream &err);

/// Writes `contents` to `path` through a temporary file in the same folder
/// and a rename, so a failure never leaves a partial or stale file.
bool writeFileAtomically(const std::string &path, const std::string &contents,
                         std::string &error);

} // namespace vinci::driver

#endif // VINCI_COMPILER_DRIVER_DRIVER_H
