//===- ModelFile.cpp - an ONNX file read without copying its weights ------===//
#include "onnx/ModelFile.h"

#include "onnx/onnx_pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <deque>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vinci::onnx_import {

std::shared_ptr<MappedBytes> MappedBytes::open(const std::string &path, std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat info {};
  if (fd < 0 || ::fstat(fd, &info) != 0) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    if (fd >= 0)
      ::close(fd);
    return nullptr;
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    error = "'" + path + "' is not a regular file";
    return nullptr;
  }
  size_t size = static_cast<size_t>(info.st_size);
  if (size == 0) {
    ::close(fd);
    error = "'" + path + "' is empty";
    return nullptr;
  }
  void *mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int mapError = errno;
  ::close(fd);
  if (mapped == MAP_FAILED) {
    error = "cannot map '" + path + "': " + std::strerror(mapError);
    return nullptr;
  }
  return std::shared_ptr<MappedBytes>(new MappedBytes(static_cast<const char *>(mapped), size, path));
}

MappedBytes::~MappedBytes() { ::munmap(const_cast<char *>(data_), size_); }

void MappedBytes::releasePages(const void *data, size_t size) const {
  const char *begin = static_cast<const char *>(data);
  if (begin < data_ || begin + size > data_ + size_ || size == 0)
    return;
  uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  uintptr_t first = (reinterpret_cast<uintptr_t>(begin) + page - 1) / page * page;
  uintptr_t last = reinterpret_cast<uintptr_t>(begin + size) / page * page;
  if (last > first)
    ::madvise(reinterpret_cast<void *>(first), last - first, MADV_DONTNEED);
}

void MappedBytes::releaseAllPages() const {
  ::madvise(const_cast<char *>(data_), size_, MADV_DONTNEED);
}

namespace {

//===----------------------------------------------------------------------===//
// The protobuf wire format, as far as cutting raw_data out needs it
//===----------------------------------------------------------------------===//

constexpr uint32_t kModelGraph = 7;         // ModelProto.graph
constexpr uint32_t kGraphInitializer = 5;   // GraphProto.initializer
constexpr uint32_t kTensorRawData = 9;      // TensorProto.raw_data
constexpr uint32_t kLengthDelimited = 2;

bool readVarint(const uint8_t *&p, const uint8_t *end, uint64_t &value) {
  value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end)
      return false;
    uint8_t byte = *p++;
    value |= uint64_t(byte & 0x7f) << shift;
    if (!(byte & 0x80))
      return true;
  }
  return false;
}

void putVarint(std::string &out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

/// Rewrites ModelProto bytes into pieces: spans of the mapping, and small
/// synthesized tags and lengths where a message shrank because a raw_data
/// payload was cut out.
class Stripper {
public:
  explicit Stripper(const MappedBytes &file) : file(file) {}

  bool run() {
    const uint8_t *begin = reinterpret_cast<const uint8_t *>(file.data());
    return message(begin, begin + file.size(), Level::Model).has_value();
  }

  struct Piece {
    const char *data;
    size_t size;
  };
  std::vector<Piece> pieces;
  std::vector<std::optional<MappedRange>> initializers;
  uint64_t streamSize = 0;

private:
  enum class Level { Model, Graph, Tensor };

  void copy(const uint8_t *begin, const uint8_t *end) {
    if (end > begin)
      pieces.push_back({reinterpret_cast<const char *>(begin), size_t(end - begin)});
  }
  size_t placeholder() {
    pieces.push_back({nullptr, 0});
    return pieces.size() - 1;
  }
  uint64_t fill(size_t piece, uint32_t field, uint64_t length) {
    std::string &bytes = synthesized.emplace_back();
    putVarint(bytes, (uint64_t(field) << 3) | kLengthDelimited);
    putVarint(bytes, length);
    pieces[piece] = {bytes.data(), bytes.size()};
    return bytes.size();
  }

  /// Appends the pieces of the message body [p, end) at `level`; returns
  /// its new size, or nullopt if the bytes are not a well-formed message.
  std::optional<uint64_t> message(const uint8_t *p, const uint8_t *end, Level level) {
    uint64_t size = 0;
    const uint8_t *copied = p;
    while (p < end) {
      const uint8_t *fieldStart = p;
      uint64_t key = 0;
      if (!readVarint(p, end, key))
        return std::nullopt;
      uint32_t field = static_cast<uint32_t>(key >> 3), wire = key & 7;
      uint64_t length = 0;
      switch (wire) {
      case 0:
        if (!readVarint(p, end, length))
          return std::nullopt;
        continue;
      case 1:
        if (end - p < 8)
          return std::nullopt;
        p += 8;
        continue;
      case 5:
        if (end - p < 4)
          return std::nullopt;
        p += 4;
        continue;
      case kLengthDelimited:
        if (!readVarint(p, end, length) || length > uint64_t(end - p))
          return std::nullopt;
        break;
      default: // groups: not in ONNX
        return std::nullopt;
      }
      const uint8_t *payload = p;
      p += length;
      bool nested = (level == Level::Model && field == kModelGraph) ||
                    (level == Level::Graph && field == kGraphInitializer);
      bool raw = level == Level::Tensor && field == kTensorRawData;
      if (raw && length < kMinMappedBytes) {
        initializers.back() = std::nullopt; // a later raw_data wins, and this one stays
        continue;
      }
      if (!nested && !raw)
        continue;
      size += fieldStart - copied;
      copy(copied, fieldStart);
      size_t prefix = placeholder();
      uint64_t inner = 0;
      if (raw) {
        initializers.back() = MappedRange{&file, uint64_t(payload - start()), length};
      } else {
        if (level == Level::Graph)
          initializers.emplace_back();
        std::optional<uint64_t> body =
            message(payload, p, level == Level::Model ? Level::Graph : Level::Tensor);
        if (!body)
          return std::nullopt;
        inner = *body;
      }
      size += fill(prefix, field, inner) + inner;
      copied = p;
    }
    if (p != end)
      return std::nullopt;
    copy(copied, end);
    size += end - copied;
    if (level == Level::Model)
      streamSize = size;
    return size;
  }

  const uint8_t *start() const { return reinterpret_cast<const uint8_t *>(file.data()); }

  const MappedBytes &file;
  std::deque<std::string> synthesized; // stable addresses for the pieces
};

/// Feeds protobuf the stripped model, one piece at a time.
class PieceStream : public google::protobuf::io::ZeroCopyInputStream {
public:
  explicit PieceStream(const std::vector<Stripper::Piece> &pieces) : pieces(pieces) {}

  bool Next(const void **data, int *size) override {
    while (index < pieces.size() && offset == pieces[index].size) {
      ++index;
      offset = 0;
    }
    if (index == pieces.size())
      return false;
    size_t chunk = std::min<size_t>(pieces[index].size - offset, kMaxChunk);
    *data = pieces[index].data + offset;
    *size = static_cast<int>(chunk);
    offset += chunk;
    total += chunk;
    return true;
  }
  void BackUp(int count) override {
    offset -= count;
    total -= count;
  }
  bool Skip(int count) override {
    const void *data;
    int size;
    while (count > 0 && Next(&data, &size)) {
      int used = std::min(count, size);
      BackUp(size - used);
      count -= used;
    }
    return count == 0;
  }
  int64_t ByteCount() const override { return static_cast<int64_t>(total); }

private:
  static constexpr size_t kMaxChunk = size_t(1) << 30;
  const std::vector<Stripper::Piece> &pieces;
  size_t index = 0, offset = 0, total = 0;
};

bool parse(google::protobuf::io::ZeroCopyInputStream &stream, onnx::ModelProto &model) {
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(INT_MAX);
  return model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

} // namespace

bool readModelFile(const std::string &path, onnx::ModelProto &model, ParsedModel &parsed,
                   std::string &error) {
  std::string openError;
  std::shared_ptr<MappedBytes> file = MappedBytes::open(path, openError);
  if (!file) {
    error = "cannot read model file: " + openError;
    return false;
  }
  Stripper stripper(*file);
  bool stripped = stripper.run();
  if (stripped && stripper.streamSize > uint64_t(INT_MAX)) {
    error = "'" + path + "' holds more than 2 GiB besides its initializers' raw data, more than "
            "protobuf reads";
    return false;
  }
  bool ok;
  if (stripped) {
    PieceStream stream(stripper.pieces);
    ok = parse(stream, model);
  } else {
    // Not a message the stripper understands: protobuf parses it whole and
    // says what is wrong (or reads what the stripper could not).
    Stripper::Piece whole{file->data(), file->size()};
    std::vector<Stripper::Piece> pieces{whole};
    PieceStream stream(pieces);
    ok = file->size() <= size_t(INT_MAX) && parse(stream, model);
  }
  file->releaseAllPages();
  if (!ok) {
    error = "'" + path + "' is not a valid ONNX model (the protobuf is truncated or corrupt" +
            std::string(file->size() > size_t(INT_MAX) && !stripped ? ", or over 2 GiB" : "") +
            ")";
    return false;
  }
  if (!model.has_graph()) {
    error = "'" + path + "' is not an ONNX model: it has no graph";
    return false;
  }
  parsed.file = file;
  parsed.initializerData.clear();
  if (stripped) {
    if (stripper.initializers.size() != size_t(model.graph().initializer_size())) {
      error = "'" + path + "': the initializers found in the file (" +
              std::to_string(stripper.initializers.size()) + ") differ from the parsed ones (" +
              std::to_string(model.graph().initializer_size()) + "); please report this";
      return false;
    }
    parsed.initializerData = std::move(stripper.initializers);
  }
  return true;
}

} // namespace vinci::onnx_import
