//===- VectorMatmul.cpp - fp32 matmul on the Vector unit -------------------===//
//
// must_keep_origin_dtype (or a --keep_dtype'd matmul) keeps fp32 operands,
// and the 310P Cube takes no fp32: this template runs such a Cube-kind
// kernel on the Vector unit, in fp32 throughout (fp32 products, fp32
// accumulation). It takes a kernel whose anchor is vg.matmul, [M,K] x [K,N],
// [B..,M,K] x [B..,K,N] (equal batch dims) or [B..,M,K] x [K,N] (a 2-D
// weight: the batch folds into M), with transpose_b, when keepsOriginDtype
// holds for it and A, B and the result are f32 in GM; followed by the
// epilogue chain the partition fused: add, sub, mul, div, max, min with a
// scalar immediate, a [N] row, a one-element tensor or a tensor of the
// output's shape (either side), and relu, abs, neg, exp, log, sqrt,
// reciprocal, sigmoid, tanh, leaky relu, clip and an f32 -> f32 cast.
// Anything else (transpose_a, gelu, the head split/merge stores, f16
// operands) is left to the Cube template, which converts to f16.
//
// Per output row m and tile of 64-lane column chunks, two forms:
//  - B as [K, N] (no transpose_b): C[m, :] = sum_k A[m, k] * B[k, :].
//    vbrcb spreads A[m, k0 .. k0 + ks) into ks repeats of 64 equal lanes;
//    one vmla per 64-column chunk then runs ks repeats: src0 the k-th
//    broadcast, src1 B's row k (repeat stride one UB row), dst the output
//    chunk with repeat stride 0, so repeat k adds A[m,k] * B[k, chunk].
//  - B as [N, K] (transpose_b): C[m, n] = dot(A[m, :], B[n, :]). Per
//    64-element chunk j of K, vmul (j = 0) / vmla over ns repeats, one per
//    B row: src0 A's chunk with repeat stride 0, src1 B's row n, dst the
//    64 partial sums of row n; vcadd folds each row's 64 lanes into one
//    sum, vadd adds the ns sums to the output row. K is zero padded to 64
//    in UB so the padded lanes add 0.
// Tiles: Mt rows x Nt columns (Nt a multiple of 64, the output row's
// stride in UB) x Kt, shrunk until A, B, the broadcasts and the output
// tile fit UB (one buffer set). Blocks: equal parts of the batch, the rows
// or the columns (block_dim the largest divisor <= ai_core_count), ranked by
// a roofline of fp32 lanes and GM bytes. Loops: batch, M
// tiles, N tiles, K tiles and rows, the trip-1 ones left out; a kernel
// needing more than the ISA's 4 nested loops is left to the Cube template.
//
//===----------------------------------------------------------------------===//
#include "backend/lower/Epilogue.h"
#include "backend/lower/LowerCommon.h"

#include "dv/DvOps.h"
#include "vg/VgOps.h"
#include "vinci/soc.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace vinci::lower {
namespace {

constexpr int64_t kLanes = 64; // f32 lanes of one 256-byte repeat

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

/// A step of the epilogue chain (Epilogue.h, shared with the Cube matmul).
using Step = EpilogueStep;

struct Shape {
  unsigned aArg = 0, bArg = 0;
  Value a, b;
  bool tb = false, bBatched = false;
  int64_t batch = 1, M = 0, N = 0, K = 0;
  SmallVector<Step> steps;
};

/// A value the kernel reads from GM: an argument, or a tensor constant the
/// lowering hoists to one.
bool readFromGm(Block &body, Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == &body;
  return v.getDefiningOp<vg::ConstantOp>() && !scalarImmediate(v);
}

bool isF32(Value v) { return cast<RankedTensorType>(v.getType()).getElementType().isF32(); }

/// Why the Vector matmul cannot lower `func` ("": it can).
std::string analyze(func::FuncOp func, vg::MatMulOp mm, Shape &shape) {
  Block &body = func.getBody().front();
  if (!readFromGm(body, mm.getA()) || !readFromGm(body, mm.getB()))
    return "vg.matmul operands computed inside the kernel";
  if (mm.getTransposeA())
    return "transpose_a has no Vector matmul yet";
  if (!isF32(mm.getA()) || !isF32(mm.getB()) || !isF32(mm.getResult()))
    return "the Vector matmul takes f32 operands and result only";
  shape.a = mm.getA();
  shape.b = mm.getB();
  shape.tb = mm.getTransposeB();
  ArrayRef<int64_t> as = cast<RankedTensorType>(mm.getA().getType()).getShape();
  ArrayRef<int64_t> bs = cast<RankedTensorType>(mm.getB().getType()).getShape();
  if (as.size() < 2 || bs.size() < 2)
    return "vg.matmul with a 1-D operand";
  int64_t K = as.back();
  int64_t Kb = shape.tb ? bs.back() : bs[bs.size() - 2];
  int64_t N = shape.tb ? bs[bs.size() - 2] : bs.back();
  if (K != Kb)
    return "vg.matmul with mismatched K";
  if (bs.size() == 2) {
    shape.M = product(as.drop_back()); // [B.., M, K] x [K, N] is [B*M, K] x [K, N]
  } else {
    if (as.size() != bs.size() || as.drop_back(2) != bs.drop_back(2))
      return "batch dims broadcast other than a 2-D weight";
    shape.batch = product(as.drop_back(2));
    shape.M = as[as.size() - 2];
    shape.bBatched = true;
  }
  shape.N = N;
  shape.K = K;
  ArrayRef<int64_t> outShape = cast<RankedTensorType>(mm.getResult().getType()).getShape();

  Value current = mm.getResult();
  for (Operation &op : body) {
    if (&op == mm.getOperation() || isa<vg::ConstantOp>(op))
      continue;
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (ret.getNumOperands() != 1 || ret.getOperand(0) != current)
        return "the kernel must return the end of the matmul's epilogue chain";
      continue;
    }
    std::string name = opName(&op).str();
    Step step;
    if (std::string why = classifyEpilogueStep(&op, current, outShape, step); !why.empty())
      return why;
    if (!isF32(op.getResult(0)))
      return name + " changes the matmul's type";
    if (step.op == Step::Gelu)
      return name + " has no Vector matmul epilogue";
    if (step.batchBroadcast && product(outShape.drop_back(2)) != shape.batch)
      return name + " of a matrix broadcast over a batch folded into the rows has no Vector "
                    "matmul epilogue";
    if (step.other && (!readFromGm(body, step.other) || !isF32(step.other)))
      return name + " of a value that is not an f32 kernel argument";
    shape.steps.push_back(step);
    current = op.getResult(0);
  }
  return {};
}

vg::MatMulOp soleMatmul(func::FuncOp func) {
  SmallVector<vg::MatMulOp> found;
  func.walk([&](vg::MatMulOp mm) { found.push_back(mm); });
  return found.size() == 1 ? found.front() : vg::MatMulOp();
}

/// Whether the kernel's operands and result are f32 in GM and it keeps
/// its types (the Vector matmul's precondition, besides its shapes).
bool keepsF32(func::FuncOp func, func::CallOp call, const Shape &shape) {
  if (!call || !keepsOriginDtype(call))
    return false;
  Block &body = func.getBody().front();
  auto stored = [&](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == &body)
      return storageElementType(call.getOperand(arg.getArgNumber())).isF32();
    return isF32(v); // a constant hoisted into the graph: kept as the kernel keeps
  };
  return stored(shape.a) && stored(shape.b) && storageElementType(call.getResult(0)).isF32();
}

//===----------------------------------------------------------------------===//
// Plan
//===----------------------------------------------------------------------===//

struct Plan {
  int64_t Mt = 0, Nt = 0, Kt = 0; // Nt: a multiple of 64, the UB row stride
  int64_t blockDim = 1;
  enum Split { None, Batch, Rows, Cols } split = None;
  int64_t Bb = 1, Mb = 0, Nb = 0; // per block
};

int64_t largestDivisor(int64_t extent, int64_t atMost) {
  for (int64_t d = std::min(extent, atMost); d > 1; --d)
    if (extent % d == 0)
      return d;
  return 1;
}

/// UB bytes of one buffer set.
int64_t ubBytes(const Shape &s, int64_t Mt, int64_t Nt, int64_t Kt) {
  int64_t aRow = s.tb ? roundUp(Kt, kLanes) : roundUp(Kt, 8);
  int64_t bytes = Mt * aRow * 4 + Mt * Nt * 4;
  if (s.tb) // B [Nt][Kt padded], 64 partial sums per B row, the row sums
    bytes += Nt * roundUp(Kt, kLanes) * 4 + Nt * kLanes * 4 + Nt * 4;
  else // B [Kt][Nt], Kt broadcasts of A
    bytes += Kt * Nt * 4 + Kt * kLanes * 4;
  for (const Step &step : s.steps) {
    if (step.kind == Step::Row || step.kind == Step::Elem)
      bytes += Nt * 4 + kLanes * 4 + 32;
    if (step.kind == Step::Full)
      bytes += Mt * Nt * 4;
  }
  return bytes;
}

/// Loops one tile category needs: batch, M tiles, N tiles, K tiles, rows.
int64_t loopDepth(const Shape &s, const Plan &p) {
  return (p.Bb > 1) + (p.Mb / p.Mt > 1) + (roundUp(p.Nb, p.Nt) / p.Nt > 1) + (s.K / p.Kt > 1) +
         (std::min(p.Mt, p.Mb) > 1);
}

std::string plan(const Shape &s, Plan &p, const soc::SocSpec &soc) {
  // Blocks: equal parts of the batch, the rows or the columns, ranked by a
  // roofline: a block's Vector repeats (lanes padded to 64), or the GM
  // bytes over the chip's bandwidth (row parts each read all of B once per
  // 64-row tile, column parts all of A once per 256-column tile).
  int64_t cores = soc.ai_core_count;
  int64_t dB = s.bBatched ? largestDivisor(s.batch, cores) : 1;
  int64_t dM = largestDivisor(s.M, cores), dN = largestDivisor(s.N, cores);
  auto tiles = [](int64_t extent, int64_t tile) { return double(roundUp(extent, tile) / tile); };
  double a = double(s.M) * s.K, bMat = double(s.K) * s.N;
  struct Choice {
    Plan::Split split;
    int64_t blocks;
    double bytes; // per batch
  } choices[] = {
      {Plan::Batch, dB, a * tiles(s.N, 256) + bMat * tiles(s.M, 64)},
      {Plan::Rows, dM, a * tiles(s.N, 256) + dM * bMat * tiles(s.M / dM, 64)},
      {Plan::Cols, dN, dN * a * tiles(s.N / dN, 256) + bMat * tiles(s.M, 64)},
  };
  // A block's Vector cycles: 64-lane repeats over its rows x padded
  // columns x K (transpose_b: over padded K), plus the broadcasts of A
  // (one repeat per row and k).
  auto blockCycles = [&](int64_t batches, int64_t rows, int64_t cols) {
    double work = s.tb ? double(rows) * cols * roundUp(s.K, kLanes) / kLanes
                       : double(rows) * s.K * (roundUp(cols, kLanes) / kLanes + 1);
    return double(batches) * work;
  };
  double vectorCycles[] = {blockCycles(s.batch / dB, s.M, s.N),
                           blockCycles(s.batch, s.M / dM, s.N),
                           blockCycles(s.batch, s.M, s.N / dN)};
  double gmBytesPerCycle = soc.gm_bytes_per_second / soc.clock_hz;
  auto cycles = [&](const Choice &c) {
    return std::max(vectorCycles[&c - choices], 4 * c.bytes * s.batch / gmBytesPerCycle);
  };
  const Choice *chosen = nullptr;
  for (const Choice &c : choices) // the fastest, then the fewest bytes
    if (c.blocks > 1 && (!chosen || cycles(c) < cycles(*chosen) ||
                         (cycles(c) == cycles(*chosen) && c.bytes < chosen->bytes)))
      chosen = &c;
  p.split = chosen ? chosen->split : Plan::None;
  p.blockDim = chosen ? chosen->blocks : 1;
  p.Bb = s.bBatched ? (p.split == Plan::Batch ? s.batch / dB : s.batch) : 1;
  p.Mb = p.split == Plan::Rows ? s.M / dM : s.M;
  p.Nb = p.split == Plan::Cols ? s.N / dN : s.N;
  // vmla repeats over K (B as [K, N]) or over B's rows (transpose_b): at
  // most max_repeat; vbrcb and vcadd likewise.
  int64_t maxRepeat = soc.max_repeat;
  p.Mt = std::min<int64_t>(p.Mb, 64);
  p.Nt = std::min<int64_t>(roundUp(p.Nb, kLanes), s.tb ? 128 : 256);
  p.Kt = s.tb ? std::min<int64_t>(roundUp(s.K, kLanes), 512)
              : std::min<int64_t>(s.K, maxRepeat / 8 * 8);
  int64_t ub = static_cast<int64_t>(soc.bufferBytes(soc::Space::UB));
  // K shrinks first: a K tile only sets how often the loads go, while
  // fewer rows re-read B per M tile and fewer columns re-read A per N tile
  // (and spread each broadcast over fewer chunks).
  while (ubBytes(s, p.Mt, p.Nt, p.Kt) > ub) {
    if (p.Kt > kLanes)
      p.Kt = s.tb ? roundUp(p.Kt / 2, kLanes) : roundUp(p.Kt / 2, 8);
    else if (p.Mt > 8)
      p.Mt = roundUp(p.Mt / 2, 8);
    else if (p.Nt > kLanes)
      p.Nt = roundUp(p.Nt / 2, kLanes);
    else if (!s.tb && p.Kt > 8)
      p.Kt = roundUp(p.Kt / 2, 8);
    else
      return "no fp32 Vector matmul tile fits UB";
  }
  if (loopDepth(s, p) > 4)
    return "the Vector matmul of this shape needs more than 4 nested loops";
  return {};
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

/// An element offset c + sum coef * index (indices: loop ivs, block_idx).
struct Offset {
  int64_t c = 0;
  SmallVector<std::pair<Value, int64_t>> terms;
  Offset(int64_t c = 0) : c(c) {}
  Offset(Value v, int64_t coef) {
    if (v && coef)
      terms.push_back({v, coef});
  }
  Offset operator+(const Offset &o) const {
    Offset r = *this;
    r.c += o.c;
    llvm::append_range(r.terms, o.terms);
    return r;
  }
};

class Emitter {
public:
  Emitter(OpBuilder &b, Location loc, const Shape &s, const Plan &p, ArrayRef<Value> gm,
          unsigned outArg, const soc::SocSpec &soc)
      : b(b), loc(loc), s(s), p(p), gm(gm), outArg(outArg), soc(soc), f32(b.getF32Type()),
        flat(b, loc, soc.max_repeat) {}

  void emit() {
    if (p.blockDim > 1)
      bid = dv::BlockIdxOp::create(b, loc, b.getIndexType()).getResult();
    aRow = s.tb ? roundUp(p.Kt, kLanes) : roundUp(p.Kt, 8);
    ubA = alloc(p.Mt * aRow);
    ubOut = alloc(p.Mt * p.Nt);
    if (s.tb) {
      ubB = alloc(p.Nt * aRow);
      ubPartial = alloc(p.Nt * kLanes);
      ubSums = alloc(roundUp(p.Nt, 8));
    } else {
      ubB = alloc(p.Kt * p.Nt);
      ubBcast = alloc(p.Kt * kLanes);
    }
    for (const Step &step : s.steps) {
      if ((step.kind == Step::Row || step.kind == Step::Elem) && !ubRow) {
        ubRow = alloc(p.Nt);
        ubOne = alloc(kLanes);
        ubElem = alloc(8);
      }
      if (step.kind == Step::Full && !ubOther)
        ubOther = alloc(p.Mt * p.Nt);
    }

    struct Range {
      int64_t size, count, base;
    };
    auto ranges = [](int64_t extent, int64_t tile) {
      SmallVector<Range> r;
      if (extent / tile)
        r.push_back({tile, extent / tile, 0});
      if (extent % tile)
        r.push_back({extent % tile, 1, extent / tile * tile});
      return r;
    };
    SmallVector<Range> ms = ranges(p.Mb, p.Mt), ns = ranges(p.Nb, p.Nt);
    for (const Range &m : ms)
      loops({p.Bb, m.count}, [&](ArrayRef<Value> outer) {
        Offset batch = blockPart(Plan::Batch, p.Bb) + Offset(outer[0], 1);
        Offset row = blockPart(Plan::Rows, p.Mb) +
                     Offset(outer[1], p.Mt) + Offset(m.base);
        for (const Range &n : ns)
          loops({n.count}, [&](ArrayRef<Value> inner) {
            Offset col = blockPart(Plan::Cols, p.Nb) + Offset(inner[0], p.Nt) + Offset(n.base);
            tile(batch, row, col, m.size, n.size);
          });
      });
  }

private:
  /// This block's first batch, row or column along the split dimension.
  Offset blockPart(Plan::Split split, int64_t perBlock) {
    return p.split == split ? Offset(bid, perBlock) : Offset();
  }
  IntegerAttr I(int64_t v) { return b.getI64IntegerAttr(v); }
  DenseI64ArrayAttr strides(ArrayRef<int64_t> v) { return b.getDenseI64ArrayAttr(v); }

  void loops(ArrayRef<int64_t> trips, function_ref<void(ArrayRef<Value>)> body) {
    emitLoopNest(b, loc, trips, body);
  }

  Value alloc(int64_t elems) {
    auto type = dv::BufType::get(b.getContext(), dv::MemSpace::UB, {elems}, f32, dv::Layout::ND);
    return dv::AllocOp::create(b, loc, type, IntegerAttr()).getResult();
  }

  AffineMapAttr mapOf(const Offset &o, SmallVectorImpl<Value> &indices) {
    AffineExpr expr = b.getAffineConstantExpr(o.c);
    for (auto [v, k] : o.terms) {
      expr = expr + b.getAffineDimExpr(indices.size()) * k;
      indices.push_back(v);
    }
    return AffineMapAttr::get(AffineMap::get(indices.size(), 0, expr));
  }

  /// `elems` elements of UB buffer `buf` from element `offset`.
  Value ub(Value buf, const Offset &offset, int64_t elems) {
    auto type = dv::BufType::get(b.getContext(), dv::MemSpace::UB, {elems}, f32, dv::Layout::ND);
    SmallVector<Value> idx;
    AffineMapAttr map = mapOf(offset, idx);
    return dv::ViewOp::create(b, loc, type, buf, idx, map).getResult();
  }
  Value gmAt(Value buf, const Offset &offset, int64_t elems) {
    auto type = dv::GmType::get(b.getContext(), {elems}, f32);
    SmallVector<Value> idx;
    AffineMapAttr map = mapOf(offset, idx);
    return dv::ViewOp::create(b, loc, type, buf, idx, map).getResult();
  }

  /// `rows` rows of `cols` elements between GM (row stride `gmStride`) and
  /// UB (row stride `ubStride`), one burst a row.
  void load(Value gmArg, const Offset &at, Value dst, int64_t rows, int64_t cols,
            int64_t gmStride, int64_t ubStride) {
    dv::CopyOp::create(b, loc, gmAt(gmArg, at, (rows - 1) * gmStride + cols),
                       ub(dst, Offset(), (rows - 1) * ubStride + cols), I(rows), I(cols * 4),
                       I((gmStride - cols) * 4), I((ubStride - cols) * 4));
  }
  void store(Value src, const Offset &at, int64_t rows, int64_t cols) {
    dv::CopyOp::create(b, loc, ub(src, Offset(), (rows - 1) * p.Nt + cols),
                       gmAt(gm[outArg], at, (rows - 1) * s.N + cols), I(rows), I(cols * 4),
                       I((p.Nt - cols) * 4), I((s.N - cols) * 4));
  }

  /// fn(first element, repeats) over `elems` contiguous f32 elements.
  void chunks(int64_t elems, function_ref<void(int64_t, int64_t)> fn) {
    int64_t repeats = roundUp(elems, kLanes) / kLanes;
    for (int64_t r = 0; r < repeats; r += soc.max_repeat)
      fn(r * kLanes, std::min<int64_t>(soc.max_repeat, repeats - r));
  }
  void fill(Value buf, int64_t elems, double value) {
    chunks(elems, [&](int64_t off, int64_t n) {
      dv::VDupOp::create(b, loc, b.getF32FloatAttr(float(value)), ub(buf, off, n * kLanes), I(n),
                         DenseI64ArrayAttr(), DenseI64ArrayAttr(), DenseI64ArrayAttr());
    });
  }
  /// One output tile: zero it, accumulate every K tile, the epilogue, store.
  void tile(const Offset &batch, const Offset &row, const Offset &col, int64_t msz,
            int64_t nsz) {
    fill(ubOut, msz * p.Nt, 0.0);
    int64_t kFull = s.K / p.Kt, kTail = s.K % p.Kt;
    if (kFull)
      loops({kFull}, [&](ArrayRef<Value> iv) {
        kStep(batch, row, col, Offset(iv[0], p.Kt), msz, nsz, p.Kt);
      });
    if (kTail)
      kStep(batch, row, col, Offset(kFull * p.Kt), msz, nsz, kTail);
    epilogue(batch, row, col, msz, nsz);
    store(ubOut, outOffset(batch, row, col), msz, nsz);
  }

  Offset scaled(const Offset &o, int64_t k) {
    Offset r(o.c * k);
    for (auto [v, c] : o.terms)
      r.terms.push_back({v, c * k});
    return r;
  }
  Offset outOffset(const Offset &batch, const Offset &row, const Offset &col) {
    return scaled(batch, s.M * s.N) + scaled(row, s.N) + col;
  }

  void kStep(const Offset &batch, const Offset &row, const Offset &col, const Offset &k0,
             int64_t msz, int64_t nsz, int64_t ksz) {
    int64_t M = s.M, N = s.N, K = s.K;
    Offset aAt = scaled(batch, M * K) + scaled(row, K) + k0;
    Offset bBase = s.bBatched ? scaled(batch, K * N) : Offset();
    if (s.tb && ksz % kLanes) {
      // The dot products read whole 64-lane chunks: the lanes past K add 0.
      fill(ubA, msz * aRow, 0.0);
      fill(ubB, nsz * aRow, 0.0);
    }
    load(gm[s.aArg], aAt, ubA, msz, ksz, K, aRow);
    if (s.tb)
      load(gm[s.bArg], bBase + scaled(col, K) + k0, ubB, nsz, ksz, K, aRow);
    else
      load(gm[s.bArg], bBase + scaled(k0, N) + col, ubB, ksz, nsz, N, p.Nt);
    loops({msz}, [&](ArrayRef<Value> iv) {
      Offset aRowAt(iv[0], aRow), outRowAt(iv[0], p.Nt);
      if (!s.tb) {
        // bcast[k][:] = A[m, k]; out[m, chunk] += sum_k bcast[k] * B[k, chunk].
        dv::VBrcbOp::create(b, loc, ub(ubA, aRowAt, ksz), ub(ubBcast, Offset(), ksz * kLanes),
                            I(ksz), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                            DenseI64ArrayAttr());
        for (int64_t c = 0; c < roundUp(nsz, kLanes) / kLanes; ++c)
          dv::VMlaOp::create(b, loc, ub(ubBcast, Offset(), ksz * kLanes),
                             ub(ubB, Offset(c * kLanes), (ksz - 1) * p.Nt + kLanes),
                             ub(ubOut, outRowAt + Offset(c * kLanes), kLanes), I(ksz),
                             strides({1, 1, 1}), strides({0, 8, p.Nt / 8}), DenseI64ArrayAttr());
        return;
      }
      // partial[n][:] = sum_j A[m, chunk j] * B[n, chunk j]; sums[n] = the
      // lanes of partial[n]; out[m, n] += sums[n].
      Value partial = ub(ubPartial, Offset(), nsz * kLanes);
      for (int64_t j = 0; j < roundUp(ksz, kLanes) / kLanes; ++j) {
        Value aChunk = ub(ubA, aRowAt + Offset(j * kLanes), kLanes);
        Value bRows = ub(ubB, Offset(j * kLanes), (nsz - 1) * aRow + kLanes);
        DenseI64ArrayAttr blk = strides({1, 1, 1}), rep = strides({8, 0, aRow / 8});
        if (j == 0)
          dv::VMulOp::create(b, loc, aChunk, bRows, partial, I(nsz), blk, rep,
                             DenseI64ArrayAttr());
        else
          dv::VMlaOp::create(b, loc, aChunk, bRows, partial, I(nsz), blk, rep,
                             DenseI64ArrayAttr());
      }
      Value sums = ub(ubSums, Offset(), roundUp(nsz, 8));
      dv::VCAddOp::create(b, loc, partial, sums, UnitAttr(), I(nsz), DenseI64ArrayAttr(),
                          DenseI64ArrayAttr(), DenseI64ArrayAttr());
      Value outRow = ub(ubOut, outRowAt, roundUp(nsz, kLanes));
      int64_t repeats = roundUp(nsz, kLanes) / kLanes;
      dv::VAddOp::create(b, loc, outRow, ub(ubSums, Offset(), repeats * kLanes), outRow,
                         I(repeats), DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                         DenseI64ArrayAttr());
    });
  }

  void epilogue(const Offset &batch, const Offset &row, const Offset &col, int64_t msz,
                int64_t nsz) {
    int64_t elems = msz * p.Nt, chunksPerRow = roundUp(nsz, kLanes) / kLanes;
    for (const Step &e : s.steps) {
      switch (e.kind) {
      case Step::Unary:
      case Step::Scalar:
        flat.step(e, ub(ubOut, Offset(), elems), elems);
        break;
      case Step::Row:
      case Step::Elem: {
        // The row's columns (or the one element spread over 64 lanes),
        // applied to every row of the tile: repeat stride 0 on it.
        bool one = e.kind == Step::Elem;
        Value other = ubRow;
        if (one) {
          load(gm[e.arg], Offset(), ubElem, 1, 1, 1, 1);
          dv::VBrcbOp::create(b, loc, ub(ubElem, Offset(), 8), ub(ubOne, Offset(), kLanes), I(1),
                              DenseI64ArrayAttr(), DenseI64ArrayAttr(), DenseI64ArrayAttr());
          other = ubOne;
        } else {
          load(gm[e.arg], col, ubRow, 1, nsz, s.N, p.Nt);
        }
        for (int64_t c = 0; c < chunksPerRow; ++c)
          flat.binary(e.op, ub(ubOut, Offset(c * kLanes), (msz - 1) * p.Nt + kLanes),
                      ub(other, Offset(one ? 0 : c * kLanes), kLanes), e.left, msz, {1, 1},
                      {p.Nt / 8, 0});
        break;
      }
      case Step::Full:
        load(gm[e.arg], outOffset(e.batchBroadcast ? Offset() : batch, row, col), ubOther, msz,
             nsz, s.N, p.Nt);
        chunks(elems, [&](int64_t off, int64_t n) {
          flat.binary(e.op, ub(ubOut, off, n * kLanes), ub(ubOther, off, n * kLanes), e.left, n);
        });
        break;
      }
    }
  }

  OpBuilder &b;
  Location loc;
  const Shape &s;
  const Plan &p;
  ArrayRef<Value> gm;
  unsigned outArg;
  const soc::SocSpec &soc;
  Type f32;
  Value bid;
  int64_t aRow = 0;
  Value ubA, ubB, ubOut, ubBcast, ubPartial, ubSums, ubRow, ubOne, ubElem, ubOther;
  FlatTileEmitter flat; // the epilogue's vector instructions
};

/// Whether this template takes `func` (launched by `call`): a matmul it
/// can lower, keeping fp32, with a tile plan.
bool takes(func::FuncOp func, func::CallOp call) {
  vg::MatMulOp mm = soleMatmul(func);
  Shape shape;
  Plan p;
  return mm && analyze(func, mm, shape).empty() && keepsF32(func, call, shape) &&
         plan(shape, p, dv::getSoc(func->getParentOfType<ModuleOp>())).empty();
}

std::optional<std::string> vectorMatmulMismatch(func::FuncOp func) {
  auto kind = func->getAttrOfType<StringAttr>("vinci.kernel");
  if (!kind || kind.getValue() != "cube")
    return std::nullopt;
  // Only kernels that keep fp32 are this template's kind; the rest go to
  // the Cube, and so do the kept ones this template cannot lower (their
  // f32 operands are converted to f16 there).
  if (!takes(func, soleCall(func)))
    return std::nullopt;
  return std::string();
}

LogicalResult lowerVectorMatmul(func::FuncOp func, func::CallOp call, const soc::SocSpec &soc) {
  SmallVector<vg::ConstantOp> constants;
  for (auto constant : func.getBody().front().getOps<vg::ConstantOp>())
    if (!scalarImmediate(constant.getResult()))
      constants.push_back(constant);
  for (vg::ConstantOp constant : constants)
    hoistConstantToArgument(func, call, constant);
  Shape shape;
  std::string why = analyze(func, soleMatmul(func), shape);
  Plan p;
  if (why.empty())
    why = plan(shape, p, soc);
  if (!why.empty())
    return func.emitError() << "kernel " << func.getSymName() << ": " << why;
  auto argOf = [&](Value v) { return cast<BlockArgument>(v).getArgNumber(); };
  shape.aArg = argOf(shape.a);
  shape.bArg = argOf(shape.b);
  for (Step &step : shape.steps)
    if (step.other)
      step.arg = argOf(step.other);

  GmSignature signature = gmSignature(call);
  OpBuilder b(func.getContext());
  Block *entry = beginKernel(b, func, signature.types, p.blockDim, "vector");
  SmallVector<Value> gmArgs(entry->getArguments());
  Emitter(b, func.getLoc(), shape, p, gmArgs, call.getNumOperands(), soc).emit();
  return finishKernel(entry, func, call);
}

} // namespace

bool matmulRunsOnVector(func::FuncOp kernel, func::CallOp call) {
  return kernel && call && takes(kernel, call);
}

extern const KernelTemplate kVectorMatmulTemplate = {"vector_matmul", vectorMatmulMismatch,
                                                     lowerVectorMatmul};

} // namespace vinci::lower
