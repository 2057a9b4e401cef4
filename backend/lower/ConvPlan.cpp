//===- ConvPlan.cpp - the Cube conv's tiles, K parts and block split -----===//
//
// ConvPlan.h says what is planned; the estimate here ranks tilings with the
// planner's own costs, never the timing table (docs/isa.md).
//
//===----------------------------------------------------------------------===//
#include "backend/lower/ConvPlan.h"
#include "backend/lower/LowerCommon.h"

#include "vinci/soc.h"

#include <algorithm>
#include <optional>

using namespace mlir;

namespace vinci::lower::conv {
namespace {

/// Output positions an M tile aims at (rows of the L0A tile), and the most
/// the planner tries.
constexpr int64_t kTargetTilePositions = 128;
constexpr int64_t kMaxTilePositions = 512;
/// The smallest weight-panel part worth a DMA of its own, and the most K
/// steps parts may make static by cutting periods (kParts).
constexpr int64_t kMinKPartBytes = 16384;
constexpr int64_t kMaxStaticKSteps = 64;
/// The widest output-channel tile, in 16-channel fractals.
constexpr int64_t kMaxChannelFractals = 8;

/// The planner's own estimate of fixed costs, in cycles, and of the on-chip
/// rates, in bytes a cycle. The compiler reads only the SoC's peak figures
/// (docs/isa.md: a timing-table change moves simulated figures, never a
/// kernel), so these rank tilings and nothing else.
struct PlanCosts {
  static constexpr double mmadStartup = 32, onChipStartup = 24, gmStartup = 300;
  /// A vector instruction's issue and start, and its repeats a cycle.
  static constexpr double vectorStartup = 40, vectorRepeatsPerCycle = 0.5;
  static constexpr double load3dRate = 128, l1ToL0bRate = 256;
};

/// Channels of an NC1HWC0 plane, a fractal's columns.
constexpr int64_t kC0 = 16;

/// Static steps a period may unroll into.
constexpr int64_t kMaxPeriodSteps = 32;

/// The largest K step (fractals) of at most `limit` whose period unrolls
/// into at most kMaxPeriodSteps steps (or whose steps are all static); or,
/// when one at least 60% as large makes K four or more periods, the
/// largest such: a resident weight panel then loads in parts (one a
/// run of periods), and the first tile starts after the first (a 3x3 conv
/// of 256 channels: steps of 9 fractals make 8 periods, of 15 one).
int64_t kStepFractals(int64_t taps, int64_t c1, int64_t limit) {
  int64_t total = taps * c1;
  limit = std::min(limit, total);
  auto unrolls = [&](int64_t kf) {
    return kPeriod(kf, taps) <= kMaxPeriodSteps || (total + kf - 1) / kf <= kMaxPeriodSteps;
  };
  for (int64_t kf = limit; kf > 1 && 5 * kf >= 3 * limit; --kf)
    if (unrolls(kf) && total / (kPeriod(kf, taps) * kf) >= 4)
      return kf;
  for (int64_t kf = limit; kf > 1; --kf)
    if (unrolls(kf))
      return kf;
  return 1;
}

/// load_3d instructions a K step issues (see usePositionsMode).
int64_t load3dInstructions(int64_t m1, int64_t kf) { return usePositionsMode(m1, kf) ? kf : m1; }


/// The planner's estimate of one M tile of `m1` fractal rows and `nt`
/// channel fractals over `steps` K steps of `kf` fractals: the Cube's
/// fractal steps (and each mmad's start, and the bias init), MTE1's
/// load_3d and B moves.
struct TileCycles {
  double cube, mte1;
};
TileCycles tileCycles(const soc::SocSpec &soc, int64_t m1, int64_t nt, int64_t kf, int64_t steps) {
  using C = PlanCosts;
  double cube = steps * (m1 * nt * kf / soc.timing.cube_fractals_per_cycle.value + C::mmadStartup) +
                m1 * nt;
  double mte1 = steps * (load3dInstructions(m1, kf) * C::onChipStartup +
                         m1 * kf * 512 / C::load3dRate + C::onChipStartup +
                         kf * nt * 512 / C::l1ToL0bRate);
  return {cube, mte1};
}

/// Everything of a plan but the bands, for one block split and channel tile.
struct Candidate {
  int64_t batchParts, ocParts, rowParts, rowsT, nt, kf;
  bool panelResident, smallStaging;
  int64_t bandPlanes;
  double cycles; // estimated per block
};

/// The most pad rows a band writes.
int64_t bandZeroRows(ArrayRef<Band> bands) {
  int64_t rows = 0;
  for (const Band &bd : bands)
    rows = std::max({rows, bd.zeroTop, bd.zeroBottom});
  return rows;
}

/// The bands of a row split (plan.rowParts = P > 1; ConvCommon's
/// planRowSplit), or false when this split cannot be one uniform program.
bool planRowSplit(const ConvGeometry &g, ConvPlan &plan) {
  int64_t rowsPerBand = plan.tilesPerBand * plan.rowsT;
  RowSplit split;
  if (!planRowSplit(g, plan.rowParts, rowsPerBand, split, plan.bands))
    return false;
  plan.topRows = split.topRows;
  plan.marginTop = split.marginTop;
  plan.bufRows = split.marginTop + windowInputRows(g, rowsPerBand) + split.marginBottom;
  plan.slackRows = (plan.tilesPerBand - 1) * plan.rowsT * g.sh + split.marginTop;
  return true;
}

/// The tiling of a candidate: `tilesPerBand` M tiles of `rowsT` output
/// rows a band (with the row split's pad margins when `split`), for the
/// buffer sizes convCubeTilingMismatch checks. The pad's zero rows are
/// bounded by the larger pad (the bands are made later).
ConvCubeTiling candidateTiling(const ConvGeometry &g, int64_t rowsT, int64_t tilesPerBand,
                               bool split, int64_t ocn, int64_t nt, int64_t kf, bool panel,
                               bool smallStaging, int64_t bandPlanes) {
  int64_t margin = split ? g.padTop + g.padBottom : 0;
  ConvCubeTiling t;
  t.bandPlanes = bandPlanes;
  t.rowsT = rowsT;
  t.bufRows = windowInputRows(g, tilesPerBand * rowsT) + margin;
  t.slackRows = (tilesPerBand - 1) * rowsT * g.sh + margin;
  t.ocn = ocn;
  t.nt = nt;
  t.kf = kf;
  t.panelResident = panel;
  t.zeroRows = std::max(g.padTop, g.padBottom);
  t.smallStaging = smallStaging;
  return t;
}

/// Bands of this many tiles or more start with a band of one tile when a
/// block holds one image (planConv).
constexpr int64_t kOneTileFirstBandFrom = 3;

/// The most M tiles a block feeds together (emitFedBlock).
constexpr int64_t kMaxFedTiles = 4;
/// The largest share of a fed tile's compute its store may take.
constexpr double kFedStoreShare = 0.25;

/// Whether the block's M tiles take the weight's K parts together
/// (plan.accumulators, emitFedBlock): a resident weight that loads in
/// parts, one image and one channel tile a block, every tile in the two
/// band buffers at once and its accumulator in L0C.
void planFedTiles(const ConvInfo &info, const soc::SocSpec &soc, ConvPlan &plan) {
  if (!plan.panelResident || plan.bandPlanes || plan.images != 1 || plan.ocn != plan.nt ||
      plan.bands.size() > 2)
    return;
  int64_t tiles = 0;
  for (const Band &bd : plan.bands)
    tiles += (bd.outRows + plan.rowsT - 1) / plan.rowsT;
  // After the last part arrives, every tile still runs that part: a share
  // of the work that must be well under one tile's (two K parts for two
  // tiles of a 16 x 16 x 128 conv: 8.0 -> 9.2 us fed).
  int64_t parts = int64_t(kPartsOf(info, plan).size());
  if (tiles < 2 || tiles > kMaxFedTiles || parts < 2 * tiles)
    return;
  // All of the tiles' stores (and residual loads) come after the last
  // part, on the core's one GM port: only for tiles that compute for much
  // longer than they store (a 28 x 28 x 128 conv's, not a 56 x 56 x 64
  // one's, whose second tile is better computed while the first stores).
  int64_t m1 = mpOf(plan.rowsT, info.g.ow) / 16;
  int64_t steps = (info.c1 * info.taps + plan.kf - 1) / plan.kf;
  TileCycles tile = tileCycles(soc, m1, plan.nt, plan.kf, steps);
  double tileBytes = double(plan.rowsT) * info.g.ow * plan.nt * 32 *
                     (1 + (info.tensors.residualBytes ? 1 : 0));
  double coreBytesPerCycle = soc.gm_bytes_per_second / soc.clock_hz / double(soc.ai_core_count);
  if (tileBytes / coreBytesPerCycle > kFedStoreShare * std::max(tile.cube, tile.mte1))
    return;
  ConvCubeTiling fed = plan.tiling();
  fed.accumulators = tiles;
  if (convCubeTilingMismatch(info.g, fed, info.tensors, soc).empty())
    plan.accumulators = tiles;
}

/// Row stacking: the bands as the conv's own geometry has them (the
/// input rows they stage, their pad rows, the same row split with its pad
/// rows on the edge block), or false when that split cannot be one program
/// there. The stacked map has no pad rows, so the bands' pads tell apart
/// the bands whose staging differs (band runs of one shape are loops).
bool planInputBands(const ConvInfo &info, ConvPlan &plan) {
  if (!info.tensors.stackedFrom)
    return true;
  const ConvGeometry &from = *info.tensors.stackedFrom;
  SmallVector<Band> bands;
  if (plan.rowParts == 1) {
    for (const Band &bd : plan.bands)
      bands.push_back(rowBandAt(from, bd.outRow0, bd.outRows));
    plan.bands = bands;
    plan.stagingMarginTop = 0;
    return true;
  }
  RowSplit split;
  if (!planRowSplit(from, plan.rowParts, plan.tilesPerBand * plan.rowsT, split, bands) ||
      split.topRows != plan.topRows || bands.size() != plan.bands.size())
    return false;
  plan.bands = bands;
  plan.stagingMarginTop = split.marginTop;
  return true;
}

} // namespace

std::optional<ConvInfo> stackedRows(const ConvInfo &info, ActLayout xLayout) {
  const ConvGeometry &g = info.g;
  // A map row's kh rows are the blocks of one vcopy repeat (8 of them).
  if (xLayout != ActLayout::NCHW || g.c >= kC0 || g.kh < 2 || g.kh > 8 || g.w > 4080)
    return std::nullopt;
  int64_t perPlane = kC0 / g.kh, planes = (g.c + perPlane - 1) / perPlane;
  if (planes >= g.kh)
    return std::nullopt; // no fewer K fractals
  ConvInfo s = info;
  s.tensors.stackedFrom = g;
  s.stackChannels = perPlane;
  s.g.c = planes * kC0;
  s.g.h = g.oh;
  s.g.kh = s.g.sh = s.g.dh = 1;
  s.g.padTop = s.g.padBottom = 0;
  s.c1 = planes;
  s.taps = g.kw;
  return s;
}

std::vector<float> stackedWeight(ArrayRef<float> w, const ConvGeometry &from, int64_t perPlane,
                                 int64_t planes) {
  int64_t c1 = planes * kC0;
  std::vector<float> out(size_t(from.oc * c1 * from.kw), 0.0f);
  for (int64_t oc = 0; oc < from.oc; ++oc)
    for (int64_t c = 0; c < from.c; ++c)
      for (int64_t dy = 0; dy < from.kh; ++dy)
        for (int64_t kx = 0; kx < from.kw; ++kx) {
          int64_t lane = (c / perPlane) * kC0 + (c % perPlane) * from.kh + dy;
          out[size_t((oc * c1 + lane) * from.kw + kx)] =
              w[size_t(((oc * from.c + c) * from.kh + dy) * from.kw + kx)];
        }
  return out;
}

SmallVector<std::pair<int64_t, int64_t>> kPartsOf(const ConvInfo &info, const ConvCubeTiling &t) {
  int64_t total = info.c1 * info.taps, kf = t.kf, period = kPeriod(kf, info.taps);
  int64_t periods = (total / kf) / period;
  // Parts that cut periods make their steps static: not past 64 of them.
  int64_t steps = (total + kf - 1) / kf;
  bool byPeriods = periods >= 8 || (periods >= 2 && steps > kMaxStaticKSteps);
  int64_t unit = byPeriods ? period * kf : kf;
  int64_t units = byPeriods ? periods : steps;
  int64_t parts = std::max<int64_t>(1, std::min<int64_t>(8, units));
  if (!byPeriods)
    parts = std::max<int64_t>(1, std::min(parts, total * t.ocn * 512 / kMinKPartBytes));
  SmallVector<std::pair<int64_t, int64_t>> out;
  for (int64_t p = 0; p < parts; ++p) {
    int64_t u0 = units * p / parts, u1 = units * (p + 1) / parts;
    out.push_back({u0 * unit, p + 1 == parts ? total : u1 * unit});
  }
  return out;
}

bool planConv(const ConvInfo &info, const soc::SocSpec &soc, ConvPlan &plan,
              bool allowRowSplit) {
  const ConvGeometry &g = info.g;
  int64_t k1 = info.c1 * info.taps;
  auto fits = [&](const ConvCubeTiling &t) {
    return convCubeTilingMismatch(g, t, info.tensors, soc).empty();
  };

  // Each block split (batch parts x channel parts, or output-row parts) and
  // channel tile is estimated per block: the Cube's fractal steps (and each
  // mmad's start), MTE1's load_3d and B moves, and its GM bytes (the map
  // rows of its output rows with their halo, for each of its images, its
  // weight slice once when it stays in L1, else once per M tile, and its
  // share of the output) at a core's share of the chip's bandwidth, or all
  // blocks' bytes at the whole of it when they read more together: the
  // GM-bytes and roofline rule of the matmul's planGrid (MatmulPlan.h). A
  // block alone cannot take the chip's bandwidth, so a GM-bound conv on
  // fewer blocks than cores is slower by their ratio. M tiles are whole
  // output rows, as many as make about kTargetTilePositions positions, or
  // fewer when no candidate's buffers fit with that many.
  using C = PlanCosts;
  double gmPerCycle = soc.gm_bytes_per_second / soc.clock_hz;
  double inBytes = info.tensors.f32Input ? 4 : 2;
  // A stacked map row is sh rows of the input's channels in GM.
  double rowBytes = info.tensors.stackedFrom
                        ? double(g.w) * info.tensors.stackedFrom->c * info.tensors.stackedFrom->sh *
                              inBytes
                        : double(g.w) * info.c1 * 16 * inBytes;
  // A fused max pool stores a quarter of the map.
  double outBytes = double(g.n) * g.oh * g.ow * info.oc1 * 32 / (info.tensors.maxPool ? 4 : 1);
  std::optional<Candidate> best;
  int64_t cores = soc.ai_core_count;
  // With the band split over channel parts (bandPlanes planes each, one
  // tile a band), every part is a band load of its own.
  // The fused max pool takes whole images a block and tiles of pooled row
  // pairs (Conv.cpp's poolTile).
  if (info.tensors.maxPool)
    allowRowSplit = false;
  auto search = [&](int64_t rowsT, int64_t bandPlanes) {
    if (info.tensors.maxPool && rowsT % 2)
      return;
    int64_t mp = mpOf(rowsT, g.ow), m1 = mp / 16;
    int64_t planeParts = bandPlanes ? (info.c1 + bandPlanes - 1) / bandPlanes : 1;
    bool rowSplit = allowRowSplit && !bandPlanes;
    for (int64_t rp = 1; rp <= (rowSplit ? std::min(cores, g.oh) : 1); ++rp) {
      if (g.oh % rp)
        continue;
      int64_t rowsPerBlock = g.oh / rp;
      int64_t tilesPerBlock = (rowsPerBlock + rowsT - 1) / rowsT;
      // Rows split over blocks only when nothing else is: two bands a block.
      if (rp > 1 && tilesPerBlock < 2)
        continue;
      double fmapBytes =
          rowBytes * (rp == 1 ? g.h : std::min(g.h, windowInputRows(g, rowsPerBlock) + tilesPerBlock));
      for (int64_t bp = 1; bp <= std::min(cores / rp, g.n); ++bp) {
        if (g.n % bp || (rp > 1 && bp > 1))
          continue;
        for (int64_t op = 1; op * bp * rp <= cores && op <= info.oc1; ++op) {
          // Rows and channel parts together: two row parts (the edge
          // block is b floordiv G, the channel part b mod G).
          if (info.oc1 % op || (op > 1 && g.oc % 16) || (rp > 2 && op > 1))
            continue;
          int64_t ocn = info.oc1 / op, images = g.n / bp, blocks = bp * op * rp;
          for (int64_t nt = std::min(ocn, kMaxChannelFractals); nt >= 1; --nt) {
            // One band of one tile, a one-fractal K step; the small UB
            // staging only when the usual one does not fit.
            auto tiling = [&](int64_t kf, bool panel, bool small) {
              return candidateTiling(g, rowsT, 1, rp > 1, ocn, nt, kf, panel, small, bandPlanes);
            };
            bool small = !fits(tiling(1, false, false));
            if (small && !fits(tiling(1, false, true)))
              continue;
            // The largest K step L0A and L0B take (their bytes grow with it).
            int64_t lo = 1, hi = std::min(k1, int64_t(soc.max_repeat));
            while (lo < hi) {
              int64_t mid = (lo + hi + 1) / 2;
              if (fits(tiling(mid, false, small)))
                lo = mid;
              else
                hi = mid - 1;
            }
            int64_t kf = kStepFractals(info.taps, bandPlanes ? bandPlanes : info.c1, lo);
            bool panel = fits(tiling(kf, true, small));
            int64_t steps = (k1 + kf - 1) / kf + planeParts - 1, ocTiles = (ocn + nt - 1) / nt;
            double tiles = double(images) * tilesPerBlock * ocTiles;
            TileCycles tile = tileCycles(soc, m1, nt, kf, steps);
            double cube = tiles * tile.cube, mte1 = tiles * tile.mte1;
            double weightBytes = double(k1) * ocn * 512 * (panel ? 1 : images * tilesPerBlock);
            double blockBytes = images * fmapBytes + weightBytes + outBytes / blocks;
            double gm = std::max(blockBytes * cores, blockBytes * blocks) / gmPerCycle;
            // A streamed weight is one DMA a K step, each paying MTE2's start-up.
            // A plane split loads each band in parts, each a DMA of its own.
            double mte2 = gm + (panel ? 4 : tiles * steps) * C::gmStartup +
                          images * tilesPerBlock * (planeParts - 1) * C::gmStartup;
            // The fused max pool's vector work (Conv.cpp's poolTile): per
            // tile and channel fractal rows + 4 instructions, two passes
            // over the row pairs (a repeat is 8 pixels); its fixed costs
            // favour taller tiles (the ResNet-18 stem at batch 8: 2-row
            // tiles 171.0 us, 4-row 155.9).
            double vec = info.tensors.maxPool
                             ? tiles * nt *
                                   ((rowsT + 4) * C::vectorStartup +
                                    2.0 * rowsT * g.ow / 16 / C::vectorRepeatsPerCycle)
                             : 0;
            double cycles = std::max({cube, mte1, mte2, vec});
            int64_t bestBlocks = best ? best->batchParts * best->ocParts * best->rowParts : 0;
            bool better = !best || cycles < best->cycles * 0.97 ||
                          (cycles < best->cycles * 1.03 && blocks > bestBlocks);
            if (better)
              best = Candidate{bp, op, rp, rowsT, nt, kf, panel, small, bandPlanes, cycles};
          }
        }
      }
    }
  };
  // Larger M tiles pay off where load_3d's positions mode loads them (as
  // many instructions a K step as its fractals, not one per 16 positions),
  // smaller ones where two row parts need two tiles a block (a 14 x 14
  // map's 1x1 conv of 64 output channels: 4 channel parts x 2 row parts
  // instead of 4 blocks reading the whole map): every size from one row
  // to kMaxTilePositions is ranked by the estimate.
  int64_t targetRows = std::max<int64_t>(1, std::min(g.oh, kTargetTilePositions / g.ow));
  int64_t maxRows = std::max(targetRows, std::min(g.oh, kMaxTilePositions / g.ow));
  // A fused max pool's tiles are row pairs (the fit check's smallest).
  if (info.tensors.maxPool)
    maxRows = std::max<int64_t>(maxRows, 2);
  // The target first, then larger, then smaller: a candidate replaces the
  // best only when clearly faster, so near ties keep the earlier.
  for (int64_t rowsT = targetRows; rowsT <= maxRows; ++rowsT)
    search(rowsT, 0);
  for (int64_t rowsT = targetRows - 1; rowsT >= 1; --rowsT)
    search(rowsT, 0);
  // Only when no band of all planes fits: the fewest channel parts, then
  // the most rows.
  for (int64_t parts = 2, planes = 0; parts <= info.c1 && !best; ++parts) {
    int64_t p = (info.c1 + parts - 1) / parts;
    if (p == planes)
      continue;
    planes = p;
    for (int64_t rowsT = targetRows; rowsT >= 1 && !best; --rowsT)
      search(rowsT, planes);
  }
  if (!best)
    return false;
  plan.batchParts = best->batchParts;
  plan.ocParts = best->ocParts;
  plan.rowParts = best->rowParts;
  plan.blockDim = plan.batchParts * plan.ocParts * plan.rowParts;
  plan.images = g.n / plan.batchParts;
  plan.ocn = info.oc1 / plan.ocParts;
  plan.rowsT = best->rowsT;
  plan.nt = best->nt;
  plan.kf = best->kf;
  plan.panelResident = best->panelResident;
  plan.smallStaging = best->smallStaging;
  plan.bandPlanes = best->bandPlanes;

  // Bands: as many whole tiles as two band buffers (and the resident
  // weight slice) leave room for in L1.
  bool split = plan.rowParts > 1;
  int64_t rows = g.oh / plan.rowParts;
  int64_t tilesPerPart = (rows + plan.rowsT - 1) / plan.rowsT;
  auto bandsFit = [&](int64_t tilesPerBand) {
    return fits(candidateTiling(g, plan.rowsT, tilesPerBand, split, plan.ocn, plan.nt, plan.kf,
                                plan.panelResident, plan.smallStaging, plan.bandPlanes));
  };
  plan.tilesPerBand = 1;
  while (!plan.bandPlanes && plan.tilesPerBand < tilesPerPart && bandsFit(plan.tilesPerBand + 1))
    ++plan.tilesPerBand;
  // At least two bands when a block holds one image, so that a band loads
  // while the Cube works on the other (and a row split's edge block has a
  // top and a bottom band); bands of equal size otherwise.
  int64_t nbands = (tilesPerPart + plan.tilesPerBand - 1) / plan.tilesPerBand;
  if (nbands == 1 && tilesPerPart > 1 && (plan.images == 1 || split) && !plan.bandPlanes)
    nbands = 2;
  plan.tilesPerBand = (tilesPerPart + nbands - 1) / nbands;
  if (split) {
    if (planRowSplit(g, plan) && planInputBands(info, plan)) {
      plan.zeroRows = info.tensors.stackedFrom ? 0 : bandZeroRows(plan.bands);
      planFedTiles(info, soc, plan);
      return true;
    }
    // Not one uniform program: plan again without the row split.
    plan = ConvPlan();
    return planConv(info, soc, plan, /*allowRowSplit=*/false);
  }
  int64_t rowsPerBand = plan.tilesPerBand * plan.rowsT;
  plan.bufRows = windowInputRows(g, rowsPerBand);
  plan.slackRows = (plan.tilesPerBand - 1) * plan.rowsT * g.sh;
  // A block of one image loads its first band before any tile can start:
  // with bands of several tiles, a first band of one tile starts the Cube
  // a band's load earlier (ResNet-18's 56 x 56 convs at batch 8, a block
  // an image: 74.3 -> 67.9 us).
  int64_t firstRows = 0;
  if (plan.images == 1 && !plan.bandPlanes && plan.tilesPerBand >= kOneTileFirstBandFrom) {
    firstRows = plan.rowsT;
    plan.bands.push_back(rowBandAt(g, 0, firstRows));
  }
  for (int64_t r = firstRows; r < g.oh; r += rowsPerBand)
    plan.bands.push_back(rowBandAt(g, r, std::min(rowsPerBand, g.oh - r)));
  planInputBands(info, plan);
  plan.zeroRows = info.tensors.stackedFrom ? 0 : bandZeroRows(plan.bands);
  planFedTiles(info, soc, plan);
  return true;
}

} // namespace vinci::lower::conv
