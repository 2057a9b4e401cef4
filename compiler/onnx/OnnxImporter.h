//===- OnnxImporter.h - ONNX protobuf to vg -------------------------------===//
#ifndef VINCI_COMPILER_ONNX_ONNXIMPORTER_H
#define VINCI_COMPILER_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace vinci::onnx_import {

struct ImportOptions {
  /// Fixed shapes for graph inputs by name (from --input_shape); they replace
  /// the model's declared shapes, symbolic dims included.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Graph inputs bound to fixed values (from --const_input: name -> a
  /// TensorProto .pb file). They become constants and leave the signature;
  /// this is how shape tensors that a model takes as inputs become static.
  std::map<std::string, std::string> constInputs;
  /// --out_nodes: the model's outputs in place of the graph's, in order,
  /// each "node:index" (that node's output) or a tensor's name.
  std::vector<std::string> outNodes;
  /// --output_type: (output, FP32 or FP16) with output "" for every
  /// output, else "node:index" or a tensor's name naming one output.
  std::vector<std::pair<std::string, std::string>> outputTypes;
  /// --input_fp16_nodes: graph inputs the caller feeds as fp16.
  std::vector<std::string> fp16Inputs;
};

/// One row of the operator support report.
struct OpSupport {
  std::string opType;
  std::string domain;
  int64_t opset = 0;
  int64_t count = 0;
  bool supported = false;
};

/// A node of the graph, named as the importer names its ops' locations
/// (the node's name, or OpType_index for an unnamed node).
struct NodeSupport {
  std::string name;
  std::string opType; // domain-qualified outside the default domain
  bool supported = false;
};

struct SupportReport {
  std::vector<OpSupport> ops;     // sorted by op type
  std::vector<NodeSupport> nodes; // in graph order
  bool allSupported() const;
};

/// Parses --input_shape "name:1,3,224,224;name2:1,128". Returns an error
/// message on bad syntax, an empty string on success.
std::string parseInputShapes(const std::string &text,
                             std::map<std::string, std::vector<int64_t>> &shapes);

/// Parses --const_input "name:file.pb;name2:file2.pb". Returns an error
/// message on bad syntax, an empty string on success.
std::string parseConstInputs(const std::string &text, std::map<std::string, std::string> &inputs);

/// Parses --out_nodes "node:0;node2:1;tensor_name" into `outNodes`.
std::string parseOutNodes(const std::string &text, std::vector<std::string> &outNodes);

/// Parses --output_type: "FP16" (every output) or "node:0:FP16;tensor:FP32"
/// (per output). Returns an error message, or "" on success.
std::string parseOutputTypes(const std::string &text,
                             std::vector<std::pair<std::string, std::string>> &types);

/// Parses --input_fp16_nodes "input1;input2".
std::string parseFp16Inputs(const std::string &text, std::vector<std::string> &inputs);

/// A graph input as the model declares it: -1 for a dim it leaves open
/// (symbolic or absent); `hasShape` false when it declares no shape.
struct DeclaredInput {
  std::string name;
  std::vector<int64_t> dims;
  bool hasShape = false;
};

/// An ONNX model read once, from which any number of graphs are imported
/// (one per gear, each for its input shapes) into `context`. Its weights
/// are read once too: they stay in the memory-mapped file and every graph
/// shares the same weight attributes. Outlives none of its modules' use of
/// `context` (the blobs keep the mapping alive themselves).
class OnnxModel {
public:
  /// Reads `path`; null with one-line messages in `errors`.
  static std::unique_ptr<OnnxModel> load(mlir::MLIRContext &context, const std::string &path,
                                         std::vector<std::string> &errors);
  ~OnnxModel();

  /// Imports the graph for `options` into a module with one func.func
  /// @main; null with one-line messages in `errors`, each naming the node,
  /// its op type and opset (all unsupported nodes at once).
  mlir::OwningOpRef<mlir::ModuleOp> import(const ImportOptions &options,
                                           std::vector<std::string> &errors);

  /// The graph's inputs (initializers excluded), in order.
  std::vector<DeclaredInput> inputs() const;

  /// Drops the resident pages of the mapped weights in [data, data + size)
  /// (a range of blob data handed out by import); the pages are read from
  /// the file again when used. Lets the .om writer stream the weights
  /// without the whole model staying in memory.
  void releaseWeightPages(const void *data, size_t size) const;
  void releaseAllWeightPages() const;

private:
  struct Impl;
  explicit OnnxModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// Reads and imports `path` into a module with one func.func @main. On
/// failure returns null and fills `errors` with one-line messages, each
/// naming the node, its op type and opset (all unsupported nodes at once).
mlir::OwningOpRef<mlir::ModuleOp> importOnnxFile(mlir::MLIRContext &context,
                                                 const std::string &path,
                                                 const ImportOptions &options,
                                                 std::vector<std::string> &errors);

/// The operator check users run before migrating a model. Returns false and
/// sets `error` if the file cannot be read.
bool checkOnnxSupport(const std::string &path, SupportReport &report, std::string &error);

/// The ONNX op types the importer maps, sorted.
std::vector<std::string> supportedOnnxOps();

} // namespace vinci::onnx_import

#endif // VINCI_COMPILER_ONNX_ONNXIMPORTER_H
