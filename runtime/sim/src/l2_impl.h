// The ideal L2's state (internal): resident GM ranges with the order they
// were last touched in. Kernels look their hits up in it while their blocks
// run (read-only then, from every worker); it changes between kernels.
#ifndef VINCI_SIM_L2_IMPL_H
#define VINCI_SIM_L2_IMPL_H

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "core.h"
#include "vinci/sim/executor.h"

namespace vinci::sim {

struct L2Model::Impl {
  struct Entry {
    uint64_t hi;
    uint64_t age;  // larger: touched later
  };
  using Map = std::map<uint64_t, Entry>;
  Map resident;  // lo -> entry, disjoint
  // (age, lo) of every entry, a min-heap: eviction order, oldest first; the
  // parts of one range cut by a later touch share its age and go out lowest
  // address first. Entries are dropped lazily: a pair is live while
  // `resident` holds lo with that age (a pair can only name that entry).
  std::vector<std::pair<uint64_t, uint64_t>> by_age;
  // Nodes of erased entries, reused by the next inserts (a touch cuts and
  // re-inserts entries: a malloc and a free each otherwise).
  std::vector<Map::node_type> spare;
  uint64_t bytes = 0;
  uint64_t next_age = 1;

  // Marks the ranges touched now, in order; evicts the least recently
  // touched bytes beyond `capacity`.
  void touch(const std::vector<detail::HostRange>& ranges, uint64_t capacity);
  // Bytes of [lo, hi) resident.
  uint64_t covered(uint64_t lo, uint64_t hi) const;
  void clear();

 private:
  void insert(uint64_t lo, Entry e);
  Map::iterator erase(Map::iterator it);
  // The oldest live entry (by_age's live minimum), popped.
  Map::iterator popOldest();
};

}  // namespace vinci::sim

#endif  // VINCI_SIM_L2_IMPL_H
