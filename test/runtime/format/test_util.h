// Helpers shared by the container and runtime tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "vinci/format/container.h"

namespace vinci {
namespace test {

// A 64-byte-aligned copy of some bytes: the loader requires the alignment
// that an mmap gives, so tests load from one of these, never from a vector.
class AlignedBytes {
 public:
  explicit AlignedBytes(const std::vector<uint8_t>& bytes) : size_(bytes.size()) {
    storage_.reset(new Block[(bytes.size() + sizeof(Block) - 1) / sizeof(Block) + 1]);
    if (!bytes.empty()) std::memcpy(storage_.get(), bytes.data(), bytes.size());
  }
  AlignedBytes(const uint8_t* data, size_t size) : AlignedBytes(std::vector<uint8_t>(data, data + size)) {}
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(storage_.get()); }
  size_t size() const { return size_; }

 private:
  struct alignas(64) Block {
    uint8_t bytes[64];
  };
  std::unique_ptr<Block[]> storage_;
  size_t size_;
};

// Little-endian field access and checksum repair for corruption tests.
inline uint64_t readLe64(const std::vector<uint8_t>& bytes, size_t at) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | bytes[at + i];
  return value;
}
inline uint32_t readLe32(const std::vector<uint8_t>& bytes, size_t at) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | bytes[at + i];
  return value;
}
inline void writeLe64(std::vector<uint8_t>& bytes, size_t at, uint64_t value) {
  for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<uint8_t>(value >> (8 * i));
}
inline void writeLe32(std::vector<uint8_t>& bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

inline size_t sectionEntryOffset(const std::vector<uint8_t>& bytes, format::SectionKind kind) {
  const uint32_t count = readLe32(bytes, 40);
  for (uint32_t i = 0; i < count; ++i) {
    const size_t entry = format::kHeaderSize + i * format::kSectionEntrySize;
    if (readLe32(bytes, entry) == static_cast<uint32_t>(kind)) return entry;
  }
  return 0;  // callers check the kind they asked for exists
}

// Recomputes every section checksum and then the header checksum, so that a
// deliberate edit reaches the checks behind the checksums.
inline void refreshChecksums(std::vector<uint8_t>& bytes) {
  if (bytes.size() < format::kHeaderSize) return;
  const uint32_t count = readLe32(bytes, 40);
  if (format::kHeaderSize + uint64_t{count} * format::kSectionEntrySize > bytes.size()) return;
  for (uint32_t i = 0; i < count; ++i) {
    const size_t entry = format::kHeaderSize + i * format::kSectionEntrySize;
    const uint64_t offset = readLe64(bytes, entry + 8);
    const uint64_t size = readLe64(bytes, entry + 16);
    if (offset <= bytes.size() && size <= bytes.size() - offset)
      writeLe64(bytes, entry + 24, format::checksum64(bytes.data() + offset, size));
  }
  std::vector<uint8_t> covered(bytes.begin(), bytes.begin() + 56);
  covered.insert(covered.end(), bytes.begin() + format::kHeaderSize,
                 bytes.begin() + format::kHeaderSize + count * format::kSectionEntrySize);
  writeLe64(bytes, 56, format::checksum64(covered.data(), covered.size()));
}

}  // namespace test
}  // namespace vinci
