//===- CompileBridge.h - the Driver for the Python extension --------------===//
//
// The pybind11 module is built with RTTI and exceptions; MLIR and LLVM are
// not. This header keeps the two apart: standard-library types only, and the
// implementation (CompileBridge.cpp) is compiled like the rest of the
// compiler.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_PYTHON_COMPILEBRIDGE_H
#define VINCI_PYTHON_COMPILEBRIDGE_H

#include "driver/Driver.h"
#include "torch/GraphSpec.h"

#include <string>

namespace vinci::python {

struct CompileResult {
  int exitCode = 0;   // vinci-compile's: 0 ok, 1 unsupported model, 2 bad input
  std::string output; // IR text when no output file was given
  std::string log;    // what vinci-compile prints on stderr: errors, or the summary line
};

/// vinci-compile on an ONNX file (or the --framework pytorch route).
CompileResult compileFile(const driver::CompileOptions &options);

/// vinci-compile on a graph from the PyTorch front end; `graph`'s buffers
/// must stay alive until this returns.
CompileResult compileGraph(const driver::CompileOptions &options,
                           const torch_import::GraphSpec &graph);

} // namespace vinci::python

#endif // VINCI_PYTHON_COMPILEBRIDGE_H
