// The executor interface: what the runtime needs from whatever runs kernels.
//
// The simulator is the one implementation today (sim_executor.cpp). A device
// adapter over AscendCL would implement the same two classes: prepare() turns
// a kernel's program bytes into something runnable at model load (so a bad
// program is rejected there, not at run time), and a Session runs prepared
// kernels for one context.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vinci/format/container.h"
#include "vinci/soc.h"

namespace vinci {
namespace runtime {

inline constexpr unsigned kNumPipes = 6;  // S, V, M, MTE1, MTE2, MTE3

// One kernel argument: a range of global memory.
struct Region {
  uint8_t* base = nullptr;
  uint64_t size = 0;
  bool writable = false;
};

struct TaskProfile {
  uint64_t cycles = 0;           // nominal timing table, no L2
  uint64_t cycles_ideal_l2 = 0;  // nominal, ideal L2
  uint64_t cycles_low = 0;       // every cost at its optimistic end, ideal L2
  uint64_t cycles_high = 0;      // every cost at its pessimistic end, no L2
  uint32_t block_dim = 0;
  uint32_t cores_used = 0;
  uint64_t pipe_busy[kNumPipes] = {};
  uint64_t gm_bytes_read = 0;
  uint64_t gm_bytes_written = 0;
  uint64_t instructions = 0;
  uint64_t cube_fractal_ops = 0;
  std::vector<std::string> hazards;
};

class PreparedKernel {
 public:
  virtual ~PreparedKernel() = default;
  virtual uint64_t instructionCount() const = 0;
};

struct SessionOptions {
  unsigned threads = 0;
  bool hazards_fatal = false;
  bool trace = false;
  std::string timing_overrides;  // validated by the caller (soc::applyTimingOverrides)
  bool reference_paths = false;
};

// Runs prepared kernels for one context; not shared between threads.
class Session {
 public:
  virtual ~Session() = default;
  // False on failure, with a one-line `error`; `is_hazard` tells a fatal
  // pipe hazard from other failures.
  virtual bool run(const PreparedKernel& kernel, const std::string& name, uint32_t block_dim,
                   const std::vector<Region>& args, TaskProfile& profile, bool& is_hazard,
                   std::string& error) = 0;
  // Called at the start of each run: a fresh timeline (when tracing) and a
  // cold L2 model.
  virtual void beginRun() = 0;
  // The timeline of the current run as Chrome-trace JSON.
  virtual std::string traceJson() const = 0;
};

// Shared by a model and all its contexts; must be thread-safe.
class Executor {
 public:
  virtual ~Executor() = default;
  virtual bool prepare(const soc::SocSpec& soc, format::ByteRange program, uint32_t num_args,
                       std::unique_ptr<PreparedKernel>& out, std::string& error) const = 0;
  virtual std::unique_ptr<Session> newSession(const soc::SocSpec& soc,
                                              const SessionOptions& options) const = 0;
};

// The built-in AI Core simulator.
const Executor& simulatorExecutor();

}  // namespace runtime
}  // namespace vinci
