// Helpers shared by the container and runtime tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

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

}  // namespace test
}  // namespace vinci
