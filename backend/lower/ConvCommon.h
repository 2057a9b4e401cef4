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

namespace vinci::soc {
struct SocSpec;
}

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
/// With `firstLoaded` the first band's load was issued before (by the
/// previous group's `loadAfter`), and `loadAfter`, when given, is issued in
/// place of the load after the last band (before its compute). With
/// `computeFirst` the first band is static, computed by it, and it issues
/// the next band's load (its argument) where it sees fit.
void emitBandsPrefetched(
    TileBuilder &t, llvm::ArrayRef<RowBand> bands, int64_t rowsPerBand,
    llvm::function_ref<Affine(int64_t, const RowBand &)> rowOf,
    llvm::function_ref<void(const BandAt &)> load, llvm::function_ref<void(const BandAt &)> compute,
    bool firstLoaded = false, llvm::function_ref<void()> loadAfter = nullptr,
    llvm::function_ref<void(const BandAt &, llvm::function_ref<void()>)> computeFirst = nullptr);

/// A channel group of a window template: its index (affine in the group
/// loop), its index among the block's groups, and its channels (fewer in a
/// partial last group).
struct GroupAt {
  Affine group, local;
  int64_t channels = 0;
};

/// Emits the bands of `groups` channel groups from `group0` (cg channels
/// each, the last `lastChannels`), the first band of each group loaded
/// during the previous group's last band: on in-order pipes a group that
/// started its loads only after the previous group's compute was issued
/// would leave the Vector unit idle for a load's latency per group. A run
/// of full groups is a loop whose last group is static. `loadGroup` issues
/// a group's own GM loads (weights) beside its first band's; `beginGroup`
/// its on-chip set-up, before its first compute. Band buffers alternate
/// across groups, so an odd band count loads no group ahead.
void emitGroupsPrefetched(TileBuilder &t, const Affine &group0, int64_t groups, int64_t cg,
                          int64_t lastChannels, llvm::ArrayRef<RowBand> bands, int64_t rowsPerBand,
                          llvm::function_ref<Affine(int64_t, const RowBand &)> rowOf,
                          llvm::function_ref<void(const GroupAt &)> loadGroup,
                          llvm::function_ref<void(const GroupAt &)> beginGroup,
                          llvm::function_ref<void(const GroupAt &, const BandAt &)> load,
                          llvm::function_ref<void(const GroupAt &, const BandAt &)> compute);

/// Output rows a band for a block's `rows` output rows when the buffers
/// hold at most `maxRows`: bands of equal size, at least two when the block
/// holds one (image, group) pair (one loads while the other computes) or
/// splits rows (the edge block's top and bottom bands), and an even count
/// when it holds several pairs (emitGroupsPrefetched).
int64_t bandRowsFor(int64_t rows, int64_t maxRows, int64_t pairsPerBlock, bool rowSplit);

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

/// A split of the output rows over P blocks that run one program.
///
/// An address may depend on block_idx only as c1 (b mod G) + c2 (b floordiv
/// G) (one G an operand, the ISA's form). With G = P - 1 that is linear in b
/// for blocks 0 .. P-2 and anything for block P-1. So blocks 0 .. P-2
/// ("middle") own the rows [T + b R, T + (b + 1) R), R = oh / P, which read
/// no pad, and block P-1 ("edge") owns the first T rows and the last R - T:
/// its first band is the top one and its last band the bottom one, the only
/// bands with pad rows. Their instructions must not differ from the middle
/// blocks', so every block writes the pad rows at fixed buffer rows and then
/// loads all of a band's input rows: the middle blocks' load overwrites the
/// pad rows, the edge block's is shifted (source and destination alike) by
/// the pad's rows past them (down for the top, up for the bottom: the
/// buffer has marginTop rows above a band's first row and marginBottom
/// below its last).
struct RowSplit {
  int64_t parts = 1;   // P (1: no split)
  int64_t rows = 0;    // R, output rows a block
  int64_t topRows = 0; // T
  int64_t marginTop = 0, marginBottom = 0;
  /// Blocks a row part holds (channel parts, channel part = b mod G): then
  /// P = 2 and the edge block is b floordiv G (G = P - 1 without them).
  int64_t channelParts = 1;

  /// The first output row of the band at block row `localRow` of `group`
  /// (RowBand::group: 0 the edge block's top rows, 1 its bottom rows).
  Affine bandRow(mlir::Value blockIdx, int64_t oh, int64_t localRow, int64_t group) const;
  /// `coef` on the edge block, 0 on the others.
  Affine onEdge(mlir::Value blockIdx, int64_t coef) const;
  /// The rows from band `bd`'s first input row to the first row it loads,
  /// of the map and of its buffer from the band's first row alike: the top
  /// pad's rows without a split, the pad rows on a split's edge block.
  Affine loadShift(mlir::Value blockIdx, const RowBand &bd) const {
    if (parts == 1)
      return Affine(bd.zeroTop);
    return onEdge(blockIdx, bd.zeroTop - bd.zeroBottom); // at most one is not 0
  }
};

/// The bands of splitting `g`'s output rows over `parts` blocks in bands of
/// at most `rowsPerBand` rows, at least two a block: each band loads all of
/// its windows' input rows (realRows), zeroTop / zeroBottom its pad rows on
/// the edge block. False when the split cannot be one program (a pad that
/// reaches a middle block or a second band).
bool planRowSplit(const ConvGeometry &g, int64_t parts, int64_t rowsPerBand, RowSplit &split,
                  llvm::SmallVectorImpl<RowBand> &bands);

/// The row parts (1: none) that a window template over NC1HWC0 pixels
/// should split its output rows into instead of `groups`' split, each block
/// then holding every (image, channel group) pair. A block's cost is the
/// larger of its GM bytes at a core's share of the chip's bandwidth (a
/// block alone cannot take the whole of it) and its output pixels at
/// `vectorCyclesPerPixel` (an output pixel of 16 channels), plus a fixed
/// cost a band (bands of at most `maxBandRows` rows, at least two a pair
/// when a block holds one pair or splits rows); a part holds at least two
/// output rows.
int64_t chooseRowParts(const ConvGeometry &g, const ChannelGroupSplit &groups,
                       const soc::SocSpec &soc, double vectorCyclesPerPixel, int64_t maxBandRows);

} // namespace vinci::lower

#endif // VINCI_BACKEND_LOWER_CONVCOMMON_H
