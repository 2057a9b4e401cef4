// libFuzzer target: load + validate an untrusted .om through the C API.
// Built with clang-14 (-fsanitize=fuzzer,address,undefined) by the sanitizer
// sub-build; ctest runs it for a bounded number of inputs (rt_fuzz_load).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "test_util.h"
#include "vinci/runtime.h"

namespace {

void loadAndDescribe(const std::vector<uint8_t>& input) {
  // The loader requires the alignment an mmap gives.
  vinci::test::AlignedBytes bytes(input);
  vinci_model* model = nullptr;
  if (vinci_model_load_from_memory(bytes.data(), bytes.size(), &model) != VINCI_OK) return;
  // Accepted: every descriptor must be readable.
  vinci_model_info info;
  vinci_model_get_info(model, &info);
  for (uint32_t i = 0; i < vinci_model_num_inputs(model); ++i) {
    vinci_tensor_desc desc;
    vinci_model_get_input_desc(model, i, &desc);
  }
  for (uint32_t i = 0; i < vinci_model_num_outputs(model); ++i) {
    vinci_tensor_desc desc;
    vinci_model_get_output_desc(model, i, &desc);
  }
  vinci_model_release(model);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<uint8_t> input(data, data + size);
  loadAndDescribe(input);
  // Again with the checksums repaired, so that mutations reach the checks
  // behind them (the verifier, the semantic checks, the program decoder).
  vinci::test::refreshChecksums(input);
  loadAndDescribe(input);
  return 0;
}
