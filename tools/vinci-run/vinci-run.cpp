// vinci-run: run a compiled .om model on the simulator.
//
//   vinci-run --model m.om --input a.npy[,b.pb] --output_dir DIR
//             [--loop N] [--profile trace.json] [--threads N] [--hazards fatal|warn]
//             [--timing name=value|optimistic|pessimistic,...] [--reference-paths]
//             [--dump DIR]
//
// Inputs are .npy or ONNX TensorProto .pb files, in the model's input order;
// for a model with gears, their shapes choose the gear.
// Outputs go to DIR/output_<i>.npy, each written to a temporary file and
// renamed, and only after every run succeeded: a failure leaves no output
// file. Errors are one line on stderr and a non-zero exit status.
// --dump DIR writes every task's outputs of the first run, as ATC's dump
// does: DIR/<task>_<node>_<index>.npy (the name "node:index" of the source
// node's output the tensor is) and DIR/index.json listing them in execution
// order with their kernel, dtype and shape (an NC1HWC0 activation unpacked
// to its NCHW shape); vinci.compare compares a dump
// with a golden run per node.
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <string>
#include <vector>

#include "vinci/tensor_file.h"
#include "vinci/format/writer.h"
#include "vinci/runtime.h"

namespace {

using vinci::tensorio::HostTensor;

struct Options {
  std::string model;
  std::vector<std::string> inputs;
  std::string output_dir;
  unsigned loop = 1;
  std::string profile;
  unsigned threads = 0;
  std::string hazards = "fatal";
  std::string timing;
  bool reference_paths = false;
  std::string dump;
};

// What --dump collects: each task output of the first run, written as the
// task finishes (the arena bytes are reused by later tasks).
struct Dump {
  std::string dir;
  bool active = true;  // the first run only
  std::vector<std::string> entries;  // index.json items
  std::string error;
};

std::string jsonText(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", c);
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// A file name from a tensor name: "/layer/Add:0" -> "layer_Add_0".
std::string fileStem(const std::string& name) {
  std::string stem;
  for (char c : name) stem += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_';
  const size_t start = stem.find_first_not_of('_');
  return start == std::string::npos ? "tensor" : stem.substr(start);
}

// An NC1HWC0 activation ([N, ceil(C / 16), H, W, 16], the compiler's
// layout between conv-family kernels) as the dense NCHW tensor its
// descriptor names, so that a dump compares with the model's own tensors;
// false when the storage is not that size.
bool unpackNc1hwc0(const vinci_task_output& output, HostTensor& tensor) {
  if (output.desc.rank != 4) return false;
  const int64_t n = output.desc.dims[0], c = output.desc.dims[1], h = output.desc.dims[2],
                w = output.desc.dims[3], c1 = (c + 15) / 16;
  const size_t element = vinci::tensorio::dtypeBytes(output.desc.dtype);
  if (element == 0 || output.desc.size != static_cast<uint64_t>(n * c1 * h * w * 16) * element)
    return false;
  tensor.shape = {n, c, h, w};
  tensor.data.resize(static_cast<size_t>(n * c * h * w) * element);
  const uint8_t* storage = static_cast<const uint8_t*>(output.data);
  uint8_t* dense = tensor.data.data();
  for (int64_t image = 0; image < n; ++image)
    for (int64_t channel = 0; channel < c; ++channel)
      for (int64_t pixel = 0; pixel < h * w; ++pixel) {
        const int64_t from = ((image * c1 + channel / 16) * h * w + pixel) * 16 + channel % 16;
        const int64_t to = (image * c + channel) * h * w + pixel;
        std::memcpy(dense + to * element, storage + from * element, element);
      }
  return true;
}

void dumpTask(void* user, uint32_t task, const char* kernel, const vinci_task_output* outputs,
              uint32_t num_outputs) {
  Dump& dump = *static_cast<Dump*>(user);
  if (!dump.active || !dump.error.empty()) return;
  for (uint32_t o = 0; o < num_outputs; ++o) {
    const vinci_task_output& output = outputs[o];
    HostTensor tensor;
    tensor.dtype = output.desc.dtype;
    const bool dense = output.desc.format == VINCI_FORMAT_ND || output.desc.format == VINCI_FORMAT_NCHW;
    const uint8_t* bytes = static_cast<const uint8_t*>(output.data);
    if (dense) {
      tensor.shape.assign(output.desc.dims, output.desc.dims + output.desc.rank);
      tensor.data.assign(bytes, bytes + output.desc.size);
    } else if (output.desc.format != VINCI_FORMAT_NC1HWC0 || !unpackNc1hwc0(output, tensor)) {
      // Another padded format: its storage bytes, flat.
      tensor.shape = {static_cast<int64_t>(output.desc.size / vinci::tensorio::dtypeBytes(output.desc.dtype))};
      tensor.data.assign(bytes, bytes + output.desc.size);
    }
    const std::string file = fmt::format("{:04}_{}.npy", task, fileStem(output.desc.name));
    const std::vector<uint8_t> npy = vinci::tensorio::encodeNpy(tensor);
    vinci::format::Status status =
        vinci::format::writeFileAtomically(dump.dir + "/" + file, npy.data(), npy.size());
    if (!status.ok()) {
      dump.error = status.message;
      return;
    }
    dump.entries.push_back(fmt::format(
        R"({{"task": {}, "kernel": {}, "tensor": {}, "file": {}, "dtype": "{}", "shape": [{}]}})",
        task, jsonText(kernel), jsonText(output.desc.name), jsonText(file),
        vinci_dtype_name(output.desc.dtype), fmt::join(tensor.shape, ", ")));
  }
}

[[noreturn]] void die(const std::string& message) {
  fmt::print(stderr, "vinci-run: error: {}\n", message);
  std::exit(1);
}

void check(vinci_status status) {
  if (status != VINCI_OK) die(vinci_last_error_message());
}

std::string shapeText(const int64_t* dims, size_t rank) {
  return fmt::format("[{}]", fmt::join(dims, dims + rank, ", "));
}

// A model input must match the file exactly: dtype and, for the dense
// formats, shape; for the padded formats the file holds the storage bytes.
void checkInput(const vinci_tensor_desc& desc, uint32_t index, const std::string& path,
                const HostTensor& tensor) {
  const std::string what = fmt::format("input {} '{}' ({})", index, desc.name, path);
  // numpy has no bfloat16: its bit patterns come as uint16, as encodeNpy
  // writes bf16 outputs.
  const bool bf16Bits = desc.dtype == VINCI_DTYPE_BF16 && tensor.dtype == VINCI_DTYPE_U16;
  if (tensor.dtype != desc.dtype && !bf16Bits)
    die(fmt::format("{}: dtype is {}, the model expects {}", what, vinci_dtype_name(tensor.dtype),
                    vinci_dtype_name(desc.dtype)));
  const bool dense = desc.format == VINCI_FORMAT_ND || desc.format == VINCI_FORMAT_NCHW;
  if (dense && (tensor.shape.size() != desc.rank ||
                !std::equal(tensor.shape.begin(), tensor.shape.end(), desc.dims)))
    die(fmt::format("{}: shape is {}, the model expects {}", what,
                    shapeText(tensor.shape.data(), tensor.shape.size()),
                    shapeText(desc.dims, desc.rank)));
  if (tensor.data.size() != desc.size)
    die(fmt::format("{}: {} bytes, the model expects {} ({} storage)", what, tensor.data.size(),
                    desc.size, vinci_format_name(desc.format)));
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app{"Run a compiled Vinci .om model on the Da Vinci AI Core simulator"};
  app.add_option("--model", options.model, "the .om model")->required();
  app.add_option("--input", options.inputs, "input files (.npy or ONNX TensorProto .pb), in order")
      ->delimiter(',');
  app.add_option("--output_dir", options.output_dir, "directory for output_<i>.npy")->required();
  app.add_option("--loop", options.loop, "run the model N times (timing is averaged)")
      ->check(CLI::Range(1u, 1000000u));
  app.add_option("--profile", options.profile, "write a Chrome-trace JSON timeline of the last run");
  app.add_option("--threads", options.threads, "host threads for the simulated cores (0: all)");
  app.add_option("--hazards", options.hazards, "unsynchronised pipe hazards: fatal or warn")
      ->check(CLI::IsMember({"fatal", "warn"}));
  app.add_option("--timing", options.timing,
                 "what-if changes to the SoC's timing table: name=value|optimistic|pessimistic,... "
                 "(docs/isa.md)");
  app.add_option("--dump", options.dump,
                 "write every task's outputs (the first run) to DIR as .npy, named after their "
                 "source nodes, with DIR/index.json (compare with python3 -m vinci.compare)");
  app.add_flag("--reference-paths", options.reference_paths,
               "run every instruction through the simulator's reference path (slower; identical "
               "results and figures)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());
    return 0;
  } catch (const CLI::ParseError& e) {
    // One line, exit 2, as vinci-compile's bad options.
    fmt::print(stderr, "vinci-run: error: {} (see vinci-run --help)\n", e.what());
    return 2;
  }

  vinci_model* model = nullptr;
  check(vinci_model_load_from_file(options.model.c_str(), &model));
  vinci_model_info info;
  check(vinci_model_get_info(model, &info));

  if (options.inputs.size() != info.num_inputs)
    die(fmt::format("{}: the model takes {} input(s), {} given with --input", options.model,
                    info.num_inputs, options.inputs.size()));
  std::vector<HostTensor> inputs(info.num_inputs);
  for (uint32_t i = 0; i < info.num_inputs; ++i) {
    std::string error;
    if (!vinci::tensorio::readTensorFile(options.inputs[i], inputs[i], error)) die(error);
  }

  // A model with gears runs the gear of the inputs' shapes; the runtime's
  // error lists the gears when none matches.
  uint32_t gear_count = 0;
  check(vinci_model_get_gear_count(model, &gear_count));
  uint32_t gear = 0;
  if (gear_count > 0) {
    std::vector<vinci_shape> shapes(info.num_inputs);
    for (uint32_t i = 0; i < info.num_inputs; ++i) {
      if (inputs[i].shape.size() > VINCI_MAX_RANK)
        die(fmt::format("input {} ({}): rank {} exceeds {}", i, options.inputs[i],
                        inputs[i].shape.size(), VINCI_MAX_RANK));
      shapes[i].rank = static_cast<uint32_t>(inputs[i].shape.size());
      std::copy(inputs[i].shape.begin(), inputs[i].shape.end(), shapes[i].dims);
    }
    check(vinci_model_match_gear(model, shapes.data(), info.num_inputs, &gear));
  }
  auto inputDesc = [&](uint32_t i) {
    vinci_tensor_desc desc;
    check(gear_count > 0 ? vinci_model_get_gear_input_desc(model, gear, i, &desc)
                         : vinci_model_get_input_desc(model, i, &desc));
    return desc;
  };
  std::vector<vinci_const_buffer> input_buffers(info.num_inputs);
  for (uint32_t i = 0; i < info.num_inputs; ++i) {
    checkInput(inputDesc(i), i, options.inputs[i], inputs[i]);
    input_buffers[i] = {inputs[i].data.data(), inputs[i].data.size()};
  }

  std::vector<HostTensor> outputs(info.num_outputs);
  std::vector<vinci_buffer> output_buffers(info.num_outputs);
  std::vector<vinci_tensor_desc> output_descs(info.num_outputs);
  for (uint32_t i = 0; i < info.num_outputs; ++i) {
    vinci_tensor_desc& desc = output_descs[i];
    check(gear_count > 0 ? vinci_model_get_gear_output_desc(model, gear, i, &desc)
                         : vinci_model_get_output_desc(model, i, &desc));
    outputs[i].dtype = desc.dtype;
    if (desc.format == VINCI_FORMAT_ND || desc.format == VINCI_FORMAT_NCHW)
      outputs[i].shape.assign(desc.dims, desc.dims + desc.rank);
    else  // padded device layout: written flat, as stored
      outputs[i].shape = {static_cast<int64_t>(desc.size / vinci::tensorio::dtypeBytes(desc.dtype))};
    outputs[i].data.assign(desc.size, 0);
    output_buffers[i] = {outputs[i].data.data(), outputs[i].data.size()};
  }

  vinci_context_options context_options;
  vinci_context_options_init(&context_options);
  context_options.threads = options.threads;
  context_options.hazards_fatal = options.hazards == "fatal";
  context_options.trace_path = options.profile.empty() ? nullptr : options.profile.c_str();
  context_options.timing_overrides = options.timing.c_str();
  context_options.reference_paths = options.reference_paths ? 1 : 0;
  Dump dump;
  if (!options.dump.empty()) {
    if (mkdir(options.dump.c_str(), 0755) != 0 && errno != EEXIST)
      die(fmt::format("--dump {}: cannot create the directory: {}", options.dump,
                      std::strerror(errno)));
    dump.dir = options.dump;
    context_options.task_observer = dumpTask;
    context_options.task_observer_user = &dump;
  }
  vinci_context* context = nullptr;
  check(vinci_context_create(model, &context_options, &context));
  if (gear_count > 0) check(vinci_context_set_gear(context, gear));

  double host_seconds = 0, first_seconds = 0, best_seconds = 0;
  for (unsigned run = 0; run < options.loop; ++run) {
    const auto start = std::chrono::steady_clock::now();
    check(vinci_context_run(context, input_buffers.data(), info.num_inputs, output_buffers.data(),
                            info.num_outputs));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    host_seconds += seconds;
    dump.active = false;
    if (!dump.error.empty()) die(fmt::format("--dump: {}", dump.error));
    if (run == 0) first_seconds = best_seconds = seconds;
    best_seconds = std::min(best_seconds, seconds);
  }
  vinci_profile profile;
  check(vinci_context_get_profile(context, &profile));
  for (uint32_t h = 0; h < profile.hazard_count; ++h)
    fmt::print(stderr, "vinci-run: warning: hazard: {}\n", vinci_context_hazard_message(context, h));

  // The dump is complete before any output is written: a failed dump
  // leaves no output file.
  if (!options.dump.empty()) {
    if (dump.entries.empty())
      die(fmt::format("--dump {}: the model records no task outputs (compile it again with this "
                      "vinci-compile)", options.dump));
    const std::string index = fmt::format("{{\"model\": {}, \"tensors\": [\n  {}\n]}}\n",
                                          jsonText(options.model), fmt::join(dump.entries, ",\n  "));
    vinci::format::Status status = vinci::format::writeFileAtomically(
        options.dump + "/index.json", index.data(), index.size());
    if (!status.ok()) die(status.message);
  }
  if (mkdir(options.output_dir.c_str(), 0755) != 0 && errno != EEXIST)
    die(fmt::format("{}: cannot create the output directory: {}", options.output_dir,
                    std::strerror(errno)));
  for (uint32_t i = 0; i < info.num_outputs; ++i) {
    const std::string path = fmt::format("{}/output_{}.npy", options.output_dir, i);
    const std::vector<uint8_t> bytes = vinci::tensorio::encodeNpy(outputs[i]);
    vinci::format::Status status = vinci::format::writeFileAtomically(path, bytes.data(), bytes.size());
    if (!status.ok()) die(status.message);
    const vinci_tensor_desc& desc = output_descs[i];
    fmt::print("output {} '{}': shape {} {} {} -> {}{}\n", i, desc.name,
               shapeText(desc.dims, desc.rank), vinci_dtype_name(desc.dtype),
               vinci_format_name(desc.format), path,
               desc.dtype == VINCI_DTYPE_BF16 ? " (bfloat16 stored as uint16 bits)" : "");
  }

  if (!options.dump.empty())
    fmt::print("dump: {} tensors of {} tasks -> {}/index.json\n", dump.entries.size(),
               profile.num_tasks, options.dump);
  fmt::print("model '{}' on {}: {} task(s), {} run(s)\n", info.name, info.soc, profile.num_tasks,
             options.loop);
  if (gear_count > 0) {
    vinci_gear_kind kind;
    check(vinci_model_get_gear_kind(model, &kind));
    vinci_gear values;
    check(vinci_model_get_gear(model, gear, &values));
    fmt::print("gear {} of {} ({} {})\n", gear, gear_count,
               kind == VINCI_GEAR_BATCH_SIZE   ? "batch size"
               : kind == VINCI_GEAR_IMAGE_SIZE ? "image size"
                                               : "dims",
               fmt::join(values.values, values.values + values.num_values, ","));
  }
  if (!options.timing.empty())
    fmt::print("timing table of {} changed by --timing {}\n", info.soc, options.timing);
  fmt::print("simulated: {} cycles = {:.3f} us at {:.3f} GHz per run, no L2 (timing model of the "
             "{} from published numbers, not a hardware measurement)\n",
             profile.cycles, profile.simulated_us, profile.clock_hz / 1e9, info.soc);
  fmt::print("simulated with an ideal L2: {} cycles = {:.3f} us (the same table; L2 hits for "
             "bytes the run touched before)\n",
             profile.cycles_ideal_l2, profile.simulated_us_ideal_l2);
  fmt::print("simulated bounds: {:.3f} us to {:.3f} us (every timing cost at its optimistic end "
             "with the ideal L2, and at its pessimistic end without; docs/isa.md)\n",
             profile.simulated_us_low, profile.simulated_us_high);
  fmt::print("host wall time: {:.3f} ms per run (best {:.3f} ms, first {:.3f} ms; simulator on "
             "this host)\n",
             host_seconds / options.loop * 1e3, best_seconds * 1e3, first_seconds * 1e3);
  fmt::print("GM traffic per run: {} bytes read, {} bytes written\n", profile.gm_bytes_read,
             profile.gm_bytes_written);
  if (!options.profile.empty()) fmt::print("timeline: {}\n", options.profile);

  vinci_context_destroy(context);
  vinci_model_release(model);
  return 0;
}
