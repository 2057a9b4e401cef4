//===- EmitOm.h - write lowered models as an .om -----------------*- C++ -*-===//
//
// The last step of vinci-compile: modules whose graph function launches dv
// kernels (after lowering, buffer allocation and sync insertion) become one
// .om container. Kernels are encoded to the ISA; graph inputs and outputs
// are the caller's buffers; weights are stored in their storage type (fp16
// under force_fp16) and layout; every other tensor lives in one GM arena
// whose offsets the memory planner fixes now.
//
// A model with gears (docs/gears.md) is one module per gear, added in the
// gears' order: each gets its own tasks and arena plan, while kernels are
// shared by content (one program for every launch of identical code, in a
// gear or across gears) and weights by constant and content (WeightStore.h).
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_OM_EMITOM_H
#define VINCI_BACKEND_OM_EMITOM_H

#include "om/WeightStore.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vinci::soc {
struct SocSpec;
}

namespace vinci::backend {

struct OmSummary {
  size_t numKernels = 0;  // distinct kernel programs
  size_t numTasks = 0;    // over all gears
  uint64_t arenaBytes = 0;
  uint64_t arenaLowerBoundBytes = 0;
  uint64_t weightsBytes = 0;
  uint64_t fileBytes = 0;
};

/// What one gear (or the static model) added.
struct GearSummary {
  size_t numTasks = 0;
  size_t newKernels = 0;     // programs no earlier gear (or launch) had
  size_t sharedKernels = 0;  // launches of a program stored before
  uint64_t arenaBytes = 0;
  uint64_t arenaLowerBoundBytes = 0;
};

/// An input dim that a gear value sets (the .om's GearDim, by input name).
struct OmGearDim {
  unsigned value = 0;
  std::string input;
  unsigned axis = 0;
};

struct OmOptions {
  std::string modelName;
  /// A model with gears: the .om's GearKind (1 batch, 2 image, 3 dims;
  /// 0: one static module) and which input dim each gear value sets.
  uint8_t gearKind = 0;
  std::vector<OmGearDim> gearDims;
  /// See WeightStore.h: lets the importer drop pages of mapped weights.
  ReleaseSource releaseSource;
};

class OmBuilder {
public:
  OmBuilder(const soc::SocSpec &soc, OmOptions options);
  ~OmBuilder();

  /// Adds a lowered module (graph function @main): the model, or its next
  /// gear, selected by `values`. Everything the .om needs from the module
  /// is taken now (encoded kernels, task lists, weight references into the
  /// context's constants): the module may be destroyed after, the context
  /// must live until write(). False with a one-line message.
  bool addGear(mlir::ModuleOp module, std::vector<int64_t> values, GearSummary &summary,
               std::string &error);

  /// Writes the .om to `path` atomically, streaming the weights.
  bool write(const std::string &path, OmSummary &summary, std::string &error);

  /// Whether the .om streams a weight from the resource blob data at
  /// `data`: the blob must keep it until write(). Others are free to go.
  bool streamsFrom(const void *data) const;

  struct State;

private:
  std::unique_ptr<State> state;
};

/// Writes the model in `module` (graph function @main) to `path` atomically.
/// Returns false with a one-line message when something cannot be emitted.
bool emitOm(mlir::ModuleOp module, const std::string &modelName, const std::string &path,
            OmSummary &summary, std::string &error);

} // namespace vinci::backend

#endif // VINCI_BACKEND_OM_EMITOM_H
