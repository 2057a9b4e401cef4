// One simulated AI Core: functional execution, the timing model and the
// hazard detector for one block of a kernel (internal).
#ifndef VINCI_SIM_CORE_H
#define VINCI_SIM_CORE_H

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include <utility>

#include "mmad.h"
#include "program_data.h"
#include "timing.h"
#include "vinci/sim/executor.h"

namespace vinci::sim::detail {

struct TraceEvent {
  uint64_t start, duration;
  uint32_t pc;
  Opcode op;
  Pipe pipe;
};

struct GmWrite {
  uint32_t arg;
  uint64_t lo, hi;
};

// A byte range of host memory (GM).
struct HostRange {
  uint64_t lo, hi;
};

// What every block of one kernel shares: the lanes' costs and the L2's
// content when the kernel starts (read-only while the blocks run).
struct KernelTiming {
  const soc::SocSpec* soc = nullptr;
  LaneParams lanes[kNumLanes];
  const L2Model::Impl* l2 = nullptr;
};

struct BlockResult {
  // Back to a fresh result, keeping the vectors' capacity.
  void clear();

  bool ok = true;
  std::string error;
  uint64_t cycles[kNumLanes] = {};  // the block's own timeline length, per lane
  uint64_t pipe_busy[kNumPipes] = {};
  uint64_t pipe_bytes[kNumPipes] = {};
  uint64_t gm_read = 0, gm_written = 0;
  uint64_t fractal_ops = 0;
  uint64_t executed = 0;
  std::vector<std::string> hazards;
  std::vector<TraceEvent> events;
  bool events_truncated = false;
  std::vector<GmWrite> gm_writes;  // exact byte ranges, merged when contiguous
  bool gm_writes_truncated = false;
  std::vector<HostRange> gm_touched;  // envelopes of every GM access, for the L2 (merged)
};

class Core {
 public:
  explicit Core(const soc::SocSpec& soc);
  // Whether this core's buffers have `soc`'s sizes.
  bool fits(const soc::SocSpec& soc) const;
  // Runs block `block_idx`.
  void run(const ProgramData& prog, uint32_t block_idx, const KernelTiming& timing,
           const std::vector<GmRegion>& args, const RunOptions& opt, BlockResult& out);

 private:
  struct FlagToken {
    std::array<uint64_t, kNumLanes> time;  // visible to wait_flag, per lane
    std::array<uint32_t, kNumPipes> clock;
  };
  // One lane's timeline: when each pipe's front end is free, when everything
  // it was given is complete, its queue, its transfers in flight, the GM port.
  struct LaneState {
    uint64_t scalar = 0;
    uint64_t accept[kNumPipes] = {};
    uint64_t done[kNumPipes] = {};
    uint64_t queue[kNumPipes][kMaxQueueDepth] = {};    // start times, a ring
    uint64_t in_flight[kNumPipes][kMaxInFlight] = {};  // completion times, a ring
    uint64_t port_free[2] = {};                        // GM read, write (one if shared)
    // queued_[p] % queue_depth and transfers_[p] % in_flight, kept as rings
    // (a division per lane and instruction otherwise).
    uint32_t queue_pos[kNumPipes] = {}, flight_pos[kNumPipes] = {};
  };
  // A recent vector write: a later vector read of these bytes waits for it.
  struct VecWrite {
    uint8_t space;
    uint64_t lo, hi;
    uint64_t done[kNumLanes];
  };
  static constexpr unsigned kVecWrites = 8;
  struct GmAccess {
    uint64_t lo, hi;
    uint32_t seq;
    uint32_t pc;
    Pipe pipe;
    bool write;
  };
  struct Resolved {
    uint8_t* ptr = nullptr;
    uint64_t offset = 0;
  };

  // The UB bank-conflict cycles of one vector instruction at given operand
  // offsets: a function of the instruction, the offsets and the SoC's bank
  // layout alone, so the core keeps every count it made (across blocks and
  // runs; programs told apart by their serial, tables by the bank layout).
  struct BankKey {
    uint64_t serial;
    uint32_t pc;
    uint64_t ub[kMaxOperands];
    bool operator==(const BankKey& o) const {
      return serial == o.serial && pc == o.pc && std::equal(std::begin(ub), std::end(ub), std::begin(o.ub));
    }
  };
  struct BankKeyHash {
    size_t operator()(const BankKey& k) const {
      uint64_t h = k.serial * 0x9E3779B97F4A7C15ull ^ k.pc;
      for (uint64_t v : k.ub) h = (h ^ v) * 0xff51afd7ed558ccdull;
      return size_t(h ^ (h >> 32));
    }
  };
  uint64_t bankCycles(const Instruction& ins, uint32_t pc, const uint64_t ub[kMaxOperands]);

  void reset(uint32_t num_args);
  bool resolve(const Instruction& ins, uint32_t pc, uint32_t block_idx,
               const std::vector<GmRegion>& args, Resolved out[kMaxOperands], BlockResult& res);
  CostInputs costInputs(const Instruction& ins, uint32_t pc, const Resolved ops[kMaxOperands]);
  uint64_t l2Covered(uint64_t lo, uint64_t hi) const;
  void touchGm(uint64_t lo, uint64_t hi, BlockResult& res);
  bool time(const Instruction& ins, uint32_t pc, bool branch_taken, const Resolved ops[kMaxOperands],
            const RunOptions& opt, BlockResult& res);
  void checkHazards(const Instruction& ins, uint32_t pc, const Resolved ops[kMaxOperands],
                    const std::vector<GmRegion>& args, const RunOptions& opt, BlockResult& res);
  void access(Pipe pipe, uint32_t pc, uint8_t space, uint8_t arg, uint64_t lo, uint64_t len,
              bool write, BlockResult& res);
  void reportHazard(Pipe pipe, uint32_t pc, Pipe other, uint32_t other_seq, uint8_t space,
                    uint8_t arg, uint64_t lo, uint64_t len, bool write, bool other_write,
                    BlockResult& res);
  void recordGmWrites(const Instruction& ins, const Resolved ops[kMaxOperands], BlockResult& res);
  void execute(const Instruction& ins, const Resolved ops[kMaxOperands], BlockResult& res);

  const soc::SocSpec* soc_;  // the run's (timing); buffer sizes fixed at construction
  std::vector<uint8_t> mem_[soc::kNumSpaces];
  MmadScratch scratch_;
  uint32_t iv_[kMaxLoopDepth] = {};
  const ProgramData* prog_ = nullptr;
  const Instruction* code_ = nullptr;
  const uint64_t* foot_ = nullptr;  // the current instruction's operand footprints (ProgramData)

  // Timing.
  const KernelTiming* timing_ = nullptr;
  bool reference_ = false;  // RunOptions::reference_paths
  LaneState lane_[kNumLanes];
  uint64_t queued_[kNumPipes] = {};     // instructions entered per pipe
  uint64_t transfers_[kNumPipes] = {};  // GM transfers issued per pipe
  VecWrite vec_writes_[kVecWrites] = {};
  std::unordered_map<BankKey, uint64_t, BankKeyHash> bank_memo_;
  std::array<double, 3> bank_layout_ = {};  // the bank layout bank_memo_'s counts are for
  uint64_t vec_write_count_ = 0;
  std::deque<FlagToken> flags_[kNumPipes][kNumPipes][8];
  std::vector<HostRange> touched_;  // this block's GM envelopes so far: sorted, disjoint
  // Bytes of each on-chip space the previous block may have written (reset
  // zeroes only these).
  uint64_t dirty_lo_[soc::kNumSpaces] = {}, dirty_hi_[soc::kNumSpaces] = {};

  // Hazards: vector clocks per pipe, last access per 32-byte granule.
  // Sequence numbers keep growing from block to block (a block's start at
  // seq_base_), so the previous blocks' shadow entries are all ordered
  // before every pipe's clock and need no clearing.
  uint32_t seq_base_ = 0;
  uint32_t seq_[kNumPipes] = {};
  std::array<uint32_t, kNumPipes> clock_[kNumPipes] = {};
  std::vector<uint32_t> pc_of_seq_[kNumPipes];
  std::vector<uint32_t> shadow_[soc::kNumSpaces];  // [granule][pipe][write, read]
  // Latest sequence number each pipe wrote / read per space: lets an access
  // skip the pipes it is already ordered after, which is the common case.
  uint32_t space_last_write_[soc::kNumSpaces][kNumPipes] = {};
  uint32_t space_last_read_[soc::kNumSpaces][kNumPipes] = {};
  std::vector<std::vector<GmAccess>> gm_access_;   // per writable GM argument
  size_t hazard_count_ = 0;
};

}  // namespace vinci::sim::detail

#endif  // VINCI_SIM_CORE_H
