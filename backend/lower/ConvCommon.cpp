//===- ConvCommon.cpp - shared by the convolution-family templates --------===//
#include "backend/lower/ConvCommon.h"

#include "dv/DvOps.h"
#include "vinci/soc.h"

#include <optional>

using namespace mlir;

namespace vinci::lower {

ActLayout activationLayout(func::CallOp call, unsigned index) {
  return layoutOfArgument(call, index) == TensorLayout::NC1HWC0 ? ActLayout::NC1HWC0
                                                                  : ActLayout::NCHW;
}

Type layoutGmType(func::CallOp call, unsigned index, Type type) {
  if (layoutOfArgument(call, index) != TensorLayout::NC1HWC0)
    return type;
  Value tensor = index < call.getNumOperands() ? call.getOperand(index)
                                               : call.getResult(index - call.getNumOperands());
  auto shaped = cast<RankedTensorType>(tensor.getType());
  return dv::GmType::get(type.getContext(), storageShape(shaped, TensorLayout::NC1HWC0),
                         dv::getElementType(type));
}

SmallVector<int> nc1hwc0ClassesOf(func::CallOp call, ArrayRef<std::pair<unsigned, int>> classOf) {
  SmallVector<int> classes(call.getNumOperands() + call.getNumResults(),
                           KernelCapabilities::kNdOnly);
  for (auto [index, layoutClass] : classOf)
    if (index < classes.size())
      classes[index] = layoutClass;
  return classes;
}

int64_t windowInputRows(const ConvGeometry &g, int64_t outRows) {
  return (outRows - 1) * g.sh + (g.kh - 1) * g.dh + 1;
}

RowBand rowBandAt(const ConvGeometry &g, int64_t outRow0, int64_t outRows) {
  RowBand b;
  b.outRow0 = outRow0;
  b.outRows = outRows;
  b.inRow0 = outRow0 * g.sh - g.padTop;
  int64_t need = windowInputRows(g, outRows);
  b.zeroTop = std::max<int64_t>(0, -b.inRow0);
  int64_t realStart = b.inRow0 + b.zeroTop;
  b.realRows = std::max<int64_t>(0, std::min(b.inRow0 + need, g.h) - realStart);
  b.zeroBottom = need - b.zeroTop - b.realRows;
  return b;
}

ChannelGroupSplit splitChannelGroups(const ConvGeometry &g, int64_t cores, bool narrowGroups,
                                     bool fewestPairs) {
  constexpr int64_t kC0 = 16;
  // Batch parts x group parts that divide the images and groups evenly
  // (one program for every block), the most blocks first.
  auto split = [&](int64_t cg) {
    ChannelGroupSplit s;
    s.cg = cg;
    s.groups = (g.c + cg - 1) / cg;
    for (int64_t b = 1; b <= std::min(cores, g.n); ++b)
      for (int64_t p = 1; p * b <= cores && p <= s.groups; ++p) {
        if (g.n % b || s.groups % p || (p > 1 && g.c % cg))
          continue;
        if (b * p > s.blocks())
          s.batchParts = b, s.groupParts = p;
      }
    return s;
  };
  ChannelGroupSplit best = split(kC0);
  if (narrowGroups)
    for (int64_t cg = kC0 / 2; cg >= 1 && best.blocks() < cores; cg /= 2) {
      if (g.c % cg)
        continue;
      ChannelGroupSplit s = split(cg);
      int64_t pairs = s.pairsPerBlock(g.n), bestPairs = best.pairsPerBlock(g.n);
      bool better = fewestPairs ? pairs < bestPairs || (pairs == bestPairs && s.blocks() > best.blocks())
                                : s.blocks() > best.blocks();
      if (better)
        best = s;
    }
  return best;
}

Affine RowSplit::onEdge(Value blockIdx, int64_t coef) const {
  if (parts == 1)
    return Affine();
  return Affine::floorDiv(blockIdx, channelParts > 1 ? channelParts : parts - 1, coef);
}

Affine RowSplit::bandRow(Value blockIdx, int64_t oh, int64_t localRow, int64_t group) const {
  if (parts == 1)
    return Affine(localRow);
  int64_t edgeRow0 = group == 0 ? 0 : oh - rows;
  Affine row(topRows + localRow);
  // With two parts the only middle block is block 0 (b mod 1 = 0).
  if (parts > 2)
    row = row + Affine::mod(blockIdx, parts - 1, rows);
  return row + onEdge(blockIdx, edgeRow0 - topRows);
}

bool planRowSplit(const ConvGeometry &g, int64_t parts, int64_t rowsPerBand, RowSplit &split,
                  SmallVectorImpl<RowBand> &bands) {
  int64_t P = parts, R = g.oh / P;
  if (P < 2 || g.oh % P || rowsPerBand < 1)
    return false;
  SmallVector<RowBand> local;
  for (int64_t r = 0; r < R; r += rowsPerBand)
    local.push_back(rowBandAt(g, r, std::min(rowsPerBand, R - r)));
  if (local.size() < 2)
    return false;
  int64_t topBands = int64_t(local.size() + 1) / 2;
  int64_t T = local[topBands].outRow0, zt = 0, zb = 0;
  SmallVector<RowBand> planned;
  for (size_t i = 0; i < local.size(); ++i) {
    const RowBand &l = local[i];
    int64_t need = windowInputRows(g, l.outRows);
    // Middle blocks 0 and P - 2 bound the others.
    for (int64_t m : {int64_t(0), P - 2}) {
      RowBand mid = rowBandAt(g, T + m * R + l.outRow0, l.outRows);
      if (mid.zeroTop || mid.zeroBottom)
        return false;
    }
    bool top = int64_t(i) < topBands;
    RowBand edge = rowBandAt(g, top ? l.outRow0 : g.oh - R + l.outRow0, l.outRows);
    bool first = i == 0, last = i + 1 == local.size();
    if ((edge.zeroTop && !first) || (edge.zeroBottom && !last) || edge.realRows == 0)
      return false;
    if (first && edge.zeroTop && need > g.h)
      return false; // the shifted load reads rows [0, need)
    if (last && edge.zeroBottom && edge.inRow0 - edge.zeroBottom < 0)
      return false;
    RowBand b = l;
    b.group = top ? 0 : 1;
    b.zeroTop = first ? edge.zeroTop : 0;
    b.zeroBottom = last ? edge.zeroBottom : 0;
    b.realRows = need; // loaded by every block
    zt = std::max(zt, b.zeroTop);
    zb = std::max(zb, b.zeroBottom);
    planned.push_back(b);
  }
  split.parts = P;
  split.rows = R;
  split.topRows = T;
  split.marginTop = zb;
  split.marginBottom = zt;
  bands.assign(planned.begin(), planned.end());
  return true;
}

int64_t chooseRowParts(const ConvGeometry &g, const ChannelGroupSplit &groups,
                       const soc::SocSpec &soc, double vectorCyclesPerPixel, int64_t maxBandRows) {
  constexpr int64_t kC0 = 16, kPixelBytes = 32;
  // The planner's own estimate of a band's fixed cost, in cycles: a load
  // and a store, each a GM transfer's start-up (~300), two in flight.
  constexpr double kBandCycles = 300;
  int64_t cores = soc.ai_core_count;
  double corePerCycle = soc.gm_bytes_per_second / soc.clock_hz / double(cores);
  auto cost = [&](int64_t pairs, int64_t outRows, int64_t pixelBytes, bool split) {
    int64_t inRows = std::min(g.h, windowInputRows(g, outRows));
    double bytes = double(pairs) * double(inRows * g.w + outRows * g.ow) * double(pixelBytes);
    double vector = double(pairs) * double(outRows * g.ow) * vectorCyclesPerPixel;
    int64_t bands = (outRows + maxBandRows - 1) / std::max<int64_t>(1, maxBandRows);
    if (bands == 1 && outRows > 1 && (pairs == 1 || split))
      bands = 2;
    return std::max(bytes / corePerCycle, vector) + double(pairs * bands) * kBandCycles;
  };
  // A narrow group moves fewer bytes a pixel (NCHW), the same vector work.
  double best = cost(groups.pairsPerBlock(g.n), g.oh, groups.cg * 2, false);
  int64_t bestParts = 1, pairs = g.n * ((g.c + kC0 - 1) / kC0);
  for (int64_t p = 2; p <= std::min(cores, g.oh / 2); ++p) {
    if (g.oh % p)
      continue;
    double c = cost(pairs, g.oh / p, kPixelBytes, true);
    // Splitting rows costs halo rows and bands: only for a clear gain over
    // no split; among splits the cheapest (ResNet-18's max pool and a
    // 56 x 56 depthwise conv stayed on 7 row parts where 8 were 10% less).
    if (c < (bestParts == 1 ? best * 0.9 : best))
      best = c, bestParts = p;
  }
  return bestParts;
}

void emitBandsPrefetched(TileBuilder &t, ArrayRef<RowBand> bands, int64_t rowsPerBand,
                         function_ref<Affine(int64_t, const RowBand &)> rowOf,
                         function_ref<void(const BandAt &)> load,
                         function_ref<void(const BandAt &)> compute, bool firstLoaded,
                         function_ref<void()> loadAfter,
                         function_ref<void(const BandAt &, function_ref<void()>)> computeFirst) {
  if (bands.empty())
    return;
  auto at = [&](size_t k) {
    return BandAt{&bands[k], rowOf(bands[k].outRow0, bands[k]), int64_t(k % 2)};
  };
  auto step = [&](const BandAt &band, std::optional<BandAt> next) {
    if (next)
      load(*next);
    else if (loadAfter)
      loadAfter();
    compute(band);
  };
  auto nextOf = [&](size_t k) {
    return k + 1 < bands.size() ? std::optional<BandAt>(at(k + 1)) : std::nullopt;
  };
  if (!firstLoaded)
    load(at(0));
  size_t i = 0;
  if (computeFirst) {
    std::optional<BandAt> next = nextOf(0);
    computeFirst(at(0), [&] {
      if (next)
        load(*next);
      else if (loadAfter)
        loadAfter();
    });
    i = 1;
  }
  while (i < bands.size()) {
    size_t j = i + 1;
    while (j < bands.size() && bands[j].sameShape(bands[i]))
      ++j;
    int64_t run = int64_t(j - i), parity0 = int64_t(i % 2);
    int64_t pairs = run >= 4 ? run / 2 - 1 : 0; // looped pairs; the next is static
    t.loop(pairs, false, [&](Affine pair) {
      auto band = [&](int64_t k) {
        Affine row = pair * (2 * rowsPerBand) + rowOf(bands[i].outRow0 + k * rowsPerBand, bands[i]);
        return BandAt{&bands[i], row, (parity0 + k) % 2};
      };
      step(band(0), band(1));
      step(band(1), band(2));
    });
    for (size_t k = i + size_t(2 * pairs); k < j; ++k)
      step(at(k), nextOf(k));
    i = j;
  }
}

void emitGroupsPrefetched(TileBuilder &t, const Affine &group0, int64_t groups, int64_t cg,
                          int64_t lastChannels, ArrayRef<RowBand> bands, int64_t rowsPerBand,
                          function_ref<Affine(int64_t, const RowBand &)> rowOf,
                          function_ref<void(const GroupAt &)> loadGroup,
                          function_ref<void(const GroupAt &)> beginGroup,
                          function_ref<void(const GroupAt &, const BandAt &)> load,
                          function_ref<void(const GroupAt &, const BandAt &)> compute) {
  if (groups < 1 || bands.empty())
    return;
  auto prologue = [&](const GroupAt &at) {
    loadGroup(at);
    load(at, BandAt{&bands[0], rowOf(bands[0].outRow0, bands[0]), 0});
  };
  // One group's bands; `next`, when given, is loaded during its last band.
  auto body = [&](const GroupAt &at, const GroupAt *next) {
    beginGroup(at);
    emitBandsPrefetched(
        t, bands, rowsPerBand, rowOf, [&](const BandAt &band) { load(at, band); },
        [&](const BandAt &band) { compute(at, band); }, /*firstLoaded=*/true,
        next ? function_ref<void()>([&] { prologue(*next); }) : function_ref<void()>());
  };
  int64_t full = lastChannels == cg ? groups : groups - 1;
  if (bands.size() % 2) {
    // The last band and the next group's first would share a buffer.
    t.loop(full, false, [&](Affine g) {
      GroupAt at{group0 + g, g, cg};
      prologue(at);
      body(at, nullptr);
    });
    if (full < groups) {
      GroupAt last{group0 + Affine(groups - 1), Affine(groups - 1), lastChannels};
      prologue(last);
      body(last, nullptr);
    }
    return;
  }
  auto groupAt = [&](int64_t k) {
    return GroupAt{group0 + Affine(k), Affine(k), k == groups - 1 ? lastChannels : cg};
  };
  prologue(groupAt(0));
  // Full groups 0 .. looped - 1 load a full group after them.
  int64_t looped = std::max<int64_t>(0, full - 1);
  t.loop(looped, false, [&](Affine g) {
    GroupAt at{group0 + g, g, cg}, next{group0 + g + Affine(1), g + Affine(1), cg};
    body(at, &next);
  });
  for (int64_t k = looped; k < groups; ++k) {
    GroupAt next = k + 1 < groups ? groupAt(k + 1) : GroupAt{};
    body(groupAt(k), k + 1 < groups ? &next : nullptr);
  }
}

int64_t bandRowsFor(int64_t rows, int64_t maxRows, int64_t pairsPerBlock, bool rowSplit) {
  int64_t nbands = (rows + maxRows - 1) / maxRows;
  if (nbands == 1 && rows > 1 && (pairsPerBlock == 1 || rowSplit))
    nbands = 2;
  int64_t bandRows = (rows + nbands - 1) / nbands;
  if (pairsPerBlock == 1)
    return bandRows;
  // The fewest bands of equal size that are an even count.
  for (int64_t n = nbands; n <= rows; ++n) {
    int64_t r = (rows + n - 1) / n;
    if (((rows + r - 1) / r) % 2 == 0)
      return r;
  }
  return bandRows;
}

} // namespace vinci::lower
