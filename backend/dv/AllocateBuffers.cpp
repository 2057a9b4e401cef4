//===- AllocateBuffers.cpp - place dv on-chip buffers in their spaces -----===//
#include "backend/Passes.h"

#include "dv/DvOps.h"
#include "vinci/backend/MemoryPlan.h"
#include "vinci/soc.h"

#include "llvm/ADT/DenseMap.h"

namespace vinci::backend {
#define GEN_PASS_DEF_ALLOCATEBUFFERS
#include "backend/Passes.h.inc"
} // namespace vinci::backend

using namespace mlir;

namespace vinci::backend {
namespace {

struct LiveRange {
  int64_t first = INT64_MAX;
  int64_t last = INT64_MIN;
  void cover(int64_t position) {
    first = std::min(first, position);
    last = std::max(last, position);
  }
};

/// Positions of the ops of one kernel in program order, and for each loop
/// the span of positions its body covers.
class KernelOrder {
public:
  explicit KernelOrder(dv::KernelOp kernel) {
    kernel.walk<WalkOrder::PreOrder>([&](Operation *op) { position[op] = next++; });
    kernel.walk([&](dv::LoopOp loop) {
      int64_t end = position[loop];
      loop.walk([&](Operation *op) { end = std::max(end, position[op]); });
      loopEnd[loop] = end;
    });
  }

  /// The range `buffer` (created by `alloc`) is live over: its creation and
  /// every use through views, widened to the whole of any loop that contains
  /// a use but not the alloc.
  LiveRange liveRange(dv::AllocOp alloc) {
    LiveRange range;
    range.cover(position[alloc]);
    SmallVector<Value> worklist{alloc.getResult()};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (Operation *user : value.getUsers()) {
        range.cover(position[user]);
        for (Operation *parent = user->getParentOp(); parent; parent = parent->getParentOp()) {
          auto loop = dyn_cast<dv::LoopOp>(parent);
          if (!loop)
            continue;
          if (loop->isAncestor(alloc))
            break;
          range.cover(position[loop]);
          range.cover(loopEnd[loop]);
        }
        if (auto view = dyn_cast<dv::ViewOp>(user))
          worklist.push_back(view.getResult());
      }
    }
    return range;
  }

private:
  llvm::DenseMap<Operation *, int64_t> position;
  llvm::DenseMap<Operation *, int64_t> loopEnd;
  int64_t next = 0;
};

LogicalResult allocateKernel(dv::KernelOp kernel) {
  const soc::SocSpec &soc = dv::getSoc(kernel);
  KernelOrder order(kernel);
  // Per space: the end of the buffers placed already, and those to place.
  std::array<uint64_t, soc::kNumSpaces> placedEnd{};
  std::array<SmallVector<dv::AllocOp>, soc::kNumSpaces> unplaced;
  kernel.walk([&](dv::AllocOp alloc) {
    unsigned space = static_cast<unsigned>(dv::getSpace(alloc.getType()));
    if (auto offset = alloc.getOffset())
      placedEnd[space] =
          std::max<uint64_t>(placedEnd[space], *offset + dv::getBufferBytes(alloc.getType()));
    else
      unplaced[space].push_back(alloc);
  });

  for (unsigned space = 0; space < soc::kNumSpaces; ++space) {
    if (unplaced[space].empty())
      continue;
    // dv::MemSpace and soc::Space number the spaces alike (GM = 0 ... UB = 5).
    auto socSpaceId = static_cast<soc::Space>(space);
    uint64_t alignment = soc.alignment(socSpaceId);
    std::vector<backend::PlanBuffer> buffers;
    for (auto [id, alloc] : llvm::enumerate(unplaced[space])) {
      LiveRange range = order.liveRange(alloc);
      backend::PlanBuffer buffer;
      buffer.id = id;
      buffer.size = dv::getBufferBytes(alloc.getType());
      buffer.alignment = alignment;
      buffer.firstTask = range.first;
      buffer.lastTask = range.last;
      buffers.push_back(buffer);
    }
    backend::MemoryPlan plan;
    backend::PlanOptions options;
    options.allowInPlace = false;
    options.verify = true;
    std::string error;
    if (!backend::planMemory(buffers, plan, error, options))
      return kernel.emitError("buffer allocation failed: ") << error;
    uint64_t base = (placedEnd[space] + alignment - 1) / alignment * alignment;
    uint64_t capacity = soc.bufferBytes(socSpaceId);
    if (base + plan.arenaBytes > capacity)
      return kernel.emitError() << "the kernel's " << soc::spaceName(socSpaceId)
                                << " buffers need " << base + plan.arenaBytes << " bytes but the "
                                << soc.name << " has " << capacity
                                << " per core: lower with smaller tiles";
    Builder builder(kernel.getContext());
    for (auto [alloc, placed] : llvm::zip(unplaced[space], plan.buffers))
      alloc.setOffsetAttr(builder.getI64IntegerAttr(static_cast<int64_t>(base + placed.offset)));
  }
  return success();
}

struct AllocateBuffers : impl::AllocateBuffersBase<AllocateBuffers> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<dv::KernelOp>())
      if (failed(allocateKernel(kernel)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace vinci::backend
