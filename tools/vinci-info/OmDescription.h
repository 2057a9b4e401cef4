// OmDescription.h: everything in a .om container, as vinci-info prints it.
#ifndef VINCI_TOOLS_OMDESCRIPTION_H
#define VINCI_TOOLS_OMDESCRIPTION_H

#include <string>

namespace vinci::describe {

/// Validates `path` as the runtime does (container, metadata, every kernel
/// program decoded for the model's SoC) and describes it in `out`: text, or
/// one JSON document with `json` (every kernel's instructions too with
/// `disassemble`). False with a one-line `error` for an invalid file.
bool describeOm(const std::string& path, bool json, bool disassemble, std::string& out,
                std::string& error);

}  // namespace vinci::describe

#endif  // VINCI_TOOLS_OMDESCRIPTION_H
