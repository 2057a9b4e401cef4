//===- ConstantData.cpp - reading and making f32 constants ----------------===//
#include "passes/graph/ConstantData.h"

#include "vg/VgOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;

namespace vinci::graph {

std::optional<std::vector<float>> f32Values(Value value) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.getElementType().isF32())
    return std::nullopt;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != size_t(attr.getNumElements()) * sizeof(float))
      return std::nullopt;
    std::vector<float> out(attr.getNumElements());
    std::memcpy(out.data(), blob->getData().data(), out.size() * sizeof(float));
    return out;
  }
  auto dense = dyn_cast<DenseFPElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  std::vector<float> out;
  out.reserve(dense.getNumElements());
  for (const APFloat &v : dense.getValues<APFloat>())
    out.push_back(v.convertToFloat());
  return out;
}

Value f32Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, ArrayRef<float> values,
                  StringRef blobName) {
  auto type = RankedTensorType::get(shape, b.getF32Type());
  ElementsAttr attr;
  if (!blobName.empty()) {
    ArrayRef<char> bytes(reinterpret_cast<const char *>(values.data()),
                         values.size() * sizeof(float));
    attr = DenseResourceElementsAttr::get(
        type, blobName, HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(float)));
  } else {
    attr = DenseElementsAttr::get(type, values);
  }
  return vg::ConstantOp::create(b, loc, attr);
}

} // namespace vinci::graph
