// CorePool: threads started once and woken per kernel.
#include "pool.h"

#include <algorithm>

namespace vinci::sim {

CorePool::CorePool(unsigned threads) : impl_(std::make_unique<Impl>(threads)) {}
CorePool::~CorePool() = default;
unsigned CorePool::threads() const { return impl_->threads; }

CorePool::Impl::Impl(unsigned n)
    : threads(n ? n : std::max(1u, std::thread::hardware_concurrency())) {
  cores.resize(threads);
  for (unsigned w = 1; w < threads; ++w) workers_.emplace_back([this, w] { loop(w); });
}

CorePool::Impl::~Impl() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

detail::Core& CorePool::Impl::core(unsigned w, const soc::SocSpec& soc) {
  std::unique_ptr<detail::Core>& c = cores[w];
  if (!c || !c->fits(soc)) c = std::make_unique<detail::Core>(soc);
  return *c;
}

const CorePool::Impl::Verdict* CorePool::Impl::findVerdict(const LaunchKey& key) const {
  for (const Verdict& v : verdicts_)
    if (v.key == key) return &v;
  return nullptr;
}

void CorePool::Impl::keepVerdict(Verdict v) {
  if (verdicts_.size() >= 4096) verdicts_.erase(verdicts_.begin());  // a bound, never reached by a model
  verdicts_.push_back(std::move(v));
}

void CorePool::Impl::run(unsigned participants, const std::function<void(unsigned)>& work) {
  participants = std::clamp(participants, 1u, threads);
  if (participants > 1) {
    std::lock_guard<std::mutex> lock(mutex_);
    work_ = &work;
    participants_ = participants;
    pending_ = participants - 1;
    ++generation_;
  }
  if (participants > 1) wake_.notify_all();
  work(0);
  if (participants > 1) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
    work_ = nullptr;
  }
}

void CorePool::Impl::loop(unsigned w) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(unsigned)>* work;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return quit_ || (generation_ != seen && w < participants_); });
      if (quit_) return;
      seen = generation_;
      work = work_;
    }
    (*work)(w);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

}  // namespace vinci::sim
