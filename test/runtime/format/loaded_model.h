// A model loaded through the C API, shared by the runtime tests.
#pragma once

#include <cstdint>
#include <vector>

#include "test_util.h"
#include "vinci/runtime.h"

namespace vinci {
namespace test {

// A model loaded through the C API from an aligned copy of `bytes`;
// `status` says whether it loaded.
struct LoadedModel {
  explicit LoadedModel(const std::vector<uint8_t>& bytes) : storage(bytes) {
    status = vinci_model_load_from_memory(storage.data(), storage.size(), &model);
  }
  ~LoadedModel() { vinci_model_release(model); }
  AlignedBytes storage;
  vinci_model* model = nullptr;
  vinci_status status;
};

}  // namespace test
}  // namespace vinci
