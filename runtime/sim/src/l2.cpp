// The ideal L2: least recently used out first, at byte granularity over the
// envelopes the kernels' GM transfers touched.
#include <algorithm>
#include <functional>

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
  spare.clear();
  bytes = 0;
  next_age = 1;
}

namespace {
constexpr auto kOlder = std::greater<std::pair<uint64_t, uint64_t>>();  // min-heap on (age, lo)
constexpr size_t kSpareNodes = 256;
}  // namespace

void L2Model::Impl::insert(uint64_t lo, Entry e) {
  if (!spare.empty()) {
    Map::node_type node = std::move(spare.back());
    spare.pop_back();
    node.key() = lo;
    node.mapped() = e;
    resident.insert(std::move(node));
  } else {
    resident.emplace(lo, e);
  }
  by_age.emplace_back(e.age, lo);
  std::push_heap(by_age.begin(), by_age.end(), kOlder);
  bytes += e.hi - lo;
}

L2Model::Impl::Map::iterator L2Model::Impl::erase(Map::iterator it) {
  bytes -= it->second.hi - it->first;
  const auto next = std::next(it);
  Map::node_type node = resident.extract(it);
  if (spare.size() < kSpareNodes) spare.push_back(std::move(node));
  // Dead pairs outnumbering the live ones: rebuild the heap from the entries.
  if (by_age.size() > 4 * resident.size() + 64) {
    by_age.clear();
    for (const auto& [lo, entry] : resident) by_age.emplace_back(entry.age, lo);
    std::make_heap(by_age.begin(), by_age.end(), kOlder);
  }
  return next;
}

L2Model::Impl::Map::iterator L2Model::Impl::popOldest() {
  for (;;) {
    std::pop_heap(by_age.begin(), by_age.end(), kOlder);
    const auto [age, lo] = by_age.back();
    by_age.pop_back();
    const auto it = resident.find(lo);
    if (it != resident.end() && it->second.age == age) return it;
  }
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
    const auto it = popOldest();
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
