//===- Gears.h - ATC's dynamic-shape options ------------------*- C++ -*-===//
//
// --input_shape with -1 in some dims, and one of --dynamic_batch_size
// "1,2,4,8", --dynamic_image_size "416,416;832,832" (with --input_format
// NCHW or NHWC) or --dynamic_dims "32;64;128" (--input_format ND): the
// gears, each a static shape the model is compiled for (docs/gears.md).
// Parsing follows ATC's rules and reports every fault as one line naming
// the option; the result says, for each gear, every input's shape.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_COMPILER_DRIVER_GEARS_H
#define VINCI_COMPILER_DRIVER_GEARS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace vinci::driver {

/// Which option gives the gears; the values are the .om's GearKind.
enum class GearKind { None = 0, BatchSize = 1, ImageSize = 2, Dims = 3 };

/// ATC allows 2 to 100 gears.
inline constexpr size_t kMinGears = 2;
inline constexpr size_t kMaxGears = 100;

/// One --input_shape entry, in the order given; -1 marks a dim gears set.
struct InputShape {
  std::string name;
  std::vector<int64_t> dims;
};

/// A -1 of --input_shape and the gear value that sets it.
struct GearDim {
  unsigned value = 0;  // index into Gear::values
  std::string input;
  unsigned axis = 0;
};

struct Gear {
  std::vector<int64_t> values;                         // as the option gave them
  std::map<std::string, std::vector<int64_t>> shapes;  // every --input_shape input
};

struct GearPlan {
  GearKind kind = GearKind::None;
  std::vector<InputShape> inputs;  // --input_shape, in order
  std::vector<GearDim> dims;       // one per -1, in --input_shape order
  std::vector<Gear> gears;         // empty: static shapes

  bool hasGears() const { return kind != GearKind::None; }
  /// The option that gave the gears, e.g. "--dynamic_dims".
  const char *option() const;
  /// Gear `index` as its option spells it: "8", "416,416", "1,128".
  std::string label(size_t index) const;
  /// The static shapes (no gears): every --input_shape input.
  std::map<std::string, std::vector<int64_t>> staticShapes() const;
};

/// The options that decide the shapes, as vinci-compile spells them.
struct ShapeOptions {
  std::string inputShape;   // --input_shape
  std::string batchSizes;   // --dynamic_batch_size "1,2,4,8"
  std::string imageSizes;   // --dynamic_image_size "h,w;h,w"
  std::string dims;         // --dynamic_dims "v,v;v,v"
  std::string inputFormat;  // --input_format NCHW, NHWC or ND
};

/// Parses and checks the shape options with ATC's rules. Returns "" and
/// fills `plan`, or a one-line error naming the option and the fault.
std::string parseGearPlan(const ShapeOptions &options, GearPlan &plan);

} // namespace vinci::driver

#endif // VINCI_COMPILER_DRIVER_GEARS_H
