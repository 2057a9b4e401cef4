//===- Passes.h - the kernel layer's passes ---------------------*- C++ -*-===//
//
// vinci-lower-kernels (backend/lower/) and the dv passes vinci-allocate-buffers
// and vinci-insert-sync (backend/dv/), declared in backend/Passes.td; and the
// templates' capabilities, which the partition asks.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_PASSES_H
#define VINCI_BACKEND_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace vinci {
class KernelCapabilities;
} // namespace vinci

namespace vinci::backend {

#define GEN_PASS_DECL
#include "backend/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "backend/Passes.h.inc"

/// Registers the kernel layer's passes and installs templateCapabilities()
/// as the ones a registry-made vinci-partition-kernels asks (vinci-opt).
void registerVinciBackendPasses();

/// The templates' answer to the partition's question (passes/KernelRules'
/// KernelCapabilities): a kernel lowers when the template vinci-lower-kernels
/// would choose for it takes it.
const KernelCapabilities &templateCapabilities();

} // namespace vinci::backend

#endif // VINCI_BACKEND_PASSES_H
