//===- Importer.h - what the ONNX converters share ------------*- C++ -*-===//
//
// Internal to compiler/onnx: the NodeImporter a converter works through, the
// converter table and the populate function of each family's file, and the
// helpers decompositions are written with. OnnxImporter.cpp reads the
// protobuf, owns the graph importer and assembles the table; each
// <Family>Converters.cpp (and each <Op>Expander.cpp, for ops that expand into
// many vg ops) registers its converters by ONNX op type.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_COMPILER_ONNX_IMPORTER_H
#define VINCI_COMPILER_ONNX_IMPORTER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

#include <onnx/onnx_pb.h>

namespace vinci::onnx_import {

using mlir::ArrayRef;
using mlir::ElementsAttr;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::NamedAttribute;
using mlir::RankedTensorType;
using mlir::SmallVector;
using mlir::StringRef;
using mlir::Twine;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;

class GraphImporter;
class TensorReader;

/// What a converter sees: one node, its inputs and attributes, and the
/// builder. Errors name the node, op type and opset.
class NodeImporter {
public:
  NodeImporter(GraphImporter &graph, const onnx::NodeProto &node, std::string name,
               int64_t opset);

  const onnx::NodeProto &node;
  std::string name;
  int64_t opset;
  mlir::Location loc;
  mlir::OpBuilder &builder;

  // Inputs.
  size_t numInputs() const { return node.input_size(); }
  bool has(int i) const { return i < node.input_size() && !node.input(i).empty(); }
  Value in(int i) const;
  RankedTensorType typeOf(int i) const { return mlir::cast<RankedTensorType>(in(i).getType()); }
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
  NamedAttribute named(StringRef attrName, mlir::Attribute value) {
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
      return mlir::failure();
    return results->front();
  }
  /// A scalar constant of `element` type (for Gemm's alpha and beta, Mean's 1/n).
  Value scalar(Type element, double value);

  // Results.
  LogicalResult define(ArrayRef<Value> results);
  LogicalResult define(FailureOr<Value> result) {
    return failed(result) ? mlir::failure() : define(ArrayRef<Value>{*result});
  }
  LogicalResult define(FailureOr<SmallVector<Value>> results) {
    return failed(results) ? mlir::failure() : define(ArrayRef<Value>(*results));
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

/// Converts one node (its inputs are defined): builds vg ops through `n` and
/// defines the node's outputs, or reports why not and fails.
using Converter = LogicalResult (*)(NodeImporter &n);
/// ONNX op type (default domain) -> its converter.
using ConverterTable = llvm::StringMap<Converter>;

// The families, one file each.
void populateElementwiseConverters(ConverterTable &table);   // ElementwiseConverters.cpp
void populateLinalgConverters(ConverterTable &table);        // LinalgConverters.cpp
void populateEinsumConverter(ConverterTable &table);         // EinsumExpander.cpp
void populateConvConverters(ConverterTable &table);          // ConvConverters.cpp
void populateConvTransposeConverter(ConverterTable &table);  // ConvTransposeExpander.cpp
void populateNormConverters(ConverterTable &table);          // NormConverters.cpp
void populateDataMovementConverters(ConverterTable &table);  // DataMovementConverters.cpp
void populateShapeConverters(ConverterTable &table);         // ShapeConverters.cpp
void populateQuantConverters(ConverterTable &table);         // QuantConverters.cpp

/// The element type of an ONNX TensorProto data type (null when Vinci has
/// none), and the data type's name for messages.
Type elementTypeOf(mlir::MLIRContext &ctx, int32_t dtype);
std::string dtypeName(int32_t dtype);

/// Initializers (and weights a converter computes) up to this many elements
/// become dense attributes (they are folded as shape arithmetic); larger ones
/// are resource blobs.
constexpr int64_t kMaxInlineElements = 256;

/// Integer values of a constant (dense or resource), or nullopt.
std::optional<SmallVector<int64_t>> readInts(ElementsAttr attr);
/// Numeric values of a constant as doubles, or nullopt.
std::optional<SmallVector<double>> readReals(ElementsAttr attr);

// For decompositions (OnnxImporter.cpp).
/// make1 over operands that may have failed, so that a decomposition reads
/// as its formula; the first failure (already reported) passes through.
FailureOr<Value> apply(NodeImporter &n, StringRef opName, ArrayRef<FailureOr<Value>> operands,
                       ArrayRef<NamedAttribute> attrs = {});
Type elementOf(Value value);
/// A constant of `type` from row-major doubles (cast to its element type).
Value constantOf(NodeImporter &n, RankedTensorType type, ArrayRef<double> values);
/// A constant of ones of `shape`.
Value onesOf(NodeImporter &n, ArrayRef<int64_t> shape, Type element);

} // namespace vinci::onnx_import

#endif // VINCI_COMPILER_ONNX_IMPORTER_H
