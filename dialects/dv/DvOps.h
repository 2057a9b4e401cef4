//===- DvOps.h - the dv Da Vinci kernel dialect -----------------*- C++ -*-===//
#ifndef VINCI_DIALECTS_DV_DVOPS_H
#define VINCI_DIALECTS_DV_DVOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dv/DvOpsDialect.h.inc"
#include "dv/DvOpsEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dv/DvOpsTypes.h.inc"

#include "dv/DvOpsInterfaces.h.inc"

namespace vinci::soc {
struct SocSpec;
}

namespace vinci::dv {

/// The SoC that `op` targets: the nearest enclosing `dv.soc` module attribute,
/// or the default (Ascend310P3) when none is set or the name is unknown (the
/// attribute verifier reports unknown names).
const soc::SocSpec &getSoc(mlir::Operation *op);

/// Bytes of one element of a dv element type (f16, bf16, f32, i8, ui8, i32);
/// 0 for any other type.
unsigned elementBytes(mlir::Type type);

/// The buffer's memory space (GM for !dv.gm) and size in bytes.
MemSpace getSpace(mlir::Type bufferType);
uint64_t getBufferBytes(mlir::Type bufferType);
mlir::Type getElementType(mlir::Type bufferType);

} // namespace vinci::dv

#define GET_OP_CLASSES
#include "dv/DvOps.h.inc"

#endif // VINCI_DIALECTS_DV_DVOPS_H
