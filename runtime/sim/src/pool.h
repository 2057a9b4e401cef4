// The persistent worker pool behind CorePool (internal): host threads that
// sleep between kernels, each with its own simulated core, and the block
// results they fill, all kept between runKernel calls.
#ifndef VINCI_SIM_POOL_H
#define VINCI_SIM_POOL_H

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core.h"
#include "vinci/sim/executor.h"

namespace vinci::sim {

struct CorePool::Impl {
  explicit Impl(unsigned threads);
  ~Impl();

  // Runs work(worker) on `participants` workers (the caller is worker 0) and
  // returns when all are done.
  void run(unsigned participants, const std::function<void(unsigned)>& work);
  // Worker `w`'s core, built on first use for `soc`'s buffer sizes.
  detail::Core& core(unsigned w, const soc::SocSpec& soc);

  unsigned threads;
  std::vector<std::unique_ptr<detail::Core>> cores;
  std::vector<detail::BlockResult> blocks;  // reused: their vectors keep their capacity

  // A kernel launch as the hazard detector sees it.
  struct LaunchKey {
    std::shared_ptr<const detail::ProgramData> program;  // held: the address stays unique
    uint32_t block_dim;
    std::vector<std::pair<uint64_t, bool>> args;         // size, writable
    bool operator==(const LaunchKey& o) const {
      return program == o.program && block_dim == o.block_dim && args == o.args;
    }
  };
  struct Verdict {
    LaunchKey key;
    std::vector<std::string> hazards;  // as runKernel reports them (capped)
    bool found;                        // a hazard, the cross-block check's included
  };
  const Verdict* findVerdict(const LaunchKey& key) const;
  void keepVerdict(Verdict v);

 private:
  void loop(unsigned w);
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(unsigned)>* work_ = nullptr;
  unsigned participants_ = 0;
  unsigned pending_ = 0;
  uint64_t generation_ = 0;
  bool quit_ = false;
  std::vector<Verdict> verdicts_;  // few kernels a model: a linear search
};

}  // namespace vinci::sim

#endif  // VINCI_SIM_POOL_H
