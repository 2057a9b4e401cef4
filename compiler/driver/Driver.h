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
class Diagnostic;
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
  std::string inputShape;             // --input_shape "name:1,3,224,224;...", -1 for gear dims
  std::string dynamicBatchSize;       // --dynamic_batch_size "1,2,4,8" (docs/gears.md)
  std::string dynamicImageSize;       // --dynamic_image_size "416,416;832,832"
  std::string dynamicDims;            // --dynamic_dims "32;64;128"
  std::string inputFormat;            // --input_format NCHW, NHWC or ND (for the gears)
  std::string constInput;             // --const_input "name:value.pb;..."
  std::string emit;                   // --emit: vg|vg-opt|dv|om|ascendc; empty: om for an --output
                                      // ending in .om, vg otherwise
  std::string dumpDir;                // --dump_dir: IR after import and after each pass
  std::string report;                 // --report: the compile report (JSON)
  std::string fusionSwitchFile;       // --fusion_switch_file: ATC's fusion switches (JSON)
  std::string precisionMode;          // --precision_mode: ATC's names; empty: the SoC's
                                      // default (force_fp16); docs/precision.md
  std::string keepDtype;              // --keep_dtype: ops that keep their float type (ATC's file)
  std::string insertOpConf;           // --insert_op_conf: ATC's AIPP config (docs/aipp.md)
  std::string outNodes;               // --out_nodes "node:0;tensor": the outputs instead
  std::string outputType;             // --output_type FP32|FP16 or "node:0:FP16;..."
  std::string inputFp16Nodes;         // --input_fp16_nodes "input;input2": fed as fp16
  std::string log;                    // --log null|error|warning|info|debug; empty: errors
                                      // and the one-line summary
  std::string mode = "0";             // --mode: 0 compile, 1 .om to JSON, 3 the pre-check
  std::string om;                     // --om: the .om --mode=1 reads
  std::string json;                   // --json: the JSON --mode=1 writes
  std::string calibration;            // --calibration: a folder of sample inputs
                                      // (docs/quantization.md)
  std::string quantConfig;            // --quant_config: the calibration method and skips (JSON)
  double softmaxClip = 50;            // --softmax_clip: shifted logits clipped to [-clip, 0]
  bool checkSupport = false;          // --check_support
  bool printWeights = false;          // --print_weights: keep blobs in printed IR
};

/// Watches a compilation from inside: the pre-check (SupportCheck.h) runs
/// the compile itself and reads, at these points, which kernels the
/// partition made and which templates took them. Each hook runs at most once;
/// in a compile with gears, partitioned and lowered see the first gear.
class CompileObserver {
public:
  virtual ~CompileObserver();
  /// Every error diagnostic, before it is printed.
  virtual void diagnostic(const mlir::Diagnostic &diagnostic);
  /// After vinci-partition-kernels: the graph calls one vinci.kernel
  /// function per kernel, none lowered yet.
  virtual void partitioned(mlir::ModuleOp module);
  /// After the kernel pipeline ran, whether or not it succeeded: the kernels
  /// it lowered are dv.kernel ops.
  virtual void lowered(mlir::ModuleOp module);
};

/// Runs one compilation. Errors are one line each on `err`; IR and reports go
/// to `out` (or the output file). Returns the process exit code: 0 on
/// success, 1 for a model that is not (fully) supported, 2 for bad input.
int compile(const CompileOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &err,
            CompileObserver *observer = nullptr);

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
/// The gear options need the ONNX reader (one graph per gear): an error here.
int compileImported(const CompileOptions &options, const ModuleImporter &importer,
                    llvm::raw_ostream &out, llvm::raw_ostream &err,
                    CompileObserver *observer = nullptr);

/// Writes `contents` to `path` through a temporary file in the same folder
/// and a rename, so a failure never leaves a partial or stale file.
bool writeFileAtomically(const std::string &path, const std::string &contents,
                         std::string &error);

} // namespace vinci::driver

#endif // VINCI_COMPILER_DRIVER_DRIVER_H
