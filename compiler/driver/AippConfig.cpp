//===- AippConfig.cpp - --insert_op_conf: ATC's AIPP configuration --------===//
#include "driver/AippConfig.h"

#include "aipp_config.pb.h" // generated from aipp_config.proto

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace vinci::driver {
namespace {

namespace pb = google::protobuf;
using vinci::aipp::AippOp;

/// Collects the parser's first error as "FILE:LINE: message" (protobuf
/// numbers lines from 0).
class FirstError : public pb::io::ErrorCollector {
public:
  explicit FirstError(std::string path) : path(std::move(path)) {}
  void AddError(int line, pb::io::ColumnNumber, const std::string &message) override {
    if (!text.empty())
      return;
    // Protobuf names the message types; the file knows them as blocks.
    std::string readable = message;
    for (auto [type, block] : {std::pair<std::string, std::string>{"Message type \"vinci.aipp.AippOp\"", "aipp_op"},
                               {"Message type \"vinci.aipp.InsertNewOps\"", "the top level"}})
      if (size_t at = readable.find(type); at != std::string::npos)
        readable.replace(at, type.size(), block);
    text = path + ":" + std::to_string(line + 1) + ": " + readable;
  }
  std::string path, text;
};

/// The checks of one block: each returns false with `error` set.
class BlockChecker {
public:
  BlockChecker(const AippOp &op, AippConfig &config, std::string &error)
      : op(op), config(config), error(error) {}

  bool fail(const std::string &field, const std::string &message) {
    error = config.where(field) + ": " + message;
    return false;
  }

  /// `field` (an integer or float) within [low, high].
  bool inRange(const std::string &field, double value, double low, double high,
               const char *what = "") {
    if (std::isfinite(value) && value >= low && value <= high)
      return true;
    std::ostringstream message;
    message << value << " is outside [" << low << ", " << high << "]" << what;
    return fail(field, message.str());
  }

  bool even(const std::string &field, int64_t value) {
    if (value % 2 == 0)
      return true;
    return fail(field, std::to_string(value) +
                           " is odd; YUV420SP_U8 shares each UV pair between 2 x 2 pixels, so it "
                           "must be even");
  }

  /// A field set while the switch that enables it is off.
  bool notWithout(const std::string &field, bool on, const std::string &switchName) {
    if (on || !config.sets(field))
      return true;
    return fail(field, "is set but " + switchName + " is false (set " + switchName +
                           ": true, or remove the field)");
  }

  bool run();

private:
  const AippOp &op;
  AippConfig &config;
  std::string &error;
};

bool BlockChecker::run() {
  if (!op.has_aipp_mode())
    return fail("aipp_mode", "missing: Vinci implements static AIPP (aipp_mode: static)");
  if (op.aipp_mode() != AippOp::static_)
    return fail("aipp_mode", AippOp::AippMode_Name(op.aipp_mode()) +
                                 " AIPP is not supported: Vinci implements aipp_mode: static");
  for (const char *field : {"max_src_image_size", "support_rotation"})
    if (config.sets(field))
      return fail(field, "belongs to dynamic AIPP; static AIPP takes its values from this file");

  if (!op.has_input_format())
    return fail("input_format", "missing: one of YUV420SP_U8, RGB888_U8, XRGB8888_U8, YUV400_U8");
  switch (op.input_format()) {
  case AippOp::YUV420SP_U8: config.inputFormat = AippInputFormat::YUV420SP_U8; break;
  case AippOp::XRGB8888_U8: config.inputFormat = AippInputFormat::XRGB8888_U8; break;
  case AippOp::RGB888_U8: config.inputFormat = AippInputFormat::RGB888_U8; break;
  case AippOp::YUV400_U8: config.inputFormat = AippInputFormat::YUV400_U8; break;
  default:
    return fail("input_format", AippOp::InputFormat_Name(op.input_format()) +
                                    " is not supported (Vinci takes YUV420SP_U8, RGB888_U8, "
                                    "XRGB8888_U8, YUV400_U8)");
  }
  const bool yuv420 = config.inputFormat == AippInputFormat::YUV420SP_U8;
  const bool gray = config.inputFormat == AippInputFormat::YUV400_U8;
  const bool rgbInput = config.inputFormat == AippInputFormat::RGB888_U8 ||
                        config.inputFormat == AippInputFormat::XRGB8888_U8;
  config.relatedInputRank = op.related_input_rank();

  // Image size, crop.
  config.srcImageW = op.src_image_size_w();
  config.srcImageH = op.src_image_size_h();
  if (!inRange("src_image_size_w", config.srcImageW, 0, 4096, " (0: the model input's width)") ||
      !inRange("src_image_size_h", config.srcImageH, 0, 4096, " (0: the model input's height)"))
    return false;
  if (yuv420 && (!even("src_image_size_w", config.srcImageW) ||
                 !even("src_image_size_h", config.srcImageH)))
    return false;
  config.crop = op.crop();
  for (const char *field : {"load_start_pos_w", "load_start_pos_h", "crop_size_w", "crop_size_h"})
    if (!notWithout(field, config.crop, "crop"))
      return false;
  config.loadStartW = op.load_start_pos_w();
  config.loadStartH = op.load_start_pos_h();
  config.cropW = op.crop_size_w();
  config.cropH = op.crop_size_h();
  if (!inRange("load_start_pos_w", config.loadStartW, 0, 4095) ||
      !inRange("load_start_pos_h", config.loadStartH, 0, 4095) ||
      !inRange("crop_size_w", config.cropW, 0, 4096, " (0: the model input's width)") ||
      !inRange("crop_size_h", config.cropH, 0, 4096, " (0: the model input's height)"))
    return false;
  if (yuv420 && (!even("load_start_pos_w", config.loadStartW) ||
                 !even("load_start_pos_h", config.loadStartH) ||
                 !even("crop_size_w", config.cropW) || !even("crop_size_h", config.cropH)))
    return false;
  auto fits = [&](const char *startField, int64_t start, const char *sizeField, int64_t size,
                  const char *srcField, int64_t src) {
    if (src == 0 || start + size <= src)
      return true;
    return fail(config.sets(sizeField) ? sizeField : startField,
                std::string(startField) + " " + std::to_string(start) + " + " + sizeField + " " +
                    std::to_string(size) + " = " + std::to_string(start + size) +
                    " reaches past " + srcField + " " + std::to_string(src));
  };
  if (!fits("load_start_pos_w", config.loadStartW, "crop_size_w", std::max<int64_t>(config.cropW, 1),
            "src_image_size_w", config.srcImageW) ||
      !fits("load_start_pos_h", config.loadStartH, "crop_size_h", std::max<int64_t>(config.cropH, 1),
            "src_image_size_h", config.srcImageH))
    return false;

  if (op.resize())
    return fail("resize", "resize is not supported by Vinci's AIPP (crop and pad the image to "
                          "the model's size, or resize it before)");
  for (const char *field : {"resize_output_w", "resize_output_h"})
    if (config.sets(field))
      return fail(field, "resize is not supported by Vinci's AIPP");
  if (op.single_line_mode())
    return fail("single_line_mode", "single-line mode is not supported by Vinci's AIPP");

  // Padding.
  config.padding = op.padding();
  for (const char *field : {"left_padding_size", "right_padding_size", "top_padding_size",
                            "bottom_padding_size", "padding_value"})
    if (!notWithout(field, config.padding, "padding"))
      return false;
  config.padLeft = op.left_padding_size();
  config.padRight = op.right_padding_size();
  config.padTop = op.top_padding_size();
  config.padBottom = op.bottom_padding_size();
  config.paddingValue = op.padding_value();
  if (!inRange("left_padding_size", config.padLeft, 0, 32) ||
      !inRange("right_padding_size", config.padRight, 0, 32) ||
      !inRange("top_padding_size", config.padTop, 0, 32) ||
      !inRange("bottom_padding_size", config.padBottom, 0, 32) ||
      !inRange("padding_value", config.paddingValue, -65504, 65504))
    return false;

  // Channel swaps and colour-space conversion.
  config.rbuvSwap = op.rbuv_swap_switch();
  config.axSwap = op.ax_swap_switch();
  if (config.rbuvSwap && gray)
    return fail("rbuv_swap_switch", "YUV400_U8 has one channel: there is nothing to swap");
  if (config.axSwap && config.inputFormat != AippInputFormat::XRGB8888_U8)
    return fail("ax_swap_switch", std::string("swaps the X channel of XRGB8888_U8; ") +
                                      aippInputFormatName(config.inputFormat) + " has none");
  config.csc = op.csc_switch();
  if (config.csc && gray)
    return fail("csc_switch", "YUV400_U8 has one channel: colour-space conversion does not apply");
  const int64_t matrix[9] = {op.matrix_r0c0(), op.matrix_r0c1(), op.matrix_r0c2(),
                             op.matrix_r1c0(), op.matrix_r1c1(), op.matrix_r1c2(),
                             op.matrix_r2c0(), op.matrix_r2c1(), op.matrix_r2c2()};
  for (int i = 0; i < 9; ++i) {
    std::string field = "matrix_r" + std::to_string(i / 3) + "c" + std::to_string(i % 3);
    if (!notWithout(field, config.csc, "csc_switch") || !inRange(field, matrix[i], -32677, 32676))
      return false;
    config.matrix[i] = matrix[i];
  }
  const int64_t inputBias[3] = {op.input_bias_0(), op.input_bias_1(), op.input_bias_2()};
  const int64_t outputBias[3] = {op.output_bias_0(), op.output_bias_1(), op.output_bias_2()};
  for (int i = 0; i < 3; ++i) {
    std::string in = "input_bias_" + std::to_string(i), out = "output_bias_" + std::to_string(i);
    if (!notWithout(in, config.csc, "csc_switch") || !notWithout(out, config.csc, "csc_switch") ||
        !inRange(in, inputBias[i], 0, 255) || !inRange(out, outputBias[i], 0, 255))
      return false;
    // YUV -> RGB subtracts input_bias before the matrix; RGB -> YUV adds
    // output_bias after it (ATC's CSC formulas).
    if (rgbInput && config.sets(in))
      return fail(in, "applies to YUV input (YUV -> RGB); RGB -> YUV adds output_bias_" +
                          std::to_string(i) + " instead");
    if (!rgbInput && config.sets(out))
      return fail(out, "applies to RGB input (RGB -> YUV); YUV -> RGB subtracts input_bias_" +
                           std::to_string(i) + " instead");
    config.inputBias[i] = config.csc && !rgbInput ? inputBias[i] : 0;
    config.outputBias[i] = config.csc && rgbInput ? outputBias[i] : 0;
  }

  // Normalisation: (x - mean_chn_i - min_chn_i) * var_reci_chn_i per output channel.
  const int64_t mean[4] = {op.mean_chn_0(), op.mean_chn_1(), op.mean_chn_2(), op.mean_chn_3()};
  const float min[4] = {op.min_chn_0(), op.min_chn_1(), op.min_chn_2(), op.min_chn_3()};
  const float varReci[4] = {op.var_reci_chn_0(), op.var_reci_chn_1(), op.var_reci_chn_2(),
                            op.var_reci_chn_3()};
  const int channels = gray ? 1 : 3;
  for (int i = 0; i < 4; ++i) {
    std::string c = std::to_string(i);
    for (const std::string &field : {"mean_chn_" + c, "min_chn_" + c, "var_reci_chn_" + c})
      if (i >= channels && config.sets(field))
        return fail(field, std::string("normalises output channel ") + c + ", and " +
                               aippInputFormatName(config.inputFormat) + " gives " +
                               std::to_string(channels) + " (Vinci's AIPP outputs no alpha "
                               "channel)");
    if (!inRange("mean_chn_" + c, mean[i], 0, 255) || !inRange("min_chn_" + c, min[i], 0, 255) ||
        !inRange("var_reci_chn_" + c, varReci[i], -65504, 65504))
      return false;
    config.meanChn[i] = mean[i];
    config.minChn[i] = min[i];
    config.varReciChn[i] = varReci[i];
  }
  return true;
}

/// Records the line of every field the block sets.
void recordLines(const AippOp &op, const pb::TextFormat::ParseInfoTree &tree,
                 AippConfig &config) {
  const pb::Descriptor *descriptor = AippOp::descriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const pb::FieldDescriptor *field = descriptor->field(i);
    if (!op.GetReflection()->HasField(op, field))
      continue;
    pb::TextFormat::ParseLocation at = tree.GetLocation(field, -1);
    config.fieldLines[field->name()] = at.line >= 0 ? at.line + 1 : config.line;
  }
}

} // namespace

const char *aippInputFormatName(AippInputFormat format) {
  switch (format) {
  case AippInputFormat::YUV420SP_U8: return "YUV420SP_U8";
  case AippInputFormat::XRGB8888_U8: return "XRGB8888_U8";
  case AippInputFormat::RGB888_U8: return "RGB888_U8";
  case AippInputFormat::YUV400_U8: return "YUV400_U8";
  }
  return "?";
}

std::string AippConfig::where(const std::string &field) const {
  auto found = fieldLines.find(field);
  return path + ":" + std::to_string(found == fieldLines.end() ? line : found->second) + ": " +
         field;
}

bool parseAippConfig(const std::string &path, std::vector<AippConfig> &configs,
                     std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = path + ": cannot read the file (" + std::strerror(errno) + ")";
    return false;
  }
  std::stringstream text;
  text << file.rdbuf();

  vinci::aipp::InsertNewOps parsed;
  pb::TextFormat::Parser parser;
  FirstError errors(path);
  pb::TextFormat::ParseInfoTree tree;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&tree);
  if (!parser.ParseFromString(text.str(), &parsed)) {
    error = errors.text.empty() ? path + ": not an AIPP configuration" : errors.text;
    return false;
  }
  if (parsed.aipp_op_size() == 0) {
    error = path + ":1: aipp_op: the file has no aipp_op { ... } block";
    return false;
  }
  const pb::FieldDescriptor *blockField = vinci::aipp::InsertNewOps::descriptor()->FindFieldByName("aipp_op");
  std::set<int64_t> inputs;
  configs.clear();
  for (int index = 0; index < parsed.aipp_op_size(); ++index) {
    AippConfig config;
    config.path = path;
    config.line = tree.GetLocation(blockField, index).line + 1;
    if (const pb::TextFormat::ParseInfoTree *nested = tree.GetTreeForNested(blockField, index))
      recordLines(parsed.aipp_op(index), *nested, config);
    BlockChecker checker(parsed.aipp_op(index), config, error);
    if (!checker.run())
      return false;
    if (!inputs.insert(config.relatedInputRank).second) {
      error = config.where("related_input_rank") + ": input " +
              std::to_string(config.relatedInputRank) +
              " already has an aipp_op block (one block an input)";
      return false;
    }
    configs.push_back(std::move(config));
  }
  return true;
}

} // namespace vinci::driver
