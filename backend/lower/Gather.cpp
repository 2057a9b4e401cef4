//===- Gather.cpp - ONNX Gather on any axis: strided or indexed copies ----===//
//
// gather(data, indices, axis) reads, for every outer position o (the dims
// before `axis`) and every index j, the row data[o, idx[j], :] (the dims
// after `axis`, `inner` contiguous elements) and writes it to out[o, j, :]
// (indices of any shape, a scalar included; negative ones count from the
// end). No vector work but a vconv when the output is stored in another
// float type than the data (an f32 graph input gathered into an f16
// intermediate).
//
// Analyse: the geometry [outer][table rows][inner] -> [outer][count][inner],
// and whether the indices are known at compile time (a constant the
// partition cloned into the kernel, or a kernel argument that is a graph
// constant). Plan: known indices become ascending arithmetic progressions
// ([3, 4, 5] one run, [0] one run, [0, 2, 4] one run of stride 2): a run
// is a strided copy, so ViT's class token x[:, 0] is one burst and a
// contiguous slice one burst per outer position. More than kMaxRuns runs,
// or indices known only at run time, take the indexed copy: a tile of
// indices GM -> UB, one copy_gather (the ISA's one data-dependent address:
// the Scalar unit reads each index, checks it against [-V, V) and stops
// the kernel with an error otherwise, as ONNX leaves it undefined and a wild
// read is never an option) and one store. Known indices are range-checked
// when compiling. Emit: tiles sized from UB (half of it, for the
// allocator's alignment padding); a row longer than a tile is cut into
// column chunks (copy_gather's table row stride is the whole row), so no
// shape is refused for its size; the tiles of the outermost loop are spread
// over the AI cores, and every loop has affine addresses, so the program
// does not grow with the tensors.
//
//===----------------------------------------------------------------------===//
#include "backend/lower/LowerCommon.h"

#include "dv/DvOps.h"
#include "vg/VgOps.h"
#include "vinci/soc.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace vinci::lower {
namespace {

/// Known indices with more runs than this take the indexed copy (each run
/// is its own copy instructions, so the program would grow with them).
constexpr int64_t kMaxRuns = 8;
/// copy bursts and copy_gather rows (the ISA's 16-bit fields).
constexpr int64_t kMaxBursts = 65535;

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

/// Indices idx[first + k * step], k < count, are `count` table rows from
/// `start` with stride `stride`, written to output rows `first`...
struct Run {
  int64_t first = 0, count = 0, start = 0, stride = 1;
};

struct GatherInfo {
  vg::GatherOp gather;
  /// out[outer][count][inner] from data[outer][tableRows][inner].
  int64_t outer = 1, tableRows = 1, inner = 1, count = 1;
  /// The indices when known at compile time (normalised to [0, V)).
  std::optional<SmallVector<int64_t>> known;
  /// Known indices as runs; empty: the indexed copy.
  SmallVector<Run> runs;
};

/// The kernel's gather (vg.constant operands beside it are allowed).
vg::GatherOp findGather(func::FuncOp func) { return soleOp<vg::GatherOp>(func, true); }

/// The values of `indices` when they are a constant: cloned into the
/// kernel, or a kernel argument the graph passes a constant for.
std::optional<SmallVector<int64_t>> constantIndices(Value indices, func::CallOp call) {
  auto constant = indices.getDefiningOp<vg::ConstantOp>();
  if (!constant)
    if (auto arg = dyn_cast<BlockArgument>(indices); arg && call)
      constant = call.getOperand(arg.getArgNumber()).getDefiningOp<vg::ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto values = constant.getValue().tryGetValues<APInt>();
  if (!values)
    return std::nullopt; // a blob: read at run time like any tensor
  SmallVector<int64_t> known;
  for (const APInt &v : *values)
    known.push_back(v.getSExtValue());
  return known;
}

/// Ascending arithmetic progressions, each as long as it goes (a copy's
/// bursts only go forward: a repeated or descending index starts a run).
SmallVector<Run> runsOf(ArrayRef<int64_t> indices) {
  SmallVector<Run> runs;
  for (int64_t j = 0, n = indices.size(); j < n;) {
    Run run{j, 1, indices[j], 1};
    if (j + 1 < n && indices[j + 1] > indices[j]) {
      run.stride = indices[j + 1] - indices[j];
      while (j + run.count < n &&
             indices[j + run.count] - indices[j + run.count - 1] == run.stride)
        ++run.count;
    }
    runs.push_back(run);
    j += run.count;
  }
  return runs;
}

Type storedElement(Value v, func::CallOp call) {
  if (auto arg = dyn_cast<BlockArgument>(v); arg && call)
    return storageElementType(call.getOperand(arg.getArgNumber()));
  return storageElementType(v);
}

/// Why the gather template cannot lower `func` ("": it can; nullopt: no
/// gather kernel).
std::optional<std::string> analyse(func::FuncOp func, GatherInfo &info) {
  vg::GatherOp gather = findGather(func);
  if (!gather)
    return std::nullopt;
  info.gather = gather;
  func::CallOp call = soleCall(func);
  if (!call)
    return std::string("a kernel launched more than once has no lowering yet");
  auto isKernelValue = [&](Value v) {
    return isa<BlockArgument>(v) || v.getDefiningOp<vg::ConstantOp>();
  };
  if (!isKernelValue(gather.getData()) || !isKernelValue(gather.getIndices()))
    return std::string("a gather of a value computed inside the kernel has no lowering template");
  if (!isa<IntegerType>(gather.getIndices().getType().getElementType()))
    return llvm::formatv("gather indices of {0} have no lowering template (integers only)",
                         gather.getIndices().getType().getElementType())
        .str();
  ArrayRef<int64_t> data = gather.getData().getType().getShape();
  int64_t rank = data.size();
  int64_t axis = static_cast<int64_t>(gather.getAxis()); // an I64Attr reads as uint64_t
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return llvm::formatv("gather axis {0} is out of range for rank {1}",
                         static_cast<int64_t>(gather.getAxis()), rank)
        .str();
  info.outer = product(data.take_front(axis));
  info.tableRows = data[axis];
  info.inner = product(data.drop_front(axis + 1));
  info.count = product(gather.getIndices().getType().getShape());
  if (info.outer == 0 || info.inner == 0 || info.count == 0)
    return std::string("a gather with an empty operand or result has no lowering template");

  Type dataElem = storedElement(gather.getData(), call);
  Type outElem = storageElementType(call.getResult(0));
  bool bothFloat = isa<FloatType>(dataElem) && isa<FloatType>(outElem);
  if (dataElem != outElem && !(bothFloat && (dataElem.isF16() || dataElem.isF32()) &&
                               (outElem.isF16() || outElem.isF32())))
    return llvm::formatv("a gather that also converts {0} to {1} has no lowering template",
                         dataElem, outElem)
        .str();

  info.known = constantIndices(gather.getIndices(), call);
  if (info.known) {
    for (int64_t &index : *info.known) {
      if (index < -info.tableRows || index >= info.tableRows)
        return llvm::formatv("gather index {0} is out of range [{1}, {2}) for axis {3} of {4}",
                             index, -info.tableRows, info.tableRows, axis,
                             gather.getData().getType())
            .str();
      if (index < 0)
        index += info.tableRows;
    }
    SmallVector<Run> runs = runsOf(*info.known);
    if (int64_t(runs.size()) <= kMaxRuns)
      info.runs = std::move(runs);
  }
  if (info.runs.empty() && !gather.getIndices().getType().getElementType().isSignlessInteger(32))
    return llvm::formatv("gather indices of {0} read at run time have no lowering template (i32 "
                         "after vinci-narrow-int64)",
                         gather.getIndices().getType().getElementType())
        .str();
  if (info.runs.empty() && info.outer > 1 &&
      info.tableRows * info.inner * dv::elementBytes(dataElem) > INT32_MAX)
    return std::string("an indexed gather over a table larger than 2 GiB per outer position has "
                       "no lowering template");
  return std::string();
}

std::optional<std::string> gatherMismatch(func::FuncOp func) {
  GatherInfo info;
  return analyse(func, info);
}

//===----------------------------------------------------------------------===//
// The emitter
//===----------------------------------------------------------------------===//

/// Affine element offsets over the block index and the loop ivs in scope.
class GatherEmitter : public AffineLoops {
public:
  GatherEmitter(OpBuilder &b, Location loc, const GatherInfo &info, Value gmData, Value gmIndices,
                Value gmOut, Type dataElem, Type outElem, const soc::SocSpec &soc)
      : AffineLoops(b, loc), info(info), gmData(gmData), gmIndices(gmIndices), gmOut(gmOut),
        dataElem(dataElem), outElem(outElem), soc(soc), ctx(b.getContext()) {}

  /// The tile buffers: `elems` data elements (and as many converted ones).
  void allocate(int64_t elems) {
    int64_t padded = roundUp(elems, 64); // whole vconv repeats
    tile = alloc(padded, dataElem);
    if (outElem != dataElem)
      converted = alloc(padded, outElem);
  }
  Value allocIndices(int64_t count) {
    return alloc(roundUp(count, 8), IntegerType::get(ctx, 32));
  }


  Value gmView(Value gm, Type element, AffineExpr offset, int64_t elems) {
    return dv::ViewOp::create(b, loc, dv::GmType::get(ctx, {elems}, element), gm, dims,
                              AffineMapAttr::get(AffineMap::get(dims.size(), 0, offset)))
        .getResult();
  }

  /// `bursts` bursts of `elems` elements from data (element offset `from`,
  /// `srcStride` elements apart) to out (`to`, `dstStride` apart), through
  /// the tile buffer (converted on the way when the types differ).
  void stridedCopy(AffineExpr from, AffineExpr to, int64_t bursts, int64_t elems,
                   int64_t srcStride, int64_t dstStride) {
    int64_t in = dv::elementBytes(dataElem), out = dv::elementBytes(outElem);
    Value src = gmView(gmData, dataElem, from, (bursts - 1) * srcStride + elems);
    Value dst = gmView(gmOut, outElem, to, (bursts - 1) * dstStride + elems);
    auto gap = [&](int64_t stride, int64_t bytes) {
      return uint64_t(bursts > 1 ? (stride - elems) * bytes : 0);
    };
    dv::CopyOp::create(b, loc, src, tile, uint64_t(bursts), uint64_t(elems * in),
                       gap(srcStride, in), uint64_t(0));
    dv::CopyOp::create(b, loc, convert(bursts * elems), dst, uint64_t(bursts),
                       uint64_t(elems * out), uint64_t(0), gap(dstStride, out));
  }

  /// `rows` rows picked by the indices at element `indexAt`, `elems`
  /// elements from column `column` of each row of the outer position's
  /// table at `table`, to out at `to` (rows `dstStride` elements apart).
  void indexedCopy(Value indexTile, AffineExpr indexAt, AffineExpr table, AffineExpr column,
                   AffineExpr to, int64_t rows, int64_t elems) {
    int64_t in = dv::elementBytes(dataElem), out = dv::elementBytes(outElem);
    int64_t V = info.tableRows, I = info.inner;
    Value indices = gmView(gmIndices, IntegerType::get(ctx, 32), indexAt, rows);
    dv::CopyOp::create(b, loc, indices, indexTile, uint64_t(1), uint64_t(rows * 4));
    Value src = gmView(gmData, dataElem, table + column, (V - 1) * I + elems);
    dv::CopyGatherOp::create(b, loc, src, indexTile, tile, rows, elems * in, I * in, elems * in, V);
    Value dst = gmView(gmOut, outElem, to + column, (rows - 1) * I + elems);
    dv::CopyOp::create(b, loc, convert(rows * elems), dst, uint64_t(rows), uint64_t(elems * out),
                       uint64_t(0), uint64_t(rows > 1 ? (I - elems) * out : 0));
  }

private:
  Value alloc(int64_t elems, Type element) {
    return dv::AllocOp::create(
               b, loc, dv::BufType::get(ctx, dv::MemSpace::UB, {elems}, element, dv::Layout::ND),
               IntegerAttr())
        .getResult();
  }

  /// The tile in the output's type: `elems` elements converted (whole
  /// 64-lane repeats; the padding is never stored).
  Value convert(int64_t elems) {
    if (!converted)
      return tile;
    bool widen = outElem.isF32();
    auto rep = b.getDenseI64ArrayAttr(widen ? ArrayRef<int64_t>{8, 4} : ArrayRef<int64_t>{4, 8});
    int64_t repeats = roundUp(elems, 64) / 64, limit = soc.max_repeat;
    for (int64_t r = 0; r < repeats; r += limit) {
      int64_t n = std::min(limit, repeats - r);
      auto view = [&](Value buf) {
        auto type = cast<dv::BufType>(buf.getType());
        auto part = dv::BufType::get(ctx, dv::MemSpace::UB, {n * 64}, type.getElementType(),
                                     dv::Layout::ND);
        return dv::ViewOp::create(b, loc, part, buf, ValueRange{},
                                  AffineMapAttr::get(AffineMap::get(0, 0, constant(r * 64))))
            .getResult();
      };
      dv::VConvOp::create(b, loc, view(tile), view(converted), dv::RoundMode::Rint, uint64_t(n),
                          DenseI64ArrayAttr(), rep, DenseI64ArrayAttr());
    }
    return converted;
  }

  const GatherInfo &info;
  Value gmData, gmIndices, gmOut;
  Type dataElem, outElem;
  const soc::SocSpec &soc;
  MLIRContext *ctx;
  Value tile, converted;
};

//===----------------------------------------------------------------------===//
// Plan
//===----------------------------------------------------------------------===//

/// One run as copies: `bursts` bursts of `span` contiguous elements (`srcStride`
/// and `dstStride` apart) per trip of a loop over `trips` outer positions,
/// cut into chunks of at most `chunk` elements and tiles of `perTile` bursts.
struct RunCopy {
  Run run;
  int64_t span = 0, bursts = 0, srcStride = 0, dstStride = 0, trips = 1;
  int64_t chunk = 0, perTile = 0;
};

struct GatherPlan {
  int64_t blockDim = 1;
  SmallVector<RunCopy> runs; // known indices
  int64_t rowsPerTile = 1, chunk = 0; // the indexed copy: T indices, row chunks
  int64_t tileElems = 0;              // the UB tile
};

/// Elements a tile may hold: half of UB (room for the allocator's
/// alignment padding) over the bytes an element takes there.
int64_t tileBudget(const soc::SocSpec &soc, Type dataElem, Type outElem) {
  int64_t bytes = dv::elementBytes(dataElem) + (outElem != dataElem ? dv::elementBytes(outElem) : 0);
  int64_t half = static_cast<int64_t>(soc.bufferBytes(soc::Space::UB)) / 2;
  return std::max<int64_t>(64, half / bytes / 64 * 64);
}

/// The largest divisor of `n` that is at most `limit`.
int64_t divisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

GatherPlan planGather(const GatherInfo &info, Type dataElem, Type outElem,
                      const soc::SocSpec &soc) {
  int64_t budget = tileBudget(soc, dataElem, outElem);
  int64_t V = info.tableRows, I = info.inner, N = info.count;
  GatherPlan plan;
  if (!info.runs.empty()) {
    // Blocks split the outer positions (whole ones: a divisor). With
    // stride 1 (or one row) a run's rows of an outer position are one
    // burst and the outer positions its bursts; otherwise a burst per row
    // and a loop over the outer positions.
    plan.blockDim = divisorAtMost(info.outer, soc.ai_core_count);
    int64_t perBlock = info.outer / plan.blockDim;
    for (const Run &run : info.runs) {
      RunCopy copy{run};
      bool merged = run.stride == 1 || run.count == 1;
      copy.span = merged ? run.count * I : I;
      copy.bursts = merged ? perBlock : run.count;
      copy.srcStride = merged ? V * I : run.stride * I;
      copy.dstStride = merged ? N * I : I;
      copy.trips = merged ? 1 : perBlock;
      copy.chunk = std::min(copy.span, budget);
      copy.perTile = std::min({copy.bursts, budget / copy.chunk, kMaxBursts});
      plan.tileElems = std::max(plan.tileElems, copy.chunk * copy.perTile);
      plan.runs.push_back(copy);
    }
    return plan;
  }
  // The indexed copy: T indices a tile (as many row chunks as fit, at most
  // an equal share per core, a divisor of the count so that every tile is
  // full); blocks split the tiles.
  plan.chunk = std::min(I, budget);
  int64_t perCore = (N + soc.ai_core_count - 1) / soc.ai_core_count;
  plan.rowsPerTile = divisorAtMost(N, std::min({budget / plan.chunk, perCore, kMaxBursts}));
  plan.blockDim = divisorAtMost(N / plan.rowsPerTile, soc.ai_core_count);
  plan.tileElems = plan.rowsPerTile * plan.chunk;
  return plan;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

void emitRuns(GatherEmitter &e, const GatherInfo &info, const GatherPlan &plan, Value bid) {
  int64_t V = info.tableRows, I = info.inner, N = info.count;
  int64_t perBlock = info.outer / plan.blockDim;
  AffineExpr blockOuter = bid ? e.dim(bid) * perBlock : e.constant(0);
  for (const RunCopy &c : plan.runs) {
    GatherEmitter::Scope runScope(e);
    AffineExpr outer = blockOuter + e.loop(c.trips);
    AffineExpr from = outer * (V * I) + e.constant(c.run.start * I);
    AffineExpr to = outer * (N * I) + e.constant(c.run.first * I);
    auto copyChunks = [&](AffineExpr burst0, int64_t count) {
      auto emitChunk = [&](AffineExpr column, int64_t elems) {
        e.stridedCopy(from + burst0 * c.srcStride + column, to + burst0 * c.dstStride + column,
                      count, elems, c.srcStride, c.dstStride);
      };
      if (int64_t fullChunks = c.span / c.chunk) {
        GatherEmitter::Scope chunkScope(e);
        emitChunk(e.loop(fullChunks) * c.chunk, c.chunk);
      }
      if (c.span % c.chunk)
        emitChunk(e.constant(c.span / c.chunk * c.chunk), c.span % c.chunk);
    };
    if (int64_t fullTiles = c.bursts / c.perTile) {
      GatherEmitter::Scope tileScope(e);
      copyChunks(e.loop(fullTiles) * c.perTile, c.perTile);
    }
    if (c.bursts % c.perTile)
      copyChunks(e.constant(c.bursts / c.perTile * c.perTile), c.bursts % c.perTile);
  }
}

void emitIndexed(GatherEmitter &e, const GatherInfo &info, const GatherPlan &plan, Value bid) {
  int64_t V = info.tableRows, I = info.inner, N = info.count;
  int64_t T = plan.rowsPerTile, chunk = plan.chunk;
  int64_t perBlock = N / T / plan.blockDim;
  Value indexTile = e.allocIndices(T);
  AffineExpr tileIndex = bid ? e.dim(bid) * perBlock : e.constant(0);
  AffineExpr outer = e.loop(info.outer);
  tileIndex = tileIndex + e.loop(perBlock);
  AffineExpr table = outer * (V * I);
  AffineExpr to = outer * (N * I) + tileIndex * (T * I);
  if (int64_t fullChunks = I / chunk) {
    GatherEmitter::Scope chunkScope(e);
    e.indexedCopy(indexTile, tileIndex * T, table, e.loop(fullChunks) * chunk, to, T, chunk);
  }
  if (I % chunk)
    e.indexedCopy(indexTile, tileIndex * T, table, e.constant(I / chunk * chunk), to, T, I % chunk);
}

LogicalResult lowerGather(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  GatherInfo info;
  std::optional<std::string> why = analyse(func, info);
  if (!why || !why->empty())
    return func.emitError() << "kernel " << func.getSymName() << ": "
                            << (why ? *why : std::string("not a gather kernel"));
  // Constants the indexed copy reads from GM (a cloned table or index
  // list) become arguments; known indices that make runs are not read.
  SmallVector<Operation *> constants;
  for (Operation &op : func.getBody().front())
    if (isConstantOp(&op) && (op.getResult(0) == info.gather.getData() || info.runs.empty()))
      constants.push_back(&op);
  for (Operation *constant : constants)
    hoistConstantToArgument(func, call, constant);
  auto argOf = [&](Value v) { return cast<BlockArgument>(v).getArgNumber(); };
  unsigned dataArg = argOf(info.gather.getData());
  std::optional<unsigned> indexArg;
  if (info.runs.empty())
    indexArg = argOf(info.gather.getIndices());

  GmSignature signature = gmSignature(call);
  Type dataElem = signature.elements[dataArg];
  Type outElem = signature.elements[call.getNumOperands()];
  GatherPlan plan = planGather(info, dataElem, outElem, soc);

  OpBuilder b(func.getContext());
  Block *entry = beginKernel(b, func, signature.types, plan.blockDim, "vector");
  Value bid = plan.blockDim > 1 ? dv::BlockIdxOp::create(b, func.getLoc(), b.getIndexType()).getResult()
                           : Value();
  GatherEmitter e(b, func.getLoc(), info, entry->getArgument(dataArg),
                  indexArg ? entry->getArgument(*indexArg) : Value(),
                  entry->getArgument(call.getNumOperands()), dataElem, outElem, soc);
  e.allocate(plan.tileElems);
  if (!plan.runs.empty())
    emitRuns(e, info, plan, bid);
  else
    emitIndexed(e, info, plan, bid);
  return finishKernel(entry, func, call);
}

} // namespace

const KernelTemplate kGatherTemplate = {"gather", gatherMismatch, lowerGather};

} // namespace vinci::lower
