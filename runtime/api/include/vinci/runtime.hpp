// A thin C++ layer over vinci/runtime.h: RAII handles, std::vector buffers,
// and vinci::Error (an exception) for failures. Header-only; exceptions are
// thrown here, in the caller's code, never across the C API.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "vinci/runtime.h"

namespace vinci {

class Error : public std::runtime_error {
 public:
  Error(vinci_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  vinci_status status() const { return status_; }

 private:
  vinci_status status_;
};

inline void check(vinci_status status) {
  if (status != VINCI_OK) throw Error(status, vinci_last_error_message());
}

class Model {
 public:
  static Model fromFile(const std::string& path) {
    vinci_model* model = nullptr;
    check(vinci_model_load_from_file(path.c_str(), &model));
    return Model(model);
  }
  // The bytes must stay alive and unchanged while the model or a context exists.
  static Model fromMemory(const void* data, size_t size) {
    vinci_model* model = nullptr;
    check(vinci_model_load_from_memory(data, size, &model));
    return Model(model);
  }

  vinci_model* get() const { return handle_.get(); }
  vinci_model_info info() const {
    vinci_model_info info;
    check(vinci_model_get_info(get(), &info));
    return info;
  }
  uint32_t numInputs() const { return vinci_model_num_inputs(get()); }
  uint32_t numOutputs() const { return vinci_model_num_outputs(get()); }
  vinci_tensor_desc input(uint32_t index) const {
    vinci_tensor_desc desc;
    check(vinci_model_get_input_desc(get(), index, &desc));
    return desc;
  }
  vinci_tensor_desc output(uint32_t index) const {
    vinci_tensor_desc desc;
    check(vinci_model_get_output_desc(get(), index, &desc));
    return desc;
  }

  // Gears (docs/runtime.md): kind, count (0 for a static model), values and
  // the io at one gear.
  vinci_gear_kind gearKind() const {
    vinci_gear_kind kind;
    check(vinci_model_get_gear_kind(get(), &kind));
    return kind;
  }
  uint32_t gearCount() const {
    uint32_t count;
    check(vinci_model_get_gear_count(get(), &count));
    return count;
  }
  std::vector<int64_t> gear(uint32_t index) const {
    vinci_gear gear;
    check(vinci_model_get_gear(get(), index, &gear));
    return std::vector<int64_t>(gear.values, gear.values + gear.num_values);
  }
  vinci_tensor_desc gearInput(uint32_t gear, uint32_t index) const {
    vinci_tensor_desc desc;
    check(vinci_model_get_gear_input_desc(get(), gear, index, &desc));
    return desc;
  }
  vinci_tensor_desc gearOutput(uint32_t gear, uint32_t index) const {
    vinci_tensor_desc desc;
    check(vinci_model_get_gear_output_desc(get(), gear, index, &desc));
    return desc;
  }
  // The gear of these input shapes (one per input); throws if none matches.
  uint32_t matchGear(const std::vector<std::vector<int64_t>>& shapes) const {
    std::vector<vinci_shape> given(shapes.size());
    for (size_t i = 0; i < shapes.size(); ++i) {
      if (shapes[i].size() > VINCI_MAX_RANK)
        throw Error(VINCI_ERROR_INVALID_ARGUMENT, "a shape has more than VINCI_MAX_RANK dims");
      given[i].rank = static_cast<uint32_t>(shapes[i].size());
      for (size_t d = 0; d < shapes[i].size(); ++d) given[i].dims[d] = shapes[i][d];
    }
    uint32_t gear;
    check(vinci_model_match_gear(get(), given.data(), static_cast<uint32_t>(given.size()), &gear));
    return gear;
  }

 private:
  explicit Model(vinci_model* model) : handle_(model, &vinci_model_release) {}
  std::shared_ptr<vinci_model> handle_;
};

class Context {
 public:
  explicit Context(const Model& model, const vinci_context_options* options = nullptr) {
    vinci_context* context = nullptr;
    check(vinci_context_create(model.get(), options, &context));
    handle_.reset(context);
  }

  // Runs with the caller's buffers (sizes as the model's descriptors say).
  void run(const std::vector<vinci_const_buffer>& inputs, const std::vector<vinci_buffer>& outputs) {
    check(vinci_context_run(handle_.get(), inputs.data(), static_cast<uint32_t>(inputs.size()),
                            outputs.data(), static_cast<uint32_t>(outputs.size())));
  }

  vinci_profile profile() const {
    vinci_profile profile;
    check(vinci_context_get_profile(handle_.get(), &profile));
    return profile;
  }
  vinci_task_profile taskProfile(uint32_t task) const {
    vinci_task_profile profile;
    check(vinci_context_get_task_profile(handle_.get(), task, &profile));
    return profile;
  }
  // The gear of the next runs (a model with gears only).
  void setGear(uint32_t gear) { check(vinci_context_set_gear(handle_.get(), gear)); }
  void setDynamicBatchSize(uint64_t batch) {
    check(vinci_context_set_dynamic_batch_size(handle_.get(), batch));
  }
  void setDynamicHWSize(uint64_t height, uint64_t width) {
    check(vinci_context_set_dynamic_hw_size(handle_.get(), height, width));
  }
  void setInputDynamicDims(const std::vector<int64_t>& dims) {
    check(vinci_context_set_input_dynamic_dims(handle_.get(), dims.data(),
                                               static_cast<uint32_t>(dims.size())));
  }
  // Output `index` as the last run produced it.
  vinci_tensor_desc currentOutput(uint32_t index) const {
    vinci_tensor_desc desc;
    check(vinci_context_get_cur_output_desc(handle_.get(), index, &desc));
    return desc;
  }
  vinci_context* get() const { return handle_.get(); }

 private:
  struct Destroy {
    void operator()(vinci_context* context) const { vinci_context_destroy(context); }
  };
  std::unique_ptr<vinci_context, Destroy> handle_;
};

}  // namespace vinci
