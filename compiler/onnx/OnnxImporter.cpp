//===- OnnxImporter.cpp - ONNX protobuf to vg -----------------------------===//
//
// Reads a ModelProto with libonnx's generated protobuf classes and builds one
// func.func @main of vg ops. Every op is built through `NodeImporter::make`,
// which infers result types, verifies and folds right away: shape arithmetic
// (Shape -> Gather -> Concat -> Reshape) becomes constants as the graph is
// read, so shape-like inputs can be required to be constant.
//
// Weights never pass through text: raw_data strings are moved out of the
// protobuf message into dense_resource blobs, so memory stays near the file's
// size and nothing is copied element by element.
//
//===----------------------------------------------------------------------===//
#include "onnx/OnnxImporter.h"

#include "vg/VgOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <climits>
#include <fstream>
#include <sstream>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>

using namespace mlir;

namespace vinci::onnx_import {
namespace {

/// Initializers up to this many elements become dense attributes (they are
/// folded as shape arithmetic); larger ones are resource blobs.
constexpr int64_t kMaxInlineElements = 256;

/// Opsets whose operator forms the importer knows. Before opset 7 binary
/// ops broadcast only when asked (broadcast=1, optional axis): handled below.
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 18;

//===----------------------------------------------------------------------===//
// Reading the protobuf
//===----------------------------------------------------------------------===//

/// Feeds protobuf the model file from an mmap, one window at a time, and
/// drops each window once the parser has moved past it. Weight bytes are
/// then held once (in the message's strings), not twice, and each weight
/// string is filled from one contiguous buffer instead of 8 KiB reads.
class MappedFileStream : public google::protobuf::io::ZeroCopyInputStream {
public:
  MappedFileStream(const char *data, size_t size) : data(data), size(size) {}

  bool Next(const void **out, int *outSize) override {
    releaseBehind(position);
    if (position >= size)
      return false;
    size_t chunk = std::min(kWindow, size - position);
    *out = data + position;
    *outSize = static_cast<int>(chunk);
    position += chunk;
    return true;
  }
  void BackUp(int count) override { position -= count; }
  bool Skip(int count) override {
    position = std::min(size, position + static_cast<size_t>(count));
    return position < size;
  }
  int64_t ByteCount() const override { return static_cast<int64_t>(position); }

private:
  static constexpr size_t kWindow = size_t(32) << 20;

  void releaseBehind(size_t offset) {
    size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    size_t end = offset / page * page;
    if (end > released) {
      ::madvise(const_cast<char *>(data) + released, end - released, MADV_DONTNEED);
      released = end;
    }
  }

  const char *data;
  size_t size;
  size_t position = 0;
  size_t released = 0;
};

bool loadModel(const std::string &path, onnx::ModelProto &model, std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat info {};
  if (fd < 0 || ::fstat(fd, &info) != 0) {
    error = "cannot open model file '" + path + "': " + std::strerror(errno);
    if (fd >= 0)
      ::close(fd);
    return false;
  }
  size_t size = static_cast<size_t>(info.st_size);
  if (size == 0) {
    ::close(fd);
    error = "'" + path + "' is empty, not an ONNX model";
    return false;
  }
  if (size > static_cast<size_t>(INT_MAX)) {
    ::close(fd);
    error = "'" + path + "' is larger than 2 GiB: keep the weights as ONNX external data";
    return false;
  }
  void *mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapped == MAP_FAILED) {
    error = "cannot read model file '" + path + "': " + std::strerror(errno);
    return false;
  }
  ::madvise(mapped, size, MADV_SEQUENTIAL);
  bool parsed;
  {
    MappedFileStream stream(static_cast<const char *>(mapped), size);
    google::protobuf::io::CodedInputStream coded(&stream);
    coded.SetTotalBytesLimit(INT_MAX);
    parsed = model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  ::munmap(mapped, size);
  if (!parsed) {
    error = "'" + path +
            "' is not a valid ONNX model (the protobuf is truncated or corrupt)";
    return false;
  }
  if (!model.has_graph()) {
    error = "'" + path + "' is not an ONNX model: it has no graph";
    return false;
  }
  return true;
}

int64_t defaultOpset(const onnx::ModelProto &model) {
  for (const auto &entry : model.opset_import())
    if (entry.domain().empty() || entry.domain() == "ai.onnx")
      return entry.version();
  return 1; // ONNX's rule when the default domain is not listed
}

std::string nodeName(const onnx::NodeProto &node, int index) {
  if (!node.name().empty())
    return node.name();
  return node.op_type() + "_" + std::to_string(index);
}

bool isDefaultDomain(const std::string &domain) {
  return domain.empty() || domain == "ai.onnx";
}

//===----------------------------------------------------------------------===//
// Types and tensors
//===----------------------------------------------------------------------===//

Type elementTypeOf(MLIRContext &ctx, int32_t dtype) {
  using T = onnx::TensorProto;
  auto uint = [&](unsigned width) {
    return IntegerType::get(&ctx, width, IntegerType::Unsigned);
  };
  switch (dtype) {
  case T::FLOAT: return Float32Type::get(&ctx);
  case T::FLOAT16: return Float16Type::get(&ctx);
  case T::BFLOAT16: return BFloat16Type::get(&ctx);
  case T::DOUBLE: return Float64Type::get(&ctx);
  case T::INT8: return IntegerType::get(&ctx, 8);
  case T::INT16: return IntegerType::get(&ctx, 16);
  case T::INT32: return IntegerType::get(&ctx, 32);
  case T::INT64: return IntegerType::get(&ctx, 64);
  case T::UINT8: return uint(8);
  case T::UINT16: return uint(16);
  case T::UINT32: return uint(32);
  case T::UINT64: return uint(64);
  case T::BOOL: return IntegerType::get(&ctx, 1);
  default: return {};
  }
}

std::string dtypeName(int32_t dtype) {
  if (onnx::TensorProto_DataType_IsValid(dtype))
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(dtype));
  return "dtype " + std::to_string(dtype);
}

/// Bytes per element as stored in raw_data (bool: one byte).
size_t storageBytes(Type element) {
  if (element.isInteger(1))
    return 1;
  return element.getIntOrFloatBitWidth() / 8;
}

std::string sanitizeBlobName(const std::string &name) {
  std::string out;
  for (char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') ? c : '_';
  return out.empty() ? std::string("weight") : out;
}

/// Converts a TensorProto into an ElementsAttr. Large raw_data is moved into
/// a resource blob without copying; `tensor` is left without its data.
class TensorReader {
public:
  TensorReader(MLIRContext &ctx, std::string modelDir) : ctx(ctx), modelDir(std::move(modelDir)) {}

  FailureOr<ElementsAttr> read(onnx::TensorProto &tensor, const std::string &what,
                               std::string &error) {
    Type element = elementTypeOf(ctx, tensor.data_type());
    if (!element) {
      error = what + " has element type " + dtypeName(tensor.data_type()) +
              ", which Vinci does not support";
      return failure();
    }
    SmallVector<int64_t> shape;
    int64_t count = 1;
    for (int64_t dim : tensor.dims()) {
      if (dim < 0 || (dim > 0 && count > INT64_MAX / dim)) {
        error = what + " has an invalid shape";
        return failure();
      }
      shape.push_back(dim);
      count *= dim;
    }
    auto type = RankedTensorType::get(shape, element);
    size_t elementBytes = storageBytes(element);
    if (static_cast<uint64_t>(count) > (uint64_t(1) << 40) / elementBytes) {
      error = what + " is larger than 1 TiB";
      return failure();
    }
    size_t bytes = static_cast<size_t>(count) * elementBytes;

    if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
      return readExternal(tensor, type, bytes, what, error);

    if (tensor.has_raw_data()) {
      std::string *raw = tensor.mutable_raw_data();
      if (raw->size() != bytes) {
        error = what + " holds " + std::to_string(raw->size()) + " bytes of raw data, expected " +
                std::to_string(bytes) + " for " + typeText(type);
        return failure();
      }
      if (count <= kMaxInlineElements)
        return denseFromBytes(type, ArrayRef<char>(raw->data(), raw->size()));
      auto *owned = new std::string(std::move(*raw));
      raw->clear();
      AsmResourceBlob blob(ArrayRef<char>(owned->data(), owned->size()), alignof(std::max_align_t),
                           [owned](void *, size_t, size_t) { delete owned; },
                           /*dataIsMutable=*/false);
      return ElementsAttr(DenseResourceElementsAttr::get(
          type, sanitizeBlobName(tensor.name().empty() ? what : tensor.name()), std::move(blob)));
    }
    return readTypedFields(tensor, type, count, what, error);
  }

private:
  std::string typeText(Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    return text;
  }

  ElementsAttr denseFromBytes(RankedTensorType type, ArrayRef<char> bytes) {
    if (type.getElementType().isInteger(1)) {
      SmallVector<bool> bits;
      for (char byte : bytes)
        bits.push_back(byte != 0);
      return DenseElementsAttr::get(type, bits);
    }
    return DenseElementsAttr::getFromRawBuffer(type, bytes);
  }

  ElementsAttr fromBuffer(RankedTensorType type, std::vector<char> &&bytes, const std::string &name) {
    if (type.getNumElements() <= kMaxInlineElements)
      return denseFromBytes(type, bytes);
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(bytes.data(), bytes.size()), alignof(std::max_align_t));
    return DenseResourceElementsAttr::get(type, sanitizeBlobName(name), std::move(blob));
  }

  template <typename From, typename To>
  static void appendAs(std::vector<char> &out, const From &values) {
    for (auto value : values) {
      To converted = static_cast<To>(value);
      const char *p = reinterpret_cast<const char *>(&converted);
      out.insert(out.end(), p, p + sizeof(To));
    }
  }

  FailureOr<ElementsAttr> readTypedFields(const onnx::TensorProto &tensor, RankedTensorType type,
                                          int64_t count, const std::string &what,
                                          std::string &error) {
    using T = onnx::TensorProto;
    std::vector<char> bytes;
    int64_t given = 0;
    switch (tensor.data_type()) {
    case T::FLOAT:
      appendAs<decltype(tensor.float_data()), float>(bytes, tensor.float_data());
      given = tensor.float_data_size();
      break;
    case T::DOUBLE:
      appendAs<decltype(tensor.double_data()), double>(bytes, tensor.double_data());
      given = tensor.double_data_size();
      break;
    case T::INT64:
      appendAs<decltype(tensor.int64_data()), int64_t>(bytes, tensor.int64_data());
      given = tensor.int64_data_size();
      break;
    case T::UINT32:
    case T::UINT64:
      if (tensor.data_type() == T::UINT32)
        appendAs<decltype(tensor.uint64_data()), uint32_t>(bytes, tensor.uint64_data());
      else
        appendAs<decltype(tensor.uint64_data()), uint64_t>(bytes, tensor.uint64_data());
      given = tensor.uint64_data_size();
      break;
    case T::INT32:
      appendAs<decltype(tensor.int32_data()), int32_t>(bytes, tensor.int32_data());
      given = tensor.int32_data_size();
      break;
    case T::INT16:
    case T::UINT16:
    case T::FLOAT16:
    case T::BFLOAT16:
      appendAs<decltype(tensor.int32_data()), uint16_t>(bytes, tensor.int32_data());
      given = tensor.int32_data_size();
      break;
    case T::INT8:
    case T::UINT8:
    case T::BOOL:
      appendAs<decltype(tensor.int32_data()), uint8_t>(bytes, tensor.int32_data());
      given = tensor.int32_data_size();
      break;
    default:
      error = what + " has element type " + dtypeName(tensor.data_type()) +
              ", which Vinci does not support";
      return failure();
    }
    if (given != count) {
      error = what + " holds " + std::to_string(given) + " values, expected " +
              std::to_string(count) + " for " + typeText(type);
      return failure();
    }
    return fromBuffer(type, std::move(bytes), tensor.name().empty() ? what : tensor.name());
  }

  FailureOr<ElementsAttr> readExternal(const onnx::TensorProto &tensor, RankedTensorType type,
                                       size_t bytes, const std::string &what, std::string &error) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto &entry : tensor.external_data()) {
      if (entry.key() == "location")
        location = entry.value();
      else if (entry.key() == "offset" || entry.key() == "length") {
        char *end = nullptr;
        long long value = std::strtoll(entry.value().c_str(), &end, 10);
        if (entry.value().empty() || *end != '\0' || value < 0) {
          error = what + " has an invalid external-data " + entry.key() + " '" + entry.value() + "'";
          return failure();
        }
        (entry.key() == "offset" ? offset : length) = value;
      }
    }
    if (location.empty()) {
      error = what + " is stored externally but names no location";
      return failure();
    }
    if (llvm::sys::path::is_absolute(location) || llvm::StringRef(location).contains("..")) {
      error = what + ": external-data location '" + location +
              "' must be a relative path inside the model's folder";
      return failure();
    }
    SmallString<256> path(modelDir);
    llvm::sys::path::append(path, location);
    std::ifstream file(path.str().str(), std::ios::binary);
    if (!file) {
      error = what + ": cannot open external-data file '" + path.str().str() +
              "' (keep it beside the model)";
      return failure();
    }
    file.seekg(0, std::ios::end);
    int64_t fileSize = file.tellg();
    if (length < 0)
      length = fileSize - offset;
    if (static_cast<size_t>(length) != bytes || offset + length > fileSize) {
      error = what + ": external data at offset " + std::to_string(offset) + " (" +
              std::to_string(length) + " bytes) does not hold the " + std::to_string(bytes) +
              " bytes of " + typeText(type) + " in '" + path.str().str() + "'";
      return failure();
    }
    AsmResourceBlob blob = HeapAsmResourceBlob::allocate(bytes, alignof(std::max_align_t));
    file.seekg(offset);
    file.read(blob.getMutableData().data(), static_cast<std::streamsize>(bytes));
    if (!file) {
      error = what + ": reading external data from '" + path.str().str() + "' failed";
      return failure();
    }
    if (type.getNumElements() <= kMaxInlineElements)
      return denseFromBytes(type, blob.getData());
    return ElementsAttr(DenseResourceElementsAttr::get(
        type, sanitizeBlobName(tensor.name().empty() ? what : tensor.name()), std::move(blob)));
  }

  MLIRContext &ctx;
  std::string modelDir;
};

/// Integer values of a constant (dense or resource), or nullopt.
std::optional<SmallVector<int64_t>> readInts(ElementsAttr attr) {
  auto intType = dyn_cast<IntegerType>(attr.getElementType());
  if (!intType)
    return std::nullopt;
  SmallVector<int64_t> values;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    for (const APInt &value : dense.getValues<APInt>())
      values.push_back(intType.isUnsigned() ? int64_t(value.getZExtValue()) : value.getSExtValue());
    return values;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!resource || !resource.getRawHandle().getBlob())
    return std::nullopt;
  ArrayRef<char> data = resource.getRawHandle().getBlob()->getData();
  unsigned width = intType.getWidth();
  if (width != 32 && width != 64)
    return std::nullopt;
  for (size_t offset = 0; offset + width / 8 <= data.size(); offset += width / 8) {
    if (width == 64) {
      int64_t value;
      std::memcpy(&value, data.data() + offset, 8);
      values.push_back(value);
    } else {
      int32_t value;
      std::memcpy(&value, data.data() + offset, 4);
      values.push_back(value);
    }
  }
  return values;
}

std::optional<SmallVector<double>> readReals(ElementsAttr attr) {
  if (auto ints = readInts(attr))
    return SmallVector<double>(ints->begin(), ints->end());
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense || !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  SmallVector<double> values;
  for (const APFloat &value : dense.getValues<APFloat>())
    values.push_back(value.convertToDouble());
  return values;
}

//===----------------------------------------------------------------------===//
// The graph importer
//===----------------------------------------------------------------------===//

class GraphImporter;

/// What a converter sees: one node, its inputs and attributes, and the
/// builder. Errors name the node, op type and opset.
class NodeImporter {
public:
  NodeImporter(GraphImporter &graph, const onnx::NodeProto &node, std::string name,
               int64_t opset);

  const onnx::NodeProto &node;
  std::string name;
  int64_t opset;
  Location loc;
  OpBuilder &builder;

  // Inputs.
  size_t numInputs() const { return node.input_size(); }
  bool has(int i) const { return i < node.input_size() && !node.input(i).empty(); }
  Value in(int i) const;
  RankedTensorType typeOf(int i) const { return cast<RankedTensorType>(in(i).getType()); }
  /// Input i, which must be constant (after folding), as an attribute or values.
  FailureOr<ElementsAttr> constAttr(int i, StringRef what);
  FailureOr<SmallVector<int64_t>> constInts(int i, StringRef what);
  FailureOr<SmallVector<double>> constReals(int i, StringRef what);

  // Attributes.
  const onnx::AttributeProto *attr(StringRef attrName) const;
  bool hasAttr(StringRef attrName) const { return attr(attrName) != nullptr; }
  int64_t attrInt(StringRef attrName, int64_t fallback) const;
  float attrFloat(StringRef attrName, float fallback) const;
  std::string attrString(StringRef attrName, StringRef fallback) const;
  std::optional<SmallVector<int64_t>> attrInts(StringRef attrName) const;
  std::optional<SmallVector<float>> attrFloats(StringRef attrName) const;

  // Building.
  NamedAttribute named(StringRef attrName, Attribute value) {
    return builder.getNamedAttr(attrName, value);
  }
  NamedAttribute i64(StringRef attrName, int64_t value) {
    return named(attrName, builder.getI64IntegerAttr(value));
  }
  NamedAttribute f32(StringRef attrName, float value) {
    return named(attrName, builder.getF32FloatAttr(value));
  }
  NamedAttribute i64s(StringRef attrName, ArrayRef<int64_t> values) {
    return named(attrName, builder.getDenseI64ArrayAttr(values));
  }
  NamedAttribute str(StringRef attrName, StringRef value) {
    return named(attrName, builder.getStringAttr(value));
  }
  /// Creates a vg op, infers and verifies its types and folds it.
  FailureOr<SmallVector<Value>> make(StringRef opName, ValueRange operands,
                                     ArrayRef<NamedAttribute> attrs = {}, unsigned numResults = 1);
  FailureOr<Value> make1(StringRef opName, ValueRange operands,
                         ArrayRef<NamedAttribute> attrs = {}) {
    FailureOr<SmallVector<Value>> results = make(opName, operands, attrs, 1);
    if (failed(results))
      return failure();
    return results->front();
  }
  /// A scalar constant of `element` type (for Gemm's alpha and beta, Mean's 1/n).
  Value scalar(Type element, double value);

  // Results.
  LogicalResult define(ArrayRef<Value> results);
  LogicalResult define(FailureOr<Value> result) {
    return failed(result) ? failure() : define(ArrayRef<Value>{*result});
  }
  LogicalResult define(FailureOr<SmallVector<Value>> results) {
    return failed(results) ? failure() : define(ArrayRef<Value>(*results));
  }
  LogicalResult fail(const Twine &message);
  /// Fails when an output the importer cannot produce is used.
  LogicalResult onlyFirstOutputs(int supported, StringRef what);

  TensorReader &tensors();

private:
  std::string notConstantMessage(int i, StringRef what) const;
  /// Names of the graph inputs `value` is computed from, sorted.
  SmallVector<std::string> graphInputsBehind(Value value) const;

  GraphImporter &graph;
};

using Converter = LogicalResult (*)(NodeImporter &);
const llvm::StringMap<Converter> &converters();

class GraphImporter {
public:
  GraphImporter(MLIRContext &ctx, const std::string &modelPath, std::vector<std::string> &errors)
      : ctx(ctx), builder(&ctx), errors(errors),
        tensors(ctx, llvm::sys::path::parent_path(modelPath).str()) {}

  OwningOpRef<ModuleOp> import(onnx::ModelProto &model, const ImportOptions &options);

  MLIRContext &ctx;
  OpBuilder builder;
  std::vector<std::string> &errors;
  TensorReader tensors;
  llvm::StringMap<Value> values;
  std::string currentNode; // "node 'x' (Op, opset N)" while a node imports

  void error(const Twine &message) { errors.push_back(message.str()); }

private:
  LogicalResult declareInputs(const onnx::GraphProto &graph, const ImportOptions &options,
                              SmallVectorImpl<Type> &types, SmallVectorImpl<std::string> &names,
                              std::map<std::string, ElementsAttr> &bound);
  FailureOr<ElementsAttr> bindInput(const onnx::ValueInfoProto &input, const std::string &path);
  bool checkSupported(const onnx::GraphProto &graph, int64_t opset);
};

NodeImporter::NodeImporter(GraphImporter &graph, const onnx::NodeProto &node, std::string name,
                           int64_t opset)
    : node(node), name(std::move(name)), opset(opset),
      loc(NameLoc::get(StringAttr::get(&graph.ctx, this->name))), builder(graph.builder),
      graph(graph) {}

TensorReader &NodeImporter::tensors() { return graph.tensors; }

std::string NodeImporter::notConstantMessage(int i, StringRef what) const {
  std::string message = what.str() + " (input " + std::to_string(i) + ")";
  if (!has(i))
    return message + " is required";
  message += " must be a constant once input shapes are fixed; '" + node.input(i) + "' ";
  if (isa<BlockArgument>(in(i)))
    return message + "is a graph input: bind its value with --const_input \"" + node.input(i) +
           ":FILE.pb\"";
  // A value computed from graph inputs becomes constant once they are bound.
  SmallVector<std::string> sources = graphInputsBehind(in(i));
  if (sources.size() == 1)
    return message + "is computed from '" + sources.front() + "', and '" + sources.front() +
           "' is a graph input: bind its value with --const_input \"" + sources.front() +
           ":FILE.pb\"";
  if (!sources.empty()) {
    std::string names, binds;
    for (const std::string &source : sources) {
      names += (names.empty() ? "'" : ", '") + source + "'";
      binds += (binds.empty() ? "" : ";") + source + ":FILE.pb";
    }
    return message + "is computed from graph inputs " + names +
           ": bind their values with --const_input \"" + binds + "\"";
  }
  return message + "is computed at run time, which Vinci's static shapes do not allow";
}

SmallVector<std::string> NodeImporter::graphInputsBehind(Value value) const {
  SmallVector<std::string> names;
  SmallVector<Value> work{value};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value next = work.pop_back_val();
    if (!seen.insert(next).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(next)) {
      auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
      if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "vg.name"))
        names.push_back(name.str());
      continue;
    }
    llvm::append_range(work, next.getDefiningOp()->getOperands());
  }
  llvm::sort(names);
  return names;
}

Value NodeImporter::in(int i) const { return graph.values.lookup(node.input(i)); }

FailureOr<ElementsAttr> NodeImporter::constAttr(int i, StringRef what) {
  ElementsAttr attr;
  if (!has(i) || !matchPattern(in(i), m_Constant(&attr))) {
    (void)fail(notConstantMessage(i, what));
    return failure();
  }
  return attr;
}

FailureOr<SmallVector<int64_t>> NodeImporter::constInts(int i, StringRef what) {
  FailureOr<ElementsAttr> attr = constAttr(i, what);
  if (failed(attr))
    return failure();
  if (std::optional<SmallVector<int64_t>> values = readInts(*attr))
    return *values;
  (void)fail(Twine(what) + " (input " + Twine(i) + ") must be an integer tensor");
  return failure();
}

FailureOr<SmallVector<double>> NodeImporter::constReals(int i, StringRef what) {
  FailureOr<ElementsAttr> attr = constAttr(i, what);
  if (failed(attr))
    return failure();
  if (std::optional<SmallVector<double>> values = readReals(*attr))
    return *values;
  (void)fail(Twine(what) + " (input " + Twine(i) + ") must be a numeric constant");
  return failure();
}

const onnx::AttributeProto *NodeImporter::attr(StringRef attrName) const {
  for (const auto &attribute : node.attribute())
    if (attribute.name() == attrName)
      return &attribute;
  return nullptr;
}

int64_t NodeImporter::attrInt(StringRef attrName, int64_t fallback) const {
  const onnx::AttributeProto *a = attr(attrName);
  return a ? a->i() : fallback;
}

float NodeImporter::attrFloat(StringRef attrName, float fallback) const {
  const onnx::AttributeProto *a = attr(attrName);
  return a ? a->f() : fallback;
}

std::string NodeImporter::attrString(StringRef attrName, StringRef fallback) const {
  const onnx::AttributeProto *a = attr(attrName);
  return a ? a->s() : fallback.str();
}

std::optional<SmallVector<int64_t>> NodeImporter::attrInts(StringRef attrName) const {
  const onnx::AttributeProto *a = attr(attrName);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<SmallVector<float>> NodeImporter::attrFloats(StringRef attrName) const {
  const onnx::AttributeProto *a = attr(attrName);
  if (!a)
    return std::nullopt;
  return SmallVector<float>(a->floats().begin(), a->floats().end());
}

FailureOr<SmallVector<Value>> NodeImporter::make(StringRef opName, ValueRange operands,
                                                 ArrayRef<NamedAttribute> attrs,
                                                 unsigned numResults) {
  OperationState state(loc, opName);
  state.addOperands(operands);
  state.addAttributes(attrs);
  // Placeholder result types: the real ones come from the op's inference,
  // which reports bad input as a diagnostic instead of aborting.
  state.addTypes(SmallVector<Type>(numResults, UnrankedTensorType::get(builder.getF32Type())));
  Operation *op = builder.create(state);
  auto inference = dyn_cast<InferTypeOpInterface>(op);
  SmallVector<Type> types;
  if (!inference ||
      failed(inference.inferReturnTypes(&graph.ctx, loc, op->getOperands(),
                                        op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
                                        op->getRegions(), types)) ||
      types.size() != numResults) {
    op->erase();
    if (graph.errors.empty() || graph.errors.back().rfind(graph.currentNode, 0) != 0)
      (void)fail(Twine("cannot build ") + opName);
    return failure();
  }
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    result.setType(type);
  if (failed(mlir::verify(op, /*verifyRecursively=*/false))) {
    op->erase();
    return failure();
  }
  SmallVector<Value> results;
  if (succeeded(builder.tryFold(op, results)) && !results.empty()) {
    op->erase();
    return results;
  }
  // A result without elements is a constant whatever the operands hold; as
  // one it never reaches a kernel (an op left without users is dropped).
  for (Value result : op->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    if (type.hasStaticShape() && type.getNumElements() == 0)
      results.push_back(vg::ConstantOp::create(
          builder, loc, cast<ElementsAttr>(DenseElementsAttr::get(type, ArrayRef<Attribute>{}))));
    else
      results.push_back(result);
  }
  return results;
}

Value NodeImporter::scalar(Type element, double value) {
  auto type = RankedTensorType::get({}, element);
  Attribute attr;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    attr = DenseElementsAttr::get(type, builder.getFloatAttr(floatType, value).getValue());
  } else {
    attr = DenseElementsAttr::get(
        type, APInt(element.getIntOrFloatBitWidth(), static_cast<int64_t>(value), true));
  }
  return vg::ConstantOp::create(builder, loc, cast<ElementsAttr>(attr));
}

LogicalResult NodeImporter::define(ArrayRef<Value> results) {
  for (auto [i, value] : llvm::enumerate(results))
    if (static_cast<int>(i) < node.output_size() && !node.output(i).empty())
      graph.values[node.output(i)] = value;
  return success();
}

LogicalResult NodeImporter::fail(const Twine &message) {
  graph.error(graph.currentNode + ": " + message);
  return failure();
}

LogicalResult NodeImporter::onlyFirstOutputs(int supported, StringRef what) {
  for (int i = supported; i < node.output_size(); ++i)
    if (!node.output(i).empty())
      return fail(Twine("output ") + Twine(i) + " (" + what + ") is not supported");
  return success();
}

//===----------------------------------------------------------------------===//
// Converters, grouped by kind
//===----------------------------------------------------------------------===//

// Ops whose vg form takes the same operands and no attributes.
const llvm::StringMap<StringRef> &directOps() {
  static const llvm::StringMap<StringRef> table = {
      {"Identity", "vg.identity"}, {"Neg", "vg.neg"},
      {"Abs", "vg.abs"},           {"Sqrt", "vg.sqrt"},
      {"Reciprocal", "vg.reciprocal"}, {"Exp", "vg.exp"},
      {"Log", "vg.log"},           {"Tanh", "vg.tanh"},
      {"Erf", "vg.erf"},           {"Sigmoid", "vg.sigmoid"},
      {"Relu", "vg.relu"},         {"HardSwish", "vg.hard_swish"},
      {"Floor", "vg.floor"},       {"Ceil", "vg.ceil"},
      {"Sin", "vg.sin"},           {"Cos", "vg.cos"},
      {"Softplus", "vg.softplus"}, {"Sign", "vg.sign"},
      {"Not", "vg.not"},           {"Add", "vg.add"},
      {"Sub", "vg.sub"},           {"Mul", "vg.mul"},
      {"Div", "vg.div"},           {"Pow", "vg.pow"},
      {"Equal", "vg.equal"},       {"Less", "vg.less"},
      {"LessOrEqual", "vg.less_or_equal"}, {"Greater", "vg.greater"},
      {"GreaterOrEqual", "vg.greater_or_equal"}, {"And", "vg.and"},
      {"Or", "vg.or"},             {"Xor", "vg.xor"},
      {"PRelu", "vg.prelu"},       {"Where", "vg.where"},
      {"GlobalAveragePool", "vg.global_average_pool"},
      {"GlobalMaxPool", "vg.global_max_pool"},
  };
  return table;
}

LogicalResult convertDirect(NodeImporter &n) {
  SmallVector<Value> operands;
  for (int i = 0; i < static_cast<int>(n.numInputs()); ++i)
    operands.push_back(n.in(i));
  // Opset < 7 legacy broadcast: B aligns with A starting at `axis`, which is
  // numpy broadcasting once B gets trailing unit dims. PRelu's 1-D slope
  // applied to the channel dim (axis 1) the same way.
  bool legacyPRelu = n.opset < 7 && n.node.op_type() == "PRelu" && operands.size() == 2 &&
                     n.typeOf(1).getRank() == 1 && n.typeOf(0).getRank() > 2 &&
                     n.typeOf(1).getDimSize(0) != 1;
  if (n.opset < 7 && operands.size() == 2 &&
      ((n.attrInt("broadcast", 0) != 0 && n.hasAttr("axis")) || legacyPRelu)) {
    int64_t lhsRank = n.typeOf(0).getRank();
    RankedTensorType rhs = n.typeOf(1);
    int64_t axis = legacyPRelu ? 1 : n.attrInt("axis", 0);
    if (axis < 0)
      axis += lhsRank;
    int64_t trailing = lhsRank - axis - rhs.getRank();
    if (axis < 0 || trailing < 0)
      return n.fail("legacy broadcast axis " + Twine(n.attrInt("axis", 0)) +
                    " does not fit the operand ranks");
    SmallVector<int64_t> shape(rhs.getShape());
    shape.append(trailing, 1);
    FailureOr<Value> aligned = n.make1("vg.reshape", {operands[1]}, {n.i64s("shape", shape)});
    if (failed(aligned))
      return failure();
    operands[1] = *aligned;
  }
  return n.define(n.make1(directOps().lookup(n.node.op_type()), operands));
}

// x < 0 ? alpha*x : x and friends: copy float attributes with ONNX defaults.
LogicalResult convertFloatAttrUnary(NodeImporter &n) {
  StringRef type = n.node.op_type();
  SmallVector<NamedAttribute> attrs;
  StringRef opName;
  if (type == "LeakyRelu") {
    opName = "vg.leaky_relu";
    attrs.push_back(n.f32("alpha", n.attrFloat("alpha", 0.01f)));
  } else if (type == "HardSigmoid") {
    opName = "vg.hard_sigmoid";
    attrs.push_back(n.f32("alpha", n.attrFloat("alpha", 0.2f)));
    attrs.push_back(n.f32("beta", n.attrFloat("beta", 0.5f)));
  } else if (type == "Elu") {
    opName = "vg.elu";
    attrs.push_back(n.f32("alpha", n.attrFloat("alpha", 1.0f)));
  } else {
    opName = "vg.selu";
    attrs.push_back(n.f32("alpha", n.attrFloat("alpha", 1.67326319217681884765625f)));
    attrs.push_back(n.f32("gamma", n.attrFloat("gamma", 1.05070102214813232421875f)));
  }
  return n.define(n.make1(opName, {n.in(0)}, attrs));
}

// Max/Min/Sum/Mean take any number of inputs: fold them pairwise.
LogicalResult convertVariadic(NodeImporter &n) {
  StringRef type = n.node.op_type();
  StringRef opName = type == "Max" ? "vg.max" : type == "Min" ? "vg.min" : "vg.add";
  if (n.numInputs() == 0)
    return n.fail("needs at least one input");
  FailureOr<Value> acc = n.in(0);
  for (int i = 1; i < static_cast<int>(n.numInputs()) && succeeded(acc); ++i)
    acc = n.make1(opName, {*acc, n.in(i)});
  if (succeeded(acc) && type == "Mean" && n.numInputs() > 1) {
    Type element = cast<RankedTensorType>(acc->getType()).getElementType();
    acc = n.make1("vg.div", {*acc, n.scalar(element, double(n.numInputs()))});
  }
  return n.define(acc);
}

// mod(a, b) keeps the fmod attribute
LogicalResult convertMod(NodeImporter &n) {
  return n.define(n.make1("vg.mod", {n.in(0), n.in(1)}, {n.i64("fmod", n.attrInt("fmod", 0))}));
}

// clip(x, min, max): attributes before opset 11, optional constant inputs after.
LogicalResult convertClip(NodeImporter &n) {
  SmallVector<NamedAttribute> attrs;
  if (n.opset < 11) {
    if (n.hasAttr("min"))
      attrs.push_back(n.named("min", n.builder.getF64FloatAttr(n.attrFloat("min", 0))));
    if (n.hasAttr("max"))
      attrs.push_back(n.named("max", n.builder.getF64FloatAttr(n.attrFloat("max", 0))));
  } else {
    for (auto [i, bound] : llvm::enumerate(std::array<StringRef, 2>{"min", "max"})) {
      if (!n.has(i + 1))
        continue;
      FailureOr<SmallVector<double>> value = n.constReals(i + 1, bound);
      if (failed(value))
        return failure();
      if (value->size() != 1)
        return n.fail(Twine(bound) + " must be a scalar");
      attrs.push_back(n.named(bound, n.builder.getF64FloatAttr(value->front())));
    }
  }
  return n.define(n.make1("vg.clip", {n.in(0)}, attrs));
}

LogicalResult convertCast(NodeImporter &n) {
  int64_t to = n.attrInt("to", 0);
  Type element = elementTypeOf(*n.builder.getContext(), to);
  if (!element)
    return n.fail("cast to " + dtypeName(to) + " is not supported");
  return n.define(n.make1("vg.cast", {n.in(0)}, {n.named("to", TypeAttr::get(element))}));
}

LogicalResult convertDropout(NodeImporter &n) {
  if (n.opset >= 12 && n.has(2)) {
    FailureOr<SmallVector<int64_t>> training = n.constInts(2, "training_mode");
    if (failed(training))
      return failure();
    if (!training->empty() && training->front() != 0)
      return n.fail("training_mode = true is not supported (inference only)");
  }
  FailureOr<Value> output = n.make1("vg.dropout", {n.in(0)});
  if (failed(output))
    return failure();
  if (n.node.output_size() < 2 || n.node.output(1).empty())
    return n.define(output);
  // In inference nothing is dropped: the mask is all true.
  ElementsAttr keep = DenseElementsAttr::get(
      RankedTensorType::get({1}, n.builder.getI1Type()), true);
  FailureOr<Value> mask = n.make1(
      "vg.constant_of_shape", {},
      {n.i64s("shape", n.typeOf(0).getShape()), n.named("value", keep)});
  if (failed(mask))
    return failure();
  return n.define(ArrayRef<Value>{*output, *mask});
}

// gemm(A, B, C) -> alpha * matmul(A', B') + beta * C
LogicalResult convertGemm(NodeImporter &n) {
  FailureOr<Value> product =
      n.make1("vg.matmul", {n.in(0), n.in(1)},
              {n.named("transpose_a", n.builder.getBoolAttr(n.attrInt("transA", 0) != 0)),
               n.named("transpose_b", n.builder.getBoolAttr(n.attrInt("transB", 0) != 0))});
  if (failed(product))
    return failure();
  Type element = cast<RankedTensorType>(product->getType()).getElementType();
  float alpha = n.attrFloat("alpha", 1.0f), beta = n.attrFloat("beta", 1.0f);
  if (alpha != 1.0f)
    product = n.make1("vg.mul", {*product, n.scalar(element, alpha)});
  if (failed(product) || !n.has(2) || beta == 0.0f)
    return n.define(product);
  FailureOr<Value> bias = n.in(2);
  if (beta != 1.0f)
    bias = n.make1("vg.mul", {*bias, n.scalar(element, beta)});
  if (failed(bias))
    return failure();
  return n.define(n.make1("vg.add", {*product, *bias}));
}

LogicalResult convertMatMul(NodeImporter &n) {
  return n.define(n.make1("vg.matmul", {n.in(0), n.in(1)}));
}

/// Window attributes shared by Conv and the pools, copied when present.
void copyWindowAttrs(NodeImporter &n, SmallVectorImpl<NamedAttribute> &attrs, bool dilations) {
  attrs.push_back(n.str("auto_pad", n.attrString("auto_pad", "NOTSET")));
  for (StringRef name : {"kernel_shape", "pads", "strides"})
    if (auto values = n.attrInts(name))
      attrs.push_back(n.i64s(name, *values));
  if (dilations)
    if (auto values = n.attrInts("dilations"))
      attrs.push_back(n.i64s("dilations", *values));
}

LogicalResult convertConv(NodeImporter &n) {
  SmallVector<NamedAttribute> attrs;
  copyWindowAttrs(n, attrs, /*dilations=*/true);
  attrs.push_back(n.i64("group", n.attrInt("group", 1)));
  SmallVector<Value> operands{n.in(0), n.in(1)};
  if (n.has(2))
    operands.push_back(n.in(2));
  return n.define(n.make1("vg.conv", operands, attrs));
}

// conv_transpose(x, w) -> conv(zero_insert(x, strides), flip(w)^T), 2-D: the
// input gets (stride - 1) zeros between its elements, the weight swaps its
// channel dims per group and reverses its window, and the conv (stride 1,
// the same dilation and groups) pads each side by d (k - 1) minus ONNX's
// pads (plus output_padding at the end); a negative pad crops instead.
LogicalResult convertConvTranspose(NodeImporter &n) {
  RankedTensorType xType = n.typeOf(0), wType = n.typeOf(1);
  if (xType.getRank() != 4 || wType.getRank() != 4)
    return n.fail("only 2-D ConvTranspose (4-D input and weight) is supported");
  ArrayRef<int64_t> xs = xType.getShape(), ws = wType.getShape();
  int64_t group = n.attrInt("group", 1);
  int64_t channels = xs[1];
  if (group <= 0 || channels % group != 0 || ws[0] != channels)
    return n.fail("the weight's first dim must be the input's channels, divisible by group");
  auto pair = [&](StringRef name, int64_t fallback) -> FailureOr<std::array<int64_t, 2>> {
    std::optional<SmallVector<int64_t>> values = n.attrInts(name);
    if (!values)
      return std::array<int64_t, 2>{fallback, fallback};
    if (values->size() != 2)
      return failure();
    return std::array<int64_t, 2>{(*values)[0], (*values)[1]};
  };
  auto strides = pair("strides", 1), dilations = pair("dilations", 1),
       outputPadding = pair("output_padding", 0);
  if (failed(strides) || failed(dilations) || failed(outputPadding))
    return n.fail("strides, dilations and output_padding need one value per spatial dim (2)");
  std::array<int64_t, 2> kernel{ws[2], ws[3]}, input{xs[2], xs[3]};
  std::array<int64_t, 4> pads{0, 0, 0, 0}; // begin h, begin w, end h, end w
  if (std::optional<SmallVector<int64_t>> values = n.attrInts("pads")) {
    if (values->size() != 4)
      return n.fail("pads needs 4 values for a 2-D ConvTranspose");
    std::copy(values->begin(), values->end(), pads.begin());
  }
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  std::optional<SmallVector<int64_t>> outputShape = n.attrInts("output_shape");
  if (outputShape && outputShape->size() != 2)
    return n.fail("output_shape needs the 2 spatial dims");
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (!same && autoPad != "NOTSET" && autoPad != "VALID")
    return n.fail("unknown auto_pad '" + autoPad + "'");
  if (outputShape || same) {
    // ONNX: total = s (in - 1) + output_padding + (k - 1) d + 1 - out, split
    // with the larger half at the end for SAME_UPPER (and no auto_pad); an
    // output larger than that is reached by output padding (as onnxruntime
    // does).
    for (int i = 0; i < 2; ++i) {
      int64_t out = outputShape ? (*outputShape)[i] : input[i] * (*strides)[i];
      int64_t total = (*strides)[i] * (input[i] - 1) + (*outputPadding)[i] +
                      (kernel[i] - 1) * (*dilations)[i] + 1 - out;
      if (total < 0) {
        (*outputPadding)[i] -= total;
        total = 0;
      }
      bool upper = autoPad != "SAME_LOWER";
      pads[i] = upper ? total / 2 : total - total / 2;
      pads[i + 2] = total - pads[i];
    }
  }
  Value x = n.in(0);
  // zero_insert: x [N, C, H, W] -> [N, C, H, W, 1], pad the new dim to s,
  // fold it into W and crop the trailing s - 1 zeros; then H the same way.
  for (int dim : {3, 2}) {
    int64_t s = (*strides)[dim - 2];
    if (s == 1)
      continue;
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape(type.getShape());
    SmallVector<int64_t> split(shape.begin(), shape.begin() + dim + 1);
    split.push_back(1);
    split.append(shape.begin() + dim + 1, shape.end());
    SmallVector<int64_t> padAmounts(2 * split.size(), 0);
    padAmounts[split.size() + dim + 1] = s - 1;
    SmallVector<int64_t> merged(shape);
    merged[dim] *= s;
    FailureOr<Value> v = n.make1("vg.reshape", {x}, {n.i64s("shape", split)});
    if (succeeded(v))
      v = n.make1("vg.pad", {*v}, {n.i64s("pads", padAmounts)});
    if (succeeded(v))
      v = n.make1("vg.reshape", {*v}, {n.i64s("shape", merged)});
    if (succeeded(v))
      v = n.make1("vg.slice", {*v},
                  {n.i64s("starts", {0}), n.i64s("ends", {(shape[dim] - 1) * s + 1}),
                   n.i64s("axes", {dim}), n.i64s("steps", {1})});
    if (failed(v))
      return failure();
    x = *v;
  }
  // The conv's pads: d (k - 1) - pad_begin and d (k - 1) - pad_end +
  // output_padding; a negative one crops the zero-inserted input instead.
  SmallVector<int64_t> convPads(4);
  for (int i = 0; i < 2; ++i) {
    int64_t reach = (*dilations)[i] * (kernel[i] - 1);
    int64_t begin = reach - pads[i], end = reach - pads[i + 2] + (*outputPadding)[i];
    int64_t extent = cast<RankedTensorType>(x.getType()).getShape()[i + 2];
    if (begin < 0 || end < 0) {
      FailureOr<Value> cropped = n.make1(
          "vg.slice", {x},
          {n.i64s("starts", {std::max<int64_t>(0, -begin)}),
           n.i64s("ends", {extent - std::max<int64_t>(0, -end)}), n.i64s("axes", {i + 2}),
           n.i64s("steps", {1})});
      if (failed(cropped))
        return failure();
      x = *cropped;
    }
    convPads[i] = std::max<int64_t>(0, begin);
    convPads[i + 2] = std::max<int64_t>(0, end);
  }
  // flip(w)^T: [C, M/g, kh, kw] -> [g, C/g, M/g, kh, kw] -> [g, M/g, C/g, kh,
  // kw] -> [M, C/g, kh, kw], both window dims reversed.
  int64_t perGroupIn = channels / group, perGroupOut = ws[1];
  FailureOr<Value> w = n.make1(
      "vg.reshape", {n.in(1)}, {n.i64s("shape", {group, perGroupIn, perGroupOut, ws[2], ws[3]})});
  if (succeeded(w))
    w = n.make1("vg.transpose", {*w}, {n.i64s("perm", {0, 2, 1, 3, 4})});
  if (succeeded(w))
    w = n.make1("vg.reshape", {*w},
                {n.i64s("shape", {group * perGroupOut, perGroupIn, ws[2], ws[3]})});
  if (succeeded(w))
    w = n.make1("vg.slice", {*w},
                {n.i64s("starts", {-1, -1}), n.i64s("ends", {INT64_MIN, INT64_MIN}),
                 n.i64s("axes", {2, 3}), n.i64s("steps", {-1, -1})});
  if (failed(w))
    return failure();
  SmallVector<Value> operands{x, *w};
  if (n.has(2))
    operands.push_back(n.in(2));
  return n.define(n.make1(
      "vg.conv", operands,
      {n.i64s("pads", convPads), n.i64s("strides", {1, 1}), n.i64s("dilations", *dilations),
       n.i64s("kernel_shape", {ws[2], ws[3]}), n.i64("group", group)}));
}

LogicalResult convertPool(NodeImporter &n) {
  bool isMax = n.node.op_type() == "MaxPool";
  if (isMax && failed(n.onlyFirstOutputs(1, "Indices")))
    return failure();
  if (!n.hasAttr("kernel_shape"))
    return n.fail("kernel_shape is required");
  SmallVector<NamedAttribute> attrs;
  copyWindowAttrs(n, attrs, /*dilations=*/isMax);
  attrs.push_back(n.i64("ceil_mode", n.attrInt("ceil_mode", 0)));
  if (isMax) {
    if (n.attrInt("storage_order", 0) != 0)
      return n.fail("storage_order = 1 is not supported");
  } else {
    attrs.push_back(n.i64("count_include_pad", n.attrInt("count_include_pad", 0)));
  }
  return n.define(n.make1(isMax ? "vg.max_pool" : "vg.average_pool", {n.in(0)}, attrs));
}

LogicalResult convertBatchNorm(NodeImporter &n) {
  if (failed(n.onlyFirstOutputs(1, "training statistics")))
    return failure();
  if (n.attrInt("training_mode", 0) != 0)
    return n.fail("training_mode = 1 is not supported (inference only)");
  if (n.opset < 9 && n.attrInt("spatial", 1) != 1)
    return n.fail("spatial = 0 is not supported");
  return n.define(n.make1("vg.batch_norm", {n.in(0), n.in(1), n.in(2), n.in(3), n.in(4)},
                          {n.f32("epsilon", n.attrFloat("epsilon", 1e-5f))}));
}

// layer_norm(x) -> y; the optional Mean and InvStdDev outputs are computed
// beside it: mean(x), 1 / sqrt(mean((x - mean(x))^2) + eps), over [axis, rank).
LogicalResult convertLayerNorm(NodeImporter &n) {
  SmallVector<Value> operands{n.in(0), n.in(1)};
  if (n.has(2))
    operands.push_back(n.in(2));
  int64_t axis = n.attrInt("axis", -1);
  float epsilon = n.attrFloat("epsilon", 1e-5f);
  FailureOr<Value> y = n.make1("vg.layer_norm", operands,
                               {n.i64("axis", axis), n.f32("epsilon", epsilon)});
  if (failed(y))
    return failure();
  bool wantsStatistics = false;
  for (int i = 1; i < n.node.output_size(); ++i)
    wantsStatistics |= !n.node.output(i).empty();
  if (!wantsStatistics)
    return n.define(y);
  if (n.attrInt("stash_type", 1) != 1)
    return n.fail("stash_type other than 1 (float) is not supported");
  RankedTensorType type = n.typeOf(0);
  int64_t rank = type.getRank(), begin = axis < 0 ? axis + rank : axis;
  SmallVector<int64_t> axes;
  for (int64_t d = begin; d < rank; ++d)
    axes.push_back(d);
  // Statistics are fp32 (stash_type 1) whatever the input type.
  FailureOr<Value> x = n.in(0);
  if (!type.getElementType().isF32())
    x = n.make1("vg.cast", {*x}, {n.named("to", TypeAttr::get(n.builder.getF32Type()))});
  if (failed(x))
    return failure();
  SmallVector<NamedAttribute> reduce{n.i64s("axes", axes), n.i64("keepdims", 1)};
  FailureOr<Value> mean = n.make1("vg.reduce_mean", {*x}, reduce);
  if (failed(mean))
    return failure();
  FailureOr<Value> centered = n.make1("vg.sub", {*x, *mean});
  FailureOr<Value> squared = succeeded(centered) ? n.make1("vg.mul", {*centered, *centered})
                                                 : FailureOr<Value>(failure());
  FailureOr<Value> variance = succeeded(squared) ? n.make1("vg.reduce_mean", {*squared}, reduce)
                                                 : FailureOr<Value>(failure());
  if (failed(variance))
    return failure();
  FailureOr<Value> shifted =
      n.make1("vg.add", {*variance, n.scalar(n.builder.getF32Type(), epsilon)});
  FailureOr<Value> stddev =
      succeeded(shifted) ? n.make1("vg.sqrt", {*shifted}) : FailureOr<Value>(failure());
  FailureOr<Value> invStdDev =
      succeeded(stddev) ? n.make1("vg.reciprocal", {*stddev}) : FailureOr<Value>(failure());
  if (failed(invStdDev))
    return failure();
  return n.define(ArrayRef<Value>{*y, *mean, *invStdDev});
}

// Before opset 13, softmax(x, axis) meant: flatten to 2-D at axis, softmax
// over dim 1, reshape back. Equal to the new form when axis is the last dim.
LogicalResult convertSoftmax(NodeImporter &n) {
  StringRef opName = n.node.op_type() == "Softmax" ? "vg.softmax" : "vg.log_softmax";
  RankedTensorType type = n.typeOf(0);
  int64_t rank = type.getRank();
  int64_t axis = n.attrInt("axis", n.opset >= 13 ? -1 : 1);
  std::optional<int64_t> resolved = vg::normalizeAxis(axis, std::max<int64_t>(rank, 1));
  if (n.opset >= 13 || !resolved || *resolved == rank - 1)
    return n.define(n.make1(opName, {n.in(0)}, {n.i64("axis", axis)}));
  FailureOr<Value> flat = n.make1("vg.flatten", {n.in(0)}, {n.i64("axis", *resolved)});
  if (failed(flat))
    return failure();
  FailureOr<Value> result = n.make1(opName, {*flat}, {n.i64("axis", 1)});
  if (failed(result))
    return failure();
  return n.define(n.make1("vg.reshape", {*result}, {n.i64s("shape", type.getShape())}));
}

/// A Reduce* node's keepdims, noop_with_empty_axes and axes: an attribute,
/// or (ReduceSum from 13, all from 18) an input. `keepdims` overrides the
/// node's (ReduceLogSumExp keeps the max it shifts by).
FailureOr<SmallVector<NamedAttribute>> reduceAttrs(NodeImporter &n,
                                                   std::optional<int64_t> keepdims = {}) {
  SmallVector<NamedAttribute> attrs{n.i64("keepdims", keepdims.value_or(n.attrInt("keepdims", 1))),
                                    n.i64("noop_with_empty_axes",
                                          n.attrInt("noop_with_empty_axes", 0))};
  if (n.has(1)) {
    FailureOr<SmallVector<int64_t>> axes = n.constInts(1, "axes");
    if (failed(axes))
      return failure();
    attrs.push_back(n.i64s("axes", *axes));
  } else if (auto axes = n.attrInts("axes")) {
    attrs.push_back(n.i64s("axes", *axes));
  }
  return attrs;
}

LogicalResult convertReduce(NodeImporter &n) {
  static const llvm::StringMap<StringRef> names = {
      {"ReduceMean", "vg.reduce_mean"}, {"ReduceSum", "vg.reduce_sum"},
      {"ReduceMax", "vg.reduce_max"},   {"ReduceMin", "vg.reduce_min"},
      {"ReduceProd", "vg.reduce_prod"}, {"ReduceL2", "vg.reduce_l2"}};
  FailureOr<SmallVector<NamedAttribute>> attrs = reduceAttrs(n);
  if (failed(attrs))
    return failure();
  // noop_with_empty_axes and no axes: the input unchanged.
  bool noAxes = llvm::none_of(*attrs, [](NamedAttribute attr) {
    return attr.getName() == "axes" && !cast<DenseI64ArrayAttr>(attr.getValue()).empty();
  });
  if (noAxes && n.attrInt("noop_with_empty_axes", 0) != 0)
    return n.define(ArrayRef<Value>{n.in(0)});
  return n.define(n.make1(names.lookup(n.node.op_type()), {n.in(0)}, *attrs));
}

LogicalResult convertArgReduce(NodeImporter &n) {
  return n.define(n.make1(n.node.op_type() == "ArgMax" ? "vg.arg_max" : "vg.arg_min", {n.in(0)},
                          {n.i64("axis", n.attrInt("axis", 0)),
                           n.i64("keepdims", n.attrInt("keepdims", 1)),
                           n.i64("select_last_index", n.attrInt("select_last_index", 0))}));
}

LogicalResult convertTranspose(NodeImporter &n) {
  SmallVector<NamedAttribute> attrs;
  if (auto perm = n.attrInts("perm"))
    attrs.push_back(n.i64s("perm", *perm));
  return n.define(n.make1("vg.transpose", {n.in(0)}, attrs));
}

LogicalResult convertReshape(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> shape = n.opset < 5 && n.hasAttr("shape")
                                              ? FailureOr<SmallVector<int64_t>>(*n.attrInts("shape"))
                                              : n.constInts(1, "shape");
  if (failed(shape))
    return failure();
  return n.define(n.make1("vg.reshape", {n.in(0)},
                          {n.i64s("shape", *shape), n.i64("allowzero", n.attrInt("allowzero", 0))}));
}

LogicalResult convertFlatten(NodeImporter &n) {
  return n.define(n.make1("vg.flatten", {n.in(0)}, {n.i64("axis", n.attrInt("axis", 1))}));
}

// Squeeze/Unsqueeze: axes attribute before opset 13, an input from 13.
LogicalResult convertSqueezeLike(NodeImporter &n) {
  bool squeeze = n.node.op_type() == "Squeeze";
  SmallVector<NamedAttribute> attrs;
  if (n.opset >= 13 && n.has(1)) {
    FailureOr<SmallVector<int64_t>> axes = n.constInts(1, "axes");
    if (failed(axes))
      return failure();
    attrs.push_back(n.i64s("axes", *axes));
  } else if (auto axes = n.attrInts("axes")) {
    attrs.push_back(n.i64s("axes", *axes));
  } else if (!squeeze) {
    return n.fail("axes is required");
  }
  return n.define(n.make1(squeeze ? "vg.squeeze" : "vg.unsqueeze", {n.in(0)}, attrs));
}

LogicalResult convertConcat(NodeImporter &n) {
  SmallVector<Value> operands;
  for (int i = 0; i < static_cast<int>(n.numInputs()); ++i)
    if (n.has(i))
      operands.push_back(n.in(i));
  if (!n.hasAttr("axis"))
    return n.fail("axis is required");
  return n.define(n.make1("vg.concat", operands, {n.i64("axis", n.attrInt("axis", 0))}));
}

// split sizes: attribute (< 13), input (>= 13), or equal parts per output.
LogicalResult convertSplit(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  int64_t axis = n.attrInt("axis", 0);
  std::optional<int64_t> resolved = vg::normalizeAxis(axis, type.getRank());
  if (!resolved)
    return n.fail("axis " + Twine(axis) + " is out of range for rank " + Twine(type.getRank()));
  SmallVector<int64_t> sizes;
  if (n.opset >= 13 && n.has(1)) {
    FailureOr<SmallVector<int64_t>> given = n.constInts(1, "split");
    if (failed(given))
      return failure();
    sizes = *given;
  } else if (auto given = n.attrInts("split")) {
    sizes = *given;
  } else {
    int64_t parts = n.hasAttr("num_outputs") ? n.attrInt("num_outputs", 1) : n.node.output_size();
    int64_t dim = type.getDimSize(*resolved);
    if (parts <= 0 || ShapedType::isDynamic(dim))
      return n.fail("cannot split a dynamic dim into equal parts");
    int64_t chunk = (dim + parts - 1) / parts;
    for (int64_t p = 0; p < parts; ++p)
      sizes.push_back(std::max<int64_t>(std::min(chunk, dim - p * chunk), 0));
  }
  if (static_cast<int>(sizes.size()) != n.node.output_size())
    return n.fail("split has " + Twine(sizes.size()) + " sizes for " +
                  Twine(n.node.output_size()) + " outputs");
  return n.define(n.make("vg.split", {n.in(0)}, {n.i64("axis", axis), n.i64s("split", sizes)},
                         sizes.size()));
}

LogicalResult convertSlice(NodeImporter &n) {
  SmallVector<int64_t> starts, ends, axes, steps;
  if (n.opset < 10) {
    starts = n.attrInts("starts").value_or(SmallVector<int64_t>{});
    ends = n.attrInts("ends").value_or(SmallVector<int64_t>{});
    if (auto given = n.attrInts("axes"))
      axes = *given;
  } else {
    FailureOr<SmallVector<int64_t>> s = n.constInts(1, "starts"), e = n.constInts(2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (n.has(3)) {
      FailureOr<SmallVector<int64_t>> a = n.constInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (n.has(4)) {
      FailureOr<SmallVector<int64_t>> st = n.constInts(4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (int64_t d = 0; d < static_cast<int64_t>(starts.size()); ++d)
      axes.push_back(d);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  return n.define(n.make1("vg.slice", {n.in(0)},
                          {n.i64s("starts", starts), n.i64s("ends", ends), n.i64s("axes", axes),
                           n.i64s("steps", steps)}));
}

LogicalResult convertGather(NodeImporter &n) {
  return n.define(n.make1("vg.gather", {n.in(0), n.in(1)}, {n.i64("axis", n.attrInt("axis", 0))}));
}

LogicalResult convertExpand(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> shape = n.constInts(1, "shape");
  if (failed(shape))
    return failure();
  return n.define(n.make1("vg.expand", {n.in(0)}, {n.i64s("shape", *shape)}));
}

LogicalResult convertTile(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> repeats = n.constInts(1, "repeats");
  if (failed(repeats))
    return failure();
  return n.define(n.make1("vg.tile", {n.in(0)}, {n.i64s("repeats", *repeats)}));
}

// pad: pads and value are attributes before opset 11, inputs from 11.
LogicalResult convertPad(NodeImporter &n) {
  std::string mode = n.attrString("mode", "constant");
  SmallVector<int64_t> pads;
  double value = 0;
  if (n.opset < 11) {
    pads = n.attrInts("pads").value_or(SmallVector<int64_t>{});
    value = n.attrFloat("value", 0.0f);
  } else {
    FailureOr<SmallVector<int64_t>> given = n.constInts(1, "pads");
    if (failed(given))
      return failure();
    pads = *given;
    if (n.has(2)) {
      FailureOr<SmallVector<double>> constant = n.constReals(2, "constant_value");
      if (failed(constant))
        return failure();
      if (!constant->empty())
        value = constant->front();
    }
    if (n.has(3))
      return n.fail("the axes input (opset 18) is not supported; list pads for every dim");
  }
  return n.define(n.make1("vg.pad", {n.in(0)},
                          {n.i64s("pads", pads), n.str("mode", mode),
                           n.named("constant_value", n.builder.getF64FloatAttr(value))}));
}

// resize / upsample -> vg.resize with explicit scales (and sizes when given)
LogicalResult convertResize(NodeImporter &n) {
  bool upsample = n.node.op_type() == "Upsample";
  std::string mode = n.attrString("mode", "nearest");
  if (mode == "bilinear")
    mode = "linear";
  if (mode != "nearest" && mode != "linear")
    return n.fail("mode '" + mode + "' is not supported (supported: nearest, linear)");
  if (n.attrInt("exclude_outside", 0) != 0)
    return n.fail("exclude_outside = 1 is not supported");
  RankedTensorType type = n.typeOf(0);
  SmallVector<float> scales;
  std::optional<SmallVector<int64_t>> sizes;
  // Opset 10 Resize and Upsample: (X, scales); from 11: (X, roi, scales, sizes).
  int scalesInput = (upsample || n.opset < 11) ? 1 : 2;
  if (upsample && n.opset < 9) {
    scales = n.attrFloats("scales").value_or(SmallVector<float>{});
  } else if (n.has(scalesInput)) {
    FailureOr<SmallVector<double>> given = n.constReals(scalesInput, "scales");
    if (failed(given))
      return failure();
    scales.assign(given->begin(), given->end());
  }
  if (!upsample && n.opset >= 11 && n.has(3)) {
    FailureOr<SmallVector<int64_t>> given = n.constInts(3, "sizes");
    if (failed(given))
      return failure();
    sizes = *given;
  }
  if (scales.empty() && sizes) {
    if (static_cast<int64_t>(sizes->size()) != type.getRank())
      return n.fail("sizes must have one entry per input dim");
    for (auto [out, in] : llvm::zip(*sizes, type.getShape()))
      scales.push_back(float(double(out) / double(in)));
  }
  if (scales.empty())
    return n.fail("one of scales or sizes is required");
  std::string transform = n.attrString("coordinate_transformation_mode", "half_pixel");
  std::string nearest = n.attrString("nearest_mode", "round_prefer_floor");
  if (upsample || n.opset < 11) {
    // Opset 10 Resize and Upsample index as out / scale, rounding down.
    transform = "asymmetric";
    nearest = "floor";
  }
  SmallVector<NamedAttribute> attrs{
      n.named("scales", n.builder.getDenseF32ArrayAttr(scales)), n.str("mode", mode),
      n.str("coordinate_transformation_mode", transform), n.str("nearest_mode", nearest),
      n.f32("extrapolation_value", n.attrFloat("extrapolation_value", 0.0f))};
  if (sizes)
    attrs.push_back(n.i64s("sizes", *sizes));
  return n.define(n.make1("vg.resize", {n.in(0)}, attrs));
}

LogicalResult convertShape(NodeImporter &n) {
  SmallVector<NamedAttribute> attrs{n.i64("start", n.attrInt("start", 0))};
  if (n.hasAttr("end"))
    attrs.push_back(n.i64("end", n.attrInt("end", 0)));
  return n.define(n.make1("vg.shape", {n.in(0)}, attrs));
}

//===----------------------------------------------------------------------===//
// Decompositions into vg ops the backend already lowers
//===----------------------------------------------------------------------===//

/// make1 over operands that may have failed, so that a decomposition reads
/// as its formula; the first failure (already reported) passes through.
FailureOr<Value> apply(NodeImporter &n, StringRef opName, ArrayRef<FailureOr<Value>> operands,
                       ArrayRef<NamedAttribute> attrs = {}) {
  SmallVector<Value> values;
  for (const FailureOr<Value> &operand : operands) {
    if (failed(operand))
      return failure();
    values.push_back(*operand);
  }
  return n.make1(opName, values, attrs);
}

Type elementOf(Value value) { return cast<RankedTensorType>(value.getType()).getElementType(); }

/// A constant of `type` from row-major doubles (cast to its element type).
Value constantOf(NodeImporter &n, RankedTensorType type, ArrayRef<double> values) {
  Type element = type.getElementType();
  DenseElementsAttr attr;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> floats;
    for (double value : values) {
      APFloat converted(value);
      bool lost;
      converted.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      floats.push_back(converted);
    }
    attr = DenseElementsAttr::get(type, floats);
  } else {
    unsigned width = element.getIntOrFloatBitWidth();
    SmallVector<APInt> ints;
    for (double value : values)
      ints.push_back(APInt(width, static_cast<int64_t>(value), /*isSigned=*/width > 1));
    attr = DenseElementsAttr::get(type, ints);
  }
  return vg::ConstantOp::create(n.builder, n.loc, cast<ElementsAttr>(attr));
}

// size(x) -> the constant element count (shapes are static)
LogicalResult convertSize(NodeImporter &n) {
  return n.define(ArrayRef<Value>{
      n.scalar(n.builder.getIntegerType(64), double(n.typeOf(0).getNumElements()))});
}

// castlike(x, like) -> cast(x, to = element type of like)
LogicalResult convertCastLike(NodeImporter &n) {
  return n.define(
      n.make1("vg.cast", {n.in(0)}, {n.named("to", TypeAttr::get(n.typeOf(1).getElementType()))}));
}

// reduce_l1(x) -> reduce_sum(|x|); reduce_sum_square(x) -> reduce_sum(x * x);
// reduce_log_sum(x) -> log(reduce_sum(x));
// reduce_log_sum_exp(x) -> m + log(reduce_sum(exp(x - m))), m = reduce_max(x)
// (the shift by the max keeps exp from overflowing).
LogicalResult convertComposedReduce(NodeImporter &n) {
  StringRef type = n.node.op_type();
  FailureOr<SmallVector<NamedAttribute>> attrs = reduceAttrs(n);
  if (failed(attrs))
    return failure();
  Value x = n.in(0);
  if (type == "ReduceL1")
    return n.define(apply(n, "vg.reduce_sum", {apply(n, "vg.abs", {x})}, *attrs));
  if (type == "ReduceSumSquare")
    return n.define(apply(n, "vg.reduce_sum", {apply(n, "vg.mul", {x, x})}, *attrs));
  if (type == "ReduceLogSum")
    return n.define(apply(n, "vg.log", {apply(n, "vg.reduce_sum", {x}, *attrs)}));
  FailureOr<SmallVector<NamedAttribute>> keptAttrs = reduceAttrs(n, /*keepdims=*/1);
  if (failed(keptAttrs))
    return failure();
  FailureOr<Value> max = n.make1("vg.reduce_max", {x}, *keptAttrs);
  FailureOr<Value> sum = apply(
      n, "vg.reduce_sum", {apply(n, "vg.exp", {apply(n, "vg.sub", {x, max})})}, *attrs);
  if (failed(sum))
    return failure();
  // Without keepdims the max is reshaped to the sum's shape to be added back.
  FailureOr<Value> shift = apply(
      n, "vg.reshape", {max},
      {n.i64s("shape", cast<RankedTensorType>(sum->getType()).getShape())});
  return n.define(apply(n, "vg.add", {apply(n, "vg.log", {sum}), shift}));
}

// Elementwise ops with a closed form in lowered vg ops.
LogicalResult convertComposedUnary(NodeImporter &n) {
  StringRef type = n.node.op_type();
  Value x = n.in(0);
  Type element = elementOf(x);
  auto c = [&](double value) { return n.scalar(element, value); };
  if (type == "Softsign") // softsign(x) -> x / (1 + |x|)
    return n.define(apply(n, "vg.div", {x, apply(n, "vg.add", {c(1), apply(n, "vg.abs", {x})})}));
  if (type == "ThresholdedRelu") { // thresholded_relu(x) -> x > alpha ? x : 0
    float alpha = n.attrFloat("alpha", 1.0f);
    return n.define(apply(n, "vg.where", {apply(n, "vg.greater", {x, c(alpha)}), x, c(0)}));
  }
  if (type == "Celu") { // celu(x) -> alpha * elu(x / alpha)
    Value alpha = c(n.attrFloat("alpha", 1.0f));
    return n.define(
        apply(n, "vg.mul", {apply(n, "vg.elu", {apply(n, "vg.div", {x, alpha})}), alpha}));
  }
  if (type == "Shrink") {
    float lambd = n.attrFloat("lambd", 0.5f), bias = n.attrFloat("bias", 0.0f);
    // With bias == lambd (soft shrink) the two branches are ramps:
    // shrink(x) -> relu(x - lambd) - relu(-x - lambd)
    if (bias == lambd && isa<FloatType>(element))
      return n.define(apply(n, "vg.sub",
                            {apply(n, "vg.relu", {apply(n, "vg.sub", {x, c(lambd)})}),
                             apply(n, "vg.relu", {apply(n, "vg.sub", {apply(n, "vg.neg", {x}),
                                                                      c(lambd)})})}));
    // shrink(x) -> x < -lambd ? x + bias : (x > lambd ? x - bias : 0)
    FailureOr<Value> below = bias == 0 ? x : apply(n, "vg.add", {x, c(bias)});
    FailureOr<Value> above = bias == 0 ? x : apply(n, "vg.sub", {x, c(bias)});
    FailureOr<Value> upper =
        apply(n, "vg.where", {apply(n, "vg.greater", {x, c(lambd)}), above, c(0)});
    return n.define(
        apply(n, "vg.where", {apply(n, "vg.less", {x, c(-lambd)}), below, upper}));
  }
  FailureOr<Value> expX = type == "Sinh" || type == "Cosh" ? apply(n, "vg.exp", {x}) : x;
  FailureOr<Value> expNegX =
      type == "Sinh" || type == "Cosh" ? apply(n, "vg.exp", {apply(n, "vg.neg", {x})}) : x;
  if (type == "Sinh") // sinh(x) -> (e^x - e^-x) / 2
    return n.define(apply(n, "vg.mul", {apply(n, "vg.sub", {expX, expNegX}), c(0.5)}));
  if (type == "Cosh") // cosh(x) -> (e^x + e^-x) / 2
    return n.define(apply(n, "vg.mul", {apply(n, "vg.add", {expX, expNegX}), c(0.5)}));
  if (type == "Asinh") {
    // asinh(x) -> a(relu(x)) - a(relu(-x)), a(p) = ln(p + sqrt(p^2 + 1)): a is
    // evaluated on p >= 0 only, where p + sqrt(p^2 + 1) does not cancel.
    auto ramp = [&](FailureOr<Value> p) {
      return apply(n, "vg.log",
                   {apply(n, "vg.add",
                          {p, apply(n, "vg.sqrt",
                                    {apply(n, "vg.add", {apply(n, "vg.mul", {p, p}), c(1)})})})});
    };
    return n.define(apply(n, "vg.sub", {ramp(apply(n, "vg.relu", {x})),
                                        ramp(apply(n, "vg.relu", {apply(n, "vg.neg", {x})}))}));
  }
  if (type == "Acosh") // acosh(x) -> ln(x + sqrt((x - 1) * (x + 1)))
    return n.define(apply(
        n, "vg.log",
        {apply(n, "vg.add",
               {x, apply(n, "vg.sqrt", {apply(n, "vg.mul", {apply(n, "vg.sub", {x, c(1)}),
                                                            apply(n, "vg.add", {x, c(1)})})})})}));
  // atanh(x) -> ln((1 + x) / (1 - x)) / 2
  return n.define(apply(
      n, "vg.mul",
      {apply(n, "vg.log", {apply(n, "vg.div", {apply(n, "vg.add", {c(1), x}),
                                               apply(n, "vg.sub", {c(1), x})})}),
       c(0.5)}));
}

/// Ones of `shape` in `element`: the unit scale of a layer_norm that only
/// normalises.
Value onesOf(NodeImporter &n, ArrayRef<int64_t> shape, Type element) {
  auto type = RankedTensorType::get(shape, element);
  return constantOf(n, type, SmallVector<double>(type.getNumElements(), 1.0));
}

// instance_norm(x, scale, bias) -> layer_norm(x, axis = 2) * scale[c] + bias[c]
// (statistics over the spatial dims of each n, c; scale and bias per channel)
LogicalResult convertInstanceNorm(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  if (type.getRank() < 3)
    return n.fail("input must be N x C x D1 x ... (rank 3 or more), got rank " +
                  Twine(type.getRank()));
  float epsilon = n.attrFloat("epsilon", 1e-5f);
  FailureOr<Value> normalized =
      n.make1("vg.layer_norm",
              {n.in(0), onesOf(n, type.getShape().drop_front(2), type.getElementType())},
              {n.i64("axis", 2), n.f32("epsilon", epsilon)});
  // [C] -> [C, 1, ..., 1] broadcasts along the spatial dims.
  SmallVector<int64_t> channelShape{type.getDimSize(1)};
  channelShape.append(type.getRank() - 2, 1);
  auto perChannel = [&](int i) {
    return n.make1("vg.reshape", {n.in(i)}, {n.i64s("shape", channelShape)});
  };
  return n.define(apply(n, "vg.add",
                        {apply(n, "vg.mul", {normalized, perChannel(1)}), perChannel(2)}));
}

// mvn(x) -> (x - mean(x)) / (sqrt(var(x)) + 1e-9) over `axes`, as
// layer_norm(x) with epsilon 1e-18 under the variance's square root (equal
// at var = 0, within 1e-9 elsewhere) after a transpose that makes the
// reduced dims trailing.
LogicalResult convertMeanVarianceNorm(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes = n.attrInts("axes").value_or(SmallVector<int64_t>{0, 2, 3});
  SmallVector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    std::optional<int64_t> resolved = vg::normalizeAxis(axis, rank);
    if (!resolved)
      return n.fail("axis " + Twine(axis) + " is out of range for rank " + Twine(rank));
    reduced[*resolved] = true;
  }
  SmallVector<int64_t> perm, inverse(rank);
  for (bool wanted : {false, true})
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d] == wanted)
        perm.push_back(d);
  for (int64_t d = 0; d < rank; ++d)
    inverse[perm[d]] = d;
  int64_t kept = llvm::count(reduced, false);
  bool identity = llvm::equal(perm, llvm::seq<int64_t>(0, rank));
  FailureOr<Value> x = n.in(0);
  if (!identity)
    x = n.make1("vg.transpose", {*x}, {n.i64s("perm", perm)});
  if (failed(x))
    return failure();
  FailureOr<Value> y = n.make1(
      "vg.layer_norm",
      {*x, onesOf(n, cast<RankedTensorType>(x->getType()).getShape().drop_front(kept),
                  type.getElementType())},
      {n.i64("axis", kept), n.f32("epsilon", 1e-18f)});
  if (!identity)
    y = apply(n, "vg.transpose", {y}, {n.i64s("perm", inverse)});
  return n.define(y);
}

// trilu(x, k) -> x * mask, mask[i, j] = (j - i >= k) for upper, (j - i <= k)
// for lower: a constant 0/1 matrix over the last two dims, broadcast over
// the batch dims (so inf * 0 gives NaN where numpy's triu gives 0).
LogicalResult convertTrilu(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  if (type.getRank() < 2)
    return n.fail("input must have rank 2 or more, got rank " + Twine(type.getRank()));
  int64_t k = 0;
  if (n.has(1)) {
    FailureOr<SmallVector<int64_t>> given = n.constInts(1, "k");
    if (failed(given))
      return failure();
    if (given->size() != 1)
      return n.fail("k must be a scalar");
    k = given->front();
  }
  bool upper = n.attrInt("upper", 1) != 0;
  int64_t rows = type.getDimSize(type.getRank() - 2), cols = type.getDimSize(type.getRank() - 1);
  SmallVector<double> mask;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      mask.push_back((upper ? j - i >= k : j - i <= k) ? 1.0 : 0.0);
  Value maskValue =
      constantOf(n, RankedTensorType::get({rows, cols}, type.getElementType()), mask);
  return n.define(n.make1("vg.mul", {n.in(0), maskValue}));
}

// eye_like(x) -> the constant y[i, j] = (j - i == k) of x's shape
LogicalResult convertEyeLike(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  if (type.getRank() != 2)
    return n.fail("input must be 2-D, got rank " + Twine(type.getRank()));
  Type element = type.getElementType();
  if (n.hasAttr("dtype")) {
    element = elementTypeOf(*n.builder.getContext(), n.attrInt("dtype", 0));
    if (!element)
      return n.fail("dtype " + dtypeName(n.attrInt("dtype", 0)) + " is not supported");
  }
  int64_t k = n.attrInt("k", 0);
  SmallVector<double> eye;
  for (int64_t i = 0; i < type.getDimSize(0); ++i)
    for (int64_t j = 0; j < type.getDimSize(1); ++j)
      eye.push_back(j - i == k ? 1.0 : 0.0);
  return n.define(ArrayRef<Value>{constantOf(n, type.clone(element), eye)});
}

// depth_to_space(x) (DCR) -> reshape [N, b, b, C/b^2, H, W], transpose
// [0, 3, 4, 1, 5, 2], reshape [N, C/b^2, H*b, W*b]; CRD splits C as
// [C/b^2, b, b] and transposes [0, 1, 4, 2, 5, 3].
// space_to_depth(x) -> reshape [N, C, H/b, b, W/b, b], transpose
// [0, 3, 5, 1, 2, 4], reshape [N, C*b^2, H/b, W/b].
LogicalResult convertDepthSpace(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  int64_t b = n.attrInt("blocksize", 0);
  if (!n.hasAttr("blocksize") || b <= 0)
    return n.fail("blocksize must be a positive integer");
  if (type.getRank() != 4)
    return n.fail("input must be N x C x H x W, got rank " + Twine(type.getRank()));
  int64_t N = type.getDimSize(0), C = type.getDimSize(1), H = type.getDimSize(2),
          W = type.getDimSize(3);
  SmallVector<int64_t> split, perm, result;
  if (n.node.op_type() == "DepthToSpace") {
    if (C % (b * b) != 0)
      return n.fail("channels (" + Twine(C) + ") must be a multiple of blocksize^2 (" +
                    Twine(b * b) + ")");
    std::string mode = n.attrString("mode", "DCR");
    if (mode == "DCR") {
      split = {N, b, b, C / (b * b), H, W};
      perm = {0, 3, 4, 1, 5, 2};
    } else if (mode == "CRD") {
      split = {N, C / (b * b), b, b, H, W};
      perm = {0, 1, 4, 2, 5, 3};
    } else {
      return n.fail("mode '" + mode + "' is not DCR or CRD");
    }
    result = {N, C / (b * b), H * b, W * b};
  } else {
    if (H % b != 0 || W % b != 0)
      return n.fail("height and width (" + Twine(H) + ", " + Twine(W) +
                    ") must be multiples of blocksize " + Twine(b));
    split = {N, C, H / b, b, W / b, b};
    perm = {0, 3, 5, 1, 2, 4};
    result = {N, C * b * b, H / b, W / b};
  }
  FailureOr<Value> blocks = n.make1("vg.reshape", {n.in(0)}, {n.i64s("shape", split)});
  FailureOr<Value> moved = apply(n, "vg.transpose", {blocks}, {n.i64s("perm", perm)});
  return n.define(apply(n, "vg.reshape", {moved}, {n.i64s("shape", result)}));
}

// lrn(x) -> x / (bias + alpha * mean_c(x^2))^beta, the mean over a window of
// `size` channels (zero padded; ONNX's alpha / size * sum), taken as an
// average pool of x^2 viewed as [N, 1, C, rest] with a size x 1 window.
LogicalResult convertLrn(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  if (type.getRank() < 3)
    return n.fail("input must be N x C x D1 x ... (rank 3 or more), got rank " +
                  Twine(type.getRank()));
  if (!n.hasAttr("size") || n.attrInt("size", 0) <= 0)
    return n.fail("size must be a positive integer");
  int64_t size = n.attrInt("size", 0);
  float alpha = n.attrFloat("alpha", 1e-4f), beta = n.attrFloat("beta", 0.75f),
        bias = n.attrFloat("bias", 1.0f);
  Value x = n.in(0);
  Type element = type.getElementType();
  int64_t N = type.getDimSize(0), C = type.getDimSize(1);
  int64_t rest = type.getNumElements() / std::max<int64_t>(N * C, 1);
  FailureOr<Value> squares = apply(n, "vg.reshape", {apply(n, "vg.mul", {x, x})},
                                   {n.i64s("shape", {N, 1, C, rest})});
  FailureOr<Value> windowMean = apply(
      n, "vg.average_pool", {squares},
      {n.i64s("kernel_shape", {size, 1}), n.i64s("pads", {(size - 1) / 2, 0, size / 2, 0}),
       n.i64("count_include_pad", 1)});
  FailureOr<Value> denominator = apply(
      n, "vg.pow",
      {apply(n, "vg.add", {n.scalar(element, bias),
                           apply(n, "vg.mul", {windowMean, n.scalar(element, alpha)})}),
       n.scalar(element, beta)});
  FailureOr<Value> reshaped =
      apply(n, "vg.reshape", {denominator}, {n.i64s("shape", type.getShape())});
  return n.define(apply(n, "vg.div", {x, reshaped}));
}

// hardmax(x) -> cast(float(arg_max(x, axis)) == iota(axis)): 1 at the first
// maximum along the axis, 0 elsewhere; before opset 13 over x flattened to
// 2-D at axis (as Softmax), then reshaped back. The index is compared in x's
// float type, the form the elementwise template takes (exact up to 2048
// positions in fp16).
LogicalResult convertHardmax(NodeImporter &n) {
  RankedTensorType type = n.typeOf(0);
  int64_t rank = type.getRank();
  int64_t axis = n.attrInt("axis", n.opset >= 13 ? -1 : 1);
  std::optional<int64_t> resolved = vg::normalizeAxis(axis, std::max<int64_t>(rank, 1));
  if (!resolved || rank == 0)
    return n.fail("axis " + Twine(axis) + " is out of range for rank " + Twine(rank));
  FailureOr<Value> x = n.in(0);
  int64_t along = *resolved;
  bool flattened = n.opset < 13 && along != rank - 1;
  if (flattened) {
    x = n.make1("vg.flatten", {*x}, {n.i64("axis", along)});
    along = 1;
  }
  if (failed(x))
    return failure();
  RankedTensorType work = cast<RankedTensorType>(x->getType());
  int64_t length = work.getDimSize(along);
  SmallVector<int64_t> iotaShape(work.getRank(), 1);
  iotaShape[along] = length;
  SmallVector<double> positions;
  for (int64_t k = 0; k < length; ++k)
    positions.push_back(double(k));
  TypeAttr element = TypeAttr::get(type.getElementType());
  Value iota = constantOf(n, RankedTensorType::get(iotaShape, type.getElementType()), positions);
  FailureOr<Value> index = apply(
      n, "vg.cast",
      {n.make1("vg.arg_max", {*x}, {n.i64("axis", along), n.i64("keepdims", 1)})},
      {n.named("to", element)});
  FailureOr<Value> y =
      apply(n, "vg.cast", {apply(n, "vg.equal", {index, iota})}, {n.named("to", element)});
  if (flattened)
    y = apply(n, "vg.reshape", {y}, {n.i64s("shape", type.getShape())});
  return n.define(y);
}

// gather_elements(data, idx, axis) -> gather(flatten(data), flat) with
// flat = (idx < 0 ? idx + d : idx) * stride(axis) + base, base holding the
// offset of each index position's other coordinates in data.
LogicalResult convertGatherElements(NodeImporter &n) {
  RankedTensorType data = n.typeOf(0), indices = n.typeOf(1);
  int64_t rank = data.getRank();
  if (indices.getRank() != rank || rank == 0)
    return n.fail("data and indices must have the same rank (1 or more), got " + Twine(rank) +
                  " and " + Twine(indices.getRank()));
  int64_t axis = n.attrInt("axis", 0);
  std::optional<int64_t> resolved = vg::normalizeAxis(axis, rank);
  if (!resolved)
    return n.fail("axis " + Twine(axis) + " is out of range for rank " + Twine(rank));
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * data.getDimSize(d + 1);
  for (int64_t d = 0; d < rank; ++d)
    if (d != *resolved && indices.getDimSize(d) > data.getDimSize(d))
      return n.fail("indices dim " + Twine(d) + " (" + Twine(indices.getDimSize(d)) +
                    ") exceeds data's (" + Twine(data.getDimSize(d)) + ")");
  SmallVector<double> base;
  SmallVector<int64_t> position(rank, 0);
  for (int64_t flat = 0; flat < indices.getNumElements(); ++flat) {
    int64_t offset = 0;
    for (int64_t d = 0, rest = flat; d < rank; ++d) {
      int64_t inner = 1;
      for (int64_t e = d + 1; e < rank; ++e)
        inner *= indices.getDimSize(e);
      position[d] = rest / inner;
      rest %= inner;
      if (d != *resolved)
        offset += position[d] * strides[d];
    }
    base.push_back(double(offset));
  }
  Value idx = n.in(1);
  Type indexType = indices.getElementType();
  auto c = [&](double value) { return n.scalar(indexType, value); };
  FailureOr<Value> wrapped =
      apply(n, "vg.where",
            {apply(n, "vg.less", {idx, c(0)}),
             apply(n, "vg.add", {idx, c(double(data.getDimSize(*resolved)))}), idx});
  if (strides[*resolved] != 1)
    wrapped = apply(n, "vg.mul", {wrapped, c(double(strides[*resolved]))});
  FailureOr<Value> flatIndex = apply(n, "vg.add", {wrapped, constantOf(n, indices, base)});
  FailureOr<Value> table =
      n.make1("vg.reshape", {n.in(0)}, {n.i64s("shape", {data.getNumElements()})});
  return n.define(apply(n, "vg.gather", {table, flatIndex}, {n.i64("axis", 0)}));
}

/// One Einsum operand while it is rewritten: its value and one label a dim.
struct EinsumTerm {
  Value value;
  std::string labels;
};

/// Einsum's labels of one term, "..." spelled as digits (one a dim it
/// covers) so that every dim has one character. Empty on a malformed term.
std::optional<std::string> einsumLabels(StringRef term, int64_t rank) {
  std::string labels;
  size_t ellipsis = term.find("...");
  std::string letters = term.str();
  if (ellipsis != StringRef::npos)
    letters.erase(ellipsis, 3);
  if (!llvm::all_of(letters, [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  int64_t covered = rank - static_cast<int64_t>(letters.size());
  if (covered < 0 || (covered > 0 && ellipsis == StringRef::npos) || covered > 10)
    return std::nullopt;
  for (size_t i = 0; i < term.size();) {
    if (term.substr(i).starts_with("...")) {
      for (int64_t d = 0; d < covered; ++d)
        labels += char('0' + d);
      i += 3;
    } else {
      labels += term[i++];
    }
  }
  return labels;
}

// einsum: a label repeated within a term takes the diagonal (multiply by an
// identity mask, sum one of the two dims); labels in no other term and not
// in the output are summed; two terms contract as a batched matmul
// [batch, left, summed] x [batch, summed, right]; a transpose gives the
// output's order.
LogicalResult convertEinsum(NodeImporter &n) {
  std::string equation;
  for (char c : n.attrString("equation", ""))
    if (c != ' ')
      equation += c;
  StringRef text(equation);
  auto [inputsText, outputText] = text.split("->");
  bool explicitOutput = text.contains("->");
  SmallVector<StringRef> termTexts;
  inputsText.split(termTexts, ',');
  if (termTexts.size() != n.numInputs())
    return n.fail("equation '" + equation + "' has " + Twine(termTexts.size()) +
                  " terms for " + Twine(n.numInputs()) + " inputs");
  if (termTexts.size() > 2)
    return n.fail("equation '" + equation + "' has " + Twine(termTexts.size()) +
                  " operands; Vinci takes one or two: split it into pairwise Einsum nodes");
  SmallVector<EinsumTerm> terms;
  for (auto [i, termText] : llvm::enumerate(termTexts)) {
    std::optional<std::string> labels = einsumLabels(termText, n.typeOf(i).getRank());
    if (!labels)
      return n.fail("term '" + termText + "' does not match input " + Twine(i) + " of rank " +
                    Twine(n.typeOf(i).getRank()));
    terms.push_back({n.in(i), *labels});
  }
  std::string output;
  if (explicitOutput) {
    int64_t ellipsisDims = 0;
    for (const EinsumTerm &term : terms)
      ellipsisDims = std::max<int64_t>(
          ellipsisDims, llvm::count_if(term.labels, [](char c) { return std::isdigit(c); }));
    std::optional<std::string> labels =
        einsumLabels(outputText, static_cast<int64_t>(outputText.size()) -
                                     (outputText.contains("...") ? 3 - ellipsisDims : 0));
    if (!labels)
      return n.fail("output term '" + outputText + "' is malformed");
    output = *labels;
  } else {
    // Implicit output: the ellipsis dims, then the labels used once, sorted.
    std::map<char, int> uses;
    for (const EinsumTerm &term : terms)
      for (char c : term.labels)
        ++uses[c];
    for (auto [c, count] : uses)
      if (std::isdigit(c) || count == 1)
        output += c;
  }
  auto dimOf = [&](const EinsumTerm &term, size_t d) {
    return cast<RankedTensorType>(term.value.getType()).getDimSize(d);
  };
  auto transposeTo = [&](EinsumTerm &term, StringRef order) -> LogicalResult {
    if (term.labels == order)
      return success();
    SmallVector<int64_t> perm;
    for (char c : order)
      perm.push_back(static_cast<int64_t>(term.labels.find(c)));
    FailureOr<Value> moved = n.make1("vg.transpose", {term.value}, {n.i64s("perm", perm)});
    if (failed(moved))
      return failure();
    term = {*moved, order.str()};
    return success();
  };
  for (auto [t, term] : llvm::enumerate(terms)) {
    // Diagonals: x[.., i, .., i', ..] * eye(i, i') summed over i'.
    for (size_t p = 0; p < term.labels.size(); ++p) {
      size_t q;
      while ((q = term.labels.find(term.labels[p], p + 1)) != std::string::npos) {
        int64_t size = dimOf(term, p);
        if (dimOf(term, q) != size)
          return n.fail("label '" + Twine(term.labels[p]) + "' has sizes " + Twine(size) +
                        " and " + Twine(dimOf(term, q)) + " in one term");
        SmallVector<int64_t> maskShape(term.labels.size(), 1);
        maskShape[p] = maskShape[q] = size;
        SmallVector<double> eye;
        for (int64_t i = 0; i < size; ++i)
          for (int64_t j = 0; j < size; ++j)
            eye.push_back(i == j ? 1.0 : 0.0);
        Type element = elementOf(term.value);
        FailureOr<Value> masked = apply(
            n, "vg.mul", {term.value, constantOf(n, RankedTensorType::get(maskShape, element), eye)});
        FailureOr<Value> diagonal =
            apply(n, "vg.reduce_sum", {masked},
                  {n.i64s("axes", {static_cast<int64_t>(q)}), n.i64("keepdims", 0)});
        if (failed(diagonal))
          return failure();
        term.value = *diagonal;
        term.labels.erase(q, 1);
      }
    }
    // Labels that no other term and not the output use are summed now.
    SmallVector<int64_t> summed;
    std::string kept;
    for (auto [d, c] : llvm::enumerate(term.labels)) {
      bool elsewhere = output.find(c) != std::string::npos ||
                       (terms.size() == 2 && terms[1 - t].labels.find(c) != std::string::npos);
      if (elsewhere)
        kept += c;
      else
        summed.push_back(static_cast<int64_t>(d));
    }
    if (!summed.empty()) {
      FailureOr<Value> reduced = n.make1("vg.reduce_sum", {term.value},
                                         {n.i64s("axes", summed), n.i64("keepdims", 0)});
      if (failed(reduced))
        return failure();
      term = {*reduced, kept};
    }
  }
  EinsumTerm result = terms.front();
  if (terms.size() == 2) {
    std::string batch, left, contracted, right;
    for (char c : terms[0].labels)
      (terms[1].labels.find(c) == std::string::npos ? left
       : output.find(c) != std::string::npos        ? batch
                                                    : contracted) += c;
    for (char c : terms[1].labels)
      if (terms[0].labels.find(c) == std::string::npos)
        right += c;
    for (char c : batch + contracted)
      if (dimOf(terms[0], terms[0].labels.find(c)) != dimOf(terms[1], terms[1].labels.find(c)))
        return n.fail("label '" + Twine(c) + "' has different sizes in the two terms "
                      "(broadcasting is not supported)");
    auto extent = [&](const EinsumTerm &term, StringRef labels) {
      int64_t size = 1;
      for (char c : labels)
        size *= dimOf(term, term.labels.find(c));
      return size;
    };
    SmallVector<int64_t> resultShape;
    for (char c : batch + left)
      resultShape.push_back(dimOf(terms[0], terms[0].labels.find(c)));
    for (char c : right)
      resultShape.push_back(dimOf(terms[1], terms[1].labels.find(c)));
    int64_t batchSize = extent(terms[0], batch), m = extent(terms[0], left),
            k = extent(terms[0], contracted), cols = extent(terms[1], right);
    if (failed(transposeTo(terms[0], batch + left + contracted)) ||
        failed(transposeTo(terms[1], batch + contracted + right)))
      return failure();
    FailureOr<Value> product = apply(
        n, "vg.matmul",
        {n.make1("vg.reshape", {terms[0].value}, {n.i64s("shape", {batchSize, m, k})}),
         n.make1("vg.reshape", {terms[1].value}, {n.i64s("shape", {batchSize, k, cols})})});
    FailureOr<Value> shaped = apply(n, "vg.reshape", {product}, {n.i64s("shape", resultShape)});
    if (failed(shaped))
      return failure();
    result = {*shaped, batch + left + right};
  }
  if (result.labels.size() != output.size() ||
      !llvm::all_of(output, [&](char c) { return result.labels.find(c) != std::string::npos; }))
    return n.fail("output term '" + outputText + "' names labels the inputs do not have");
  if (failed(transposeTo(result, output)))
    return failure();
  return n.define(ArrayRef<Value>{result.value});
}

// Windows of `size` points, N = size (periodic) or size - 1 (symmetric):
// hann(k) -> 1/2 - 1/2 cos(2 pi k / N), hamming(k) -> 25/46 - 21/46 cos(2 pi k / N),
// blackman(k) -> 0.42 - 0.5 cos(2 pi k / N) + 0.08 cos(4 pi k / N); a constant
// once size is.
LogicalResult convertWindow(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> size = n.constInts(0, "size");
  if (failed(size))
    return failure();
  if (size->size() != 1 || size->front() < 0)
    return n.fail("size must be a non-negative scalar");
  int64_t outputType = n.attrInt("output_datatype", onnx::TensorProto::FLOAT);
  Type element = elementTypeOf(*n.builder.getContext(), outputType);
  if (!element)
    return n.fail("output_datatype " + dtypeName(outputType) + " is not supported");
  StringRef type = n.node.op_type();
  double a0 = type == "HannWindow" ? 0.5 : type == "HammingWindow" ? 25.0 / 46.0 : 0.42;
  double a1 = type == "BlackmanWindow" ? 0.5 : 1.0 - a0;
  double a2 = type == "BlackmanWindow" ? 0.08 : 0.0;
  int64_t count = size->front();
  // A symmetric window of one point has N = 0: its one angle is taken as 0.
  double period = n.attrInt("periodic", 1) != 0 ? double(count) : double(count - 1);
  SmallVector<double> window;
  for (int64_t k = 0; k < count; ++k) {
    double angle = period > 0 ? 2.0 * M_PI * double(k) / period : 0.0;
    window.push_back(a0 - a1 * std::cos(angle) + a2 * std::cos(2.0 * angle));
  }
  return n.define(
      ArrayRef<Value>{constantOf(n, RankedTensorType::get({count}, element), window)});
}

LogicalResult convertConstantOfShape(NodeImporter &n);
LogicalResult convertRange(NodeImporter &n);
LogicalResult convertConstant(NodeImporter &n);

const llvm::StringMap<Converter> &converters() {
  static const llvm::StringMap<Converter> table = [] {
    llvm::StringMap<Converter> map;
    for (const auto &entry : directOps())
      map[entry.getKey()] = convertDirect;
    for (StringRef op : {"LeakyRelu", "HardSigmoid", "Elu", "Selu"})
      map[op] = convertFloatAttrUnary;
    for (StringRef op : {"Max", "Min", "Sum", "Mean"})
      map[op] = convertVariadic;
    for (StringRef op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
                         "ReduceL2"})
      map[op] = convertReduce;
    map["Mod"] = convertMod;
    map["Clip"] = convertClip;
    map["Cast"] = convertCast;
    map["Dropout"] = convertDropout;
    map["MatMul"] = convertMatMul;
    map["Gemm"] = convertGemm;
    map["Conv"] = convertConv;
    map["ConvTranspose"] = convertConvTranspose;
    map["MaxPool"] = convertPool;
    map["AveragePool"] = convertPool;
    map["BatchNormalization"] = convertBatchNorm;
    map["LayerNormalization"] = convertLayerNorm;
    map["Softmax"] = convertSoftmax;
    map["LogSoftmax"] = convertSoftmax;
    map["ArgMax"] = convertArgReduce;
    map["ArgMin"] = convertArgReduce;
    map["Transpose"] = convertTranspose;
    map["Reshape"] = convertReshape;
    map["Flatten"] = convertFlatten;
    map["Squeeze"] = convertSqueezeLike;
    map["Unsqueeze"] = convertSqueezeLike;
    map["Concat"] = convertConcat;
    map["Split"] = convertSplit;
    map["Slice"] = convertSlice;
    map["Gather"] = convertGather;
    map["Expand"] = convertExpand;
    map["Tile"] = convertTile;
    map["Pad"] = convertPad;
    map["Resize"] = convertResize;
    map["Upsample"] = convertResize;
    map["Shape"] = convertShape;
    map["ConstantOfShape"] = convertConstantOfShape;
    map["Range"] = convertRange;
    map["Constant"] = convertConstant;
    map["Size"] = convertSize;
    map["CastLike"] = convertCastLike;
    for (StringRef op : {"ReduceL1", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"})
      map[op] = convertComposedReduce;
    for (StringRef op : {"Softsign", "ThresholdedRelu", "Celu", "Shrink", "Sinh", "Cosh", "Asinh",
                         "Acosh", "Atanh"})
      map[op] = convertComposedUnary;
    map["InstanceNormalization"] = convertInstanceNorm;
    map["MeanVarianceNormalization"] = convertMeanVarianceNorm;
    map["Trilu"] = convertTrilu;
    map["EyeLike"] = convertEyeLike;
    map["DepthToSpace"] = convertDepthSpace;
    map["SpaceToDepth"] = convertDepthSpace;
    map["LRN"] = convertLrn;
    map["Hardmax"] = convertHardmax;
    map["GatherElements"] = convertGatherElements;
    map["Einsum"] = convertEinsum;
    for (StringRef op : {"HannWindow", "HammingWindow", "BlackmanWindow"})
      map[op] = convertWindow;
    return map;
  }();
  return table;
}

} // namespace

//===----------------------------------------------------------------------===//
// Constants (need the tensor reader, so they live with the importer)
//===----------------------------------------------------------------------===//

namespace {
LogicalResult convertConstant(NodeImporter &n) {
  ElementsAttr value;
  MLIRContext *ctx = n.builder.getContext();
  if (n.node.attribute_size() != 1)
    return n.fail("needs exactly one value attribute");
  const onnx::AttributeProto &a = n.node.attribute(0);
  if (a.name() == "value") {
    onnx::TensorProto tensor = a.t();
    std::string error;
    FailureOr<ElementsAttr> read =
        n.tensors().read(tensor, "Constant '" + n.name + "'", error);
    if (failed(read))
      return n.fail(error);
    value = *read;
  } else if (a.name() == "value_float") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, Float32Type::get(ctx)), a.f());
  } else if (a.name() == "value_int") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, IntegerType::get(ctx, 64)),
                                   static_cast<int64_t>(a.i()));
  } else if (a.name() == "value_floats") {
    SmallVector<float> floats(a.floats().begin(), a.floats().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(floats.size())}, Float32Type::get(ctx)), ArrayRef(floats));
  } else if (a.name() == "value_ints") {
    SmallVector<int64_t> ints(a.ints().begin(), a.ints().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(ints.size())}, IntegerType::get(ctx, 64)), ArrayRef(ints));
  } else {
    return n.fail("attribute '" + a.name() + "' is not supported (string and sparse constants)");
  }
  return n.define(ArrayRef<Value>{vg::ConstantOp::create(n.builder, n.loc, value)});
}

LogicalResult convertConstantOfShape(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> shape = n.constInts(0, "shape");
  if (failed(shape))
    return failure();
  ElementsAttr value = DenseElementsAttr::get(
      RankedTensorType::get({1}, Float32Type::get(n.builder.getContext())), 0.0f);
  if (const onnx::AttributeProto *a = n.attr("value")) {
    onnx::TensorProto tensor = a->t();
    std::string error;
    FailureOr<ElementsAttr> read = n.tensors().read(tensor, "value", error);
    if (failed(read))
      return n.fail(error);
    value = *read;
  }
  return n.define(n.make1("vg.constant_of_shape", {},
                          {n.i64s("shape", *shape), n.named("value", value)}));
}

LogicalResult convertRange(NodeImporter &n) {
  SmallVector<NamedAttribute> attrs;
  for (auto [i, name] : llvm::enumerate(std::array<StringRef, 3>{"start", "limit", "delta"})) {
    FailureOr<ElementsAttr> attr = n.constAttr(i, name);
    if (failed(attr))
      return failure();
    attrs.push_back(n.named(name, *attr));
  }
  return n.define(n.make1("vg.range", {}, attrs));
}

} // namespace

//===----------------------------------------------------------------------===//
// Graph import
//===----------------------------------------------------------------------===//

bool GraphImporter::checkSupported(const onnx::GraphProto &graph, int64_t opset) {
  bool ok = true;
  std::map<std::string, int> unsupported;
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    if (isDefaultDomain(node.domain()) && converters().count(node.op_type()))
      continue;
    std::string domain = isDefaultDomain(node.domain()) ? "" : node.domain() + ".";
    error("node '" + nodeName(node, i) + "' (" + domain + node.op_type() + ", opset " +
          std::to_string(opset) + "): unsupported operator");
    ++unsupported[domain + node.op_type()];
    ok = false;
  }
  if (!ok) {
    std::string summary;
    for (const auto &[op, count] : unsupported)
      summary += (summary.empty() ? "" : ", ") + op + " x" + std::to_string(count);
    error("the model uses unsupported operators (" + summary +
          "); run vinci-compile --check_support for the full report");
  }
  return ok;
}

FailureOr<ElementsAttr> GraphImporter::bindInput(const onnx::ValueInfoProto &input,
                                                 const std::string &path) {
  std::string what = "--const_input '" + input.name() + "'";
  onnx::TensorProto tensor;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error(what + ": cannot open '" + path + "'");
    return failure();
  }
  if (!tensor.ParseFromIstream(&file)) {
    error(what + ": '" + path + "' is not an ONNX TensorProto (.pb) file");
    return failure();
  }
  const auto &declared = input.type().tensor_type();
  if (declared.elem_type() != tensor.data_type()) {
    error(what + ": '" + path + "' holds " + dtypeName(tensor.data_type()) +
          " but the input is " + dtypeName(declared.elem_type()));
    return failure();
  }
  std::string readError;
  FailureOr<ElementsAttr> value = tensors.read(tensor, what, readError);
  if (failed(value)) {
    error(readError);
    return failure();
  }
  return value;
}

LogicalResult GraphImporter::declareInputs(const onnx::GraphProto &graph,
                                           const ImportOptions &options,
                                           SmallVectorImpl<Type> &types,
                                           SmallVectorImpl<std::string> &names,
                                           std::map<std::string, ElementsAttr> &bound) {
  std::set<std::string> initializers;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());
  std::set<std::string> declared;
  bool ok = true;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializers.count(input.name()))
      continue; // IR < 4 lists initializers as inputs too
    declared.insert(input.name());
    if (!input.type().has_tensor_type()) {
      error("input '" + input.name() + "' is not a tensor; only tensor inputs are supported");
      ok = false;
      continue;
    }
    if (auto path = options.constInputs.find(input.name()); path != options.constInputs.end()) {
      FailureOr<ElementsAttr> value = bindInput(input, path->second);
      if (failed(value))
        ok = false;
      else
        bound[input.name()] = *value;
      continue;
    }
    const auto &tensorType = input.type().tensor_type();
    Type element = elementTypeOf(ctx, tensorType.elem_type());
    if (!element) {
      error("input '" + input.name() + "' has element type " +
            dtypeName(tensorType.elem_type()) + ", which Vinci does not support");
      ok = false;
      continue;
    }
    SmallVector<int64_t> shape;
    auto fixed = options.inputShapes.find(input.name());
    if (fixed != options.inputShapes.end()) {
      if (tensorType.has_shape() &&
          tensorType.shape().dim_size() != static_cast<int>(fixed->second.size())) {
        error("--input_shape gives input '" + input.name() + "' " +
              std::to_string(fixed->second.size()) + " dims, but the model declares " +
              std::to_string(tensorType.shape().dim_size()));
        ok = false;
        continue;
      }
      for (auto [d, dim] : llvm::enumerate(fixed->second)) {
        const auto *declaredDim =
            tensorType.has_shape() ? &tensorType.shape().dim(d) : nullptr;
        if (declaredDim && declaredDim->has_dim_value() && declaredDim->dim_value() != dim) {
          error("--input_shape gives input '" + input.name() + "' dim " + std::to_string(d) +
                " = " + std::to_string(dim) + ", but the model fixes it to " +
                std::to_string(declaredDim->dim_value()));
          ok = false;
        }
      }
      shape.assign(fixed->second.begin(), fixed->second.end());
    } else if (!tensorType.has_shape()) {
      error("input '" + input.name() +
            "' has no declared shape: give it with --input_shape \"" + input.name() +
            ":d0,d1,...\"");
      ok = false;
      continue;
    } else {
      for (int d = 0; d < tensorType.shape().dim_size(); ++d) {
        const auto &dim = tensorType.shape().dim(d);
        if (dim.has_dim_value() && dim.dim_value() >= 0) {
          shape.push_back(dim.dim_value());
          continue;
        }
        std::string symbol = dim.has_dim_param() ? " ('" + dim.dim_param() + "')" : "";
        error("input '" + input.name() + "' dim " + std::to_string(d) + symbol +
              " is dynamic: fix it with --input_shape \"" + input.name() + ":...\" (all " +
              std::to_string(tensorType.shape().dim_size()) + " dims, comma-separated)");
        ok = false;
        break;
      }
      if (!ok)
        continue;
    }
    types.push_back(RankedTensorType::get(shape, element));
    names.push_back(input.name());
  }
  std::string known;
  for (const std::string &input : declared)
    known += (known.empty() ? "" : ", ") + input;
  for (const auto &[name, dims] : options.inputShapes)
    if (!declared.count(name)) {
      error("--input_shape names '" + name + "', which is not an input of the model (inputs: " +
            known + ")");
      ok = false;
    }
  for (const auto &[name, path] : options.constInputs)
    if (!declared.count(name)) {
      error("--const_input names '" + name + "', which is not an input of the model (inputs: " +
            known + ")");
      ok = false;
    }
  return success(ok);
}

OwningOpRef<ModuleOp> GraphImporter::import(onnx::ModelProto &model,
                                            const ImportOptions &options) {
  onnx::GraphProto &graph = *model.mutable_graph();
  int64_t opset = defaultOpset(model);
  if (opset < kMinOpset || opset > kMaxOpset) {
    error("the model uses ONNX opset " + std::to_string(opset) + "; Vinci supports opsets " +
          std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
          " (convert it with onnx.version_converter)");
    return nullptr;
  }
  bool supported = checkSupported(graph, opset);

  SmallVector<Type> inputTypes;
  SmallVector<std::string> inputNames;
  std::map<std::string, ElementsAttr> boundInputs;
  if (failed(declareInputs(graph, options, inputTypes, inputNames, boundInputs)) || !supported)
    return nullptr;

  Location modelLoc = NameLoc::get(StringAttr::get(&ctx, graph.name()));
  OwningOpRef<ModuleOp> module = ModuleOp::create(modelLoc);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, modelLoc, "main",
                                   builder.getFunctionType(inputTypes, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  for (auto [i, name] : llvm::enumerate(inputNames)) {
    values[name] = body->getArgument(i);
    func.setArgAttr(i, "vg.name", builder.getStringAttr(name));
  }
  for (const auto &[name, value] : boundInputs)
    values[name] = vg::ConstantOp::create(builder, NameLoc::get(StringAttr::get(&ctx, name)), value);

  for (onnx::TensorProto &init : *graph.mutable_initializer()) {
    std::string readError;
    FailureOr<ElementsAttr> value =
        tensors.read(init, "initializer '" + init.name() + "'", readError);
    if (failed(value)) {
      error(readError);
      return nullptr;
    }
    Location loc = NameLoc::get(StringAttr::get(&ctx, init.name()));
    values[init.name()] = vg::ConstantOp::create(builder, loc, *value);
  }

  // Diagnostics from inference and verification become one-line errors
  // prefixed with the node being imported.
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      error(currentNode + ": " + diag.str());
    return success();
  });

  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    std::string name = nodeName(node, i);
    currentNode = "node '" + name + "' (" + node.op_type() + ", opset " + std::to_string(opset) + ")";
    bool inputsReady = true;
    for (const std::string &input : node.input())
      if (!input.empty() && !values.count(input)) {
        error(currentNode + ": input '" + input +
              "' is not produced by any earlier node, initializer or graph input (the graph "
              "must be topologically sorted)");
        inputsReady = false;
      }
    NodeImporter nodeImporter(*this, node, name, opset);
    if (!inputsReady || failed(converters().lookup(node.op_type())(nodeImporter)))
      return nullptr;
  }

  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    Value value = values.lookup(output.name());
    if (!value) {
      error("graph output '" + output.name() + "' is not produced by any node");
      return nullptr;
    }
    results.push_back(value);
  }
  func::ReturnOp::create(builder, modelLoc, results);
  // Folding leaves the constants and shape arithmetic it consumed behind, and
  // a graph may compute values nobody uses: vg ops are pure, so drop them.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
    if (isa<vg::VGDialect>(op.getDialect()) && op.use_empty())
      op.erase();
  func.setType(builder.getFunctionType(inputTypes, ValueRange(results).getTypes()));
  for (auto [i, output] : llvm::enumerate(graph.output()))
    func.setResultAttr(i, "vg.name", builder.getStringAttr(output.name()));
  if (failed(mlir::verify(*module))) {
    error("the imported module does not verify (an importer bug: please report it)");
    return nullptr;
  }
  return module;
}

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

bool SupportReport::allSupported() const {
  return std::all_of(ops.begin(), ops.end(), [](const OpSupport &op) { return op.supported; });
}

std::string parseInputShapes(const std::string &text,
                             std::map<std::string, std::vector<int64_t>> &shapes) {
  std::stringstream entries(text);
  std::string entry;
  while (std::getline(entries, entry, ';')) {
    if (entry.empty())
      continue;
    size_t colon = entry.rfind(':');
    if (colon == std::string::npos || colon == 0)
      return "--input_shape entry '" + entry + "' is not name:d0,d1,... (e.g. \"x:1,3,224,224\")";
    std::string name = entry.substr(0, colon);
    std::vector<int64_t> dims;
    std::stringstream dimText(entry.substr(colon + 1));
    std::string dim;
    while (std::getline(dimText, dim, ',')) {
      char *end = nullptr;
      errno = 0;
      long long value = std::strtoll(dim.c_str(), &end, 10);
      if (dim.empty() || *end != '\0' || errno != 0 || value < 0)
        return "--input_shape dim '" + dim + "' of input '" + name +
               "' is not a non-negative integer";
      dims.push_back(value);
    }
    if (shapes.count(name))
      return "--input_shape names input '" + name + "' twice";
    shapes[name] = std::move(dims);
  }
  if (shapes.empty())
    return "--input_shape is empty; expected name:d0,d1,...[;name2:...]";
  return "";
}

std::string parseConstInputs(const std::string &text, std::map<std::string, std::string> &inputs) {
  std::stringstream entries(text);
  std::string entry;
  while (std::getline(entries, entry, ';')) {
    if (entry.empty())
      continue;
    size_t colon = entry.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == entry.size())
      return "--const_input entry '" + entry + "' is not name:FILE.pb";
    std::string name = entry.substr(0, colon);
    if (inputs.count(name))
      return "--const_input names input '" + name + "' twice";
    inputs[name] = entry.substr(colon + 1);
  }
  if (inputs.empty())
    return "--const_input is empty; expected name:FILE.pb[;name2:FILE2.pb]";
  return "";
}

OwningOpRef<ModuleOp> importOnnxFile(MLIRContext &context, const std::string &path,
                                     const ImportOptions &options,
                                     std::vector<std::string> &errors) {
  context.loadDialect<vg::VGDialect, func::FuncDialect>();
  onnx::ModelProto model;
  std::string error;
  if (!loadModel(path, model, error)) {
    errors.push_back(error);
    return nullptr;
  }
  GraphImporter importer(context, path, errors);
  return importer.import(model, options);
}

bool checkOnnxSupport(const std::string &path, SupportReport &report, std::string &error) {
  onnx::ModelProto model;
  if (!loadModel(path, model, error))
    return false;
  int64_t opset = defaultOpset(model);
  std::map<std::string, OpSupport> rows;
  for (const onnx::NodeProto &node : model.graph().node()) {
    std::string key = (isDefaultDomain(node.domain()) ? "" : node.domain() + ".") + node.op_type();
    OpSupport &row = rows[key];
    row.opType = node.op_type();
    row.domain = node.domain();
    row.opset = opset;
    row.supported = isDefaultDomain(node.domain()) && converters().count(node.op_type()) &&
                    opset >= kMinOpset && opset <= kMaxOpset;
    ++row.count;
  }
  for (auto &entry : rows)
    report.ops.push_back(std::move(entry.second));
  return true;
}

std::vector<std::string> supportedOnnxOps() {
  std::vector<std::string> ops;
  for (const auto &entry : converters())
    ops.push_back(entry.getKey().str());
  std::sort(ops.begin(), ops.end());
  return ops;
}

} // namespace vinci::onnx_import
