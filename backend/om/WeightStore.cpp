//===- WeightStore.cpp - the weights of an .om, stored once ---------------===//
#include "om/WeightStore.h"

#include "dv/DvOps.h"
#include "vinci/format/container.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/Format.h"

#include <fp16.h>

#include <cstring>

using namespace mlir;

namespace vinci::backend {

namespace om = ::vinci::om;

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

om::DType dtypeOf(Type element) {
  if (element.isF32()) return om::DType::F32;
  if (element.isF16()) return om::DType::F16;
  if (element.isBF16()) return om::DType::BF16;
  if (element.isInteger(1)) return om::DType::Bool;
  if (auto integer = dyn_cast<IntegerType>(element)) {
    bool isUnsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
    case 8: return isUnsigned ? om::DType::U8 : om::DType::I8;
    case 16: return isUnsigned ? om::DType::U16 : om::DType::I16;
    case 32: return isUnsigned ? om::DType::U32 : om::DType::I32;
    case 64: return isUnsigned ? om::DType::U64 : om::DType::I64;
    default: break;
    }
  }
  return om::DType::Unknown;
}

/// A constant's bytes and how the .om stores them: converted element by
/// element (f32 -> fp16, round to nearest even; other types as they are)
/// and, for Cube operands, packed (docs/isa.md): a matmul operand into
/// FRACTAL_NZ, [cols/16][rows padded to 16][16]; a conv weight [oc, c, kh,
/// kw] into FRACTAL_Z, [C1 * kh * kw][OC1][16 oc][16 c], so that fractal
/// (k1, n1) is the Cube's L0B fractal of K = (c1, kh, kw, c0) by N = oc.
/// Both are zero padded.
struct WeightStore::Source {
  ArrayRef<char> raw;       // the source elements (one element for a splat)
  std::vector<char> owned;  // raw's storage when the attribute's bytes need unpacking
  bool splat = false;
  bool mapped = false;      // raw is a resource blob's data (possibly a mapped file)
  unsigned sourceBytes = 0, storedBytes = 0;
  bool toHalf = false;
  om::Format layout = om::Format::ND;
  int64_t rows = 0, cols = 0, rowsPadded = 0; // FRACTAL_NZ
  int64_t outChannels = 0, channels = 0, taps = 0, outBlocks = 0; // FRACTAL_Z
  uint64_t count = 0;  // source elements
  uint64_t size = 0;   // stored bytes
  ReleaseSource release;

  /// Stored elements for source elements [first, first + n).
  void convert(uint64_t first, uint64_t n, uint8_t *out) const {
    const char *base = raw.data() + (splat ? 0 : first * sourceBytes);
    if (!toHalf) {
      if (!splat) {
        std::memcpy(out, base, n * sourceBytes);
        return;
      }
      for (uint64_t i = 0; i < n; ++i)
        std::memcpy(out + i * storedBytes, base, storedBytes);
      return;
    }
    for (uint64_t i = 0; i < n; ++i) {
      float value;
      std::memcpy(&value, base + (splat ? 0 : i * 4), 4);
      uint16_t half = fp16_ieee_from_fp32_value(value);
      std::memcpy(out + 2 * i, &half, 2);
    }
  }

  /// Stored bytes [offset, offset + n), whole elements.
  format::Status produce(uint64_t offset, uint8_t *out, uint64_t n) const {
    if (offset % storedBytes != 0 || n % storedBytes != 0 || offset + n > size)
      return format::makeError(format::Errc::invalid_argument,
                               "chunk [" + std::to_string(offset) + ", +" + std::to_string(n) +
                                   ") is not whole elements of the weight");
    uint64_t first = offset / storedBytes, end = (offset + n) / storedBytes;
    if (layout == om::Format::ND) {
      convert(first, end - first, out);
    } else if (layout == om::Format::FRACTAL_Z) {
      // Each element on its own: the 16 c lanes of a fractal row are `taps`
      // elements apart in the source.
      for (uint64_t e = first; e < end; ++e) {
        uint64_t lane = e % 16, oc16 = (e / 16) % 16, block = e / 256;
        int64_t n1 = int64_t(block % uint64_t(outBlocks)), k1 = int64_t(block / uint64_t(outBlocks));
        int64_t o = n1 * 16 + int64_t(oc16), c = k1 / taps * 16 + int64_t(lane), tap = k1 % taps;
        uint8_t *dst = out + (e - first) * storedBytes;
        if (o < outChannels && c < channels)
          convert(uint64_t((o * channels + c) * taps + tap), 1, dst);
        else
          std::memset(dst, 0, storedBytes);
      }
    } else {
      // Runs within one 16-element fractal row: a piece of a source row,
      // then zeros for padding columns or rows.
      const uint64_t blockElements = uint64_t(rowsPadded) * 16;
      for (uint64_t e = first; e < end;) {
        uint64_t block = e / blockElements, within = e % blockElements;
        uint64_t row = within / 16, lane = within % 16;
        uint64_t run = std::min<uint64_t>(16 - lane, end - e);
        int64_t col = int64_t(block * 16 + lane);
        uint64_t valid = row < uint64_t(rows) ? uint64_t(std::clamp<int64_t>(cols - col, 0, run)) : 0;
        uint8_t *dst = out + (e - first) * storedBytes;
        if (valid)
          convert(row * cols + col, valid, dst);
        std::memset(dst + valid * storedBytes, 0, (run - valid) * storedBytes);
        e += run;
      }
    }
    if (offset + n == size && mapped && release)
      release(raw.data(), raw.size());
    return format::Status::success();
  }
};

namespace {

/// How `constant` is stored as `storage` elements, or a one-line error.
std::shared_ptr<WeightStore::Source> makeSource(vg::ConstantOp constant, Type storage,
                                                om::Format layout,
                                                const ReleaseSource &release, std::string &error) {
  ElementsAttr value = constant.getValue();
  auto type = cast<RankedTensorType>(value.getType());
  Type element = type.getElementType();
  auto source = std::make_shared<WeightStore::Source>();
  source->release = release;
  source->count = uint64_t(type.getNumElements());
  source->sourceBytes = element.isInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob) {
      error = "weight '" + resource.getRawHandle().getKey().str() + "' has no data";
      return nullptr;
    }
    source->raw = blob->getData();
    source->mapped = true;
    if (source->raw.size() != source->count * source->sourceBytes) {
      error = "weight '" + resource.getRawHandle().getKey().str() + "' holds " +
              std::to_string(source->raw.size()) + " bytes, not the " +
              std::to_string(source->count * source->sourceBytes) + " of " + typeText(type);
      return nullptr;
    }
  } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (element.isInteger(1)) {
      // Bools are bit-packed: one byte (0 or 1) each, what a u8 argument holds.
      for (bool bit : dense.getValues<bool>())
        source->owned.push_back(bit ? 1 : 0);
      source->raw = source->owned;
    } else {
      source->raw = dense.getRawData();
      source->splat = dense.isSplat();
    }
  } else {
    error = "a constant of type " + typeText(type) + " cannot be stored as a weight";
    return nullptr;
  }
  source->toHalf = element.isF32() && storage.isF16();
  bool boolAsByte = element.isInteger(1) && storage.isUnsignedInteger(8);
  if (element != storage && !boolAsByte && !source->toHalf) {
    error = "weight of type " + typeText(type) + " cannot be stored as " + typeText(storage);
    return nullptr;
  }
  source->storedBytes = source->toHalf ? 2 : source->sourceBytes;
  source->size = source->count * source->storedBytes;
  source->layout = layout;
  ArrayRef<int64_t> shape = type.getShape();
  if (layout == om::Format::FRACTAL_Z) {
    if (shape.size() != 4) {
      error = "FRACTAL_Z stores a conv weight [oc, c, kh, kw]; a " + typeText(type) +
              " weight is not one";
      return nullptr;
    }
    source->outChannels = shape[0];
    source->channels = shape[1];
    source->taps = shape[2] * shape[3];
    source->outBlocks = (shape[0] + 15) / 16;
    source->size = uint64_t((shape[1] + 15) / 16 * source->taps) * source->outBlocks * 256 *
                   source->storedBytes;
  } else if (layout == om::Format::FRACTAL_NZ) {
    if (shape.size() < 2 || source->count != uint64_t(shape[shape.size() - 2] * shape.back())) {
      error = "FRACTAL_NZ stores one matrix; a " + typeText(type) + " weight is not one";
      return nullptr;
    }
    source->rows = shape[shape.size() - 2];
    source->cols = shape.back();
    source->rowsPadded = (source->rows + 15) / 16 * 16;
    source->size = uint64_t((source->cols + 15) / 16) * source->rowsPadded * 16 * source->storedBytes;
  }
  return source;
}

} // namespace

bool WeightStore::place(vg::ConstantOp constant, Type storage, om::Format layout,
                        Placed &placed, std::string &error) {
  ElementsAttr value = constant.getValue();
  auto identity = std::make_tuple(value.getAsOpaquePointer(), storage.getAsOpaquePointer(), layout);
  if (auto found = byConstant.find(identity); found != byConstant.end()) {
    placed = found->second;
    return true;
  }
  std::shared_ptr<Source> source = makeSource(constant, storage, layout, release, error);
  if (!source)
    return false;

  // Equal bytes made by another graph (a gear) or pass are one weight.
  std::string key;
  if (source->mapped) {
    key = std::to_string(format::checksum64(source->raw.data(), source->raw.size())) + ":" +
          std::to_string(source->raw.size()) + ":" + typeText(value.getType()) + ":" +
          typeText(storage) + ":" + format::formatName(uint8_t(layout));
    for (const auto &[other, otherPlaced] : byContent[key])
      if (std::memcmp(other->raw.data(), source->raw.data(), source->raw.size()) == 0) {
        if (release)
          release(other->raw.data(), other->raw.size());
        placed = byConstant[identity] = otherPlaced;
        break;
      }
    if (release)
      release(source->raw.data(), source->raw.size());
    if (byConstant.count(identity))
      return true;
  }

  auto type = cast<RankedTensorType>(value.getType());
  format::TensorInfo info;
  if (auto loc = dyn_cast<NameLoc>(constant.getLoc()))
    info.name = loc.getName().str();
  info.dtype = dtypeOf(storage);
  info.shape.assign(type.getShape().begin(), type.getShape().end());
  info.format = layout;
  info.size = source->size;
  placed.index = writer.addWeight(
      info, source->size,
      [source](uint64_t offset, uint8_t *out, uint64_t n) { return source->produce(offset, out, n); });
  placed.offset = writer.weightOffset(placed.index);
  placed.size = source->size;
  storedBytes += source->size;
  byConstant[identity] = placed;
  if (!key.empty())
    byContent[key].push_back({source, placed});
  if (source->mapped)
    sourceData.insert(source->raw.data());
  return true;
}

} // namespace vinci::backend
