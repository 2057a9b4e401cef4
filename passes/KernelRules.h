//===- KernelRules.h - which vg ops run as which kind of kernel -*- C++ -*-===//
//
// The one place that says how the Da Vinci core executes each vg op, and
// which producers a kernel may absorb. Partitioning, the task plan and the
// lowering templates read these rules rather than repeat them; whether a
// template has a form for a kernel the rules allow is the templates' to say
// (KernelCapabilities, below).
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_PASSES_KERNELRULES_H
#define VINCI_PASSES_KERNELRULES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace vinci {

namespace soc {
struct SocSpec;
} // namespace soc

enum class OpRole {
  Constant,     // weights and folded values: kernel arguments or immediates
  View,         // reshape-like on contiguous ND data, or a split into
                // contiguous pieces: no kernel, no copy (see isViewOp)
  Cube,         // matrix work on the Cube unit: matmul, conv
  Elementwise,  // one output element from the same position of each input
  Reduction,    // reduces or normalises along axes: softmax, norms, pools
  DataMovement, // reorders or selects data: transpose, slice, gather, ...
};

enum class KernelKind { Cube, Vector };

/// The most GM arguments (inputs and results) a kernel takes: the .om
/// kernel table's limit (runtime/format's kMaxKernelArgs; the ISA's u8
/// argument index would allow 255). The templates refuse a kernel past it,
/// so the partition never joins an op that would cross it, and
/// vinci-split-wide-concats splits a concat that alone would.
constexpr unsigned kMaxKernelArguments = 64;

/// The Cube matmul template's widest N tile; a head split's head dim must
/// divide it so that every N tile holds whole heads.
constexpr int64_t kCubeMaxNTile = 128;

OpRole classifyOp(mlir::Operation *op);

/// Whether `op` stays in the graph as a view: its results are GM bytes of
/// its first operand, at viewByteOffset, under another shape. Reshape-like
/// ops always are; a vg.split is when every dim before its axis is 1 (each
/// piece is one contiguous range of the input), its input is a kernel
/// result (an arena buffer, not a graph input or a weight) and no piece
/// reaches a graph output (the caller's buffer, which a kernel must write).
bool isViewOp(mlir::Operation *op);
/// Whether `value` or a view of it is returned by the graph function.
bool reachesGraphOutput(mlir::Value value);
/// The value a graph tensor is a view of (through the views of isViewOp,
/// which stay in the graph and share their source's GM bytes).
mlir::Value viewRoot(mlir::Value value);
/// Where view result `viewResult` starts within its source, in elements.
int64_t viewElementOffset(mlir::OpResult viewResult);
llvm::StringRef kernelKindName(KernelKind kind);

/// Whether an op of role `consumer` may join the kernel that contains a
/// producer of role `producerKernelAnchor` (the kernel's first op).
bool mayJoinKernel(OpRole anchor, OpRole consumer);

/// Whether the elementwise `consumer` of a Cube kernel's result `fromKernel`
/// can be the kernel's epilogue: every other operand must be one element, a
/// row of the result's last dim, of the result's shape, or one matrix of
/// its last two dims for every batch (attention's causal mask [1, 1, S, S]
/// over the [B, H, S, S] scores), which the epilogue reads per output tile.
/// Another broadcast is left to a Vector kernel of its own.
bool cubeEpilogueTakes(mlir::Operation *consumer, mlir::Value fromKernel);
/// Whether a Cube conv kernel takes `consumer`, a max pool of its result,
/// as its last step (backend/lower/Conv.cpp pools each tile's rows in UB):
/// ResNet's 3x3 window, stride 2, pads 1, over an even map, and a batch of
/// two or more (the conv's blocks then hold whole images: at batch 1 its
/// rows split over the cores, and a block's first pooled row would need
/// the previous block's last conv row).
bool cubeEpilogueTakesPool(mlir::Operation *consumer);

/// Whether the row op `consumer` may take the Vector elementwise kernel that
/// produces its input as its prologue: vg.softmax and vg.log_softmax, whose
/// template then computes the kernel's ops in f32 on every tile it loads,
/// before the row max (a scale, a temperature or a mask add in front of a
/// softmax is never rounded to the storage type first: softmax(1e5 x) is
/// not softmax(fp16(1e5 x))). Which prologues have a form is the row
/// template's to say (KernelCapabilities).
bool rowOpTakesPrologue(mlir::Operation *consumer);

/// Whether the vg.softmax `consumer` of a Cube kernel's result can end the
/// kernel's epilogue: it normalises the last axis, whose N elements are a
/// multiple of 16 and fit one N tile (kCubeMaxNTile), so every output tile
/// holds whole rows and the softmax runs on them in UB, in f32, before the
/// store (attention's scores [.., S, S] for S <= 128 never reach GM).
bool cubeEpilogueTakesSoftmax(mlir::Operation *consumer);

/// Whether the vg.matmul `consumer` can join the Cube kernel whose softmax
/// epilogue produced `probabilities`, as attention's softmax(QK^T) x V with
/// the probabilities kept on chip: it multiplies them ([.., S, S], not
/// transposed, the softmax one cubeEpilogueTakesSoftmax accepts) by a V
/// [.., S, D] with the same batch dims (not transposed), D a multiple of 16
/// and at most kCubeMaxNTile. Each probability tile then goes UB -> L1 as
/// the second matmul's A operand, in one K step (S <= kCubeMaxNTile).
bool cubeKernelTakesAttentionValue(mlir::Operation *consumer, mlir::Value probabilities);

/// Whether the transpose `consumer` of a Cube kernel's result can be the
/// kernel's store addressing rather than a kernel of its own: it swaps the
/// two dims before the innermost ([.., H, S, D] -> [.., S, H, D], attention's
/// head merge), every dim before those is 1, and the kernel's matmul
/// (`cubeAnchor`) is batched over H (both operands have the result's rank),
/// so tile (h, rows, cols) goes to GM at h * D + row * H * D + col: the
/// template's batch stride D and row stride H * D instead of S * D and D.
bool cubeStoreTakesTranspose(mlir::Operation *consumer, mlir::Operation *cubeAnchor);

/// Whether the transpose `consumer` of a vg.reshape of a Cube kernel's
/// result can be the kernel's store addressing, reshape included: the
/// reshape splits the last dim ([.., S, H * D] -> [.., S, H, D]), the
/// transpose swaps S and H ([.., H, S, D], attention's head split of the
/// fused QKV projection), every dim before S is 1 and the kernel's matmul
/// (`cubeAnchor`) computes the [S, H * D] result. D must be a multiple of 16
/// dividing kCubeMaxNTile, so N tiles cut at head boundaries and each
/// tile's D-column group h goes to GM at h * S * D + row * D with row
/// stride D. Returns D, or 0 when the pair is no such store.
int64_t cubeStoreHeadSplitDim(mlir::Operation *consumer, mlir::Operation *cubeAnchor);

//===----------------------------------------------------------------------===//
// What the kernel layer lowers
//===----------------------------------------------------------------------===//

/// The kernel layer's answer to the partition's question "does a template
/// lower this kernel?" (docs/architecture.md, "The partition asks the
/// templates"). The rules above say which joins are worth making; only the
/// templates know which they have a form for. passes/ declares the question
/// and backend/ answers it with the templates' own `mismatch`, so that the
/// two cannot disagree and no include points back up.
class KernelCapabilities {
public:
  virtual ~KernelCapabilities();
  /// "" when a template lowers `kernel`, an outlined kernel function (tagged
  /// vinci.kernel) whose one call is in the graph; else why none does.
  virtual std::string mismatch(mlir::func::FuncOp kernel) const = 0;
  /// Which GM arguments of `kernel` (its operands, then its results) the
  /// template lowering it takes in either layout, ND or NC1HWC0
  /// (passes/Layouts.h), converting an ND one on chip: one entry per
  /// argument, kNdOnly or a class number; arguments of one class must share
  /// a layout (a conv's residual operand and its output). Empty when every
  /// argument is ND only. vinci-assign-layouts asks it, and the task plan
  /// counts the ND ones as layout conversions.
  virtual llvm::SmallVector<int> nc1hwc0Classes(mlir::func::FuncOp kernel) const;
  static constexpr int kNdOnly = -1;
};

/// The capabilities a vinci-partition-kernels made by the pass registry
/// (vinci-opt) asks; the backend installs its own when its passes are
/// registered. The driver hands them to the pass it creates instead.
void installKernelCapabilities(const KernelCapabilities *capabilities);
const KernelCapabilities *installedKernelCapabilities();

//===----------------------------------------------------------------------===//
// The convolution family (backend/lower/Conv.cpp and its siblings)
//===----------------------------------------------------------------------===//

/// A 2-D window over an N x C x H x W input (NCHW), with the pads resolved
/// (auto_pad included).
struct ConvGeometry {
  int64_t n = 1, c = 1, h = 1, w = 1, oc = 1, oh = 1, ow = 1;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  int64_t groups = 1;
};
/// The geometry of a 2-D vg.conv with static shapes, or nullopt.
std::optional<ConvGeometry> convGeometry(mlir::Operation *conv);

/// A tiling of the Cube conv template (backend/lower/Conv.cpp), as far as
/// the size of its on-chip buffers goes.
struct ConvCubeTiling {
  int64_t rowsT = 1;        // output rows an M tile (its positions padded to 16)
  int64_t bufRows = 1;      // rows a plane of a band buffer holds
  int64_t slackRows = 0;    // rows past a band's last plane its tiles' load_3d address
  int64_t nt = 1;           // output-channel fractals a tile
  int64_t ocn = 1;          // output-channel fractals a block
  int64_t kf = 1;           // K fractals a step
  bool panelResident = false; // the block's weight slice stays in L1
  int64_t zeroRows = 0;     // the most pad rows a band writes (zeros from UB)
  /// Staging buffers in UB (an f32 input's conversion, the pad's zeros) of
  /// a few KiB rather than whole rows: for wide rows.
  bool smallStaging = false;
  /// 0: a band buffer holds every channel plane. Else the band is split
  /// over channel parts of this many planes, loaded one after another into
  /// the two band buffers, one M tile a band, and L0C holds the tile's
  /// accumulators for all of the block's channels.
  int64_t bandPlanes = 0;
  /// M tiles whose accumulators L0C holds at once: a block's few tiles that
  /// take the weight's K parts together as they arrive (Conv.cpp).
  int64_t accumulators = 1;
};
/// What the kernel's tensors need on chip.
struct ConvCubeTensors {
  bool f32Input = false, f32Bias = false, f32Output = false, nchwOutput = true;
  bool f32Tile = false;         // an epilogue on an f32 tile (more than a ReLU)
  int64_t residualBytes = 0;    // a residual's element bytes (0: none)
  /// Row stacking (backend/lower/Conv.cpp): the conv as the graph has it,
  /// whose NCHW input rows are staged in UB and rearranged into the planes
  /// of the tiling's geometry (kh rows of a few channels a plane, kh = 1).
  /// Absent: the input goes to L1 as it is.
  std::optional<ConvGeometry> stackedFrom;
  /// A 3x3 stride-2 max pool fused into the epilogue (cubeEpilogueTakesPool):
  /// each tile's rows pooled in UB, the pooled map stored.
  bool maxPool = false;
};
/// The input rows a row-stacked conv (ConvCubeTensors::stackedFrom) stages
/// in UB for a band of `mapRows` output rows, rows rounded to 16 elements
/// (its windows' rows and room for a row split's pad margins), and the
/// elements of the staging buffer: every channel's rows and slack for the
/// whole repeats that read and write past them.
int64_t convCubeStackedStagingRows(const ConvGeometry &from, int64_t mapRows);
int64_t convCubeStackedStagingElems(const ConvGeometry &from, int64_t mapRows);
/// Elements of a tile buffer a stacked map row gathers into.
int64_t convCubeStackedRowTileElems(const ConvGeometry &from);
/// The staging of an f32 input (pixels converted in UB at a time) and of
/// the pad's zero rows (elements), as the template allocates them.
int64_t convCubeInputChunkPixels(const ConvGeometry &g, const ConvCubeTiling &t);
int64_t convCubeZeroChunkElems(const ConvGeometry &g, const ConvCubeTiling &t);
/// The bias goes through UB this many channel fractals at a time.
constexpr int64_t kConvCubeBiasChunkFractals = 32;
/// "" when the template's buffers for tiling `t` fit `soc`, else which
/// space they overflow, by how much. The template's planner and the
/// partition's rule both ask it.
std::string convCubeTilingMismatch(const ConvGeometry &g, const ConvCubeTiling &t,
                                   const ConvCubeTensors &tensors, const soc::SocSpec &soc);
/// The smallest tiling the template's planner can choose on `soc`: one
/// output row a tile and a band, one channel fractal a tile, the fewest a
/// block, one fractal a K step, the weight streamed, small staging; with
/// `splitPlanes`, a band of one channel plane at a time.
ConvCubeTiling convCubeSmallestTiling(const ConvGeometry &g, const soc::SocSpec &soc,
                                      bool splitPlanes);
/// "" when a smallest tiling (whole bands, or else split over channel
/// planes) fits every SoC of the table (so that the planner finds a tiling
/// whichever is the target), else why not.
std::string convCubeFitMismatch(const ConvGeometry &g, const ConvCubeTensors &tensors);

/// Why the Cube conv template cannot take the vg.conv `conv` ("" when it
/// can): a 2-D conv of f16/f32 tensors with one group, a constant weight
/// (packed into FRACTAL_Z at compile time), not kept in fp32 (the 310P Cube
/// takes no fp32), within load_3d's ranges (kernel and dilation <= 255,
/// strides <= 63, pads <= 255, width <= 32767, output width <= 4080) and
/// whose smallest tiling fits every SoC's buffers (convCubeFitMismatch
/// for convCubeAloneTensors). vinci-unfold-windows leaves exactly these
/// convs to the template.
std::string convCubeTemplateMismatch(mlir::Operation *conv);
/// The same for a conv whose weight and bias are kernel arguments and
/// whose tensors need `tensors` on chip: whether the graph passes constants
/// for them, and what it stores, is the caller's to say.
std::string convCubeTemplateMismatch(mlir::Operation *conv, bool constantWeight,
                                     bool constantBias, const ConvCubeTensors &tensors);
/// The conv alone with its input stored as `inputStorage`: no epilogue,
/// the output f32 NCHW (the most UB a conv's store takes) and an f32 bias.
/// An epilogue the partition fuses is checked when it asks (Conv.cpp), so
/// that a step which does not fit stays out of the kernel.
ConvCubeTensors convCubeAloneTensors(mlir::Type inputStorage);

/// The module attribute in which vinci-unfold-windows lists the windows it
/// unfolded because no template takes them: an array of {node, op, reason}
/// dictionaries (the compile report's "unfolded_windows").
constexpr const char kUnfoldedWindowsAttr[] = "vinci.unfolded_windows";

/// Whether `conv` is depthwise: groups = input channels = output channels
/// (channel multiplier 1), more than one group.
bool isDepthwiseConv(mlir::Operation *conv);

/// Why the Vector depthwise template (backend/lower/Depthwise.cpp) cannot
/// take the vg.conv `conv` ("" when it can): a 2-D depthwise conv (groups =
/// C = OC) with static shapes, not kept in fp32 (its input and output f16
/// in GM, or f32 as a graph input or output), a constant weight and bias,
/// and one output row's padded input rows of a 16-channel group within a
/// quarter of the smallest UB. vinci-unfold-windows leaves exactly these
/// convs to the template, and lists the others with this reason in the
/// module's vinci.unfolded_windows (the compile report shows it).
std::string depthwiseTemplateMismatch(mlir::Operation *conv);
/// The same but for the storage types and whether the weight and bias are
/// constants, for a conv inside an outlined kernel (whose GM signature and
/// call say them).
std::string depthwiseWindowMismatch(mlir::Operation *conv, bool constantWeight,
                                    bool constantBias);

/// The geometry of a 2-D vg.max_pool or vg.average_pool with static shapes
/// (oc = c), or nullopt. The end pads are grown so that every tap of every
/// output position is inside the padded input (ceil_mode); `countedPads`,
/// when given, receives the pads count_include_pad counts (the named ones,
/// without the growth) as [top, left, bottom, right].
std::optional<ConvGeometry> poolGeometry(mlir::Operation *pool,
                                         llvm::SmallVectorImpl<int64_t> *countedPads = nullptr);

/// Why the pooling template (backend/lower/Pool.cpp) cannot take `pool` (""
/// when it can): a 2-D max or average pool with static shapes whose input
/// and output are f16 in GM (not a graph input or output in f32, not kept
/// in fp32), every output position's window holding at least one input
/// element, an average pool with one divisor for every position (no pads,
/// or pads it counts and no ceil_mode growth), and one output row's input
/// rows of a 16-channel plane in a quarter of the smallest UB.
/// vinci-unfold-windows leaves exactly these pools to the template.
std::string poolTemplateMismatch(mlir::Operation *pool);
/// The same but for the storage types, for a pool inside an outlined kernel
/// (whose GM signature says them).
std::string poolWindowMismatch(mlir::Operation *pool);

} // namespace vinci

#endif // VINCI_PASSES_KERNELRULES_H
