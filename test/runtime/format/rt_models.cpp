#include "rt_models.h"

#include <fp16.h>

#include "kernels.h"  // test/runtime/sim: the simulator tests' matmul kernel
#include "vinci/sim/assembler.h"
#include "vinci/soc.h"

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

std::vector<uint8_t> gearAddModelBytes() {
  using namespace vinci::format;
  const AddModelData data = addModelData();
  const std::vector<int64_t> dynamic = {-1, kAddCols};
  OmWriter writer("Ascend310P3");
  writer.setModelName("add_chain_gears");
  writer.setProducer("rt_models", "1");
  writer.setGearKind(om::GearKind::BatchSize);
  writer.addInput({{"x", om::DType::F16, om::Format::ND, dynamic, 0}, om::IoPlacement::Separate, 0});
  writer.addInput({{"y", om::DType::F16, om::Format::ND, dynamic, 0}, om::IoPlacement::Arena, 0});
  writer.addOutput({{"z", om::DType::F16, om::Format::ND, dynamic, 0}, om::IoPlacement::Separate, 0});
  writer.addOutput({{"t", om::DType::F16, om::Format::ND, dynamic, 0}, om::IoPlacement::Arena, 0});
  writer.addGearDim(0, 0, 0);
  writer.addGearDim(0, 1, 0);
  const uint32_t w = writer.addWeight({"w", om::DType::F16, om::Format::ND, {kAddRows, kAddCols}, 0},
                                      data.w.data(), kTensorBytes);
  for (uint32_t rows = 1; rows <= kAddRows; ++rows) {
    const uint32_t kernel =
        writer.addKernel({rows == kAddRows ? "add" : "add_b1", addKernelProgram(false), rows, 3,
                          om::KernelKind::Vector, {"Add_0", "Add_1"}});
    const uint64_t bytes = uint64_t{rows} * kBlockBytes;
    GearInfo gear;
    gear.values = {rows};
    const GearIoInfo io{{rows, kAddCols}, 0, 0};
    gear.inputs = {io, {{rows, kAddCols}, 0, bytes}};  // y in the arena after t
    gear.outputs = {io, io};                            // t at arena offset 0
    gear.arena_size = 2 * bytes;
    gear.tasks = {{kernel, {{om::Space::Input, 0, 0, bytes},
                            {om::Space::Weight, 0, writer.weightOffset(w), bytes},
                            {om::Space::Arena, 0, 0, bytes}}},
                  {kernel, {{om::Space::Arena, 0, 0, bytes},
                            {om::Space::Arena, 0, bytes, bytes},
                            {om::Space::Output, 0, 0, bytes}}}};
    gear.buffers = {{"t", 0, bytes, 0, 1}, {"y", bytes, bytes, 1, 1}};
    writer.addGear(std::move(gear));
  }
  std::vector<uint8_t> out;
  if (!writer.writeToVector(out).ok()) out.clear();
  return out;
}

MatmulModelData matmulModelData() {
  MatmulModelData data;
  std::vector<float> a(kMm * kMm), b(kMm * kMm);
  for (uint32_t i = 0; i < kMm * kMm; ++i) {
    // Small integers: every product and every sum (|c| <= 64 * 6) is exact
    // in fp16 and fp32, so the expected result is exact too.
    a[i] = static_cast<float>(static_cast<int>(i * 7 % 5) - 2);
    b[i] = static_cast<float>(static_cast<int>(i * 3 % 7) - 3) * 0.5f;
    data.a.push_back(toHalf(a[i]));
    data.b.push_back(toHalf(b[i]));
  }
  for (uint32_t r = 0; r < kMm; ++r)
    for (uint32_t col = 0; col < kMm; ++col) {
      float sum = 0;
      for (uint32_t k = 0; k < kMm; ++k) sum += a[r * kMm + k] * b[k * kMm + col];
      data.c.push_back(toHalf(sum));
    }
  return data;
}

std::vector<uint8_t> matmulModelBytes() {
  using namespace vinci::format;
  sim::kernels::MatmulConfig config;
  config.m = config.n = config.k = kMm;
  config.grid_rows = config.grid_cols = 2;
  config.tile_m = 32;
  config.tile_k = 32;
  std::vector<uint8_t> program;
  std::string error;
  if (!sim::kernels::buildMatmul(config, soc::defaultSoc(), program, error)) return {};
  const MatmulModelData data = matmulModelData();
  const std::vector<int64_t> shape = {kMm, kMm};
  const uint64_t bytes = uint64_t{kMm} * kMm * 2;
  OmWriter writer(soc::defaultSoc().name);
  writer.setModelName("matmul");
  writer.setProducer("rt_models", "1");
  writer.addInput({{"a", om::DType::F16, om::Format::ND, shape, 0}, om::IoPlacement::Separate, 0});
  writer.addOutput({{"c", om::DType::F16, om::Format::ND, shape, 0}, om::IoPlacement::Separate, 0});
  const uint32_t b = writer.addWeight({"b", om::DType::F16, om::Format::ND, shape, 0}, data.b.data(), bytes);
  const uint32_t kernel = writer.addKernel({"matmul", std::move(program),
                                            config.grid_rows * config.grid_cols, 3,
                                            om::KernelKind::Mixed, {"MatMul_0"}});
  writer.addTask(kernel, {{om::Space::Input, 0, 0, bytes},
                          {om::Space::Weight, 0, writer.weightOffset(b), bytes},
                          {om::Space::Output, 0, 0, bytes}});
  std::vector<uint8_t> out;
  if (!writer.writeToVector(out).ok()) out.clear();
  return out;
}

}  // namespace test
}  // namespace vinci
