//===- MemoryPlan.h - GM activation arena planning ---------------*- C++ -*-===//
//
// Plans every activation buffer of a model into one arena in global memory
// (GM), with offsets fixed at compile time. In-place reuse of dying inputs
// (elementwise ops, reshapes) first; then a small portfolio of greedy offset
// heuristics -- greedy by size and greedy by breadth (Pisarchyk & Lee,
// "Efficient Memory Management for Deep Neural Net Inference", 2020), each
// with best fit (TensorFlow Lite's ArenaPlanner) and first fit (TensorFlow
// Lite Micro's GreedyMemoryPlanner) -- keeping the smallest arena.
//
// Plain C++17, no MLIR, no exceptions across the API. See
// docs/memory-planning.md for the algorithm, the guarantees and measured
// figures.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_MEMORYPLAN_H
#define VINCI_BACKEND_MEMORYPLAN_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vinci {
namespace backend {

/// Default alignment of a GM buffer offset: the GM DMA granule.
inline constexpr uint64_t kDefaultGmAlignment = 64;

/// One activation buffer to place.
struct PlanBuffer {
  /// Unique identifier. The plan does not depend on the order of the input
  /// vector: ties are broken by ids, and in-place candidates name ids.
  uint64_t id = 0;
  /// For messages and for the .om debug info; need not be unique.
  std::string name;
  /// Bytes. Zero-sized buffers are allowed and occupy nothing.
  uint64_t size = 0;
  /// The offset is a multiple of this; a power of two, at least 1.
  uint64_t alignment = kDefaultGmAlignment;
  /// Inclusive live range in the task order: written by `firstTask` (or live
  /// on entry), last read by `lastTask`. Requires firstTask <= lastTask.
  int64_t firstTask = 0;
  int64_t lastTask = 0;
  /// Id of an input buffer whose storage this buffer may reuse. Legal only if
  /// that buffer's lastTask equals this buffer's firstTask and this buffer's
  /// size is not larger. The planner grants it when no other buffer already
  /// reuses the same input; an illegal candidate is an input error.
  std::optional<uint64_t> inPlaceOf;
};

struct PlanOptions {
  /// Round every buffer's allocated size up to its alignment.
  bool padSizesToAlignment = false;
  /// Try the in-place candidates (otherwise they are checked, then ignored).
  bool allowInPlace = true;
  /// Run the whole portfolio of placement heuristics (three orders, each
  /// with best fit and first fit) and keep the smallest arena; otherwise
  /// greedy by size with best fit alone.
  bool tryAllHeuristics = true;
  /// Run verifyPlan on the result. Always on in debug builds (!NDEBUG).
  bool verify = false;
};

/// The order in which storage units are placed (see docs/memory-planning.md).
enum class PlacementOrder {
  /// Largest first, ties by first task, then id: greedy by size as in
  /// TFLite's ArenaPlanner and TFLite Micro's GreedyMemoryPlanner.
  SizeThenFirstTask,
  /// Largest first, ties by last task (latest first), first task, id.
  SizeThenLastTask,
  /// Most crowded task in the unit's range first (greedy by breadth), ties
  /// as SizeThenFirstTask.
  Breadth,
};

/// Which gap a unit takes among those that fit below the units already
/// placed that are live with it.
enum class GapChoice {
  /// The smallest gap (TFLite's SimpleMemoryArena).
  BestFit,
  /// The lowest gap (TFLite Micro's GreedyMemoryPlanner).
  FirstFit,
};

const char *placementOrderName(PlacementOrder order);
const char *gapChoiceName(GapChoice gap);

/// The placement of one buffer; index i of MemoryPlan::buffers is input i.
struct PlacedBuffer {
  uint64_t offset = 0;
  /// Allocated bytes: the buffer's size, or padded to its alignment.
  uint64_t allocatedSize = 0;
  /// Set when the buffer reuses, in place, the storage of that input id.
  std::optional<uint64_t> reusesStorageOf;
};

struct MemoryPlan {
  std::vector<PlacedBuffer> buffers;
  /// Bytes of the arena: the largest offset + allocated size.
  uint64_t arenaBytes = 0;
  /// The arena's base must be aligned to this (the largest alignment).
  uint64_t arenaAlignment = 1;
  /// The report's arena_lower_bound_bytes: the largest total of allocated
  /// bytes simultaneously live at any task, where a buffer that reuses its
  /// input in place is counted once with it at the task they share. No plan
  /// that makes the same in-place choices can have a smaller arena.
  uint64_t arenaLowerBoundBytes = 0;
  /// The same bound with every buffer counted separately (no in-place reuse).
  uint64_t noReuseLowerBoundBytes = 0;
  /// Number of in-place reuses granted.
  size_t numInPlace = 0;
  /// The heuristic that produced the plan: the first of the portfolio with
  /// the smallest arena.
  PlacementOrder order = PlacementOrder::SizeThenFirstTask;
  GapChoice gap = GapChoice::BestFit;
};

/// Plans `buffers` into one arena. Returns false with a one-line message in
/// `error` on invalid input (duplicate id, lastTask < firstTask, alignment
/// zero or not a power of two, illegal in-place candidate, arithmetic
/// overflow); `plan` is then unspecified. Deterministic: the same set of
/// buffers, in any order, gives the same offsets.
bool planMemory(const std::vector<PlanBuffer> &buffers, MemoryPlan &plan,
                std::string &error, const PlanOptions &options = {});

/// Checks a plan against its buffers: one placement per buffer, allocated
/// size >= size, offsets aligned, every buffer inside the arena, and no two
/// buffers whose live ranges overlap share a byte unless they are a legal
/// in-place pair (one is the other's inPlaceOf candidate, the candidate's
/// lastTask is the other's firstTask, and both sit at the same offset).
/// Returns false with a one-line message in `error` otherwise.
bool verifyPlan(const std::vector<PlanBuffer> &buffers, const MemoryPlan &plan,
                std::string &error);

} // namespace backend
} // namespace vinci

#endif // VINCI_BACKEND_MEMORYPLAN_H
