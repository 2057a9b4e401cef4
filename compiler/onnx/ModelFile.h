//===- ModelFile.h - an ONNX file read without copying its weights -*- C++ -*-===//
//
// A model file (or an external-data file) is mapped read-only, and the
// protobuf parser is fed the file with the initializers' raw_data payloads
// cut out: the parsed ModelProto holds the graph, and each initializer's
// bytes stay in the mapping, where the importer's weight blobs point. The
// weights are then never copied: they are read from the page cache when a
// pass or the .om writer touches them, and releasePages() drops them from
// the process again (the mapping is private and never written, so that
// only forgets pages the file can give back).
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_COMPILER_ONNX_MODELFILE_H
#define VINCI_COMPILER_ONNX_MODELFILE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace vinci::onnx_import {

/// A whole file mapped read-only (MAP_PRIVATE). Shared by the weight blobs
/// that point into it, so it lives as long as the last of them.
class MappedBytes {
public:
  static std::shared_ptr<MappedBytes> open(const std::string &path, std::string &error);
  ~MappedBytes();
  MappedBytes(const MappedBytes &) = delete;
  MappedBytes &operator=(const MappedBytes &) = delete;

  const char *data() const { return data_; }
  size_t size() const { return size_; }
  const std::string &path() const { return path_; }
  /// Forgets the resident pages wholly inside [data, data + size) if the
  /// range lies in this mapping; they are read from the file again on use.
  void releasePages(const void *data, size_t size) const;
  void releaseAllPages() const;

private:
  MappedBytes(const char *data, size_t size, std::string path)
      : data_(data), size_(size), path_(std::move(path)) {}
  const char *data_;
  size_t size_;
  std::string path_;
};

/// A byte range of a mapped file.
struct MappedRange {
  const MappedBytes *file = nullptr;
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// A parsed model and where its initializers' data is: one entry per
/// initializer of the main graph, in the order ModelProto lists them;
/// nullopt when the data stayed in the protobuf (small, or typed fields).
struct ParsedModel {
  std::shared_ptr<MappedBytes> file;
  std::vector<std::optional<MappedRange>> initializerData;
};

/// Maps and parses `path` into `model`, leaving initializer raw_data of at
/// least kMinMappedBytes in the mapping. Returns false with a one-line
/// message when the file cannot be read or is not an ONNX model.
bool readModelFile(const std::string &path, onnx::ModelProto &model, ParsedModel &parsed,
                   std::string &error);

/// raw_data below this stays in the protobuf: it is small enough to become
/// a dense attribute, and not worth a range.
inline constexpr uint64_t kMinMappedBytes = 4096;

} // namespace vinci::onnx_import

#endif // VINCI_COMPILER_ONNX_MODELFILE_H
