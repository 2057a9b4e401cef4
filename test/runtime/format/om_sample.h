// A small hand-built container for the format-level tests. Its kernel
// "programs" are arbitrary bytes: the container treats programs as opaque,
// only the runtime decodes them.
#pragma once

#include <cstdint>
#include <vector>

#include "vinci/format/container.h"
#include "vinci/format/writer.h"

namespace vinci {
namespace test {

inline format::OmWriter sampleWriter() {
  using namespace vinci::format;
  OmWriter writer("Ascend310P3");
  writer.setModelName("sample");
  writer.setProducer("om_tests", "1");
  writer.setPrecision(om::PrecisionMode::AllowMixPrecision);
  writer.setArenaSize(4096);
  writer.addInput({{"x", om::DType::F16, om::Format::ND, {2, 64}, 0}, om::IoPlacement::Separate, 0});
  writer.addInput({{"y", om::DType::F32, om::Format::NCHW, {1, 2, 4, 4}, 0}, om::IoPlacement::Arena, 1024});
  writer.addOutput({{"z", om::DType::F16, om::Format::ND, {2, 64}, 0}, om::IoPlacement::Separate, 0});
  std::vector<uint8_t> weight(512);
  for (size_t i = 0; i < weight.size(); ++i) weight[i] = static_cast<uint8_t>(i * 7);
  writer.addWeight({"w0", om::DType::F16, om::Format::ND, {16, 16}, 0}, weight.data(), 512);
  writer.addWeight({"w1", om::DType::F16, om::Format::FRACTAL_NZ, {3, 5}, 512}, weight.data(), 512);
  writer.addKernel({"add", std::vector<uint8_t>(40, 0xab), 2, 3, om::KernelKind::Vector, {"Add_0"}});
  writer.addKernel({"mm", std::vector<uint8_t>(72, 0xcd), 8, 3, om::KernelKind::Cube, {"MatMul_1", "Relu_2"}});
  writer.addTask(0, {{om::Space::Input, 0, 0, 256}, {om::Space::Weight, 0, 0, 512}, {om::Space::Arena, 0, 0, 256}});
  writer.addTask(1, {{om::Space::Arena, 0, 0, 256}, {om::Space::Weight, 0, writer.weightOffset(1), 512},
                     {om::Space::Output, 0, 0, 256}});
  writer.addBuffer({"t0", 0, 256, 0, 1});
  writer.addBuffer({"y", 1024, 128, 0, 0});
  writer.addDebugName("Add_0");
  writer.addDebugName("MatMul_1");
  writer.setDebugInfo({'d', 'e', 'b', 'u', 'g'});
  return writer;
}

inline std::vector<uint8_t> sampleBytes() {
  std::vector<uint8_t> bytes;
  format::Status status = sampleWriter().writeToVector(bytes);
  if (!status.ok()) bytes.clear();
  return bytes;
}

}  // namespace test
}  // namespace vinci
