//===- VgDialect.cpp - vg dialect registration and shared helpers ---------===//
#include "vg/VgOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace vinci::vg;

#include "vg/VgOpsDialect.cpp.inc"

void VGDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "vg/VgOps.cpp.inc"
      >();
}

Operation *VGDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

namespace vinci::vg {

bool areCompatibleResultTypes(TypeRange inferred, TypeRange actual) {
  if (inferred.size() != actual.size())
    return false;
  for (auto [want, have] : llvm::zip(inferred, actual)) {
    auto wantTensor = dyn_cast<RankedTensorType>(want);
    auto haveTensor = dyn_cast<RankedTensorType>(have);
    if (!wantTensor || !haveTensor)
      return want == have;
    // An int64 result (indices, shapes) may be held in int32: the device
    // has no 64-bit integers (vinci-narrow-int64).
    bool narrowed = wantTensor.getElementType().isSignlessInteger(64) &&
                    haveTensor.getElementType().isSignlessInteger(32);
    if ((wantTensor.getElementType() != haveTensor.getElementType() && !narrowed) ||
        wantTensor.getRank() != haveTensor.getRank())
      return false;
    for (auto [w, h] : llvm::zip(wantTensor.getShape(), haveTensor.getShape()))
      if (!ShapedType::isDynamic(w) && w != h)
        return false;
  }
  return true;
}

std::optional<SmallVector<int64_t>>
broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes) {
  size_t rank = 0;
  for (ArrayRef<int64_t> shape : shapes)
    rank = std::max(rank, shape.size());
  SmallVector<int64_t> result(rank, 1);
  for (ArrayRef<int64_t> shape : shapes) {
    size_t offset = rank - shape.size();
    for (auto [i, dim] : llvm::enumerate(shape)) {
      int64_t &out = result[offset + i];
      if (dim == 1)
        continue;
      if (out == 1) {
        out = dim;
        continue;
      }
      // A dynamic dim against a static one takes the static one.
      if (ShapedType::isDynamic(dim))
        continue;
      if (ShapedType::isDynamic(out)) {
        out = dim;
        continue;
      }
      if (out != dim)
        return std::nullopt;
    }
  }
  return result;
}

static std::string shapeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

LogicalResult inferBroadcastResult(std::optional<Location> location,
                                   StringRef opName, ArrayRef<Type> operandTypes,
                                   bool boolResult, bool sameElementType,
                                   SmallVectorImpl<Type> &inferred) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Type type : operandTypes) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return emitOptionalError(location, "vg.", opName,
                               ": operands must be ranked tensors");
    shapes.push_back(tensor.getShape());
  }
  Type element = cast<RankedTensorType>(operandTypes.front()).getElementType();
  if (sameElementType)
    for (Type type : operandTypes.drop_front())
      if (cast<RankedTensorType>(type).getElementType() != element)
        return emitOptionalError(location, "vg.", opName,
                                 ": operands must have the same element type, got ",
                                 shapeString(operandTypes.front()), " and ",
                                 shapeString(type));
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(shapes);
  if (!shape) {
    std::string list;
    for (Type type : operandTypes)
      list += (list.empty() ? "" : ", ") + shapeString(type);
    return emitOptionalError(location, "vg.", opName,
                             ": operand shapes do not broadcast: ", list);
  }
  Type resultElement =
      boolResult ? IntegerType::get(element.getContext(), 1) : element;
  inferred.push_back(RankedTensorType::get(*shape, resultElement));
  return success();
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

SliceRange resolveSliceRange(int64_t dim, int64_t start, int64_t end, int64_t step) {
  // The ONNX Slice rules: negative indices count from the end, then clamp
  // to [0, dim] going forward or [-1, dim - 1] going backward.
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
  }
  int64_t span = step > 0 ? end - start : start - end;
  int64_t stride = step > 0 ? step : -step;
  int64_t count = span <= 0 ? 0 : (span + stride - 1) / stride;
  return {start, count};
}

} // namespace vinci::vg

#define GET_OP_CLASSES
#include "vg/VgOps.cpp.inc"
