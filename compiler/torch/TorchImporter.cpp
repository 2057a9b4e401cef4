//===- TorchImporter.cpp - a GraphSpec from the PyTorch front end to vg ---===//
//
// The aten -> vg mapping lives in Python (vinci/torch_import.py), next to
// make_fx, where the aten graph is; this file only builds what it decided:
// inputs, constants (weights as blobs over the caller's bytes), and ops whose
// result types vg infers, exactly as the ONNX importer builds its ops.
//
//===----------------------------------------------------------------------===//
#include "torch/TorchImporter.h"

#include "vg/VgOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace vinci::torch_import {
namespace {

using namespace mlir;

// As in the ONNX importer: small constants stay inline (folders read them).
constexpr int64_t kMaxInlineElements = 256;

class GraphBuilder {
public:
  GraphBuilder(MLIRContext &ctx, const GraphSpec &graph, std::vector<std::string> &errors)
      : ctx(ctx), graph(graph), errors(errors), builder(&ctx) {}

  OwningOpRef<ModuleOp> build() {
    Location graphLoc = NameLoc::get(StringAttr::get(&ctx, graph.name));
    OwningOpRef<ModuleOp> module = ModuleOp::create(graphLoc);
    // Diagnostics from type parsing, inference and verification become
    // one-line errors naming what was being built.
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        errors.push_back(current + ": " + diag.str());
      return success();
    });

    SmallVector<Type> inputTypes;
    for (const TensorSpec &input : graph.inputs) {
      current = "input '" + input.name + "'";
      RankedTensorType type = tensorType(input);
      if (!type)
        return nullptr;
      inputTypes.push_back(type);
    }
    builder.setInsertionPointToEnd(module->getBody());
    auto func = func::FuncOp::create(builder, graphLoc, "main",
                                     builder.getFunctionType(inputTypes, {}));
    Block *body = func.addEntryBlock();
    builder.setInsertionPointToStart(body);
    for (auto [i, input] : llvm::enumerate(graph.inputs)) {
      values.push_back(body->getArgument(i));
      func.setArgAttr(i, "vg.name", builder.getStringAttr(input.name));
    }
    for (const ConstantSpec &constant : graph.constants) {
      current = "constant '" + constant.tensor.name + "'";
      Value value = makeConstant(constant);
      if (!value)
        return nullptr;
      values.push_back(value);
    }
    for (const NodeSpec &node : graph.nodes) {
      current = "node '" + node.source + "' (" + node.op + ")";
      if (failed(makeNode(node)))
        return nullptr;
    }

    SmallVector<Value> results;
    for (const auto &[index, name] : graph.outputs) {
      current = "output '" + name + "'";
      if (index < 0 || index >= static_cast<int64_t>(values.size()))
        return fail("refers to value " + std::to_string(index) + ", which does not exist");
      results.push_back(values[index]);
    }
    func::ReturnOp::create(builder, graphLoc, results);
    func.setType(builder.getFunctionType(inputTypes, ValueRange(results).getTypes()));
    for (auto [i, output] : llvm::enumerate(graph.outputs))
      func.setResultAttr(i, "vg.name", builder.getStringAttr(output.second));
    // Folding leaves constants nobody uses; vg ops are pure.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
      if (isa<vg::VGDialect>(op.getDialect()) && op.use_empty())
        op.erase();
    current = "graph '" + graph.name + "'";
    if (failed(verify(*module)))
      return fail("the imported module does not verify (a front-end bug: please report it)");
    return module;
  }

private:
  std::nullptr_t fail(const std::string &message) {
    errors.push_back(current + ": " + message);
    return nullptr;
  }

  RankedTensorType tensorType(const TensorSpec &spec) {
    Type element = parseType(spec.elementType, &ctx);
    if (!element || !element.isIntOrFloat()) {
      fail("has element type '" + spec.elementType + "', which is not an integer or float type");
      return {};
    }
    for (int64_t dim : spec.shape)
      if (dim < 0) {
        fail("has a negative dim: shapes must be static (give the example inputs' shapes)");
        return {};
      }
    return RankedTensorType::get(spec.shape, element);
  }

  Value makeConstant(const ConstantSpec &constant) {
    RankedTensorType type = tensorType(constant.tensor);
    if (!type)
      return {};
    Type element = type.getElementType();
    size_t elementBytes = element.isInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;
    if (constant.bytes != static_cast<size_t>(type.getNumElements()) * elementBytes) {
      fail("holds " + std::to_string(constant.bytes) + " bytes, its type needs " +
           std::to_string(type.getNumElements() * elementBytes));
      return {};
    }
    ArrayRef<char> bytes(static_cast<const char *>(constant.data), constant.bytes);
    Location loc = NameLoc::get(StringAttr::get(&ctx, constant.tensor.name));
    ElementsAttr value;
    if (type.getNumElements() <= kMaxInlineElements) {
      if (element.isInteger(1)) {
        SmallVector<bool> bits;
        for (char byte : bytes)
          bits.push_back(byte != 0);
        value = DenseElementsAttr::get(type, bits);
      } else {
        value = DenseElementsAttr::getFromRawBuffer(type, bytes);
      }
    } else {
      // No copy: the blob points at the caller's buffer (see TorchImporter.h).
      AsmResourceBlob blob = UnmanagedAsmResourceBlob::allocateWithAlign(bytes, elementBytes);
      value = DenseResourceElementsAttr::get(type, constant.tensor.name, std::move(blob));
    }
    return vg::ConstantOp::create(builder, loc, value);
  }

  LogicalResult makeNode(const NodeSpec &node) {
    Location loc = NameLoc::get(StringAttr::get(&ctx, node.source));
    if (!RegisteredOperationName::lookup(node.op, &ctx)) {
      fail("is not a vg op (a front-end bug: please report it)");
      return failure();
    }
    SmallVector<Value> operands;
    for (int64_t index : node.operands) {
      if (index < 0 || index >= static_cast<int64_t>(values.size())) {
        fail("operand refers to value " + std::to_string(index) + ", which does not exist yet");
        return failure();
      }
      operands.push_back(values[index]);
    }
    OperationState state(loc, node.op);
    state.addOperands(operands);
    for (const auto &[name, text] : node.attributes) {
      Attribute attribute = parseAttribute(text, &ctx);
      if (!attribute) {
        fail("attribute '" + name + "' = '" + text + "' does not parse");
        return failure();
      }
      state.addAttribute(name, attribute);
    }
    // Placeholder result types until inference, which reports bad operands
    // as a diagnostic instead of aborting (as the ONNX importer does).
    state.addTypes(SmallVector<Type>(node.numResults, UnrankedTensorType::get(builder.getF32Type())));
    Operation *op = builder.create(state);
    auto inference = dyn_cast<InferTypeOpInterface>(op);
    SmallVector<Type> types;
    if (!inference ||
        failed(inference.inferReturnTypes(&ctx, loc, op->getOperands(), op->getRawDictionaryAttrs(),
                                          op->getPropertiesStorage(), op->getRegions(), types)) ||
        types.size() != static_cast<size_t>(node.numResults)) {
      op->erase();
      if (errors.empty() || errors.back().rfind(current, 0) != 0)
        fail("cannot infer its result types");
      return failure();
    }
    for (auto [result, type] : llvm::zip(op->getResults(), types))
      result.setType(type);
    if (failed(mlir::verify(op, /*verifyRecursively=*/false))) {
      op->erase();
      return failure();
    }
    SmallVector<Value> folded;
    if (succeeded(builder.tryFold(op, folded)) && !folded.empty()) {
      op->erase();
      values.append(folded.begin(), folded.end());
    } else {
      values.append(op->getResults().begin(), op->getResults().end());
    }
    return success();
  }

  MLIRContext &ctx;
  const GraphSpec &graph;
  std::vector<std::string> &errors;
  OpBuilder builder;
  SmallVector<Value> values;
  std::string current;
};

} // namespace

OwningOpRef<ModuleOp> importGraph(MLIRContext &context, const GraphSpec &graph,
                                  std::vector<std::string> &errors) {
  context.loadDialect<vg::VGDialect, func::FuncDialect>();
  return GraphBuilder(context, graph, errors).build();
}

} // namespace vinci::torch_import
