//===- Passes.h - the kernel layer's passes ---------------------*- C++ -*-===//
//
// vinci-lower-kernels (backend/lower/) and the dv passes vinci-allocate-buffers
// and vinci-insert-sync (backend/dv/), declared in backend/Passes.td.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_PASSES_H
#define VINCI_BACKEND_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace vinci::backend {

#define GEN_PASS_DECL
#include "backend/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "backend/Passes.h.inc"

} // namespace vinci::backend

#endif // VINCI_BACKEND_PASSES_H
