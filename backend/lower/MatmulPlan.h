//===- MatmulPlan.h - the Cube matmul's block grid and tiles ----*- C++ -*-===//
//
// The Cube matmul template (Matmul.cpp) in two halves: what a kernel is
// (MatmulInfo, from its analysis) and how it runs (Plan: the block grid,
// the tiles, the K steps), chosen here; the emitter in Matmul.cpp turns
// the plan into dv instructions.
//
// Grid: the output is cut into block_dim equal parts along at most two of
// the batch, M and N (a 2-D grid: block b is (b floordiv G, b mod G)), or
// into ragged column parts (equal ones and a narrower edge part, when the
// fewest columns a block over all the cores do not divide N:
// Plan::raggedEdge), so every block runs the same program and writes
// disjoint GM bytes. Each
// candidate grid is tiled (below) and ranked by a roofline of one block (its
// Cube work, its Vector passes, or its GM bytes at 1/cores of the chip's
// bandwidth, A once per row of tiles, B once per M tile) times the waves of
// blocks; more blocks than cores only in whole waves (planGrid).
//
// Tiling: output tiles Mt x Nt (balanced: equal tiles where the extent
// allows) and K steps of Kt, multiples of 16, Kt as deep as two L0A/L0B
// slots allow (every K-step buffer has two slots: double buffering);
// halved until every buffer fits the SoC table's L1, L0A, L0B, L0C and UB.
// The step count is made 1 or even so that the two slots alternate the
// same way in every tile. A block of one fractal row (a batch-1 Gemm) is a
// weight stream: docs/matmul.md says how it is kept busy.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_LOWER_MATMULPLAN_H
#define VINCI_BACKEND_LOWER_MATMULPLAN_H

#include "backend/lower/Epilogue.h"
#include "backend/lower/LowerCommon.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace vinci::soc {
struct SocSpec;
}

namespace vinci::lower::matmul {

/// f32 lanes of the softmax epilogue's per-row statistics: one per tile
/// row (Mt <= 128), two whole vector repeats.
constexpr int64_t kStatLanes = 128;
/// f32 elements a 16-lane row repeat (2 blocks a row) reads past its row.
constexpr int64_t kRowRepeatSlack = 48;

/// A step of the epilogue chain (Epilogue.h, shared with the Vector matmul).
using Epilogue = EpilogueStep;

/// What the analysis of a Cube matmul kernel found: its operands, shapes
/// and the epilogue and store forms that follow the matmul.
struct MatmulInfo {
  unsigned aArg = 0, bArg = 0;
  bool ta = false, tb = false;
  int64_t batch = 1, M = 0, N = 0, K = 0;
  /// B has a batch dim (else one 2-D weight: folded into the rows, or read
  /// by every batch when A is transposed).
  bool bBatched = false;
  llvm::SmallVector<Epilogue> epilogue;
  /// The kernel ends with a head-merge transpose ([.., H, M, N] ->
  /// [.., M, H, N], KernelRules' cubeStoreTakesTranspose): tiles are stored
  /// with batch stride N and row stride H * N (H = batch).
  bool storeHeadMerged = false;
  /// The kernel ends with a head split (reshape [S, H * D] -> [S, H, D],
  /// transpose to [H, S, D], KernelRules' cubeStoreHeadSplitDim): D, else 0.
  /// N tiles and block parts are multiples of D; each D-column group of a
  /// tile is stored at head * M * D + row * D with row stride D.
  int64_t storeHeadSplitDim = 0;
  /// The epilogue ends with a softmax over the last axis: N tiles and block
  /// parts span all N columns, so each tile holds whole rows.
  bool rowSoftmax = false;
  /// The softmax's protection (LowerCommon's softmaxSafetyOf).
  SoftmaxSafety softmax;
  /// The kernel goes on with attention's PV matmul after the softmax: V is
  /// argument `vArg`, [batch.., N, headDim]; the kernel's output is
  /// [batch.., M, headDim] (head-merged when storeHeadMerged).
  bool attention = false;
  unsigned vArg = 0;
  int64_t headDim = 0;
};

/// Where the block grid cuts the output: blocks = outer parts x inner parts,
/// block b = (outer b / inner parts, inner b mod inner parts); each axis is
/// the batch, the rows or the columns.
enum class Axis { None, Batch, Rows, Cols };

/// How a Cube matmul kernel runs: its block grid, each block's share of the
/// output and the tiles it walks.
struct Plan {
  /// Output tiles Mt x Nt, K steps of Kt (the last may be shorter): kSteps
  /// steps per tile, 1 or an even number, so that the two L1/L0 slots
  /// alternate the same way in every tile.
  int64_t Mt = 0, Nt = 0, Kt = 0, kSteps = 1;
  Axis outer = Axis::None, inner = Axis::None;
  int64_t outerParts = 1, innerParts = 1;
  int64_t blockDim() const { return outerParts * innerParts; }
  int64_t Bb = 1, Mb = 0, Nb = 0; // per block
  /// Ragged column blocks (0: none; docs/matmul.md): a 1-D grid of P =
  /// outerParts blocks over the columns, blocks 0 .. P-2 owning Nb columns
  /// from b Nb and the edge block P-1 the last raggedEdge (< Nb) columns.
  /// Every block runs one program over a window of Nb columns; the edge
  /// block's is the last Nb columns (its reads stay in bounds), and its
  /// first tile, whose columns block P-2 stores, starts at its first own
  /// column instead (edgeShift() columns further), storing columns that its
  /// next tile stores again: the same core, never two cores on one byte.
  /// Addresses stay affine in block_idx b as c1 (b mod (P-1)) + c2 (b
  /// floordiv (P-1)), the depthwise template's ragged steps' form.
  int64_t raggedEdge = 0;
  int64_t edgeShift() const { return raggedEdge ? Nb - raggedEdge : 0; }
  /// The A panel of a row of tiles (Mt x all of K) is loaded once into L1
  /// and read by every N tile of the row (one copy with a burst of all of K
  /// per row, instead of one per K step and tile).
  bool panelA = false;
  /// The block's B columns (all of K x Nb, f16, not transposed, one weight
  /// for every batch) stay in L1: loaded tile by tile in the block's first
  /// row of tiles, read by every later row (B once per block instead of
  /// once per M tile; the K steps then load A only).
  bool panelB = false;
  /// B is a constant weight the .om stores in FRACTAL_NZ, zero padded, as
  /// it is given: [K, N] as [N/16][Kp][16], a B tile one copy with a burst
  /// per 16 columns instead of a copy_nd2nz with a burst per row; a
  /// transposed B's [N, K] as [K/16][Np][16], a burst per 16 rows of K
  /// (all the tile's columns, contiguous from any column) instead of one
  /// per column.
  bool nzB = false;
  /// The K steps run straight, without a loop of pairs: a weight stream (one
  /// fractal row of A, batch-1 GEMV) whose every step is one B transfer.
  /// Entering and leaving a dv.loop waits for the transfers in flight (the
  /// sync insertion makes the flags agree on every iteration), which
  /// stalls the GM stream for a transfer's start-up each time.
  bool straightKSteps = false;
  /// The epilogue's row and one-element operands (a bias) are loaded once
  /// for the block's Nb columns before its first K step, not per tile
  /// after its K steps: in a weight stream a small transfer between two B
  /// transfers holds one of the MTE2 slots in flight, and the next B
  /// transfer's start-up is no longer hidden.
  bool blockRowOperands = false;
};

/// Chooses `plan`'s block grid and tiles for `info` (GM element types of
/// the kernel's arguments `gmElements`, output argument `outArg`; `plan`'s
/// nzB already set); false when no 16 x 16 x 16 tile fits the SoC's buffers.
bool planGrid(const MatmulInfo &info, Plan &plan, llvm::ArrayRef<mlir::Type> gmElements,
              unsigned outArg, const soc::SocSpec &soc);

} // namespace vinci::lower::matmul

#endif // VINCI_BACKEND_LOWER_MATMULPLAN_H
