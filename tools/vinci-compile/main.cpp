//===- vinci-compile: the model compiler, with ATC's option names ---------===//
#include "driver/Driver.h"
#include "backend/Passes.h"
#include "passes/Passes.h"
#include "OmDescription.h"

#include <CLI/CLI.hpp>
#include "llvm/Support/raw_ostream.h"

namespace {

/// ATC's --mode=1: the .om named by --om described as vinci-info --json
/// describes it, into --json.
int omToJson(const vinci::driver::CompileOptions &options) {
  auto fail = [](const std::string &message) {
    llvm::errs() << "vinci-compile: error: " << message << "\n";
    return 2;
  };
  if (options.om.empty() || options.json.empty())
    return fail("--mode=1 converts an .om to JSON: give --om model.om and --json model.json");
  std::string text, error;
  if (!vinci::describe::describeOm(options.om, /*json=*/true, /*disassemble=*/false, text, error))
    return fail("--om " + error);
  if (!vinci::driver::writeFileAtomically(options.json, text, error))
    return fail(error);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  vinci::registerVinciPasses();
  vinci::backend::registerVinciBackendPasses();
  vinci::driver::CompileOptions options;
  CLI::App app{"vinci-compile: compile an ONNX model for Da Vinci NPUs (Ascend 310P)"};
  app.add_option("--model", options.model, "the model file (.onnx)");
  app.add_option("--framework", options.framework, "5 or onnx (ATC's numbering)")
      ->capture_default_str();
  app.add_option("--output", options.output, "output file (IR goes to stdout when absent)");
  app.add_option("--soc_version", options.socVersion, "target SoC")->capture_default_str();
  app.add_option("--input_shape", options.inputShape,
                 "input shapes: \"name:1,3,224,224;name2:1,128\"; -1 marks a dim that gears set");
  app.add_option("--dynamic_batch_size", options.dynamicBatchSize,
                 "batch gears for the -1 in dim 0 of --input_shape: \"1,2,4,8\" (2 to 100; "
                 "docs/gears.md)");
  app.add_option("--dynamic_image_size", options.dynamicImageSize,
                 "image gears for the -1 height and width of --input_shape: "
                 "\"416,416;832,832\" (with --input_format NCHW or NHWC)");
  app.add_option("--dynamic_dims", options.dynamicDims,
                 "gears of any dims: one value per -1 of --input_shape, in order, a gear per "
                 "';': \"32;64;128\" (--input_format ND)");
  app.add_option("--input_format", options.inputFormat,
                 "the inputs' layout for the gears: NCHW (default for --dynamic_image_size), "
                 "NHWC or ND (default for --dynamic_dims)");
  app.add_option("--const_input", options.constInput,
                 "bind graph inputs to values from TensorProto files: \"name:v.pb;...\" "
                 "(for shape tensors a model takes as inputs)");
  app.add_option("--emit", options.emit,
                 "what to produce: vg (the imported graph), vg-opt (after graph passes), dv (kernels), "
                 "om (the offline model; needs --output) or ascendc (a CANN project of Ascend C "
                 "kernels and an AscendCL host program in the folder --output). Default: om when "
                 "--output ends in .om, vg otherwise");
  app.add_option("--dump_dir", options.dumpDir, "write the IR after import and after each pass here");
  app.add_option("--report", options.report,
                 "write the compile report (kernels, GM arena plan, pass times) as JSON");
  app.add_option("--fusion_switch_file", options.fusionSwitchFile,
                 "switch fusions off by name, in ATC's shape: {\"Switch\": {\"GraphFusion\": "
                 "{\"ALL\": \"off\", \"QkvFusion\": \"on\"}, \"UBFusion\": {\"ALL\": "
                 "\"off\"}}} (docs/fusion.md lists the names)");
  app.add_option("--precision_mode", options.precisionMode,
                 "ATC's precision modes: force_fp16 (default: float tensors stored as fp16), "
                 "allow_mix_precision (softmax, norms and reductions keep fp32), "
                 "allow_fp32_to_fp16 (Vector kernels keep fp32, Cube kernels fp16), "
                 "must_keep_origin_dtype (fp32 stays fp32; fp32 matmuls run on the Vector "
                 "unit); docs/precision.md");
  app.add_option("--keep_dtype", options.keepDtype,
                 "a file naming ops that keep their float type, one a line: a node name "
                 "(or OpName:name) or OpType::TypeName (a vg op type)");
  app.add_option("--calibration", options.calibration,
                 "a folder of sample inputs (one sub-folder per sample with a .npy or .pb "
                 "file per input, or one file per sample for a one-input model): the model "
                 "runs on them in fp32 on the simulator, and under a float precision mode "
                 "every op whose range does not fit fp16 keeps fp32 (docs/quantization.md)");
  app.add_option("--quant_config", options.quantConfig,
                 "the quantisation config (JSON): calibration_method minmax | percentile | "
                 "entropy, percentile, activation_offset, skip_layers, skip_layer_types; "
                 "needs --calibration");
  app.add_option("--insert_op_conf", options.insertOpConf,
                 "ATC's static AIPP config: the model takes uint8 images (RGB888_U8, "
                 "XRGB8888_U8, YUV400_U8, YUV420SP_U8) and the first kernel crops, converts, "
                 "normalises and pads them on the AI Core (docs/aipp.md)");
  app.add_option("--out_nodes", options.outNodes,
                 "the model's outputs instead of the graph's, in order: \"node:0;node2:1\" "
                 "(a node's output by index) or tensor names");
  app.add_option("--output_type", options.outputType,
                 "the outputs' type: FP32 or FP16 for every float output, or per output "
                 "\"node:0:FP16;tensor:FP32\"");
  app.add_option("--input_fp16_nodes", options.inputFp16Nodes,
                 "inputs the caller feeds as fp16: \"input1;input2\"");
  app.add_option("--log", options.log,
                 "stderr besides the errors: null or error (errors alone), warning, info (a "
                 "line a stage), debug (every pass); default: errors and a summary line");
  app.add_option("--mode", options.mode,
                 "ATC's modes: 0 compile (default), 1 an .om to JSON (--om, --json, as "
                 "vinci-info --json), 3 the pre-check (--check_support, writing "
                 "check_result.json or --json)")
      ->capture_default_str();
  app.add_option("--om", options.om, "--mode=1: the .om to convert");
  app.add_option("--json", options.json,
                 "--mode=1: the JSON to write; --mode=3: where check_result.json goes");
  app.add_option("--softmax_clip", options.softmaxClip,
                 "softmax clips the max-shifted logits to [-clip, 0] before exp")
      ->capture_default_str();
  app.add_flag("--check_support", options.checkSupport,
               "the pre-check: the op-type table, then the model compiled with these options "
               "(into a scratch folder) and, per node, the kernel and template that take it or "
               "the template's reason; exits as that compile does (0: the model compiles)");
  app.add_flag("--print_weights", options.printWeights,
               "print the weight blobs in emitted IR (by default weights appear by name only)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &) {
    llvm::outs() << app.help();
    return 0;
  } catch (const CLI::ParseError &e) {
    llvm::errs() << "vinci-compile: error: " << e.what() << " (see vinci-compile --help)\n";
    return 2;
  }
  if (options.mode == "1")
    return omToJson(options);
  if (options.mode != "0" && options.mode != "3") {
    llvm::errs() << "vinci-compile: error: unknown --mode '" << options.mode
                 << "' (known: 0 compile, 1 an .om to JSON, 3 the pre-check)\n";
    return 2;
  }
  return vinci::driver::compile(options, llvm::outs(), llvm::errs());
}
