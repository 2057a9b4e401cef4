// Small helpers shared by the reader and the writer: little-endian loads and
// stores (the container is little-endian on every host), overflow-checked
// arithmetic, and message formatting without iostreams or fmt.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

namespace vinci {
namespace format {
namespace detail {

inline uint16_t loadLe16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t loadLe32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
inline uint64_t loadLe64(const uint8_t* p) {
  return uint64_t{loadLe32(p)} | (uint64_t{loadLe32(p + 4)} << 32);
}
inline void storeLe16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline void storeLe32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void storeLe64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

inline bool addOverflows(uint64_t a, uint64_t b, uint64_t* sum) {
  return __builtin_add_overflow(a, b, sum);
}
inline bool mulOverflows(uint64_t a, uint64_t b, uint64_t* product) {
  return __builtin_mul_overflow(a, b, product);
}

inline std::string hex(uint64_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "%llx", static_cast<unsigned long long>(value));
  return buffer;
}

inline void appendPiece(std::string& out, const std::string& s) { out += s; }
inline void appendPiece(std::string& out, const char* s) { out += s; }
inline void appendPiece(std::string& out, char c) { out += c; }
template <typename T, typename = std::enable_if_t<std::is_arithmetic<T>::value>>
inline void appendPiece(std::string& out, T value) {
  out += std::to_string(value);
}

// Concatenates strings and numbers into one message.
template <typename... Pieces>
std::string cat(const Pieces&... pieces) {
  std::string out;
  (appendPiece(out, pieces), ...);
  return out;
}

}  // namespace detail
}  // namespace format
}  // namespace vinci
