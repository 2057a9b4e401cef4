//===- AippConfig.h - --insert_op_conf: ATC's AIPP configuration -*- C++ -*-===//
//
// The configuration file of ATC's static AIPP (image preprocessing on the AI
// Core), in ATC's text format:
//
//     aipp_op {
//       aipp_mode: static
//       input_format: RGB888_U8
//       src_image_size_w: 256
//       src_image_size_h: 256
//       crop: true
//       load_start_pos_w: 16
//       load_start_pos_h: 16
//       crop_size_w: 224
//       crop_size_h: 224
//       min_chn_0: 123.675
//       var_reci_chn_0: 0.0171247538316637
//       ...
//     }
//
// parseAippConfig reads it (protobuf's text format over aipp_config.proto)
// and checks every value on its own; what depends on the model (its input's
// shape) is checked where the preprocessing is inserted (InsertAipp.h).
// Every error is one line naming the file, the line and the field.
// Plain C++ (no protobuf, no MLIR) so that the driver can include it.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_COMPILER_DRIVER_AIPPCONFIG_H
#define VINCI_COMPILER_DRIVER_AIPPCONFIG_H

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace vinci::driver {

/// The image formats Vinci's AIPP takes, as ATC spells them.
enum class AippInputFormat { YUV420SP_U8, XRGB8888_U8, RGB888_U8, YUV400_U8 };

const char *aippInputFormatName(AippInputFormat format);

/// One aipp_op block, with ATC's defaults filled in.
struct AippConfig {
  std::string path;   // the file, for messages
  int line = 0;       // where the aipp_op block starts (1-based)
  /// Line of each field the file sets, by field name.
  std::map<std::string, int> fieldLines;

  int64_t relatedInputRank = 0;
  AippInputFormat inputFormat = AippInputFormat::RGB888_U8;
  int64_t srcImageW = 0, srcImageH = 0; // 0: the model input's size

  bool crop = false;
  int64_t loadStartW = 0, loadStartH = 0;
  int64_t cropW = 0, cropH = 0;         // 0: what the model input leaves after padding

  bool padding = false;
  int64_t padLeft = 0, padRight = 0, padTop = 0, padBottom = 0;
  float paddingValue = 0;

  bool csc = false;
  bool rbuvSwap = false;
  bool axSwap = false;
  std::array<int64_t, 9> matrix{};      // row-major, matrix_r<i>c<j>
  std::array<int64_t, 3> inputBias{};
  std::array<int64_t, 3> outputBias{};

  std::array<int64_t, 4> meanChn{};
  std::array<float, 4> minChn{};
  std::array<float, 4> varReciChn{};

  /// "FILE:LINE: FIELD" for a message about `field` (the block's line when
  /// the file leaves the field at its default).
  std::string where(const std::string &field) const;
  /// Whether the file sets `field`.
  bool sets(const std::string &field) const { return fieldLines.count(field) != 0; }
};

/// Reads an --insert_op_conf file: one AippConfig per aipp_op block, in
/// order. False with a one-line `error` ("FILE:LINE: FIELD: what is wrong")
/// for a file that cannot be read or parsed, a value out of its range, a
/// field that contradicts another, or a feature Vinci does not implement
/// (dynamic mode, resize, the formats other than the four above).
bool parseAippConfig(const std::string &path, std::vector<AippConfig> &configs,
                     std::string &error);

} // namespace vinci::driver

#endif // VINCI_COMPILER_DRIVER_AIPPCONFIG_H
