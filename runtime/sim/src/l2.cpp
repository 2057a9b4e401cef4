// The ideal L2: least recently used out first, at byte granularity over the
// envelopes the kernels' GM transfers touched.
#include <algorithm>

#include "l2_impl.h"

namespace vinci::sim {

using detail::HostRange;

L2Model::L2Model() : impl_(std::make_unique<Impl>()) {}
L2Model::~L2Model() = default;
void L2Model::reset() { impl_->clear(); }
uint64_t L2Model::residentBytes() const { return impl_->bytes; }

void L2Model::Impl::clear() {
  resident.clear();
  snapshot.clear();
  bytes = 0;
  next_age = 1;
}

void L2Model::Impl::touch(const std::vector<HostRange>& ranges, uint64_t capacity) {
  for (const HostRange& r : ranges) {
    uint64_t lo = r.lo, hi = r.hi;
    if (lo >= hi) continue;
    const uint64_t age = next_age++;
    // Cut the entries [lo, hi) overlaps, keeping their parts outside it.
    auto it = resident.upper_bound(lo);
    if (it != resident.begin() && std::prev(it)->second.hi > lo) --it;
    while (it != resident.end() && it->first < hi) {
      const uint64_t elo = it->first;
      const Entry e = it->second;
      it = resident.erase(it);
      bytes -= e.hi - elo;
      if (elo < lo) {
        resident.emplace(elo, Entry{lo, e.age});
        bytes += lo - elo;
      }
      if (e.hi > hi) {
        it = resident.emplace(hi, Entry{e.hi, e.age}).first;
        bytes += e.hi - hi;
      }
    }
    resident.emplace(lo, Entry{hi, age});
    bytes += hi - lo;
  }
  if (bytes > capacity) {
    // Oldest first, trimming the last one evicted to what still fits.
    std::vector<std::map<uint64_t, Entry>::iterator> order;
    order.reserve(resident.size());
    for (auto it = resident.begin(); it != resident.end(); ++it) order.push_back(it);
    std::sort(order.begin(), order.end(), [](auto a, auto b) { return a->second.age < b->second.age; });
    for (auto it : order) {
      if (bytes <= capacity) break;
      const uint64_t len = it->second.hi - it->first;
      const uint64_t excess = bytes - capacity;
      if (len <= excess) {
        bytes -= len;
        resident.erase(it);
      } else {  // keep the upper part of the range
        const uint64_t lo = it->first + excess;
        const Entry e = it->second;
        resident.erase(it);
        resident.emplace(lo, e);
        bytes -= excess;
      }
    }
  }
  snapshot.clear();
  for (const auto& [lo, e] : resident) {
    if (!snapshot.empty() && snapshot.back().hi == lo) snapshot.back().hi = e.hi;
    else snapshot.push_back(HostRange{lo, e.hi});
  }
}

}  // namespace vinci::sim
