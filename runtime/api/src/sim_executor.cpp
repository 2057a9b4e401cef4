// The simulator as an executor: programs are decoded and validated by the
// simulator at model load, and run on simulated AI cores.
#include <memory>

#include "executor.h"
#include "vinci/sim/executor.h"

namespace vinci {
namespace runtime {
namespace {

static_assert(sim::kNumPipes == kNumPipes, "pipe count differs from the simulator's");

class SimKernel final : public PreparedKernel {
 public:
  sim::Program program;
  uint64_t instructionCount() const override { return program.instructionCount(); }
};

class SimSession final : public Session {
 public:
  SimSession(const soc::SocSpec& soc, const SessionOptions& options)
      : soc_(soc), pool_(options.threads) {
    std::string ignored;  // vinci_context_create validated the overrides
    soc::applyTimingOverrides(soc_.timing, options.timing_overrides, ignored);
    options_.threads = options.threads;
    options_.detect_hazards = true;
    options_.hazards_fatal = options.hazards_fatal;
    options_.l2 = &l2_;
    options_.pool = &pool_;
    options_.reference_paths = options.reference_paths;
    if (options.trace) {
      trace_ = std::make_unique<sim::TraceWriter>();
      options_.trace = trace_.get();
    }
  }

  bool run(const PreparedKernel& kernel, const std::string& name, uint32_t block_dim,
           const std::vector<Region>& args, TaskProfile& profile, bool& is_hazard,
           std::string& error) override {
    std::vector<sim::GmRegion> regions(args.size());
    for (size_t i = 0; i < args.size(); ++i)
      regions[i] = sim::GmRegion{args[i].base, args[i].size, args[i].writable};
    if (trace_) trace_->setNextKernelName(name);
    sim::KernelProfile result;
    const bool ok = sim::runKernel(static_cast<const SimKernel&>(kernel).program, block_dim,
                                   regions, soc_, options_, result, error);
    is_hazard = !ok && options_.hazards_fatal && !result.hazards.empty();
    profile.cycles = result.cycles;
    profile.cycles_ideal_l2 = result.cycles_ideal_l2;
    profile.cycles_low = result.cycles_low;
    profile.cycles_high = result.cycles_high;
    profile.block_dim = result.block_dim;
    profile.cores_used = result.cores_used;
    for (unsigned p = 0; p < kNumPipes; ++p) profile.pipe_busy[p] = result.pipe_busy[p];
    profile.gm_bytes_read = result.gm_bytes_read;
    profile.gm_bytes_written = result.gm_bytes_written;
    profile.instructions = result.instructions_executed;
    profile.cube_fractal_ops = result.cube_fractal_ops;
    profile.hazards = std::move(result.hazards);
    return ok;
  }

  void beginRun() override {
    l2_.reset();
    if (!trace_) return;
    trace_ = std::make_unique<sim::TraceWriter>();
    options_.trace = trace_.get();
  }

  std::string traceJson() const override { return trace_ ? trace_->json() : std::string(); }

 private:
  soc::SocSpec soc_;  // the model's SoC, with the session's timing overrides
  sim::RunOptions options_;
  sim::L2Model l2_;
  sim::CorePool pool_;
  std::unique_ptr<sim::TraceWriter> trace_;
};

class SimExecutor final : public Executor {
 public:
  bool prepare(const soc::SocSpec& soc, format::ByteRange program, uint32_t num_args,
               std::unique_ptr<PreparedKernel>& out, std::string& error) const override {
    auto kernel = std::make_unique<SimKernel>();
    if (!sim::decodeProgram(program.data, static_cast<size_t>(program.size), soc, num_args,
                            kernel->program, error))
      return false;
    out = std::move(kernel);
    return true;
  }

  std::unique_ptr<Session> newSession(const soc::SocSpec& soc,
                                      const SessionOptions& options) const override {
    return std::make_unique<SimSession>(soc, options);
  }
};

}  // namespace

const Executor& simulatorExecutor() {
  static const SimExecutor executor;
  return executor;
}

}  // namespace runtime
}  // namespace vinci
