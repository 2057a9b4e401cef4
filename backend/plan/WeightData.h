//===- WeightData.h - a constant's bytes in device layout ---------*- C++ -*-===//
//
// What a weight looks like in GM: its elements in the storage type the
// kernel that reads it takes (f32 becomes fp16 under force_fp16, rounded to
// nearest even; bools one byte each), and, for Cube operands that a kernel
// takes in FRACTAL_NZ, that layout. Shared by the writers of device images
// (the .om, the Ascend C export).
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_PLAN_WEIGHTDATA_H
#define VINCI_BACKEND_PLAN_WEIGHTDATA_H

#include "vg/VgOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vinci::backend {

/// The bytes of `constant` stored as `storage`. Returns false with a
/// one-line message when the constant cannot be stored so.
bool weightBytes(vg::ConstantOp constant, mlir::Type storage, std::vector<uint8_t> &bytes,
                 std::string &error);

/// A [rows, cols] row-major matrix of `elementBytes`-byte elements in
/// FRACTAL_NZ: [cols/16][rows padded to 16][16], zero padded (docs/isa.md).
std::vector<uint8_t> toFractalNz(const std::vector<uint8_t> &dense, int64_t rows, int64_t cols,
                                 unsigned elementBytes);

} // namespace vinci::backend

#endif // VINCI_BACKEND_PLAN_WEIGHTDATA_H
