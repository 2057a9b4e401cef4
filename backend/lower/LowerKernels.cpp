//===- LowerKernels.cpp - lower outlined vg kernels to dv kernels ---------===//
//
// Input: a module after vinci-partition-kernels (the graph function calls one
// private func.func per kernel). Each kernel a template can lower becomes a
// `dv.kernel` of the same name, its call a `dv.launch`. The templates live
// in backend/lower/ (one file each) and are tried in the order of kTemplates:
// the first that takes a kernel lowers it.
//
// Storage precision follows the module's vinci.precision_mode and
// --keep_dtype (docs/precision.md): graph inputs and outputs keep their type
// in GM (f32 as the model says); under force_fp16 every other float tensor
// (weights, intermediates) is f16 in GM, a kernel that keeps its types
// stores f32 (storageElementType).
//
//===----------------------------------------------------------------------===//
#include "backend/Passes.h"
#include "backend/lower/LowerCommon.h"
#include "passes/KernelRules.h"

#include "dv/DvOps.h"
#include "vinci/soc.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

namespace vinci::backend {
#define GEN_PASS_DEF_LOWERKERNELS
#include "backend/Passes.h.inc"
} // namespace vinci::backend

using namespace mlir;

namespace vinci::backend {
namespace {

/// Most specific first: the first template that takes a kernel lowers it.
const lower::KernelTemplate *const kTemplates[] = {
    &lower::kDepthwiseTemplate,    // Depthwise.cpp: depthwise conv taps on the Vector unit
    &lower::kConvTemplate,         // Conv.cpp: img2col by load_3d on the Cube
    &lower::kPoolTemplate,         // Pool.cpp: windows reduced over NC1HWC0 rows in UB
    &lower::kVectorMatmulTemplate, // before the Cube: fp32 matmuls that keep fp32
    &lower::kMatmulTemplate,
    &lower::kRowsTemplate,
    &lower::kTransposeTemplate,
    &lower::kGatherTemplate,
    &lower::kPadTemplate,
    &lower::kAippTemplate,
    &lower::kDataMovementTemplate,
    &lower::kElementwiseTemplate,
};

/// The template vinci-lower-kernels lowers `func` with: the first that
/// takes it; null with `whyNot` the first template's reason otherwise.
const lower::KernelTemplate *chooseTemplate(func::FuncOp func, std::string &whyNot) {
  // GM arguments: the call's operands, then its results.
  FunctionType type = func.getFunctionType();
  if (size_t args = type.getNumInputs() + type.getNumResults(); args > kMaxKernelArguments) {
    whyNot = "the kernel takes " + std::to_string(args) + " GM arguments, and a kernel takes at "
             "most " + std::to_string(kMaxKernelArguments) + " (the .om kernel table's limit)";
    return nullptr;
  }
  for (const lower::KernelTemplate *candidate : kTemplates) {
    std::optional<std::string> mismatch = candidate->mismatch(func);
    if (mismatch && mismatch->empty())
      return candidate;
    if (mismatch && whyNot.empty())
      whyNot = *mismatch;
  }
  if (whyNot.empty())
    whyNot = "no lowering template takes it";
  return nullptr;
}

class TemplateCapabilities final : public KernelCapabilities {
public:
  std::string mismatch(func::FuncOp kernel) const override {
    // The templates build dv types to judge a kernel (its GM signature);
    // the partition asking them need not have loaded the dialect.
    kernel.getContext()->getOrLoadDialect<dv::DVDialect>();
    std::string whyNot;
    return chooseTemplate(kernel, whyNot) ? std::string() : whyNot;
  }
  SmallVector<int> nc1hwc0Classes(func::FuncOp kernel) const override {
    kernel.getContext()->getOrLoadDialect<dv::DVDialect>();
    std::string whyNot;
    const lower::KernelTemplate *chosen = chooseTemplate(kernel, whyNot);
    return chosen && chosen->nc1hwc0Classes ? chosen->nc1hwc0Classes(kernel) : SmallVector<int>();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

std::string describeKernel(func::FuncOp func) {
  std::string text = ("kernel " + func.getSymName()).str();
  if (auto sources = func->getAttrOfType<ArrayAttr>("vinci.source_nodes");
      sources && !sources.empty()) {
    text += " (from ";
    llvm::interleave(
        sources,
        [&](Attribute a) {
          if (auto s = dyn_cast<StringAttr>(a))
            text += s.getValue().str();
        },
        [&] { text += ", "; });
    text += ")";
  }
  return text;
}

struct LowerKernels : impl::LowerKernelsBase<LowerKernels> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module->hasAttr(dv::DVDialect::kSocAttrName)) {
      if (!soc::findSoc(soc)) {
        module.emitError() << "unknown SoC '" << soc << "'";
        return signalPassFailure();
      }
      module->setAttr(dv::DVDialect::kSocAttrName, StringAttr::get(&getContext(), soc));
    }
    const soc::SocSpec &spec = dv::getSoc(module);

    // Each kernel function and the calls of it in the graph functions.
    llvm::DenseMap<StringAttr, SmallVector<func::CallOp>> calls;
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func->hasAttr("vinci.kernel"))
        kernels.push_back(func);
      else
        func.walk(
            [&](func::CallOp call) { calls[call.getCalleeAttr().getAttr()].push_back(call); });
    }

    bool failedAny = false;
    for (func::FuncOp func : kernels) {
      auto &sites = calls[func.getSymNameAttr()];
      std::string why, whyNot;
      if (sites.size() != 1)
        why = "a kernel launched " + std::to_string(sites.size()) +
              " times has no lowering yet (one launch expected)";
      const lower::KernelTemplate *chosen = why.empty() ? chooseTemplate(func, whyNot) : nullptr;
      if (chosen) {
        // The dv.kernel keeps the model nodes it covers, for the .om's
        // kernel table and the reports, and the template that lowered it:
        // the .om writer offers in-place reuse only to templates that read
        // each element before writing its position (backend/memplan/InPlace.h).
        StringAttr name = func.getSymNameAttr();
        Attribute sources = func->getAttr("vinci.source_nodes");
        Attribute outputs = func->getAttr("vinci.output_nodes");
        if (failed(chosen->lower(func, sites.front(), spec))) {
          failedAny = true;
          continue;
        }
        if (auto kernel = module.lookupSymbol<dv::KernelOp>(name)) {
          if (sources)
            kernel->setAttr("vinci.source_nodes", sources);
          if (outputs)
            kernel->setAttr("vinci.output_nodes", outputs);
          kernel->setAttr("vinci.template", StringAttr::get(&getContext(), chosen->name));
        }
        continue;
      }
      if (why.empty())
        why = whyNot;
      if (!allowUnlowered) {
        func.emitError() << describeKernel(func) << ": " << why;
        failedAny = true;
      }
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace

const KernelCapabilities &templateCapabilities() {
  static const TemplateCapabilities capabilities;
  return capabilities;
}

void registerVinciBackendPasses() {
  registerVinciKernelLayerPasses();
  installKernelCapabilities(&templateCapabilities());
}

} // namespace vinci::backend
