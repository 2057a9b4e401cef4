// DataCopy (32-byte blocks; the CO1 -> CO2 form with its conversions),
// LoadData (2-D) and Mmad, as the Ascend C reference documents them, with
// the data layouts of docs/isa.md (L0A ZZ, L0B ZN, L0C NZ).
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include <fp16.h>

#include "device.h"

namespace vinci::ascendc_host {
namespace {

using AscendC::TPosition;

constexpr uint64_t kBlock = 32;     // DataCopy's unit
constexpr uint64_t kFractal = 512;  // LoadData's unit

bool isGm(const Span &s) { return s.position == int(TPosition::GM); }
bool isL1(const Span &s) { return spaceOf(TPosition(s.position)) == Space::L1; }

float loadFloat(Elt elt, const uint8_t *p) {
  if (elt == Elt::F16) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return fp16_ieee_to_fp32_value(h);
  }
  float f;
  std::memcpy(&f, p, 4);
  return f;
}

/// max(v, 0) with NaN kept, as the vector unit's ReLU.
float relu(float v) { return v != v ? v : (v > 0.0f ? v : 0.0f); }

void checkAligned(const Span &s, uint64_t align, const char *call) {
  if (!isGm(s) && spaceOffset(s) % align != 0)
    fault(std::string(call) + ": " + positionName(s.position) + " address " +
          std::to_string(spaceOffset(s)) + " is not " + std::to_string(align) + "-byte aligned");
}

}  // namespace

void dataCopy(const Span &dst, const Span &src, const AscendC::DataCopyParams &p) {
  const char *call = "DataCopy";
  bool gmToLocal = isGm(src) && (isVectorPosition(dst.position) || isL1(dst));
  bool localToGm = isGm(dst) && isVectorPosition(src.position);
  bool ubToUb = isVectorPosition(src.position) && isVectorPosition(dst.position);
  bool ubToL1 = isVectorPosition(src.position) && isL1(dst);
  bool l1ToUb = isL1(src) && isVectorPosition(dst.position);
  if (!gmToLocal && !localToGm && !ubToUb && !ubToL1 && !l1ToUb)
    fault(std::string(call) + ": no data path " + positionName(src.position) + " -> " +
          positionName(dst.position));
  if (p.blockCount == 0 || p.blockCount > 4095 || p.blockLen == 0)
    fault(std::string(call) + ": blockCount " + std::to_string(p.blockCount) + " (1..4095), blockLen " +
          std::to_string(p.blockLen) + " (1..65535)");
  checkAligned(dst, kBlock, call);
  checkAligned(src, kBlock, call);
  const uint64_t len = p.blockLen * kBlock;
  const uint64_t srcStep = (uint64_t(p.blockLen) + p.srcStride) * kBlock;
  const uint64_t dstStep = (uint64_t(p.blockLen) + p.dstStride) * kBlock;
  const uint64_t srcExtent = (p.blockCount - 1) * srcStep + len;
  const uint64_t dstExtent = (p.blockCount - 1) * dstStep + len;
  checkRange(src, srcExtent, false, call);
  if (!isGm(dst)) {
    checkRange(dst, dstExtent, true, call);
  } else {
    for (uint32_t b = 0; b < p.blockCount; ++b) {
      Span burst = dst;
      burst.ptr += b * dstStep;
      checkRange(burst, len, true, call);
    }
  }
  if (ubToUb && src.ptr < dst.ptr + dstExtent && dst.ptr < src.ptr + srcExtent)
    fault(std::string(call) + ": UB source and destination overlap");
  for (uint32_t b = 0; b < p.blockCount; ++b)
    std::memcpy(dst.ptr + b * dstStep, src.ptr + b * srcStep, len);
}

void dataCopyCo1(const Span &dst, const Span &src, const AscendC::DataCopyParams &p,
                 const AscendC::DataCopyEnhancedParams &e) {
  const char *call = "DataCopy (CO1 -> CO2)";
  if (TPosition(src.position) != TPosition::CO1 || !isVectorPosition(dst.position))
    fault(std::string(call) + ": the enhanced form here copies CO1 to CO2/VECIN/VECOUT/VECCALC, not " +
          positionName(src.position) + " -> " + positionName(dst.position));
  uint64_t unit;  // elements per blockLen unit
  if (e.blockMode == AscendC::BlockMode::BLOCK_MODE_MATRIX) unit = 256;
  else if (e.blockMode == AscendC::BlockMode::BLOCK_MODE_VECTOR) unit = 16;
  else fault(std::string(call) + ": blockMode must be BLOCK_MODE_MATRIX or BLOCK_MODE_VECTOR");
  if (p.blockCount == 0 || p.blockLen == 0)
    fault(std::string(call) + ": blockCount and blockLen must be at least 1");
  const Elt se = src.elt, de = dst.elt;
  const bool deq = e.deqScale == AscendC::DeqScale::DEQ;
  if (e.deqScale != AscendC::DeqScale::DEQ_NONE && !deq)
    fault(std::string(call) + ": only DEQ_NONE and DEQ (a scalar scale) are implemented");
  bool ok = (se == Elt::F32 && (de == Elt::F32 || de == Elt::F16) && !deq) ||
            (se == Elt::S32 && (de == Elt::S32 || de == Elt::F32 || de == Elt::F16)) ||
            (se == Elt::F16 && (de == Elt::F16 || de == Elt::F32) && !deq);
  if (!ok || (deq && de == Elt::S32))
    fault(std::string(call) + ": no conversion " + eltName(se) + " -> " + eltName(de) +
          (deq ? " with DEQ" : ""));
  float scale = 1.0f;
  if (deq) {
    uint32_t bits = uint32_t(e.deqValue);
    std::memcpy(&scale, &bits, 4);
  }
  const unsigned ss = eltBytes(se), ds = eltBytes(de);
  const uint64_t elems = p.blockLen * unit;
  const uint64_t srcStep = (uint64_t(p.blockLen) + p.srcStride) * unit;
  const uint64_t dstStep = (uint64_t(p.blockLen) + p.dstStride) * unit;
  checkAligned(dst, kBlock, call);
  checkRange(src, ((p.blockCount - 1) * srcStep + elems) * ss, false, call);
  checkRange(dst, ((p.blockCount - 1) * dstStep + elems) * ds, true, call);
  for (uint32_t b = 0; b < p.blockCount; ++b)
    for (uint64_t i = 0; i < elems; ++i) {
      const uint8_t *s = src.ptr + (b * srcStep + i) * ss;
      uint8_t *d = dst.ptr + (b * dstStep + i) * ds;
      if (se == Elt::S32 && de == Elt::S32) {
        int32_t v;
        std::memcpy(&v, s, 4);
        if (e.isRelu && v < 0) v = 0;
        std::memcpy(d, &v, 4);
        continue;
      }
      float v;
      if (se == Elt::S32) {
        int32_t iv;
        std::memcpy(&iv, s, 4);
        v = float(iv);  // int32 -> float rounds to nearest even
      } else {
        v = loadFloat(se, s);
      }
      if (deq) v = v * scale;
      if (e.isRelu) v = relu(v);
      if (de == Elt::F16) {
        uint16_t h = fp16_ieee_from_fp32_value(v);
        std::memcpy(d, &h, 2);
      } else {
        std::memcpy(d, &v, 4);
      }
    }
}

void loadData2d(const Span &dst, const Span &src, const AscendC::LoadData2DParams &p) {
  const char *call = "LoadData";
  TPosition dp = TPosition(dst.position);
  if (!isL1(src) || (dp != TPosition::A2 && dp != TPosition::B2))
    fault(std::string(call) + ": the 2-D form loads A1/B1 into A2/B2, not " +
          positionName(src.position) + " -> " + positionName(dst.position));
  if (p.repeatTimes == 0) fault(std::string(call) + ": repeatTimes must be 1..255");
  if (p.ifTranspose && eltBytes(src.elt) != 2)
    fault(std::string(call) + ": ifTranspose transposes 16x16 fractals of 2-byte elements");
  checkAligned(dst, kFractal, call);
  checkAligned(src, kBlock, call);
  const uint64_t first = p.startIndex, step = p.srcStride, dstStep = 1 + uint64_t(p.dstGap);
  checkRange(src, (first + (p.repeatTimes - 1) * step + 1) * kFractal, false, call);
  checkRange(dst, ((p.repeatTimes - 1) * dstStep + 1) * kFractal, true, call);
  for (uint32_t i = 0; i < p.repeatTimes; ++i) {
    const uint8_t *s = src.ptr + (first + i * step) * kFractal;
    uint8_t *d = dst.ptr + i * dstStep * kFractal;
    if (!p.ifTranspose) {
      std::memmove(d, s, kFractal);
      continue;
    }
    uint16_t in[256], out[256];
    std::memcpy(in, s, kFractal);
    for (unsigned r = 0; r < 16; ++r)
      for (unsigned c = 0; c < 16; ++c) out[c * 16 + r] = in[r * 16 + c];
    std::memcpy(d, out, kFractal);
  }
}

void loadData3dV1(const Span &dst, const Span &src, const Load3dV1 &p) {
  const char *call = "LoadData (Load3Dv1)";
  TPosition sp = TPosition(src.position), dp = TPosition(dst.position);
  if (!((sp == TPosition::A1 && dp == TPosition::A2) || (sp == TPosition::B1 && dp == TPosition::B2) ||
        (sp == TPosition::A1 && dp == TPosition::B2)))
    fault(std::string(call) + ": img2col loads A1 -> A2 or B1 -> B2, not " +
          positionName(src.position) + " -> " + positionName(dst.position));
  if (src.elt != dst.elt || (src.elt != Elt::F16 && src.elt != Elt::S8 && src.elt != Elt::U8))
    fault(std::string(call) + ": takes half, int8_t or uint8_t in and out, not " +
          eltName(src.elt) + " -> " + eltName(dst.elt));
  const unsigned es = eltBytes(src.elt), c0 = kBlock / es;
  const int64_t padL = p.pads[0], padR = p.pads[1], padT = p.pads[2];
  if (p.l1H == 0 || p.l1W == 0 || p.l1W > 32767 || p.l1H > 32767)
    fault(std::string(call) + ": l1H and l1W are 1..32767");
  if (p.strideW < 1 || p.strideW > 63 || p.strideH < 1 || p.strideH > 63)
    fault(std::string(call) + ": strideW and strideH are 1..63");
  if (p.filterW < 1 || p.filterH < 1 || p.dilationW < 1 || p.dilationH < 1)
    fault(std::string(call) + ": filter and dilation are 1..255");
  if (p.repeatTime < 1 || p.repeatMode > 1 || p.c1Index > 4095 || p.jumpStride < 1 ||
      p.jumpStride > 127)
    fault(std::string(call) + ": repeatTime 1..255, repeatMode 0 or 1, c1Index 0..4095, "
          "jumpStride 1..127");
  if (p.fetchW >= p.filterW || p.fetchH >= p.filterH)
    fault(std::string(call) + ": the first tap (fetchFilterW, fetchFilterH) lies outside the filter");
  const int64_t span = int64_t(p.dilationW) * (p.filterW - 1) + 1;
  const int64_t paddedW = int64_t(p.l1W) + padL + padR;
  if (paddedW < span)
    fault(std::string(call) + ": the filter is wider than the padded feature map");
  const int64_t rowWindows = (paddedW - span) / p.strideW + 1;
  const int64_t lastW = -padL + (rowWindows - 1) * p.strideW;
  if (p.leftTopW < -padL || p.leftTopW > lastW || p.leftTopH < -padT)
    fault(std::string(call) + ": leftTopW/leftTopH is not a window of the padded map");
  checkAligned(dst, kFractal, call);
  checkAligned(src, kBlock, call);
  const uint64_t plane = uint64_t(p.l1H) * p.l1W * kBlock;
  const uint64_t fractals = p.repeatMode == 0 ? p.repeatTime : (p.repeatTime - 1) * p.jumpStride + 1;
  checkRange(dst, fractals * kFractal, true, call);
  // The planes read: mode 0 steps the tap through kw, kh, then the plane.
  uint64_t lastPlane = p.c1Index;
  if (p.repeatMode == 0) {
    uint64_t taps = uint64_t(p.filterW) * p.filterH;
    uint64_t firstTap = uint64_t(p.fetchH) * p.filterW + p.fetchW;
    lastPlane += (firstTap + p.repeatTime - 1) / taps;
  }
  checkRange(src, (lastPlane + 1) * plane, false, call);
  // The window counter: right by strideW, past the row's last window back
  // to -padL one strideH lower; it runs on below the last output row.
  std::vector<std::pair<int64_t, int64_t>> windows(p.repeatMode == 0 ? 16 : 16 * p.repeatTime);
  int64_t h = p.leftTopH, w = p.leftTopW;
  for (auto &window : windows) {
    window = {h, w};
    w += p.strideW;
    if (w > lastW) {
      w = -padL;
      h += p.strideH;
    }
  }
  auto fractal = [&](uint8_t *out, size_t firstWindow, uint64_t c1, int64_t kh, int64_t kw) {
    for (size_t row = 0; row < 16; ++row) {
      const int64_t y = windows[firstWindow + row].first + kh * p.dilationH;
      const int64_t x = windows[firstWindow + row].second + kw * p.dilationW;
      uint8_t *d = out + row * kBlock;
      if (y < 0 || y >= p.l1H || x < 0 || x >= p.l1W) {
        for (unsigned c = 0; c < c0; ++c) std::memcpy(d + c * es, p.padValue, es);
        continue;
      }
      std::memcpy(d, src.ptr + c1 * plane + (uint64_t(y) * p.l1W + uint64_t(x)) * kBlock, kBlock);
    }
  };
  for (uint32_t r = 0; r < p.repeatTime; ++r) {
    if (p.repeatMode == 0) {
      uint64_t tap = uint64_t(p.fetchH) * p.filterW + p.fetchW + r;
      uint64_t taps = uint64_t(p.filterW) * p.filterH;
      uint64_t c1 = p.c1Index + tap / taps;
      fractal(dst.ptr + r * kFractal, 0, c1, int64_t(tap % taps / p.filterW),
              int64_t(tap % p.filterW));
    } else {
      fractal(dst.ptr + uint64_t(r) * p.jumpStride * kFractal, size_t(r) * 16, p.c1Index, p.fetchH,
              p.fetchW);
    }
  }
}

void mmad(const Span &c, const Span &a, const Span &b, const AscendC::MmadParams &p) {
  const char *call = "Mmad";
  if (TPosition(c.position) != TPosition::CO1 || TPosition(a.position) != TPosition::A2 ||
      TPosition(b.position) != TPosition::B2)
    fault(std::string(call) + ": operands must be CO1, A2 and B2, not " + positionName(c.position) +
          ", " + positionName(a.position) + ", " + positionName(b.position));
  if (p.cmatrixSource || p.isBias)
    fault(std::string(call) + ": no bias and no C matrix from C2 on this core (cmatrixSource, isBias)");
  if (p.m > 4095 || p.n > 4095 || p.k > 4095) fault(std::string(call) + ": m, n, k are 0..4095");
  const bool int8 = a.elt == Elt::S8;
  bool ok = a.elt == b.elt &&
            ((a.elt == Elt::F16 && (c.elt == Elt::F32 || c.elt == Elt::F16)) ||
             (int8 && c.elt == Elt::S32));
  if (!ok)
    fault(std::string(call) + ": no type triple " + eltName(c.elt) + " <- " + eltName(a.elt) + " x " +
          eltName(b.elt) + " here (f32/f16 <- f16 x f16, s32 <- s8 x s8)");
  if (p.m == 0 || p.n == 0 || p.k == 0) return;
  const uint64_t k0 = int8 ? 32 : 16, es = int8 ? 1 : 2, cs = eltBytes(c.elt);
  const uint64_t m1 = (p.m + 15) / 16, n1 = (p.n + 15) / 16, k1 = (p.k + k0 - 1) / k0;
  const uint64_t mpad = m1 * 16;
  checkAligned(a, kFractal, call);
  checkAligned(b, kFractal, call);
  checkAligned(c, 64, call);
  checkRange(a, m1 * k1 * 16 * k0 * es, false, call);
  checkRange(b, k1 * n1 * 16 * k0 * es, false, call);
  checkRange(c, n1 * mpad * 16 * cs, true, call);
  // A (ZZ): row-major fractals [m1][k1] of 16 x k0, row-major inside.
  // B (ZN): fractals [k1][n1], each n-major: (kk, col) at col * k0 + kk.
  // C (NZ): [n1][mpad][16].
  auto aAt = [&](uint64_t row, uint64_t kk) {
    return a.ptr + (((row / 16) * k1 + kk / k0) * 16 * k0 + (row % 16) * k0 + kk % k0) * es;
  };
  auto bAt = [&](uint64_t kk, uint64_t col) {
    return b.ptr + (((kk / k0) * n1 + col / 16) * 16 * k0 + (col % 16) * k0 + kk % k0) * es;
  };
  auto cAt = [&](uint64_t row, uint64_t col) {
    return c.ptr + (((col / 16) * mpad + row) * 16 + col % 16) * cs;
  };
  if (int8) {
    for (uint64_t row = 0; row < mpad; ++row)
      for (uint64_t col = 0; col < n1 * 16; ++col) {
        int32_t acc = 0;
        if (!p.cmatrixInitVal) std::memcpy(&acc, cAt(row, col), 4);
        for (uint64_t kk = 0; kk < p.k; ++kk)  // wraps as a 32-bit accumulator does
          acc = int32_t(uint32_t(acc) + uint32_t(int32_t(int8_t(*aAt(row, kk))) *
                                                 int32_t(int8_t(*bAt(kk, col)))));
        std::memcpy(cAt(row, col), &acc, 4);
      }
    return;
  }
  // f16 products are exact in float; the k products are summed in order,
  // each addition rounded to float (docs/isa.md).
  std::vector<float> av(p.k), bv(p.k);
  for (uint64_t col = 0; col < n1 * 16; ++col) {
    for (uint64_t kk = 0; kk < p.k; ++kk) bv[kk] = loadFloat(Elt::F16, bAt(kk, col));
    for (uint64_t row = 0; row < mpad; ++row) {
      float acc = p.cmatrixInitVal ? 0.0f : loadFloat(c.elt, cAt(row, col));
      for (uint64_t kk = 0; kk < p.k; ++kk) {
        float product = loadFloat(Elt::F16, aAt(row, kk)) * bv[kk];
        acc = acc + product;
      }
      if (c.elt == Elt::F16) {
        uint16_t h = fp16_ieee_from_fp32_value(acc);
        std::memcpy(cAt(row, col), &h, 2);
      } else {
        std::memcpy(cAt(row, col), &acc, 4);
      }
    }
  }
}

}  // namespace vinci::ascendc_host
