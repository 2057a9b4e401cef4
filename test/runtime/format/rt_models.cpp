#include "rt_models.h"

#include <fp16.h>

#include "vinci/sim/assembler.h"

namespace vinci {
namespace test {

uint16_t toHalf(float value) { return fp16_ieee_from_fp32_value(value); }
float fromHalf(uint16_t bits) { return fp16_ieee_to_fp32_value(bits); }

namespace {
constexpr uint32_t kBlockElements = kAddCols;            // one row per block
constexpr uint32_t kBlockBytes = kBlockElements * 2;     // fp16
constexpr uint64_t kTensorBytes = uint64_t{kAddRows} * kBlockBytes;
}  // namespace

std::vector<uint8_t> addKernelProgram(bool drop_wait_flag) {
  using namespace vinci::sim;
  ProgramBuilder b;
  // GM arg 0, arg 1 -> UB; add; UB -> GM arg 2. Each block takes its row.
  b.copy(Addr::ub(0), Addr::gm(0).block(kBlockBytes), Burst::contiguous(kBlockBytes));
  b.copy(Addr::ub(kBlockBytes), Addr::gm(1).block(kBlockBytes), Burst::contiguous(kBlockBytes));
  b.setFlag(Pipe::MTE2, Pipe::V, 0);
  if (!drop_wait_flag) b.waitFlag(Pipe::MTE2, Pipe::V, 0);
  b.vbinary(Opcode::VAdd, DType::F16, Addr::ub(2 * kBlockBytes), Addr::ub(0), Addr::ub(kBlockBytes),
            VecParams::dense(DType::F16, kBlockBytes / 256));
  b.setFlag(Pipe::V, Pipe::MTE3, 0);
  b.waitFlag(Pipe::V, Pipe::MTE3, 0);
  b.copy(Addr::gm(2).block(kBlockBytes), Addr::ub(2 * kBlockBytes), Burst::contiguous(kBlockBytes));
  if (drop_wait_flag) b.waitFlag(Pipe::MTE2, Pipe::V, 0);  // keep set/wait balanced
  return b.finish();
}

AddModelData addModelData() {
  AddModelData data;
  const size_t count = size_t{kAddRows} * kAddCols;
  for (size_t i = 0; i < count; ++i) {
    const float x = static_cast<float>(i % 17);
    const float w = 0.5f * static_cast<float>(i % 5);
    const float y = -static_cast<float>(i % 3);
    data.x.push_back(toHalf(x));
    data.w.push_back(toHalf(w));
    data.y.push_back(toHalf(y));
    data.t.push_back(toHalf(x + w));      // exact in fp16: small multiples of 0.5
    data.z.push_back(toHalf(x + w + y));
  }
  return data;
}

format::OmWriter addModelWriter(bool drop_wait_flag) {
  using namespace vinci::format;
  const AddModelData data = addModelData();
  const std::vector<int64_t> shape = {kAddRows, kAddCols};
  OmWriter writer("Ascend310P3");
  writer.setModelName(drop_wait_flag ? "add_chain_missing_wait" : "add_chain");
  writer.setProducer("rt_models", "1");
  writer.setArenaSize(2 * kTensorBytes);
  writer.addInput({{"x", om::DType::F16, om::Format::ND, shape, 0}, om::IoPlacement::Separate, 0});
  writer.addInput({{"y", om::DType::F16, om::Format::ND, shape, 0}, om::IoPlacement::Arena, kTensorBytes});
  writer.addOutput({{"z", om::DType::F16, om::Format::ND, shape, 0}, om::IoPlacement::Separate, 0});
  writer.addOutput({{"t", om::DType::F16, om::Format::ND, shape, 0}, om::IoPlacement::Arena, 0});
  const uint32_t w = writer.addWeight({"w", om::DType::F16, om::Format::ND, shape, 0}, data.w.data(),
                                      kTensorBytes);
  const uint32_t add = writer.addKernel({"add", addKernelProgram(drop_wait_flag), kAddRows, 3,
                                         om::KernelKind::Vector, {"Add_0", "Add_1"}});
  writer.addTask(add, {{om::Space::Input, 0, 0, kTensorBytes},
                       {om::Space::Weight, 0, writer.weightOffset(w), kTensorBytes},
                       {om::Space::Arena, 0, 0, kTensorBytes}});
  writer.addTask(add, {{om::Space::Arena, 0, 0, kTensorBytes},
                       {om::Space::Arena, 0, kTensorBytes, kTensorBytes},
                       {om::Space::Output, 0, 0, kTensorBytes}});
  writer.addBuffer({"t", 0, kTensorBytes, 0, 1});
  writer.addBuffer({"y", kTensorBytes, kTensorBytes, 1, 1});
  writer.addDebugName("Add_0");
  writer.addDebugName("Add_1");
  return writer;
}

std::vector<uint8_t> addModelBytes(bool drop_wait_flag) {
  std::vector<uint8_t> bytes;
  if (!addModelWriter(drop_wait_flag).writeToVector(bytes).ok()) bytes.clear();
  return bytes;
}

}  // namespace test
}  // namespace vinci
