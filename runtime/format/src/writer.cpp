// Deterministic .om writer (layout in docs/om-format.md).
#include "vinci/format/writer.h"

#include <cstring>

#include "bytes.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace vinci {
namespace format {

using detail::cat;

namespace {

constexpr uint32_t kMetadataAlignment = 16;  // above FlatBuffers' largest scalar
constexpr uint32_t kKernelAlignment = 64;    // each program starts on a 64-byte boundary
constexpr uint32_t kDebugAlignment = 8;

uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

void padTo(std::vector<uint8_t>& bytes, uint64_t alignment) {
  bytes.resize(alignUp(bytes.size(), alignment), 0);
}

// Fills in the dense size when the caller left it 0.
TensorInfo withSize(TensorInfo tensor) {
  if (tensor.size == 0) {
    uint64_t bytes = dtypeSize(static_cast<uint8_t>(tensor.dtype));
    for (int64_t dim : tensor.shape) bytes *= static_cast<uint64_t>(dim < 0 ? 0 : dim);
    tensor.size = bytes;
  }
  return tensor;
}

flatbuffers::Offset<om::TensorDesc> buildTensor(flatbuffers::FlatBufferBuilder& fbb,
                                                const TensorInfo& tensor) {
  auto name = fbb.CreateString(tensor.name);
  auto shape = fbb.CreateVector(tensor.shape);
  return om::CreateTensorDesc(fbb, name, tensor.dtype, tensor.format, shape, tensor.size);
}

std::vector<flatbuffers::Offset<om::IoDesc>> buildIoList(flatbuffers::FlatBufferBuilder& fbb,
                                                         const std::vector<IoInfo>& list) {
  std::vector<flatbuffers::Offset<om::IoDesc>> out;
  for (const IoInfo& io : list)
    out.push_back(om::CreateIoDesc(fbb, buildTensor(fbb, io.tensor), io.placement, io.arena_offset,
                                     io.device_dtype));
  return out;
}

struct PendingSection {
  SectionKind kind;
  uint32_t alignment;
  const std::vector<uint8_t>* bytes;
};

}  // namespace

uint32_t OmWriter::addInput(IoInfo input) {
  input.tensor = withSize(std::move(input.tensor));
  inputs_.push_back(std::move(input));
  return static_cast<uint32_t>(inputs_.size() - 1);
}

uint32_t OmWriter::addOutput(IoInfo output) {
  output.tensor = withSize(std::move(output.tensor));
  outputs_.push_back(std::move(output));
  return static_cast<uint32_t>(outputs_.size() - 1);
}

uint32_t OmWriter::addWeight(TensorInfo tensor, const void* bytes, uint64_t size) {
  if (tensor.size == 0) tensor.size = size;
  padTo(weight_blob_, kWeightAlignment);
  const uint64_t offset = weight_blob_.size();
  const uint8_t* begin = static_cast<const uint8_t*>(bytes);
  weight_blob_.insert(weight_blob_.end(), begin, begin + size);
  // If size and tensor.size disagree the reader's check reports it at write.
  weights_.push_back({std::move(tensor), offset});
  return static_cast<uint32_t>(weights_.size() - 1);
}

uint32_t OmWriter::addKernel(KernelInfo kernel) {
  kernels_.push_back(std::move(kernel));
  return static_cast<uint32_t>(kernels_.size() - 1);
}

uint32_t OmWriter::addTask(uint32_t kernel_index, std::vector<TaskArgInfo> args) {
  tasks_.emplace_back(kernel_index, std::move(args));
  return static_cast<uint32_t>(tasks_.size() - 1);
}

uint32_t OmWriter::addBuffer(BufferInfo buffer) {
  buffers_.push_back(std::move(buffer));
  return static_cast<uint32_t>(buffers_.size() - 1);
}

Status OmWriter::writeToVector(std::vector<uint8_t>& out) const {
  if (soc_.empty() || soc_.size() >= kSocNameCapacity)
    return makeError(Errc::invalid_argument, cat("SoC name '", soc_, "' must have 1..",
                                                 kSocNameCapacity - 1, " characters"));

  // Kernels section: programs back to back, each 64-byte aligned.
  std::vector<uint8_t> kernel_blob;
  std::vector<std::pair<uint64_t, uint64_t>> program_ranges;
  for (const KernelInfo& kernel : kernels_) {
    padTo(kernel_blob, kKernelAlignment);
    program_ranges.emplace_back(kernel_blob.size(), kernel.program.size());
    kernel_blob.insert(kernel_blob.end(), kernel.program.begin(), kernel.program.end());
  }

  // Metadata. Objects are created in a fixed order so the bytes depend only
  // on the writer's inputs.
  flatbuffers::FlatBufferBuilder fbb(4096);
  // Store every scalar, defaults included: a reader never depends on the
  // schema's defaults, and tools can patch fields in place.
  fbb.ForceDefaults(true);
  auto name = fbb.CreateString(name_);
  auto soc = fbb.CreateString(soc_);
  auto producer = fbb.CreateString(producer_);
  auto producer_version = fbb.CreateString(producer_version_);
  auto inputs = fbb.CreateVector(buildIoList(fbb, inputs_));
  auto outputs = fbb.CreateVector(buildIoList(fbb, outputs_));
  std::vector<flatbuffers::Offset<om::Weight>> weight_offsets;
  for (const WeightEntry& weight : weights_)
    weight_offsets.push_back(om::CreateWeight(fbb, buildTensor(fbb, weight.tensor), weight.offset));
  auto weights = fbb.CreateVector(weight_offsets);
  std::vector<flatbuffers::Offset<om::Kernel>> kernel_offsets;
  for (size_t i = 0; i < kernels_.size(); ++i) {
    const KernelInfo& kernel = kernels_[i];
    auto kernel_name = fbb.CreateString(kernel.name);
    auto sources = fbb.CreateVectorOfStrings(kernel.source_nodes);
    kernel_offsets.push_back(om::CreateKernel(fbb, kernel_name, program_ranges[i].first,
                                              program_ranges[i].second, kernel.block_dim,
                                              kernel.num_args, kernel.kind, sources));
  }
  auto kernels = fbb.CreateVector(kernel_offsets);
  std::vector<flatbuffers::Offset<om::Task>> task_offsets;
  for (const auto& task : tasks_) {
    std::vector<om::TaskArg> args;
    for (const TaskArgInfo& arg : task.second)
      args.emplace_back(arg.space, arg.index, arg.offset, arg.size);
    task_offsets.push_back(om::CreateTask(fbb, task.first, fbb.CreateVectorOfStructs(args)));
  }
  auto tasks = fbb.CreateVector(task_offsets);
  std::vector<flatbuffers::Offset<om::BufferPlan>> buffer_offsets;
  for (const BufferInfo& buffer : buffers_)
    buffer_offsets.push_back(om::CreateBufferPlan(fbb, fbb.CreateString(buffer.name), buffer.offset,
                                                  buffer.size, buffer.first_task,
                                                  buffer.last_task));
  auto memory_plan = fbb.CreateVector(buffer_offsets);
  auto debug_names = fbb.CreateVectorOfStrings(debug_names_);
  auto model = om::CreateModel(fbb, name, soc, precision_, producer, producer_version, inputs,
                               outputs, weights, kernels, tasks, arena_size_, memory_plan,
                               debug_names);
  om::FinishModelBuffer(fbb, model);
  const std::vector<uint8_t> metadata(fbb.GetBufferPointer(),
                                      fbb.GetBufferPointer() + fbb.GetSize());

  std::vector<PendingSection> pending = {{SectionKind::metadata, kMetadataAlignment, &metadata}};
  if (!weight_blob_.empty())
    pending.push_back({SectionKind::weights, static_cast<uint32_t>(kWeightAlignment), &weight_blob_});
  pending.push_back({SectionKind::kernels, kKernelAlignment, &kernel_blob});
  if (!debug_info_.empty()) pending.push_back({SectionKind::debug, kDebugAlignment, &debug_info_});

  const uint64_t table_end = kHeaderSize + pending.size() * kSectionEntrySize;
  std::vector<uint8_t> bytes(table_end, 0);
  std::memcpy(bytes.data(), kMagic, sizeof kMagic);
  detail::storeLe16(bytes.data() + 8, kVersionMajor);
  detail::storeLe16(bytes.data() + 10, kVersionMinor);
  detail::storeLe32(bytes.data() + 12, 0);  // flags
  std::memcpy(bytes.data() + 16, soc_.data(), soc_.size());
  detail::storeLe32(bytes.data() + 40, static_cast<uint32_t>(pending.size()));
  for (size_t i = 0; i < pending.size(); ++i) {
    padTo(bytes, pending[i].alignment);
    const uint64_t offset = bytes.size();
    const std::vector<uint8_t>& section = *pending[i].bytes;
    bytes.insert(bytes.end(), section.begin(), section.end());
    uint8_t* entry = bytes.data() + kHeaderSize + i * kSectionEntrySize;
    detail::storeLe32(entry + 0, static_cast<uint32_t>(pending[i].kind));
    detail::storeLe32(entry + 4, pending[i].alignment);
    detail::storeLe64(entry + 8, offset);
    detail::storeLe64(entry + 16, section.size());
    detail::storeLe64(entry + 24, checksum64(section.data(), section.size()));
  }
  detail::storeLe64(bytes.data() + 48, bytes.size());
  XXH64_state_t state;
  XXH64_reset(&state, 0);
  XXH64_update(&state, bytes.data(), 56);
  XXH64_update(&state, bytes.data() + kHeaderSize, table_end - kHeaderSize);
  detail::storeLe64(bytes.data() + 56, XXH64_digest(&state));

  // Validate with the runtime's own reader. std::vector's storage is only
  // 16-byte aligned, so check an aligned copy.
  struct alignas(64) Block { uint8_t b[64]; };
  std::vector<Block> aligned((bytes.size() + 63) / 64);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  Container container;
  Status status = Container::open(reinterpret_cast<const uint8_t*>(aligned.data()), bytes.size(),
                                  "<writer>", container);
  if (!status.ok()) return status;
  out = std::move(bytes);
  return Status::success();
}

Status OmWriter::writeToFile(const std::string& path) const {
  std::vector<uint8_t> bytes;
  Status status = writeToVector(bytes);
  if (!status.ok()) return status;
  return writeFileAtomically(path, bytes.data(), bytes.size());
}

}  // namespace format
}  // namespace vinci
