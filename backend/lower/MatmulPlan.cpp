//===- MatmulPlan.cpp - the Cube matmul's block grid and tiles ------------===//
//
// MatmulPlan.h says what is chosen; this file how: each candidate grid is
// tiled to fit the SoC's buffers (planTiles) and ranked by its roofline
// (blockBytes, vectorPasses and the Cube work) in planGrid.
//
//===----------------------------------------------------------------------===//
#include "backend/lower/MatmulPlan.h"

#include "passes/KernelRules.h"
#include "vinci/soc.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>
#include <optional>

using namespace mlir;

namespace vinci::lower::matmul {
namespace {

/// The most K steps a block runs straight (Plan::straightKSteps): each is a
/// dozen instructions, against the ISA's program limit.
constexpr int64_t kMaxStraightKSteps = 64;

/// K steps of at most `kt` rows, their count made 1 or even where it can
/// be (two slots alternate through them; when the block has several tiles,
/// a tile of a single step of at least 32 rows is cut in two so that
/// consecutive tiles alternate slots as well).
int64_t evenKSteps(int64_t K, int64_t &kt, bool severalTiles) {
  auto count = [&](int64_t t) { return (K + t - 1) / t; };
  int64_t steps = count(kt);
  if (steps == 1 && K >= 32 && severalTiles) {
    kt = roundUp((K + 1) / 2, 16);
    return count(kt);
  }
  // More, shallower steps until their count is even (16-row steps round
  // the depth up, so a target count may come out odd again: aim higher).
  // An odd count of 16-row steps stays: the slots then alternate within a
  // tile only.
  for (int64_t target = steps + 1; steps > 1 && steps % 2 && kt > 16; ++target) {
    kt = roundUp((K + target - 1) / target, 16);
    steps = count(kt);
  }
  return steps;
}

/// Tiles of at most `limit` (a multiple of `step`) that cut `extent` into
/// equal parts where they can.
int64_t balancedTile(int64_t extent, int64_t limit, int64_t step) {
  int64_t tiles = (extent + limit - 1) / limit;
  return std::min(limit, roundUp((extent + tiles - 1) / tiles, step));
}

/// Tile sizes for `plan`'s block that fit the SoC's buffers with two slots
/// of every K-step buffer; false if not even 16 x 16 x 16 fits.
bool planTiles(const MatmulInfo &info, Plan &plan, ArrayRef<Type> gmElements, unsigned outArg,
               const soc::SocSpec &soc) {
  auto bytes = [&](soc::Space s) { return static_cast<int64_t>(soc.bufferBytes(s)); };
  auto eBytes = [&](unsigned arg) { return int64_t(gmElements[arg].isF16() ? 2 : 4); };
  bool aF32 = !gmElements[info.aArg].isF16(), bF32 = !gmElements[info.bArg].isF16();
  bool plainOut = info.epilogue.empty() && !info.rowSoftmax;
  int64_t eOut = plainOut ? eBytes(outArg) : (gmElements[outArg].isF16() ? 6 : 4);
  int64_t KpAll = roundUp(info.K, 16);
  int64_t D = info.attention ? info.headDim : 0;
  // Row operands (a bias) of `rowCols` columns: a tile's, or the block's.
  auto ubBytes = [&](int64_t Mt, int64_t Nt, int64_t Kt, int64_t rowCols) {
    int64_t ub = (aF32 ? Mt * Kt * 6 : 0) + (bF32 ? Kt * Nt * 6 : 0) + Mt * Nt * eOut + 256;
    bool gelu = false;
    for (const Epilogue &e : info.epilogue) {
      gelu |= e.kind == Epilogue::Unary && e.op == Epilogue::Gelu;
      int64_t raw = e.kind == Epilogue::Unary || e.kind == Epilogue::Scalar ? 0 : eBytes(e.arg);
      if (e.kind == Epilogue::Row || e.kind == Epilogue::Elem)
        ub += roundUp(rowCols, 128) * (4 + (raw == 4 ? 0 : raw)) + 256;
      // A row operand's repeat pattern: 256 bytes per fractal column.
      if (e.kind == Epilogue::Row)
        ub += roundUp(Nt, 16) / 16 * 256;
      if (e.kind == Epilogue::Full)
        ub += Mt * Nt * (4 + (raw == 4 ? 0 : raw));
    }
    if (gelu)
      ub += Mt * Nt * 4;
    if (info.rowSoftmax)
      ub += 2 * (Mt * 16 + kRowRepeatSlack) * 4 + 2 * kStatLanes * 4;
    // Attention's PV matmul: its [Mt, D] result, the f16 probabilities, V
    // through UB when it is f32.
    if (info.attention)
      ub += Mt * D * 4 + (gmElements[info.vArg].isF16() ? 0 : Nt * D * 6) + Mt * Nt * 2;
    return ub;
  };
  auto fits = [&](int64_t Mt, int64_t Nt, int64_t Kt, bool panel) {
    int64_t pv = D ? Mt * Nt * 2 : 0, v = D ? Nt * D * 2 : 0;
    int64_t l1 = (panel ? Mt * KpAll * 2 : 2 * Mt * Kt * 2) + 2 * Kt * Nt * 2 + pv + v;
    return l1 <= bytes(soc::Space::L1) && 2 * Mt * Kt * 2 + pv <= bytes(soc::Space::L0A) &&
           2 * Kt * Nt * 2 + v <= bytes(soc::Space::L0B) &&
           Mt * Nt * 4 + Mt * D * 4 <= bytes(soc::Space::L0C) &&
           ubBytes(Mt, Nt, Kt, Nt) <= bytes(soc::Space::UB) && Mt <= int64_t(soc.mmad_max_m) &&
           Nt <= int64_t(soc.mmad_max_n) && Kt <= int64_t(soc.mmad_max_k);
  };
  // A head-split store needs N tiles of whole heads (Nb is a multiple of D,
  // and D divides kCubeMaxNTile); a softmax epilogue keeps all N columns in
  // one tile (N <= kCubeMaxNTile).
  int64_t nStep = info.storeHeadSplitDim ? info.storeHeadSplitDim
                  : info.rowSoftmax      ? roundUp(info.N, 16)
                                         : 16;
  int64_t &Mt = plan.Mt, &Nt = plan.Nt, &Kt = plan.Kt;
  Mt = balancedTile(plan.Mb, 128, 16);
  // Ragged blocks: the edge block's shifted first tile must end in its
  // window, so no tile is wider than its own columns.
  int64_t ntLimit = plan.raggedEdge ? std::min(kCubeMaxNTile, plan.raggedEdge / 16 * 16)
                                    : kCubeMaxNTile;
  if (ntLimit < nStep)
    return false;
  Nt = info.rowSoftmax ? nStep : balancedTile(plan.Nb, ntLimit, nStep);
  // The K step: as deep as two L0A/L0B slots allow.
  auto kFor = [&](int64_t mt, int64_t nt) {
    int64_t l0 = std::min(bytes(soc::Space::L0A) / (4 * mt), bytes(soc::Space::L0B) / (4 * nt));
    return std::max<int64_t>(16, std::min({KpAll, l0 / 16 * 16, int64_t(512)}));
  };
  Kt = kFor(Mt, Nt);
  // The panel: several N tiles a row read it (or a row's A in one copy
  // has longer bursts than one per K step), and it must fit beside B.
  bool wantPanel = !(info.ta && aF32);
  while (true) {
    bool panel = wantPanel && fits(Mt, Nt, Kt, true);
    if (panel || fits(Mt, Nt, Kt, false)) {
      plan.panelA = panel;
      break;
    }
    if (Kt > 16 && Kt >= Mt && Kt >= Nt)
      Kt = roundUp(Kt / 2, 16);
    else if (Mt > 16 && Mt >= Nt)
      Mt = roundUp(Mt / 2, 16);
    else if (Nt > nStep)
      Nt = roundUp(Nt / 2, nStep);
    // Only a head-split or softmax Nt stops above 16: M and K shrink instead.
    else if (Mt > 16)
      Mt = roundUp(Mt / 2, 16);
    else if (Kt > 16)
      Kt = roundUp(Kt / 2, 16);
    else
      return false;
  }
  int64_t rowsOfTiles = plan.Bb * ((plan.Mb + Mt - 1) / Mt);
  int64_t tiles = rowsOfTiles * ((plan.Nb + Nt - 1) / Nt);
  plan.kSteps = evenKSteps(info.K, Kt, tiles > 1);
  plan.straightKSteps = rowsOfTiles == 1 && Mt == 16 && tiles * plan.kSteps <= kMaxStraightKSteps;
  plan.blockRowOperands = plan.straightKSteps &&
                          ubBytes(Mt, Nt, Kt, plan.Nb) <= bytes(soc::Space::UB);
  // B stays in L1 when several rows of tiles would read it and the block's
  // B columns fit beside A's buffers (instead of B's two K-step slots).
  // Not under a transcendental epilogue (gelu, sigmoid, tanh: exp and
  // division at several cycles a repeat): its Vector work outlasts the
  // tile's loads either way, and without B's stream to hide under, each
  // row's A panel load waits for it (BERT-base at batch 8, a layer: FFN up
  // 348 -> 384 us with B resident, where QKV went 257 -> 208 and the output
  // projection 108 -> 100). Not on a ragged grid either: the strip's
  // fractal columns start at tile columns that are multiples of 16, which
  // the edge block's shifted first tile need not be.
  bool transcendental = llvm::any_of(info.epilogue, [](const Epilogue &e) {
    return e.kind == Epilogue::Unary &&
           (e.op == Epilogue::Gelu || e.op == Epilogue::Sigmoid || e.op == Epilogue::Tanh);
  });
  int64_t aL1 = plan.panelA ? Mt * KpAll * 2 : 2 * Mt * Kt * 2;
  plan.panelB = rowsOfTiles > 1 && !info.tb && !info.bBatched && !info.attention &&
                !plan.raggedEdge && !transcendental && gmElements[info.bArg].isF16() &&
                aL1 + KpAll * roundUp(plan.Nb, 16) * 2 <= bytes(soc::Space::L1);
  return true;
}

/// GM bytes one block of `plan` moves: its A rows once per row of tiles
/// with a panel (else once per N tile), its B columns once per M tile (once
/// when they stay in L1), its output and full-tile epilogue operands once.
double blockBytes(const MatmulInfo &info, const Plan &plan, ArrayRef<Type> gmElements,
                  unsigned outArg) {
  auto e = [&](unsigned arg) { return double(gmElements[arg].isF16() ? 2 : 4); };
  double mTiles = double((plan.Mb + plan.Mt - 1) / plan.Mt);
  double nTiles = double((plan.Nb + plan.Nt - 1) / plan.Nt);
  double a = double(plan.Bb) * plan.Mb * info.K * e(info.aArg) * (plan.panelA ? 1 : nTiles);
  // B is read per batch and M tile whether it is the batch's own or one
  // weight shared by every batch (no L2 keeps it).
  double bRead = info.K * plan.Nb * e(info.bArg) * (plan.panelB ? 1 : plan.Bb * mTiles);
  double out = double(plan.Bb) * plan.Mb * plan.Nb;
  double bytes = a + bRead + out * e(outArg);
  for (const Epilogue &step : info.epilogue)
    if (step.kind == Epilogue::Full)
      bytes += out * e(step.arg);
  if (info.attention)
    bytes += double(plan.Bb) * info.N * info.headDim * e(info.vArg) * mTiles;
  return bytes;
}

/// Passes of the Vector unit over every output element of a tile (f32): the
/// move out of L0C, the epilogue steps, the softmax, the conversion to the
/// output's type or to attention's f16 probabilities. An estimate of the
/// instruction count (ops like gelu are several), not of their latency.
int64_t vectorPasses(const MatmulInfo &info, ArrayRef<Type> gmElements, unsigned outArg) {
  int64_t passes = 1;
  bool f32Tile = !info.epilogue.empty() || info.rowSoftmax;
  for (const Epilogue &e : info.epilogue) {
    if (e.kind == Epilogue::Unary && e.op == Epilogue::Gelu)
      passes += 8;
    else if (e.kind == Epilogue::Unary && (e.op == Epilogue::Sigmoid || e.op == Epilogue::Tanh))
      passes += 4;
    else if (e.kind == Epilogue::Full && !gmElements[e.arg].isF32())
      passes += 2; // the conversion, the op
    else
      passes += 1;
  }
  if (info.rowSoftmax)
    passes += info.softmax.protect ? 10 : 5;
  if (info.attention || (f32Tile && !gmElements[outArg].isF32()))
    passes += 1;
  return passes;
}

} // namespace

/// The block grid and the tiles: equal parts of the batch, the rows and the
/// columns (two of them at most, a 2-D grid), ranked by a roofline: the
/// Cube work of a block, its Vector work (the epilogue's passes at one
/// repeat a cycle) or its GM bytes at its share of the chip's bandwidth (a
/// core gets 1/cores of it), times the waves of blocks the cores run (more
/// blocks than cores only in whole waves); ties go to more blocks, then to
/// fewer bytes. BERT's attention (12 heads) runs 6 blocks of 2 heads, the
/// second head's QK^T overlapping the first one's softmax, where 12 blocks
/// of one head took two waves with the second half empty (24 blocks of half
/// a head rank within 0.2% of 6). A block reads
/// its A rows once (the panel stays in L1 while the N tiles go by) and its
/// B columns once per M tile of up to 128 rows, so splitting the rows of a
/// small activation re-reads the whole weight on every block (BERT: 128 x
/// 768 by 768 x 3072), while splitting the columns of a tall one re-reads A
/// on every block; a 2-D grid takes the cheaper mix. A head-split store's
/// column parts hold whole heads (QKV: 2304 columns of 64-wide heads split
/// 6 ways read the 3.5 MB weight once, 8 row parts 8 times); a softmax
/// epilogue keeps whole rows in a block.
bool planGrid(const MatmulInfo &info, Plan &plan, ArrayRef<Type> gmElements, unsigned outArg,
              const soc::SocSpec &soc) {
  int64_t cores = soc.ai_core_count;
  // Part counts of `extent`: 1, and equal parts of a multiple of `quantum`.
  auto parts = [&](int64_t extent, int64_t quantum) {
    SmallVector<int64_t> out = {1};
    for (int64_t d = 2; d <= std::min(extent, 4 * cores); ++d)
      if (extent % d == 0 && (extent / d) % quantum == 0)
        out.push_back(d);
    return out;
  };
  int64_t colQuantum = info.storeHeadSplitDim ? info.storeHeadSplitDim : 16;
  SmallVector<int64_t> batchParts = parts(info.batch, 1), rowParts = parts(info.M, 16);
  SmallVector<int64_t> colParts = info.rowSoftmax ? SmallVector<int64_t>{1}
                                                  : parts(info.N, colQuantum);
  // B read row-major (copy_nd2nz) or transposed B stored NZ ([K/16][Np][16],
  // its columns 32-byte rows) may start a block mid-fractal, where B stored
  // NZ untransposed could not: blocks of a multiple of 8 columns (an f32
  // output block then starts on a 32-byte GM block) and at least 128 (their
  // last fractal column, padded, wastes at most 1/16 of the Cube work). A
  // 1000-class head (N = 1000 = 2^3 x 125) then splits 5 ways, not 1.
  if (!info.rowSoftmax && !info.storeHeadSplitDim && !(plan.nzB && !info.tb))
    for (int64_t d = 2; d <= std::min(info.N, 4 * cores); ++d)
      if (info.N % d == 0 && (info.N / d) % 16 && (info.N / d) % 8 == 0 && info.N / d >= 128)
        colParts.push_back(d);
  double macsPerSecond = soc.cubeMacsPerCyclePerCore(soc::CubeInput::F16) * soc.clock_hz;
  int64_t passes = vectorPasses(info, gmElements, outArg);
  std::optional<Plan> best;
  double bestSeconds = 0, bestBytes = 0;
  // Tiles `p` (its grid and block extents set) and keeps it if it ranks
  // best and its estimate is below `bound`.
  auto rank = [&](Plan p, double bound = std::numeric_limits<double>::infinity()) {
    int64_t blocks = p.blockDim();
    if (!planTiles(info, p, gmElements, outArg, soc))
      return;
    // The edge block's first tile, shifted to its first own column, must
    // be the only tile that starts before it (later tiles may be a loop's,
    // whose addresses cannot take the shift) and still end in its window.
    if (p.raggedEdge && (p.Nt < p.edgeShift() || std::min(p.Nt, p.Nb) > p.raggedEdge))
      return;
    // Over several fractal rows, tiles narrower than 64 columns store their
    // rows in short bursts, which the estimate does not see (256 x 64 by
    // 440: 15.6 us on 8 ragged blocks of 32-column tiles, 14.0 us on 8 row
    // blocks of 112-column ones).
    if (p.raggedEdge && p.Mt > 16 && p.Nt < 64)
      return;
    int64_t waves = (blocks + cores - 1) / cores;
    double macs = double(p.Bb) * roundUp(p.Mb, 16) * roundUp(p.Nb, 16) * roundUp(info.K, 16);
    double bytes = blockBytes(info, p, gmElements, outArg);
    double elems = double(p.Bb) * roundUp(p.Mb, 16) * roundUp(p.Nb, 16);
    double vector = elems * 4 * passes / soc.vector_bytes_per_repeat / soc.clock_hz;
    double seconds =
        double(waves) * std::max({macs / macsPerSecond, bytes * cores / soc.gm_bytes_per_second,
                                  vector});
    double total = bytes * blocks;
    if (!(seconds < bound))
      return;
    if (!best || seconds < bestSeconds ||
        (seconds == bestSeconds &&
         (blocks > best->blockDim() || (blocks == best->blockDim() && total < bestBytes)))) {
      best = p;
      bestSeconds = seconds;
      bestBytes = total;
    }
  };
  auto consider = [&](Axis outer, int64_t po, Axis inner, int64_t pi) {
    // More blocks than cores only in whole waves: a last wave of a few
    // blocks leaves the other cores idle for a block's time (and a tiny
    // kernel pays a block dispatch per block for nothing).
    int64_t blocks = po * pi;
    if (blocks > 4 * cores || (blocks > cores && blocks % cores))
      return;
    Plan p = plan;
    p.outer = po > 1 ? outer : Axis::None;
    p.inner = pi > 1 ? inner : Axis::None;
    p.outerParts = po;
    p.innerParts = pi;
    if (p.outer == Axis::None) {
      std::swap(p.outer, p.inner);
      std::swap(p.outerParts, p.innerParts);
    }
    auto partsOf = [&](Axis a) {
      return (p.outer == a ? p.outerParts : 1) * (p.inner == a ? p.innerParts : 1);
    };
    p.Bb = info.batch / partsOf(Axis::Batch);
    p.Mb = info.M / partsOf(Axis::Rows);
    p.Nb = info.N / partsOf(Axis::Cols);
    rank(p);
  };
  for (int64_t pb : batchParts) {
    for (int64_t pc : colParts)
      consider(Axis::Batch, pb, Axis::Cols, pc);
    for (int64_t pr : rowParts)
      if (pr > 1)
        consider(Axis::Batch, pb, Axis::Rows, pr);
  }
  for (int64_t pr : rowParts)
    for (int64_t pc : colParts)
      if (pr > 1)
        consider(Axis::Rows, pr, Axis::Cols, pc);
  // Ragged column blocks (Plan::raggedEdge): for P up to the cores, the
  // fewest columns a block over P blocks (whole 32-byte GM blocks of the
  // output, in every row, so that no two cores write one), the edge block
  // the rest, when they do not divide N (equal parts are the equal grids'
  // to take or refuse). A 1000-class head at batch 1 (a weight stream): 8 blocks
  // of 128 columns, the edge block's 104, where equal parts gave 5 of 200;
  // 776 columns: 7 of 112 (on 8 blocks of 104 the edge block's 48 columns
  // could not take a tile past its shift of 56). The shift is whole f32
  // blocks (the tile's bias row is a UB view from it). Not when a block
  // must start on a fractal column (B stored NZ untransposed), hold whole
  // heads or whole rows. The roofline undercounts what a column split
  // costs beside a row or 2-D one (A read by every block, tiles no wider
  // than the edge block), so a ragged grid must beat the best equal one by
  // 10% (256 x 64 by 1200: 22.6 us on 8 ragged blocks, 21.8 us on 4 x 2,
  // which the estimate put 5% ahead), on as many blocks (it is there for
  // the cores an equal grid leaves idle), with tiles of 64 columns or more
  // over several fractal rows (rank), and not with an f32 A of more than
  // one fractal row, which every column block converts whole through UB
  // (384 x 300 by 1160: 69.1 us ragged against 61.1 us on 8 row blocks;
  // from an f16 A, 55.8 against 65.4). Figures: one-Gemm models, whole.
  int64_t equalBlocks = best ? best->blockDim() : 0;
  double raggedBound = best ? 0.9 * bestSeconds : std::numeric_limits<double>::infinity();
  int64_t outBytes = gmElements[outArg].isF16() ? 2 : 4;
  bool rowsAligned = info.batch * info.M == 1 || (info.N * outBytes) % 32 == 0;
  bool raggedForm = !info.rowSoftmax && !info.storeHeadSplitDim && !(plan.nzB && !info.tb) &&
                    (gmElements[info.aArg].isF16() || info.batch * info.M <= 16);
  for (int64_t parts = cores, lastNb = 0; raggedForm && rowsAligned && parts > 1; --parts) {
    int64_t nb = roundUp((info.N + parts - 1) / parts, 32 / outBytes);
    int64_t blocks = (info.N + nb - 1) / nb, shift = blocks * nb - info.N;
    if (nb == lastNb || blocks < std::max<int64_t>(2, equalBlocks) || !shift || shift % 8)
      continue;
    lastNb = nb;
    Plan p = plan;
    p.outer = Axis::Cols;
    p.outerParts = blocks;
    p.Bb = info.batch;
    p.Mb = info.M;
    p.Nb = nb;
    p.raggedEdge = nb - shift;
    rank(p, raggedBound);
  }
  if (!best)
    return false;
  plan = *best;
  return true;
}

} // namespace vinci::lower::matmul
