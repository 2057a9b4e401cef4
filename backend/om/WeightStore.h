//===- WeightStore.h - the weights of an .om, stored once -------*- C++ -*-===//
//
// Every constant a kernel reads from GM becomes a weight of the .om, in the
// kernel's storage type (fp16 for f32 under force_fp16) and layout
// (FRACTAL_NZ for Cube matmul operands, FRACTAL_Z for conv weights). The store keeps one weight per distinct
// content: the same constant read by several kernels or gears, and equal
// bytes made twice (a fused QKV weight joined again for each gear), are
// stored once. Nothing is converted when a weight is placed: the .om writer
// streams each weight from a producer that converts and packs it chunk by
// chunk from the constant's bytes (in the memory-mapped model), so compile
// memory does not hold the weights section.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_OM_WEIGHTSTORE_H
#define VINCI_BACKEND_OM_WEIGHTSTORE_H

#include "vg/VgOps.h"
#include "vinci/format/writer.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace vinci::backend {

/// The .om dtype of an element type, or Unknown.
om::DType dtypeOf(mlir::Type element);
/// An MLIR type as text, for messages.
std::string typeText(mlir::Type type);

/// Called with a constant's source bytes once they have been read (hashed,
/// or streamed into the file): the importer may drop their pages.
using ReleaseSource = std::function<void(const void *data, size_t size)>;

class WeightStore {
public:
  WeightStore(format::OmWriter &writer, ReleaseSource release)
      : writer(writer), release(std::move(release)) {}

  struct Placed {
    uint32_t index = 0;   // in the .om's weight table
    uint64_t offset = 0;  // in the weights section
    uint64_t size = 0;    // stored bytes
  };

  /// The weight holding `constant` as `storage` elements in `layout` (ND,
  /// FRACTAL_NZ or FRACTAL_Z): added on first use, shared by every later use
  /// of the same constant or of equal bytes. False with a one-line message
  /// when the constant cannot be stored so.
  bool place(vg::ConstantOp constant, mlir::Type storage, om::Format layout, Placed &placed,
             std::string &error);

  /// Stored bytes of the distinct weights.
  uint64_t bytes() const { return storedBytes; }
  /// Whether a stored weight is streamed from the blob data at `data`: the
  /// data must then live until the .om is written.
  bool streamsFrom(const void *data) const { return sourceData.count(data) != 0; }

  struct Source; // a constant's bytes and how they are stored (WeightStore.cpp)

private:
  format::OmWriter &writer;
  ReleaseSource release;
  /// Weights by constant (attribute, storage type, layout), and by content.
  std::map<std::tuple<const void *, const void *, om::Format>, Placed> byConstant;
  std::map<std::string, std::vector<std::pair<std::shared_ptr<Source>, Placed>>> byContent;
  uint64_t storedBytes = 0;
  std::set<const void *> sourceData;
};

} // namespace vinci::backend

#endif // VINCI_BACKEND_OM_WEIGHTSTORE_H
