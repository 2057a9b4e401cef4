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
  by_age.clear();
  bytes = 0;
  next_age = 1;
}

void L2Model::Impl::insert(uint64_t lo, Entry e) {
  resident.emplace(lo, e);
  by_age.emplace(e.age, lo);
  bytes += e.hi - lo;
}

std::map<uint64_t, L2Model::Impl::Entry>::iterator L2Model::Impl::erase(
    std::map<uint64_t, Entry>::iterator it) {
  by_age.erase({it->second.age, it->first});
  bytes -= it->second.hi - it->first;
  return resident.erase(it);
}

void L2Model::Impl::touch(const std::vector<HostRange>& ranges, uint64_t capacity) {
  for (const HostRange& r : ranges) {
    const uint64_t lo = r.lo, hi = r.hi;
    if (lo >= hi) continue;
    const uint64_t age = next_age++;
    // Cut the entries [lo, hi) overlaps, keeping their parts outside it.
    auto it = resident.upper_bound(lo);
    if (it != resident.begin() && std::prev(it)->second.hi > lo) --it;
    while (it != resident.end() && it->first < hi) {
      const uint64_t elo = it->first;
      const Entry e = it->second;
      it = erase(it);
      if (elo < lo) insert(elo, Entry{lo, e.age});
      if (e.hi > hi) insert(hi, Entry{e.hi, e.age});
    }
    insert(lo, Entry{hi, age});
  }
  // Oldest first, trimming the last one evicted to what still fits (its
  // upper part stays).
  while (bytes > capacity) {
    const auto it = resident.find(by_age.begin()->second);
    const uint64_t len = it->second.hi - it->first, excess = bytes - capacity;
    const Entry e = it->second;
    const uint64_t lo = it->first;
    erase(it);
    if (len > excess) insert(lo + excess, e);
  }
}

uint64_t L2Model::Impl::covered(uint64_t lo, uint64_t hi) const {
  if (lo >= hi) return 0;
  auto it = resident.upper_bound(lo);
  if (it != resident.begin() && std::prev(it)->second.hi > lo) --it;
  uint64_t n = 0;
  for (; it != resident.end() && it->first < hi; ++it)
    n += std::min(hi, it->second.hi) - std::max(lo, it->first);
  return n;
}

}  // namespace vinci::sim
