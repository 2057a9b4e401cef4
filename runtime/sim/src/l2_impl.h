// The ideal L2's state (internal): resident GM ranges with the order they
// were last touched in, and the sorted snapshot kernels look hits up in.
#ifndef VINCI_SIM_L2_IMPL_H
#define VINCI_SIM_L2_IMPL_H

#include <cstdint>
#include <map>
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
  uint64_t bytes = 0;
  uint64_t next_age = 1;
  std::vector<detail::HostRange> snapshot;  // `resident` as sorted disjoint ranges

  // Marks [lo, hi) touched now; evicts the least recently touched bytes
  // beyond `capacity`, then refreshes the snapshot.
  void touch(const std::vector<detail::HostRange>& ranges, uint64_t capacity);
  void clear();
};

}  // namespace vinci::sim

#endif  // VINCI_SIM_L2_IMPL_H
