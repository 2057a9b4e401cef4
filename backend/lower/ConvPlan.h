//===- ConvPlan.h - the Cube conv's tiles, K parts and block split -*- C++ -*-===//
//
// The Cube conv template (Conv.cpp) in two halves, as the matmul's
// (MatmulPlan.h): what a conv is (ConvInfo, from its analysis) and how it
// runs (ConvPlan: the M and channel tiles, the K steps and their parts, the
// bands, the block split, fed tiles), chosen here by planConv; the emitter
// in Conv.cpp turns the plan into dv instructions.
//
// A resident weight slice loads in K parts, and the block's first tile
// runs each part's steps as it arrives. When a block holds few tiles (at
// most four, in its two band buffers) that compute for much longer than
// they store, all of them take the parts together, L0C holding every
// tile's accumulator (planFedTiles, emitFedBlock): otherwise the later
// tiles wait for the whole slice and then run with nothing left to load.
//
// Blocks: batch parts x output-channel parts (a 2-D grid, channel part =
// block_idx mod G), output-row parts (ConvCommon's RowSplit), or two row
// parts x channel parts (the row part block_idx floordiv G), chosen by a
// roofline over the block count: the Cube work shared by the blocks, or
// the GM bytes (each channel part reads the feature maps of its images,
// each batch or row part the weights) at the chip's bandwidth, whichever
// is longer.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_LOWER_CONVPLAN_H
#define VINCI_BACKEND_LOWER_CONVPLAN_H

#include "backend/lower/ConvCommon.h"
#include "backend/lower/Epilogue.h"
#include "passes/KernelRules.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

namespace vinci::soc {
struct SocSpec;
}

namespace vinci::lower::conv {

struct ConvInfo {
  ConvGeometry g;
  unsigned xArg = 0, wArg = 0;
  int biasArg = -1;
  llvm::SmallVector<EpilogueStep> epilogue;
  int64_t c1 = 1, oc1 = 1, taps = 1;
  /// Row stacking (tensors.stackedFrom): the input channels a plane of
  /// the stacked map holds (each with its kh rows), 0 when not stacked.
  int64_t stackChannels = 0;
  /// What its tensors need on chip: from the call's storage types (the
  /// worst case for what the layouts are to decide) when analysed for the
  /// partition, from the GM signature when lowered.
  ConvCubeTensors tensors;
};

using Band = RowBand;

/// The tiling (convCubeTilingMismatch's fields: the M and channel tiles,
/// the band buffers, the K step) and the blocks and bands.
struct ConvPlan : ConvCubeTiling {
  int64_t batchParts = 1, ocParts = 1, blockDim = 1;
  /// Output-row parts (planRowSplit: then batchParts = ocParts = 1), the
  /// edge block's top rows, and the buffer rows above a band's first row.
  int64_t rowParts = 1, topRows = 0, marginTop = 0;
  int64_t images = 1;   // per block
  int64_t tilesPerBand = 1;
  /// Row stacking (tensors.stackedFrom): the bands' input rows, pad rows
  /// and row split are the conv's own geometry's (the stacked map has no
  /// pad rows), staged stagingMarginTop rows below the staging's first.
  llvm::SmallVector<Band> bands;
  int64_t stagingMarginTop = 0;

  const ConvCubeTiling &tiling() const { return *this; }
};

/// Output positions of `rows` output rows of `wo`, padded to whole fractal rows.
inline int64_t mpOf(int64_t rows, int64_t wo) { return (rows * wo + 15) / 16 * 16; }

/// K steps of `kf` fractals repeat their load_3d parameters (the first
/// tap of each step) every `period` steps: whole planes, an even count (the
/// two L0A/L0B buffers alternate).
inline int64_t kPeriod(int64_t kf, int64_t taps) {
  int64_t p = std::lcm(kf, taps) / kf;
  return p % 2 ? 2 * p : p;
}

/// Whether a K step of `kf` fractals for `m1` fractal rows of positions
/// loads fewer instructions in load_3d's positions mode (one per fractal of
/// K) than in its taps mode (one per 16 positions). Its jump_stride (kf)
/// and repeat (m1) have ISA limits.
inline bool usePositionsMode(int64_t m1, int64_t kf) { return kf < m1 && kf <= 127 && m1 <= 255; }

/// The K reduction's shape: kf-fractal steps grouped in periods that
/// start at a plane boundary and hold an even number of steps (the two
/// L0A/L0B buffers alternate); K is split into up to eight parts, each
/// its own loop of periods and static steps, so that a weight slice
/// loading part by part lets the Cube start on the first.
/// [first, last) K fractal of each part (up to eight: the more, the
/// sooner the Cube starts and the less it waits between parts; a 14 x 14
/// x 256 conv 18.8 -> 17.3 us from four): whole periods when there are
/// eight or more (or when cutting them would make more than
/// kMaxStaticKSteps static steps), else whole steps (the periods the
/// parts cut are static steps then; with fewer than two periods they are
/// anyway), and then parts of at least kMinKPartBytes of the panel (a DMA
/// reaches the core's rate from about 16 KB, the timing table's source
/// for mte_transfers_in_flight; smaller parts cost more start-ups than
/// they save).
llvm::SmallVector<std::pair<int64_t, int64_t>> kPartsOf(const ConvInfo &info,
                                                        const ConvCubeTiling &t);

/// Row stacking. A conv of few input channels (an RGB stem) fills few of
/// each K fractal's 16 columns: with C1 = 1, K is kh x kw fractals of
/// which C columns are real. Stacked, its input is a map of
/// ceil(C / floor(16 / kh)) planes whose lanes are (channel, window row):
/// map row i holds the input rows of output row i, so the conv over the
/// map has kh = 1, stride_h 1 and no top or bottom pad, and K is planes x
/// kw fractals (a 7 x 7 over 3 channels: 14 instead of 49). The map is
/// built on chip from the NCHW input's rows (Conv.cpp's stageInputRows and
/// buildMapRows); the weight is rearranged to match (stackedWeight).
std::optional<ConvInfo> stackedRows(const ConvInfo &info, ActLayout xLayout);
/// A row-stacked conv's weight (`w`, [OC, C, kh, kw]) as the conv over the
/// stacked map reads it: [OC, planes x 16, 1, kw], lane cl kh + dy of
/// plane p holding channel p perPlane + cl at window row dy, zero past the
/// channels and the plane's rows.
std::vector<float> stackedWeight(llvm::ArrayRef<float> w, const ConvGeometry &from,
                                 int64_t perPlane, int64_t planes);

/// How many K parts ahead of the Cube a fed block issues its loads
/// (Conv.cpp's emitFedBlock; planFedTiles decides which blocks are fed).
constexpr size_t kFedPartsAhead = 2;

/// Plans the tiling and the block split. Every candidate's buffers are
/// checked by convCubeTilingMismatch (the function the partition's rule
/// asks of the smallest tiling), so a conv the rule accepts always finds
/// one: the M tile shrinks from about kTargetTilePositions positions to one
/// output row, the channel tile to one fractal, the K step to one fractal,
/// the weight is streamed GM -> L0B a K step when its slice does not stay
/// in L1, and the UB staging shrinks for wide rows.
bool planConv(const ConvInfo &info, const soc::SocSpec &soc, ConvPlan &plan,
              bool allowRowSplit = true);

} // namespace vinci::lower::conv

#endif // VINCI_BACKEND_LOWER_CONVPLAN_H
