// The AI Core simulator's executor interface: decode an untrusted kernel
// program, run it on simulated cores, read back its profile.
//
// This header is the contract between the simulator and its users (the .om
// runtime, the tools, the tests). The binary program encoding is documented
// in docs/isa.md; build programs with vinci/sim/assembler.h.
//
// Every figure the simulator reports models an Ascend 310P-class AI Core from
// published numbers (see the timing table in vinci/soc.h and docs/isa.md); it
// is not a measurement of hardware.
#ifndef VINCI_SIM_EXECUTOR_H
#define VINCI_SIM_EXECUTOR_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vinci/soc.h"

namespace vinci::sim {

// The pipes of one AI Core. Every instruction names the pipe it runs on.
enum class Pipe : uint8_t { S = 0, V = 1, M = 2, MTE1 = 3, MTE2 = 4, MTE3 = 5 };
inline constexpr unsigned kNumPipes = 6;
// pipe_barrier(kPipeAll) orders every pipe against every other.
inline constexpr uint8_t kPipeAll = 6;
const char* pipeName(Pipe p);

// One kernel argument: a GM buffer owned by the caller.
struct GmRegion {
  uint8_t* base = nullptr;
  uint64_t size = 0;
  bool writable = false;
};

// Collects a Chrome-trace JSON timeline (open it in Perfetto or
// chrome://tracing): one process per simulated core, one track per pipe.
// Successive kernels run through the same writer are laid end to end; an
// event's args give its launch (the index of its runKernel call, counted in
// otherData.launches), kernel name, block and pc.
// Not thread-safe: use one writer per thread / execution context.
class TraceWriter {
 public:
  TraceWriter();
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Called by runKernel. `kernel_name` labels the events of this kernel.
  void setNextKernelName(std::string name);
  // The JSON document ({"traceEvents": [...]}) for everything recorded so far.
  std::string json() const;
  // Writes json() to `path`. Returns false and sets `error` on I/O failure.
  bool writeFile(const std::string& path, std::string& error) const;
  size_t eventCount() const;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// The ideal L2 behind the "ideal L2" figures: the GM bytes the kernels of one
// run have touched (each transfer by its envelope), least recently used out
// first at the SoC's L2 capacity; cold after reset(). Kernels run through the
// same model see what earlier ones left. Not thread-safe: one per execution
// context, like TraceWriter.
class L2Model {
 public:
  L2Model();
  ~L2Model();
  L2Model(const L2Model&) = delete;
  L2Model& operator=(const L2Model&) = delete;

  void reset();
  uint64_t residentBytes() const;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Host threads and simulated cores kept between runKernel calls, so that a
// kernel pays neither for starting threads nor for allocating and clearing
// core buffers (a block's core is reset by what the previous block wrote).
// It also keeps each kernel's hazard verdict: every address the detector
// sees is affine in the block and loop indices (copy_gather's table counts
// whole), so a program run again with the same block_dim and argument sizes
// and writability has the same hazards, and is not checked twice.
// `threads` = 0: hardware concurrency. Use one pool per execution context;
// runKernel calls through one pool must not overlap.
class CorePool {
 public:
  explicit CorePool(unsigned threads = 0);
  ~CorePool();
  CorePool(const CorePool&) = delete;
  CorePool& operator=(const CorePool&) = delete;
  unsigned threads() const;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

struct RunOptions {
  unsigned threads = 0;        // host threads for the cores; 0 = hardware concurrency
  bool detect_hazards = true;  // record accesses and check pipe ordering
  bool hazards_fatal = false;  // the first hazard fails the run (runKernel returns false)
  TraceWriter* trace = nullptr;  // optional timeline sink
  L2Model* l2 = nullptr;         // the run's L2; nullptr: every kernel starts with it cold
  CorePool* pool = nullptr;      // threads and cores to run on (then `threads` is the pool's);
                                 // nullptr: a pool for this call only
  // Every instruction through its reference path (scalar functional code,
  // the general timing counts) instead of its fast one. Results, profiles and
  // traces are identical by design; for the equivalence tests.
  bool reference_paths = false;
};

// What one runKernel call did, in the timing model (cycles at soc.clock_hz).
// Each latency comes four ways (docs/isa.md, "Error bars"): the timing
// table's nominal values without L2 (`cycles`), the same with an ideal L2,
// and every cost at its optimistic end with the ideal L2 (`cycles_low`) or at
// its pessimistic end without L2 (`cycles_high`).
struct KernelProfile {
  uint64_t cycles = 0;  // makespan: task launch, then blocks dispatched over the SoC's AI cores
  uint64_t cycles_ideal_l2 = 0;
  uint64_t cycles_low = 0;
  uint64_t cycles_high = 0;
  uint32_t block_dim = 0;
  uint32_t cores_used = 0;                   // min(block_dim, soc.ai_core_count)
  uint64_t pipe_busy[kNumPipes] = {};        // busy cycles per pipe, summed over blocks
  uint64_t mte_bytes[kNumPipes] = {};        // bytes moved, by pipe (MTE1, MTE2, MTE3, V for L0C->UB / UB->UB)
  uint64_t gm_bytes_read = 0;
  uint64_t gm_bytes_written = 0;
  uint64_t cube_fractal_ops = 0;             // fractal steps the Cube executed
  uint64_t instructions_executed = 0;        // dynamic count over all blocks
  std::vector<uint64_t> block_cycles;        // per block, its own timeline length (nominal)
  std::vector<std::string> hazards;          // one line per hazard found (capped at 64)
};

namespace detail {
struct ProgramData;
}

// A decoded and validated kernel program. Immutable once decoded; copies share
// the data, so one Program may run on many threads at once.
class Program {
 public:
  Program();
  ~Program();
  Program(const Program&);
  Program& operator=(const Program&);

  bool valid() const;
  // Static instruction count and per-block dynamic count (loops unrolled).
  size_t instructionCount() const;
  uint64_t dynamicInstructionCount() const;
  uint32_t numArgs() const;
  // One line per instruction: pc, pipe, op, operands, parameters.
  std::string disassemble() const;

  const detail::ProgramData* data() const { return data_.get(); }
  const std::shared_ptr<const detail::ProgramData>& shared() const { return data_; }
  void reset(std::shared_ptr<const detail::ProgramData> d);

 private:
  std::shared_ptr<const detail::ProgramData> data_;
};

// Decodes and validates untrusted program bytes for `soc`: header and version,
// every opcode, pipe, dtype and field, every buffer operand (space, affine
// offset, extent) against the SoC's sizes and alignment, every GM argument
// index < num_args, loop nesting and trip counts, and the total dynamic
// instruction count per block (docs/isa.md gives the caps). On failure returns
// false and a one-line message naming the instruction; never crashes.
bool decodeProgram(const uint8_t* bytes, size_t size, const soc::SocSpec& soc,
                   uint32_t num_args, Program& out, std::string& error);

// Runs block_dim copies of `p` (block_idx 0..block_dim-1), each on its own
// simulated core with fresh on-chip buffers, spread over host threads. GM
// accesses are bounds-checked against `args` at run time; a read-only region
// written is an error. Results do not depend on opt.threads. On error returns
// false with a one-line message (the GM contents are then unspecified).
bool runKernel(const Program& p, uint32_t block_dim, const std::vector<GmRegion>& args,
               const soc::SocSpec& soc, const RunOptions& opt, KernelProfile& profile,
               std::string& error);

// The program encoding's version; decodeProgram accepts exactly this one.
inline constexpr uint16_t kProgramFormatVersion = 1;

}  // namespace vinci::sim

#endif  // VINCI_SIM_EXECUTOR_H
