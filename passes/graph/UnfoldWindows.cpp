//===- UnfoldWindows.cpp - conv and pooling as unfolded windows (im2col) --===//
//
// A 2-D convolution or pooling reads, for each kernel tap (ki, kj), the
// input at (oh * sh + ki * dh, ow * sw + kj * dw) of the padded input: one
// strided slice per tap. So
//  - conv (groups 1, batch 1) becomes pad, one slice per tap, the taps
//    stacked after the channels ([C, kh * kw, OH * OW]: im2col, rows in the
//    order of the weight's [OC, C, kh, kw]) and one Cube matmul by the
//    weight as a [OC, C * kh * kw] matrix, which yields the NCHW result
//    directly; weights that are graph inputs work as well (views);
//  - max_pool becomes pad with -inf, one slice per tap and a max chain,
//    average_pool a sum chain times 1 / count (a per-position constant when
//    pads are excluded from the count);
//  - global average / max pooling becomes a mean / max over the spatial
//    axes.
// Every piece has a template (pad, slice, concat: data movement; matmul:
// Cube; the chains: one fused Vector kernel; mean/max: rows), so the model
// compiles without a convolution template. Grouped convs (and the depthwise
// ones the depthwise template does not take) are a batched matmul over the
// groups; a 1-D pool is the 2-D one over [N, C, 1, L]. Batch > 1 conv, 1-D
// conv and 3-D windows are left alone (their kernel is then reported as
// unsupported). The convs and pools a template takes keep their window
// (KernelRules says which); those unfolded are listed with the template's
// reason in the module's vinci.unfolded_windows, for the compile report.
//
//===----------------------------------------------------------------------===//
#include "passes/graph/Matchers.h"
#include "passes/graph/ConstantData.h"
#include "passes/graph/Passes.h"
#include "passes/KernelRules.h"
#include "passes/Precision.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/ScopeExit.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

namespace vinci::graph {
#define GEN_PASS_DEF_UNFOLDWINDOWS
#include "passes/graph/Passes.h.inc"
} // namespace vinci::graph

using namespace mlir;

namespace vinci::graph {
namespace {

/// The partition's limit for constants cloned into kernels as immediates.
constexpr int64_t kMaxImmediateElements = 16;

/// A 2-D window over an N x C x H x W input.
struct Window {
  int64_t kh, kw, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  int64_t oh, ow;
};

/// Fills pads from the explicit attribute or auto_pad, and grows the end
/// pads so that every tap of every output position is inside the padded
/// input (ceil_mode outputs read past the given pads).
bool resolvePads(Window &w, ArrayRef<int64_t> inShape, std::optional<ArrayRef<int64_t>> pads,
                 StringRef autoPad, bool growForCeil = true) {
  int64_t h = inShape[2], wd = inShape[3];
  int64_t needH = (w.oh - 1) * w.sh + (w.kh - 1) * w.dh + 1;
  int64_t needW = (w.ow - 1) * w.sw + (w.kw - 1) * w.dw + 1;
  if (autoPad == "NOTSET") {
    if (pads) {
      if (pads->size() != 4)
        return false;
      w.padTop = (*pads)[0];
      w.padLeft = (*pads)[1];
      w.padBottom = (*pads)[2];
      w.padRight = (*pads)[3];
    }
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    int64_t totalH = std::max<int64_t>(needH - h, 0), totalW = std::max<int64_t>(needW - wd, 0);
    bool upper = autoPad == "SAME_UPPER";
    w.padTop = upper ? totalH / 2 : totalH - totalH / 2;
    w.padLeft = upper ? totalW / 2 : totalW - totalW / 2;
    w.padBottom = totalH - w.padTop;
    w.padRight = totalW - w.padLeft;
  } else if (autoPad != "VALID") {
    return false;
  }
  if (w.padTop < 0 || w.padLeft < 0 || w.padBottom < 0 || w.padRight < 0)
    return false;
  if (growForCeil) {
    w.padBottom = std::max(w.padBottom, needH - h - w.padTop);
    w.padRight = std::max(w.padRight, needW - wd - w.padLeft);
  }
  return true;
}

bool readWindow(Window &w, RankedTensorType in, RankedTensorType out, ArrayRef<int64_t> kernel,
                std::optional<ArrayRef<int64_t>> strides,
                std::optional<ArrayRef<int64_t>> dilations) {
  if (in.getRank() != 4 || out.getRank() != 4 || !in.hasStaticShape() ||
      !out.hasStaticShape() || kernel.size() != 2)
    return false;
  w.kh = kernel[0];
  w.kw = kernel[1];
  if (strides) {
    if (strides->size() != 2)
      return false;
    w.sh = (*strides)[0];
    w.sw = (*strides)[1];
  }
  if (dilations) {
    if (dilations->size() != 2)
      return false;
    w.dh = (*dilations)[0];
    w.dw = (*dilations)[1];
  }
  w.oh = out.getDimSize(2);
  w.ow = out.getDimSize(3);
  return w.kh > 0 && w.kw > 0 && w.sh > 0 && w.sw > 0 && w.dh > 0 && w.dw > 0;
}

/// The padded input (the input itself without pads).
Value padded(OpBuilder &b, Location loc, Value x, const Window &w, double value) {
  if (!w.padTop && !w.padLeft && !w.padBottom && !w.padRight)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[2] += w.padTop + w.padBottom;
  shape[3] += w.padLeft + w.padRight;
  SmallVector<int64_t> pads = {0, 0, w.padTop, w.padLeft, 0, 0, w.padBottom, w.padRight};
  return vg::PadOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), x,
                           b.getDenseI64ArrayAttr(pads), b.getStringAttr("constant"),
                           b.getF64FloatAttr(value));
}

/// One slice per tap, (ki, kj) row-major: tap[n, c, oh, ow] =
/// xp[n, c, oh * sh + ki * dh, ow * sw + kj * dw]. A tap that is the whole
/// padded input is the input itself.
///
/// With strides, taps that share a phase (ki * dh mod sh, kj * dw mod sw)
/// read the same decimated grid at offsets: when that saves copies, the
/// phases are sliced once with the strides (a step along the innermost dim
/// moves one element a burst) and each tap is a unit-step slice of its
/// phase (whole rows a burst). A 3x3 stride-2 window then decimates its
/// input once instead of nine times, a 7x7 one instead of 49 times.
SmallVector<Value> taps(OpBuilder &b, Location loc, Value xp, const Window &w) {
  auto type = cast<RankedTensorType>(xp.getType());
  Type element = type.getElementType();
  int64_t n = type.getDimSize(0), c = type.getDimSize(1);
  int64_t hp = type.getDimSize(2), wp = type.getDimSize(3);
  auto tapType = RankedTensorType::get({n, c, w.oh, w.ow}, element);

  // The phases (top mod sh, left mod sw) the taps use, in row-major order.
  std::map<std::pair<int64_t, int64_t>, Value> phases;
  for (int64_t ki = 0; ki < w.kh; ++ki)
    for (int64_t kj = 0; kj < w.kw; ++kj)
      phases[{ki * w.dh % w.sh, kj * w.dw % w.sw}] = Value();
  bool decimateOnce = (w.sh > 1 || w.sw > 1) && int64_t(phases.size()) < w.kh * w.kw;
  if (decimateOnce)
    for (auto &[at, phase] : phases) {
      auto [ph, pw] = at;
      int64_t rows = (hp - ph + w.sh - 1) / w.sh, cols = (wp - pw + w.sw - 1) / w.sw;
      phase = vg::SliceOp::create(b, loc, RankedTensorType::get({n, c, rows, cols}, element), xp,
                                  ArrayRef<int64_t>{ph, pw}, ArrayRef<int64_t>{hp, wp},
                                  ArrayRef<int64_t>{2, 3}, ArrayRef<int64_t>{w.sh, w.sw});
    }

  SmallVector<Value> out;
  for (int64_t ki = 0; ki < w.kh; ++ki)
    for (int64_t kj = 0; kj < w.kw; ++kj) {
      int64_t top = ki * w.dh, left = kj * w.dw;
      if (!decimateOnce) {
        if (tapType == type && top == 0 && left == 0 && w.sh == 1 && w.sw == 1) {
          out.push_back(xp);
          continue;
        }
        SmallVector<int64_t> starts = {top, left};
        SmallVector<int64_t> ends = {top + (w.oh - 1) * w.sh + 1, left + (w.ow - 1) * w.sw + 1};
        out.push_back(vg::SliceOp::create(b, loc, tapType, xp, starts, ends,
                                          ArrayRef<int64_t>{2, 3},
                                          ArrayRef<int64_t>{w.sh, w.sw}));
        continue;
      }
      int64_t ph = top % w.sh, pw = left % w.sw;
      Value phase = phases[{ph, pw}];
      int64_t rows = (hp - ph + w.sh - 1) / w.sh, cols = (wp - pw + w.sw - 1) / w.sw;
      int64_t row0 = top / w.sh, col0 = left / w.sw;
      if (row0 == 0 && col0 == 0 && rows == w.oh && cols == w.ow) {
        out.push_back(phase);
        continue;
      }
      out.push_back(vg::SliceOp::create(b, loc, tapType, phase, ArrayRef<int64_t>{row0, col0},
                                        ArrayRef<int64_t>{row0 + w.oh, col0 + w.ow},
                                        ArrayRef<int64_t>{2, 3}, ArrayRef<int64_t>{1, 1}));
    }
  return out;
}

// conv(x, W, b) = reshape(reshape(W, [OC, C * kh * kw]) @ im2col(pad(x)),
//                         N x OC x OH x OW) + b,
// im2col = the taps stacked after C ([C, kh * kw, OH * OW], C-major like W).
bool unfoldConv(vg::ConvOp conv) {
  auto in = cast<RankedTensorType>(conv.getInput().getType());
  auto out = cast<RankedTensorType>(conv.getType());
  auto weightType = cast<RankedTensorType>(conv.getWeight().getType());
  int64_t groups = conv.getGroup();
  if (groups < 1 || weightType.getRank() != 4 || in.getRank() != 4 || in.getDimSize(0) != 1 ||
      !out.getElementType().isF32() || !weightType.hasStaticShape())
    return false;
  Window w;
  SmallVector<int64_t> kernel(weightType.getShape().drop_front(2));
  if (!readWindow(w, in, out, kernel, conv.getStrides(), conv.getDilations()))
    return false;
  SmallVector<int64_t> pads = conv.getEffectivePads();
  if (!resolvePads(w, in.getShape(), ArrayRef<int64_t>(pads), "NOTSET"))
    return false;

  // c: input channels (all groups); k: im2col rows (all groups).
  int64_t oc = weightType.getDimSize(0), c = in.getDimSize(1);
  if (c % groups || oc % groups || weightType.getDimSize(1) * groups != c)
    return false;
  int64_t tapsCount = w.kh * w.kw, k = tapsCount * c, positions = w.oh * w.ow;
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  Type f32 = b.getF32Type();

  std::string name = "conv";
  ElementsAttr attr;
  bool blobs = false;
  if (matchPattern(conv.getWeight(), m_Constant(&attr)))
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
      name = resource.getRawHandle().getKey().str();
      blobs = true;
    }
  std::optional<std::vector<float>> constantWeight = f32Values(conv.getWeight());
  std::optional<std::vector<float>> constantBias;
  if (conv.getBias())
    constantBias = f32Values(conv.getBias());

  // conv(x, W) + b = [W' | b] @ [im2col; 1]: with a constant weight and
  // bias, the bias is one more column of the weight matrix times a row of
  // ones after the taps, so the Cube adds it and no Vector pass over the
  // output broadcasts it. The rows are then tap-major (the taps as [C, P]
  // pieces concatenated on dim 0, then the ones), the weight permuted to
  // [OC, kh, kw, C] at compile time. (A row of at most
  // kMaxImmediateElements ones would be cloned into the concat kernel,
  // which takes no constants: tiny outputs keep the bias add.)
  if (groups == 1 && constantWeight && constantBias && positions > kMaxImmediateElements) {
    std::vector<float> augmented(oc * (k + 1));
    for (int64_t o = 0; o < oc; ++o) {
      for (int64_t ci = 0; ci < c; ++ci)
        for (int64_t t = 0; t < tapsCount; ++t)
          augmented[o * (k + 1) + t * c + ci] = (*constantWeight)[(o * c + ci) * tapsCount + t];
      augmented[o * (k + 1) + k] = (*constantBias)[o];
    }
    Value weightMatrix =
        f32Constant(b, loc, {oc, k + 1}, augmented, blobs ? name + ".matrix_bias" : "");
    SmallVector<Value> pieces = taps(b, loc, padded(b, loc, conv.getInput(), w, 0.0), w);
    auto pieceType = RankedTensorType::get({c, positions}, f32);
    for (Value &piece : pieces)
      piece = vg::ReshapeOp::create(b, loc, pieceType, piece,
                                    b.getDenseI64ArrayAttr({c, positions}));
    pieces.push_back(f32Constant(b, loc, {1, positions}, std::vector<float>(positions, 1.0f),
                                 blobs ? name + ".ones" : ""));
    Value matrix = vg::ConcatOp::create(b, loc, RankedTensorType::get({k + 1, positions}, f32),
                                        pieces, int64_t(0));
    Value product = vg::MatMulOp::create(b, loc, RankedTensorType::get({oc, positions}, f32),
                                         weightMatrix, matrix, false, false);
    Value result = vg::ReshapeOp::create(b, loc, out, product,
                                         b.getDenseI64ArrayAttr(out.getShape()));
    Value oldWeight = conv.getWeight(), oldBias = conv.getBias();
    conv.getResult().replaceAllUsesWith(result);
    conv->erase();
    for (Value old : {oldWeight, oldBias})
      if (old.getDefiningOp() && old.use_empty())
        old.getDefiningOp()->erase();
    return true;
  }

  // Otherwise the weight as the [OC, C * kh * kw] matrix: a constant stays
  // a constant (a blob when it was one), anything else is a view. With
  // groups, a batch of them: [g, OC / g, C / g * kh * kw] by the im2col
  // rows of each group, [g, C / g * kh * kw, OH * OW] (the C-major rows
  // keep each group's channels together), the batched matmul giving
  // [g, OC / g, OH * OW], again NCHW. Depthwise conv is g = C.
  SmallVector<int64_t> weightShape = {oc, k}, matrixShape = {k, positions},
                       productShape = {oc, positions};
  if (groups > 1) {
    weightShape = {groups, oc / groups, k / groups};
    matrixShape = {groups, k / groups, positions};
    productShape = {groups, oc / groups, positions};
  }
  Value weightMatrix;
  if (constantWeight)
    weightMatrix = f32Constant(b, loc, weightShape, *constantWeight, blobs ? name + ".matrix" : "");
  else
    weightMatrix = vg::ReshapeOp::create(b, loc, RankedTensorType::get(weightShape, f32),
                                         conv.getWeight(), b.getDenseI64ArrayAttr(weightShape));

  // Each tap [1, C, OH, OW] viewed as [1, C, 1, OH, OW], stacked on dim 2.
  SmallVector<Value> pieces = taps(b, loc, padded(b, loc, conv.getInput(), w, 0.0), w);
  Value columns = pieces.front();
  if (pieces.size() > 1) {
    auto stackedType = RankedTensorType::get({1, c, 1, w.oh, w.ow}, f32);
    for (Value &piece : pieces)
      piece = vg::ReshapeOp::create(b, loc, stackedType, piece,
                                    b.getDenseI64ArrayAttr(stackedType.getShape()));
    columns = vg::ConcatOp::create(b, loc, RankedTensorType::get({1, c, tapsCount, w.oh, w.ow}, f32),
                                   pieces, int64_t(2));
  }
  Value matrix = vg::ReshapeOp::create(b, loc, RankedTensorType::get(matrixShape, f32), columns,
                                       b.getDenseI64ArrayAttr(matrixShape));
  Value product = vg::MatMulOp::create(b, loc, RankedTensorType::get(productShape, f32),
                                       weightMatrix, matrix, false, false);
  Value result = vg::ReshapeOp::create(b, loc, out, product,
                                       b.getDenseI64ArrayAttr(out.getShape()));
  if (Value givenBias = conv.getBias()) {
    Value biasTensor;
    if (std::optional<std::vector<float>> bias = f32Values(givenBias)) {
      // The partition clones constants of at most kMaxImmediateElements
      // into the kernel, and the Vector templates take those only as one
      // element: a bias of few channels is stored at the output's shape.
      SmallVector<int64_t> biasShape = {1, oc, 1, 1};
      std::vector<float> biasValues = *bias;
      if (oc <= kMaxImmediateElements) {
        biasShape = {1, oc, w.oh, w.ow};
        biasValues.clear();
        for (int64_t o = 0; o < oc; ++o)
          biasValues.insert(biasValues.end(), positions, (*bias)[o]);
      }
      biasTensor = f32Constant(b, loc, biasShape, biasValues, blobs ? name + ".bias" : "");
    } else {
      biasTensor = vg::ReshapeOp::create(b, loc, RankedTensorType::get({1, oc, 1, 1}, f32),
                                         givenBias, b.getDenseI64ArrayAttr({1, oc, 1, 1}));
    }
    result = vg::AddOp::create(b, loc, out, result, biasTensor);
  }
  Value oldWeight = conv.getWeight(), oldBias = conv.getBias();
  conv.getResult().replaceAllUsesWith(result);
  conv->erase();
  for (Value old : {oldWeight, oldBias})
    if (old && old.getDefiningOp() && old.use_empty())
      old.getDefiningOp()->erase();
  return true;
}

Value scalar(OpBuilder &b, Location loc, float value) {
  return vg::ConstantOp::create(
      b, loc, DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()), value));
}

// max_pool(x) = max over taps of pad(x, -inf);
// average_pool(x) = (sum over taps of pad(x, 0)) / count.
template <typename PoolOp>
bool unfoldPool(PoolOp pool, bool isMax) {
  auto in = cast<RankedTensorType>(pool.getInput().getType());
  auto out = cast<RankedTensorType>(pool.getType());
  if (!out.getElementType().isF32())
    return false;
  std::optional<ArrayRef<int64_t>> dilations;
  if constexpr (std::is_same_v<PoolOp, vg::MaxPoolOp>) {
    if (pool.getStorageOrder() != 0 || pool->getNumResults() != 1)
      return false;
    dilations = pool.getDilations();
  }
  // A 1-D window [N, C, L] is the 2-D one over the view [N, C, 1, L]; its
  // taps are viewed back as [N, C, OL] before the chain.
  std::optional<ArrayRef<int64_t>> pads = pool.getPads(), strides = pool.getStrides();
  SmallVector<int64_t> kernel(pool.getKernelShape()), pads2, strides2, dilations2;
  bool oneD = in.getRank() == 3;
  RankedTensorType in4 = in, out4 = out;
  if (oneD) {
    if (kernel.size() != 1 || !in.hasStaticShape() || !out.hasStaticShape())
      return false;
    kernel.insert(kernel.begin(), 1);
    // Strides and dilations [s] -> [1, s]; pads [begin, end] -> [0, begin,
    // 0, end]; an empty list marks a malformed attribute.
    auto widen = [](std::optional<ArrayRef<int64_t>> given, SmallVector<int64_t> &to,
                    size_t size) -> std::optional<ArrayRef<int64_t>> {
      if (!given)
        return std::nullopt;
      if (given->size() != size)
        return ArrayRef<int64_t>();
      to = size == 2 ? SmallVector<int64_t>{0, (*given)[0], 0, (*given)[1]}
                     : SmallVector<int64_t>{1, (*given)[0]};
      return ArrayRef<int64_t>(to);
    };
    pads = widen(pads, pads2, 2);
    strides = widen(strides, strides2, 1);
    dilations = widen(dilations, dilations2, 1);
    if ((pads && pads->empty()) || (strides && strides->empty()) ||
        (dilations && dilations->empty()))
      return false;
    in4 = RankedTensorType::get({in.getDimSize(0), in.getDimSize(1), 1, in.getDimSize(2)},
                                in.getElementType());
    out4 = RankedTensorType::get({out.getDimSize(0), out.getDimSize(1), 1, out.getDimSize(2)},
                                 out.getElementType());
  }
  Window w;
  if (!readWindow(w, in4, out4, kernel, strides, dilations))
    return false;
  // The pads the attributes name count for count_include_pad; the ones
  // grown for ceil_mode never do.
  Window named = w;
  if (!resolvePads(w, in4.getShape(), pads, pool.getAutoPad()) ||
      !resolvePads(named, in4.getShape(), pads, pool.getAutoPad(), /*growForCeil=*/false))
    return false;

  OpBuilder b(pool);
  Location loc = pool.getLoc();
  double fill = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
  Value x = pool.getInput();
  if (oneD)
    x = vg::ReshapeOp::create(b, loc, in4, x, b.getDenseI64ArrayAttr(in4.getShape()));
  SmallVector<Value> pieces = taps(b, loc, padded(b, loc, x, w, fill), w);
  if (oneD)
    for (Value &piece : pieces)
      piece = vg::ReshapeOp::create(b, loc, out, piece, b.getDenseI64ArrayAttr(out.getShape()));
  Value acc = pieces.front();
  for (Value piece : ArrayRef<Value>(pieces).drop_front())
    acc = isMax ? Value(vg::MaxOp::create(b, loc, out, acc, piece))
                : Value(vg::AddOp::create(b, loc, out, acc, piece));
  if (!isMax) {
    bool includePad = false;
    if constexpr (std::is_same_v<PoolOp, vg::AveragePoolOp>)
      includePad = pool.getCountIncludePad() != 0;
    // Taps inside the input (or inside the named pads when they count).
    int64_t h = in4.getDimSize(2), wd = in4.getDimSize(3);
    int64_t loH = includePad ? -named.padTop : 0, hiH = includePad ? h + named.padBottom : h;
    int64_t loW = includePad ? -named.padLeft : 0, hiW = includePad ? wd + named.padRight : wd;
    std::vector<float> inverse(w.oh * w.ow);
    bool uniform = true;
    for (int64_t y = 0; y < w.oh; ++y)
      for (int64_t x = 0; x < w.ow; ++x) {
        int64_t count = 0;
        for (int64_t ki = 0; ki < w.kh; ++ki)
          for (int64_t kj = 0; kj < w.kw; ++kj) {
            int64_t iy = y * w.sh + ki * w.dh - w.padTop, ix = x * w.sw + kj * w.dw - w.padLeft;
            count += iy >= loH && iy < hiH && ix >= loW && ix < hiW;
          }
        inverse[y * w.ow + x] = count ? 1.0f / float(count) : 0.0f;
        uniform &= inverse[y * w.ow + x] == inverse[0];
      }
    // Per position, at the full output shape when small (see unfoldConv).
    Value factor;
    if (uniform) {
      factor = scalar(b, loc, inverse[0]);
    } else if (w.oh * w.ow > kMaxImmediateElements) {
      SmallVector<int64_t> shape = {1, 1, w.oh, w.ow};
      if (oneD)
        shape = {1, 1, w.ow};
      factor = f32Constant(b, loc, shape, inverse, "");
    } else {
      std::vector<float> full;
      for (int64_t i = 0; i < out.getDimSize(0) * out.getDimSize(1); ++i)
        full.insert(full.end(), inverse.begin(), inverse.end());
      factor = f32Constant(b, loc, out.getShape(), full, "");
    }
    acc = vg::MulOp::create(b, loc, out, acc, factor);
  }
  pool.getResult().replaceAllUsesWith(acc);
  pool->erase();
  return true;
}

// global_average_pool(x) = reduce_mean(x, spatial axes, keepdims);
// likewise global_max_pool with reduce_max.
template <typename GlobalOp, typename ReduceOp>
bool unfoldGlobalPool(GlobalOp pool) {
  auto in = cast<RankedTensorType>(pool.getInput().getType());
  if (in.getRank() < 3 || !in.hasStaticShape())
    return false;
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < in.getRank(); ++d)
    axes.push_back(d);
  OpBuilder b(pool);
  Value reduced = ReduceOp::create(b, pool.getLoc(), pool.getType(), pool.getInput(),
                                   b.getDenseI64ArrayAttr(axes), int64_t(1), int64_t(0));
  pool.getResult().replaceAllUsesWith(reduced);
  pool->erase();
  return true;
}

struct UnfoldWindows : impl::UnfoldWindowsBase<UnfoldWindows> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<vg::ConvOp, vg::MaxPoolOp, vg::AveragePoolOp, vg::GlobalAveragePoolOp,
              vg::GlobalMaxPoolOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      // The ops that replace a window keeping fp32 (--keep_dtype,
      // range-checked precision) keep it too: they are built in its place.
      bool keep = op->hasAttr(kKeepDtypeAttr);
      Operation *before = op->getPrevNode(), *after = op->getNextNode();
      Block *block = op->getBlock();
      auto markReplacement = llvm::make_scope_exit([&] {
        if (!keep)
          return;
        for (Operation *made = before ? before->getNextNode() : &block->front();
             made && made != after; made = made->getNextNode())
          if (made->getNumResults() > 0)
            made->setAttr(kKeepDtypeAttr, UnitAttr::get(made->getContext()));
      });
      if (auto conv = dyn_cast<vg::ConvOp>(op)) {
        // A conv the Cube conv template takes keeps its window (img2col on
        // chip by load_3d), and so does a depthwise one the Vector
        // depthwise template takes; KernelRules says which, and why not.
        // A grouped conv's reason is the depthwise template's (groups 1
        // are the Cube's).
        bool grouped = conv.getGroup() > 1;
        std::string why = grouped ? depthwiseTemplateMismatch(conv) : convCubeTemplateMismatch(conv);
        if (why.empty()) {
          keep = false;
          continue;
        }
        noteUnfolded(conv, why);
        unfoldConv(conv);
      }
      // A pool the pooling template takes keeps its window too (max or sum
      // over NC1HWC0 rows in UB).
      else if (isa<vg::MaxPoolOp, vg::AveragePoolOp>(op)) {
        std::string why = poolTemplateMismatch(op);
        if (why.empty())
          continue;
        noteUnfolded(op, why);
        if (auto pool = dyn_cast<vg::MaxPoolOp>(op))
          unfoldPool(pool, /*isMax=*/true);
        else
          unfoldPool(cast<vg::AveragePoolOp>(op), /*isMax=*/false);
      }
      else if (auto pool = dyn_cast<vg::GlobalAveragePoolOp>(op))
        unfoldGlobalPool<vg::GlobalAveragePoolOp, vg::ReduceMeanOp>(pool);
      else if (auto pool = dyn_cast<vg::GlobalMaxPoolOp>(op))
        unfoldGlobalPool<vg::GlobalMaxPoolOp, vg::ReduceMaxOp>(pool);
    }
    if (!unfolded.empty())
      getOperation()->setAttr(kUnfoldedWindowsAttr,
                              ArrayAttr::get(&getContext(), unfolded));
  }

  /// Records why the template of `op`'s kind does not take it, for the
  /// compile report: {node, op, reason}.
  void noteUnfolded(Operation *op, StringRef why) {
    Builder b(&getContext());
    StringRef node;
    if (auto name = dyn_cast<NameLoc>(op->getLoc()))
      node = name.getName().getValue();
    unfolded.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("node", b.getStringAttr(node)),
         b.getNamedAttr("op", b.getStringAttr(op->getName().stripDialect())),
         b.getNamedAttr("reason", b.getStringAttr(why))}));
  }

  SmallVector<Attribute> unfolded;
};

} // namespace
} // namespace vinci::graph
