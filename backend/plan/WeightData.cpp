//===- WeightData.cpp - a constant's bytes in device layout ---------------===//
#include "plan/WeightData.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

#include <fp16.h>

using namespace mlir;

namespace vinci::backend {
namespace {

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

} // namespace

bool weightBytes(vg::ConstantOp constant, Type storage, std::vector<uint8_t> &bytes,
                 std::string &error) {
  ElementsAttr value = constant.getValue();
  auto type = cast<RankedTensorType>(value.getType());
  ArrayRef<char> raw;
  std::vector<char> unpacked;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob) {
      error = "weight '" + resource.getRawHandle().getKey().str() + "' has no data";
      return false;
    }
    raw = blob->getData();
  } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat() || type.getElementType().isInteger(1)) {
      // Splats store one element; bools are bit-packed: expand both.
      unsigned bytesPer = type.getElementType().isInteger(1)
                              ? 1
                              : type.getElementType().getIntOrFloatBitWidth() / 8;
      for (int64_t i = 0; i < type.getNumElements(); ++i) {
        if (type.getElementType().isInteger(1)) {
          unpacked.push_back(dense.getValues<bool>()[i] ? 1 : 0);
          continue;
        }
        APInt bits = isa<FloatType>(type.getElementType())
                         ? dense.getValues<APFloat>()[i].bitcastToAPInt()
                         : dense.getValues<APInt>()[i];
        for (unsigned b = 0; b < bytesPer; ++b)
          unpacked.push_back(static_cast<char>(bits.extractBitsAsZExtValue(8, 8 * b)));
      }
      raw = unpacked;
    } else {
      raw = dense.getRawData();
    }
  } else {
    error = "a constant of type " + typeText(type) + " cannot be stored as a weight";
    return false;
  }
  Type element = type.getElementType();
  if (element.isF32() && storage.isF16()) {
    size_t count = raw.size() / 4;
    bytes.resize(count * 2);
    for (size_t i = 0; i < count; ++i) {
      float f;
      std::memcpy(&f, raw.data() + 4 * i, 4);
      uint16_t h = fp16_ieee_from_fp32_value(f);
      std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
    return true;
  }
  // Bools are unpacked to one byte (0 or 1) above: what a u8 argument holds.
  bool boolAsByte = element.isInteger(1) && storage.isUnsignedInteger(8);
  if (element != storage && !boolAsByte) {
    error = "weight of type " + typeText(type) + " cannot be stored as " + typeText(storage);
    return false;
  }
  bytes.assign(raw.begin(), raw.end());
  return true;
}

std::vector<uint8_t> toFractalNz(const std::vector<uint8_t> &dense, int64_t rows, int64_t cols,
                                 unsigned elementBytes) {
  int64_t rowsP = (rows + 15) / 16 * 16, blocks = (cols + 15) / 16;
  std::vector<uint8_t> nz(static_cast<size_t>(blocks * rowsP * 16) * elementBytes, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t block = 0; block < blocks; ++block) {
      int64_t width = std::min<int64_t>(16, cols - block * 16);
      std::memcpy(nz.data() + ((block * rowsP + r) * 16) * elementBytes,
                  dense.data() + (r * cols + block * 16) * elementBytes, width * elementBytes);
    }
  return nz;
}

} // namespace vinci::backend
