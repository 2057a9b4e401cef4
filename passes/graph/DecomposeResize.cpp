//===- DecomposeResize.cpp - vg.resize as matmuls by interpolation matrices ===//
//
// Every ONNX Resize mode (nearest with any nearest_mode, linear, cubic with
// its coefficient and exclude_outside) under every coordinate transform is
// linear in its input and separable per axis: along axis a the output is
// R_a applied to the input, R_a [O_a, I_a] holding the weights the ONNX
// reference (onnx/backend/test/case/node/resize.py) gives each input
// position, edge positions repeated. R_a is computed here in double from
// the same formulas, so the Cube does the resize as matmuls:
//  - the last axis: X [.., W] x R^T [W, OW] (a 2-D weight over the batch);
//  - another axis a: X viewed as [P, I_a, Q] (P the dims before a, Q those
//    after), R_a [O_a, I_a] x X[p] for every p: a plain matmul when P = 1,
//    otherwise a batched one whose left operand is R_a repeated P times at
//    compile time (the Cube template takes a 2-D operand on the right only).
// Axes whose matrix is the identity (scale 1 under most transforms) are
// skipped. Nearest matrices are one-hot, so nearest resizes are exact;
// linear and cubic weights round to fp16 under force_fp16. Left alone (the
// backend then says resize has no template): dynamic shapes, tensors other
// than f32 and f16 (whose matrices are f16), and tf_crop_and_resize
// (vg.resize carries no roi).
//
//===----------------------------------------------------------------------===//
#include "passes/graph/ConstantData.h"
#include "passes/graph/Passes.h"

#include "vg/VgOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

#include <algorithm>
#include <cmath>

namespace vinci::graph {
#define GEN_PASS_DEF_DECOMPOSERESIZE
#include "passes/graph/Passes.h.inc"
} // namespace vinci::graph

using namespace mlir;

namespace vinci::graph {
namespace {

/// Matrices up to this many elements stay inline; larger ones are blobs.
constexpr int64_t kMaxInlineElements = 256;

/// The ONNX Resize attributes that shape one axis's matrix.
struct ResizeMode {
  StringRef mode, transform, nearest;
  double cubicA = -0.75;
  bool excludeOutside = false;
};

/// The source coordinate of output position `x` (ONNX's x_original).
double sourceCoordinate(const ResizeMode &m, double x, double scale, int64_t in) {
  // The reference's output width is scale x input width, not the rounded size.
  double outWidth = scale * double(in);
  if (m.transform == "align_corners")
    return outWidth == 1 ? 0.0 : x * double(in - 1) / (outWidth - 1);
  if (m.transform == "asymmetric")
    return x / scale;
  if (m.transform == "pytorch_half_pixel")
    return outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  if (m.transform == "tf_half_pixel_for_nn")
    return (x + 0.5) / scale;
  return (x + 0.5) / scale - 0.5; // half_pixel
}

/// The weights of the taps left and right of the source coordinate, for
/// the fraction `ratio` in (0, 1] (1 when the coordinate is an integer).
SmallVector<double> tapWeights(const ResizeMode &m, double ratio, bool integral) {
  if (m.mode == "nearest") {
    if (integral)
      return {0, 1};
    if (m.nearest == "round_prefer_ceil")
      return {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
    if (m.nearest == "floor")
      return {1, 0};
    if (m.nearest == "ceil")
      return {0, 1};
    return {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0}; // round_prefer_floor
  }
  if (m.mode == "linear")
    return {1 - ratio, ratio};
  // Cubic convolution (Keys), a = cubic_coeff_a, taps at -1, 0, 1, 2.
  double a = m.cubicA, r = ratio, s = 1 - ratio;
  return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
          ((a + 2) * r - (a + 3)) * r * r + 1, ((a + 2) * s - (a + 3)) * s * s + 1,
          ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
}

/// R [out, in]: row x holds the weight of each input position in output x.
std::vector<double> interpolationMatrix(const ResizeMode &m, int64_t in, int64_t out,
                                        double scale) {
  std::vector<double> matrix(out * in, 0.0);
  for (int64_t x = 0; x < out; ++x) {
    double source = sourceCoordinate(m, double(x), scale, in);
    double floorSource = std::floor(source);
    bool integral = source == floorSource;
    SmallVector<double> weights = tapWeights(m, integral ? 1.0 : source - floorSource, integral);
    int64_t taps = static_cast<int64_t>(weights.size());
    // The reference pads the input by ceil(taps / 2) edge copies and takes
    // the `taps` positions nearest the source coordinate, the smaller on a
    // tie, in ascending order.
    int64_t pad = (taps + 1) / 2;
    SmallVector<int64_t> candidates;
    for (int64_t p = -pad; p < in + pad; ++p)
      candidates.push_back(p);
    llvm::stable_sort(candidates, [&](int64_t l, int64_t r) {
      double dl = std::abs(source - double(l)), dr = std::abs(source - double(r));
      return dl != dr ? dl < dr : l < r;
    });
    candidates.resize(std::min<size_t>(candidates.size(), taps));
    llvm::sort(candidates);
    if (m.excludeOutside) {
      double kept = 0;
      for (auto [tap, p] : llvm::enumerate(candidates))
        if (p < 0 || p >= in)
          weights[tap] = 0;
        else
          kept += weights[tap];
      for (double &w : weights)
        w /= kept;
    }
    for (auto [tap, p] : llvm::enumerate(candidates))
      matrix[x * in + std::clamp<int64_t>(p, 0, in - 1)] += weights[tap];
  }
  return matrix;
}

bool isIdentity(const std::vector<double> &matrix, int64_t in, int64_t out) {
  if (in != out)
    return false;
  for (int64_t r = 0; r < out; ++r)
    for (int64_t c = 0; c < in; ++c)
      if (matrix[r * in + c] != (r == c ? 1.0 : 0.0))
        return false;
  return true;
}

/// A name for the matrices' blobs: the resize's node name when it has one.
std::string blobPrefix(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto name = dyn_cast<NameLoc>(inner))
        return name.getName().str();
  return "resize";
}

/// The matrix in the resized tensor's element type: f32 (a blob when
/// large), or f16 rounded to nearest even (inline).
Value matrixConstant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                     ArrayRef<float> values, const std::string &name, Type element) {
  if (element.isF32())
    return f32Constant(b, loc, shape, values,
                       int64_t(values.size()) > kMaxInlineElements ? name : std::string());
  SmallVector<APFloat> rounded;
  for (float v : values) {
    APFloat value(v);
    bool lost;
    value.convert(APFloat::IEEEhalf(), APFloat::rmNearestTiesToEven, &lost);
    rounded.push_back(value);
  }
  return vg::ConstantOp::create(
      b, loc, DenseElementsAttr::get(RankedTensorType::get(shape, element), rounded));
}

Value reshape(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(
      shape, cast<RankedTensorType>(value.getType()).getElementType());
  if (value.getType() == type)
    return value;
  return vg::ReshapeOp::create(b, loc, type, value, b.getDenseI64ArrayAttr(shape));
}

void decompose(vg::ResizeOp resize) {
  RankedTensorType inType = resize.getInput().getType();
  auto outType = cast<RankedTensorType>(resize.getType());
  Type element = inType.getElementType();
  if (!inType.hasStaticShape() || !outType.hasStaticShape() || !(element.isF32() || element.isF16()))
    return;
  ResizeMode m{resize.getMode(), resize.getCoordinateTransformationMode(),
               resize.getNearestMode()};
  // Read by name: the importer does not carry them yet (cubic is rejected
  // before this pass), and the defaults are ONNX's.
  if (auto a = resize->getAttrOfType<FloatAttr>("cubic_coeff_a"))
    m.cubicA = a.getValueAsDouble();
  if (auto exclude = resize->getAttrOfType<IntegerAttr>("exclude_outside"))
    m.excludeOutside = exclude.getInt() != 0;
  if (auto exclude = resize->getAttrOfType<BoolAttr>("exclude_outside"))
    m.excludeOutside = exclude.getValue();
  if (m.transform == "tf_crop_and_resize")
    return; // needs the roi, which vg.resize does not carry

  OpBuilder b(resize);
  Location loc = resize.getLoc();
  std::string prefix = blobPrefix(loc);
  SmallVector<int64_t> shape(inType.getShape());
  ArrayRef<float> scales = resize.getScales();
  std::optional<ArrayRef<int64_t>> sizes = resize.getSizes();
  Value value = resize.getInput();
  int64_t rank = inType.getRank();
  // The last axis first: it shrinks or grows the rows every later matmul reads.
  for (int64_t axis = rank - 1; axis >= 0; --axis) {
    int64_t in = shape[axis], out = outType.getDimSize(axis);
    // Given sizes, the reference scales by out / in in double precision.
    double scale = sizes ? double(out) / double(in) : double(scales[axis]);
    std::vector<double> matrix = interpolationMatrix(m, in, out, scale);
    if (isIdentity(matrix, in, out))
      continue;
    std::string name = prefix + ".resize_axis" + std::to_string(axis);
    int64_t before = 1, after = 1;
    for (int64_t d = 0; d < axis; ++d)
      before *= shape[d];
    for (int64_t d = axis + 1; d < rank; ++d)
      after *= shape[d];
    SmallVector<int64_t> resized(shape);
    resized[axis] = out;
    if (axis == rank - 1) {
      // Y [.., OW] = X [.., W] x R^T.
      std::vector<float> transposed(in * out);
      for (int64_t r = 0; r < out; ++r)
        for (int64_t c = 0; c < in; ++c)
          transposed[c * out + r] = float(matrix[r * in + c]);
      Value weight = matrixConstant(b, loc, {in, out}, transposed, name, element);
      value = vg::MatMulOp::create(b, loc, RankedTensorType::get(resized, element), value, weight);
    } else {
      // Y[p] [O, Q] = R [O, I] x X[p] [I, Q], R repeated over p.
      std::vector<float> repeated;
      repeated.reserve(before * out * in);
      for (int64_t p = 0; p < before; ++p)
        for (double w : matrix)
          repeated.push_back(float(w));
      SmallVector<int64_t> lhsShape{out, in}, rhsShape{in, after}, resultShape{out, after};
      if (before > 1) {
        lhsShape.insert(lhsShape.begin(), before);
        rhsShape.insert(rhsShape.begin(), before);
        resultShape.insert(resultShape.begin(), before);
      }
      Value weight = matrixConstant(b, loc, lhsShape, repeated, name, element);
      Value rhs = reshape(b, loc, value, rhsShape);
      Value product =
          vg::MatMulOp::create(b, loc, RankedTensorType::get(resultShape, element), weight, rhs);
      value = reshape(b, loc, product, resized);
    }
    shape = resized;
  }
  resize.getResult().replaceAllUsesWith(value);
  resize->erase();
}

struct DecomposeResize : impl::DecomposeResizeBase<DecomposeResize> {
  void runOnOperation() override {
    SmallVector<vg::ResizeOp> resizes;
    getOperation().walk([&](vg::ResizeOp resize) { resizes.push_back(resize); });
    for (vg::ResizeOp resize : resizes)
      decompose(resize);
  }
};

} // namespace
} // namespace vinci::graph
