// vinci-info: print everything in a .om container.
//
//   vinci-info m.om [--json] [--disassemble]
//
// The file is validated exactly as the runtime validates it (container,
// metadata, and every kernel program decoded for the model's SoC) before
// anything is printed; an invalid file is one line on stderr and exit 1.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <string>

#include "OmDescription.h"

int main(int argc, char** argv) {
  std::string path;
  bool json = false, disassemble = false;
  CLI::App app{"Describe a compiled Vinci .om model"};
  app.add_option("model", path, "the .om file")->required();
  app.add_flag("--json", json, "print one JSON document");
  app.add_flag("--disassemble", disassemble, "print every kernel's instructions");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  std::string out, error;
  if (!vinci::describe::describeOm(path, json, disassemble, out, error)) {
    fmt::print(stderr, "vinci-info: error: {}\n", error);
    return 1;
  }
  fmt::print("{}", out);
  return 0;
}
