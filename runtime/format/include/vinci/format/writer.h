// Writer for .om containers: the compiler's backend assembles a model with
// it, and the tests build models by hand.
//
// The output is deterministic: the same calls in the same order give the
// same bytes (no timestamps, no hashing of pointers, zeroed padding). Before
// anything is written the writer validates the bytes it produced with the
// same reader the runtime uses, so an inconsistent model is an error here
// and never reaches a file.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vinci/format/container.h"
#include "vinci/format/om_generated.h"

namespace vinci {
namespace format {

struct TensorInfo {
  std::string name;
  om::DType dtype = om::DType::F32;
  om::Format format = om::Format::ND;
  std::vector<int64_t> shape;
  // Storage bytes; 0 means "dense": product(shape) * dtype size.
  uint64_t size = 0;
};

struct IoInfo {
  TensorInfo tensor;
  om::IoPlacement placement = om::IoPlacement::Separate;
  uint64_t arena_offset = 0;  // used when placement == Arena
  om::DType device_dtype = om::DType::Unknown;  // Unknown: tensor.dtype
};

struct KernelInfo {
  std::string name;
  std::vector<uint8_t> program;  // encoded program bytes (runtime/sim ISA)
  uint32_t block_dim = 1;
  uint32_t num_args = 0;
  om::KernelKind kind = om::KernelKind::Vector;
  std::vector<std::string> source_nodes;
};

struct TaskArgInfo {
  om::Space space = om::Space::Arena;
  uint32_t index = 0;  // io index for Input/Output
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct BufferInfo {
  std::string name;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t first_task = 0;
  uint32_t last_task = 0;
};

struct TaskInfo {
  uint32_t kernel = 0;
  std::vector<TaskArgInfo> args;
  // The tensors of its last outputs.size() args (om.fbs Task.outputs).
  std::vector<TensorInfo> outputs;
};

// An input or output at one gear (format 1.1): its concrete shape, storage
// bytes (0: dense, from the top-level dtype) and, for an arena-placed one,
// its offset in that gear's arena.
struct GearIoInfo {
  std::vector<int64_t> shape;
  uint64_t size = 0;
  uint64_t arena_offset = 0;
};

// One gear: the values that select it and its own shapes, tasks and arena
// plan over the model's shared kernels and weights.
struct GearInfo {
  std::vector<int64_t> values;
  std::vector<GearIoInfo> inputs, outputs;  // one per model input / output
  std::vector<TaskInfo> tasks;
  uint64_t arena_size = 0;
  std::vector<BufferInfo> buffers;
};

// Fills `size` bytes of a weight's stored bytes, starting `offset` bytes
// into the weight, at `out`. Called in chunks, in order, while the file is
// written: a weight never needs to be in memory whole.
using WeightProducer =
    std::function<Status(uint64_t offset, uint8_t* out, uint64_t size)>;

class OmWriter {
 public:
  explicit OmWriter(std::string soc) : soc_(std::move(soc)) {}

  void setModelName(std::string name) { name_ = std::move(name); }
  void setPrecision(om::PrecisionMode precision) { precision_ = precision; }
  void setProducer(std::string producer, std::string version) {
    producer_ = std::move(producer);
    producer_version_ = std::move(version);
  }
  void setArenaSize(uint64_t bytes) { arena_size_ = bytes; }

  // Each add returns the index of the new entry.
  uint32_t addInput(IoInfo input);
  uint32_t addOutput(IoInfo output);
  // Puts input or output `index` (placement Arena) at `offset` once the arena is planned.
  void setInputArenaOffset(uint32_t index, uint64_t offset) { inputs_.at(index).arena_offset = offset; }
  void setOutputArenaOffset(uint32_t index, uint64_t offset) { outputs_.at(index).arena_offset = offset; }
  // The bytes must already be in the tensor's device layout. They are placed
  // at the next kWeightAlignment boundary of the weights section; the return
  // value is the weight index, weightOffset() gives its section offset (what
  // a task argument in Space::Weight refers to).
  uint32_t addWeight(TensorInfo tensor, const void* bytes, uint64_t size);
  // The same for bytes made while the file is written (converted and
  // packed from the compiler's constants chunk by chunk): only `producer`
  // is kept, and writeToFile never holds the weights section in memory.
  uint32_t addWeight(TensorInfo tensor, uint64_t size, WeightProducer producer);
  uint64_t weightOffset(uint32_t weight_index) const { return weights_[weight_index].offset; }
  uint64_t weightsSectionSize() const { return weights_size_; }
  uint32_t addKernel(KernelInfo kernel);
  uint32_t addTask(uint32_t kernel_index, std::vector<TaskArgInfo> args,
                   std::vector<TensorInfo> outputs = {});
  uint32_t addBuffer(BufferInfo buffer);
  // A model with gears (format 1.1, header flag kFlagGears): the inputs and
  // outputs added above carry -1 in the dims that gears set and the largest
  // gear's sizes, setArenaSize takes the largest gear's arena, and tasks and
  // buffers go into the gears instead of addTask/addBuffer.
  void setGearKind(om::GearKind kind) { gear_kind_ = kind; }
  // Dim `axis` of input `input` is gear value `value` (one per -1 input dim).
  void addGearDim(uint32_t value, uint32_t input, uint32_t axis) {
    gear_dims_.emplace_back(value, input, axis);
  }
  uint32_t addGear(GearInfo gear);
  void addDebugName(std::string name) { debug_names_.push_back(std::move(name)); }
  // Optional opaque debug section (e.g. the producer's location map).
  void setDebugInfo(std::vector<uint8_t> bytes) { debug_info_ = std::move(bytes); }

  // Serialises and validates; `out` is replaced only on success.
  Status writeToVector(std::vector<uint8_t>& out) const;
  // Writes atomically: a temporary file in the same directory, fsync, then
  // rename over `path`; on any failure the temporary file is removed and
  // `path` is untouched. Weights are streamed from their producers in
  // chunks; the written file is validated by the reader before the rename.
  Status writeToFile(const std::string& path) const;

 private:
  struct WeightEntry {
    TensorInfo tensor;
    uint64_t offset;
    uint64_t size;
    WeightProducer producer;
  };

 public:
  struct Layout;  // the sections in file order (writer.cpp)

 private:
  Status buildLayout(Layout& layout) const;

  std::string soc_;
  std::string name_ = "model";
  om::PrecisionMode precision_ = om::PrecisionMode::ForceFp16;
  std::string producer_ = "vinci";
  std::string producer_version_;
  uint64_t arena_size_ = 0;
  std::vector<IoInfo> inputs_;
  std::vector<IoInfo> outputs_;
  std::vector<WeightEntry> weights_;
  uint64_t weights_size_ = 0;
  std::vector<KernelInfo> kernels_;
  std::vector<TaskInfo> tasks_;
  std::vector<BufferInfo> buffers_;
  om::GearKind gear_kind_ = om::GearKind::None;
  std::vector<om::GearDim> gear_dims_;
  std::vector<GearInfo> gears_;
  std::vector<std::string> debug_names_;
  std::vector<uint8_t> debug_info_;
};

// Writes `bytes` to `path` atomically (temporary file + fsync + rename; the
// temporary file is removed on failure). Shared by the writer and the tools.
Status writeFileAtomically(const std::string& path, const void* bytes, size_t size);

}  // namespace format
}  // namespace vinci
