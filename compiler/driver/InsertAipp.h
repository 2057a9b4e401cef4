//===- InsertAipp.h - static AIPP at the model's image inputs ---*- C++ -*-===//
//
// --insert_op_conf: each aipp_op block turns model input
// `related_input_rank` (a float NCHW image) into the uint8 image the block
// describes, followed by one vg.aipp that computes what the model took:
//
//   func.func @main(%x: tensor<1x3x224x224xf32> {vg.name = "x"}) ...
// becomes
//   func.func @main(%x: tensor<1x256x256x3xui8> {vg.name = "x"}) {
//     %0 = vg.aipp %x {input_format = "RGB888_U8", crop = ...} -> tensor<1x3x224x224xf32>
//     ... (every use of the old input reads %0)
//
// The input keeps its name; its descriptor in the .om is the image's.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_COMPILER_DRIVER_INSERTAIPP_H
#define VINCI_COMPILER_DRIVER_INSERTAIPP_H

#include "driver/AippConfig.h"

#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
}

namespace vinci::driver {

/// Inserts one vg.aipp per config into @main of `module`. False with a
/// one-line `error` ("FILE:LINE: FIELD: ...") when the model input does not
/// fit the config: no such input, not a static 4-D float NCHW tensor, a
/// channel count the format cannot give, or a crop and padding whose size
/// is not the input's.
bool insertAipp(mlir::ModuleOp module, const std::vector<AippConfig> &configs,
                std::string &error);

} // namespace vinci::driver

#endif // VINCI_COMPILER_DRIVER_INSERTAIPP_H
