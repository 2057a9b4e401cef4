//===- SplitWideConcats.cpp - concats within a kernel's argument limit ----===//
//
// A concat kernel reads each input as a GM argument and writes one result,
// and a kernel takes at most kMaxKernelArguments (KernelRules.h). A wider
// concat (the taps of an unfolded 11 x 11 or 32 x 32 window: 121 or 1024
// pieces) becomes a tree: consecutive groups of at most
// kMaxKernelArguments - 1 inputs are concatenated first, then the groups'
// results, level by level, until one concat takes them all. Each level
// copies the data once more; only concats past the limit pay it.
//
//===----------------------------------------------------------------------===//
#include "passes/KernelRules.h"
#include "passes/Passes.h"

#include "vg/VgOps.h"

#include "mlir/IR/Builders.h"

namespace vinci {
#define GEN_PASS_DEF_SPLITWIDECONCATS
#include "passes/Passes.h.inc"
} // namespace vinci

using namespace mlir;

namespace vinci {
namespace {

/// The most inputs a concat kernel takes besides its result.
constexpr size_t kMaxConcatInputs = kMaxKernelArguments - 1;

// concat(x_1, ..., x_n) -> concat(concat(x_1..x_63), concat(x_64..), ...), for n > 63
void splitConcat(vg::ConcatOp concat) {
  auto type = cast<RankedTensorType>(concat.getType());
  int64_t axis = *vg::normalizeAxis(concat.getAxis(), type.getRank());
  OpBuilder b(concat);
  SmallVector<Value> level(concat.getInputs());
  while (level.size() > kMaxConcatInputs) {
    SmallVector<Value> next;
    for (size_t start = 0; start < level.size(); start += kMaxConcatInputs) {
      ArrayRef<Value> group = ArrayRef<Value>(level).slice(
          start, std::min(kMaxConcatInputs, level.size() - start));
      if (group.size() == 1) {
        next.push_back(group.front());
        continue;
      }
      SmallVector<int64_t> shape(type.getShape());
      shape[axis] = 0;
      for (Value piece : group)
        shape[axis] += cast<RankedTensorType>(piece.getType()).getDimSize(axis);
      next.push_back(vg::ConcatOp::create(b, concat.getLoc(), type.clone(shape), group,
                                          concat.getAxisAttr()));
    }
    level = std::move(next);
  }
  concat.getInputsMutable().assign(level);
}

struct SplitWideConcats : impl::SplitWideConcatsBase<SplitWideConcats> {
  void runOnOperation() override {
    SmallVector<vg::ConcatOp> wide;
    getOperation().walk([&](vg::ConcatOp concat) {
      if (concat.getInputs().size() > kMaxConcatInputs)
        wide.push_back(concat);
    });
    for (vg::ConcatOp concat : wide)
      splitConcat(concat);
  }
};

} // namespace
} // namespace vinci
