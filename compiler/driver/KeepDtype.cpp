//===- KeepDtype.cpp - --precision_mode and --keep_dtype, as ATC names them ===//
#include "driver/KeepDtype.h"

#include "passes/Precision.h"
#include "vinci/soc.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

namespace vinci::driver {
namespace {

/// The modes Vinci implements, then ATC's others (named in errors).
constexpr const char *kImplementedModes[] = {"force_fp16", "allow_mix_precision",
                                             "allow_fp32_to_fp16", "must_keep_origin_dtype"};
constexpr const char *kBf16Modes[] = {"allow_mix_precision_bf16", "allow_fp32_to_bf16"};

std::string join(llvm::ArrayRef<const char *> names) {
  std::string text;
  for (const char *name : names)
    text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

bool isVgOp(mlir::Operation *op) {
  return op->getDialect() && op->getDialect()->getNamespace() == "vg";
}

std::string where(const std::string &path, int line) {
  return "--keep_dtype '" + path + "' line " + std::to_string(line) + ": ";
}

} // namespace

std::string normalizedOpType(llvm::StringRef name) {
  name.consume_front("vg.");
  std::string text;
  for (char c : name)
    if (c != '_')
      text += llvm::toLower(c);
  return text;
}

void collectNodeNames(mlir::Location loc, llvm::SmallVectorImpl<llvm::StringRef> &names) {
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc)) {
    names.push_back(name.getName().getValue());
    return;
  }
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location inner : fused.getLocations())
      collectNodeNames(inner, names);
}

std::string resolvePrecisionMode(const std::string &requested, const soc::SocSpec &soc,
                                 std::string &error) {
  if (requested.empty())
    return "force_fp16"; // ATC's default for the 310P (and Vinci's on every SoC)
  for (const char *mode : kImplementedModes)
    if (requested == mode)
      return requested;
  if (llvm::is_contained(kBf16Modes, llvm::StringRef(requested))) {
    if (!soc.supports_bf16) {
      std::string withBf16;
      for (const soc::SocSpec *spec : soc::allSocs())
        if (spec->supports_bf16)
          withBf16 += (withBf16.empty() ? "" : ", ") + std::string(spec->name);
      error = "--precision_mode " + requested + " stores bf16, which " + soc.name +
              " does not have: choose a --soc_version with bf16 (" + withBf16 +
              ") or a mode for this SoC (" + join(kImplementedModes) + ")";
      return "";
    }
    error = "--precision_mode " + requested + " (bf16 storage on " + soc.name +
            ") is not implemented yet; available: " + join(kImplementedModes) +
            " (docs/precision.md)";
    return "";
  }
  error = "unknown --precision_mode '" + requested + "' (known: " + join(kImplementedModes) +
          ", and on SoCs with bf16: " + join(kBf16Modes) + ")";
  return "";
}

bool loadKeepDtype(const std::string &path, std::vector<KeepDtypeEntry> &entries,
                   std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = "--keep_dtype '" + path + "': cannot read it: " + buffer.getError().message();
    return false;
  }
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (auto [index, raw] : llvm::enumerate(lines)) {
    int line = static_cast<int>(index) + 1;
    llvm::StringRef text = raw.trim();
    if (text.empty() || text.starts_with("#"))
      continue;
    KeepDtypeEntry entry{KeepDtypeEntry::Name, "", line};
    llvm::StringRef value = text;
    if (value.consume_front("OpType::")) {
      entry.kind = KeepDtypeEntry::Type;
    } else if (value.starts_with("OpType:") || value.starts_with("OpType ")) {
      error = where(path, line) + "'" + text.str() +
              "' is malformed: an op type is written OpType::TypeName (two colons)";
      return false;
    } else {
      value.consume_front("OpName:");
    }
    value = value.trim();
    if (value.empty()) {
      error = where(path, line) + "'" + text.str() + "' names nothing: write OpType::TypeName, " +
              "OpName:node_name or the node name alone";
      return false;
    }
    if (value.find_first_of(" \t") != llvm::StringRef::npos) {
      error = where(path, line) + "'" + text.str() +
              "' holds more than one entry: ATC's format is one op name or OpType:: a line";
      return false;
    }
    entry.value = value.str();
    entries.push_back(std::move(entry));
  }
  return true;
}

bool checkKeepDtypeNames(mlir::ModuleOp module, const std::string &path,
                         const std::vector<KeepDtypeEntry> &entries, std::string &error) {
  llvm::StringSet<> nodes;
  module.walk([&](mlir::Operation *op) {
    llvm::SmallVector<llvm::StringRef> names;
    collectNodeNames(op->getLoc(), names);
    for (llvm::StringRef name : names)
      nodes.insert(name);
  });
  for (const KeepDtypeEntry &entry : entries)
    if (entry.kind == KeepDtypeEntry::Name && !nodes.contains(entry.value)) {
      error = where(path, entry.line) + "no node of the model is named '" + entry.value +
              "' (names are the ONNX nodes' name fields; --emit=vg prints them as locations)";
      return false;
    }
  return true;
}

bool applyKeepDtype(mlir::ModuleOp module, const std::string &path,
                    const std::vector<KeepDtypeEntry> &entries, std::string &error) {
  llvm::StringSet<> names, types;
  for (const KeepDtypeEntry &entry : entries)
    (entry.kind == KeepDtypeEntry::Name ? names : types)
        .insert(entry.kind == KeepDtypeEntry::Name ? entry.value : normalizedOpType(entry.value));
  // Every OpType entry must name a vg op type, and one this graph has.
  llvm::StringSet<> known, present;
  for (mlir::RegisteredOperationName name : module.getContext()->getRegisteredOperations())
    if (name.getDialectNamespace() == "vg")
      known.insert(normalizedOpType(name.getStringRef()));
  module.walk([&](mlir::Operation *op) {
    if (isVgOp(op))
      present.insert(normalizedOpType(op->getName().getStringRef()));
  });
  for (const KeepDtypeEntry &entry : entries) {
    if (entry.kind != KeepDtypeEntry::Type)
      continue;
    std::string type = normalizedOpType(entry.value);
    if (!known.contains(type)) {
      error = where(path, entry.line) + "'" + entry.value +
              "' is not an op type of Vinci's graph IR (vg): write its vg name, e.g. "
              "OpType::Softmax, OpType::MatMul, OpType::LayerNorm (docs/precision.md)";
      return false;
    }
    if (!present.contains(type)) {
      error = where(path, entry.line) + "no op of type '" + entry.value +
              "' is left in the model after the graph passes (--emit=vg-opt shows them)";
      return false;
    }
  }
  mlir::UnitAttr keep = mlir::UnitAttr::get(module.getContext());
  module.walk([&](mlir::Operation *op) {
    if (!isVgOp(op) || op->getNumResults() == 0)
      return;
    bool named = types.contains(normalizedOpType(op->getName().getStringRef()));
    llvm::SmallVector<llvm::StringRef> opNames;
    collectNodeNames(op->getLoc(), opNames);
    for (llvm::StringRef name : opNames)
      named |= names.contains(name);
    if (named)
      op->setAttr(kKeepDtypeAttr, keep);
  });
  return true;
}

void markMixPrecisionOps(mlir::ModuleOp module) {
  // Max/min reductions and max pools are exact in any type (they pick an
  // input), so they stay fp16.
  static const llvm::StringSet<> kSensitive = {
      "vg.softmax",     "vg.log_softmax", "vg.layer_norm",          "vg.rms_norm",
      "vg.batch_norm",  "vg.reduce_mean", "vg.reduce_sum",          "vg.reduce_prod",
      "vg.average_pool", "vg.global_average_pool"};
  mlir::UnitAttr keep = mlir::UnitAttr::get(module.getContext());
  module.walk([&](mlir::Operation *op) {
    if (kSensitive.contains(op->getName().getStringRef()))
      op->setAttr(kKeepDtypeAttr, keep);
  });
}

} // namespace vinci::driver
