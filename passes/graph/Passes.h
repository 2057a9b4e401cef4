//===- Passes.h - graph-level rewrites on vg --------------------*- C++ -*-===//
#ifndef VINCI_PASSES_GRAPH_PASSES_H
#define VINCI_PASSES_GRAPH_PASSES_H

#include "mlir/Pass/Pass.h"

namespace vinci::graph {

#define GEN_PASS_DECL
#include "passes/graph/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/graph/Passes.h.inc"

} // namespace vinci::graph

#endif // VINCI_PASSES_GRAPH_PASSES_H
