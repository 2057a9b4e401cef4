// load_3d: the img2col move of the Da Vinci core's MTE1 (Load3D v1), its
// parameter encoding, validation, footprint, cost and functional model.
//
// Semantics (docs/isa.md, "load_3d"): the source is a feature map of planes
// [C1][l1_h][l1_w][C0] in L1; each destination fractal is 16 rows (output
// positions) x C0 columns (the channels of one plane at one kernel tap),
// row-major, 512 bytes. Positions are windows of the padded map visited
// along output rows: the window's top-left pixel (h, w) starts at
// (left_top_h, left_top_w), moves right by stride_w and, past the last
// window of a row, returns to -pad_left one stride_h lower. Tap (kh, kw)
// of a window reads pixel (h + kh * dilation_h, w + kw * dilation_w); a
// pixel outside the map reads the pad value.
#include "load3d.h"

#include <algorithm>
#include <cstring>

namespace vinci::sim {

void setLoad3dParams(Instruction& ins, const Load3dParams& p) {
  auto b8 = [](uint32_t v) { return v & 0xFFu; };
  ins.p[0] = p.l1_h;
  ins.p[1] = p.l1_w;
  ins.p[2] = b8(p.pad_left) | b8(p.pad_right) << 8 | b8(p.pad_top) << 16 | b8(p.pad_bottom) << 24;
  ins.p[3] = p.c1_index;
  ins.p[4] = (p.fetch_filter_w & 0xFFFFu) | (p.fetch_filter_h & 0xFFFFu) << 16;
  ins.p[5] = uint32_t(p.left_top_w);
  ins.p[6] = uint32_t(p.left_top_h);
  ins.p[7] = b8(p.stride_w) | b8(p.stride_h) << 8;
  ins.p[8] = b8(p.filter_w) | b8(p.filter_h) << 8;
  ins.p[9] = b8(p.dilation_w) | b8(p.dilation_h) << 8;
  ins.p[10] = p.jump_stride;
  ins.p[11] = p.repeat_mode;
  ins.p[12] = p.repeat;
  ins.p[13] = p.pad_value;
}

Load3dParams load3dParams(const Instruction& ins) {
  const uint32_t* v = ins.p;
  Load3dParams p;
  p.l1_h = v[0];
  p.l1_w = v[1];
  p.pad_left = v[2] & 0xFF;
  p.pad_right = v[2] >> 8 & 0xFF;
  p.pad_top = v[2] >> 16 & 0xFF;
  p.pad_bottom = v[2] >> 24 & 0xFF;
  p.c1_index = v[3];
  p.fetch_filter_w = v[4] & 0xFFFF;
  p.fetch_filter_h = v[4] >> 16;
  p.left_top_w = int32_t(v[5]);
  p.left_top_h = int32_t(v[6]);
  p.stride_w = v[7] & 0xFF;
  p.stride_h = v[7] >> 8 & 0xFF;
  p.filter_w = v[8] & 0xFF;
  p.filter_h = v[8] >> 8 & 0xFF;
  p.dilation_w = v[9] & 0xFF;
  p.dilation_h = v[9] >> 8 & 0xFF;
  p.jump_stride = v[10];
  p.repeat_mode = v[11];
  p.repeat = v[12];
  p.pad_value = v[13];
  return p;
}

uint32_t load3dRowWindows(const Load3dParams& p) {
  const int64_t span = int64_t(p.dilation_w) * (int64_t(p.filter_w) - 1) + 1;
  const int64_t padded = int64_t(p.l1_w) + p.pad_left + p.pad_right;
  if (p.stride_w == 0 || padded < span) return 0;
  return uint32_t((padded - span) / p.stride_w + 1);
}

namespace detail {
namespace {

constexpr uint32_t kFractalRows = 16;
constexpr uint64_t kFractalBytes = 512;

// The fields the parameter slots hold beyond the named ones must be zero.
constexpr unsigned kUsedParams = 14;

bool inRange(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

// Taps per plane and the first tap's index in (kh, kw) row-major order.
uint32_t tapsPerPlane(const Load3dParams& p) { return p.filter_h * p.filter_w; }
uint32_t firstTap(const Load3dParams& p) { return p.fetch_filter_h * p.filter_w + p.fetch_filter_w; }

// The last plane a load_3d reads.
uint64_t lastPlane(const Load3dParams& p) {
  if (p.repeat_mode == 1) return p.c1_index;
  return p.c1_index + (uint64_t(firstTap(p)) + p.repeat - 1) / tapsPerPlane(p);
}

// The window counter: top-left pixel of the current output position.
struct WindowCounter {
  int64_t h, w, last_w, reset_w, step_w, step_h;
  explicit WindowCounter(const Load3dParams& p)
      : h(p.left_top_h),
        w(p.left_top_w),
        last_w(-int64_t(p.pad_left) + (int64_t(load3dRowWindows(p)) - 1) * p.stride_w),
        reset_w(-int64_t(p.pad_left)),
        step_w(p.stride_w),
        step_h(p.stride_h) {}
  void next() {
    w += step_w;
    if (w > last_w) {
      w = reset_w;
      h += step_h;
    }
  }
};

}  // namespace

std::string checkLoad3d(const Instruction& ins) {
  if (ins.dtype != DType::F16 && ins.dtype != DType::S8 && ins.dtype != DType::U8)
    return "load_3d takes f16, s8 or u8 feature maps";
  if (ins.dtype2 != DType::None) return "unexpected second dtype";
  for (unsigned i = kUsedParams; i < kNumParams; ++i)
    if (ins.p[i] != 0) return "parameter " + std::to_string(i) + " must be zero";
  const Load3dParams p = load3dParams(ins);
  // Fields packed into a shared slot must round-trip (no stray high bits).
  Instruction repacked;
  setLoad3dParams(repacked, p);
  for (unsigned i = 0; i < kUsedParams; ++i)
    if (repacked.p[i] != ins.p[i]) return "parameter " + std::to_string(i) + " has bits outside its fields";
  if (!inRange(p.l1_h, 1, 32767) || !inRange(p.l1_w, 1, 32767)) return "feature map height and width must be in 1..32767";
  if (p.c1_index > 4095) return "c1 index must be in 0..4095";
  if (!inRange(p.stride_w, 1, 63) || !inRange(p.stride_h, 1, 63)) return "strides must be in 1..63";
  if (!inRange(p.filter_w, 1, 255) || !inRange(p.filter_h, 1, 255)) return "filter sizes must be in 1..255";
  if (!inRange(p.dilation_w, 1, 255) || !inRange(p.dilation_h, 1, 255)) return "dilations must be in 1..255";
  if (p.fetch_filter_w > 254 || p.fetch_filter_h > 254 || p.fetch_filter_w >= p.filter_w ||
      p.fetch_filter_h >= p.filter_h)
    return "the first tap must lie inside the filter";
  if (!inRange(p.jump_stride, 1, 127)) return "jump stride must be in 1..127";
  if (p.repeat_mode > 1) return "repeat mode must be 0 (taps) or 1 (positions)";
  if (!inRange(p.repeat, 1, 255)) return "repeat must be in 1..255";
  const uint32_t windows = load3dRowWindows(p);
  if (windows == 0) return "the filter does not fit the padded feature map's width";
  const int64_t last_w = -int64_t(p.pad_left) + (int64_t(windows) - 1) * p.stride_w;
  if (!inRange(p.left_top_w, -int64_t(p.pad_left), last_w))
    return "left-top w must be a window of the padded row (-pad_left .. " + std::to_string(last_w) + ")";
  if (!inRange(p.left_top_h, -int64_t(p.pad_top), 32767))
    return "left-top h must be in -pad_top .. 32767";
  if (p.pad_value >> (8 * dtypeBytes(ins.dtype)) != 0) return "pad value has bits beyond its dtype";
  return {};
}

uint64_t load3dFootprint(const Instruction& ins, unsigned slot) {
  const Load3dParams p = load3dParams(ins);
  if (p.repeat == 0 || tapsPerPlane(p) == 0) return 0;
  if (slot == 0)
    return p.repeat_mode == 0 ? uint64_t(p.repeat) * kFractalBytes
                              : ((uint64_t(p.repeat) - 1) * p.jump_stride + 1) * kFractalBytes;
  if (slot == 1) {
    const uint64_t plane = uint64_t(p.l1_h) * p.l1_w * nzColumns(ins.dtype) * dtypeBytes(ins.dtype);
    return (lastPlane(p) + 1) * plane;
  }
  return 0;
}

uint64_t load3dFractalBytes(const Instruction& ins) {
  return uint64_t(load3dParams(ins).repeat) * kFractalBytes;
}

namespace {

// The img2col walk with pixels of PB bytes: a fixed-size copy per pixel (a
// memcpy call per 32-byte pixel was most of load_3d's host time).
template <uint64_t PB>
void load3dPixels(const Load3dParams& p, uint32_t es, uint8_t* dst, const uint8_t* src) {
  const uint64_t plane = uint64_t(p.l1_h) * p.l1_w * PB;
  uint8_t pad[PB];  // one pixel of pad values
  for (uint32_t c = 0; c < PB / es; ++c)
    for (uint32_t b = 0; b < es; ++b) pad[c * es + b] = uint8_t(p.pad_value >> (8 * b));
  auto fetch = [&](uint64_t c1, int64_t y, int64_t x, uint8_t* out) {
    if (y < 0 || x < 0 || y >= int64_t(p.l1_h) || x >= int64_t(p.l1_w)) {
      std::memcpy(out, pad, PB);
      return;
    }
    std::memcpy(out, src + c1 * plane + (uint64_t(y) * p.l1_w + uint64_t(x)) * PB, PB);
  };
  WindowCounter counter(p);
  if (p.repeat_mode == 0) {
    // 16 fixed windows; the tap advances each repeat (kw, kh, then the plane).
    int64_t hs[kFractalRows], ws[kFractalRows];
    for (uint32_t i = 0; i < kFractalRows; ++i, counter.next()) {
      hs[i] = counter.h;
      ws[i] = counter.w;
    }
    const uint32_t taps = tapsPerPlane(p);
    for (uint32_t r = 0; r < p.repeat; ++r) {
      const uint64_t t = uint64_t(firstTap(p)) + r;
      const uint64_t c1 = p.c1_index + t / taps;
      const int64_t kh = int64_t(t % taps / p.filter_w), kw = int64_t(t % p.filter_w);
      for (uint32_t i = 0; i < kFractalRows; ++i)
        fetch(c1, hs[i] + kh * p.dilation_h, ws[i] + kw * p.dilation_w, dst + (uint64_t(r) * kFractalRows + i) * PB);
    }
    return;
  }
  // A fixed tap; 16 more windows each repeat, fractals jump_stride apart.
  const int64_t dh = int64_t(p.fetch_filter_h) * p.dilation_h, dw = int64_t(p.fetch_filter_w) * p.dilation_w;
  for (uint32_t r = 0; r < p.repeat; ++r)
    for (uint32_t i = 0; i < kFractalRows; ++i, counter.next())
      fetch(p.c1_index, counter.h + dh, counter.w + dw, dst + (uint64_t(r) * p.jump_stride * kFractalRows + i) * PB);
}

}  // namespace

void execLoad3d(const Instruction& ins, uint8_t* dst, const uint8_t* src) {
  // C0 x the element size is 32 bytes for every dtype load_3d takes (16
  // halves, 32 bytes of int8).
  static_assert(kFractalBytes / kFractalRows == 32);
  load3dPixels<32>(load3dParams(ins), dtypeBytes(ins.dtype), dst, src);
}

}  // namespace detail
}  // namespace vinci::sim
