//===- KernelMoves.cpp - data movement and the Cube as Ascend C -----------===//
//
// dv.copy, copy_nd2nz, copy_nz2nd and copy_gather become DataCopy calls in
// 32-byte blocks; load_fractals LoadData (2-D); mmad Mmad; move_l0c_ub the
// CO1 -> CO2 DataCopy with DataCopyEnhancedParams (the 310P has no Fixpipe).
// Where the ISA is byte-granular and DataCopy is not, docs/ascendc.md says
// what the mapping does with the bytes past a burst.
//
//===----------------------------------------------------------------------===//
#include "KernelWriter.h"

#include <cstring>

namespace vinci::backend::ascendc {

using namespace mlir;

namespace {

constexpr int64_t kBlock = 32;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool isLocal(dv::MemSpace s) { return s != dv::MemSpace::GM; }

std::string params(int64_t count, int64_t len, int64_t srcGap, int64_t dstGap) {
  return "DataCopyParams(" + std::to_string(count) + ", " + std::to_string(len) + ", " +
         std::to_string(srcGap) + ", " + std::to_string(dstGap) + ")";
}

/// NZ columns per fractal row: 16 for 16- and 32-bit types, 32 for 8-bit.
int64_t c0Of(int64_t es) { return es == 1 ? 32 : 16; }

} // namespace

// The staging area: its first block is writeTail's, the rest stages bursts.
std::string KernelWriter::stage(const std::string &type) {
  return "ub[" + std::to_string(stagingOffset() + kBlock) + "].ReinterpretCast<" + type + ">()";
}

std::string KernelWriter::tailStage(const std::string &type) {
  return "ub[" + std::to_string(stagingOffset()) + "].ReinterpretCast<" + type + ">()";
}

void KernelWriter::exactGmWrite(const std::string &type, int64_t es, const std::string &dst,
                                const std::string &src, const std::string &offsetGm,
                                const std::string &offsetUb, int64_t bytes) {
  // Whole blocks go straight out; the last bytes % 32 by writeTail.
  const int64_t head = bytes / kBlock * kBlock, tail = bytes % kBlock;
  auto plus = [](const std::string &base, int64_t elems) {
    if (elems == 0)
      return base;
    return base.empty() ? std::to_string(elems) : base + " + " + std::to_string(elems);
  };
  auto index = [](const std::string &tensor, const std::string &offset) {
    return offset.empty() ? tensor : tensor + "[" + offset + "]";
  };
  if (head)
    line("DataCopy(" + index(dst, offsetGm) + ", " + index(src, offsetUb) + ", " +
         params(1, head / kBlock, 0, 0) + ");");
  if (tail) {
    requireStaging(kBlock);
    usesWriteTail_ = true;
    line("writeTail(" + index(dst, plus(offsetGm, head / es)) + ", " +
         index(src, plus(offsetUb, head / es)) + ", " + tailStage(type) + ", " +
         std::to_string(tail) + ");");
  }
}

LogicalResult KernelWriter::emitCopy(dv::CopyOp op) {
  TensorRef src, dst;
  if (failed(ref(op, op.getSrc(), src)) || failed(ref(op, op.getDst(), dst)))
    return failure();
  using S = dv::MemSpace;
  if (src.space == S::L1 && (dst.space == S::L0A || dst.space == S::L0B))
    return emitFractalCopy(op, src, dst);
  const bool ok = (src.space == S::GM && (dst.space == S::UB || dst.space == S::L1)) ||
                  (src.space == S::UB && (dst.space == S::GM || dst.space == S::UB ||
                                          dst.space == S::L1)) ||
                  (src.space == S::L1 && dst.space == S::UB);
  if (!ok)
    return fail(op, "copies " + std::string(dv::stringifyMemSpace(src.space)) + " -> " +
                        dv::stringifyMemSpace(dst.space).str() +
                        ": DataCopy has no such byte-burst path (L0A/L0B are filled by LoadData)");
  // DataCopy takes one element type: the GM side's, else the destination's.
  Type element = src.space == S::GM ? src.element : dst.element;
  std::optional<std::string> type = cType(op, element);
  if (!type)
    return failure();
  const int64_t es = dv::elementBytes(element);
  auto side = [&](const TensorRef &t, const std::string &term) {
    if (t.element == element)
      return at(t, 0, term);
    // Reinterpreted at the byte offset, then stepped in `element`s.
    std::string base = atAs(t, *type);
    return term.empty() ? base : base + "[" + term + "]";
  };
  auto step = [](int64_t elems) { return elems ? "b * " + std::to_string(elems) : std::string(); };
  const int64_t n = op.getBursts(), bytes = op.getBurstBytes();
  const int64_t srcStep = bytes + op.getSrcGap(), dstStep = bytes + op.getDstGap();
  const int64_t len = ceilDiv(bytes, kBlock), tail = bytes % kBlock;
  if (srcStep % es != 0 || dstStep % es != 0 || bytes % es != 0)
    return fail(op, "bursts and their strides are not whole " + *type + " elements");
  const TensorRef &local = src.space == S::GM ? dst : src;
  const int64_t localStep = src.space == S::GM ? dstStep : srcStep;
  const bool toGm = dst.space == S::GM, fromGm = src.space == S::GM;
  auto loop = [&](int64_t count, auto body) {
    if (count == 1) {
      body(std::string("0"), true);
      return;
    }
    open("for (int32_t b = 0; b < " + std::to_string(count) + "; ++b)");
    body(std::string("b"), false);
    close();
  };

  // A UB side whose bursts do not start on 32-byte blocks: DataCopy cannot
  // address them; the Scalar unit moves those bytes through a staging block.
  if (n > 1 && localStep % kBlock != 0) {
    if (local.space != S::UB || (!toGm && !fromGm))
      return fail(op, "bursts start every " + std::to_string(localStep) + " bytes in " +
                          dv::stringifyMemSpace(local.space).str() +
                          ", not on 32-byte blocks as DataCopy addresses local memory");
    requireStaging(uint64_t(kBlock + len * kBlock));
    const std::string ub8 = atAs(local, "uint8_t"), staged8 = stage("uint8_t");
    barrierAll("dv.copy: bursts off the UB's 32-byte blocks move through the Scalar unit");
    open("for (int32_t b = 0; b < " + std::to_string(n) + "; ++b)");
    if (toGm) {
      line("for (int32_t i = 0; i < " + std::to_string(bytes) + "; ++i) " + staged8 + ".SetValue(i, " +
           ub8 + ".GetValue(b * " + std::to_string(srcStep) + " + i));");
      line("SetFlag<HardEvent::S_MTE3>(EVENT_ID0);");
      line("WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);");
      exactGmWrite(*type, es, at(dst, 0, step(dstStep / es)), stage(*type), "", "", bytes);
      barrierAll("the staging block is free again");
    } else {
      line("DataCopy(" + stage(*type) + ", " + at(src, 0, step(srcStep / es)) + ", " +
           params(1, len, 0, 0) + ");");
      line("SetFlag<HardEvent::MTE2_S>(EVENT_ID0);");
      line("WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);");
      line("for (int32_t i = 0; i < " + std::to_string(bytes) + "; ++i) " + ub8 +
           ".SetValue(b * " + std::to_string(dstStep) + " + i, " + staged8 + ".GetValue(i));");
    }
    close();
    barrierAll("the moved bytes are in place before any pipe reads them");
    return success();
  }

  // GM writes: DataCopy writes whole blocks, and bytes past a burst must
  // keep their value (another tensor's, another block's, another piece of
  // this one's). A burst whose bytes past its end are the next burst's, in
  // order, is copied whole; every other tail goes through writeTail.
  if (toGm && tail) {
    const bool coveredByNext = dstStep == bytes && len * kBlock - bytes <= bytes;
    int64_t whole = coveredByNext ? n - 1 : 0;
    if (whole > 0)
      loop(whole, [&](const std::string &, bool single) {
        line("DataCopy(" + side(dst, single ? "" : step(dstStep / es)) + ", " +
             side(src, single ? "" : step(srcStep / es)) + ", " + params(1, len, 0, 0) + ");");
      });
    if (whole > 0 && n - whole == 1) {
      exactGmWrite(*type, es, side(dst, ""), side(src, ""), std::to_string((n - 1) * dstStep / es),
                   std::to_string((n - 1) * srcStep / es), bytes);
      return success();
    }
    loop(n - whole, [&](const std::string &, bool single) {
      exactGmWrite(*type, es, side(dst, ""), side(src, ""), single ? "" : step(dstStep / es),
                   single ? "" : step(srcStep / es), bytes);
    });
    return success();
  }
  // Local to local with a tail: whole blocks by DataCopy, the tail by the
  // Scalar unit (the destination's bytes past the burst are live).
  if (!toGm && !fromGm && tail) {
    barrierAll("dv.copy: the tail of a burst moves through the Scalar unit");
    const int64_t head = bytes - tail;
    loop(n, [&](const std::string &, bool single) {
      if (head)
        line("DataCopy(" + side(dst, single ? "" : step(dstStep / es)) + ", " +
             side(src, single ? "" : step(srcStep / es)) + ", " + params(1, head / kBlock, 0, 0) +
             ");");
      line("PipeBarrier<PIPE_ALL>();");
      std::string d8 = atAs(dst, "uint8_t"), s8 = atAs(src, "uint8_t");
      std::string db = single ? "" : "b * " + std::to_string(dstStep) + " + ";
      std::string sb = single ? "" : "b * " + std::to_string(srcStep) + " + ";
      line("for (int32_t i = " + std::to_string(head) + "; i < " + std::to_string(bytes) + "; ++i) " +
           d8 + ".SetValue(" + db + "i, " + s8 + ".GetValue(" + sb + "i));");
    });
    barrierAll("the tails are in place before any pipe reads them");
    return success();
  }
  if (n == 1) {
    line("DataCopy(" + side(dst, "") + ", " + side(src, "") + ", " + params(1, len, 0, 0) + ");");
    return success();
  }
  if (srcStep % kBlock == 0 && dstStep % kBlock == 0 && srcStep >= len * kBlock &&
      dstStep >= len * kBlock && n <= 4095 && srcStep / kBlock - len <= 65535 &&
      dstStep / kBlock - len <= 65535) {
    line("DataCopy(" + side(dst, "") + ", " + side(src, "") + ", " +
         params(n, len, srcStep / kBlock - len, dstStep / kBlock - len) + ");");
    return success();
  }
  // A GM source whose bursts are not whole blocks apart: one DataCopy a burst.
  loop(n, [&](const std::string &, bool) {
    line("DataCopy(" + side(dst, step(dstStep / es)) + ", " + side(src, step(srcStep / es)) + ", " +
         params(1, len, 0, 0) + ");");
  });
  return success();
}

// L1 -> L0A/L0B bursts of whole fractals (the conv template's weight and
// patch tiles): LoadData 2-D of contiguous 512-byte fractals, no transpose.
LogicalResult KernelWriter::emitFractalCopy(dv::CopyOp op, const TensorRef &src,
                                            const TensorRef &dst) {
  constexpr int64_t kFractal = 512;
  const int64_t n = op.getBursts(), bytes = op.getBurstBytes();
  const int64_t srcStep = bytes + op.getSrcGap(), dstStep = bytes + op.getDstGap();
  if (bytes % kFractal != 0 || srcStep % kFractal != 0 || dstStep % kFractal != 0)
    return fail(op, "copies L1 -> " + dv::stringifyMemSpace(dst.space).str() + " in bursts of " +
                        std::to_string(bytes) + " bytes every " + std::to_string(srcStep) + " / " +
                        std::to_string(dstStep) +
                        ": LoadData moves whole 512-byte fractals (no DataCopy path reaches L0A/L0B)");
  if (src.element != dst.element)
    return fail(op, "LoadData takes one element type");
  std::optional<std::string> type = cType(op, src.element);
  if (!type)
    return failure();
  usesLoadHelper_ = true;
  const int64_t es = dv::elementBytes(src.element), fractalElems = kFractal / es;
  auto burst = [&](const std::string &b) {
    // Up to 255 fractals a LoadData.
    for (int64_t done = 0, fractals = bytes / kFractal; done < fractals;) {
      int64_t count = std::min<int64_t>(255, fractals - done);
      auto term = [&](int64_t step) {
        std::string t = b.empty() ? "" : b + " * " + std::to_string(step / es);
        if (done)
          t += (t.empty() ? "" : " + ") + std::to_string(done * fractalElems);
        return t;
      };
      line("LoadData(" + at(dst, 0, term(dstStep)) + ", " + at(src, 0, term(srcStep)) +
           ", load2d(" + std::to_string(count) + ", 1, 0, false));");
      done += count;
    }
  };
  if (n == 1) {
    burst("");
    return success();
  }
  open("for (int32_t b = 0; b < " + std::to_string(n) + "; ++b)");
  burst("b");
  close();
  return success();
}

LogicalResult KernelWriter::emitCopyNd2Nz(dv::CopyNd2NzOp op) {
  TensorRef src, dst;
  if (failed(ref(op, op.getSrc(), src)) || failed(ref(op, op.getDst(), dst)))
    return failure();
  if (dst.space != dv::MemSpace::UB && dst.space != dv::MemSpace::L1)
    return fail(op, "writes an NZ tile to " + dv::stringifyMemSpace(dst.space).str() +
                        ": DataCopy reaches UB and L1 only");
  std::optional<std::string> type = cType(op, src.element);
  if (!type)
    return failure();
  const int64_t es = dv::elementBytes(src.element), c0 = c0Of(es), rowBytes = c0 * es;
  const int64_t rows = op.getRows(), cols = op.getCols(), stride = op.getSrcRowStride();
  const int64_t drows = op.getDstRows(), dcols = op.getDstCols();
  const int64_t blocks = ceilDiv(cols, c0), rem = cols % c0, dblocks = dcols / c0;
  const int64_t columnBlockBytes = drows * rowBytes, tileBytes = dblocks * columnBlockBytes;
  // Rows [r0, r0 + count) (r0 an expression): `n` column blocks from
  // column block `firstBlock` on, contiguous in GM, to rows of the NZ
  // column blocks of `tile`, `tileRows` rows apart.
  auto rowCopies = [&](const std::string &tile, const std::string &r0, int64_t count,
                       int64_t firstBlock, int64_t n, int64_t tileRows) {
    std::string p = params(n, rowBytes / kBlock, 0, n > 1 ? (tileRows - 1) * rowBytes / kBlock : 0);
    auto source = [&](const std::string &row) {
      const bool simple = row.find(' ') == std::string::npos;
      std::string term = row == "0" ? ""
                         : simple   ? row + " * " + std::to_string(stride)
                                    : "(" + row + ") * " + std::to_string(stride);
      if (firstBlock)
        term += (term.empty() ? "" : " + ") + std::to_string(firstBlock * c0);
      return at(src, 0, term);
    };
    if (count == 1) {
      line("DataCopy(" + tile + ", " + source(r0) + ", " + p + ");");
      return;
    }
    open("for (int32_t r = 0; r < " + std::to_string(count) + "; ++r)");
    line("DataCopy(" + tile + "[r * " + std::to_string(c0) + "], " +
         source(r0 == "0" ? "r" : r0 + " + r") + ", " + p + ");");
    close();
  };
  if (rem == 0 && rows == drows && blocks == dblocks) {
    rowCopies(at(dst), "0", rows, 0, blocks, drows);
    return success();
  }
  // Padding: the ISA zero-fills the rows and columns past the data; the
  // last column block's GM bursts carry the next columns' bytes, which must
  // read as zeros too.
  if (es == 1 && rem % 2 != 0)
    return fail(op, "pads an odd number of 8-bit columns: the zeroing works in 2-byte lanes");
  // Lanes (2-byte) of a 256-byte repeat past the data in each row of the
  // last column block.
  uint64_t tailLanes[2] = {0, 0};
  const int64_t lanesPerRow = rowBytes / 2, dataLanes = rem * es / 2;
  for (int64_t l = 0; l < 128; ++l)
    if (l % lanesPerRow >= dataLanes)
      tailLanes[l / 64] |= 1ull << (l % 64);
  if (dst.space == dv::MemSpace::UB) {
    // In the UB: zero the tile, copy the rows, zero the last block's tails.
    barrierAll("copy_nd2nz zero-pads its tile: the pipes' earlier work first");
    zeroUb(dst, 0, uint64_t(tileBytes));
    barrierAll("the zeros land before the rows");
    rowCopies(at(dst), "0", rows, 0, blocks, drows);
    if (rem) {
      barrierAll("the rows land before their tails are zeroed");
      zeroUb(dst, (blocks - 1) * columnBlockBytes, uint64_t(drows * rowBytes), tailLanes);
    }
    barrierAll("the tile is complete before the kernel goes on");
    return success();
  }
  // In L1, which takes no vector writes: the whole column blocks straight
  // from GM; the padding from zeros staged in the UB; the partial last
  // column block built in the UB staging area piece by piece (as many of
  // its rows as fit) and copied up.
  const int64_t capacity = stageCapacity(), full = cols / c0;
  if (capacity < rowBytes)
    return fail(op, "pads an L1 tile with " + std::to_string(capacity) +
                        " bytes of UB left above the kernel's buffers for staging (needs " +
                        std::to_string(rowBytes) + ")");
  line("{");
  ++indent_;
  line("LocalTensor<" + *type + "> tile = " + stage(*type) + ";  // staging: L1 takes no vector writes");
  TensorRef tileRef;
  tileRef.var = "tile";
  tileRef.element = src.element;
  tileRef.space = dv::MemSpace::UB;
  barrierAll("copy_nd2nz pads its L1 tile: the pipes' earlier work first");
  // Zeros: the rows past the data in each data column block, then the
  // column blocks past the data, from `zeros` bytes of staged zeros.
  const int64_t padRowBytes = (drows - rows) * rowBytes;
  const int64_t padBlocksBytes = (dblocks - blocks) * columnBlockBytes;
  const int64_t zeros = std::min(capacity, std::max(padRowBytes, padBlocksBytes));
  auto fillZeros = [&](const std::string &base, int64_t bytes) {
    // `bytes` of L1 from element offset `base` on, `zeros` bytes a copy.
    auto copy = [&](const std::string &offset, int64_t n) {
      line("DataCopy(" + at(dst, 0, offset) + ", tile, " + params(1, n / kBlock, 0, 0) + ");");
    };
    auto plus = [&](const std::string &term) {
      return base.empty() ? term : term.empty() ? base : base + " + " + term;
    };
    const int64_t copies = bytes / zeros, last = bytes % zeros;
    if (copies == 1)
      copy(base, zeros);
    else if (copies > 1) {
      open("for (int32_t z = 0; z < " + std::to_string(copies) + "; ++z)");
      copy(plus("z * " + std::to_string(zeros / es)), zeros);
      close();
    }
    if (last)
      copy(copies ? plus(std::to_string(copies * zeros / es)) : base, last);
  };
  if (zeros > 0) {
    requireStaging(uint64_t(kBlock + zeros));
    zeroUb(tileRef, 0, uint64_t(zeros));
    barrierAll("the staged zeros land before they are copied");
    if (padRowBytes > 0) {
      const std::string rowsPast = std::to_string(rows * c0);
      if (blocks == 1) {
        fillZeros(rowsPast, padRowBytes);
      } else {
        open("for (int32_t cb = 0; cb < " + std::to_string(blocks) + "; ++cb)");
        fillZeros("cb * " + std::to_string(columnBlockBytes / es) + " + " + rowsPast, padRowBytes);
        close();
      }
    }
    if (padBlocksBytes > 0)
      fillZeros(std::to_string(blocks * columnBlockBytes / es), padBlocksBytes);
  }
  if (full > 0)
    rowCopies(at(dst), "0", rows, 0, full, drows);
  if (rem) {
    // The partial column block in pieces of `piece` rows.
    const int64_t piece = std::min(rows, capacity / rowBytes);
    requireStaging(uint64_t(kBlock + piece * rowBytes));
    const std::string columnBlock = std::to_string(full * columnBlockBytes / es);
    // Rows [r0, r0 + count), r0 an expression; l1Term: r0 * c0 (elements).
    auto stagePiece = [&](const std::string &r0, const std::string &l1Term, int64_t count) {
      barrierAll("the staging area is free");
      rowCopies("tile", r0, count, full, 1, count);
      barrierAll("the rows land before their tails are zeroed");
      zeroUb(tileRef, 0, uint64_t(count * rowBytes), tailLanes);
      barrierAll("the piece is complete before it is copied to L1");
      line("DataCopy(" + at(dst, 0, l1Term.empty() ? columnBlock : columnBlock + " + " + l1Term) +
           ", tile, " + params(1, count * rowBytes / kBlock, 0, 0) + ");");
    };
    const int64_t pieces = rows / piece, last = rows % piece;
    if (pieces == 1) {
      stagePiece("0", "", piece);
    } else {
      open("for (int32_t p = 0; p < " + std::to_string(pieces) + "; ++p)");
      stagePiece("p * " + std::to_string(piece), "p * " + std::to_string(piece * c0), piece);
      close();
    }
    if (last)
      stagePiece(std::to_string(pieces * piece), std::to_string(pieces * piece * c0), last);
  }
  barrierAll("the tile is complete before the kernel goes on");
  close();
  return success();
}

LogicalResult KernelWriter::emitCopyNz2Nd(dv::CopyNz2NdOp op) {
  TensorRef src, dst;
  if (failed(ref(op, op.getSrc(), src)) || failed(ref(op, op.getDst(), dst)))
    return failure();
  if (src.space != dv::MemSpace::UB)
    return fail(op, "reads an NZ tile from " + dv::stringifyMemSpace(src.space).str() +
                        ": the UB -> GM DataCopy is the only path");
  std::optional<std::string> type = cType(op, dst.element);
  if (!type)
    return failure();
  const int64_t es = dv::elementBytes(dst.element), c0 = c0Of(es), rowBytes = c0 * es;
  const int64_t rows = op.getRows(), cols = op.getCols(), stride = op.getDstRowStride();
  const int64_t srows = op.getSrcRows(), blocks = ceilDiv(cols, c0), rem = cols % c0;
  // Row r: one block from each NZ column block (srows rows apart) to
  // contiguous GM. A partial last column block would write columns past
  // the row: whole when the next row, written after it, covers them;
  // otherwise the row's last columns go through writeTail.
  auto wholeRows = [&](int64_t count) {
    std::string p = params(blocks, rowBytes / kBlock, (srows - 1) * rowBytes / kBlock, 0);
    if (count == 1) {
      line("DataCopy(" + at(dst) + ", " + at(src) + ", " + p + ");");
      return;
    }
    open("for (int32_t r = 0; r < " + std::to_string(count) + "; ++r)");
    line("DataCopy(" + at(dst, 0, "r * " + std::to_string(stride)) + ", " +
         at(src, 0, "r * " + std::to_string(c0)) + ", " + p + ");");
    close();
  };
  if (rem == 0) {
    wholeRows(rows);
    return success();
  }
  const bool coveredByNext = stride == cols && (c0 - rem) <= cols;
  const int64_t whole = coveredByNext ? rows - 1 : 0;
  if (whole)
    wholeRows(whole);
  const bool single = rows - whole == 1;
  const std::string r = single ? std::to_string(whole) : "r";
  if (!single)
    open("for (int32_t r = 0; r < " + std::to_string(rows) + "; ++r)");
  if (blocks > 1)
    line("DataCopy(" + at(dst, 0, r + " * " + std::to_string(stride)) + ", " +
         at(src, 0, r + " * " + std::to_string(c0)) + ", " +
         params(blocks - 1, rowBytes / kBlock, (srows - 1) * rowBytes / kBlock, 0) + ");");
  exactGmWrite(*type, es, at(dst, 0, r + " * " + std::to_string(stride) + " + " +
                                         std::to_string((blocks - 1) * c0)),
               at(src, 0, r + " * " + std::to_string(c0) + " + " +
                              std::to_string((blocks - 1) * srows * c0)),
               "", "", rem * es);
  if (!single)
    close();
  return success();
}

LogicalResult KernelWriter::emitCopyGather(dv::CopyGatherOp op) {
  TensorRef table, indices, dst;
  if (failed(ref(op, op.getSrc(), table)) || failed(ref(op, op.getIndices(), indices)) ||
      failed(ref(op, op.getDst(), dst)))
    return failure();
  std::optional<std::string> type = cType(op, table.element);
  if (!type)
    return failure();
  if (!indices.element.isSignlessInteger(32) && !indices.element.isSignedInteger(32))
    return fail(op, "indices must be int32_t");
  const int64_t es = dv::elementBytes(table.element);
  const int64_t rows = op.getRows(), rowBytes = op.getRowBytes();
  const int64_t srcStride = op.getSrcRowStride(), dstStride = op.getDstRowStride();
  if (srcStride % es != 0 || dstStride % es != 0)
    return fail(op, "row strides are not whole " + *type + " elements");
  // Rows packed closer than 32-byte blocks (one element a row, as a label
  // gather writes them): DataCopy cannot address them, so each row lands in
  // a staging block and the Scalar unit moves its bytes into place.
  const bool packed = rows > 1 && dstStride % kBlock != 0;
  if (packed && dst.space != dv::MemSpace::UB)
    return fail(op, "destination rows every " + std::to_string(dstStride) + " bytes in " +
                        dv::stringifyMemSpace(dst.space).str() +
                        ", not on 32-byte blocks as DataCopy addresses local memory");
  const int64_t len = ceilDiv(rowBytes, kBlock);
  const std::string v = std::to_string(op.getTableRows());
  const std::string source = at(table, 0, "index * " + std::to_string(srcStride / es));
  barrierAll("copy_gather: the Scalar unit reads the indices once every pipe has written them");
  if (packed)
    requireStaging(uint64_t(kBlock + len * kBlock));
  open("for (int32_t r = 0; r < " + std::to_string(rows) + "; ++r)");
  line("int32_t index = " + at(indices) + ".GetValue(r);");
  line("if (index < 0) index += " + v + ";  // ONNX Gather counts negative indices from the end");
  line("if (index < 0 || index >= " + v + ") trap();  // the ISA stops the kernel");
  if (packed) {
    line("DataCopy(" + stage(*type) + ", " + source + ", " + params(1, len, 0, 0) + ");");
    line("SetFlag<HardEvent::MTE2_S>(EVENT_ID0);");
    line("WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);");
    line("for (int32_t i = 0; i < " + std::to_string(rowBytes) + "; ++i) " +
         atAs(dst, "uint8_t") + ".SetValue(r * " + std::to_string(dstStride) + " + i, " +
         stage("uint8_t") + ".GetValue(i));");
  } else {
    std::string target = dst.element == table.element
                             ? at(dst, 0, "r * " + std::to_string(dstStride / es))
                             : atAs(dst, *type) + "[r * " + std::to_string(dstStride / es) + "]";
    line("DataCopy(" + target + ", " + source + ", " + params(1, len, 0, 0) + ");");
  }
  close();
  if (packed)
    barrierAll("the gathered rows are in place before any pipe reads them");
  return success();
}

LogicalResult KernelWriter::emitLoadFractals(dv::LoadFractalsOp op) {
  TensorRef src, dst;
  if (failed(ref(op, op.getSrc(), src)) || failed(ref(op, op.getDst(), dst)))
    return failure();
  if (src.element != dst.element)
    return fail(op, "LoadData takes one element type");
  if (!cType(op, src.element))
    return failure();
  const int64_t fractalElems = 512 / dv::elementBytes(src.element);
  int64_t outer = op.getOuter(), inner = op.getInner();
  int64_t so = op.getSrcOuterStride(), si = op.getSrcInnerStride();
  int64_t dout = op.getDstOuterStride(), di = op.getDstInnerStride();
  // LoadData walks one dimension (repeatTimes <= 255 fractals, the
  // destination one after another with dstGap between); a loop the other.
  bool innerRepeats = di >= 1 && inner <= 255;
  if (!innerRepeats && !(dout >= 1 && outer <= 255))
    return fail(op, "neither fractal dimension fits LoadData's repeat (<= 255 fractals, "
                    "destination stride >= 1)");
  if (!innerRepeats) {
    std::swap(outer, inner);
    std::swap(so, si);
    std::swap(dout, di);
  }
  usesLoadHelper_ = true;
  std::string call = "LoadData(%D, %S, load2d(" + std::to_string(inner) + ", " + std::to_string(si) +
                     ", " + std::to_string(di - 1) + ", " + (op.getTranspose() ? "true" : "false") +
                     "));";
  auto emitWith = [&](const std::string &d, const std::string &s) {
    std::string text = call;
    text.replace(text.find("%D"), 2, d);
    text.replace(text.find("%S"), 2, s);
    line(text);
  };
  if (outer == 1) {
    emitWith(at(dst), at(src));
    return success();
  }
  open("for (int32_t o = 0; o < " + std::to_string(outer) + "; ++o)");
  emitWith(at(dst, 0, "o * " + std::to_string(dout * fractalElems)),
           at(src, 0, "o * " + std::to_string(so * fractalElems)));
  close();
  return success();
}

LogicalResult KernelWriter::emitLoad3d(dv::Load3dOp op) {
  TensorRef src, dst;
  if (failed(ref(op, op.getSrc(), src)) || failed(ref(op, op.getDst(), dst)))
    return failure();
  if (src.space != dv::MemSpace::L1 ||
      (dst.space != dv::MemSpace::L0A && dst.space != dv::MemSpace::L0B))
    return fail(op, "img2col from " + dv::stringifyMemSpace(src.space).str() + " to " +
                        dv::stringifyMemSpace(dst.space).str() +
                        ": Load3Dv1 loads L1 (A1) into L0A (A2) or L0B (B2)");
  if (src.element != dst.element)
    return fail(op, "LoadData takes one element type");
  std::optional<std::string> type = cType(op, src.element);
  if (!type)
    return failure();
  if (*type != "half" && *type != "int8_t" && *type != "uint8_t")
    return fail(op, "Load3Dv1 takes half, int8_t or uint8_t, not " + *type);
  // The ISA's pairs are [w, h], pads [left, right, top, bottom]: the
  // struct's fields by name (docs/ascendc.md).
  ArrayRef<int64_t> pads = op.getPads(), filter = op.getFilter(), strides = op.getStrides();
  ArrayRef<int64_t> dilations = op.getDilations(), tap = op.getFirstTap(), leftTop = op.getLeftTop();
  struct Field {
    const char *name;
    int64_t value, low, high;
  };
  const Field fields[] = {
      {"padList[0]", pads[0], 0, 255},        {"padList[1]", pads[1], 0, 255},
      {"padList[2]", pads[2], 0, 255},        {"padList[3]", pads[3], 0, 255},
      {"l1H", int64_t(op.getFmapH()), 1, 32767}, {"l1W", int64_t(op.getFmapW()), 1, 32767},
      {"c1Index", int64_t(op.getC1Index()), 0, 4095},  {"fetchFilterW", tap[0], 0, 254},
      {"fetchFilterH", tap[1], 0, 254},       {"leftTopW", leftTop[0], -255, 32767},
      {"leftTopH", leftTop[1], -255, 32767},  {"strideW", strides[0], 1, 63},
      {"strideH", strides[1], 1, 63},         {"filterW", filter[0], 1, 255},
      {"filterH", filter[1], 1, 255},         {"dilationFilterW", dilations[0], 1, 255},
      {"dilationFilterH", dilations[1], 1, 255}, {"jumpStride", int64_t(op.getJumpStride()), 1, 127},
      {"repeatMode", int64_t(op.getMode()), 0, 1}, {"repeatTime", int64_t(op.getRepeat()), 1, 255},
  };
  std::vector<std::string> assignments;
  for (const Field &f : fields) {
    if (f.value < f.low || f.value > f.high)
      return fail(op, std::string(f.name) + " = " + std::to_string(f.value) + " is outside " +
                          std::to_string(f.low) + ".." + std::to_string(f.high) +
                          ", LoadData3DParamsV1's range");
    assignments.push_back(std::string(f.name) + " = " + std::to_string(f.value));
  }
  assignments.push_back("padValue = " +
                        (op.getPadValueAttr() ? literal(*type, op.getPadValueAttr()) : "0"));
  std::string key = *type;
  for (const std::string &a : assignments)
    key += ";" + a;
  // Declared once a kernel (the attributes are constants), four fields a line.
  auto [it, inserted] = params_.try_emplace(key, "");
  if (inserted) {
    it->second = "img2col" + std::to_string(paramDecls_.size());
    std::string decl = "  LoadData3DParamsV1<" + *type + "> " + it->second + ";";
    for (size_t i = 0; i < assignments.size(); ++i)
      decl += (i % 4 == 0 ? "\n  " : " ") + it->second + "." + assignments[i] + ";";
    paramDecls_.push_back(decl + "\n");
  }
  line("LoadData(" + at(dst) + ", " + at(src) + ", " + it->second + ");");
  return success();
}

LogicalResult KernelWriter::emitMmad(dv::MmadOp op) {
  TensorRef a, b, c;
  if (failed(ref(op, op.getA(), a)) || failed(ref(op, op.getB(), b)) ||
      failed(ref(op, op.getC(), c)))
    return failure();
  if (!a.element.isF16() && !a.element.isSignlessInteger(8) && !a.element.isSignedInteger(8))
    return fail(op, "Mmad on the 310P takes f16 or s8 inputs");
  usesMmadHelper_ = true;
  line("Mmad(" + at(c) + ", " + at(a) + ", " + at(b) + ", mmad(" + std::to_string(op.getM()) + ", " +
       std::to_string(op.getN()) + ", " + std::to_string(op.getK()) + ", " +
       (op.getInit() ? "true" : "false") + "));");
  return success();
}

LogicalResult KernelWriter::emitMoveL0cUb(dv::MoveL0cUbOp op) {
  TensorRef src, dst;
  if (failed(ref(op, op.getSrc(), src)) || failed(ref(op, op.getDst(), dst)))
    return failure();
  if (!cType(op, src.element) || !cType(op, dst.element))
    return failure();
  const int64_t elems = op.getBurstElems(), sg = op.getSrcGap(), dg = op.getDstGap();
  int64_t unit = 0;
  std::string mode;
  if (elems % 256 == 0 && sg % 256 == 0 && dg % 256 == 0) {
    unit = 256;
    mode = "BlockMode::BLOCK_MODE_MATRIX";
  } else if (elems % 16 == 0 && sg % 16 == 0 && dg % 16 == 0) {
    unit = 16;
    mode = "BlockMode::BLOCK_MODE_VECTOR";
  } else {
    return fail(op, "bursts of " + std::to_string(elems) +
                        " elements: the CO1 -> CO2 copy moves 16x16 fractals or 1x16 rows");
  }
  std::string deq = "DeqScale::DEQ_NONE", deqValue = "0";
  if (std::optional<APFloat> scale = op.getScale()) {
    if (!src.element.isSignlessInteger(32) && !src.element.isSignedInteger(32))
      return fail(op, "scales a float L0C: the CO1 -> CO2 copy dequantises int32 only (DEQ)");
    float f = scale->convertToFloat();
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    deq = "DeqScale::DEQ";
    deqValue = std::to_string(bits) + "u";
  }
  usesCo1Helper_ = true;
  line("DataCopy(" + at(dst) + ", " + at(src) + ", " +
       params(op.getBursts(), elems / unit, sg / unit, dg / unit) + ", co1ToUb(" + mode + ", " + deq +
       ", " + deqValue + ", " + (op.getRelu() ? "true" : "false") + "));");
  return success();
}

} // namespace vinci::backend::ascendc
