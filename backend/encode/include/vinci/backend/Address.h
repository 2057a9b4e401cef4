//===- Address.h - the ISA operand address of a dv buffer ---------*- C++ -*-===//
//
// A dv operand (a kernel argument, a placed dv.alloc, or a dv.view chain over
// one) denotes the ISA's affine address (docs/isa.md, "Encoding"):
//   offset = base + sum iv[d] * iv_d + block terms,
// where the block terms are blockWhole * block_idx, or with a split G,
// blockMod * (block_idx mod G) + blockDiv * (block_idx floordiv G), all in
// bytes. The encoder turns it into an ISA operand; the Ascend C exporter into
// a tensor offset expression.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_ADDRESS_H
#define VINCI_BACKEND_ADDRESS_H

#include <cstdint>
#include <string>

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace vinci::backend {

/// Loop depths an address can name (the ISA's nesting limit).
inline constexpr unsigned kAddressLoopDepth = 4;

struct OperandAddress {
  uint8_t space = 0;  // soc::Space (GM 0)
  uint8_t arg = 0;    // GM argument index
  int64_t base = 0;
  int64_t iv[kAddressLoopDepth] = {};
  int64_t blockWhole = 0;  // coefficient of block_idx
  int64_t blockMod = 0;    // of block_idx mod G
  int64_t blockDiv = 0;    // of block_idx floordiv G
  int64_t split = 0;       // G; 0 = none
  /// The chain's root: the kernel argument or the dv.alloc the view chain
  /// starts from.
  mlir::Value root;
};

/// Resolves `buffer` as used by `user` inside `kernel`. On failure returns
/// failure with `where` (the op at fault) and a one-line `message`.
mlir::LogicalResult resolveAddress(mlir::Operation *kernel, mlir::Operation *user,
                                   mlir::Value buffer, OperandAddress &out,
                                   mlir::Operation *&where, std::string &message);

}  // namespace vinci::backend

#endif  // VINCI_BACKEND_ADDRESS_H
