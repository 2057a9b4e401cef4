//===- GraphSpec.h - a vg graph described by a front end in Python --------===//
//
// What the PyTorch front end (python/vinci/torch_import.py) hands to C++:
// the aten graph already mapped to vg op names, as plain standard-library
// data so that the pybind11 extension can fill it without MLIR headers.
// Weights travel as pointers to the caller's bytes (numpy buffers), never as
// text; the caller keeps them alive until the compilation returns.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_COMPILER_TORCH_GRAPHSPEC_H
#define VINCI_COMPILER_TORCH_GRAPHSPEC_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vinci::torch_import {

/// A graph input or a constant's type. `elementType` is spelled as in MLIR
/// (f32, f16, bf16, i64, i32, i8, ui8, i1).
struct TensorSpec {
  std::string name;
  std::string elementType;
  std::vector<int64_t> shape;
};

struct ConstantSpec {
  TensorSpec tensor;
  const void *data = nullptr; // the caller's bytes, C order, little-endian
  size_t bytes = 0;
};

/// One vg op. Operands index the graph's values: the inputs first, then the
/// constants, then every node's results in node order. Attribute values are
/// MLIR attribute syntax (e.g. "1 : i64", "array<i64: 0, 2, 1, 3>",
/// "0x3727C5AC : f32"); shapes and weights never go through them.
struct NodeSpec {
  std::string op;     // e.g. "vg.matmul"
  std::string source; // the torch node it comes from (becomes its location)
  std::vector<int64_t> operands;
  std::vector<std::pair<std::string, std::string>> attributes;
  int numResults = 1;
};

struct GraphSpec {
  std::string name;
  std::vector<TensorSpec> inputs;
  std::vector<ConstantSpec> constants;
  std::vector<NodeSpec> nodes;
  std::vector<std::pair<int64_t, std::string>> outputs; // value index, output name
};

} // namespace vinci::torch_import

#endif // VINCI_COMPILER_TORCH_GRAPHSPEC_H
