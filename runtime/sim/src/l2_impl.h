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
  std::map<uint64_t, Entry> resident;  // lo -> entry, disjoint
  // (age, lo) of every entry: eviction order, oldest first; the parts of one
  // range cut by a later touch share its age and go out lowest address first.
  std::set<std::pair<uint64_t, uint64_t>> by_age;
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
  std::map<uint64_t, Entry>::iterator erase(std::map<uint64_t, Entry>::iterator it);
};

}  // namespace vinci::sim

#endif  // VINCI_SIM_L2_IMPL_H
