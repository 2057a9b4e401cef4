// The C API (vinci/runtime.h) over the container reader and an executor.
//
// Every entry point catches everything: no C++ exception crosses the API.
// Failures set the calling thread's last error message and return a status.
#include "vinci/runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "executor.h"
#include "vinci/format/container.h"
#include "vinci/format/om_generated.h"
#include "vinci/format/writer.h"

namespace {

using vinci::format::Container;
using vinci::format::Errc;
using vinci::runtime::Region;
using vinci::runtime::TaskProfile;
namespace om = vinci::om;

static_assert(static_cast<int>(Errc::invalid_model) == VINCI_ERROR_INVALID_MODEL,
              "format error codes must equal the C API's");
static_assert(static_cast<int>(om::DType::MAX) == VINCI_DTYPE_BOOL, "dtype values diverged");
static_assert(static_cast<int>(om::Format::MAX) == VINCI_FORMAT_FRACTAL_Z, "format values diverged");
static_assert(VINCI_MAX_RANK == vinci::format::kMaxRank, "rank limits diverged");

thread_local std::string t_last_error;

vinci_status fail(vinci_status status, std::string message) {
  t_last_error = std::move(message);
  return status;
}

vinci_status fail(const vinci::format::Status& status) {
  return fail(static_cast<vinci_status>(status.code), status.message);
}

// Runs `body`, turning any exception into a status (the API never throws).
template <typename Body>
vinci_status guarded(const char* function, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(VINCI_ERROR_OUT_OF_MEMORY, std::string(function) + ": out of memory");
  } catch (const std::exception& e) {
    return fail(VINCI_ERROR_INTERNAL, std::string(function) + ": internal error: " + e.what());
  } catch (...) {
    return fail(VINCI_ERROR_INTERNAL, std::string(function) + ": internal error");
  }
}

using TaskList = flatbuffers::Vector<flatbuffers::Offset<om::Task>>;

// An input or output at one runnable shape.
struct IoShape {
  std::vector<int64_t> dims;
  uint64_t size = 0;
  uint64_t arena_offset = 0;
};

// What one run executes: the whole model when it is static, or one gear.
struct RunShape {
  std::vector<int64_t> values;  // the gear's values; empty for a static model
  std::vector<IoShape> inputs, outputs;
  const TaskList* tasks = nullptr;
  uint64_t arena_size = 0;
};

// An immutable, validated model. Shared (std::shared_ptr) by the caller's
// handle and every context made from it.
struct Model {
  vinci::format::MappedFile file;  // empty when loaded from memory
  Container container;
  const vinci::soc::SocSpec* soc = nullptr;
  std::vector<std::unique_ptr<vinci::runtime::PreparedKernel>> kernels;
  const vinci::runtime::Executor* executor = nullptr;
  std::string origin;
  vinci_gear_kind gear_kind = VINCI_GEAR_NONE;
  std::vector<RunShape> shapes;  // one (static) or one per gear, in the file's order

  bool hasGears() const { return gear_kind != VINCI_GEAR_NONE; }
};

std::vector<int64_t> dimsOf(const flatbuffers::Vector<int64_t>& shape) {
  return std::vector<int64_t>(shape.begin(), shape.end());
}

// The run shapes of a validated container: the top-level tables, or each gear's.
std::vector<RunShape> runShapes(const om::Model& meta) {
  std::vector<RunShape> shapes;
  if (meta.gear_kind() == om::GearKind::None) {
    RunShape shape;
    for (const om::IoDesc* io : *meta.inputs())
      shape.inputs.push_back({dimsOf(*io->tensor()->shape()), io->tensor()->size(), io->arena_offset()});
    for (const om::IoDesc* io : *meta.outputs())
      shape.outputs.push_back({dimsOf(*io->tensor()->shape()), io->tensor()->size(), io->arena_offset()});
    shape.tasks = meta.tasks();
    shape.arena_size = meta.arena_size();
    shapes.push_back(std::move(shape));
    return shapes;
  }
  for (const om::Gear* gear : *meta.gears()) {
    RunShape shape;
    shape.values = dimsOf(*gear->values());
    for (const om::GearIo* io : *gear->inputs())
      shape.inputs.push_back({dimsOf(*io->shape()), io->size(), io->arena_offset()});
    for (const om::GearIo* io : *gear->outputs())
      shape.outputs.push_back({dimsOf(*io->shape()), io->size(), io->arena_offset()});
    shape.tasks = gear->tasks();
    shape.arena_size = gear->arena_size();
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

// Whether the kernels see `io` as int32 while the caller passes int64.
bool narrowsToInt32(const om::IoDesc& io) {
  return io.device_dtype() == om::DType::I32 && io.tensor()->dtype() == om::DType::I64;
}

// Copies a caller's int64 input into the arena as int32; fails on the first
// value outside int32 rather than wrapping it.
vinci_status narrowInput(const om::IoDesc& io, const IoShape& shape, uint32_t index,
                         const void* data, uint8_t* arena) {
  const uint64_t count = shape.size / sizeof(int64_t);
  const uint8_t* src = static_cast<const uint8_t*>(data);
  for (uint64_t e = 0; e < count; ++e) {
    int64_t value;
    std::memcpy(&value, src + e * sizeof(int64_t), sizeof(value));
    if (value < INT32_MIN || value > INT32_MAX)
      return fail(VINCI_ERROR_INVALID_ARGUMENT,
                  "input " + std::to_string(index) + " '" + io.tensor()->name()->str() +
                      "': element " + std::to_string(e) + " is " + std::to_string(value) +
                      ", outside int32 (the device computes int64 tensors in int32)");
    const int32_t narrow = static_cast<int32_t>(value);
    std::memcpy(arena + shape.arena_offset + e * sizeof(int32_t), &narrow, sizeof(narrow));
  }
  return VINCI_OK;
}

void widenOutput(const IoShape& shape, const uint8_t* arena, void* data) {
  const uint64_t count = shape.size / sizeof(int64_t);
  uint8_t* dst = static_cast<uint8_t*>(data);
  for (uint64_t e = 0; e < count; ++e) {
    int32_t narrow;
    std::memcpy(&narrow, arena + shape.arena_offset + e * sizeof(int32_t), sizeof(narrow));
    const int64_t value = narrow;
    std::memcpy(dst + e * sizeof(int64_t), &value, sizeof(value));
  }
}

// The model's view of an input or output: -1 in the dims that gears set,
// the largest gear's size.
vinci_tensor_desc describe(const om::IoDesc& io) {
  vinci_tensor_desc desc{};
  const om::TensorDesc& tensor = *io.tensor();
  desc.name = tensor.name()->c_str();  // FlatBuffers strings are NUL-terminated
  desc.dtype = static_cast<vinci_dtype>(tensor.dtype());
  desc.format = static_cast<vinci_format>(tensor.format());
  desc.rank = tensor.shape()->size();
  for (uint32_t d = 0; d < desc.rank; ++d) desc.dims[d] = tensor.shape()->Get(d);
  desc.size = tensor.size();
  return desc;
}

// The same at one run shape (a gear): its dims and size.
vinci_tensor_desc describe(const om::IoDesc& io, const IoShape& shape) {
  vinci_tensor_desc desc = describe(io);
  for (uint32_t d = 0; d < desc.rank; ++d) desc.dims[d] = shape.dims[d];
  desc.size = shape.size;
  return desc;
}

std::string str(uint64_t value) { return std::to_string(value); }

std::string join(const std::vector<int64_t>& values, const char* separator) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) text += (i ? separator : "") + std::to_string(values[i]);
  return text;
}

// A gear as its option spells it: "8" (batch), "416,416" (h,w), "1,128" (dims).
std::string gearText(const RunShape& shape) { return join(shape.values, ","); }

// Every gear, for messages: "gears 32;64;128".
std::string gearList(const Model& m) {
  std::string text;
  for (const RunShape& shape : m.shapes) text += (text.empty() ? "" : ";") + gearText(shape);
  return text;
}

const char* gearOption(vinci_gear_kind kind) {
  switch (kind) {
    case VINCI_GEAR_BATCH_SIZE: return "dynamic batch sizes";
    case VINCI_GEAR_IMAGE_SIZE: return "dynamic image sizes (height,width)";
    case VINCI_GEAR_DIMS: return "dynamic dims";
    default: return "no gears";
  }
}

}  // namespace

struct vinci_model {
  std::shared_ptr<const Model> model;
};

struct vinci_context {
  std::shared_ptr<const Model> model;
  std::unique_ptr<vinci::runtime::Session> session;
  uint8_t* arena = nullptr;
  bool owns_arena = false;
  std::string trace_path;
  vinci_task_observer task_observer = nullptr;
  void* task_observer_user = nullptr;
  std::vector<TaskProfile> task_profiles;
  std::vector<std::string> hazards;
  vinci_profile profile{};
  bool has_profile = false;
  // The run shape the next run executes (-1: a model with gears, none set
  // yet) and the one the profile describes.
  int64_t shape = -1;
  uint32_t profiled_shape = 0;

  ~vinci_context() {
    if (owns_arena) std::free(arena);
  }
};

namespace {

vinci_status loadModel(std::unique_ptr<Model> model, const uint8_t* data, size_t size,
                       vinci_model** out) {
  vinci::format::Status status = Container::open(data, size, model->origin, model->container);
  if (!status.ok()) return fail(status);
  const Container& container = model->container;
  model->soc = vinci::soc::findSoc(container.soc());
  if (model->soc == nullptr)
    return fail(VINCI_ERROR_UNKNOWN_SOC,
                model->origin + ": the model targets SoC '" + container.soc() +
                    "', which this runtime does not know; recompile for a supported SoC");
  model->executor = &vinci::runtime::simulatorExecutor();
  model->gear_kind = static_cast<vinci_gear_kind>(container.model().gear_kind());
  model->shapes = runShapes(container.model());
  const auto& kernels = *container.model().kernels();
  model->kernels.resize(kernels.size());
  for (uint32_t i = 0; i < kernels.size(); ++i) {
    std::string error;
    if (!model->executor->prepare(*model->soc, container.kernelProgram(i),
                                  kernels.Get(i)->num_args(), model->kernels[i], error))
      return fail(VINCI_ERROR_BAD_PROGRAM, model->origin + ": kernel " + str(i) + " '" +
                                               kernels.Get(i)->name()->str() + "': " + error);
  }
  *out = new vinci_model{std::shared_ptr<const Model>(std::move(model))};
  return VINCI_OK;
}

vinci_status checkTensorIndex(const vinci_model* model, uint32_t index, bool input,
                              const void* out) {
  if (model == nullptr || out == nullptr)
    return fail(VINCI_ERROR_INVALID_ARGUMENT, "model and output pointer must not be NULL");
  const om::Model& m = model->model->container.model();
  const uint32_t count = input ? m.inputs()->size() : m.outputs()->size();
  if (index >= count)
    return fail(VINCI_ERROR_INVALID_ARGUMENT, std::string(input ? "input" : "output") + " index " +
                                                  str(index) + " is out of range (the model has " +
                                                  str(count) + ")");
  return VINCI_OK;
}

vinci_status findTensor(const vinci_model* model, const char* name, bool input, uint32_t* index) {
  if (model == nullptr || name == nullptr || index == nullptr)
    return fail(VINCI_ERROR_INVALID_ARGUMENT, "model, name and index must not be NULL");
  const auto& list = input ? *model->model->container.model().inputs()
                           : *model->model->container.model().outputs();
  for (uint32_t i = 0; i < list.size(); ++i)
    if (std::strcmp(list.Get(i)->tensor()->name()->c_str(), name) == 0) {
      *index = i;
      return VINCI_OK;
    }
  return fail(VINCI_ERROR_NOT_FOUND, std::string("the model has no ") +
                                         (input ? "input" : "output") + " named '" + name + "'");
}

}  // namespace

namespace {

vinci_status checkGearIndex(const vinci_model* model, uint32_t gear, const void* out,
                            const char* function) {
  if (model == nullptr || out == nullptr)
    return fail(VINCI_ERROR_INVALID_ARGUMENT, std::string(function) + ": arguments must not be NULL");
  const Model& m = *model->model;
  if (!m.hasGears())
    return fail(VINCI_ERROR_INVALID_ARGUMENT, m.origin + ": the model has static shapes, no gears");
  if (gear >= m.shapes.size())
    return fail(VINCI_ERROR_INVALID_ARGUMENT, "gear index " + str(gear) + " is out of range (the "
                                                  "model has " + str(m.shapes.size()) + " gears)");
  return VINCI_OK;
}

vinci_status describeAtGear(const vinci_model* model, uint32_t gear, uint32_t index, bool input,
                            vinci_tensor_desc* out_desc, const char* function) {
  vinci_status status = checkGearIndex(model, gear, out_desc, function);
  if (status == VINCI_OK) status = checkTensorIndex(model, index, input, out_desc);
  if (status != VINCI_OK) return status;
  const Model& m = *model->model;
  const om::Model& meta = m.container.model();
  *out_desc = input ? describe(*meta.inputs()->Get(index), m.shapes[gear].inputs[index])
                    : describe(*meta.outputs()->Get(index), m.shapes[gear].outputs[index]);
  return VINCI_OK;
}

// The gear whose values equal `values`, or an error that lists the gears.
vinci_status selectGear(vinci_context* context, vinci_gear_kind kind, const int64_t* values,
                        uint32_t count, const char* function) {
  if (context == nullptr || (values == nullptr && count > 0))
    return fail(VINCI_ERROR_INVALID_ARGUMENT, std::string(function) + ": arguments must not be NULL");
  const Model& m = *context->model;
  const std::vector<int64_t> wanted(values, values + count);
  if (!m.hasGears())
    return fail(VINCI_ERROR_INVALID_ARGUMENT,
                m.origin + ": the model has static shapes, no gears to choose from");
  if (kind != m.gear_kind)
    return fail(VINCI_ERROR_INVALID_ARGUMENT, m.origin + ": " + function + " sets " +
                                                  gearOption(kind) + ", but the model has " +
                                                  gearOption(m.gear_kind) + " (gears " +
                                                  gearList(m) + ")");
  for (size_t g = 0; g < m.shapes.size(); ++g)
    if (m.shapes[g].values == wanted) {
      context->shape = static_cast<int64_t>(g);
      return VINCI_OK;
    }
  return fail(VINCI_ERROR_INVALID_ARGUMENT, m.origin + ": " + join(wanted, ",") +
                                                " is not a gear of the model (its " +
                                                gearOption(m.gear_kind) + ": " + gearList(m) + ")");
}

}  // namespace

extern "C" {

const char* vinci_last_error_message(void) { return t_last_error.c_str(); }

const char* vinci_status_name(vinci_status status) {
  switch (status) {
    case VINCI_OK: return "ok";
    case VINCI_ERROR_UNKNOWN_SOC: return "unknown SoC";
    case VINCI_ERROR_BAD_PROGRAM: return "bad kernel program";
    case VINCI_ERROR_NOT_FOUND: return "not found";
    case VINCI_ERROR_SIZE_MISMATCH: return "size mismatch";
    case VINCI_ERROR_OUT_OF_MEMORY: return "out of memory";
    case VINCI_ERROR_EXECUTION: return "execution failed";
    case VINCI_ERROR_HAZARD: return "pipe hazard";
    case VINCI_ERROR_INTERNAL: return "internal error";
    default:
      if (status > VINCI_OK && status <= VINCI_ERROR_INVALID_MODEL)
        return vinci::format::errcName(static_cast<Errc>(status));
      return "unknown status";
  }
}

const char* vinci_dtype_name(vinci_dtype dtype) {
  return vinci::format::dtypeName(static_cast<uint8_t>(dtype));
}

const char* vinci_format_name(vinci_format format) {
  return vinci::format::formatName(static_cast<uint8_t>(format));
}

const char* vinci_runtime_version(void) {
  static const std::string version =
      std::to_string(VINCI_RUNTIME_VERSION_MAJOR) + "." + std::to_string(VINCI_RUNTIME_VERSION_MINOR) +
      " (om format " + std::to_string(vinci::format::kVersionMajor) + "." +
      std::to_string(vinci::format::kVersionMinor) + ")";
  return version.c_str();
}

vinci_status vinci_model_load_from_file(const char* path, vinci_model** model) {
  return guarded(__func__, [&] {
    if (path == nullptr || model == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "vinci_model_load_from_file: path and model must not be NULL");
    *model = nullptr;
    auto loaded = std::make_unique<Model>();
    loaded->origin = path;
    vinci::format::Status status = vinci::format::MappedFile::open(path, loaded->file);
    if (!status.ok()) return fail(status);
    const uint8_t* data = loaded->file.data();
    const size_t size = loaded->file.size();
    return loadModel(std::move(loaded), data, size, model);
  });
}

vinci_status vinci_model_load_from_memory(const void* data, size_t size, vinci_model** model) {
  return guarded(__func__, [&] {
    if (data == nullptr || model == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT,
                  "vinci_model_load_from_memory: data and model must not be NULL");
    *model = nullptr;
    auto loaded = std::make_unique<Model>();
    loaded->origin = "<memory>";
    return loadModel(std::move(loaded), static_cast<const uint8_t*>(data), size, model);
  });
}

void vinci_model_release(vinci_model* model) { delete model; }

vinci_status vinci_model_query_size(const vinci_model* model, uint64_t* work_size,
                                    uint64_t* weight_size) {
  return guarded(__func__, [&] {
    if (model == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "vinci_model_query_size: model must not be NULL");
    if (work_size) *work_size = model->model->container.model().arena_size();
    if (weight_size)
      *weight_size = model->model->container.section(vinci::format::SectionKind::weights).size;
    return VINCI_OK;
  });
}

vinci_status vinci_model_get_info(const vinci_model* model, vinci_model_info* info) {
  return guarded(__func__, [&] {
    if (model == nullptr || info == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "vinci_model_get_info: arguments must not be NULL");
    const Model& m = *model->model;
    const om::Model& meta = m.container.model();
    *info = vinci_model_info{};
    info->name = meta.name()->c_str();
    info->soc = meta.soc()->c_str();
    info->precision = vinci::format::precisionName(static_cast<uint8_t>(meta.precision()));
    info->producer = meta.producer() ? meta.producer()->c_str() : "";
    info->producer_version = meta.producer_version() ? meta.producer_version()->c_str() : "";
    info->format_version_major = m.container.versionMajor();
    info->format_version_minor = m.container.versionMinor();
    info->num_inputs = meta.inputs()->size();
    info->num_outputs = meta.outputs()->size();
    info->num_weights = meta.weights() ? meta.weights()->size() : 0;
    info->num_kernels = meta.kernels()->size();
    info->num_tasks = meta.tasks()->size();
    info->work_size = meta.arena_size();
    info->weight_size = m.container.section(vinci::format::SectionKind::weights).size;
    info->clock_hz = m.soc->clock_hz;
    return VINCI_OK;
  });
}

uint32_t vinci_model_num_inputs(const vinci_model* model) {
  return model ? model->model->container.model().inputs()->size() : 0;
}

uint32_t vinci_model_num_outputs(const vinci_model* model) {
  return model ? model->model->container.model().outputs()->size() : 0;
}

vinci_status vinci_model_get_input_desc(const vinci_model* model, uint32_t index,
                                        vinci_tensor_desc* desc) {
  return guarded(__func__, [&] {
    vinci_status status = checkTensorIndex(model, index, true, desc);
    if (status != VINCI_OK) return status;
    *desc = describe(*model->model->container.model().inputs()->Get(index));
    return VINCI_OK;
  });
}

vinci_status vinci_model_get_output_desc(const vinci_model* model, uint32_t index,
                                         vinci_tensor_desc* desc) {
  return guarded(__func__, [&] {
    vinci_status status = checkTensorIndex(model, index, false, desc);
    if (status != VINCI_OK) return status;
    *desc = describe(*model->model->container.model().outputs()->Get(index));
    return VINCI_OK;
  });
}

vinci_status vinci_model_find_input(const vinci_model* model, const char* name, uint32_t* index) {
  return guarded(__func__, [&] {
    return findTensor(model, name, true, index);
  });
}

vinci_status vinci_model_find_output(const vinci_model* model, const char* name, uint32_t* index) {
  return guarded(__func__, [&] {
    return findTensor(model, name, false, index);
  });
}

vinci_status vinci_model_kernel_instruction_count(const vinci_model* model, uint32_t index,
                                                  uint64_t* count) {
  return guarded(__func__, [&] {
    if (model == nullptr || count == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "model and count must not be NULL");
    if (index >= model->model->kernels.size())
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "kernel index " + str(index) + " is out of range");
    *count = model->model->kernels[index]->instructionCount();
    return VINCI_OK;
  });
}

void vinci_context_options_init(vinci_context_options* options) {
  if (options) *options = vinci_context_options{};
}

vinci_status vinci_context_create(vinci_model* model, const vinci_context_options* options,
                                  vinci_context** context) {
  return guarded(__func__, [&] {
    if (model == nullptr || context == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "vinci_context_create: model and context must not be NULL");
    *context = nullptr;
    vinci_context_options defaults;
    vinci_context_options_init(&defaults);
    const vinci_context_options& opts = options ? *options : defaults;
    const Model& m = *model->model;
    const uint64_t arena_size = m.container.model().arena_size();

    auto ctx = std::make_unique<vinci_context>();
    ctx->model = model->model;
    if (opts.work_memory != nullptr) {
      if (opts.work_memory_size < arena_size)
        return fail(VINCI_ERROR_SIZE_MISMATCH, "work memory of " + str(opts.work_memory_size) +
                                                   " bytes is smaller than the model's " +
                                                   str(arena_size) + " (vinci_model_query_size)");
      if (reinterpret_cast<uintptr_t>(opts.work_memory) % vinci::format::kWeightAlignment != 0)
        return fail(VINCI_ERROR_INVALID_ARGUMENT, "work memory must be 64-byte aligned");
      ctx->arena = static_cast<uint8_t*>(opts.work_memory);
    } else if (arena_size > 0) {
      const uint64_t rounded = (arena_size + 63) / 64 * 64;
      ctx->arena = static_cast<uint8_t*>(std::aligned_alloc(64, rounded));
      if (ctx->arena == nullptr)
        return fail(VINCI_ERROR_OUT_OF_MEMORY,
                    "cannot allocate the " + str(arena_size) + "-byte work memory");
      ctx->owns_arena = true;
      std::memset(ctx->arena, 0, rounded);  // runs are deterministic from the first
    }
    vinci::runtime::SessionOptions session_options;
    session_options.threads = opts.threads;
    session_options.hazards_fatal = opts.hazards_fatal != 0;
    session_options.trace = opts.trace_path != nullptr;
    session_options.reference_paths = opts.reference_paths != 0;
    if (opts.timing_overrides != nullptr && *opts.timing_overrides != '\0') {
      vinci::soc::TimingTable check = m.soc->timing;
      std::string error;
      if (!vinci::soc::applyTimingOverrides(check, opts.timing_overrides, error))
        return fail(VINCI_ERROR_INVALID_ARGUMENT, error);
      session_options.timing_overrides = opts.timing_overrides;
    }
    if (opts.trace_path) ctx->trace_path = opts.trace_path;
    ctx->task_observer = opts.task_observer;
    ctx->task_observer_user = opts.task_observer_user;
    ctx->session = m.executor->newSession(*m.soc, session_options);
    ctx->shape = m.hasGears() ? -1 : 0;
    *context = ctx.release();
    return VINCI_OK;
  });
}

void vinci_context_destroy(vinci_context* context) { delete context; }

vinci_status vinci_context_run(vinci_context* context, const vinci_const_buffer* inputs,
                               uint32_t num_inputs, const vinci_buffer* outputs,
                               uint32_t num_outputs) {
  return guarded(__func__, [&] {
    if (context == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "vinci_context_run: context must not be NULL");
    const auto host_start = std::chrono::steady_clock::now();
    const Model& m = *context->model;
    const om::Model& meta = m.container.model();
    const auto& input_list = *meta.inputs();
    const auto& output_list = *meta.outputs();
    if (context->shape < 0)
      return fail(VINCI_ERROR_INVALID_ARGUMENT,
                  m.origin + ": the model has " + gearOption(m.gear_kind) + " (gears " +
                      gearList(m) + "): choose one on the context before vinci_context_run "
                      "(vinci_context_set_gear or vinci_context_set_" +
                      (m.gear_kind == VINCI_GEAR_BATCH_SIZE   ? "dynamic_batch_size"
                       : m.gear_kind == VINCI_GEAR_IMAGE_SIZE ? "dynamic_hw_size"
                                                              : "input_dynamic_dims") +
                      ")");
    const RunShape& shape = m.shapes[static_cast<size_t>(context->shape)];
    const std::string at = m.hasGears() ? " at gear " + gearText(shape) : "";
    if (num_inputs != input_list.size() || num_outputs != output_list.size())
      return fail(VINCI_ERROR_INVALID_ARGUMENT,
                  "the model takes " + str(input_list.size()) + " inputs and " +
                      str(output_list.size()) + " outputs; got " + str(num_inputs) + " and " +
                      str(num_outputs));
    if ((num_inputs > 0 && inputs == nullptr) || (num_outputs > 0 && outputs == nullptr))
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "vinci_context_run: buffer arrays must not be NULL");
    for (uint32_t i = 0; i < num_inputs; ++i) {
      const uint64_t size = shape.inputs[i].size;
      if (inputs[i].size != size)
        return fail(VINCI_ERROR_SIZE_MISMATCH, "input " + str(i) + " '" +
                                                   input_list.Get(i)->tensor()->name()->str() +
                                                   "': buffer has " + str(inputs[i].size) +
                                                   " bytes, the model needs " + str(size) + at);
      if (inputs[i].data == nullptr && size > 0)
        return fail(VINCI_ERROR_INVALID_ARGUMENT, "input " + str(i) + ": data is NULL");
    }
    for (uint32_t i = 0; i < num_outputs; ++i) {
      const uint64_t size = shape.outputs[i].size;
      if (outputs[i].size < size)
        return fail(VINCI_ERROR_SIZE_MISMATCH, "output " + str(i) + " '" +
                                                   output_list.Get(i)->tensor()->name()->str() +
                                                   "': buffer has " + str(outputs[i].size) +
                                                   " bytes, the model needs " + str(size) + at);
      if (outputs[i].data == nullptr && size > 0)
        return fail(VINCI_ERROR_INVALID_ARGUMENT, "output " + str(i) + ": data is NULL");
    }

    context->has_profile = false;
    context->hazards.clear();
    context->task_profiles.assign(shape.tasks->size(), TaskProfile{});
    context->profiled_shape = static_cast<uint32_t>(context->shape);
    context->session->beginRun();
    for (uint32_t i = 0; i < num_inputs; ++i) {
      const om::IoDesc& io = *input_list.Get(i);
      const IoShape& io_shape = shape.inputs[i];
      if (io.placement() != om::IoPlacement::Arena || io_shape.size == 0) continue;
      if (!narrowsToInt32(io)) {
        std::memcpy(context->arena + io_shape.arena_offset, inputs[i].data, io_shape.size);
        continue;
      }
      const vinci_status status = narrowInput(io, io_shape, i, inputs[i].data, context->arena);
      if (status != VINCI_OK) return status;
    }

    uint8_t* weights = const_cast<uint8_t*>(
        m.container.section(vinci::format::SectionKind::weights).data);  // read-only region below
    std::vector<Region> regions;
    for (uint32_t t = 0; t < shape.tasks->size(); ++t) {
      const om::Task& task = *shape.tasks->Get(t);
      regions.clear();
      for (const om::TaskArg* arg : *task.args()) {
        uint8_t* base = nullptr;
        bool writable = false;
        switch (arg->space()) {
          case om::Space::Arena: base = context->arena; writable = true; break;
          case om::Space::Weight: base = weights; break;
          case om::Space::Input:
            base = static_cast<uint8_t*>(const_cast<void*>(inputs[arg->index()].data));
            break;
          case om::Space::Output:
            base = static_cast<uint8_t*>(outputs[arg->index()].data);
            writable = true;
            break;
        }
        regions.push_back(Region{base ? base + arg->offset() : nullptr, arg->size(), writable});
      }
      const om::Kernel& kernel = *meta.kernels()->Get(task.kernel());
      std::string error;
      bool is_hazard = false;
      TaskProfile& profile = context->task_profiles[t];
      if (!context->session->run(*m.kernels[task.kernel()], kernel.name()->str(),
                                 kernel.block_dim(), regions, profile, is_hazard, error))
        return fail(is_hazard ? VINCI_ERROR_HAZARD : VINCI_ERROR_EXECUTION,
                    "task " + str(t) + at + " (kernel '" + kernel.name()->str() + "'): " + error);
      for (std::string& hazard : profile.hazards)
        context->hazards.push_back("task " + str(t) + at + " (kernel '" + kernel.name()->str() +
                                   "'): " + hazard);
      if (context->task_observer) {
        // The task's outputs are its last arguments (the validator checked
        // their count and sizes).
        std::vector<vinci_task_output> written;
        if (const auto* descs = task.outputs()) {
          const size_t first = regions.size() - descs->size();
          for (uint32_t o = 0; o < descs->size(); ++o) {
            const om::TensorDesc& tensor = *descs->Get(o);
            vinci_task_output output{};
            output.desc.name = tensor.name()->c_str();
            output.desc.dtype = static_cast<vinci_dtype>(tensor.dtype());
            output.desc.format = static_cast<vinci_format>(tensor.format());
            output.desc.rank = tensor.shape()->size();
            for (uint32_t d = 0; d < output.desc.rank; ++d) output.desc.dims[d] = tensor.shape()->Get(d);
            output.desc.size = tensor.size();
            output.data = regions[first + o].base;
            written.push_back(output);
          }
        }
        context->task_observer(context->task_observer_user, t, kernel.name()->c_str(),
                               written.data(), static_cast<uint32_t>(written.size()));
      }
    }

    for (uint32_t i = 0; i < num_outputs; ++i) {
      const om::IoDesc& io = *output_list.Get(i);
      const IoShape& io_shape = shape.outputs[i];
      if (io.placement() != om::IoPlacement::Arena || io_shape.size == 0) continue;
      if (narrowsToInt32(io))
        widenOutput(io_shape, context->arena, outputs[i].data);
      else
        std::memcpy(outputs[i].data, context->arena + io_shape.arena_offset, io_shape.size);
    }

    vinci_profile& total = context->profile;
    total = vinci_profile{};
    total.clock_hz = m.soc->clock_hz;
    total.num_tasks = static_cast<uint32_t>(context->task_profiles.size());
    for (const TaskProfile& task : context->task_profiles) {
      total.cycles += task.cycles;
      total.cycles_ideal_l2 += task.cycles_ideal_l2;
      total.cycles_low += task.cycles_low;
      total.cycles_high += task.cycles_high;
      for (unsigned p = 0; p < VINCI_PIPE_COUNT; ++p) total.pipe_busy_cycles[p] += task.pipe_busy[p];
      total.gm_bytes_read += task.gm_bytes_read;
      total.gm_bytes_written += task.gm_bytes_written;
      total.instructions += task.instructions;
      total.cube_fractal_ops += task.cube_fractal_ops;
    }
    const auto micros = [&](uint64_t cycles) { return static_cast<double>(cycles) / total.clock_hz * 1e6; };
    total.simulated_us = micros(total.cycles);
    total.simulated_us_ideal_l2 = micros(total.cycles_ideal_l2);
    total.simulated_us_low = micros(total.cycles_low);
    total.simulated_us_high = micros(total.cycles_high);
    total.hazard_count = static_cast<uint32_t>(context->hazards.size());

    total.host_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start).count();
    if (!context->trace_path.empty()) {
      const std::string json = context->session->traceJson();
      vinci::format::Status status =
          vinci::format::writeFileAtomically(context->trace_path, json.data(), json.size());
      if (!status.ok()) return fail(status);
    }
    context->has_profile = true;
    return VINCI_OK;
  });
}

vinci_status vinci_context_get_profile(const vinci_context* context, vinci_profile* profile) {
  return guarded(__func__, [&] {
    if (context == nullptr || profile == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "vinci_context_get_profile: arguments must not be NULL");
    if (!context->has_profile)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "no profile: the context has no successful run yet");
    *profile = context->profile;
    return VINCI_OK;
  });
}

vinci_status vinci_context_get_task_profile(const vinci_context* context, uint32_t task,
                                            vinci_task_profile* profile) {
  return guarded(__func__, [&] {
    if (context == nullptr || profile == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "vinci_context_get_task_profile: arguments must not be NULL");
    if (!context->has_profile)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "no profile: the context has no successful run yet");
    if (task >= context->task_profiles.size())
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "task " + str(task) + " is out of range (" +
                                                    str(context->task_profiles.size()) + " tasks)");
    const TaskProfile& source = context->task_profiles[task];
    const Model& m = *context->model;
    const om::Model& meta = m.container.model();
    const uint32_t kernel_index = m.shapes[context->profiled_shape].tasks->Get(task)->kernel();
    *profile = vinci_task_profile{};
    profile->kernel_index = kernel_index;
    profile->kernel_name = meta.kernels()->Get(kernel_index)->name()->c_str();
    profile->block_dim = source.block_dim;
    profile->cores_used = source.cores_used;
    profile->cycles = source.cycles;
    profile->cycles_ideal_l2 = source.cycles_ideal_l2;
    profile->cycles_low = source.cycles_low;
    profile->cycles_high = source.cycles_high;
    for (unsigned p = 0; p < VINCI_PIPE_COUNT; ++p) profile->pipe_busy_cycles[p] = source.pipe_busy[p];
    profile->gm_bytes_read = source.gm_bytes_read;
    profile->gm_bytes_written = source.gm_bytes_written;
    profile->instructions = source.instructions;
    return VINCI_OK;
  });
}

const char* vinci_context_hazard_message(const vinci_context* context, uint32_t index) {
  if (context == nullptr || index >= context->hazards.size()) return nullptr;
  return context->hazards[index].c_str();
}

// ---- gears -------------------------------------------------------------

vinci_status vinci_model_get_gear_kind(const vinci_model* model, vinci_gear_kind* out_kind) {
  return guarded(__func__, [&] {
    if (model == nullptr || out_kind == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "vinci_model_get_gear_kind: arguments must not be NULL");
    *out_kind = model->model->gear_kind;
    return VINCI_OK;
  });
}

vinci_status vinci_model_get_gear_count(const vinci_model* model, uint32_t* out_count) {
  return guarded(__func__, [&] {
    if (model == nullptr || out_count == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "vinci_model_get_gear_count: arguments must not be NULL");
    const Model& m = *model->model;
    *out_count = m.hasGears() ? static_cast<uint32_t>(m.shapes.size()) : 0;
    return VINCI_OK;
  });
}


vinci_status vinci_model_get_gear(const vinci_model* model, uint32_t gear, vinci_gear* out_gear) {
  return guarded(__func__, [&] {
    vinci_status status = checkGearIndex(model, gear, out_gear, __func__);
    if (status != VINCI_OK) return status;
    const RunShape& shape = model->model->shapes[gear];
    *out_gear = vinci_gear{};
    out_gear->num_values = static_cast<uint32_t>(shape.values.size());
    std::copy(shape.values.begin(), shape.values.end(), out_gear->values);
    return VINCI_OK;
  });
}

vinci_status vinci_model_get_gear_input_desc(const vinci_model* model, uint32_t gear,
                                             uint32_t index, vinci_tensor_desc* out_desc) {
  return guarded(__func__, [&] { return describeAtGear(model, gear, index, true, out_desc, __func__); });
}

vinci_status vinci_model_get_gear_output_desc(const vinci_model* model, uint32_t gear,
                                              uint32_t index, vinci_tensor_desc* out_desc) {
  return guarded(__func__, [&] { return describeAtGear(model, gear, index, false, out_desc, __func__); });
}

vinci_status vinci_model_match_gear(const vinci_model* model, const vinci_shape* input_shapes,
                                    uint32_t num_inputs, uint32_t* out_gear) {
  return guarded(__func__, [&] {
    if (model == nullptr || out_gear == nullptr || (input_shapes == nullptr && num_inputs > 0))
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "vinci_model_match_gear: arguments must not be NULL");
    const Model& m = *model->model;
    const auto& inputs = *m.container.model().inputs();
    if (num_inputs != inputs.size())
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "the model takes " + str(inputs.size()) +
                                                    " inputs; " + str(num_inputs) + " shapes given");
    for (size_t g = 0; g < m.shapes.size(); ++g) {
      bool match = true;
      for (uint32_t i = 0; i < num_inputs && match; ++i) {
        const std::vector<int64_t>& dims = m.shapes[g].inputs[i].dims;
        match = input_shapes[i].rank == dims.size() &&
                std::equal(dims.begin(), dims.end(), input_shapes[i].dims);
      }
      if (match) {
        *out_gear = static_cast<uint32_t>(g);
        return VINCI_OK;
      }
    }
    // Name what differs: the shapes given and, per gear, the inputs' shapes.
    std::string given, gears;
    for (uint32_t i = 0; i < num_inputs; ++i) {
      const uint32_t rank = std::min<uint32_t>(input_shapes[i].rank, VINCI_MAX_RANK);
      given += (i ? ", " : "") + inputs.Get(i)->tensor()->name()->str() + " [" +
               join(std::vector<int64_t>(input_shapes[i].dims, input_shapes[i].dims + rank), ",") +
               "]";
    }
    if (!m.hasGears())
      return fail(VINCI_ERROR_NOT_FOUND, m.origin + ": input shapes " + given +
                                             " are not the model's (static shapes)");
    return fail(VINCI_ERROR_NOT_FOUND, m.origin + ": input shapes " + given + " match no gear (its " +
                                           gearOption(m.gear_kind) + ": " + gearList(m) + ")");
  });
}

vinci_status vinci_context_set_dynamic_batch_size(vinci_context* context, uint64_t batch_size) {
  return guarded(__func__, [&] {
    const int64_t value = static_cast<int64_t>(std::min<uint64_t>(batch_size, INT64_MAX));
    return selectGear(context, VINCI_GEAR_BATCH_SIZE, &value, 1, __func__);
  });
}

vinci_status vinci_context_set_dynamic_hw_size(vinci_context* context, uint64_t height,
                                               uint64_t width) {
  return guarded(__func__, [&] {
    const int64_t values[2] = {static_cast<int64_t>(std::min<uint64_t>(height, INT64_MAX)),
                               static_cast<int64_t>(std::min<uint64_t>(width, INT64_MAX))};
    return selectGear(context, VINCI_GEAR_IMAGE_SIZE, values, 2, __func__);
  });
}

vinci_status vinci_context_set_input_dynamic_dims(vinci_context* context, const int64_t* dims,
                                                  uint32_t count) {
  return guarded(__func__, [&] {
    return selectGear(context, VINCI_GEAR_DIMS, dims, count, __func__);
  });
}

vinci_status vinci_context_set_gear(vinci_context* context, uint32_t gear) {
  return guarded(__func__, [&] {
    if (context == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "vinci_context_set_gear: context must not be NULL");
    const Model& m = *context->model;
    if (!m.hasGears())
      return fail(VINCI_ERROR_INVALID_ARGUMENT,
                  m.origin + ": the model has static shapes, no gears to choose from");
    if (gear >= m.shapes.size())
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "gear index " + str(gear) + " is out of range (the "
                                                    "model has " + str(m.shapes.size()) +
                                                    " gears: " + gearList(m) + ")");
    context->shape = gear;
    return VINCI_OK;
  });
}

vinci_status vinci_context_get_gear(const vinci_context* context, uint32_t* out_gear) {
  return guarded(__func__, [&] {
    if (context == nullptr || out_gear == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "vinci_context_get_gear: arguments must not be NULL");
    if (!context->model->hasGears())
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "the model has static shapes, no gears");
    if (context->shape < 0)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "no gear is set on the context yet");
    *out_gear = static_cast<uint32_t>(context->shape);
    return VINCI_OK;
  });
}

vinci_status vinci_context_get_cur_output_desc(const vinci_context* context, uint32_t index,
                                               vinci_tensor_desc* out_desc) {
  return guarded(__func__, [&] {
    if (context == nullptr || out_desc == nullptr)
      return fail(VINCI_ERROR_INVALID_ARGUMENT,
                  "vinci_context_get_cur_output_desc: arguments must not be NULL");
    const Model& m = *context->model;
    const auto& outputs = *m.container.model().outputs();
    if (index >= outputs.size())
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "output index " + str(index) + " is out of range (the "
                                                    "model has " + str(outputs.size()) + ")");
    if (!context->has_profile)
      return fail(VINCI_ERROR_INVALID_ARGUMENT, "no current output dims: the context has no "
                                                "successful run yet");
    *out_desc = describe(*outputs.Get(index), m.shapes[context->profiled_shape].outputs[index]);
    return VINCI_OK;
  });
}

}  // extern "C"

