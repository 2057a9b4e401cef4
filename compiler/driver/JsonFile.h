//===- JsonFile.h - an option's JSON file, read whole -------------*- C++ -*-===//
#ifndef VINCI_COMPILER_DRIVER_JSONFILE_H
#define VINCI_COMPILER_DRIVER_JSONFILE_H

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace vinci::driver {

/// The JSON value in `path`, or nullopt with `error` saying why ("cannot
/// read it: ..." or "not valid JSON: ..."; the caller names the option).
std::optional<llvm::json::Value> readJsonFile(const std::string &path, std::string &error);

} // namespace vinci::driver

#endif // VINCI_COMPILER_DRIVER_JSONFILE_H
