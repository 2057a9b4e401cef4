//===- Gears.cpp - ATC's dynamic-shape options ----------------------------===//
#include "driver/Gears.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <set>
#include <sstream>

namespace vinci::driver {
namespace {

/// Dims above this are a typo, not a shape: the .om bounds gear values at
/// 2^40, and no tensor a 310P holds comes near 2^31 elements in one dim.
constexpr int64_t kMaxDim = int64_t(1) << 31;

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::stringstream stream(text);
  while (std::getline(stream, part, separator))
    parts.push_back(part);
  if (!text.empty() && text.back() == separator)
    parts.push_back("");
  return parts;
}

std::string trim(const std::string &text) {
  size_t begin = text.find_first_not_of(" \t");
  size_t end = text.find_last_not_of(" \t");
  return begin == std::string::npos ? std::string() : text.substr(begin, end - begin + 1);
}

std::optional<int64_t> parseInt(const std::string &text) {
  std::string digits = trim(text);
  if (digits.empty())
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(digits.c_str(), &end, 10);
  if (*end != '\0' || errno != 0)
    return std::nullopt;
  return value;
}

std::string joined(const std::vector<int64_t> &values, const char *separator = ",") {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? separator : "") + std::to_string(values[i]);
  return text;
}

/// --input_shape "name:d0,d1;name2:..." in order; a dim is -1 or >= 0.
std::string parseInputShapes(const std::string &text, std::vector<InputShape> &inputs) {
  for (const std::string &entry : split(text, ';')) {
    if (trim(entry).empty())
      continue;
    size_t colon = entry.rfind(':');
    if (colon == std::string::npos || colon == 0)
      return "--input_shape entry '" + entry + "' is not name:d0,d1,... (e.g. \"x:1,3,224,224\")";
    InputShape input{entry.substr(0, colon), {}};
    std::string dimsText = entry.substr(colon + 1);
    if (!trim(dimsText).empty())
      for (const std::string &dim : split(dimsText, ',')) {
        std::optional<int64_t> value = parseInt(dim);
        if (!value || *value < -1 || *value > kMaxDim)
          return "--input_shape dim '" + dim + "' of input '" + input.name +
                 "' is not a non-negative integer or -1 (a dim that gears set)";
        input.dims.push_back(*value);
      }
    for (const InputShape &seen : inputs)
      if (seen.name == input.name)
        return "--input_shape names input '" + input.name + "' twice";
    inputs.push_back(std::move(input));
  }
  if (inputs.empty())
    return "--input_shape is empty; expected name:d0,d1,...[;name2:...]";
  return "";
}

/// A gear list: gears separated by ';' (batch sizes also by ','), each
/// `valuesPerGear` comma-separated integers (0: any count).
std::string parseGears(const std::string &option, const std::string &text, bool commaSeparated,
                       size_t valuesPerGear, int64_t minValue,
                       std::vector<std::vector<int64_t>> &gears) {
  std::vector<std::string> entries = split(text, commaSeparated ? ',' : ';');
  for (const std::string &entry : entries) {
    if (trim(entry).empty())
      return option + " \"" + text + "\" has an empty gear; separate gears with '" +
             (commaSeparated ? "," : ";") + "'";
    std::vector<int64_t> values;
    for (const std::string &part : split(entry, ',')) {
      std::optional<int64_t> value = parseInt(part);
      if (!value || *value < minValue || *value > kMaxDim)
        return option + " gear '" + trim(entry) + "': '" + trim(part) + "' is not an integer " +
               (minValue > 0 ? "of at least 1" : "of at least 0");
      values.push_back(*value);
    }
    if (valuesPerGear != 0 && values.size() != valuesPerGear)
      return option + " gear '" + trim(entry) + "' has " + std::to_string(values.size()) +
             " values; each gear has " + std::to_string(valuesPerGear) +
             (option == "--dynamic_image_size" ? " (height,width)"
                                               : " (one per -1 in --input_shape, in order)");
    for (const std::vector<int64_t> &seen : gears)
      if (seen == values)
        return option + " lists gear " + joined(values) + " twice";
    gears.push_back(std::move(values));
  }
  if (gears.size() < kMinGears || gears.size() > kMaxGears)
    return option + " gives " + std::to_string(gears.size()) + " gear" +
           (gears.size() == 1 ? "" : "s") + "; a model has " + std::to_string(kMinGears) + " to " +
           std::to_string(kMaxGears) + " (for one shape, give it in --input_shape)";
  return "";
}

std::string dimText(const GearDim &dim) {
  return "input '" + dim.input + "' dim " + std::to_string(dim.axis);
}

/// Which dims -1 may take for each kind, and which value sets each.
std::string assignValues(GearKind kind, const std::string &format, std::vector<GearDim> &dims) {
  switch (kind) {
  case GearKind::BatchSize:
    for (GearDim &dim : dims) {
      if (dim.axis != 0)
        return "--dynamic_batch_size sets dim 0 (the batch) only, but --input_shape has -1 in " +
               dimText(dim);
      dim.value = 0;
    }
    return "";
  case GearKind::ImageSize: {
    unsigned height = format == "NHWC" ? 1 : 2, width = height + 1;
    std::map<std::string, int> perInput;
    for (GearDim &dim : dims) {
      if (dim.axis != height && dim.axis != width)
        return "--dynamic_image_size with --input_format " + format + " sets dims " +
               std::to_string(height) + " and " + std::to_string(width) +
               " (height, width), but --input_shape has -1 in " + dimText(dim);
      dim.value = dim.axis == height ? 0 : 1;
      ++perInput[dim.input];
    }
    for (const auto &[input, count] : perInput)
      if (count != 2)
        return "--dynamic_image_size needs -1 in both the height and the width of input '" +
               input + "' (dims " + std::to_string(height) + " and " + std::to_string(width) +
               " for " + format + ")";
    return "";
  }
  case GearKind::Dims:
    for (size_t i = 0; i < dims.size(); ++i)
      dims[i].value = static_cast<unsigned>(i);
    return "";
  case GearKind::None:
    break;
  }
  return "";
}

} // namespace

const char *GearPlan::option() const {
  switch (kind) {
  case GearKind::BatchSize: return "--dynamic_batch_size";
  case GearKind::ImageSize: return "--dynamic_image_size";
  case GearKind::Dims: return "--dynamic_dims";
  case GearKind::None: break;
  }
  return "--input_shape";
}

std::string GearPlan::label(size_t index) const { return joined(gears.at(index).values); }

std::map<std::string, std::vector<int64_t>> GearPlan::staticShapes() const {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const InputShape &input : inputs)
    shapes[input.name] = input.dims;
  return shapes;
}

std::string parseGearPlan(const ShapeOptions &options, GearPlan &plan) {
  plan = GearPlan();
  std::vector<std::pair<GearKind, const std::string *>> given;
  if (!options.batchSizes.empty())
    given.push_back({GearKind::BatchSize, &options.batchSizes});
  if (!options.imageSizes.empty())
    given.push_back({GearKind::ImageSize, &options.imageSizes});
  if (!options.dims.empty())
    given.push_back({GearKind::Dims, &options.dims});
  if (given.size() > 1) {
    GearPlan first, second;
    first.kind = given[0].first;
    second.kind = given[1].first;
    return std::string("--dynamic_batch_size, --dynamic_image_size and --dynamic_dims are "
                       "mutually exclusive; ") +
           first.option() + " and " + second.option() + " are both given";
  }
  std::string format = options.inputFormat;
  std::transform(format.begin(), format.end(), format.begin(), ::toupper);
  if (!format.empty() && format != "NCHW" && format != "NHWC" && format != "ND")
    return "unknown --input_format '" + options.inputFormat + "' (known: NCHW, NHWC, ND)";

  if (!options.inputShape.empty()) {
    std::string error = parseInputShapes(options.inputShape, plan.inputs);
    if (!error.empty())
      return error;
  }
  for (const InputShape &input : plan.inputs)
    for (size_t d = 0; d < input.dims.size(); ++d)
      if (input.dims[d] == -1)
        plan.dims.push_back({0, input.name, static_cast<unsigned>(d)});

  if (given.empty()) {
    if (!plan.dims.empty())
      return "--input_shape has -1 in " + dimText(plan.dims.front()) +
             ": give its gears with --dynamic_batch_size, --dynamic_image_size or "
             "--dynamic_dims, or fix the dim";
    return "";
  }
  plan.kind = given[0].first;
  const std::string option = plan.option();
  const std::string &text = *given[0].second;
  if (plan.dims.empty())
    return option + " needs --input_shape with -1 in the dims it sets (e.g. " +
           (plan.kind == GearKind::BatchSize   ? "\"x:-1,3,224,224\""
            : plan.kind == GearKind::ImageSize ? "\"x:1,3,-1,-1\""
                                               : "\"input_ids:1,-1\"") +
           ")";
  if (plan.kind == GearKind::ImageSize) {
    if (format.empty())
      format = "NCHW";
    if (format == "ND")
      return "--dynamic_image_size needs --input_format NCHW or NHWC (the height and width "
             "dims), not ND";
  } else if (plan.kind == GearKind::Dims) {
    if (format.empty())
      format = "ND";
    if (format != "ND")
      return "--dynamic_dims needs --input_format ND, not " + format +
             " (--dynamic_image_size takes image gears)";
  }
  if (std::string error = assignValues(plan.kind, format, plan.dims); !error.empty())
    return error;

  std::vector<std::vector<int64_t>> values;
  size_t perGear = plan.kind == GearKind::BatchSize   ? 1
                   : plan.kind == GearKind::ImageSize ? 2
                                                      : plan.dims.size();
  // Batch sizes "1,2,4,8" are one value a gear; ATC also takes ';'.
  bool commaSeparated = plan.kind == GearKind::BatchSize && text.find(';') == std::string::npos;
  // Sizes and batches are at least 1; a dim may be 0 (an empty KV cache).
  int64_t minValue = plan.kind == GearKind::Dims ? 0 : 1;
  if (std::string error = parseGears(option, text, commaSeparated, perGear, minValue, values);
      !error.empty())
    return error;
  for (std::vector<int64_t> &gearValues : values) {
    Gear gear;
    gear.shapes = plan.staticShapes();
    for (const GearDim &dim : plan.dims)
      gear.shapes[dim.input][dim.axis] = gearValues[dim.value];
    gear.values = std::move(gearValues);
    plan.gears.push_back(std::move(gear));
  }
  return "";
}

} // namespace vinci::driver
