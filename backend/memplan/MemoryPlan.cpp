//===- MemoryPlan.cpp - GM activation arena planning ----------------------===//
//
// After in-place reuse joins buffers into storage units, a portfolio of
// greedy offset heuristics places the units and the smallest arena wins:
// orders greedy by size (Pisarchyk & Lee, "Efficient Memory Management for
// Deep Neural Net Inference", 2020; TFLite's ArenaPlanner), greedy by size
// with the latest-ending first among equal sizes, and greedy by breadth
// (same paper), each with best fit (TFLite's SimpleMemoryArena) and first
// fit (TFLite Micro's GreedyMemoryPlanner). The lower bound is computed
// first, and the search stops at a plan that reaches it. See
// docs/memory-planning.md for why each heuristic is kept and measured ratios.
//
//===----------------------------------------------------------------------===//
#include "vinci/backend/MemoryPlan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace vinci {
namespace backend {
namespace {

constexpr uint64_t kMaxU64 = std::numeric_limits<uint64_t>::max();

bool isPowerOfTwo(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

/// Rounds `x` up to a multiple of the power of two `a`; false on overflow.
bool alignUp(uint64_t x, uint64_t a, uint64_t &out) {
  uint64_t mask = a - 1;
  if (x > kMaxU64 - mask)
    return false;
  out = (x + mask) & ~mask;
  return true;
}

bool addChecked(uint64_t a, uint64_t b, uint64_t &out) {
  if (a > kMaxU64 - b)
    return false;
  out = a + b;
  return true;
}

std::string describe(const PlanBuffer &b) {
  std::string s = "buffer ";
  if (!b.name.empty())
    s += "'" + b.name + "' ";
  s += "(id " + std::to_string(b.id) + ")";
  return s;
}

bool rangesOverlap(int64_t f1, int64_t l1, int64_t f2, int64_t l2) {
  return f1 <= l2 && f2 <= l1;
}

/// Checks the fields of every buffer and builds the id -> index map.
bool checkInputs(const std::vector<PlanBuffer> &buffers,
                 std::map<uint64_t, size_t> &indexOf, std::string &error) {
  indexOf.clear();
  for (size_t i = 0; i < buffers.size(); ++i) {
    const PlanBuffer &b = buffers[i];
    if (!indexOf.emplace(b.id, i).second) {
      error = "duplicate buffer id " + std::to_string(b.id) + " (" +
              describe(buffers[indexOf[b.id]]) + " and " + describe(b) + ")";
      return false;
    }
    if (b.lastTask < b.firstTask) {
      error = describe(b) + ": last task " + std::to_string(b.lastTask) +
              " is before first task " + std::to_string(b.firstTask);
      return false;
    }
    if (!isPowerOfTwo(b.alignment)) {
      error = describe(b) + ": alignment " + std::to_string(b.alignment) +
              " is not a power of two";
      return false;
    }
  }
  return true;
}

/// Why `b` may not reuse `c` in place, or empty when it may.
std::string inPlaceIllegality(const PlanBuffer &b, const PlanBuffer *c) {
  if (!c)
    return "names no buffer";
  if (c->id == b.id)
    return "names the buffer itself";
  if (c->lastTask != b.firstTask)
    return "dies at task " + std::to_string(c->lastTask) +
           ", not at this buffer's first task " + std::to_string(b.firstTask);
  if (b.size > c->size)
    return "is smaller (" + std::to_string(c->size) + " B < " +
           std::to_string(b.size) + " B)";
  return {};
}

/// The largest total of bytes live at one task. `reuses[i]` is the index of
/// the buffer whose storage buffer i shares, or SIZE_MAX; such a pair is
/// counted once (the larger) at the task they share.
bool peakLiveBytes(const std::vector<PlanBuffer> &buffers,
                   const std::vector<uint64_t> &sizes,
                   const std::vector<size_t> &reuses, uint64_t &peak,
                   std::string &error) {
  // (task, delta-sign, bytes): starts are applied before the peak is taken,
  // ends after, so a buffer ending at t and one starting at t both count.
  struct Event {
    int64_t task;
    bool isEnd;
    bool negative;
    uint64_t bytes;
  };
  std::vector<Event> events;
  events.reserve(buffers.size() * 2);
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (sizes[i] == 0)
      continue;
    events.push_back({buffers[i].firstTask, false, false, sizes[i]});
    events.push_back({buffers[i].lastTask, true, false, sizes[i]});
    if (reuses[i] != SIZE_MAX) {
      // Remove the smaller of the pair for the single task they share.
      uint64_t m = std::min(sizes[i], sizes[reuses[i]]);
      events.push_back({buffers[i].firstTask, false, true, m});
      events.push_back({buffers[i].firstTask, true, true, m});
    }
  }
  std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
    if (a.task != b.task)
      return a.task < b.task;
    if (a.isEnd != b.isEnd)
      return !a.isEnd;
    if (a.negative != b.negative)
      return a.negative;
    return a.bytes < b.bytes;
  });
  // 128-bit modular arithmetic: the total is exact whenever it is read (after
  // all starts at a task), and n buffers of < 2^64 bytes cannot wrap it.
  unsigned __int128 live = 0, best = 0;
  size_t i = 0;
  while (i < events.size()) {
    int64_t t = events[i].task;
    size_t j = i;
    for (; j < events.size() && events[j].task == t && !events[j].isEnd; ++j)
      live = events[j].negative ? live - events[j].bytes
                                : live + events[j].bytes;
    best = std::max(best, live);
    for (; j < events.size() && events[j].task == t; ++j)
      live = events[j].negative ? live + events[j].bytes
                                : live - events[j].bytes;
    i = j;
  }
  if (best > kMaxU64) {
    error = "the total size of simultaneously live buffers overflows 64 bits";
    return false;
  }
  peak = static_cast<uint64_t>(best);
  return true;
}

} // namespace

const char *placementOrderName(PlacementOrder order) {
  switch (order) {
  case PlacementOrder::SizeThenFirstTask:
    return "size";
  case PlacementOrder::SizeThenLastTask:
    return "size-then-last-task";
  case PlacementOrder::Breadth:
    return "breadth";
  }
  return "?";
}

const char *gapChoiceName(GapChoice gap) {
  return gap == GapChoice::BestFit ? "best-fit" : "first-fit";
}

bool planMemory(const std::vector<PlanBuffer> &buffers, MemoryPlan &plan,
                std::string &error, const PlanOptions &options) {
  plan = MemoryPlan();
  error.clear();
  std::map<uint64_t, size_t> indexOf;
  if (!checkInputs(buffers, indexOf, error))
    return false;
  const size_t n = buffers.size();

  // Allocated sizes.
  std::vector<uint64_t> sizes(n);
  for (size_t i = 0; i < n; ++i) {
    sizes[i] = buffers[i].size;
    if (options.padSizesToAlignment &&
        !alignUp(buffers[i].size, buffers[i].alignment, sizes[i])) {
      error = describe(buffers[i]) + ": size overflows when padded";
      return false;
    }
  }

  // Deterministic order independent of the input order: (first task, id).
  std::vector<size_t> byStart(n);
  for (size_t i = 0; i < n; ++i)
    byStart[i] = i;
  std::sort(byStart.begin(), byStart.end(), [&](size_t a, size_t b) {
    if (buffers[a].firstTask != buffers[b].firstTask)
      return buffers[a].firstTask < buffers[b].firstTask;
    return buffers[a].id < buffers[b].id;
  });

  // In-place reuse first. pred[i]: the buffer whose storage i reuses;
  // succ[i]: the buffer reusing i's storage. A buffer is reused by at most one
  // other. A chain never holds three buffers live at one task (which happens
  // only through a middle buffer with firstTask == lastTask).
  std::vector<size_t> pred(n, SIZE_MAX), succ(n, SIZE_MAX);
  for (size_t bi : byStart) {
    const PlanBuffer &b = buffers[bi];
    if (!b.inPlaceOf)
      continue;
    auto it = indexOf.find(*b.inPlaceOf);
    const PlanBuffer *c = it == indexOf.end() ? nullptr : &buffers[it->second];
    std::string why = inPlaceIllegality(b, c);
    if (!why.empty()) {
      error = describe(b) + ": in-place candidate id " +
              std::to_string(*b.inPlaceOf) + " " + why;
      return false;
    }
    if (!options.allowInPlace)
      continue;
    size_t ci = it->second;
    if (succ[ci] != SIZE_MAX)
      continue; // another buffer already reuses it
    if (pred[ci] != SIZE_MAX && c->firstTask == c->lastTask)
      continue;
    if (succ[bi] != SIZE_MAX && b.firstTask == b.lastTask)
      continue;
    // No cycle: walking back from c must not reach b.
    bool cycle = false;
    for (size_t k = ci; k != SIZE_MAX; k = pred[k])
      if (k == bi) {
        cycle = true;
        break;
      }
    if (cycle)
      continue;
    // Padded sizes may order differently from raw sizes; keep the reuser
    // inside the storage it reuses.
    if (sizes[bi] > sizes[ci])
      continue;
    pred[bi] = ci;
    succ[ci] = bi;
  }

  // Storage units: one per chain head, all members at the unit's offset. A
  // unit being placed reserves its largest member's bytes over the union of
  // its members' live ranges; a placed unit blocks, for a later one, only the
  // largest of its members live during that one's range (a reuser smaller
  // than its input frees the tail of the input's storage once it dies).
  struct Unit {
    size_t head;
    std::vector<size_t> members;
    uint64_t size = 0;
    uint64_t alignment = 1;
    int64_t first = 0, last = 0;
    uint64_t offset = 0;
  };
  std::vector<Unit> units;
  std::vector<size_t> unitOf(n, SIZE_MAX);
  for (size_t i : byStart) {
    if (pred[i] != SIZE_MAX)
      continue;
    Unit u;
    u.head = i;
    u.first = buffers[i].firstTask;
    u.last = buffers[i].lastTask;
    for (size_t k = i; k != SIZE_MAX; k = succ[k]) {
      unitOf[k] = units.size();
      u.members.push_back(k);
      u.size = std::max(u.size, sizes[k]);
      u.alignment = std::max(u.alignment, buffers[k].alignment);
      u.first = std::min(u.first, buffers[k].firstTask);
      u.last = std::max(u.last, buffers[k].lastTask);
    }
    units.push_back(u);
  }

  // Places the units in `order`, each at the smallest gap that fits among the
  // units already placed whose live ranges overlap it (best fit), or at the
  // lowest such gap (first fit), else after the highest of them.
  auto place = [&](const std::vector<size_t> &order, bool bestFit,
                   std::vector<uint64_t> &offsets, uint64_t &arena) {
    offsets.assign(units.size(), 0);
    arena = 0;
    // Placed units, ordered by (offset, placement rank).
    std::vector<size_t> placed;
    placed.reserve(units.size());
    for (size_t ui : order) {
      const Unit &u = units[ui];
      uint64_t prevEnd = 0;
      bool found = false;
      uint64_t bestOffset = 0, bestGap = kMaxU64;
      for (size_t pi : placed) {
        const Unit &p = units[pi];
        if (p.size == 0 || !rangesOverlap(u.first, u.last, p.first, p.last))
          continue;
        uint64_t blocked = 0;
        if (p.members.size() == 1) {
          blocked = p.size;
        } else {
          for (size_t k : p.members)
            if (rangesOverlap(u.first, u.last, buffers[k].firstTask,
                              buffers[k].lastTask))
              blocked = std::max(blocked, sizes[k]);
        }
        if (blocked == 0)
          continue;
        uint64_t candidate;
        if (!alignUp(prevEnd, u.alignment, candidate)) {
          error = "arena offset overflows 64 bits";
          return false;
        }
        if (offsets[pi] >= candidate) {
          uint64_t gap = offsets[pi] - candidate;
          if (gap >= u.size && gap < bestGap) {
            found = true;
            bestGap = gap;
            bestOffset = candidate;
            if (!bestFit)
              break;
          }
        }
        prevEnd = std::max(prevEnd, offsets[pi] + blocked);
      }
      if (!found && !alignUp(prevEnd, u.alignment, bestOffset)) {
        error = "arena offset overflows 64 bits";
        return false;
      }
      uint64_t end;
      if (!addChecked(bestOffset, u.size, end)) {
        error = describe(buffers[u.head]) + ": arena end overflows 64 bits";
        return false;
      }
      offsets[ui] = bestOffset;
      arena = std::max(arena, end);
      auto pos = std::upper_bound(
          placed.begin(), placed.end(), ui,
          [&](size_t a, size_t b) { return offsets[a] < offsets[b]; });
      placed.insert(pos, ui);
    }
    return true;
  };

  // The bound is known before placement: a plan that reaches it is optimal
  // for these in-place choices, and the remaining heuristics are skipped.
  if (!peakLiveBytes(buffers, sizes, pred, plan.arenaLowerBoundBytes, error))
    return false;
  std::vector<size_t> none(n, SIZE_MAX);
  if (!peakLiveBytes(buffers, sizes, none, plan.noReuseLowerBoundBytes, error))
    return false;

  // The placement orders. Every comparator ends in the head's id, which is
  // unique, so each order is total and independent of the input order.
  auto headId = [&](size_t u) { return buffers[units[u].head].id; };
  // Greedy by size: largest first; ties by first task (TFLite's ArenaPlanner).
  auto sizeThenFirstTask = [&](size_t a, size_t b) {
    const Unit &ua = units[a], &ub = units[b];
    if (ua.size != ub.size)
      return ua.size > ub.size;
    if (ua.first != ub.first)
      return ua.first < ub.first;
    return headId(a) < headId(b);
  };
  // Greedy by size, ties by last task, latest first: among equal sizes the
  // buffers that outlive the others claim their offsets before the
  // short-lived ones that fill in below them.
  auto sizeThenLastTask = [&](size_t a, size_t b) {
    const Unit &ua = units[a], &ub = units[b];
    if (ua.size != ub.size)
      return ua.size > ub.size;
    if (ua.last != ub.last)
      return ua.last > ub.last;
    if (ua.first != ub.first)
      return ua.first < ub.first;
    return headId(a) < headId(b);
  };
  // Breadth: the largest total of bytes live at any task in the unit's range
  // (the breadth of its most crowded task), then size, first task and id --
  // in the spirit of the paper's "greedy by breadth": the units of the peak
  // are packed first, the rest fill in. Breadth per distinct task where some
  // unit starts (the live total only rises at a start).
  std::vector<unsigned __int128> unitBreadth(units.size(), 0);
  if (options.tryAllHeuristics && units.size() > 1) {
    std::vector<int64_t> starts;
    for (const Unit &u : units)
      starts.push_back(u.first);
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    std::vector<unsigned __int128> breadth(starts.size(), 0);
    for (const Unit &u : units) {
      auto lo = std::lower_bound(starts.begin(), starts.end(), u.first);
      auto hi = std::upper_bound(starts.begin(), starts.end(), u.last);
      for (auto it = lo; it != hi; ++it)
        breadth[size_t(it - starts.begin())] += u.size;
    }
    for (size_t i = 0; i < units.size(); ++i) {
      auto lo = std::lower_bound(starts.begin(), starts.end(), units[i].first);
      auto hi = std::upper_bound(starts.begin(), starts.end(), units[i].last);
      for (auto it = lo; it != hi; ++it)
        unitBreadth[i] =
            std::max(unitBreadth[i], breadth[size_t(it - starts.begin())]);
    }
  }
  auto breadthThenSize = [&](size_t a, size_t b) {
    if (unitBreadth[a] != unitBreadth[b])
      return unitBreadth[a] > unitBreadth[b];
    return sizeThenFirstTask(a, b);
  };

  // The portfolio, primary first. Each order is placed with best fit
  // (TFLite's SimpleMemoryArena: the smallest gap that fits) and with first
  // fit (TFLite Micro's GreedyMemoryPlanner: the lowest gap that fits). The
  // smallest arena wins; ties keep the earlier strategy. No single pair wins
  // everywhere: see docs/memory-planning.md for where each one is needed.
  struct Heuristic {
    PlacementOrder order;
    GapChoice gap;
  };
  std::vector<Heuristic> portfolio = {
      {PlacementOrder::SizeThenFirstTask, GapChoice::BestFit}};
  if (options.tryAllHeuristics)
    portfolio.insert(portfolio.end(),
                     {{PlacementOrder::SizeThenFirstTask, GapChoice::FirstFit},
                      {PlacementOrder::SizeThenLastTask, GapChoice::BestFit},
                      {PlacementOrder::SizeThenLastTask, GapChoice::FirstFit},
                      {PlacementOrder::Breadth, GapChoice::BestFit},
                      {PlacementOrder::Breadth, GapChoice::FirstFit}});
  std::vector<size_t> order(units.size());
  std::vector<uint64_t> unitOffsets, candidateOffsets;
  uint64_t arena = kMaxU64;
  for (const Heuristic &h : portfolio) {
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    switch (h.order) {
    case PlacementOrder::SizeThenFirstTask:
      std::sort(order.begin(), order.end(), sizeThenFirstTask);
      break;
    case PlacementOrder::SizeThenLastTask:
      std::sort(order.begin(), order.end(), sizeThenLastTask);
      break;
    case PlacementOrder::Breadth:
      std::sort(order.begin(), order.end(), breadthThenSize);
      break;
    }
    uint64_t candidateArena = 0;
    if (!place(order, h.gap == GapChoice::BestFit, candidateOffsets,
               candidateArena))
      return false;
    if (candidateArena < arena) {
      arena = candidateArena;
      unitOffsets.swap(candidateOffsets);
      plan.order = h.order;
      plan.gap = h.gap;
    }
    if (arena <= plan.arenaLowerBoundBytes)
      break; // optimal: nothing can beat the bound
  }
  for (size_t i = 0; i < units.size(); ++i)
    units[i].offset = unitOffsets[i];

  plan.buffers.resize(n);
  uint64_t arenaAlignment = 1;
  for (size_t i = 0; i < n; ++i) {
    PlacedBuffer &pb = plan.buffers[i];
    pb.offset = units[unitOf[i]].offset;
    pb.allocatedSize = sizes[i];
    if (pred[i] != SIZE_MAX) {
      pb.reusesStorageOf = buffers[pred[i]].id;
      ++plan.numInPlace;
    }
    arenaAlignment = std::max(arenaAlignment, buffers[i].alignment);
  }
  plan.arenaBytes = arena;
  plan.arenaAlignment = arenaAlignment;

  bool verify = options.verify;
#ifndef NDEBUG
  verify = true;
#endif
  if (verify) {
    std::string why;
    if (!verifyPlan(buffers, plan, why)) {
      error = "internal error: the memory plan is invalid: " + why;
      return false;
    }
  }
  return true;
}

bool verifyPlan(const std::vector<PlanBuffer> &buffers, const MemoryPlan &plan,
                std::string &error) {
  error.clear();
  std::map<uint64_t, size_t> indexOf;
  if (!checkInputs(buffers, indexOf, error))
    return false;
  const size_t n = buffers.size();
  if (plan.buffers.size() != n) {
    error = "the plan places " + std::to_string(plan.buffers.size()) +
            " buffers, the input has " + std::to_string(n);
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    const PlanBuffer &b = buffers[i];
    const PlacedBuffer &p = plan.buffers[i];
    if (p.allocatedSize < b.size) {
      error = describe(b) + ": allocated " + std::to_string(p.allocatedSize) +
              " B, smaller than its size " + std::to_string(b.size) + " B";
      return false;
    }
    if (p.offset % b.alignment != 0) {
      error = describe(b) + ": offset " + std::to_string(p.offset) +
              " is not a multiple of its alignment " +
              std::to_string(b.alignment);
      return false;
    }
    uint64_t end;
    if (!addChecked(p.offset, p.allocatedSize, end) || end > plan.arenaBytes) {
      error = describe(b) + ": [" + std::to_string(p.offset) + ", +" +
              std::to_string(p.allocatedSize) + ") ends outside the arena of " +
              std::to_string(plan.arenaBytes) + " B";
      return false;
    }
    if (p.reusesStorageOf) {
      auto it = indexOf.find(*p.reusesStorageOf);
      if (!b.inPlaceOf || *b.inPlaceOf != *p.reusesStorageOf ||
          it == indexOf.end() ||
          !inPlaceIllegality(b, &buffers[it->second]).empty() ||
          plan.buffers[it->second].offset != p.offset) {
        error = describe(b) + ": claims to reuse id " +
                std::to_string(*p.reusesStorageOf) +
                ", which is not a legal in-place pair at the same offset";
        return false;
      }
    }
  }
  // Sweep in offset order: each buffer against those starting before its end.
  std::vector<size_t> byOffset;
  byOffset.reserve(n);
  for (size_t i = 0; i < n; ++i)
    if (plan.buffers[i].allocatedSize != 0)
      byOffset.push_back(i);
  std::sort(byOffset.begin(), byOffset.end(), [&](size_t a, size_t b) {
    if (plan.buffers[a].offset != plan.buffers[b].offset)
      return plan.buffers[a].offset < plan.buffers[b].offset;
    return a < b;
  });
  auto legalPair = [&](size_t r, size_t c) {
    const PlanBuffer &b = buffers[r];
    if (!b.inPlaceOf || *b.inPlaceOf != buffers[c].id)
      return false;
    return inPlaceIllegality(b, &buffers[c]).empty() &&
           plan.buffers[r].offset == plan.buffers[c].offset;
  };
  for (size_t x = 0; x < byOffset.size(); ++x) {
    size_t a = byOffset[x];
    uint64_t endA = plan.buffers[a].offset + plan.buffers[a].allocatedSize;
    for (size_t y = x + 1; y < byOffset.size(); ++y) {
      size_t b = byOffset[y];
      if (plan.buffers[b].offset >= endA)
        break;
      if (!rangesOverlap(buffers[a].firstTask, buffers[a].lastTask,
                         buffers[b].firstTask, buffers[b].lastTask))
        continue;
      if (legalPair(a, b) || legalPair(b, a))
        continue;
      error = describe(buffers[a]) + " and " + describe(buffers[b]) +
              " are live together (tasks " +
              std::to_string(buffers[a].firstTask) + ".." +
              std::to_string(buffers[a].lastTask) + " and " +
              std::to_string(buffers[b].firstTask) + ".." +
              std::to_string(buffers[b].lastTask) + ") and overlap in memory";
      return false;
    }
  }
  return true;
}

} // namespace backend
} // namespace vinci
