//===- Calibration.h - --calibration and --quant_config -----------*- C++ -*-===//
//
// Calibration runs the model on sample inputs and records the range of
// every tensor that carries computed values (docs/quantization.md). It does
// it the way the model will run: the driver compiles the optimised graph a
// second time, in fp32 (must_keep_origin_dtype) and with those tensors made
// extra graph outputs, into a scratch .om that the runtime runs on the
// simulator once per sample. No other engine is involved, so the ranges
// are those of Vinci's own kernels.
//
// What the ranges feed:
// - range-checked precision: under a float precision mode, an op whose
//   result (or an input it reads) does not fit fp16 keeps fp32
//   (`vinci.keep_dtype`), and the report lists it with its range;
// - the activation quantisation parameters of --quant_config (method
//   minmax | percentile | entropy, with or without an offset), recorded on
//   each op as `vinci.act_quant` and in the report.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_COMPILER_DRIVER_CALIBRATION_H
#define VINCI_COMPILER_DRIVER_CALIBRATION_H

#include "driver/TensorRange.h"

#include "vinci/tensor_file.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace llvm::json {
class OStream;
}
namespace mlir {
class ModuleOp;
class Operation;
class Value;
} // namespace mlir

namespace vinci::driver {

//===----------------------------------------------------------------------===//
// The files
//===----------------------------------------------------------------------===//

/// --quant_config FILE, JSON:
///   {"calibration_method": "minmax" | "percentile" | "entropy",
///    "percentile": 99.999, "activation_offset": true,
///    "skip_layers": ["node name", ...], "skip_layer_types": ["Conv", ...]}
/// Every key is optional; the defaults are these values and empty lists.
struct QuantConfig {
  CalibrationMethod method = CalibrationMethod::MinMax;
  double percentile = 99.999;
  bool activationOffset = true;
  std::vector<std::string> skipLayers;     // ONNX node names
  std::vector<std::string> skipLayerTypes; // vg op types (OpType names, case and _ ignored)
};

/// Reads a --quant_config file; false with a one-line `error` naming the
/// file and the key at fault.
bool loadQuantConfig(const std::string &path, QuantConfig &config, std::string &error);
const char *methodName(CalibrationMethod method);

/// A graph input as the calibration files must give it.
struct GraphInput {
  std::string name;
  vinci_dtype dtype = VINCI_DTYPE_UNKNOWN;
  std::vector<int64_t> shape;
};

/// One calibration sample: a tensor per graph input, in the inputs' order.
struct CalibrationSample {
  std::string name; // the folder or file it came from
  std::vector<tensorio::HostTensor> inputs;
};

/// Reads --calibration DIR. Either one folder per sample, each holding a
/// file per input named after it (`x.npy`, `x.pb`) or by its index as ONNX
/// test data sets are (`input_0.pb`, `input_0.npy`); or, for a model with
/// one input, one file per sample directly in DIR. Samples are taken in
/// name order. False with a one-line `error` for a missing folder, an
/// empty one, a sample missing an input or holding a file that names none,
/// an unreadable file, or a tensor of another dtype or shape than its input.
bool loadCalibrationSet(const std::string &dir, const std::vector<GraphInput> &inputs,
                        std::vector<CalibrationSample> &samples, std::string &error);

//===----------------------------------------------------------------------===//
// The calibration run
//===----------------------------------------------------------------------===//

/// A tensor calibration observed: the op that produces it (null for a
/// graph input) and its range over every sample.
struct ObservedTensor {
  mlir::Operation *producer = nullptr; // valid while the module lives
  unsigned resultNumber = 0;           // or the graph input's index
  std::string label;                   // the op's source nodes, or the input's name
  std::string opType;                  // "vg.matmul", or "input"
  TensorRange range;
  std::optional<QuantParams> quant; // with --quant_config, unless skipped
  bool quantSkipped = false;
};

/// Compiles a module (the observer graph) to an .om at the path given;
/// 0 on success, otherwise the compile's exit code (its errors printed).
using ObserverCompiler = std::function<int(mlir::ModuleOp observer, const std::string &omPath)>;

struct CalibrationTimes {
  double compileSeconds = 0, runSeconds = 0;
};

/// The tensors of `module`'s graph that calibration observes, in a fixed
/// order: the graph's f32 inputs, then the f32 results of the ops that
/// compute values (Cube, elementwise and reduction ops; not constants,
/// views or data movement, whose values are their inputs'), in program
/// order. Then runs them: clones `module`, makes those tensors extra
/// outputs of the clone's graph, sets it to must_keep_origin_dtype, has
/// `compileObserver` build it into a scratch .om under `scratchDir`, and
/// runs each sample on the simulator, adding every observed output to its
/// range. Returns 0, or an exit code after a one-line `error`.
int calibrate(mlir::ModuleOp module, const std::vector<CalibrationSample> &samples,
              const ObserverCompiler &compileObserver, const std::string &scratchDir,
              std::vector<ObservedTensor> &observed, CalibrationTimes &times,
              std::string &error);

/// The graph inputs of `module`'s @main (name, dtype, shape).
std::vector<GraphInput> graphInputs(mlir::ModuleOp module);

//===----------------------------------------------------------------------===//
// What the ranges decide
//===----------------------------------------------------------------------===//

/// An op that range-checked precision keeps in fp32, and why.
struct RangeKeep {
  std::string label, opType;
  std::string tensor; // the label of the tensor whose range does not fit
  double min = 0, max = 0, maxAbs = 0; // its range
  bool readsIt = false; // the op reads that tensor (rather than producing it)
  std::string reason;
};

/// Marks with `vinci.keep_dtype` every op whose result does not fit fp16
/// (fp16Misfit), the views and data movement that carry such a result on,
/// and every compute op that reads one, so that neither its result nor its
/// input is rounded to fp16; returns them in program order, views left out
/// (they are no kernel). Ops that
/// keep their types anyway (must_keep_origin_dtype) are marked too,
/// harmlessly.
std::vector<RangeKeep> keepOutOfRangeOps(mlir::ModuleOp module,
                                         const std::vector<ObservedTensor> &observed);

/// Records each observed op's activation quantisation under `config` (in
/// `observed` and as `vinci.act_quant` = [scale, offset, low, high] on the
/// op), and `vinci.quant_skip` on the ops its skip lists name. False with a one-line `error` for a skip entry
/// that names no node or no op type of the graph.
bool recordQuantParams(mlir::ModuleOp module, const std::string &configPath,
                       const QuantConfig &config, std::vector<ObservedTensor> &observed,
                       std::string &error);

/// The report's "calibration" object: samples, times, method, every
/// observed tensor's range (and quantisation, with a config), and the ops
/// range-checked precision kept in fp32 with their ranges.
void reportCalibration(llvm::json::OStream &json, size_t numSamples, const CalibrationTimes &times,
                       const std::vector<ObservedTensor> &observed, const QuantConfig *config,
                       const std::vector<RangeKeep> &kept);

} // namespace vinci::driver

#endif // VINCI_COMPILER_DRIVER_CALIBRATION_H
