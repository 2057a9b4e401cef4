//===- VgAipp.cpp - vg.aipp: result type and checks -----------------------===//
//
// As for every vg op, inference is the verifier: each message names the op
// and the attribute at fault.
//
//===----------------------------------------------------------------------===//
#include "vg/VgOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace vinci::vg;

namespace {

/// Image channels a packed pixel of `format` holds (0: an unknown format).
int64_t packedChannels(StringRef format) {
  if (format == "RGB888_U8")
    return 3;
  if (format == "XRGB8888_U8")
    return 4;
  if (format == "YUV400_U8" || format == "YUV420SP_U8")
    return 1;
  return 0;
}

/// Channels the conversion reads: Y, U, V of a YUV420SP image, R, G, B of
/// the RGB formats, Y of YUV400.
int64_t convertedChannels(StringRef format) {
  return format == "YUV400_U8" ? 1 : 3;
}

} // namespace

int64_t AippOp::getPixelBytes() { return packedChannels(getInputFormat()); }

int64_t AippOp::getImageHeight() {
  int64_t rows = getImage().getType().getDimSize(1);
  return getInputFormat() == "YUV420SP_U8" ? rows * 2 / 3 : rows;
}

int64_t AippOp::getImageWidth() { return getImage().getType().getDimSize(2); }

LogicalResult AippOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto fail = [&](const Twine &message) {
    return emitOptionalError(loc, "vg.aipp: " + message);
  };
  auto image = cast<RankedTensorType>(adaptor.getImage().getType());
  StringRef format = adaptor.getInputFormat();
  int64_t packed = packedChannels(format);
  if (!packed)
    return fail("input_format '" + format +
                "' is not one of RGB888_U8, XRGB8888_U8, YUV400_U8, YUV420SP_U8");
  if (image.getRank() != 4 || !image.hasStaticShape() || image.getDimSize(3) != packed)
    return fail("a " + format + " image is [N, H, W, " + Twine(packed) + "], got " +
                Twine(image.getRank()) + "-D " + (image.hasStaticShape() ? "" : "dynamic ") +
                "image");
  int64_t height = image.getDimSize(1), width = image.getDimSize(2);
  bool yuv420 = format == "YUV420SP_U8";
  if (yuv420) {
    if ((2 * height) % 3 || (2 * height / 3) % 2 || width % 2)
      return fail("a YUV420SP_U8 image is [N, H * 3 / 2, W, 1] with H and W even, got rows " +
                  Twine(height) + " and width " + Twine(width));
    height = height * 2 / 3;
  }

  ArrayRef<int64_t> crop = adaptor.getCrop();
  if (crop.size() != 4)
    return fail("crop is [top, left, height, width], got " + Twine(crop.size()) + " values");
  if (crop[0] < 0 || crop[1] < 0 || crop[2] <= 0 || crop[3] <= 0 || crop[0] + crop[2] > height ||
      crop[1] + crop[3] > width)
    return fail("crop [" + Twine(crop[0]) + ", " + Twine(crop[1]) + ", " + Twine(crop[2]) + ", " +
                Twine(crop[3]) + "] is not inside the " + Twine(height) + " x " + Twine(width) +
                " image");
  if (yuv420 && llvm::any_of(crop, [](int64_t v) { return v % 2; }))
    return fail("a YUV420SP_U8 crop starts and ends on even rows and columns");

  int64_t converted = convertedChannels(format);
  ArrayRef<int64_t> channels = adaptor.getChannels();
  if (int64_t(channels.size()) != converted)
    return fail("channels names the image channel of each of the " + Twine(converted) +
                " converted channels, got " + Twine(channels.size()));
  int64_t available = yuv420 ? 3 : packed;
  for (int64_t c : channels)
    if (c < 0 || c >= available)
      return fail("channel " + Twine(c) + " is not one of the image's " + Twine(available));
  if (std::optional<ArrayRef<int64_t>> matrix = adaptor.getCscMatrix();
      matrix && (matrix->size() != 9 || converted != 3))
    return fail("csc_matrix is 3 x 3 (9 values) over three channels");
  if (adaptor.getCscInputBias().size() != 3 || adaptor.getCscOutputBias().size() != 3)
    return fail("csc_input_bias and csc_output_bias hold 3 values each");

  size_t outChannels = adaptor.getMean().size();
  if (outChannels == 0 || int64_t(outChannels) > converted ||
      adaptor.getMin().size() != outChannels || adaptor.getVarReci().size() != outChannels)
    return fail("mean, min and var_reci hold one value per output channel (1 to " +
                Twine(converted) + "), got " + Twine(adaptor.getMean().size()) + ", " +
                Twine(adaptor.getMin().size()) + " and " + Twine(adaptor.getVarReci().size()));

  ArrayRef<int64_t> padding = adaptor.getPadding();
  if (padding.size() != 4 || llvm::any_of(padding, [](int64_t v) { return v < 0; }))
    return fail("padding is [top, bottom, left, right], each >= 0");
  Type element = adaptor.getTo();
  if (!isa<FloatType>(element))
    return fail("to must be a float type");
  inferred.push_back(RankedTensorType::get({image.getDimSize(0), int64_t(outChannels),
                                            crop[2] + padding[0] + padding[1],
                                            crop[3] + padding[2] + padding[3]},
                                           element));
  return success();
}
