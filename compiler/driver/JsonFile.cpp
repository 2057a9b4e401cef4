//===- JsonFile.cpp - an option's JSON file, read whole -------------------===//
#include "driver/JsonFile.h"

#include "llvm/Support/MemoryBuffer.h"

namespace vinci::driver {

std::optional<llvm::json::Value> readJsonFile(const std::string &path, std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = "cannot read it: " + buffer.getError().message();
    return std::nullopt;
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse((*buffer)->getBuffer());
  if (!parsed) {
    error = "not valid JSON: " + llvm::toString(parsed.takeError());
    return std::nullopt;
  }
  return std::move(*parsed);
}

} // namespace vinci::driver
