//===- Passes.h - Vinci's passes --------------------------------*- C++ -*-===//
#ifndef VINCI_PASSES_PASSES_H
#define VINCI_PASSES_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace vinci {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace vinci

#endif // VINCI_PASSES_PASSES_H
