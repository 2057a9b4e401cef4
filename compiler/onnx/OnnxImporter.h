//===- OnnxImporter.h - ONNX protobuf to vg -------------------------------===//
#ifndef VINCI_COMPILER_ONNX_ONNXIMPORTER_H
#define VINCI_COMPILER_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <map>
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
