// Validating reader for .om containers. Every check here guards a later
// access: after Container::open() succeeds, the runtime indexes the
// metadata and the sections without further bounds checks.
#include "vinci/format/container.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "bytes.h"
#include "vinci/format/om_generated.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace vinci {
namespace format {

const char* errcName(Errc code) {
  switch (code) {
    case Errc::ok: return "ok";
    case Errc::invalid_argument: return "invalid argument";
    case Errc::io: return "I/O error";
    case Errc::truncated: return "truncated";
    case Errc::bad_magic: return "bad magic";
    case Errc::unsupported_version: return "unsupported version";
    case Errc::checksum: return "checksum mismatch";
    case Errc::section_bounds: return "section out of bounds";
    case Errc::section_overlap: return "section overlap";
    case Errc::misaligned: return "misaligned";
    case Errc::bad_section_table: return "bad section table";
    case Errc::bad_metadata: return "bad metadata";
    case Errc::invalid_model: return "invalid model";
  }
  return "unknown error";
}

Status makeError(Errc code, std::string message) {
  Status status;
  status.code = code;
  status.message = std::move(message);
  return status;
}

const char* sectionKindName(SectionKind kind) {
  switch (kind) {
    case SectionKind::metadata: return "metadata";
    case SectionKind::weights: return "weights";
    case SectionKind::kernels: return "kernels";
    case SectionKind::debug: return "debug";
  }
  return "unknown";
}

uint64_t checksum64(const void* data, size_t size) { return XXH64(data, size, 0); }

uint32_t dtypeSize(uint8_t dtype) {
  switch (static_cast<om::DType>(dtype)) {
    case om::DType::F32: case om::DType::I32: case om::DType::U32: return 4;
    case om::DType::F16: case om::DType::BF16: case om::DType::I16: case om::DType::U16: return 2;
    case om::DType::I8: case om::DType::U8: case om::DType::Bool: return 1;
    case om::DType::I64: case om::DType::U64: return 8;
    case om::DType::Unknown: return 0;
  }
  return 0;
}

const char* dtypeName(uint8_t dtype) {
  switch (static_cast<om::DType>(dtype)) {
    case om::DType::F32: return "float32";
    case om::DType::F16: return "float16";
    case om::DType::BF16: return "bfloat16";
    case om::DType::I8: return "int8";
    case om::DType::U8: return "uint8";
    case om::DType::I16: return "int16";
    case om::DType::U16: return "uint16";
    case om::DType::I32: return "int32";
    case om::DType::U32: return "uint32";
    case om::DType::I64: return "int64";
    case om::DType::U64: return "uint64";
    case om::DType::Bool: return "bool";
    case om::DType::Unknown: return "unknown";
  }
  return "unknown";
}

const char* formatName(uint8_t format) {
  switch (static_cast<om::Format>(format)) {
    case om::Format::ND: return "ND";
    case om::Format::NCHW: return "NCHW";
    case om::Format::NC1HWC0: return "NC1HWC0";
    case om::Format::FRACTAL_NZ: return "FRACTAL_NZ";
    case om::Format::FRACTAL_Z: return "FRACTAL_Z";
  }
  return "unknown";
}

const char* precisionName(uint8_t precision) {
  switch (static_cast<om::PrecisionMode>(precision)) {
    case om::PrecisionMode::ForceFp16: return "force_fp16";
    case om::PrecisionMode::AllowMixPrecision: return "allow_mix_precision";
    case om::PrecisionMode::MustKeepOriginDtype: return "must_keep_origin_dtype";
  }
  return "unknown";
}

const char* kernelKindName(uint8_t kind) {
  switch (static_cast<om::KernelKind>(kind)) {
    case om::KernelKind::Vector: return "vector";
    case om::KernelKind::Cube: return "cube";
    case om::KernelKind::Mixed: return "mixed";
  }
  return "unknown";
}

const char* spaceName(uint8_t space) {
  switch (static_cast<om::Space>(space)) {
    case om::Space::Arena: return "arena";
    case om::Space::Weight: return "weight";
    case om::Space::Input: return "input";
    case om::Space::Output: return "output";
  }
  return "unknown";
}

const char* gearKindName(uint8_t kind) {
  switch (static_cast<om::GearKind>(kind)) {
    case om::GearKind::None: return "none";
    case om::GearKind::BatchSize: return "batch_size";
    case om::GearKind::ImageSize: return "image_size";
    case om::GearKind::Dims: return "dims";
  }
  return "unknown";
}

namespace {

using detail::addOverflows;
using detail::cat;
using detail::loadLe16;
using detail::loadLe32;
using detail::loadLe64;
using detail::mulOverflows;

// A string from the metadata as a message may quote it: bytes outside
// printable ASCII (a corrupt or hostile name) as \xNN, so that a message
// stays one line.
std::string printable(const flatbuffers::String* text) {
  std::string out;
  for (unsigned char c : text->string_view()) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    }
  }
  return out;
}

bool isPowerOfTwo(uint64_t value) { return value != 0 && (value & (value - 1)) == 0; }

// True when [offset, offset + size) fits inside [0, limit).
bool rangeFits(uint64_t offset, uint64_t size, uint64_t limit) {
  uint64_t end = 0;
  return !addOverflows(offset, size, &end) && end <= limit;
}

Status checkHeaderAndSections(const uint8_t* data, uint64_t size, const std::string& origin,
                              const OpenOptions& options, uint16_t* major, uint16_t* minor,
                              uint32_t* flags, std::string* soc,
                              std::vector<SectionEntry>* sections) {
  const size_t magic_bytes = std::min<uint64_t>(size, sizeof(kMagic));
  if (std::memcmp(data, kMagic, magic_bytes) != 0)
    return makeError(Errc::bad_magic, cat(origin, ": not a Vinci .om file (bad magic); ",
                                          "expected a container written by vinci-compile"));
  if (size < kHeaderSize)
    return makeError(Errc::truncated, cat(origin, ": file is truncated: ", size,
                                          " bytes, the header alone is ", kHeaderSize));
  *major = loadLe16(data + 8);
  *minor = loadLe16(data + 10);
  if (*major != kVersionMajor)
    return makeError(Errc::unsupported_version,
                     cat(origin, ": format version ", *major, ".", *minor,
                         " is not supported (this runtime reads ", kVersionMajor,
                         ".x); recompile the model with a matching vinci-compile"));

  const uint32_t section_count = loadLe32(data + 40);
  if (section_count == 0 || section_count > kMaxSections)
    return makeError(Errc::bad_section_table, cat(origin, ": header: section count ", section_count,
                                                  " is outside 1..", kMaxSections));
  const uint64_t table_end = kHeaderSize + uint64_t{section_count} * kSectionEntrySize;
  if (size < table_end)
    return makeError(Errc::truncated, cat(origin, ": file is truncated inside the section table (",
                                          size, " of ", table_end, " bytes)"));

  XXH64_state_t state;
  XXH64_reset(&state, 0);
  XXH64_update(&state, data, 56);
  XXH64_update(&state, data + kHeaderSize, table_end - kHeaderSize);
  const uint64_t stored_header_checksum = loadLe64(data + 56);
  if (XXH64_digest(&state) != stored_header_checksum)
    return makeError(Errc::checksum,
                     cat(origin, ": header checksum mismatch: the header or section table is "
                                 "corrupt"));

  *flags = loadLe32(data + 12);
  if ((*flags & ~kKnownFlags) != 0)
    return makeError(Errc::unsupported_version,
                     cat(origin, ": header flags 0x", detail::hex(*flags),
                         " name features this runtime does not know (format ", *major, ".",
                         *minor, ", this runtime reads up to ", kVersionMajor, ".", kVersionMinor,
                         "); use a newer runtime or recompile the model"));
  if (loadLe32(data + 44) != 0)
    return makeError(Errc::bad_section_table, cat(origin, ": header: reserved field is not zero"));

  const char* soc_field = reinterpret_cast<const char*>(data + 16);
  const size_t soc_length = strnlen(soc_field, kSocNameCapacity);
  if (soc_length == 0 || soc_length == kSocNameCapacity)
    return makeError(Errc::bad_section_table,
                     cat(origin, ": header: SoC name is empty or not NUL-terminated"));
  for (size_t i = soc_length; i < kSocNameCapacity; ++i)
    if (soc_field[i] != '\0')
      return makeError(Errc::bad_section_table, cat(origin, ": header: SoC name padding is not zero"));
  soc->assign(soc_field, soc_length);

  const uint64_t declared_size = loadLe64(data + 48);
  if (size < declared_size)
    return makeError(Errc::truncated, cat(origin, ": file is truncated: ", size, " of ",
                                          declared_size, " bytes"));
  if (size > declared_size)
    return makeError(Errc::section_bounds, cat(origin, ": ", size - declared_size,
                                               " unexpected bytes after the end of the container (",
                                               declared_size, " bytes)"));

  sections->clear();
  for (uint32_t i = 0; i < section_count; ++i) {
    const uint8_t* entry = data + kHeaderSize + uint64_t{i} * kSectionEntrySize;
    SectionEntry section;
    section.kind = static_cast<SectionKind>(loadLe32(entry + 0));
    section.alignment = loadLe32(entry + 4);
    section.offset = loadLe64(entry + 8);
    section.size = loadLe64(entry + 16);
    section.checksum = loadLe64(entry + 24);
    const std::string where = cat(origin, ": section ", i, " (", sectionKindName(section.kind), ")");
    if (!isPowerOfTwo(section.alignment) || section.alignment > kMaxSectionAlignment)
      return makeError(Errc::bad_section_table, cat(where, ": alignment ", section.alignment,
                                                    " is not a power of two up to ",
                                                    kMaxSectionAlignment));
    if (section.kind == SectionKind::weights && section.alignment < kWeightAlignment)
      return makeError(Errc::misaligned, cat(where, ": alignment ", section.alignment,
                                             " is below the required ", kWeightAlignment));
    if (section.offset % section.alignment != 0)
      return makeError(Errc::misaligned, cat(where, ": offset ", section.offset,
                                             " is not a multiple of its alignment ",
                                             section.alignment));
    if (!rangeFits(section.offset, section.size, size))
      return makeError(Errc::section_bounds, cat(where, ": bytes [", section.offset, ", +",
                                                 section.size, ") run past the end of the file (",
                                                 size, " bytes)"));
    if (section.offset < table_end)
      return makeError(Errc::section_overlap,
                       cat(where, ": offset ", section.offset,
                           " overlaps the header and section table (", table_end, " bytes)"));
    for (const SectionEntry& seen : *sections)
      if (seen.kind == section.kind)
        return makeError(Errc::bad_section_table,
                         cat(where, ": a second ", sectionKindName(section.kind), " section"));
    sections->push_back(section);
  }

  std::vector<SectionEntry> by_offset = *sections;
  std::sort(by_offset.begin(), by_offset.end(),
            [](const SectionEntry& a, const SectionEntry& b) { return a.offset < b.offset; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    const SectionEntry& prev = by_offset[i - 1];
    if (prev.offset + prev.size > by_offset[i].offset)
      return makeError(Errc::section_overlap,
                       cat(origin, ": sections ", sectionKindName(prev.kind), " and ",
                           sectionKindName(by_offset[i].kind), " overlap at byte ",
                           by_offset[i].offset));
  }

  for (const SectionEntry& section : *sections)
    if ((section.kind != SectionKind::weights || options.verify_weights_checksum) &&
        checksum64(data + section.offset, section.size) != section.checksum)
      return makeError(Errc::checksum, cat(origin, ": ", sectionKindName(section.kind),
                                           " section checksum mismatch: the file is corrupt"));

  for (SectionKind required : {SectionKind::metadata, SectionKind::kernels}) {
    bool found = false;
    for (const SectionEntry& section : *sections) found |= section.kind == required;
    if (!found)
      return makeError(Errc::bad_section_table,
                       cat(origin, ": the container has no ", sectionKindName(required), " section"));
  }
  return Status::success();
}

using ShapeVector = flatbuffers::Vector<int64_t>;

// Bytes of a dense tensor of `shape` (dims already checked non-negative);
// false on overflow.
bool denseBytes(uint32_t element_size, const ShapeVector& shape, uint64_t* bytes) {
  *bytes = element_size;
  for (int64_t dim : shape)
    if (mulOverflows(*bytes, static_cast<uint64_t>(dim), bytes)) return false;
  return true;
}

// The storage size of a tensor must match its shape: ND and NCHW are dense;
// the fractal formats pad to whole fractals, so their storage can only be
// larger than the logical tensor.
Status checkStorageSize(om::DType dtype, om::Format format, const ShapeVector& shape,
                        uint64_t size, const std::string& where) {
  uint64_t logical_bytes = 0;
  if (!denseBytes(dtypeSize(static_cast<uint8_t>(dtype)), shape, &logical_bytes))
    return makeError(Errc::invalid_model, cat(where, ": shape is too large"));
  const bool padded_format = format == om::Format::NC1HWC0 || format == om::Format::FRACTAL_NZ ||
                             format == om::Format::FRACTAL_Z;
  if (padded_format ? size < logical_bytes : size != logical_bytes)
    return makeError(Errc::invalid_model,
                     cat(where, ": size ", size, " bytes does not match its ",
                         formatName(static_cast<uint8_t>(format)), " shape (", logical_bytes,
                         " bytes)"));
  return Status::success();
}

// Checks a tensor descriptor: known dtype and format, rank and dims in
// range, storage size consistent with the logical shape. `dynamic` (the
// io of a model with gears) allows -1 dims, whose size each gear checks.
Status checkTensor(const om::TensorDesc& tensor, const std::string& where, bool dynamic = false) {
  const uint32_t element_size = dtypeSize(static_cast<uint8_t>(tensor.dtype()));
  if (element_size == 0)
    return makeError(Errc::invalid_model, cat(where, ": unknown dtype ",
                                              static_cast<int>(tensor.dtype())));
  if (static_cast<uint8_t>(tensor.format()) > static_cast<uint8_t>(om::Format::MAX))
    return makeError(Errc::invalid_model, cat(where, ": unknown format ",
                                              static_cast<int>(tensor.format())));
  const auto& shape = *tensor.shape();
  if (shape.size() > kMaxRank)
    return makeError(Errc::invalid_model, cat(where, ": rank ", shape.size(), " exceeds ", kMaxRank));
  bool has_dynamic_dim = false;
  for (uint32_t d = 0; d < shape.size(); ++d) {
    const int64_t dim = shape.Get(d);
    if (dim == -1 && dynamic) {
      has_dynamic_dim = true;
      continue;
    }
    if (dim < 0)
      return makeError(Errc::invalid_model, cat(where, ": dimension ", d, " is negative (", dim, ")"));
  }
  if (!has_dynamic_dim) {
    Status status = checkStorageSize(tensor.dtype(), tensor.format(), shape, tensor.size(), where);
    if (!status.ok()) return status;
  }
  if (tensor.format() == om::Format::NC1HWC0 && shape.size() != 4)
    return makeError(Errc::invalid_model, cat(where, ": NC1HWC0 needs a rank-4 NCHW shape"));
  if (tensor.format() == om::Format::FRACTAL_NZ && shape.size() < 2)
    return makeError(Errc::invalid_model, cat(where, ": FRACTAL_NZ needs rank >= 2"));
  if (tensor.format() == om::Format::FRACTAL_Z && shape.size() != 4)
    return makeError(Errc::invalid_model, cat(where, ": FRACTAL_Z needs a rank-4 OIHW shape"));
  return Status::success();
}

// Whether the kernels see `io` in another dtype than the caller's (only
// int64 -> int32, checked by checkIoList).
bool convertsDtype(const om::IoDesc& io) {
  return io.device_dtype() != om::DType::Unknown && io.device_dtype() != io.tensor()->dtype();
}

// The arena bytes an arena-placed io occupies at a storage size of `size`.
uint64_t arenaBytes(const om::IoDesc& io, uint64_t size) {
  return convertsDtype(io) ? size / 2 : size;
}

using IoList = flatbuffers::Vector<flatbuffers::Offset<om::IoDesc>>;

// `gears`: the io of a model with gears, whose shapes may hold -1 and whose
// arena offsets are per gear (the top-level ones must be 0).
Status checkIoList(const IoList& list, const char* role, uint64_t arena_size,
                   const std::string& origin, bool gears) {
  for (uint32_t i = 0; i < list.size(); ++i) {
    const om::IoDesc& io = *list.Get(i);
    const std::string where = cat(origin, ": metadata: ", role, " ", i, " '",
                                  printable(io.tensor()->name()), "'");
    Status status = checkTensor(*io.tensor(), where, gears);
    if (!status.ok()) return status;
    const om::DType device = io.device_dtype();
    const bool converts = convertsDtype(io);
    if (converts && !(io.tensor()->dtype() == om::DType::I64 && device == om::DType::I32))
      return makeError(Errc::invalid_model,
                       cat(where, ": device dtype ", dtypeName(static_cast<uint8_t>(device)),
                           " for a ", dtypeName(static_cast<uint8_t>(io.tensor()->dtype())),
                           " tensor is not a supported conversion (only int64 -> int32)"));
    if (converts && (io.placement() != om::IoPlacement::Arena ||
                     io.tensor()->format() != om::Format::ND))
      return makeError(Errc::invalid_model,
                       cat(where, ": a converted tensor must be ND and live in the arena"));
    if (io.placement() != om::IoPlacement::Arena && io.placement() != om::IoPlacement::Separate)
      return makeError(Errc::invalid_model, cat(where, ": unknown placement ",
                                                static_cast<int>(io.placement())));
    if (gears && io.arena_offset() != 0)
      return makeError(Errc::invalid_model,
                       cat(where, ": a model with gears places io in the arena per gear; the "
                                  "top-level arena offset must be 0"));
    if (!gears && io.placement() == om::IoPlacement::Arena) {
      const uint64_t bytes = arenaBytes(io, io.tensor()->size());
      if (!rangeFits(io.arena_offset(), bytes, arena_size))
        return makeError(Errc::invalid_model, cat(where, ": arena range [", io.arena_offset(), ", +",
                                                  bytes, ") exceeds the arena (",
                                                  arena_size, " bytes)"));
    }
    for (uint32_t j = 0; j < i; ++j)
      if (list.Get(j)->tensor()->name()->string_view() == io.tensor()->name()->string_view())
        return makeError(Errc::invalid_model, cat(where, ": duplicate ", role, " name"));
  }
  return Status::success();
}

// The io sizes one runnable shape (a static model, or one gear) gives the
// caller's buffers: what Space Input/Output task arguments are checked against.
struct ShapeLimits {
  std::vector<uint64_t> input_sizes, output_sizes;
  uint64_t arena_size = 0;
};

Status checkTasks(const flatbuffers::Vector<flatbuffers::Offset<om::Task>>& tasks,
                  const om::Model& model, const ShapeLimits& limits, uint64_t weights_size,
                  const std::string& where) {
  const auto& kernels = *model.kernels();
  for (uint32_t t = 0; t < tasks.size(); ++t) {
    const om::Task& task = *tasks.Get(t);
    const std::string task_where = cat(where, ": task ", t);
    if (task.kernel() >= kernels.size())
      return makeError(Errc::invalid_model, cat(task_where, ": kernel index ", task.kernel(),
                                                " is out of range (", kernels.size(), " kernels)"));
    const om::Kernel& kernel = *kernels.Get(task.kernel());
    if (task.args()->size() != kernel.num_args())
      return makeError(Errc::invalid_model,
                       cat(task_where, ": ", task.args()->size(), " arguments, kernel '",
                           printable(kernel.name()), "' takes ", kernel.num_args()));
    for (uint32_t a = 0; a < task.args()->size(); ++a) {
      const om::TaskArg& arg = *task.args()->Get(a);
      const std::string arg_where = cat(task_where, ": argument ", a, " (",
                                        spaceName(static_cast<uint8_t>(arg.space())), ")");
      uint64_t limit = 0;
      switch (arg.space()) {
        case om::Space::Arena: limit = limits.arena_size; break;
        case om::Space::Weight: limit = weights_size; break;
        case om::Space::Input:
        case om::Space::Output: {
          const bool is_input = arg.space() == om::Space::Input;
          const auto& list = is_input ? *model.inputs() : *model.outputs();
          if (arg.index() >= list.size())
            return makeError(Errc::invalid_model, cat(arg_where, ": index ", arg.index(),
                                                      " is out of range (", list.size(), ")"));
          if (list.Get(arg.index())->placement() != om::IoPlacement::Separate)
            return makeError(Errc::invalid_model,
                             cat(arg_where, ": ", is_input ? "input " : "output ", arg.index(),
                                 " lives in the arena; address it there"));
          limit = (is_input ? limits.input_sizes : limits.output_sizes)[arg.index()];
          break;
        }
        default:
          return makeError(Errc::invalid_model, cat(arg_where, ": unknown space ",
                                                    static_cast<int>(arg.space())));
      }
      if (arg.space() != om::Space::Input && arg.space() != om::Space::Output && arg.index() != 0)
        return makeError(Errc::invalid_model, cat(arg_where, ": index must be 0"));
      if (!rangeFits(arg.offset(), arg.size(), limit))
        return makeError(Errc::invalid_model, cat(arg_where, ": range [", arg.offset(), ", +",
                                                  arg.size(), ") exceeds its space (", limit,
                                                  " bytes)"));
    }
    // The output descriptors name the task's last arguments, byte for byte.
    if (const auto* outputs = task.outputs()) {
      if (outputs->size() > task.args()->size())
        return makeError(Errc::invalid_model, cat(task_where, ": ", outputs->size(),
                                                  " outputs, but ", task.args()->size(),
                                                  " arguments"));
      const uint32_t first = task.args()->size() - outputs->size();
      for (uint32_t o = 0; o < outputs->size(); ++o) {
        const std::string output_where = cat(task_where, ": output ", o);
        Status status = checkTensor(*outputs->Get(o), output_where);
        if (!status.ok()) return status;
        if (outputs->Get(o)->size() != task.args()->Get(first + o)->size())
          return makeError(Errc::invalid_model,
                           cat(output_where, ": ", outputs->Get(o)->size(), " bytes, argument ",
                               first + o, " has ", task.args()->Get(first + o)->size()));
      }
    }
  }
  return Status::success();
}

Status checkMemoryPlan(const flatbuffers::Vector<flatbuffers::Offset<om::BufferPlan>>* plan,
                       uint64_t arena_size, uint32_t num_tasks, const std::string& where) {
  if (plan == nullptr) return Status::success();
  for (uint32_t i = 0; i < plan->size(); ++i) {
    const om::BufferPlan& buffer = *plan->Get(i);
    const std::string buffer_where =
        cat(where, ": memory plan buffer ", i, " '", printable(buffer.name()), "'");
    if (!rangeFits(buffer.offset(), buffer.size(), arena_size))
      return makeError(Errc::invalid_model, cat(buffer_where, ": range [", buffer.offset(), ", +",
                                                buffer.size(), ") exceeds the arena (",
                                                arena_size, " bytes)"));
    if (buffer.first_task() > buffer.last_task() || buffer.last_task() >= num_tasks)
      return makeError(Errc::invalid_model,
                       cat(buffer_where, ": live range tasks ", buffer.first_task(), "..",
                           buffer.last_task(), " is not within 0..", num_tasks, ")"));
  }
  return Status::success();
}

std::string shapeText(const ShapeVector& shape) {
  std::string text = "[";
  for (uint32_t d = 0; d < shape.size(); ++d) text += cat(d ? ", " : "", shape.Get(d));
  return text + "]";
}

// One gear's view of an input or output against the top-level descriptor.
Status checkGearIo(const om::IoDesc& io, const om::GearIo& gear_io, uint64_t gear_arena,
                   const std::string& where) {
  const ShapeVector& top = *io.tensor()->shape();
  const ShapeVector& shape = *gear_io.shape();
  if (shape.size() != top.size())
    return makeError(Errc::invalid_model, cat(where, ": rank ", shape.size(), " differs from the ",
                                              "model's ", top.size()));
  for (uint32_t d = 0; d < shape.size(); ++d) {
    if (shape.Get(d) < 0 || (top.Get(d) >= 0 && shape.Get(d) != top.Get(d)))
      return makeError(Errc::invalid_model, cat(where, ": shape ", shapeText(shape),
                                                " does not fit the model's ", shapeText(top)));
  }
  Status status =
      checkStorageSize(io.tensor()->dtype(), io.tensor()->format(), shape, gear_io.size(), where);
  if (!status.ok()) return status;
  if (gear_io.size() > io.tensor()->size())
    return makeError(Errc::invalid_model, cat(where, ": size ", gear_io.size(), " exceeds the ",
                                              "model's ", io.tensor()->size(), " (the largest gear's)"));
  if (io.placement() == om::IoPlacement::Arena) {
    const uint64_t bytes = arenaBytes(io, gear_io.size());
    if (!rangeFits(gear_io.arena_offset(), bytes, gear_arena))
      return makeError(Errc::invalid_model, cat(where, ": arena range [", gear_io.arena_offset(),
                                                ", +", bytes, ") exceeds the gear's arena (",
                                                gear_arena, " bytes)"));
  } else if (gear_io.arena_offset() != 0) {
    return makeError(Errc::invalid_model, cat(where, ": arena offset of a separate buffer must be 0"));
  }
  return Status::success();
}

// The gear table (format 1.1, header flag kFlagGears): which input dims the
// gear values set, and each gear's shapes, tasks and arena against the
// shared kernels and weights.
Status checkGears(const om::Model& model, uint64_t weights_size, const std::string& where) {
  const om::GearKind kind = model.gear_kind();
  if (kind != om::GearKind::BatchSize && kind != om::GearKind::ImageSize &&
      kind != om::GearKind::Dims)
    return makeError(Errc::invalid_model, cat(where, ": header flags say the model has gears, but ",
                                              "its gear kind is ", static_cast<int>(kind)));
  const auto* gears = model.gears();
  const uint32_t count = gears ? gears->size() : 0;
  if (count < kMinGears || count > kMaxGears)
    return makeError(Errc::invalid_model, cat(where, ": ", count, " gears; a model has ",
                                              kMinGears, " to ", kMaxGears));
  if (model.tasks()->size() != 0 || (model.memory_plan() && model.memory_plan()->size() != 0))
    return makeError(Errc::invalid_model, cat(where, ": a model with gears keeps its tasks and ",
                                              "memory plan in the gears; the top-level lists must be empty"));
  const auto& inputs = *model.inputs();
  const auto& outputs = *model.outputs();

  // Every -1 of an input is set by exactly one value; outputs follow.
  const uint32_t num_values = gears->Get(0)->values()->size();
  const uint32_t expected_values = kind == om::GearKind::BatchSize ? 1
                                   : kind == om::GearKind::ImageSize ? 2 : num_values;
  if (num_values != expected_values || num_values == 0 || num_values > kMaxGearValues)
    return makeError(Errc::invalid_model, cat(where, ": gear 0 has ", num_values, " values; a ",
                                              gearKindName(static_cast<uint8_t>(kind)),
                                              " gear has ", expected_values == 0 ? 1 : expected_values,
                                              kind == om::GearKind::Dims ? " or more" : ""));
  std::vector<bool> value_used(num_values, false);
  uint32_t dynamic_dims = 0;
  for (uint32_t i = 0; i < inputs.size(); ++i)
    for (int64_t dim : *inputs.Get(i)->tensor()->shape()) dynamic_dims += dim == -1;
  const uint32_t listed = model.gear_dims() ? model.gear_dims()->size() : 0;
  if (listed != dynamic_dims)
    return makeError(Errc::invalid_model, cat(where, ": ", listed, " gear dims for ", dynamic_dims,
                                              " dynamic (-1) input dims"));
  for (uint32_t i = 0; i < listed; ++i) {
    const om::GearDim& dim = *model.gear_dims()->Get(i);
    const std::string dim_where = cat(where, ": gear dim ", i);
    if (dim.value() >= num_values || dim.input() >= inputs.size())
      return makeError(Errc::invalid_model, cat(dim_where, ": value ", dim.value(), " or input ",
                                                dim.input(), " is out of range"));
    const ShapeVector& shape = *inputs.Get(dim.input())->tensor()->shape();
    if (dim.axis() >= shape.size() || shape.Get(dim.axis()) != -1)
      return makeError(Errc::invalid_model, cat(dim_where, ": dim ", dim.axis(), " of input ",
                                                dim.input(), " is not a dynamic (-1) dim"));
    for (uint32_t j = 0; j < i; ++j)
      if (model.gear_dims()->Get(j)->input() == dim.input() &&
          model.gear_dims()->Get(j)->axis() == dim.axis())
        return makeError(Errc::invalid_model, cat(dim_where, ": sets the same input dim as gear dim ", j));
    value_used[dim.value()] = true;
  }
  for (uint32_t v = 0; v < num_values; ++v)
    if (!value_used[v])
      return makeError(Errc::invalid_model, cat(where, ": gear value ", v, " sets no input dim"));

  uint64_t largest_arena = 0;
  std::vector<uint64_t> largest_input(inputs.size(), 0), largest_output(outputs.size(), 0);
  for (uint32_t g = 0; g < count; ++g) {
    const om::Gear& gear = *gears->Get(g);
    const std::string gear_where = cat(where, ": gear ", g);
    const ShapeVector& values = *gear.values();
    if (values.size() != num_values)
      return makeError(Errc::invalid_model, cat(gear_where, ": ", values.size(), " values, gear 0 has ",
                                                num_values));
    for (int64_t value : values)
      if (value < 0 || value > kMaxGearValue)
        return makeError(Errc::invalid_model, cat(gear_where, ": value ", value, " is outside 0..",
                                                  kMaxGearValue));
    for (uint32_t h = 0; h < g; ++h) {
      const ShapeVector& other = *gears->Get(h)->values();
      if (std::equal(values.begin(), values.end(), other.begin()))
        return makeError(Errc::invalid_model, cat(gear_where, ": the same values as gear ", h));
    }
    if (gear.arena_size() > model.arena_size())
      return makeError(Errc::invalid_model, cat(gear_where, ": arena size ", gear.arena_size(),
                                                " exceeds the model's ", model.arena_size()));
    largest_arena = std::max(largest_arena, gear.arena_size());
    if (gear.inputs()->size() != inputs.size() || gear.outputs()->size() != outputs.size())
      return makeError(Errc::invalid_model,
                       cat(gear_where, ": ", gear.inputs()->size(), " inputs and ",
                           gear.outputs()->size(), " outputs; the model has ", inputs.size(),
                           " and ", outputs.size()));
    ShapeLimits limits;
    limits.arena_size = gear.arena_size();
    for (uint32_t i = 0; i < inputs.size(); ++i) {
      const om::GearIo& io = *gear.inputs()->Get(i);
      Status status = checkGearIo(*inputs.Get(i), io, gear.arena_size(),
                                  cat(gear_where, ": input ", i, " '",
                                      printable(inputs.Get(i)->tensor()->name()), "'"));
      if (!status.ok()) return status;
      limits.input_sizes.push_back(io.size());
      largest_input[i] = std::max(largest_input[i], io.size());
    }
    for (uint32_t i = 0; i < listed; ++i) {
      const om::GearDim& dim = *model.gear_dims()->Get(i);
      const int64_t size = gear.inputs()->Get(dim.input())->shape()->Get(dim.axis());
      if (size != values.Get(dim.value()))
        return makeError(Errc::invalid_model,
                         cat(gear_where, ": input ", dim.input(), " dim ", dim.axis(), " is ", size,
                             ", but gear value ", dim.value(), " is ", values.Get(dim.value())));
    }
    for (uint32_t i = 0; i < outputs.size(); ++i) {
      const om::GearIo& io = *gear.outputs()->Get(i);
      Status status = checkGearIo(*outputs.Get(i), io, gear.arena_size(),
                                  cat(gear_where, ": output ", i, " '",
                                      printable(outputs.Get(i)->tensor()->name()), "'"));
      if (!status.ok()) return status;
      limits.output_sizes.push_back(io.size());
      largest_output[i] = std::max(largest_output[i], io.size());
    }
    Status status = checkTasks(*gear.tasks(), model, limits, weights_size, gear_where);
    if (!status.ok()) return status;
    status = checkMemoryPlan(gear.memory_plan(), gear.arena_size(), gear.tasks()->size(), gear_where);
    if (!status.ok()) return status;
  }
  // The model's sizes are the largest gear's: what a caller allocates once.
  if (model.arena_size() != largest_arena)
    return makeError(Errc::invalid_model, cat(where, ": arena size ", model.arena_size(),
                                              " is not the largest gear's (", largest_arena, ")"));
  for (uint32_t i = 0; i < inputs.size(); ++i)
    if (inputs.Get(i)->tensor()->size() != largest_input[i])
      return makeError(Errc::invalid_model, cat(where, ": input ", i, " size ",
                                                inputs.Get(i)->tensor()->size(),
                                                " is not the largest gear's (", largest_input[i], ")"));
  for (uint32_t i = 0; i < outputs.size(); ++i)
    if (outputs.Get(i)->tensor()->size() != largest_output[i])
      return makeError(Errc::invalid_model, cat(where, ": output ", i, " size ",
                                                outputs.Get(i)->tensor()->size(),
                                                " is not the largest gear's (", largest_output[i], ")"));
  return Status::success();
}

Status checkModel(const om::Model& model, const std::string& soc, uint32_t flags,
                  uint64_t weights_size, uint64_t kernels_size, const std::string& origin) {
  const std::string where = cat(origin, ": metadata");
  if (model.soc()->string_view() != soc)
    return makeError(Errc::invalid_model, cat(where, ": SoC '", printable(model.soc()),
                                              "' differs from the header's '", soc, "'"));
  if (static_cast<uint8_t>(model.precision()) > static_cast<uint8_t>(om::PrecisionMode::MAX))
    return makeError(Errc::invalid_model, cat(where, ": unknown precision mode ",
                                              static_cast<int>(model.precision())));
  const uint64_t arena_size = model.arena_size();
  if (arena_size > kMaxArenaSize)
    return makeError(Errc::invalid_model, cat(where, ": arena size ", arena_size,
                                              " exceeds the limit of ", kMaxArenaSize, " bytes"));
  const bool gears = (flags & kFlagGears) != 0;
  Status status = checkIoList(*model.inputs(), "input", arena_size, origin, gears);
  if (!status.ok()) return status;
  status = checkIoList(*model.outputs(), "output", arena_size, origin, gears);
  if (!status.ok()) return status;

  if (model.weights()) {
    for (uint32_t i = 0; i < model.weights()->size(); ++i) {
      const om::Weight& weight = *model.weights()->Get(i);
      const std::string weight_where =
          cat(where, ": weight ", i, " '", printable(weight.tensor()->name()), "'");
      status = checkTensor(*weight.tensor(), weight_where);
      if (!status.ok()) return status;
      if (weight.offset() % kWeightAlignment != 0)
        return makeError(Errc::misaligned, cat(weight_where, ": offset ", weight.offset(),
                                               " is not ", kWeightAlignment, "-byte aligned"));
      if (!rangeFits(weight.offset(), weight.tensor()->size(), weights_size))
        return makeError(Errc::section_bounds,
                         cat(weight_where, ": bytes [", weight.offset(), ", +",
                             weight.tensor()->size(), ") exceed the weights section (",
                             weights_size, " bytes)"));
    }
  }

  const auto& kernels = *model.kernels();
  for (uint32_t i = 0; i < kernels.size(); ++i) {
    const om::Kernel& kernel = *kernels.Get(i);
    const std::string kernel_where = cat(where, ": kernel ", i, " '", printable(kernel.name()), "'");
    if (kernel.program_size() == 0 ||
        !rangeFits(kernel.program_offset(), kernel.program_size(), kernels_size))
      return makeError(Errc::section_bounds,
                       cat(kernel_where, ": program [", kernel.program_offset(), ", +",
                           kernel.program_size(), ") is empty or exceeds the kernels section (",
                           kernels_size, " bytes)"));
    if (kernel.block_dim() == 0 || kernel.block_dim() > kMaxBlockDim)
      return makeError(Errc::invalid_model, cat(kernel_where, ": block_dim ", kernel.block_dim(),
                                                " is outside 1..", kMaxBlockDim));
    if (kernel.num_args() > kMaxKernelArgs)
      return makeError(Errc::invalid_model, cat(kernel_where, ": ", kernel.num_args(),
                                                " arguments exceed the limit of ", kMaxKernelArgs));
    if (static_cast<uint8_t>(kernel.kind()) > static_cast<uint8_t>(om::KernelKind::MAX))
      return makeError(Errc::invalid_model, cat(kernel_where, ": unknown kind ",
                                                static_cast<int>(kernel.kind())));
  }

  if (gears) return checkGears(model, weights_size, where);
  if (model.gear_kind() != om::GearKind::None || (model.gears() && model.gears()->size() != 0) ||
      (model.gear_dims() && model.gear_dims()->size() != 0))
    return makeError(Errc::invalid_model,
                     cat(where, ": the model holds a gear table, but the header flags do not say "
                                "it has gears"));
  ShapeLimits limits;
  limits.arena_size = arena_size;
  for (const om::IoDesc* io : *model.inputs()) limits.input_sizes.push_back(io->tensor()->size());
  for (const om::IoDesc* io : *model.outputs()) limits.output_sizes.push_back(io->tensor()->size());
  status = checkTasks(*model.tasks(), model, limits, weights_size, where);
  if (!status.ok()) return status;
  return checkMemoryPlan(model.memory_plan(), arena_size, model.tasks()->size(), where);
}

}  // namespace

Status Container::open(const uint8_t* data, size_t size, const std::string& origin,
                       Container& out) {
  return open(data, size, origin, out, OpenOptions());
}

Status Container::open(const uint8_t* data, size_t size, const std::string& origin,
                       Container& out, const OpenOptions& options) {
  out = Container();
  if (data == nullptr || size == 0)
    return makeError(Errc::truncated, cat(origin, ": file is empty"));
  // The container's alignment promises (weights at 64 bytes, the metadata
  // at its FlatBuffers alignment) hold in memory only if the base does.
  if (reinterpret_cast<uintptr_t>(data) % kWeightAlignment != 0)
    return makeError(Errc::invalid_argument,
                     cat(origin, ": buffer address is not ", kWeightAlignment,
                         "-byte aligned; weights are used in place, so pass an aligned buffer"));

  Container result;
  Status status = checkHeaderAndSections(data, size, origin, options, &result.version_major_,
                                         &result.version_minor_, &result.flags_, &result.soc_,
                                         &result.sections_);
  if (!status.ok()) return status;
  result.data_ = data;
  result.size_ = size;

  const ByteRange metadata = result.section(SectionKind::metadata);
  if (metadata.size < 8 || metadata.size >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return makeError(Errc::bad_metadata, cat(origin, ": metadata section size ", metadata.size,
                                             " is not a valid FlatBuffer size"));
  if (!om::ModelBufferHasIdentifier(metadata.data))
    return makeError(Errc::bad_metadata, cat(origin, ": metadata section does not hold a "
                                                     "vinci.om.Model (identifier 'VOMD')"));
  flatbuffers::Verifier verifier(metadata.data, static_cast<size_t>(metadata.size),
                                 /*max_depth=*/64, /*max_tables=*/1000000);
  if (!om::VerifyModelBuffer(verifier))
    return makeError(Errc::bad_metadata, cat(origin, ": metadata fails the FlatBuffers verifier "
                                                     "(corrupt or not written by vinci)"));
  result.model_ = om::GetModel(metadata.data);

  status = checkModel(*result.model_, result.soc_, result.flags_,
                      result.section(SectionKind::weights).size,
                      result.section(SectionKind::kernels).size, origin);
  if (!status.ok()) return status;
  out = std::move(result);
  return Status::success();
}

ByteRange Container::section(SectionKind kind) const {
  for (const SectionEntry& section : sections_)
    if (section.kind == kind) return {data_ + section.offset, section.size};
  return {};
}

ByteRange Container::kernelProgram(uint32_t kernel_index) const {
  const om::Kernel& kernel = *model_->kernels()->Get(kernel_index);
  return {section(SectionKind::kernels).data + kernel.program_offset(), kernel.program_size()};
}

ByteRange Container::weightBytes(uint32_t weight_index) const {
  const om::Weight& weight = *model_->weights()->Get(weight_index);
  return {section(SectionKind::weights).data + weight.offset(), weight.tensor()->size()};
}

}  // namespace format
}  // namespace vinci
