//===- OnnxImporter.cpp - ONNX protobuf to vg -----------------------------===//
//
// Reads a ModelProto with libonnx's generated protobuf classes and builds one
// func.func @main of vg ops, through one converter per op type: the families
// live in their own files (Importer.h lists them), this file reads the
// protobuf, owns the graph importer and assembles the converter table. Every op is built through `NodeImporter::make`,
// which infers result types, verifies and folds right away: shape arithmetic
// (Shape -> Gather -> Concat -> Reshape) becomes constants as the graph is
// read, so shape-like inputs can be required to be constant.
//
// Weights are never copied: initializers' raw_data stays in the memory-mapped
// file (ModelFile.h), and dense_resource blobs point into the mapping, as
// they do into mapped external-data files. An OnnxModel reads the file and
// its weights once and imports any number of graphs from it (one per gear),
// all sharing the same weight attributes.
//
//===----------------------------------------------------------------------===//
#include "onnx/OnnxImporter.h"
#include "onnx/Importer.h"
#include "onnx/ModelFile.h"

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

#include <sys/stat.h>

#include <array>
#include <climits>
#include <fstream>
#include <sstream>

#include <onnx/onnx_pb.h>

using namespace mlir;


namespace vinci::onnx_import {
namespace {

/// Opsets whose operator forms the importer knows. Before opset 7 binary
/// ops broadcast only when asked (broadcast=1, optional axis): handled below.
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 18;

//===----------------------------------------------------------------------===//
// Reading the protobuf
//===----------------------------------------------------------------------===//

bool loadModel(const std::string &path, onnx::ModelProto &model, ParsedModel &parsed,
               std::string &error) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && info.st_size == 0) {
    error = "'" + path + "' is empty, not an ONNX model";
    return false;
  }
  return readModelFile(path, model, parsed, error);
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

} // namespace

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

/// Converts a TensorProto into an ElementsAttr. Data left in a mapped file
/// (the model's initializers, external data) becomes a resource blob that
/// points into the mapping; large raw_data still in the protobuf is moved
/// into a blob without copying, and `tensor` is left without its data.
class TensorReader {
public:
  TensorReader(MLIRContext &ctx, std::string modelDir, std::shared_ptr<MappedBytes> modelFile)
      : ctx(ctx), modelDir(std::move(modelDir)), modelFile(std::move(modelFile)) {}

  /// read() once per tensor of the model: every later call (the graph of
  /// another gear) gets the same attribute, so all graphs share the weights.
  FailureOr<ElementsAttr> readOnce(onnx::TensorProto &tensor, const std::string &what,
                                   std::string &error,
                                   const std::optional<MappedRange> &data = std::nullopt) {
    if (auto found = cache.find(&tensor); found != cache.end())
      return found->second;
    FailureOr<ElementsAttr> value = read(tensor, what, error, data);
    if (succeeded(value))
      cache[&tensor] = *value;
    return value;
  }
  /// The same for a tensor the caller cannot give up (a Constant node's
  /// attribute): read from a copy.
  FailureOr<ElementsAttr> readOnce(const onnx::TensorProto &tensor, const std::string &what,
                                   std::string &error) {
    if (auto found = cache.find(&tensor); found != cache.end())
      return found->second;
    onnx::TensorProto copy = tensor;
    FailureOr<ElementsAttr> value = read(copy, what, error);
    if (succeeded(value))
      cache[&tensor] = *value;
    return value;
  }

  /// Drops the resident pages of mapped weights in [data, data + size)
  /// (all of them when `data` is null); they are read again on use.
  void releasePages(const void *data, size_t size) const {
    for (const MappedBytes *file : mappedFiles()) {
      if (data)
        file->releasePages(data, size);
      else
        file->releaseAllPages();
    }
  }

  FailureOr<ElementsAttr> read(onnx::TensorProto &tensor, const std::string &what,
                               std::string &error,
                               const std::optional<MappedRange> &data = std::nullopt) {
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
    if (data && tensor.raw_data().empty()) {
      if (data->size != bytes) {
        error = what + " holds " + std::to_string(data->size) + " bytes of raw data, expected " +
                std::to_string(bytes) + " for " + typeText(type);
        return failure();
      }
      return mappedBlob(type, modelFile, data->offset, bytes,
                        tensor.name().empty() ? what : tensor.name());
    }

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
    std::shared_ptr<MappedBytes> file = externalFiles[path.str().str()];
    if (!file) {
      std::string openError;
      file = MappedBytes::open(path.str().str(), openError);
      if (!file) {
        externalFiles.erase(path.str().str());
        error = what + ": cannot open external-data file '" + path.str().str() +
                "' (keep it beside the model)";
        return failure();
      }
      externalFiles[path.str().str()] = file;
    }
    int64_t fileSize = static_cast<int64_t>(file->size());
    if (length < 0)
      length = fileSize - offset;
    if (static_cast<size_t>(length) != bytes || offset > fileSize || length > fileSize - offset) {
      error = what + ": external data at offset " + std::to_string(offset) + " (" +
              std::to_string(length) + " bytes) does not hold the " + std::to_string(bytes) +
              " bytes of " + typeText(type) + " in '" + path.str().str() + "'";
      return failure();
    }
    if (type.getNumElements() <= kMaxInlineElements)
      return denseFromBytes(type, ArrayRef<char>(file->data() + offset, bytes));
    return mappedBlob(type, file, uint64_t(offset), bytes,
                      tensor.name().empty() ? what : tensor.name());
  }

  /// A blob over `size` bytes at `offset` of a mapped file, which it keeps
  /// mapped. The bytes are at any offset the file put them: alignment 1, and
  /// every reader of blob data in Vinci copies it out with memcpy.
  ElementsAttr mappedBlob(RankedTensorType type, const std::shared_ptr<MappedBytes> &file,
                          uint64_t offset, size_t size, const std::string &name) {
    std::shared_ptr<MappedBytes> keep = file;
    AsmResourceBlob blob(ArrayRef<char>(file->data() + offset, size), /*dataAlignment=*/1,
                         [keep](void *, size_t, size_t) {}, /*dataIsMutable=*/false);
    return DenseResourceElementsAttr::get(type, sanitizeBlobName(name), std::move(blob));
  }

  std::vector<const MappedBytes *> mappedFiles() const {
    std::vector<const MappedBytes *> files;
    if (modelFile)
      files.push_back(modelFile.get());
    for (const auto &[path, file] : externalFiles)
      files.push_back(file.get());
    return files;
  }

  MLIRContext &ctx;
  std::string modelDir;
  std::shared_ptr<MappedBytes> modelFile;
  std::map<std::string, std::shared_ptr<MappedBytes>> externalFiles;
  llvm::DenseMap<const onnx::TensorProto *, ElementsAttr> cache;
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



class GraphImporter {
public:
  /// `initializerData`: where the file reader left each initializer's data.
  GraphImporter(MLIRContext &ctx, TensorReader &tensors,
                const std::vector<std::optional<MappedRange>> &initializerData,
                std::vector<std::string> &errors)
      : ctx(ctx), builder(&ctx), errors(errors), tensors(tensors),
        initializerData(initializerData) {}

  OwningOpRef<ModuleOp> import(onnx::ModelProto &model, const ImportOptions &options);

  MLIRContext &ctx;
  OpBuilder builder;
  std::vector<std::string> &errors;
  TensorReader &tensors;
  const std::vector<std::optional<MappedRange>> &initializerData;
  llvm::StringMap<Value> values;
  std::string currentNode; // "node 'x' (Op, opset N)" while a node imports
  /// f32 inputs that --input_fp16_nodes makes fp16 in the signature.
  std::set<std::string> widenedInputs;

  void error(const Twine &message) { errors.push_back(message.str()); }

private:
  LogicalResult declareInputs(const onnx::GraphProto &graph, const ImportOptions &options,
                              SmallVectorImpl<Type> &types, SmallVectorImpl<std::string> &names,
                              std::map<std::string, ElementsAttr> &bound);
  FailureOr<ElementsAttr> bindInput(const onnx::ValueInfoProto &input, const std::string &path);
  bool checkSupported(const onnx::GraphProto &graph, int64_t opset);
  std::string resolveTensor(const onnx::GraphProto &graph, const std::string &spec,
                            StringRef option);
  LogicalResult selectOutputs(const onnx::GraphProto &graph, const ImportOptions &options,
                              SmallVectorImpl<Value> &results,
                              SmallVectorImpl<std::string> &names);
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
// Shared by the decompositions (declared in Importer.h)
//===----------------------------------------------------------------------===//

/// make1 over operands that may have failed, so that a decomposition reads
/// as its formula; the first failure (already reported) passes through.
FailureOr<Value> apply(NodeImporter &n, StringRef opName, ArrayRef<FailureOr<Value>> operands,
                       ArrayRef<NamedAttribute> attrs) {
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

/// Ones of `shape` in `element`: the unit scale of a layer_norm that only
/// normalises.
Value onesOf(NodeImporter &n, ArrayRef<int64_t> shape, Type element) {
  auto type = RankedTensorType::get(shape, element);
  return constantOf(n, type, SmallVector<double>(type.getNumElements(), 1.0));
}

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
    std::string error;
    FailureOr<ElementsAttr> read = n.tensors().readOnce(a.t(), "Constant '" + n.name + "'", error);
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
// The converter table
//===----------------------------------------------------------------------===//

const ConverterTable &converters() {
  static const ConverterTable table = [] {
    ConverterTable map;
    populateElementwiseConverters(map);
    populateLinalgConverters(map);
    populateQuantConverters(map);
    populateEinsumConverter(map);
    populateConvConverters(map);
    populateConvTransposeConverter(map);
    populateNormConverters(map);
    populateDataMovementConverters(map);
    populateShapeConverters(map);
    map["Constant"] = convertConstant;
    map["ConstantOfShape"] = convertConstantOfShape;
    map["Range"] = convertRange;
    return map;
  }();
  return table;
}

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
    if (llvm::is_contained(options.fp16Inputs, input.name())) {
      if (!element.isF32() && !element.isF16()) {
        error("--input_fp16_nodes names '" + input.name() + "', an input of element type " +
              dtypeName(tensorType.elem_type()) + ": only float inputs are fed as fp16");
        ok = false;
        continue;
      }
      if (element.isF32())
        widenedInputs.insert(input.name());
      element = Float16Type::get(&ctx);
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
  for (const std::string &name : options.fp16Inputs)
    if (!declared.count(name)) {
      error("--input_fp16_nodes names '" + name +
            "', which is not an input of the model (inputs: " + known + ")");
      ok = false;
    }
  return success(ok);
}

/// The tensor --out_nodes or --output_type names with `spec`: a tensor's
/// name (tried first: exporters name tensors "out:0" too) or "node:index",
/// an output of the node of that name; "" after an error.
std::string GraphImporter::resolveTensor(const onnx::GraphProto &graph, const std::string &spec,
                                         StringRef option) {
  if (values.count(spec))
    return spec;
  size_t colon = spec.rfind(':');
  std::string node = colon == std::string::npos ? spec : spec.substr(0, colon);
  std::string index = colon == std::string::npos ? "" : spec.substr(colon + 1);
  for (int i = 0; i < graph.node_size(); ++i) {
    if (nodeName(graph.node(i), i) != node)
      continue;
    const onnx::NodeProto &proto = graph.node(i);
    if (index.empty() ||
        !llvm::all_of(index, [](char c) { return c >= '0' && c <= '9'; })) {
      error(option + " '" + spec + "': name node '" + node + "' with an output index, as in '" +
            node + ":0'");
      return "";
    }
    int64_t k = std::stoll(index);
    if (k >= proto.output_size() || proto.output(k).empty()) {
      error(option + " '" + spec + "': node '" + node + "' (" + proto.op_type() + ") has " +
            std::to_string(proto.output_size()) + " output(s)");
      return "";
    }
    return proto.output(k);
  }
  error(option + " '" + spec + "' names no node (node:index) and no tensor of the model");
  return "";
}

/// The graph function's results: the graph's outputs, or --out_nodes in
/// their place; each cast to the --output_type asked for it.
LogicalResult GraphImporter::selectOutputs(const onnx::GraphProto &graph,
                                           const ImportOptions &options,
                                           SmallVectorImpl<Value> &results,
                                           SmallVectorImpl<std::string> &names) {
  for (const std::string &spec : options.outNodes) {
    std::string tensor = resolveTensor(graph, spec, "--out_nodes");
    if (tensor.empty())
      return failure();
    if (!values.lookup(tensor)) {
      error("--out_nodes '" + spec + "': tensor '" + tensor + "' is not computed by the model");
      return failure();
    }
    names.push_back(tensor);
  }
  if (options.outNodes.empty())
    for (const onnx::ValueInfoProto &output : graph.output())
      names.push_back(output.name());
  for (const std::string &name : names) {
    Value value = values.lookup(name);
    if (!value) {
      error("graph output '" + name + "' is not produced by any node");
      return failure();
    }
    results.push_back(value);
  }
  // --output_type: one type for every float output, then per output.
  std::vector<std::string> wanted(results.size());
  for (const auto &[spec, type] : options.outputTypes) {
    if (spec.empty()) {
      std::fill(wanted.begin(), wanted.end(), type);
      continue;
    }
    std::string tensor = resolveTensor(graph, spec, "--output_type");
    if (tensor.empty())
      return failure();
    auto found = llvm::find(names, tensor);
    if (found == names.end()) {
      std::string known;
      for (const std::string &name : names)
        known += (known.empty() ? "" : ", ") + name;
      error("--output_type '" + spec + "': tensor '" + tensor +
            "' is not an output of the model (outputs: " + known + ")");
      return failure();
    }
    auto element = cast<RankedTensorType>(results[found - names.begin()].getType()).getElementType();
    if (!isa<FloatType>(element)) {
      error("--output_type '" + spec + "': output '" + tensor +
            "' is not a float tensor: only float outputs take FP32 or FP16");
      return failure();
    }
    wanted[found - names.begin()] = type;
  }
  for (auto [i, type] : llvm::enumerate(wanted)) {
    auto tensor = cast<RankedTensorType>(results[i].getType());
    if (type.empty() || !isa<FloatType>(tensor.getElementType()))
      continue;
    Type element = type == "FP16" ? Type(builder.getF16Type()) : Type(builder.getF32Type());
    if (tensor.getElementType() == element)
      continue;
    results[i] = vg::CastOp::create(builder, NameLoc::get(StringAttr::get(&ctx, names[i])),
                                    tensor.clone(element), results[i], TypeAttr::get(element));
  }
  return success();
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
    // --input_fp16_nodes: the caller's fp16, widened for the graph as the
    // model declares it (the cast joins the first kernel that reads it).
    auto type = cast<RankedTensorType>(inputTypes[i]);
    if (widenedInputs.count(name))
      values[name] = vg::CastOp::create(builder, NameLoc::get(StringAttr::get(&ctx, name)),
                                        type.clone(builder.getF32Type()), body->getArgument(i),
                                        TypeAttr::get(builder.getF32Type()));
  }
  for (const auto &[name, value] : boundInputs)
    values[name] = vg::ConstantOp::create(builder, NameLoc::get(StringAttr::get(&ctx, name)), value);

  for (auto [i, init] : llvm::enumerate(*graph.mutable_initializer())) {
    std::string readError;
    FailureOr<ElementsAttr> value =
        tensors.readOnce(init, "initializer '" + init.name() + "'", readError,
                         i < initializerData.size() ? initializerData[i] : std::nullopt);
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
  SmallVector<std::string> outputNames;
  if (failed(selectOutputs(graph, options, results, outputNames)))
    return nullptr;
  func::ReturnOp::create(builder, modelLoc, results);
  // Folding leaves the constants and shape arithmetic it consumed behind, and
  // a graph may compute values nobody uses: vg ops are pure, so drop them.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
    if (isa<vg::VGDialect>(op.getDialect()) && op.use_empty())
      op.erase();
  func.setType(builder.getFunctionType(inputTypes, ValueRange(results).getTypes()));
  for (auto [i, output] : llvm::enumerate(outputNames))
    func.setResultAttr(i, "vg.name", builder.getStringAttr(output));
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

namespace {
/// The non-empty ';'-separated entries of `text`.
std::vector<std::string> entriesOf(const std::string &text) {
  std::vector<std::string> entries;
  std::stringstream stream(text);
  std::string entry;
  while (std::getline(stream, entry, ';'))
    if (!entry.empty())
      entries.push_back(entry);
  return entries;
}
} // namespace

std::string parseOutNodes(const std::string &text, std::vector<std::string> &outNodes) {
  outNodes = entriesOf(text);
  if (outNodes.empty())
    return "--out_nodes is empty; expected node:index[;node2:index] or tensor names";
  return "";
}

std::string parseOutputTypes(const std::string &text,
                             std::vector<std::pair<std::string, std::string>> &types) {
  auto known = [](const std::string &type) { return type == "FP32" || type == "FP16"; };
  auto unknown = [](const std::string &type) {
    return "--output_type '" + type + "' is not a type Vinci writes (FP32 or FP16" +
           (type == "UINT8" || type == "INT8" ? "; " + type + " outputs are not supported yet"
                                              : std::string()) +
           ")";
  };
  if (text.find(':') == std::string::npos) {
    if (!known(text))
      return unknown(text);
    types.emplace_back("", text);
    return "";
  }
  for (const std::string &entry : entriesOf(text)) {
    size_t colon = entry.rfind(':');
    if (colon == std::string::npos || colon == 0)
      return "--output_type entry '" + entry + "' is not node:index:TYPE or tensor:TYPE";
    std::string type = entry.substr(colon + 1);
    if (!known(type))
      return unknown(type);
    types.emplace_back(entry.substr(0, colon), type);
  }
  if (types.empty())
    return "--output_type is empty; expected FP32, FP16 or node:index:TYPE[;...]";
  return "";
}

std::string parseFp16Inputs(const std::string &text, std::vector<std::string> &inputs) {
  inputs = entriesOf(text);
  if (inputs.empty())
    return "--input_fp16_nodes is empty; expected input names separated by ';'";
  return "";
}

struct OnnxModel::Impl {
  Impl(MLIRContext &context, const std::string &path, std::shared_ptr<MappedBytes> file)
      : context(context), path(path),
        tensors(context, llvm::sys::path::parent_path(path).str(), std::move(file)) {}
  MLIRContext &context;
  std::string path;
  onnx::ModelProto model;
  ParsedModel parsed;
  TensorReader tensors;
};

OnnxModel::OnnxModel(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
OnnxModel::~OnnxModel() = default;

std::unique_ptr<OnnxModel> OnnxModel::load(MLIRContext &context, const std::string &path,
                                           std::vector<std::string> &errors) {
  context.loadDialect<vg::VGDialect, func::FuncDialect>();
  onnx::ModelProto model;
  ParsedModel parsed;
  std::string error;
  if (!loadModel(path, model, parsed, error)) {
    errors.push_back(error);
    return nullptr;
  }
  auto impl = std::make_unique<Impl>(context, path, parsed.file);
  impl->model = std::move(model);
  impl->parsed = std::move(parsed);
  return std::unique_ptr<OnnxModel>(new OnnxModel(std::move(impl)));
}

OwningOpRef<ModuleOp> OnnxModel::import(const ImportOptions &options,
                                        std::vector<std::string> &errors) {
  GraphImporter importer(impl->context, impl->tensors, impl->parsed.initializerData, errors);
  return importer.import(impl->model, options);
}

std::vector<DeclaredInput> OnnxModel::inputs() const {
  const onnx::GraphProto &graph = impl->model.graph();
  std::set<std::string> initializers;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());
  std::vector<DeclaredInput> inputs;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializers.count(input.name()))
      continue;
    DeclaredInput declared{input.name(), {}, input.type().tensor_type().has_shape()};
    for (const auto &dim : input.type().tensor_type().shape().dim())
      declared.dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    inputs.push_back(std::move(declared));
  }
  return inputs;
}

void OnnxModel::releaseWeightPages(const void *data, size_t size) const {
  impl->tensors.releasePages(data, size);
}

void OnnxModel::releaseAllWeightPages() const { impl->tensors.releasePages(nullptr, 0); }

OwningOpRef<ModuleOp> importOnnxFile(MLIRContext &context, const std::string &path,
                                     const ImportOptions &options,
                                     std::vector<std::string> &errors) {
  std::unique_ptr<OnnxModel> model = OnnxModel::load(context, path, errors);
  return model ? model->import(options, errors) : nullptr;
}

bool checkOnnxSupport(const std::string &path, SupportReport &report, std::string &error) {
  onnx::ModelProto model;
  ParsedModel parsed;
  if (!loadModel(path, model, parsed, error))
    return false;
  int64_t opset = defaultOpset(model);
  std::map<std::string, OpSupport> rows;
  for (int index = 0; index < model.graph().node_size(); ++index) {
    const onnx::NodeProto &node = model.graph().node(index);
    std::string key = (isDefaultDomain(node.domain()) ? "" : node.domain() + ".") + node.op_type();
    OpSupport &row = rows[key];
    row.opType = node.op_type();
    row.domain = node.domain();
    row.opset = opset;
    row.supported = isDefaultDomain(node.domain()) && converters().count(node.op_type()) &&
                    opset >= kMinOpset && opset <= kMaxOpset;
    ++row.count;
    report.nodes.push_back({nodeName(node, index), key, row.supported});
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

