//===- ConvCommon.cpp - shared by the convolution-family templates --------===//
#include "backend/lower/ConvCommon.h"

#include "dv/DvOps.h"

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

void emitBandsPrefetched(TileBuilder &t, ArrayRef<RowBand> bands, int64_t rowsPerBand,
                         function_ref<Affine(int64_t, const RowBand &)> rowOf,
                         function_ref<void(const BandAt &)> load,
                         function_ref<void(const BandAt &)> compute) {
  if (bands.empty())
    return;
  auto at = [&](size_t k) {
    return BandAt{&bands[k], rowOf(bands[k].outRow0, bands[k]), int64_t(k % 2)};
  };
  auto step = [&](const BandAt &band, std::optional<BandAt> next) {
    if (next)
      load(*next);
    compute(band);
  };
  auto nextOf = [&](size_t k) {
    return k + 1 < bands.size() ? std::optional<BandAt>(at(k + 1)) : std::nullopt;
  };
  load(at(0));
  size_t i = 0;
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

} // namespace vinci::lower
