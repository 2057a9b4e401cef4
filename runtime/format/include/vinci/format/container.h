// The .om container: binary layout, error codes and the validating reader.
//
// A container is a fixed 64-byte header, a section table, and the sections
// it points to (docs/om-format.md has the byte-level layout). The reader
// treats the bytes as hostile: Container::open() checks the header, the
// section table, every section checksum, the metadata (FlatBuffers Verifier)
// and every offset, size and index the metadata holds before it returns a
// view that the rest of the runtime may use without further bounds checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vinci {
namespace om {
struct Model;  // generated from om.fbs (vinci/format/om_generated.h)
}

namespace format {

// Error codes. The numeric values are the C API's vinci_status values.
enum class Errc : int {
  ok = 0,
  invalid_argument = 1,     // a caller passed something unusable
  io = 2,                   // open/stat/mmap/write failed
  truncated = 3,            // the bytes end before the header says they do
  bad_magic = 4,            // not a Vinci .om file
  unsupported_version = 5,  // unknown major version or required flag
  checksum = 6,             // header or section checksum mismatch
  section_bounds = 7,       // a section or a range inside one is past its end
  section_overlap = 8,      // two sections (or a section and the header) overlap
  misaligned = 9,           // a section or weight is not at its alignment
  bad_section_table = 10,   // missing, duplicate or malformed section entries
  bad_metadata = 11,        // the metadata fails the FlatBuffers verifier
  invalid_model = 12,       // the metadata is well-formed but inconsistent
};

const char* errcName(Errc code);

// An error code with a one-line message (what, where, what to do).
struct Status {
  Errc code = Errc::ok;
  std::string message;

  bool ok() const { return code == Errc::ok; }
  static Status success() { return {}; }
};

Status makeError(Errc code, std::string message);

// ---------------------------------------------------------------------------
// Binary layout (little-endian, fixed; see docs/om-format.md)
// ---------------------------------------------------------------------------

inline constexpr char kMagic[8] = {'V', 'I', 'N', 'C', 'I', 'O', 'M', '\0'};
inline constexpr uint16_t kVersionMajor = 1;
inline constexpr uint16_t kVersionMinor = 1;  // 1.1: gears (docs/om-format.md)
inline constexpr size_t kHeaderSize = 64;
inline constexpr size_t kSectionEntrySize = 32;
inline constexpr size_t kSocNameCapacity = 24;   // NUL-padded in the header
inline constexpr uint32_t kMaxSections = 16;
inline constexpr uint64_t kWeightAlignment = 64;
inline constexpr uint32_t kMaxSectionAlignment = 4096;
// Limits on metadata values; far above anything a model needs, low enough
// that arithmetic on them cannot overflow and allocations stay sane.
inline constexpr uint32_t kMaxRank = 8;
inline constexpr uint32_t kMaxKernelArgs = 64;
inline constexpr uint32_t kMaxBlockDim = 65535;
inline constexpr uint64_t kMaxArenaSize = uint64_t{1} << 36;  // 64 GiB
// Header flag bits. A reader rejects any bit it does not know: a flag marks
// a feature that changes how the file must be read.
// kFlagGears: the model has gears (format 1.1): the tasks and the arena plan
// are per gear, and io shapes hold -1 where gears differ. A 1.0 reader
// refuses such a file instead of running it wrong.
inline constexpr uint32_t kFlagGears = 1u << 0;
inline constexpr uint32_t kKnownFlags = kFlagGears;
// Gears: ATC allows 2 to 100; values are dims, so bounded like them.
inline constexpr uint32_t kMinGears = 2;
inline constexpr uint32_t kMaxGears = 100;
inline constexpr uint32_t kMaxGearValues = 64;
inline constexpr int64_t kMaxGearValue = int64_t{1} << 40;

enum class SectionKind : uint32_t {
  metadata = 1,  // FlatBuffers vinci.om.Model
  weights = 2,   // one blob, device layout, kWeightAlignment-aligned entries
  kernels = 3,   // kernel programs back to back (opaque to the container)
  debug = 4,     // optional, opaque to the runtime (producer's debug info)
};

const char* sectionKindName(SectionKind kind);

struct SectionEntry {
  SectionKind kind;
  uint32_t alignment;  // power of two; offset % alignment == 0
  uint64_t offset;     // from the start of the file
  uint64_t size;
  uint64_t checksum;   // XXH64 (seed 0) of the section's bytes
};

// XXH64 with seed 0, the checksum of sections and of the header.
uint64_t checksum64(const void* data, size_t size);

// Bytes per element of an om::DType value; 0 for Unknown or out-of-range.
uint32_t dtypeSize(uint8_t dtype);
const char* dtypeName(uint8_t dtype);
const char* formatName(uint8_t format);
const char* precisionName(uint8_t precision);
const char* kernelKindName(uint8_t kind);
const char* spaceName(uint8_t space);
// "none", "batch_size", "image_size" or "dims" (ATC's option names).
const char* gearKindName(uint8_t kind);

// ---------------------------------------------------------------------------
// Reader
// ---------------------------------------------------------------------------

struct ByteRange {
  const uint8_t* data = nullptr;
  uint64_t size = 0;
};

// What open() may leave out. The runtime always validates everything; the
// writer checks the weights section's checksum itself, reading the file in
// chunks, so that validating a large .om does not map its weights in.
struct OpenOptions {
  bool verify_weights_checksum = true;
};

// A validated view over container bytes owned by someone else (an mmap or
// the caller's buffer). Immutable after open(); safe to share across threads.
class Container {
 public:
  // Validates everything; on failure `out` is left empty. `origin` names the
  // bytes in messages (a file path or "<memory>").
  static Status open(const uint8_t* data, size_t size, const std::string& origin,
                     Container& out);
  static Status open(const uint8_t* data, size_t size, const std::string& origin,
                     Container& out, const OpenOptions& options);

  uint16_t versionMajor() const { return version_major_; }
  uint16_t versionMinor() const { return version_minor_; }
  uint32_t flags() const { return flags_; }
  const std::string& soc() const { return soc_; }
  uint64_t fileSize() const { return size_; }
  const std::vector<SectionEntry>& sections() const { return sections_; }

  // The section's bytes; {nullptr, 0} when the container has none of `kind`.
  ByteRange section(SectionKind kind) const;
  const om::Model& model() const { return *model_; }
  // A kernel's program bytes (index already validated by open()).
  ByteRange kernelProgram(uint32_t kernel_index) const;
  // A weight's bytes (index already validated by open()).
  ByteRange weightBytes(uint32_t weight_index) const;

 private:
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  uint16_t version_major_ = 0;
  uint16_t version_minor_ = 0;
  uint32_t flags_ = 0;
  std::string soc_;
  std::vector<SectionEntry> sections_;
  const om::Model* model_ = nullptr;
};

// A read-only, private mapping of a whole file (RAII, move-only).
class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  static Status open(const std::string& path, MappedFile& out);
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void reset();
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace format
}  // namespace vinci
