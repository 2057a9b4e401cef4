#include "vinci/tensor_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

namespace vinci::tensorio {
namespace {

bool readWholeFile(const std::string& path, std::vector<uint8_t>& bytes, std::string& error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  bytes.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  if (file.bad()) {
    error = path + ": read error";
    return false;
  }
  return true;
}

struct NpyType {
  const char* descr;
  vinci_dtype dtype;
};
// Byte order '<' or '|' (not applicable); '>' (big-endian) is rejected.
constexpr NpyType kNpyTypes[] = {
    {"f4", VINCI_DTYPE_F32}, {"f2", VINCI_DTYPE_F16}, {"i1", VINCI_DTYPE_I8},
    {"u1", VINCI_DTYPE_U8},  {"i2", VINCI_DTYPE_I16}, {"u2", VINCI_DTYPE_U16},
    {"i4", VINCI_DTYPE_I32}, {"u4", VINCI_DTYPE_U32}, {"i8", VINCI_DTYPE_I64},
    {"u8", VINCI_DTYPE_U64}, {"b1", VINCI_DTYPE_BOOL},
};

// Finds the value text after 'key': in a NumPy header dict.
bool headerValue(const std::string& header, const std::string& key, std::string& value) {
  const size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return false;
  size_t pos = header.find(':', at);
  if (pos == std::string::npos) return false;
  ++pos;
  while (pos < header.size() && header[pos] == ' ') ++pos;
  size_t end = pos;
  if (pos < header.size() && header[pos] == '(') {
    end = header.find(')', pos);
    if (end == std::string::npos) return false;
    ++end;
  } else if (pos < header.size() && header[pos] == '\'') {
    end = header.find('\'', pos + 1);
    if (end == std::string::npos) return false;
    ++end;
  } else {
    while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  }
  value = header.substr(pos, end - pos);
  return true;
}

bool elementCount(const std::vector<int64_t>& shape, uint64_t& count) {
  count = 1;
  for (int64_t dim : shape) {
    if (dim < 0 || __builtin_mul_overflow(count, static_cast<uint64_t>(dim), &count)) return false;
  }
  return true;
}

// --- protobuf wire format -------------------------------------------------

struct WireReader {
  const uint8_t* cursor;
  const uint8_t* end;

  bool varint(uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (cursor == end) return false;
      const uint8_t byte = *cursor++;
      value |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  bool bytes(const uint8_t*& data, uint64_t& size) {
    if (!varint(size) || size > static_cast<uint64_t>(end - cursor)) return false;
    data = cursor;
    cursor += size;
    return true;
  }
  bool skip(uint32_t wire_type) {
    uint64_t ignored;
    const uint8_t* data;
    switch (wire_type) {
      case 0: return varint(ignored);
      case 1: if (end - cursor < 8) return false; cursor += 8; return true;
      case 2: return bytes(data, ignored);
      case 5: if (end - cursor < 4) return false; cursor += 4; return true;
      default: return false;
    }
  }
};

// Reads a repeated scalar field that may be packed (wire type 2) or not.
template <typename Append>
bool repeatedField(WireReader& reader, uint32_t wire_type, uint32_t fixed_bytes, Append append) {
  if (wire_type == 2) {
    const uint8_t* data;
    uint64_t size;
    if (!reader.bytes(data, size)) return false;
    WireReader packed{data, data + size};
    while (packed.cursor != packed.end) {
      if (fixed_bytes == 0) {
        uint64_t value;
        if (!packed.varint(value)) return false;
        append(value);
      } else {
        if (static_cast<uint64_t>(packed.end - packed.cursor) < fixed_bytes) return false;
        uint64_t value = 0;
        std::memcpy(&value, packed.cursor, fixed_bytes);
        packed.cursor += fixed_bytes;
        append(value);
      }
    }
    return true;
  }
  uint64_t value = 0;
  if (fixed_bytes == 0) {
    if (wire_type != 0 || !reader.varint(value)) return false;
  } else {
    if ((fixed_bytes == 4 ? 5u : 1u) != wire_type) return false;
    if (static_cast<uint64_t>(reader.end - reader.cursor) < fixed_bytes) return false;
    std::memcpy(&value, reader.cursor, fixed_bytes);
    reader.cursor += fixed_bytes;
  }
  append(value);
  return true;
}

// ONNX TensorProto.DataType -> vinci dtype.
vinci_dtype onnxDtype(uint64_t onnx) {
  switch (onnx) {
    case 1: return VINCI_DTYPE_F32;
    case 2: return VINCI_DTYPE_U8;
    case 3: return VINCI_DTYPE_I8;
    case 4: return VINCI_DTYPE_U16;
    case 5: return VINCI_DTYPE_I16;
    case 6: return VINCI_DTYPE_I32;
    case 7: return VINCI_DTYPE_I64;
    case 9: return VINCI_DTYPE_BOOL;
    case 10: return VINCI_DTYPE_F16;
    case 12: return VINCI_DTYPE_U32;
    case 13: return VINCI_DTYPE_U64;
    case 16: return VINCI_DTYPE_BF16;
    default: return VINCI_DTYPE_UNKNOWN;
  }
}

}  // namespace

uint32_t dtypeBytes(vinci_dtype dtype) {
  switch (dtype) {
    case VINCI_DTYPE_F32: case VINCI_DTYPE_I32: case VINCI_DTYPE_U32: return 4;
    case VINCI_DTYPE_F16: case VINCI_DTYPE_BF16: case VINCI_DTYPE_I16: case VINCI_DTYPE_U16: return 2;
    case VINCI_DTYPE_I8: case VINCI_DTYPE_U8: case VINCI_DTYPE_BOOL: return 1;
    case VINCI_DTYPE_I64: case VINCI_DTYPE_U64: return 8;
    default: return 0;
  }
}

bool readNpy(const std::string& path, HostTensor& out, std::string& error) {
  std::vector<uint8_t> bytes;
  if (!readWholeFile(path, bytes, error)) return false;
  static const uint8_t kNpyMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kNpyMagic, 6) != 0) {
    error = path + ": not a .npy file (bad magic)";
    return false;
  }
  const uint8_t major = bytes[6];
  size_t header_length = 0, header_start = 0;
  if (major == 1) {
    header_length = bytes[8] | (bytes[9] << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      error = path + ": truncated .npy header";
      return false;
    }
    header_length = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (size_t{bytes[11]} << 24);
    header_start = 12;
  } else {
    error = path + ": unsupported .npy version " + std::to_string(major);
    return false;
  }
  if (header_length > bytes.size() - header_start) {
    error = path + ": truncated .npy header";
    return false;
  }
  const std::string header(reinterpret_cast<const char*>(bytes.data() + header_start), header_length);
  std::string descr, fortran, shape_text;
  if (!headerValue(header, "descr", descr) || !headerValue(header, "fortran_order", fortran) ||
      !headerValue(header, "shape", shape_text)) {
    error = path + ": .npy header lacks descr, fortran_order or shape";
    return false;
  }
  if (fortran.rfind("False", 0) != 0) {
    error = path + ": Fortran-order arrays are not supported; save with np.ascontiguousarray";
    return false;
  }
  if (descr.size() < 4 || descr.front() != '\'' || (descr[1] != '<' && descr[1] != '|')) {
    error = path + ": dtype " + descr + " is not supported (little-endian numeric types only)";
    return false;
  }
  const std::string code = descr.substr(2, descr.size() - 3);
  out = HostTensor{};
  for (const NpyType& type : kNpyTypes)
    if (code == type.descr) out.dtype = type.dtype;
  if (out.dtype == VINCI_DTYPE_UNKNOWN) {
    error = path + ": dtype " + descr + " is not supported";
    return false;
  }
  // shape_text is "(d0, d1, ...)", "(d0,)" or "()".
  size_t pos = 1;
  while (pos < shape_text.size() && shape_text[pos] != ')') {
    while (pos < shape_text.size() && (shape_text[pos] == ' ' || shape_text[pos] == ',')) ++pos;
    if (pos >= shape_text.size() || shape_text[pos] == ')') break;
    size_t used = 0;
    long long dim = 0;
    try {
      dim = std::stoll(shape_text.substr(pos), &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || dim < 0) {
      error = path + ": cannot parse shape " + shape_text;
      return false;
    }
    out.shape.push_back(dim);
    pos += used;
  }
  uint64_t count = 0;
  const size_t data_start = header_start + header_length;
  if (!elementCount(out.shape, count) ||
      count > (std::numeric_limits<uint64_t>::max() / dtypeBytes(out.dtype)) ||
      count * dtypeBytes(out.dtype) != bytes.size() - data_start) {
    error = path + ": data size does not match the shape " + shape_text + " (" +
            std::to_string(bytes.size() - data_start) + " bytes of data)";
    return false;
  }
  out.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_start), bytes.end());
  return true;
}

bool readTensorProto(const std::string& path, HostTensor& out, std::string& error) {
  std::vector<uint8_t> bytes;
  if (!readWholeFile(path, bytes, error)) return false;
  out = HostTensor{};
  uint64_t onnx_type = 0;
  std::vector<uint64_t> int_values;    // int32_data (5) or int64_data (7) / uint64_data (11)
  std::vector<uint64_t> float_values;  // float_data (4) bit patterns
  const uint8_t* raw = nullptr;
  uint64_t raw_size = 0;
  bool has_raw = false;
  WireReader reader{bytes.data(), bytes.data() + bytes.size()};
  const std::string corrupt = path + ": not a valid ONNX TensorProto";
  while (reader.cursor != reader.end) {
    uint64_t key;
    if (!reader.varint(key)) {
      error = corrupt;
      return false;
    }
    const uint32_t field = static_cast<uint32_t>(key >> 3), wire_type = key & 7;
    bool ok = true;
    switch (field) {
      case 1:  // dims
        ok = repeatedField(reader, wire_type, 0, [&](uint64_t v) { out.shape.push_back(static_cast<int64_t>(v)); });
        break;
      case 2:  // data_type
        ok = wire_type == 0 && reader.varint(onnx_type);
        break;
      case 4:  // float_data
        ok = repeatedField(reader, wire_type, 4, [&](uint64_t v) { float_values.push_back(v); });
        break;
      case 5:  // int32_data
      case 7:  // int64_data
      case 11:  // uint64_data
        ok = repeatedField(reader, wire_type, 0, [&](uint64_t v) { int_values.push_back(v); });
        break;
      case 9:  // raw_data
        ok = wire_type == 2 && reader.bytes(raw, raw_size);
        has_raw = ok;
        break;
      case 13:  // data_location: EXTERNAL data is not supported
        {
          uint64_t location = 0;
          ok = wire_type == 0 && reader.varint(location);
          if (ok && location != 0) {
            error = path + ": tensors with external data are not supported";
            return false;
          }
        }
        break;
      default:
        ok = reader.skip(wire_type);
    }
    if (!ok) {
      error = corrupt;
      return false;
    }
  }
  out.dtype = onnxDtype(onnx_type);
  if (out.dtype == VINCI_DTYPE_UNKNOWN) {
    error = path + ": ONNX data type " + std::to_string(onnx_type) + " is not supported";
    return false;
  }
  uint64_t count = 0;
  if (!elementCount(out.shape, count) || count > (uint64_t{1} << 40)) {
    error = path + ": invalid dims";
    return false;
  }
  const uint32_t element = dtypeBytes(out.dtype);
  if (has_raw) {
    if (raw_size != count * element) {
      error = path + ": raw_data holds " + std::to_string(raw_size) + " bytes, dims need " +
              std::to_string(count * element);
      return false;
    }
    out.data.assign(raw, raw + raw_size);
    return true;
  }
  const std::vector<uint64_t>& values = out.dtype == VINCI_DTYPE_F32 ? float_values : int_values;
  if (values.size() != count) {
    error = path + ": " + std::to_string(values.size()) + " values, dims need " + std::to_string(count);
    return false;
  }
  out.data.resize(count * element);
  for (uint64_t i = 0; i < count; ++i)  // little-endian host: the low bytes are the value
    std::memcpy(out.data.data() + i * element, &values[i], element);
  return true;
}

bool readTensorFile(const std::string& path, HostTensor& out, std::string& error) {
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0)
    return readNpy(path, out, error);
  return readTensorProto(path, out, error);
}

std::vector<uint8_t> encodeNpy(const HostTensor& tensor) {
  const char* descr = "<f4";
  switch (tensor.dtype) {
    case VINCI_DTYPE_F32: descr = "<f4"; break;
    case VINCI_DTYPE_F16: descr = "<f2"; break;
    case VINCI_DTYPE_BF16: descr = "<u2"; break;
    case VINCI_DTYPE_I8: descr = "|i1"; break;
    case VINCI_DTYPE_U8: descr = "|u1"; break;
    case VINCI_DTYPE_I16: descr = "<i2"; break;
    case VINCI_DTYPE_U16: descr = "<u2"; break;
    case VINCI_DTYPE_I32: descr = "<i4"; break;
    case VINCI_DTYPE_U32: descr = "<u4"; break;
    case VINCI_DTYPE_I64: descr = "<i8"; break;
    case VINCI_DTYPE_U64: descr = "<u8"; break;
    case VINCI_DTYPE_BOOL: descr = "|b1"; break;
    default: break;
  }
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    shape += std::to_string(tensor.shape[i]) + (tensor.shape.size() == 1 ? "," : i + 1 < tensor.shape.size() ? ", " : "");
  shape += ")";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that the data starts at a multiple of 64, end with '\n'.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  const uint8_t preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                static_cast<uint8_t>(header.size() & 0xff),
                                static_cast<uint8_t>(header.size() >> 8)};
  std::vector<uint8_t> bytes(sizeof preamble + header.size() + tensor.data.size());
  std::memcpy(bytes.data(), preamble, sizeof preamble);
  std::memcpy(bytes.data() + sizeof preamble, header.data(), header.size());
  if (!tensor.data.empty())
    std::memcpy(bytes.data() + sizeof preamble + header.size(), tensor.data.data(), tensor.data.size());
  return bytes;
}

}  // namespace vinci::tensorio
