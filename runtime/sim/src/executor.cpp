// runKernel: spreads the blocks of a kernel over host threads (one Core per
// thread), then folds their results in block order, so nothing printed or
// computed depends on the thread count.
#include <algorithm>
#include <atomic>
#include <functional>
#include <cmath>
#include <thread>

#include "core.h"
#include "l2_impl.h"
#include "pool.h"
#include "trace_impl.h"
#include "vinci/sim/executor.h"

namespace vinci::sim {

namespace {

// Two different blocks writing the same GM byte make the result depend on
// scheduling: report it like a hazard. Each block's ranges are sorted and
// merged first; blocks whose spans are disjoint (the usual split of an
// output) need no further look.
void checkCrossBlockWrites(const std::vector<detail::BlockResult>& blocks, uint32_t block_dim,
                           uint32_t num_args, std::vector<std::string>& hazards, bool& found) {
  struct Range {
    uint64_t lo, hi;
    uint32_t block;
  };
  std::vector<Range> ranges, block_ranges;
  std::vector<Range> spans;
  for (uint32_t arg = 0; arg < num_args; ++arg) {
    ranges.clear();
    spans.clear();
    for (uint32_t b = 0; b < block_dim; ++b) {
      block_ranges.clear();
      for (const detail::GmWrite& w : blocks[b].gm_writes)
        if (w.arg == arg && w.lo < w.hi) block_ranges.push_back(Range{w.lo, w.hi, b});
      if (block_ranges.empty()) continue;
      std::sort(block_ranges.begin(), block_ranges.end(), [](const Range& x, const Range& y) { return x.lo < y.lo; });
      size_t first = ranges.size();
      for (const Range& r : block_ranges) {
        if (ranges.size() > first && r.lo <= ranges.back().hi) ranges.back().hi = std::max(ranges.back().hi, r.hi);
        else ranges.push_back(r);
      }
      spans.push_back(Range{ranges[first].lo, ranges.back().hi, b});
    }
    if (spans.size() < 2) continue;
    std::sort(spans.begin(), spans.end(), [](const Range& x, const Range& y) { return x.lo < y.lo; });
    bool disjoint = true;
    for (size_t i = 1; i < spans.size() && disjoint; ++i) disjoint = spans[i].lo >= spans[i - 1].hi;
    if (disjoint) continue;
    std::sort(ranges.begin(), ranges.end(), [](const Range& x, const Range& y) {
      return x.lo != y.lo ? x.lo < y.lo : x.block < y.block;
    });
    uint64_t reach = 0;
    uint32_t reach_block = 0;
    bool any = false;
    for (const Range& r : ranges) {
      if (any && r.lo < reach && r.block != reach_block) {
        found = true;
        if (hazards.size() < 64)
          hazards.push_back("hazard: blocks " + std::to_string(reach_block) + " and " + std::to_string(r.block) +
                            " both write GM#" + std::to_string(arg) + " bytes [" + std::to_string(r.lo) + ", " +
                            std::to_string(std::min(reach, r.hi)) + "): the result depends on block order");
        break;  // one line per argument
      }
      if (!any || r.hi > reach) {
        reach = r.hi;
        reach_block = r.block;
      }
      any = true;
    }
  }
}

}  // namespace

bool runKernel(const Program& p, uint32_t block_dim, const std::vector<GmRegion>& args,
               const soc::SocSpec& soc, const RunOptions& opt, KernelProfile& profile,
               std::string& error) {
  profile = KernelProfile{};
  const detail::ProgramData* prog = p.data();
  if (!prog) {
    error = "program not decoded";
    return false;
  }
  if (block_dim == 0 || block_dim > kMaxBlockDim) {
    error = "block_dim " + std::to_string(block_dim) + " outside 1..65535";
    return false;
  }
  if (args.size() != prog->num_args) {
    error = "kernel takes " + std::to_string(prog->num_args) + " GM arguments, got " + std::to_string(args.size());
    return false;
  }
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].base == nullptr && args[i].size != 0) {
      error = "GM argument " + std::to_string(i) + " has a size but no memory";
      return false;
    }

  const uint32_t active = std::min(block_dim, soc.ai_core_count);
  detail::KernelTiming timing;
  timing.soc = &soc;
  for (unsigned l = 0; l < detail::kNumLanes; ++l)
    timing.lanes[l] = detail::resolveLane(soc, detail::Lane(l), active);
  timing.l2 = opt.l2 ? &opt.l2->impl() : nullptr;

  std::unique_ptr<CorePool> own_pool;
  CorePool* pool = opt.pool;
  if (!pool) {
    own_pool = std::make_unique<CorePool>(std::min<unsigned>(
        opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency()), block_dim));
    pool = own_pool.get();
  }
  CorePool::Impl& workers = pool->impl();
  std::vector<detail::BlockResult>& blocks = workers.blocks;
  if (blocks.size() < block_dim) blocks.resize(block_dim);
  for (uint32_t b = 0; b < block_dim; ++b) blocks[b].clear();
  // A launch whose hazards are known runs without the detector.
  RunOptions run_opt = opt;
  CorePool::Impl::LaunchKey key;
  const CorePool::Impl::Verdict* known = nullptr;
  if (opt.detect_hazards && opt.pool) {
    key.program = p.shared();
    key.block_dim = block_dim;
    for (const GmRegion& r : args) key.args.emplace_back(r.size, r.writable);
    known = workers.findVerdict(key);
    if (known) run_opt.detect_hazards = false;
  }
  std::atomic<uint32_t> next{0};
  std::atomic<bool> stop{false};
  const std::function<void(unsigned)> work = [&](unsigned w) {
    detail::Core& core = workers.core(w, soc);
    for (;;) {
      if (stop.load(std::memory_order_relaxed)) return;
      const uint32_t b = next.fetch_add(1);
      if (b >= block_dim) return;
      core.run(*prog, b, timing, args, run_opt, blocks[b]);
      if (!blocks[b].ok) stop = true;
    }
  };
  workers.run(std::min<unsigned>(workers.threads, block_dim), work);

  // Fold in block order. The first failing block (lowest index) names the error.
  for (uint32_t b = 0; b < block_dim; ++b)
    if (!blocks[b].ok) {
      error = "block " + std::to_string(b) + ": " + blocks[b].error;
      for (const std::string& h : blocks[b].hazards)
        if (profile.hazards.size() < 64) profile.hazards.push_back("block " + std::to_string(b) + ": " + h);
      return false;
    }

  // The task starts after its launch; blocks go to the SoC's AI cores in
  // order, each to the core free first, and wait for their dispatch there.
  std::vector<uint32_t> core_of(block_dim);
  std::vector<uint64_t> start_of(block_dim);
  uint64_t lane_cycles[detail::kNumLanes];
  for (unsigned l = 0; l < detail::kNumLanes; ++l) {
    const detail::LaneParams& lp = timing.lanes[l];
    std::vector<uint64_t> core_free(active, uint64_t(std::ceil(lp.task_launch)));
    const uint64_t dispatch = uint64_t(std::ceil(lp.block_dispatch));
    for (uint32_t b = 0; b < block_dim; ++b) {
      const auto it = std::min_element(core_free.begin(), core_free.end());
      if (l == 0) {
        core_of[b] = uint32_t(it - core_free.begin());
        start_of[b] = *it + dispatch;
      }
      *it += dispatch + blocks[b].cycles[l];
    }
    lane_cycles[l] = *std::max_element(core_free.begin(), core_free.end());
  }
  profile.cycles = lane_cycles[unsigned(detail::Lane::Nominal)];
  profile.cycles_ideal_l2 = lane_cycles[unsigned(detail::Lane::IdealL2)];
  profile.cycles_low = lane_cycles[unsigned(detail::Lane::Low)];
  profile.cycles_high = lane_cycles[unsigned(detail::Lane::High)];
  profile.block_dim = block_dim;
  profile.cores_used = active;
  profile.block_cycles.resize(block_dim);
  bool cross_truncated = false;
  for (uint32_t b = 0; b < block_dim; ++b) {
    const detail::BlockResult& r = blocks[b];
    profile.block_cycles[b] = r.cycles[0];
    for (unsigned i = 0; i < kNumPipes; ++i) {
      profile.pipe_busy[i] += r.pipe_busy[i];
      profile.mte_bytes[i] += r.pipe_bytes[i];
    }
    profile.gm_bytes_read += r.gm_read;
    profile.gm_bytes_written += r.gm_written;
    profile.cube_fractal_ops += r.fractal_ops;
    profile.instructions_executed += r.executed;
    for (const std::string& h : r.hazards)
      if (profile.hazards.size() < 64) profile.hazards.push_back("block " + std::to_string(b) + ": " + h);
    cross_truncated |= r.gm_writes_truncated;
  }
  if (opt.l2) {
    std::vector<detail::HostRange> touched;
    for (uint32_t b = 0; b < block_dim; ++b)
      touched.insert(touched.end(), blocks[b].gm_touched.begin(), blocks[b].gm_touched.end());
    opt.l2->impl().touch(touched, uint64_t(soc.timing.l2_bytes.value));
  }

  bool cross = false;
  if (run_opt.detect_hazards && !cross_truncated && block_dim > 1)
    checkCrossBlockWrites(blocks, block_dim, prog->num_args, profile.hazards, cross);
  if (known) {
    profile.hazards = known->hazards;
    cross = known->found;
  } else if (opt.detect_hazards && opt.pool) {
    workers.keepVerdict(CorePool::Impl::Verdict{std::move(key), profile.hazards,
                                                cross || !profile.hazards.empty()});
  }

  if (opt.trace) {
    TraceWriter::Impl& t = opt.trace->impl();
    t.clock_hz = soc.clock_hz;
    t.soc_name = soc.name;
    const uint32_t launch = uint32_t(t.launch_names.size());
    t.launch_names.push_back(t.next_name.empty() ? "kernel " + std::to_string(launch) : t.next_name);
    t.next_name.clear();
    for (uint32_t b = 0; b < block_dim; ++b) {
      t.truncated |= blocks[b].events_truncated;
      for (const detail::TraceEvent& e : blocks[b].events)
        t.events.push_back(TraceWriter::Impl::Event{t.base_cycles + start_of[b] + e.start, e.duration,
                                                    core_of[b], b, e.pc, e.op, e.pipe, launch});
    }
    t.max_core = std::max(t.max_core, active - 1);
    t.base_cycles += profile.cycles;
  }

  if (opt.hazards_fatal && (cross || !profile.hazards.empty())) {
    error = profile.hazards.front();
    return false;
  }
  return true;
}

}  // namespace vinci::sim
