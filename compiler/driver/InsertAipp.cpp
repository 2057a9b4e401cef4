//===- InsertAipp.cpp - static AIPP at the model's image inputs -----------===//
#include "driver/InsertAipp.h"

#include "vg/VgOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

namespace vinci::driver {
namespace {

/// The image channel each converted channel reads, after ATC's swaps:
/// rbuv_swap_switch exchanges R and B (U and V), ax_swap_switch takes the
/// X channel last (RGBX) instead of first (XRGB).
llvm::SmallVector<int64_t> sourceChannels(const AippConfig &config) {
  switch (config.inputFormat) {
  case AippInputFormat::YUV400_U8:
    return {0};
  case AippInputFormat::YUV420SP_U8:
    return config.rbuvSwap ? llvm::SmallVector<int64_t>{0, 2, 1}
                           : llvm::SmallVector<int64_t>{0, 1, 2};
  case AippInputFormat::RGB888_U8:
  case AippInputFormat::XRGB8888_U8: {
    int64_t first = config.inputFormat == AippInputFormat::XRGB8888_U8 && !config.axSwap ? 1 : 0;
    if (config.rbuvSwap)
      return {first + 2, first + 1, first};
    return {first, first + 1, first + 2};
  }
  }
  return {};
}

/// The image tensor a config describes: [N, H, W, bytes a pixel], and
/// [N, H * 3 / 2, W, 1] for YUV420SP (NV12).
mlir::RankedTensorType imageType(mlir::MLIRContext *ctx, const AippConfig &config, int64_t batch,
                                 int64_t height, int64_t width) {
  auto u8 = mlir::IntegerType::get(ctx, 8, mlir::IntegerType::Unsigned);
  switch (config.inputFormat) {
  case AippInputFormat::YUV420SP_U8:
    return mlir::RankedTensorType::get({batch, height * 3 / 2, width, 1}, u8);
  case AippInputFormat::YUV400_U8:
    return mlir::RankedTensorType::get({batch, height, width, 1}, u8);
  case AippInputFormat::RGB888_U8:
    return mlir::RankedTensorType::get({batch, height, width, 3}, u8);
  case AippInputFormat::XRGB8888_U8:
    return mlir::RankedTensorType::get({batch, height, width, 4}, u8);
  }
  return {};
}

/// Resolves one config against the model input it preprocesses (sizes left
/// at 0 come from the input) and inserts its vg.aipp.
bool insertOne(mlir::func::FuncOp main, const AippConfig &config, std::string &error) {
  auto fail = [&](const std::string &field, const std::string &message) {
    error = config.where(field) + ": " + message;
    return false;
  };
  unsigned numInputs = main.getNumArguments();
  if (config.relatedInputRank >= int64_t(numInputs))
    return fail("related_input_rank", "input " + std::to_string(config.relatedInputRank) +
                                          " does not exist (the model has " +
                                          std::to_string(numInputs) + ")");
  unsigned index = unsigned(config.relatedInputRank);
  mlir::BlockArgument input = main.getArgument(index);
  auto nameAttr = main.getArgAttrOfType<mlir::StringAttr>(index, "vg.name");
  std::string name = nameAttr ? nameAttr.str() : "input" + std::to_string(index);
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(input.getType());
  if (!type || type.getRank() != 4 || !type.hasStaticShape() ||
      !llvm::isa<mlir::FloatType>(type.getElementType())) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << input.getType();
    return fail("related_input_rank",
                "input '" + name + "' is " + text +
                    "; AIPP preprocesses a static 4-D float NCHW image (fix dynamic dims with "
                    "--input_shape)");
  }
  int64_t batch = type.getDimSize(0), channels = type.getDimSize(1);
  int64_t height = type.getDimSize(2), width = type.getDimSize(3);
  llvm::SmallVector<int64_t> source = sourceChannels(config);
  if (channels < 1 || channels > int64_t(source.size()) || channels == 2)
    return fail("input_format", std::string(aippInputFormatName(config.inputFormat)) + " gives " +
                                    std::to_string(source.size()) + " channel(s); input '" +
                                    name + "' has " + std::to_string(channels));

  // The image (0: the input's size, less the padding when nothing is
  // cropped) and the crop (all of the image without crop: true; a size of
  // 0: what the input leaves after padding).
  int64_t padW = config.padLeft + config.padRight, padH = config.padTop + config.padBottom;
  int64_t srcW = config.srcImageW ? config.srcImageW : config.crop ? width : width - padW;
  int64_t srcH = config.srcImageH ? config.srcImageH : config.crop ? height : height - padH;
  int64_t cropW = !config.crop ? srcW : config.cropW ? config.cropW : width - padW;
  int64_t cropH = !config.crop ? srcH : config.cropH ? config.cropH : height - padH;
  int64_t startW = config.crop ? config.loadStartW : 0;
  int64_t startH = config.crop ? config.loadStartH : 0;
  auto sized = [&](const char *axis, int64_t crop, int64_t pad, int64_t model,
                   const char *cropField, const char *padField, const char *srcField) {
    if (crop > 0 && crop + pad == model)
      return true;
    const char *field = config.sets(cropField) ? cropField
                        : config.padding       ? padField
                        : config.crop          ? cropField
                                               : srcField;
    return fail(field, std::string("the ") + axis + " after crop (" + std::to_string(crop) +
                           ") and padding (" + std::to_string(pad) + ") is " +
                           std::to_string(crop + pad) + ", and input '" + name + "' [" +
                           std::to_string(batch) + ", " + std::to_string(channels) + ", " +
                           std::to_string(height) + ", " + std::to_string(width) + "] takes " +
                           std::to_string(model));
  };
  if (!sized("width", cropW, padW, width, "crop_size_w", "left_padding_size",
             "src_image_size_w") ||
      !sized("height", cropH, padH, height, "crop_size_h", "top_padding_size",
             "src_image_size_h"))
    return false;
  auto pastField = [&](const char *size, const char *start, const char *src) {
    return config.sets(size) ? size : config.sets(start) ? start : src;
  };
  if (startW + cropW > srcW)
    return fail(pastField("crop_size_w", "load_start_pos_w", "src_image_size_w"),
                "the crop's columns " + std::to_string(startW) + " .. " +
                    std::to_string(startW + cropW) + " reach past the image's width " +
                    std::to_string(srcW));
  if (startH + cropH > srcH)
    return fail(pastField("crop_size_h", "load_start_pos_h", "src_image_size_h"),
                "the crop's rows " + std::to_string(startH) + " .. " +
                    std::to_string(startH + cropH) + " reach past the image's height " +
                    std::to_string(srcH));
  bool yuv420 = config.inputFormat == AippInputFormat::YUV420SP_U8;
  if (yuv420 && (srcW % 2 || srcH % 2 || cropW % 2 || cropH % 2))
    return fail(config.sets("src_image_size_w") ? "src_image_size_w" : "input_format",
                "YUV420SP_U8 needs an even image and crop size, got image " +
                    std::to_string(srcH) + " x " + std::to_string(srcW) + " and crop " +
                    std::to_string(cropH) + " x " + std::to_string(cropW));

  mlir::MLIRContext *ctx = main.getContext();
  mlir::OpBuilder b = mlir::OpBuilder::atBlockBegin(&main.getBody().front());
  std::vector<float> mean, min, varReci;
  for (int64_t c = 0; c < channels; ++c) {
    mean.push_back(float(config.meanChn[c]));
    min.push_back(config.minChn[c]);
    varReci.push_back(config.varReciChn[c]);
  }
  // The op is named after the input it computes, as a node of its own.
  auto loc = mlir::NameLoc::get(b.getStringAttr("aipp:" + name));
  mlir::RankedTensorType image = imageType(ctx, config, batch, srcH, srcW);
  input.setType(image);
  // Built with the input's type and verified (the inference checks every
  // attribute), so that a mistake here is an error, not a crash.
  auto aipp = vinci::vg::AippOp::create(
      b, loc, type, input, b.getStringAttr(aippInputFormatName(config.inputFormat)),
      b.getDenseI64ArrayAttr({startH, startW, cropH, cropW}), b.getDenseI64ArrayAttr(source),
      config.csc ? b.getDenseI64ArrayAttr(config.matrix) : mlir::DenseI64ArrayAttr(),
      b.getDenseI64ArrayAttr(config.inputBias), b.getDenseI64ArrayAttr(config.outputBias),
      b.getDenseF32ArrayAttr(mean), b.getDenseF32ArrayAttr(min), b.getDenseF32ArrayAttr(varReci),
      b.getDenseI64ArrayAttr({config.padTop, config.padBottom, config.padLeft, config.padRight}),
      b.getF32FloatAttr(config.paddingValue), mlir::TypeAttr::get(type.getElementType()));
  if (failed(mlir::verify(aipp))) {
    error = config.where("aipp_op") + ": internal error: the preprocessing does not verify "
                                      "(see the diagnostic above); please report it";
    return false;
  }
  input.replaceAllUsesExcept(aipp.getResult(), aipp);
  llvm::SmallVector<mlir::Type> inputs(main.getArgumentTypes());
  inputs[index] = image;
  main.setType(mlir::FunctionType::get(ctx, inputs, main.getResultTypes()));
  return true;
}

} // namespace

bool insertAipp(mlir::ModuleOp module, const std::vector<AippConfig> &configs,
                std::string &error) {
  auto main = module.lookupSymbol<mlir::func::FuncOp>("main");
  if (!main) {
    error = "the module has no graph function @main";
    return false;
  }
  for (const AippConfig &config : configs)
    if (!insertOne(main, config, error))
      return false;
  return true;
}

} // namespace vinci::driver
