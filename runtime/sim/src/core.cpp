// One simulated AI Core. For every dynamic instruction, in program order:
// resolve its affine operands and bounds-check them, advance the timing model,
// check the accesses against the other pipes (hazard detector), then execute it.
#include "core.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "load3d.h"
#include "vector.h"

namespace vinci::sim::detail {

using soc::Space;

namespace {
constexpr uint64_t kGranuleBytes = 32;      // on-chip hazard tracking granule
constexpr size_t kMaxHazardLines = 64;
constexpr size_t kMaxTraceEventsPerBlock = 1u << 18;
constexpr size_t kMaxGmWritesPerBlock = 1u << 20;
constexpr size_t kGmPruneThreshold = 4096;

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
uint64_t cycles(double v) { return v <= 0 ? 0 : uint64_t(std::ceil(v)); }

bool writesSlot(const Instruction& ins, unsigned slot) { return slot == 0 && ins.op != Opcode::Nop; }

bool isComplexVector(Opcode op) {
  return op == Opcode::VExp || op == Opcode::VLn || op == Opcode::VSqrt || op == Opcode::VRsqrt ||
         op == Opcode::VRec || op == Opcode::VDiv;
}
}  // namespace

Core::Core(const soc::SocSpec& soc) : soc_(soc) {
  for (unsigned s = 1; s < soc::kNumSpaces; ++s) mem_[s].resize(soc.bufferBytes(Space(s)));
  const size_t depth = std::max<size_t>(1, size_t(soc.timing.pipe_queue_depth.value));
  for (auto& q : queue_start_) q.assign(depth, 0);
}

void Core::reset(uint32_t num_args) {
  for (unsigned s = 1; s < soc::kNumSpaces; ++s) std::fill(mem_[s].begin(), mem_[s].end(), 0);
  scalar_time_ = 0;
  for (unsigned p = 0; p < kNumPipes; ++p) {
    pipe_free_[p] = 0;
    std::fill(queue_start_[p].begin(), queue_start_[p].end(), 0);
    queued_[p] = 0;
    seq_[p] = 0;
    clock_[p].fill(0);
    pc_of_seq_[p].clear();
    for (auto& row : flags_[p])
      for (auto& q : row) q.clear();
  }
  for (auto& sh : shadow_) sh.clear();
  std::memset(space_last_write_, 0, sizeof space_last_write_);
  std::memset(space_last_read_, 0, sizeof space_last_read_);
  gm_access_.assign(num_args, {});
  hazard_count_ = 0;
  std::fill(std::begin(iv_), std::end(iv_), 0);
}

bool Core::resolve(const Instruction& ins, uint32_t pc, uint32_t block_idx,
                   const std::vector<GmRegion>& args, Resolved out[kMaxOperands], BlockResult& res) {
  for (unsigned s = 0; s < kMaxOperands; ++s) {
    const Operand& a = ins.operand[s];
    if (!a.used()) continue;
    // |terms| < 2^40 + 2*2^31*2^16 + 4*2^31*2^24: no overflow in int64.
    int64_t off = a.base;
    if (a.block_split == 0) {
      off += int64_t(a.block_coef) * int64_t(block_idx);
    } else {
      off += int64_t(a.block_coef) * int64_t(block_idx % a.block_split) +
             int64_t(a.block_row_coef) * int64_t(block_idx / a.block_split);
    }
    for (unsigned d = 0; d < kMaxLoopDepth; ++d) off += int64_t(a.iv_coef[d]) * int64_t(iv_[d]);
    uint8_t* base;
    uint64_t size;
    if (Space(a.space) == Space::GM) {
      const GmRegion& r = args[a.arg];
      base = r.base;
      size = r.base ? r.size : 0;
      if (writesSlot(ins, s) && !r.writable) {
        res.ok = false;
        res.error = "pc " + std::to_string(pc) + " (" + opcodeName(ins.op) + "): writes read-only GM argument " + std::to_string(a.arg);
        return false;
      }
    } else {
      base = mem_[a.space].data();
      size = mem_[a.space].size();
    }
    if (off < 0 || uint64_t(off) > size || a.extent > size - uint64_t(off)) {
      res.ok = false;
      res.error = "pc " + std::to_string(pc) + " (" + opcodeName(ins.op) + "): operand " + std::to_string(s) + " " +
                  soc::spaceName(Space(a.space)) + (Space(a.space) == Space::GM ? "#" + std::to_string(a.arg) : "") +
                  " range [" + std::to_string(off) + ", " + std::to_string(off + int64_t(a.extent)) +
                  ") outside the " + std::to_string(size) + "-byte buffer (block " + std::to_string(block_idx) + ")";
      return false;
    }
    out[s].ptr = base + off;
    out[s].offset = uint64_t(off);
  }
  return true;
}

// Cycles an instruction occupies its pipe, from the SoC's timing table.
uint64_t Core::cost(const Instruction& ins, uint64_t& bytes) const {
  const soc::TimingTable& t = soc_.timing;
  const uint32_t* p = ins.p;
  const uint64_t es = dtypeBytes(ins.dtype);
  const double granule = t.gm_burst_granule_bytes.value;
  auto gm = [&](double startup, uint64_t bursts, uint64_t burst_bytes) {
    bytes = bursts * uint64_t(std::ceil(double(burst_bytes) / granule) * granule);
    return cycles(startup + double(bursts) * t.dma_burst_overhead_cycles.value +
                  double(bytes) / gm_bytes_per_cycle_);
  };
  auto onchip = [&](double startup, uint64_t n, double per_cycle) {
    bytes = n;
    return cycles(startup + double(n) / per_cycle);
  };
  bytes = 0;
  switch (ins.op) {
    case Opcode::Copy: {
      const Space d = Space(ins.operand[0].space), s = Space(ins.operand[1].space);
      if (s == Space::GM) return gm(t.mte2_startup_cycles.value, p[0], p[1]);
      if (d == Space::GM) return gm(t.mte3_startup_cycles.value, p[0], p[1]);
      if (ins.pipe == Pipe::V)
        return onchip(t.vector_issue_cycles.value, uint64_t(p[0]) * p[1], t.local_copy_bytes_per_cycle.value);
      return onchip(t.mte1_startup_cycles.value, uint64_t(p[0]) * p[1], t.mte1_bytes_per_cycle.value);
    }
    case Opcode::CopyNd2Nz: return gm(t.mte2_startup_cycles.value, p[0], p[1] * es);
    case Opcode::CopyNz2Nd: return gm(t.mte3_startup_cycles.value, p[0], p[1] * es);
    case Opcode::CopyNchw2Nc1hwc0: return gm(t.mte2_startup_cycles.value, p[0], p[1] * es);
    case Opcode::CopyGather:
      // One burst per row, each address computed by the Scalar unit from
      // the index it reads out of UB (assumption: an issue slot per row).
      return gm(t.mte2_startup_cycles.value, p[0], p[1]) +
             cycles(double(p[0]) * t.scalar_issue_cycles.value);
    case Opcode::LoadFractals:
      return onchip(t.mte1_startup_cycles.value, uint64_t(p[0]) * p[1] * 512, t.mte1_bytes_per_cycle.value);
    case Opcode::Load3d:
      return cycles(load3dCycles(ins, t, bytes));
    case Opcode::Mmad: {
      const soc::FractalShape& f =
          soc_.cube_fractal[unsigned(ins.dtype == DType::S8 ? soc::CubeInput::S8
                                     : ins.dtype == DType::BF16 ? soc::CubeInput::BF16
                                                                : soc::CubeInput::F16)];
      const uint64_t fractals = ceilDiv(p[0], f.m) * ceilDiv(p[1], f.n) * ceilDiv(p[2], f.k);
      return cycles(t.cube_startup_cycles.value + double(fractals) / t.cube_fractals_per_cycle.value);
    }
    case Opcode::MoveL0cToUb:
      return onchip(t.vector_issue_cycles.value, uint64_t(p[0]) * p[1] * es, t.local_copy_bytes_per_cycle.value);
    case Opcode::VTranspose:
      return cycles(t.vector_issue_cycles.value + double(p[0]) * t.vector_repeat_cycles.value);
    default:
      break;
  }
  if (isVectorOp(ins.op)) {
    const double per = isComplexVector(ins.op) ? t.vector_complex_repeat_cycles.value : t.vector_repeat_cycles.value;
    const bool strided = p[param::DstBlk] > 1 || p[param::Src0Blk] > 1 || p[param::Src1Blk] > 1;
    const double repeats = p[param::Repeat];
    return cycles(t.vector_issue_cycles.value + repeats * per +
                  (strided ? repeats * t.vector_strided_penalty_cycles.value : 0.0));
  }
  return 0;
}

// The timing model: the Scalar unit issues in program order; each instruction
// waits for its pipe's queue, its pipe and (wait_flag) its flag.
bool Core::time(const Instruction& ins, uint32_t pc, bool branch_taken, const RunOptions& opt,
                BlockResult& res) {
  const soc::TimingTable& t = soc_.timing;
  const uint64_t issue = cycles(t.scalar_issue_cycles.value);
  // The instruction reaches its pipe once the Scalar unit has issued it.
  uint64_t now = scalar_time_ + issue;
  scalar_time_ += issue + (branch_taken ? cycles(t.loop_branch_cycles.value) : 0);
  res.pipe_busy[unsigned(Pipe::S)] += issue;

  if (ins.op == Opcode::PipeBarrier && ins.p[0] == kPipeAll) {
    uint64_t all = scalar_time_;
    for (uint64_t f : pipe_free_) all = std::max(all, f);
    all += cycles(t.barrier_cycles.value);
    for (uint64_t& f : pipe_free_) f = all;
    scalar_time_ = all;
    return true;
  }
  if (ins.pipe == Pipe::S) return true;

  // Enter the pipe's queue: the instruction `depth` places earlier must have started.
  const unsigned P = unsigned(ins.pipe);
  std::vector<uint64_t>& ring = queue_start_[P];
  uint64_t& slot = ring[queued_[P] % ring.size()];
  if (queued_[P] >= ring.size() && slot > now) {
    now = slot;
    scalar_time_ = now;  // the Scalar unit stalled until the queue had room
  }
  uint64_t start = std::max(now, pipe_free_[P]);
  uint64_t duration = 0, bytes = 0;
  switch (ins.op) {
    case Opcode::SetFlag:
      flags_[ins.p[0]][ins.p[1]][ins.p[2]].push_back(
          FlagToken{start + cycles(t.flag_latency_cycles.value), clock_[ins.p[0]]});
      duration = 1;
      break;
    case Opcode::WaitFlag: {
      auto& q = flags_[ins.p[0]][ins.p[1]][ins.p[2]];
      if (q.empty()) {
        res.ok = false;
        res.error = "pc " + std::to_string(pc) + " (wait_flag " + pipeName(Pipe(ins.p[0])) + "->" +
                    pipeName(Pipe(ins.p[1])) + " event " + std::to_string(ins.p[2]) +
                    "): no set_flag earlier in program order; the pipes would deadlock";
        return false;
      }
      const FlagToken tok = q.front();
      q.pop_front();
      start = std::max(start, tok.time);
      for (unsigned i = 0; i < kNumPipes; ++i) clock_[P][i] = std::max(clock_[P][i], tok.clock[i]);
      duration = 1;
      break;
    }
    case Opcode::PipeBarrier:
      duration = cycles(t.barrier_cycles.value);
      break;
    default:
      duration = cost(ins, bytes);
      res.pipe_busy[P] += duration;
      res.pipe_bytes[P] += bytes;
      if (ins.operand[1].used() && Space(ins.operand[1].space) == Space::GM) res.gm_read += bytes;
      if (ins.operand[0].used() && Space(ins.operand[0].space) == Space::GM) res.gm_written += bytes;
      if (ins.op == Opcode::Mmad) {
        const uint32_t k0 = ins.dtype == DType::S8 ? 32 : 16;
        res.fractal_ops += ceilDiv(ins.p[0], 16) * ceilDiv(ins.p[1], 16) * ceilDiv(ins.p[2], k0);
      }
      break;
  }
  slot = start;
  ++queued_[P];
  pipe_free_[P] = start + duration;
  if (opt.trace && ins.op != Opcode::SetFlag && ins.op != Opcode::WaitFlag) {
    if (res.events.size() < kMaxTraceEventsPerBlock)
      res.events.push_back(TraceEvent{start, duration, pc, ins.op, ins.pipe});
    else
      res.events_truncated = true;
  }
  return true;
}

void Core::reportHazard(Pipe pipe, uint32_t pc, Pipe other, uint32_t other_seq, uint8_t space,
                        uint8_t arg, uint64_t lo, uint64_t len, bool write, bool other_write,
                        BlockResult& res) {
  ++hazard_count_;
  if (res.hazards.size() >= kMaxHazardLines) return;
  const uint32_t other_pc = pc_of_seq_[unsigned(other)][other_seq - 1];
  std::string where = soc::spaceName(Space(space));
  if (Space(space) == Space::GM) where += "#" + std::to_string(arg);
  res.hazards.push_back("hazard: pc " + std::to_string(pc) + " " + opcodeName(code_[pc].op) + " (" +
                        pipeName(pipe) + ", " + (write ? "write" : "read") + " " + where + " [" +
                        std::to_string(lo) + ", " + std::to_string(lo + len) + ")) is not ordered after pc " +
                        std::to_string(other_pc) + " " + opcodeName(code_[other_pc].op) + " (" +
                        pipeName(other) + ", " + (other_write ? "write" : "read") +
                        " of an overlapping range): missing set_flag/wait_flag or barrier");
}

// Records one access by `pipe` and checks it against the last accesses of the
// other pipes that its vector clock does not cover.
void Core::access(Pipe pipe, uint32_t pc, uint8_t space, uint8_t arg, uint64_t lo, uint64_t len,
                  bool write, BlockResult& res) {
  const unsigned P = unsigned(pipe);
  const uint32_t seq = seq_[P];
  const auto& clk = clock_[P];
  if (Space(space) == Space::GM) {
    std::vector<GmAccess>& list = gm_access_[arg];
    const uint64_t hi = lo + len;
    bool reported = false;
    for (const GmAccess& a : list) {
      if (a.pipe == pipe || (!write && !a.write) || a.seq <= clk[unsigned(a.pipe)]) continue;
      if (a.lo < hi && lo < a.hi && !reported) {
        reportHazard(pipe, pc, a.pipe, a.seq, space, arg, lo, len, write, a.write, res);
        reported = true;
      }
    }
    list.push_back(GmAccess{lo, hi, seq, pc, pipe, write});
    if (list.size() > kGmPruneThreshold) {
      // Drop accesses every other pipe is already ordered after.
      list.erase(std::remove_if(list.begin(), list.end(),
                                [&](const GmAccess& a) {
                                  for (unsigned q = 0; q < kNumPipes; ++q)
                                    if (q != unsigned(a.pipe) && clock_[q][unsigned(a.pipe)] < a.seq) return false;
                                  return true;
                                }),
                 list.end());
    }
    return;
  }
  // Shadow layout: one array of granules per (pipe, write/read) slot, so that
  // recording an access is a contiguous fill.
  std::vector<uint32_t>& sh = shadow_[space];
  const uint64_t granules = mem_[space].size() / kGranuleBytes;
  if (sh.empty()) sh.assign(granules * kNumPipes * 2, 0);
  const uint64_t g0 = lo / kGranuleBytes, g1 = ceilDiv(lo + len, kGranuleBytes);
  // Only pipes with an access to this space that `pipe` is not yet ordered after can conflict.
  unsigned candidates[kNumPipes];
  unsigned num_candidates = 0;
  for (unsigned q = 0; q < kNumPipes; ++q)
    if (q != P && (space_last_write_[space][q] > clk[q] || (write && space_last_read_[space][q] > clk[q])))
      candidates[num_candidates++] = q;
  (write ? space_last_write_ : space_last_read_)[space][P] = seq;
  const unsigned slot = P * 2 + (write ? 0 : 1);
  uint32_t* const base = sh.data();
  for (unsigned ci = 0; ci < num_candidates; ++ci) {
    const unsigned q = candidates[ci];
    const uint32_t* wq = base + (q * 2) * granules;
    const uint32_t* rq = base + (q * 2 + 1) * granules;
    for (uint64_t g = g0; g < g1; ++g) {
      const uint32_t w = wq[g], r = write ? rq[g] : 0;
      if (w > clk[q] || r > clk[q]) {
        reportHazard(pipe, pc, Pipe(q), w > clk[q] ? w : r, space, arg, lo, len, write, w > clk[q], res);
        ci = num_candidates;  // one report per access
        break;
      }
    }
  }
  std::fill(base + slot * granules + g0, base + slot * granules + g1, seq);
}

void Core::checkHazards(const Instruction& ins, uint32_t pc, const Resolved ops[kMaxOperands],
                        const std::vector<GmRegion>& args, const RunOptions& opt, BlockResult& res) {
  if (!opt.detect_hazards || ins.pipe == Pipe::S || ins.op == Opcode::SetFlag ||
      ins.op == Opcode::WaitFlag || ins.op == Opcode::PipeBarrier)
    return;
  const unsigned P = unsigned(ins.pipe);
  clock_[P][P] = ++seq_[P];
  pc_of_seq_[P].push_back(pc);
  // Reads first: an instruction that reads and writes one range conflicts only with others.
  for (int s = kMaxOperands - 1; s >= 0; --s) {
    const Operand& a = ins.operand[s];
    if (!a.used()) continue;
    if (Space(a.space) == Space::GM && !args[a.arg].writable) continue;  // nobody writes it
    access(ins.pipe, pc, a.space, a.arg, ops[s].offset, operandFootprint(ins, unsigned(s)),
           writesSlot(ins, unsigned(s)), res);
  }
}

// Exact GM byte ranges written, for the cross-core overlap check.
void Core::recordGmWrites(const Instruction& ins, const Resolved ops[kMaxOperands], BlockResult& res) {
  const Operand& d = ins.operand[0];
  if (!d.used() || Space(d.space) != Space::GM) return;
  auto add = [&](uint64_t lo, uint64_t len) {
    if (!res.gm_writes.empty()) {
      GmWrite& last = res.gm_writes.back();
      if (last.arg == d.arg && last.hi == lo) {
        last.hi = lo + len;
        return;
      }
    }
    if (res.gm_writes.size() >= kMaxGmWritesPerBlock) {
      res.gm_writes_truncated = true;
      return;
    }
    res.gm_writes.push_back(GmWrite{d.arg, lo, lo + len});
  };
  const uint64_t base = ops[0].offset, es = dtypeBytes(ins.dtype);
  if (ins.op == Opcode::Copy) {
    for (uint64_t b = 0; b < ins.p[0]; ++b) add(base + b * (uint64_t(ins.p[1]) + ins.p[3]), ins.p[1]);
  } else if (ins.op == Opcode::CopyNz2Nd) {
    for (uint64_t r = 0; r < ins.p[0]; ++r) add(base + r * ins.p[2] * es, uint64_t(ins.p[1]) * es);
  }
}

void Core::execute(const Instruction& ins, const Resolved ops[kMaxOperands], BlockResult& res) {
  const uint32_t* p = ins.p;
  const uint64_t es = dtypeBytes(ins.dtype);
  switch (ins.op) {
    case Opcode::Copy: {
      // Through a bounce buffer when source and destination may overlap (same space).
      const bool same = ins.operand[0].space == ins.operand[1].space;
      for (uint32_t b = 0; b < p[0]; ++b) {
        uint8_t* d = ops[0].ptr + uint64_t(b) * (uint64_t(p[1]) + p[3]);
        const uint8_t* s = ops[1].ptr + uint64_t(b) * (uint64_t(p[1]) + p[2]);
        if (same) std::memmove(d, s, p[1]);
        else std::memcpy(d, s, p[1]);
      }
      return;
    }
    case Opcode::CopyNd2Nz: {
      const uint32_t rows = p[0], cols = p[1], stride = p[2], drows = p[3], dcols = p[4];
      const uint32_t c0 = nzColumns(ins.dtype);
      for (uint32_t j = 0; j < dcols / c0; ++j)
        for (uint32_t i = 0; i < drows; ++i) {
          uint8_t* d = ops[0].ptr + (uint64_t(j) * drows + i) * c0 * es;
          const uint32_t col = j * c0;
          const uint32_t n = i < rows && col < cols ? std::min(c0, cols - col) : 0;
          const uint8_t* s = ops[1].ptr + (uint64_t(i) * stride + col) * es;
          if (n == c0 && c0 * es == 32) {  // whole rows: fixed-size copies the compiler inlines
            std::memcpy(d, s, 32);
            continue;
          }
          if (n == c0 && c0 * es == 64) {
            std::memcpy(d, s, 64);
            continue;
          }
          if (n) std::memcpy(d, s, n * es);
          if (n < c0) std::memset(d + n * es, 0, (c0 - n) * es);
        }
      return;
    }
    case Opcode::CopyNz2Nd: {
      const uint32_t rows = p[0], cols = p[1], stride = p[2], srows = p[3];
      const uint32_t c0 = nzColumns(ins.dtype);
      for (uint32_t i = 0; i < rows; ++i)
        for (uint32_t col = 0; col < cols; col += c0)
          std::memcpy(ops[0].ptr + (uint64_t(i) * stride + col) * es,
                      ops[1].ptr + (uint64_t(col / c0) * srows + i) * c0 * es, std::min(c0, cols - col) * es);
      return;
    }
    case Opcode::CopyGather: {
      const int64_t rows = p[4];
      for (uint32_t r = 0; r < p[0]; ++r) {
        int32_t index;
        std::memcpy(&index, ops[2].ptr + uint64_t(r) * 4, 4);
        const int64_t row = index < 0 ? int64_t(index) + rows : int64_t(index);
        if (row < 0 || row >= rows) {
          res.ok = false;
          res.error = "copy_gather: index " + std::to_string(index) + " (row " + std::to_string(r) +
                      ") is out of range [-" + std::to_string(rows) + ", " + std::to_string(rows) +
                      ")";
          return;
        }
        std::memcpy(ops[0].ptr + uint64_t(r) * p[3], ops[1].ptr + uint64_t(row) * p[2], p[1]);
      }
      return;
    }
    case Opcode::CopyNchw2Nc1hwc0: {
      const uint32_t channels = p[0], spatial = p[1], stride = p[2];
      const uint32_t c0 = nzColumns(ins.dtype), c1 = (channels + c0 - 1) / c0;
      for (uint32_t g = 0; g < c1; ++g)
        for (uint32_t s = 0; s < spatial; ++s) {
          uint8_t* d = ops[0].ptr + (uint64_t(g) * spatial + s) * c0 * es;
          for (uint32_t c = 0; c < c0; ++c) {
            const uint32_t ch = g * c0 + c;
            if (ch < channels) std::memcpy(d + c * es, ops[1].ptr + (uint64_t(ch) * stride + s) * es, es);
            else std::memset(d + c * es, 0, es);
          }
        }
      return;
    }
    case Opcode::LoadFractals: {
      const bool transpose = ins.flags & flag::Transpose;
      for (uint32_t o = 0; o < p[0]; ++o)
        for (uint32_t i = 0; i < p[1]; ++i) {
          const uint8_t* s = ops[1].ptr + (uint64_t(o) * p[2] + uint64_t(i) * p[3]) * 512;
          uint8_t* d = ops[0].ptr + (uint64_t(o) * p[4] + uint64_t(i) * p[5]) * 512;
          if (!transpose) {
            std::memcpy(d, s, 512);
            continue;
          }
          uint16_t in[256], out[256];
          std::memcpy(in, s, 512);
          for (unsigned r = 0; r < 16; ++r)
            for (unsigned c = 0; c < 16; ++c) out[c * 16 + r] = in[r * 16 + c];
          std::memcpy(d, out, 512);
        }
      return;
    }
    case Opcode::Load3d:
      execLoad3d(ins, ops[0].ptr, ops[1].ptr);
      return;
    case Opcode::Mmad:
      mmad(ops[1].ptr, ops[2].ptr, ops[0].ptr, p[0], p[1], p[2], ins.dtype, ins.dtype2,
           ins.flags & flag::Init, scratch_);
      return;
    case Opcode::MoveL0cToUb:
      execMoveL0cToUb(ins, ops[0].ptr, ops[1].ptr);
      return;
    default:
      break;
  }
  if (isVectorOp(ins.op)) {
    uint8_t* ptrs[kMaxOperands] = {ops[0].ptr, ops[1].ptr, ops[2].ptr, ops[3].ptr};
    execVector(ins, ptrs);
  }
}

void Core::run(const ProgramData& prog, uint32_t block_idx, uint32_t active_cores,
               const std::vector<GmRegion>& args, const RunOptions& opt, BlockResult& res) {
  reset(uint32_t(args.size()));
  prog_ = &prog;
  code_ = prog.code.data();
  gm_bytes_per_cycle_ = soc_.gm_bytes_per_second / soc_.clock_hz / std::max(1u, active_cores);
  struct Frame {
    uint32_t begin, trip, iter;
  };
  Frame stack[kMaxLoopDepth];
  unsigned depth = 0;
  const uint32_t n = uint32_t(prog.code.size());
  uint32_t pc = 0;
  while (pc < n) {
    const Instruction& ins = code_[pc];
    ++res.executed;  // bounded by the decoder's dynamic-count cap
    bool branch = false;
    uint32_t next = pc + 1;
    if (ins.op == Opcode::LoopBegin) {
      if (ins.p[0] == 0) {
        next = prog.loop_partner[pc] + 1;
        branch = true;
      } else {
        stack[depth] = Frame{pc, ins.p[0], 0};
        iv_[depth] = 0;
        ++depth;
      }
    } else if (ins.op == Opcode::LoopEnd) {
      Frame& f = stack[depth - 1];
      if (++f.iter < f.trip) {
        iv_[depth - 1] = f.iter;
        next = f.begin + 1;
        branch = true;
      } else {
        iv_[depth - 1] = 0;
        --depth;
      }
    }
    Resolved ops[kMaxOperands];
    if (!resolve(ins, pc, block_idx, args, ops, res)) return;
    if (!time(ins, pc, branch, opt, res)) return;
    checkHazards(ins, pc, ops, args, opt, res);
    if (hazard_count_ && opt.hazards_fatal) {
      res.ok = false;
      res.error = res.hazards.empty() ? "hazard" : res.hazards.front();
      return;
    }
    recordGmWrites(ins, ops, res);
    execute(ins, ops, res);
    if (!res.ok) {
      res.error = "pc " + std::to_string(pc) + ": " + res.error;
      return;
    }
    pc = next;
  }
  uint64_t end = scalar_time_;
  for (uint64_t f : pipe_free_) end = std::max(end, f);
  res.cycles = end;
}

}  // namespace vinci::sim::detail
