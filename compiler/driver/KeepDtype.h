//===- KeepDtype.h - --precision_mode and --keep_dtype, as ATC names them -*- C++ -*-===//
//
// --precision_mode picks how float tensors are stored and computed
// (docs/precision.md); the driver records it as the module attribute
// `vinci.precision_mode`, which passes/Precision's keepsOriginDtype
// and storageElementType read.
//
// --keep_dtype FILE names ops that keep their original float type whatever
// the mode, one entry a line, in ATC's format:
//
//     # a comment
//     /encoder/layer.0/attention/Softmax      a node name (ATC's plain form)
//     OpName:/encoder/layer.0/output/Add      the same, spelled explicitly
//     OpType::Softmax                         every op of a type
//
// ATC's OpType names an Ascend IR type; here it names a type of Vinci's
// graph IR, vg (OpType::LayerNorm is vg.layer_norm: case and underscores
// are ignored). The ops get the unit attribute `vinci.keep_dtype`.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_COMPILER_DRIVER_KEEPDTYPE_H
#define VINCI_COMPILER_DRIVER_KEEPDTYPE_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
}
namespace vinci::soc {
struct SocSpec;
}

namespace vinci::driver {

/// The precision mode `requested` resolves to on `soc` ("" is the SoC's
/// default, force_fp16), or "" with a one-line `error`: an unknown mode
/// lists the known ones; a bf16 mode on a SoC without bf16 names the SoCs
/// that have it.
std::string resolvePrecisionMode(const std::string &requested, const soc::SocSpec &soc,
                                 std::string &error);

/// A type name compared without case and underscores: OpType::LayerNorm,
/// layer_norm and vg.layer_norm all give "layernorm".
std::string normalizedOpType(llvm::StringRef name);

/// The ONNX node names a location carries: its NameLoc, or those of a fused
/// location (ops a graph pass merged).
void collectNodeNames(mlir::Location loc, llvm::SmallVectorImpl<llvm::StringRef> &names);

/// One entry of a --keep_dtype file.
struct KeepDtypeEntry {
  enum Kind { Name, Type } kind;
  std::string value;
  int line;
};

/// Reads a --keep_dtype file; false with a one-line `error` naming the file
/// and line of a malformed entry.
bool loadKeepDtype(const std::string &path, std::vector<KeepDtypeEntry> &entries,
                   std::string &error);

/// Checks every OpName entry against the node names of the imported
/// `module` (ops keep their ONNX node name as their location); false with a
/// one-line `error` (file and line) for a name no node has.
bool checkKeepDtypeNames(mlir::ModuleOp module, const std::string &path,
                         const std::vector<KeepDtypeEntry> &entries, std::string &error);

/// Marks the ops the entries name with `vinci.keep_dtype`: by name (an op
/// whose location names the node, fused ops included) and by type. Run on
/// the graph the kernels are made from (after the graph passes, which
/// replace ops). False with a one-line `error` for an OpType entry that is
/// not a vg op type, or that no op of the graph has.
bool applyKeepDtype(mlir::ModuleOp module, const std::string &path,
                    const std::vector<KeepDtypeEntry> &entries, std::string &error);

/// allow_mix_precision: marks the ops whose fp16 results lose what fp32
/// keeps (softmax, log-softmax, layer / rms / batch norm, sum-like
/// reductions and average pools) with `vinci.keep_dtype`, so they compute
/// and store fp32 while the rest stays force_fp16 (docs/precision.md).
void markMixPrecisionOps(mlir::ModuleOp module);

} // namespace vinci::driver

#endif // VINCI_COMPILER_DRIVER_KEEPDTYPE_H
