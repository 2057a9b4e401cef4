// Deterministic .om writer (layout in docs/om-format.md).
#include "vinci/format/writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
// Weights are produced and written this many bytes at a time.
constexpr uint64_t kWeightChunk = uint64_t{1} << 20;

uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

void padTo(std::vector<uint8_t>& bytes, uint64_t alignment) {
  bytes.resize(alignUp(bytes.size(), alignment), 0);
}

uint64_t denseSize(om::DType dtype, const std::vector<int64_t>& shape) {
  uint64_t bytes = dtypeSize(static_cast<uint8_t>(dtype));
  for (int64_t dim : shape) bytes *= static_cast<uint64_t>(dim < 0 ? 0 : dim);
  return bytes;
}

// Fills in the dense size when the caller left it 0 (not for a shape with
// -1 dims, whose size is the largest gear's).
TensorInfo withSize(TensorInfo tensor) {
  const bool dynamic = std::any_of(tensor.shape.begin(), tensor.shape.end(),
                                   [](int64_t dim) { return dim < 0; });
  if (tensor.size == 0 && !dynamic) tensor.size = denseSize(tensor.dtype, tensor.shape);
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

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<om::Task>>> buildTasks(
    flatbuffers::FlatBufferBuilder& fbb, const std::vector<TaskInfo>& tasks) {
  std::vector<flatbuffers::Offset<om::Task>> offsets;
  for (const TaskInfo& task : tasks) {
    std::vector<om::TaskArg> args;
    for (const TaskArgInfo& arg : task.args)
      args.emplace_back(arg.space, arg.index, arg.offset, arg.size);
    std::vector<flatbuffers::Offset<om::TensorDesc>> outputs;
    for (const TensorInfo& output : task.outputs) outputs.push_back(buildTensor(fbb, withSize(output)));
    auto args_offset = fbb.CreateVectorOfStructs(args);
    offsets.push_back(om::CreateTask(fbb, task.kernel, args_offset,
                                     outputs.empty() ? 0 : fbb.CreateVector(outputs)));
  }
  return fbb.CreateVector(offsets);
}

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<om::BufferPlan>>> buildPlan(
    flatbuffers::FlatBufferBuilder& fbb, const std::vector<BufferInfo>& buffers) {
  std::vector<flatbuffers::Offset<om::BufferPlan>> offsets;
  for (const BufferInfo& buffer : buffers)
    offsets.push_back(om::CreateBufferPlan(fbb, fbb.CreateString(buffer.name), buffer.offset,
                                           buffer.size, buffer.first_task, buffer.last_task));
  return fbb.CreateVector(offsets);
}

// A gear io's size, dense from the top-level descriptor's dtype when 0.
uint64_t gearIoSize(const GearIoInfo& io, const IoInfo& top) {
  return io.size != 0 ? io.size : denseSize(top.tensor.dtype, io.shape);
}

std::vector<flatbuffers::Offset<om::GearIo>> buildGearIo(flatbuffers::FlatBufferBuilder& fbb,
                                                         const std::vector<GearIoInfo>& list,
                                                         const std::vector<IoInfo>& top) {
  std::vector<flatbuffers::Offset<om::GearIo>> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const uint64_t size = i < top.size() ? gearIoSize(list[i], top[i]) : list[i].size;
    out.push_back(om::CreateGearIo(fbb, fbb.CreateVector(list[i].shape), size,
                                   list[i].arena_offset));
  }
  return out;
}

// Writes a file through a buffer, keeping the XXH64 of the bytes of one
// section at a time.
class FileSink {
 public:
  FileSink(int fd, const std::string& path) : fd_(fd), path_(path) { buffer_.reserve(kWeightChunk); }

  uint64_t position() const { return position_; }
  void startChecksum() { XXH64_reset(&state_, 0); }
  uint64_t checksum() const { return XXH64_digest(&state_); }

  Status write(const uint8_t* data, uint64_t size) {
    while (size > 0) {
      const uint64_t take = std::min<uint64_t>(size, kWeightChunk - buffer_.size());
      buffer_.insert(buffer_.end(), data, data + take);
      XXH64_update(&state_, data, take);
      data += take;
      size -= take;
      position_ += take;
      if (buffer_.size() == kWeightChunk) {
        Status status = flush();
        if (!status.ok()) return status;
      }
    }
    return Status::success();
  }

  Status zerosTo(uint64_t offset) {
    static const uint8_t zeros[4096] = {};
    while (position_ < offset) {
      Status status = write(zeros, std::min<uint64_t>(sizeof zeros, offset - position_));
      if (!status.ok()) return status;
    }
    return Status::success();
  }

  // Streams one weight from its producer, a chunk at a time.
  Status produce(uint64_t size, const WeightProducer& producer, const std::string& what) {
    std::vector<uint8_t> chunk(std::min(size, kWeightChunk));
    for (uint64_t done = 0; done < size;) {
      const uint64_t take = std::min<uint64_t>(kWeightChunk, size - done);
      Status status = producer(done, chunk.data(), take);
      if (!status.ok()) return makeError(status.code, cat(what, ": ", status.message));
      status = write(chunk.data(), take);
      if (!status.ok()) return status;
      done += take;
    }
    return Status::success();
  }

  Status flush() {
    const uint8_t* cursor = buffer_.data();
    size_t left = buffer_.size();
    while (left > 0) {
      const ssize_t written = ::write(fd_, cursor, left);
      if (written < 0) {
        if (errno == EINTR) continue;
        return makeError(Errc::io, cat(path_, ": write failed: ", std::strerror(errno)));
      }
      cursor += written;
      left -= static_cast<size_t>(written);
    }
    buffer_.clear();
    return Status::success();
  }

 private:
  int fd_;
  const std::string& path_;
  std::vector<uint8_t> buffer_;
  uint64_t position_ = 0;
  XXH64_state_t state_{};
};

}  // namespace

// Where everything goes: the sections in file order and the bytes of all
// but the weights, which are streamed.
struct OmWriter::Layout {
  struct Section {
    SectionKind kind;
    uint32_t alignment;
    uint64_t offset = 0;
    uint64_t size = 0;
    uint64_t checksum = 0;
    const std::vector<uint8_t>* bytes = nullptr;  // null for the weights
  };
  std::vector<uint8_t> metadata;
  std::vector<uint8_t> kernels;
  std::vector<Section> sections;
  uint64_t table_end = 0;
  uint64_t file_size = 0;

  // The header and section table, once every checksum is known.
  std::vector<uint8_t> header(const std::string& soc, uint32_t flags) const {
    std::vector<uint8_t> bytes(table_end, 0);
    std::memcpy(bytes.data(), kMagic, sizeof kMagic);
    detail::storeLe16(bytes.data() + 8, kVersionMajor);
    detail::storeLe16(bytes.data() + 10, kVersionMinor);
    detail::storeLe32(bytes.data() + 12, flags);
    std::memcpy(bytes.data() + 16, soc.data(), soc.size());
    detail::storeLe32(bytes.data() + 40, static_cast<uint32_t>(sections.size()));
    detail::storeLe64(bytes.data() + 48, file_size);
    for (size_t i = 0; i < sections.size(); ++i) {
      uint8_t* entry = bytes.data() + kHeaderSize + i * kSectionEntrySize;
      detail::storeLe32(entry + 0, static_cast<uint32_t>(sections[i].kind));
      detail::storeLe32(entry + 4, sections[i].alignment);
      detail::storeLe64(entry + 8, sections[i].offset);
      detail::storeLe64(entry + 16, sections[i].size);
      detail::storeLe64(entry + 24, sections[i].checksum);
    }
    XXH64_state_t state;
    XXH64_reset(&state, 0);
    XXH64_update(&state, bytes.data(), 56);
    XXH64_update(&state, bytes.data() + kHeaderSize, table_end - kHeaderSize);
    detail::storeLe64(bytes.data() + 56, XXH64_digest(&state));
    return bytes;
  }
};

namespace {

// Reads the weights section of the written file back (pread, a chunk at a
// time) and compares its XXH64 with the one the table holds.
Status checkWeightsOnDisk(const std::string& path, const OmWriter::Layout& layout) {
  for (const OmWriter::Layout::Section& section : layout.sections) {
    if (section.kind != SectionKind::weights) continue;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return makeError(Errc::io, cat(path, ": cannot reopen: ", std::strerror(errno)));
    std::vector<uint8_t> chunk(kWeightChunk);
    XXH64_state_t state;
    XXH64_reset(&state, 0);
    for (uint64_t done = 0; done < section.size;) {
      const ssize_t got = ::pread(fd, chunk.data(), std::min<uint64_t>(kWeightChunk, section.size - done),
                                  static_cast<off_t>(section.offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        ::close(fd);
        return makeError(Errc::io, cat(path, ": cannot read the weights back"));
      }
      XXH64_update(&state, chunk.data(), static_cast<size_t>(got));
      done += static_cast<uint64_t>(got);
    }
    ::close(fd);  // the pages read are the page cache's, not the process's
    if (XXH64_digest(&state) != section.checksum)
      return makeError(Errc::checksum, cat(path, ": the weights section read back differs from "
                                                 "what was written (a failing disk?)"));
  }
  return Status::success();
}

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
  auto copy = std::make_shared<std::vector<uint8_t>>(static_cast<const uint8_t*>(bytes),
                                                     static_cast<const uint8_t*>(bytes) + size);
  return addWeight(std::move(tensor), size, [copy](uint64_t offset, uint8_t* out, uint64_t n) {
    std::memcpy(out, copy->data() + offset, n);
    return Status::success();
  });
}

uint32_t OmWriter::addWeight(TensorInfo tensor, uint64_t size, WeightProducer producer) {
  if (tensor.size == 0) tensor.size = size;
  const uint64_t offset = alignUp(weights_size_, kWeightAlignment);
  weights_size_ = offset + size;
  // If size and tensor.size disagree the reader's check reports it at write.
  weights_.push_back({std::move(tensor), offset, size, std::move(producer)});
  return static_cast<uint32_t>(weights_.size() - 1);
}

uint32_t OmWriter::addKernel(KernelInfo kernel) {
  kernels_.push_back(std::move(kernel));
  return static_cast<uint32_t>(kernels_.size() - 1);
}

uint32_t OmWriter::addTask(uint32_t kernel_index, std::vector<TaskArgInfo> args,
                           std::vector<TensorInfo> outputs) {
  tasks_.push_back({kernel_index, std::move(args), std::move(outputs)});
  return static_cast<uint32_t>(tasks_.size() - 1);
}

uint32_t OmWriter::addBuffer(BufferInfo buffer) {
  buffers_.push_back(std::move(buffer));
  return static_cast<uint32_t>(buffers_.size() - 1);
}

uint32_t OmWriter::addGear(GearInfo gear) {
  gears_.push_back(std::move(gear));
  return static_cast<uint32_t>(gears_.size() - 1);
}

Status OmWriter::buildLayout(Layout& layout) const {
  if (soc_.empty() || soc_.size() >= kSocNameCapacity)
    return makeError(Errc::invalid_argument, cat("SoC name '", soc_, "' must have 1..",
                                                 kSocNameCapacity - 1, " characters"));

  // Kernels section: programs back to back, each 64-byte aligned.
  std::vector<std::pair<uint64_t, uint64_t>> program_ranges;
  for (const KernelInfo& kernel : kernels_) {
    padTo(layout.kernels, kKernelAlignment);
    program_ranges.emplace_back(layout.kernels.size(), kernel.program.size());
    layout.kernels.insert(layout.kernels.end(), kernel.program.begin(), kernel.program.end());
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
  // With gears, sizes left 0 (dims of -1) are the largest gear's, and so is
  // an arena size left 0.
  std::vector<IoInfo> top_inputs = inputs_, top_outputs = outputs_;
  uint64_t arena_size = arena_size_;
  for (const GearInfo& gear : gears_) {
    auto widen = [](std::vector<IoInfo>& top, const std::vector<GearIoInfo>& list,
                    const std::vector<IoInfo>& declared) {
      for (size_t i = 0; i < top.size() && i < list.size(); ++i)
        if (declared[i].tensor.size == 0)
          top[i].tensor.size = std::max(top[i].tensor.size, gearIoSize(list[i], declared[i]));
    };
    widen(top_inputs, gear.inputs, inputs_);
    widen(top_outputs, gear.outputs, outputs_);
    if (arena_size_ == 0) arena_size = std::max(arena_size, gear.arena_size);
  }
  auto inputs = fbb.CreateVector(buildIoList(fbb, top_inputs));
  auto outputs = fbb.CreateVector(buildIoList(fbb, top_outputs));
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
  auto tasks = buildTasks(fbb, tasks_);
  auto memory_plan = buildPlan(fbb, buffers_);
  auto debug_names = fbb.CreateVectorOfStrings(debug_names_);
  auto gear_dims = fbb.CreateVectorOfStructs(gear_dims_);
  std::vector<flatbuffers::Offset<om::Gear>> gear_offsets;
  for (const GearInfo& gear : gears_) {
    auto values = fbb.CreateVector(gear.values);
    auto gear_inputs = fbb.CreateVector(buildGearIo(fbb, gear.inputs, inputs_));
    auto gear_outputs = fbb.CreateVector(buildGearIo(fbb, gear.outputs, outputs_));
    auto gear_tasks = buildTasks(fbb, gear.tasks);
    auto gear_plan = buildPlan(fbb, gear.buffers);
    gear_offsets.push_back(om::CreateGear(fbb, values, gear_inputs, gear_outputs, gear_tasks,
                                          gear.arena_size, gear_plan));
  }
  auto gears = fbb.CreateVector(gear_offsets);
  auto model = om::CreateModel(fbb, name, soc, precision_, producer, producer_version, inputs,
                               outputs, weights, kernels, tasks, arena_size, memory_plan,
                               debug_names, gear_kind_, gear_dims, gears);
  om::FinishModelBuffer(fbb, model);
  layout.metadata.assign(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());

  using Section = Layout::Section;
  layout.sections.push_back(Section{SectionKind::metadata, kMetadataAlignment, 0, 0, 0,
                                    &layout.metadata});
  if (weights_size_ != 0)
    layout.sections.push_back(
        Section{SectionKind::weights, static_cast<uint32_t>(kWeightAlignment), 0, weights_size_, 0,
                nullptr});
  layout.sections.push_back(Section{SectionKind::kernels, kKernelAlignment, 0, 0, 0, &layout.kernels});
  if (!debug_info_.empty())
    layout.sections.push_back(Section{SectionKind::debug, kDebugAlignment, 0, 0, 0, &debug_info_});
  layout.table_end = kHeaderSize + layout.sections.size() * kSectionEntrySize;
  uint64_t end = layout.table_end;
  for (Section& section : layout.sections) {
    section.offset = alignUp(end, section.alignment);
    if (section.bytes) {
      section.size = section.bytes->size();
      section.checksum = checksum64(section.bytes->data(), section.bytes->size());
    }
    end = section.offset + section.size;
  }
  layout.file_size = end;
  return Status::success();
}

Status OmWriter::writeToVector(std::vector<uint8_t>& out) const {
  Layout layout;
  Status status = buildLayout(layout);
  if (!status.ok()) return status;
  std::vector<uint8_t> bytes(layout.file_size, 0);
  for (Layout::Section& section : layout.sections) {
    if (section.bytes) {
      std::memcpy(bytes.data() + section.offset, section.bytes->data(), section.size);
      continue;
    }
    for (const WeightEntry& weight : weights_) {
      status = weight.producer(0, bytes.data() + section.offset + weight.offset, weight.size);
      if (!status.ok())
        return makeError(status.code, cat("weight '", weight.tensor.name, "': ", status.message));
    }
    section.checksum = checksum64(bytes.data() + section.offset, section.size);
  }
  const std::vector<uint8_t> header = layout.header(soc_, gears_.empty() ? 0 : kFlagGears);
  std::memcpy(bytes.data(), header.data(), header.size());

  // Validate with the runtime's own reader. std::vector's storage is only
  // 16-byte aligned, so check an aligned copy.
  struct alignas(64) Block { uint8_t b[64]; };
  std::vector<Block> aligned((bytes.size() + 63) / 64);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  Container container;
  status = Container::open(reinterpret_cast<const uint8_t*>(aligned.data()), bytes.size(),
                           "<writer>", container);
  if (!status.ok()) return status;
  out = std::move(bytes);
  return Status::success();
}

Status OmWriter::writeToFile(const std::string& path) const {
  Layout layout;
  Status status = buildLayout(layout);
  if (!status.ok()) return status;

  std::string temp_path = path + ".tmp.XXXXXX";
  const int fd = mkstemp(temp_path.data());
  if (fd < 0)
    return makeError(Errc::io, cat(path, ": cannot create a temporary file beside it: ",
                                   std::strerror(errno)));
  bool open = true;
  auto abandon = [&](Status why) {
    if (open) ::close(fd);
    ::unlink(temp_path.c_str());
    return why;
  };
  auto ioError = [&](const char* what) {
    return abandon(makeError(Errc::io, cat(path, ": ", what, ": ", std::strerror(errno))));
  };

  // The header and table go last, once the weights' checksum is known.
  FileSink sink(fd, path);
  status = sink.zerosTo(layout.table_end);
  for (Layout::Section& section : layout.sections) {
    if (status.ok()) status = sink.zerosTo(section.offset);
    if (!status.ok()) return abandon(status);
    sink.startChecksum();
    if (section.bytes) {
      status = sink.write(section.bytes->data(), section.size);
    } else {
      for (const WeightEntry& weight : weights_) {
        status = sink.zerosTo(section.offset + weight.offset);
        if (status.ok())
          status = sink.produce(weight.size, weight.producer, cat("weight '", weight.tensor.name, "'"));
        if (!status.ok()) break;
      }
    }
    if (!status.ok()) return abandon(status);
    section.checksum = sink.checksum();
  }
  status = sink.flush();
  if (!status.ok()) return abandon(status);
  const std::vector<uint8_t> header = layout.header(soc_, gears_.empty() ? 0 : kFlagGears);
  for (size_t done = 0; done < header.size();) {
    const ssize_t written = ::pwrite(fd, header.data() + done, header.size() - done, done);
    if (written < 0) {
      if (errno == EINTR) continue;
      return ioError("write failed");
    }
    done += static_cast<size_t>(written);
  }
  if (fchmod(fd, 0644) != 0) return ioError("chmod failed");
  if (fsync(fd) != 0) return ioError("fsync failed");
  open = false;
  if (::close(fd) != 0) return ioError("close failed");

  // Validate what reached the file with the runtime's own reader. The
  // weights section's checksum is checked by reading it back in chunks:
  // through the mapping, every page of the weights would join the process.
  {
    MappedFile mapped;
    status = MappedFile::open(temp_path, mapped);
    Container container;
    OpenOptions options;
    options.verify_weights_checksum = false;
    if (status.ok())
      status = Container::open(mapped.data(), mapped.size(), "<writer>", container, options);
    if (status.ok()) status = checkWeightsOnDisk(temp_path, layout);
    if (!status.ok()) return abandon(status);
  }
  if (std::rename(temp_path.c_str(), path.c_str()) != 0) return ioError("rename failed");
  return Status::success();
}

}  // namespace format
}  // namespace vinci
