//===- ConvCommon.h - shared by the convolution-family templates -*- C++ -*-===//
//
// The Cube conv (Conv.cpp), the Vector depthwise conv and the pooling
// templates read and write activations in NCHW or NC1HWC0 (passes/Layouts.h,
// chosen by vinci-assign-layouts); this is how they ask which, and the GM
// argument type a layout gives a tensor.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_LOWER_CONVCOMMON_H
#define VINCI_BACKEND_LOWER_CONVCOMMON_H

#include "backend/lower/TileBuilder.h"
#include "passes/KernelRules.h"
#include "passes/Layouts.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace vinci::lower {

/// An activation's layout in GM: NCHW (ND of a 4-D tensor) or NC1HWC0.
enum class ActLayout { NCHW, NC1HWC0 };

/// The layout of GM argument `index` (operands, then results) of `call`.
ActLayout activationLayout(mlir::func::CallOp call, unsigned index);
/// `type` (the !dv.gm of argument `index` as gmSignature gives it) with the
/// argument's storage shape: [N, C1, H, W, 16] for NC1HWC0.
mlir::Type layoutGmType(mlir::func::CallOp call, unsigned index, mlir::Type type);

/// The answer to KernelCapabilities::nc1hwc0Classes for a conv-family
/// kernel launched by `call`: every GM argument ND only but those of
/// `classOf` (argument index, class), the activations the template takes in
/// either layout.
llvm::SmallVector<int> nc1hwc0ClassesOf(mlir::func::CallOp call,
                                        llvm::ArrayRef<std::pair<unsigned, int>> classOf);

/// Input rows the windows of `outRows` consecutive output rows read.
int64_t windowInputRows(const ConvGeometry &g, int64_t outRows);

/// A band of output rows and the input rows its windows read, in a buffer
/// whose row 0 is input row inRow0 (negative in the top pad):
/// [zeroTop zero rows][realRows rows of the map][zeroBottom zero rows].
struct RowBand {
  int64_t outRow0 = 0, outRows = 0;
  int64_t inRow0 = 0;
  int64_t zeroTop = 0, realRows = 0, zeroBottom = 0;
  /// A row split's band group (Conv.cpp's planRowSplit): 0 the edge
  /// block's top rows, 1 its bottom rows.
  int64_t group = 0;
  bool sameShape(const RowBand &o) const {
    return outRows == o.outRows && zeroTop == o.zeroTop && realRows == o.realRows &&
           zeroBottom == o.zeroBottom && group == o.group;
  }
};
/// The band of `outRows` output rows from output row `outRow0`.
RowBand rowBandAt(const ConvGeometry &g, int64_t outRow0, int64_t outRows);

/// A band at its output row (affine in a pair loop's index) and its band
/// buffer (0 or 1).
struct BandAt {
  const RowBand *bd;
  Affine outRow0;
  int64_t which;
};

/// Emits `bands` in order, the two band buffers alternating, each band's
/// load issued one band ahead of its compute: on in-order pipes (MTE3's pad
/// zeroing behind a store, the Scalar unit behind a full V queue) a load
/// issued after the previous band's compute would wait for most of it. A
/// run of bands of one shape is a loop of pairs (bands `rowsPerBand` output
/// rows apart) whose last pair is static, its prefetch being the next
/// run's first band. `rowOf(localRow, band)` is the output row of a band
/// starting at `localRow` of the plan.
void emitBandsPrefetched(TileBuilder &t, llvm::ArrayRef<RowBand> bands, int64_t rowsPerBand,
                         llvm::function_ref<Affine(int64_t, const RowBand &)> rowOf,
                         llvm::function_ref<void(const BandAt &)> load,
                         llvm::function_ref<void(const BandAt &)> compute);

/// How a block grid shares the (image, channel group) pairs of a window
/// over NC1HWC0 pixels: `cg` channels a group (16, or 8, 4, 2, 1 when
/// `narrowGroups`: the lanes above a group's channels stay zero), batch
/// parts x group parts blocks (block = (b floordiv groupParts, b mod
/// groupParts)). By default the widest group that gives the most cores a
/// part (a pool: a narrow group costs its few lanes little); with
/// `fewestPairs` the split whose blocks hold the fewest pairs, then the
/// most blocks, then the widest group (a depthwise conv: a pair's vector
/// work is the same whatever its channels).
struct ChannelGroupSplit {
  int64_t cg = 16, groups = 1, batchParts = 1, groupParts = 1;
  int64_t blocks() const { return batchParts * groupParts; }
  /// (image, group) pairs a block holds.
  int64_t pairsPerBlock(int64_t images) const {
    return (images / batchParts) * (groups / groupParts);
  }
};
ChannelGroupSplit splitChannelGroups(const ConvGeometry &g, int64_t cores, bool narrowGroups,
                                     bool fewestPairs = false);

} // namespace vinci::lower

#endif // VINCI_BACKEND_LOWER_CONVCOMMON_H
