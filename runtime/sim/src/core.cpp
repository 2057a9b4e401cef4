// One simulated AI Core. For every dynamic instruction, in program order:
// resolve its affine operands and bounds-check them, advance the timing model,
// check the accesses against the other pipes (hazard detector), then execute it.
#include "core.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "fast.h"
#include "l2_impl.h"
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
// ceil(v) for v > 0, exactly (trunc, plus one when it dropped a fraction;
// integers from 2^53 up convert exactly): the inline std::ceil of the
// baseline ISA was 6% of MobileNetV2's host instructions.
uint64_t cycles(double v) {
  if (v <= 0) return 0;
  const uint64_t t = uint64_t(v);
  return t + (double(t) < v);
}

bool writesSlot(const Instruction& ins, unsigned slot) { return slot == 0 && ins.op != Opcode::Nop; }

bool overlaps(uint64_t lo, uint64_t hi, uint64_t lo2, uint64_t hi2) { return lo < hi2 && lo2 < hi; }

// `count` bursts of n bytes, W <= n <= 2W, each as memmove would: two W-byte
// pieces (the first and the last W bytes, overlapping when n < 2W) loaded
// before either is stored. The size class is chosen once per instruction; a
// memcpy call per burst of a few bytes was most of a copy's cost.
template <size_t W>
void copyBursts(uint8_t* d, const uint8_t* s, uint32_t count, uint64_t n, uint64_t dstep, uint64_t sstep) {
  for (uint32_t b = 0; b < count; ++b) {
    uint8_t head[W], tail[W];
    std::memcpy(head, s + b * sstep, W);
    std::memcpy(tail, s + b * sstep + n - W, W);
    std::memcpy(d + b * dstep, head, W);
    std::memcpy(d + b * dstep + n - W, tail, W);
  }
}

// Copy's bursts below 128 bytes through copyBursts; false for longer ones.
bool copySmallBursts(uint8_t* d, const uint8_t* s, uint32_t count, uint64_t n, uint64_t dstep, uint64_t sstep) {
  if (n >= 128 || n < 2) return false;
  if (n >= 64) copyBursts<64>(d, s, count, n, dstep, sstep);
  else if (n >= 32) copyBursts<32>(d, s, count, n, dstep, sstep);
  else if (n >= 16) copyBursts<16>(d, s, count, n, dstep, sstep);
  else if (n >= 8) copyBursts<8>(d, s, count, n, dstep, sstep);
  else if (n >= 4) copyBursts<4>(d, s, count, n, dstep, sstep);
  else copyBursts<2>(d, s, count, n, dstep, sstep);
  return true;
}

// NCHW rows to NC1HWC0 blocks, elements of ES bytes (fixed-size copies).
template <size_t ES>
void nchwToNc1hwc0(uint8_t* dst, const uint8_t* src, uint32_t channels, uint32_t spatial, uint32_t stride,
                   uint32_t c0) {
  const uint32_t c1 = (channels + c0 - 1) / c0;
  for (uint32_t g = 0; g < c1; ++g)
    for (uint32_t s = 0; s < spatial; ++s) {
      uint8_t* d = dst + (uint64_t(g) * spatial + s) * c0 * ES;
      for (uint32_t c = 0; c < c0; ++c) {
        const uint32_t ch = g * c0 + c;
        if (ch < channels) std::memcpy(d + c * ES, src + (uint64_t(ch) * stride + s) * ES, ES);
        else std::memset(d + c * ES, 0, ES);
      }
    }
}
}  // namespace

Core::Core(const soc::SocSpec& soc) : soc_(&soc) {
  for (unsigned s = 1; s < soc::kNumSpaces; ++s) mem_[s].resize(soc.bufferBytes(Space(s)));
}

bool Core::fits(const soc::SocSpec& soc) const {
  for (unsigned s = 1; s < soc::kNumSpaces; ++s)
    if (mem_[s].size() != soc.bufferBytes(Space(s))) return false;
  return true;
}

void BlockResult::clear() {
  ok = true;
  error.clear();
  std::fill(std::begin(cycles), std::end(cycles), 0);
  std::fill(std::begin(pipe_busy), std::end(pipe_busy), 0);
  std::fill(std::begin(pipe_bytes), std::end(pipe_bytes), 0);
  gm_read = gm_written = fractal_ops = executed = 0;
  hazards.clear();
  events.clear();
  events_truncated = false;
  gm_writes.clear();
  gm_writes_truncated = false;
  gm_touched.clear();
}

void Core::reset(uint32_t num_args) {
  for (unsigned s = 1; s < soc::kNumSpaces; ++s) {
    if (dirty_hi_[s] > dirty_lo_[s]) std::memset(mem_[s].data() + dirty_lo_[s], 0, dirty_hi_[s] - dirty_lo_[s]);
    dirty_lo_[s] = mem_[s].size();
    dirty_hi_[s] = 0;
  }
  for (LaneState& l : lane_) l = LaneState{};
  vec_write_count_ = 0;
  touched_.clear();
  uint32_t base = 0;
  for (uint32_t s : seq_) base = std::max(base, s);
  if (base > (1u << 31)) {  // far from wrapping: start the shadows over
    for (auto& sh : shadow_) std::fill(sh.begin(), sh.end(), 0);
    base = 0;
  }
  seq_base_ = base;
  for (unsigned p = 0; p < kNumPipes; ++p) {
    queued_[p] = 0;
    transfers_[p] = 0;
    seq_[p] = base;
    clock_[p].fill(base);
    pc_of_seq_[p].clear();
    for (auto& row : flags_[p])
      for (auto& q : row) q.clear();
  }
  for (unsigned s = 0; s < soc::kNumSpaces; ++s)
    for (unsigned p = 0; p < kNumPipes; ++p) space_last_write_[s][p] = space_last_read_[s][p] = base;
  gm_access_.resize(num_args);
  for (auto& list : gm_access_) list.clear();
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

// Bytes of [lo, hi) an ideal L2 holds: what this block touched before, or
// what the kernels before this one left resident.
uint64_t Core::l2Covered(uint64_t lo, uint64_t hi) const {
  auto fromResident = [&](uint64_t a, uint64_t b) { return timing_->l2 ? timing_->l2->covered(a, b) : 0; };
  uint64_t covered = 0, at = lo;
  auto it = std::upper_bound(touched_.begin(), touched_.end(), lo, [](uint64_t v, const HostRange& x) { return v < x.hi; });
  for (; it != touched_.end() && it->lo < hi; ++it) {
    const uint64_t a = std::max(at, it->lo), b = std::min(hi, it->hi);
    covered += fromResident(at, a) + (b - a);
    at = b;
  }
  return covered + fromResident(at, hi);
}

// Records a GM envelope this block touched (the L2 keeps it for later reads).
void Core::touchGm(uint64_t lo, uint64_t hi, BlockResult& res) {
  if (lo >= hi) return;
  if (!res.gm_touched.empty() && res.gm_touched.back().hi == lo) res.gm_touched.back().hi = hi;
  else if (res.gm_touched.size() < kMaxGmWritesPerBlock) res.gm_touched.push_back(HostRange{lo, hi});
  // Merge into the sorted disjoint list: [first, last) are the ranges it meets.
  auto first = std::lower_bound(touched_.begin(), touched_.end(), lo, [](const HostRange& x, uint64_t v) { return x.hi < v; });
  auto last = first;
  while (last != touched_.end() && last->lo <= hi) {
    lo = std::min(lo, last->lo);
    hi = std::max(hi, last->hi);
    ++last;
  }
  if (first == last) {
    touched_.insert(first, HostRange{lo, hi});
  } else {
    *first = HostRange{lo, hi};
    touched_.erase(first + 1, last);
  }
}

uint64_t Core::bankCycles(const Instruction& ins, uint32_t pc, const uint64_t ub[kMaxOperands]) {
  const soc::TimingTable& t = soc_->timing;
  if (reference_) return bankConflictCycles(ins, ub, t, true);
  const std::array<double, 3> layout = {t.ub_bank_groups.value, t.ub_bank_row_bytes.value, t.ub_bank_span_bytes.value};
  constexpr size_t kMaxMemo = size_t(1) << 18;  // entries (about 20 MiB a core at most)
  if (layout != bank_layout_ || bank_memo_.size() >= kMaxMemo) {
    bank_memo_.clear();
    bank_layout_ = layout;
  }
  BankKey key{prog_->serial, pc, {}};
  std::copy(ub, ub + kMaxOperands, key.ub);
  const auto [it, fresh] = bank_memo_.try_emplace(key, 0);
  if (fresh) it->second = bankConflictCycles(ins, ub, t, false);
  return it->second;
}

// What the cost functions need beyond the record: the repeats' cycles under
// UB bank conflicts, and how much of a GM read an ideal L2 holds.
CostInputs Core::costInputs(const Instruction& ins, uint32_t pc, const Resolved ops[kMaxOperands]) {
  CostInputs in;
  if (isVectorOp(ins.op) && ins.op != Opcode::VTranspose) {
    uint64_t ub[kMaxOperands] = {};
    for (unsigned s = 0; s < kMaxOperands; ++s) ub[s] = ins.operand[s].used() ? ops[s].offset : 0;
    in.repeat_cycles_free = ins.p[param::Repeat];
    in.repeat_cycles = bankCycles(ins, pc, ub);
  }
  const Operand& src = ins.operand[1];
  if (src.used() && Space(src.space) == Space::GM && ins.op != Opcode::CopyGather) {
    const uint64_t lo = reinterpret_cast<uintptr_t>(ops[1].ptr);
    in.gm_read_bytes = foot_[1];
    in.l2_hit_bytes = l2Covered(lo, lo + in.gm_read_bytes);
  }
  return in;
}

// The timing model: the Scalar unit issues in program order; each instruction
// waits for its pipe's queue, its pipe's front end and (wait_flag) its flag;
// GM transfers overlap their start-up with others in flight and queue for the
// core's GM port; a vector instruction waits for the vector results it reads.
// Every lane advances its own timeline over the same instruction stream.
bool Core::time(const Instruction& ins, uint32_t pc, bool branch_taken, const Resolved ops[kMaxOperands],
                const RunOptions& opt, BlockResult& res) {
  const bool all_barrier = ins.op == Opcode::PipeBarrier && ins.p[0] == kPipeAll;
  const unsigned P = unsigned(ins.pipe);
  const bool compute = ins.pipe != Pipe::S && ins.op != Opcode::SetFlag && ins.op != Opcode::WaitFlag &&
                       ins.op != Opcode::PipeBarrier;
  const CostFn fn = compute ? costFunction(ins.op) : nullptr;
  CostInputs in;
  if (fn) in = costInputs(ins, pc, ops);

  // Vector reads of bytes recent vector instructions write.
  bool depends[kVecWrites] = {};
  const bool vector_pipe = ins.pipe == Pipe::V && fn;
  if (vector_pipe) {
    for (unsigned w = 0; w < kVecWrites && w < vec_write_count_; ++w) {
      const VecWrite& vw = vec_writes_[w];
      for (unsigned s = 0; s < kMaxOperands && !depends[w]; ++s) {
        const Operand& a = ins.operand[s];
        const bool reads = s > 0 || ins.op == Opcode::VMla || ins.op == Opcode::VAxpy;
        if (!a.used() || !reads || a.space != vw.space) continue;
        depends[w] = overlaps(ops[s].offset, ops[s].offset + foot_[s], vw.lo, vw.hi);
      }
    }
  }
  FlagToken* wait_token = nullptr;
  if (ins.op == Opcode::WaitFlag) {
    auto& q = flags_[ins.p[0]][ins.p[1]][ins.p[2]];
    if (q.empty()) {
      res.ok = false;
      res.error = "pc " + std::to_string(pc) + " (wait_flag " + pipeName(Pipe(ins.p[0])) + "->" +
                  pipeName(Pipe(ins.p[1])) + " event " + std::to_string(ins.p[2]) +
                  "): no set_flag earlier in program order; the pipes would deadlock";
      return false;
    }
    wait_token = &q.front();
  }
  FlagToken set_token{};
  uint64_t vec_done[kNumLanes] = {};

  for (unsigned l = 0; l < kNumLanes; ++l) {
    const LaneParams& lp = timing_->lanes[l];
    LaneState& L = lane_[l];
    const uint64_t issue = lp.scalar_issue_cycles;
    // The instruction reaches its pipe once the Scalar unit has issued it.
    uint64_t now = L.scalar + issue;
    L.scalar += issue + (branch_taken ? lp.loop_branch_cycles : 0);
    if (l == 0) res.pipe_busy[unsigned(Pipe::S)] += issue;
    if (all_barrier) {
      uint64_t all = L.scalar;
      for (uint64_t d : L.done) all = std::max(all, d);
      all += lp.barrier_cycles;
      for (unsigned p = 0; p < kNumPipes; ++p) L.accept[p] = L.done[p] = all;
      L.scalar = all;
      continue;
    }
    if (ins.pipe == Pipe::S) continue;

    // Enter the pipe's queue: the instruction `depth` places earlier must have started.
    uint64_t& slot = L.queue[P][L.queue_pos[P]];
    if (queued_[P] >= lp.queue_depth && slot > now) {
      now = slot;
      L.scalar = now;  // the Scalar unit stalled until the queue had room
    }
    uint64_t start = std::max(now, L.accept[P]);
    uint64_t duration = 1;
    if (ins.op == Opcode::SetFlag) {
      set_token.time[l] = std::max(start, L.done[P]) + lp.flag_latency_cycles;
      L.accept[P] = start + 1;
      L.done[P] = std::max(L.done[P], start + 1);
    } else if (ins.op == Opcode::WaitFlag) {
      start = std::max(start, wait_token->time[l]);
      L.accept[P] = start + 1;
      L.done[P] = std::max(L.done[P], start + 1);
    } else if (ins.op == Opcode::PipeBarrier) {
      const uint64_t t = std::max(start, L.done[P]) + lp.barrier_cycles;
      L.accept[P] = L.done[P] = t;
      duration = t - start;
    } else {
      const Demand d = fn(ins, in, lp, *soc_);
      for (unsigned w = 0; w < kVecWrites; ++w)
        if (depends[w]) start = std::max(start, vec_writes_[w].done[l]);
      uint64_t service;
      if (d.gm_read || d.gm_write) {
        // At most `in_flight` transfers: the one that many earlier must be done.
        uint64_t& flight = L.in_flight[P][L.flight_pos[P]];
        start = std::max(start, flight);
        const uint64_t front = cycles(d.front), startup = cycles(d.startup), port = cycles(d.port);
        uint64_t& port_free = L.port_free[lp.gm_shared_port || d.gm_read ? 0 : 1];
        const uint64_t data = std::max(start + startup, port_free);
        const uint64_t end = data + port;
        port_free = end;
        flight = end;
        L.accept[P] = start + front;
        L.done[P] = std::max(L.done[P], end);
        duration = end - start;
        service = startup + port;
      } else {
        const uint64_t front = cycles(d.front);
        const uint64_t end = start + front;
        const uint64_t visible = end + (vector_pipe ? lp.vec_dependency_cycles : 0);
        L.accept[P] = end;
        L.done[P] = std::max(L.done[P], visible);
        vec_done[l] = visible;
        duration = front;
        service = front;
      }
      if (l == 0) {
        res.pipe_busy[P] += service;
        res.pipe_bytes[P] += d.bytes;
        if (d.gm_read) res.gm_read += d.bytes;
        if (d.gm_write) res.gm_written += d.bytes;
      }
    }
    slot = start;
    if (l == 0 && opt.trace && ins.op != Opcode::SetFlag && ins.op != Opcode::WaitFlag) {
      if (res.events.size() < kMaxTraceEventsPerBlock)
        res.events.push_back(TraceEvent{start, duration, pc, ins.op, ins.pipe});
      else
        res.events_truncated = true;
    }
  }

  if (all_barrier) {
    // pipe_barrier(ALL) orders every pipe after everything before it.
    std::array<uint32_t, kNumPipes> joined = {};
    for (const auto& c : clock_)
      for (unsigned q = 0; q < kNumPipes; ++q) joined[q] = std::max(joined[q], c[q]);
    for (auto& c : clock_) c = joined;
  }
  if (ins.pipe == Pipe::S) return true;
  if (ins.op == Opcode::SetFlag) {
    set_token.clock = clock_[ins.p[0]];
    flags_[ins.p[0]][ins.p[1]][ins.p[2]].push_back(set_token);
  } else if (ins.op == Opcode::WaitFlag) {
    for (unsigned i = 0; i < kNumPipes; ++i) clock_[P][i] = std::max(clock_[P][i], wait_token->clock[i]);
    flags_[ins.p[0]][ins.p[1]][ins.p[2]].pop_front();
  }
  if (!all_barrier) {
    ++queued_[P];
    for (unsigned l = 0; l < kNumLanes; ++l)
      if (++lane_[l].queue_pos[P] == timing_->lanes[l].queue_depth) lane_[l].queue_pos[P] = 0;
  }
  if (fn) {
    const Operand& dst = ins.operand[0];
    if (vector_pipe && dst.used()) {
      VecWrite& w = vec_writes_[vec_write_count_++ % kVecWrites];
      w.space = dst.space;
      w.lo = ops[0].offset;
      w.hi = ops[0].offset + foot_[0];
      for (unsigned l = 0; l < kNumLanes; ++l) w.done[l] = vec_done[l];
    }
    bool gm = false;
    for (unsigned s = 0; s < kMaxOperands; ++s) {
      const Operand& a = ins.operand[s];
      if (!a.used() || Space(a.space) != Space::GM) continue;
      gm = true;
      const uint64_t lo = reinterpret_cast<uintptr_t>(ops[s].ptr);
      touchGm(lo, lo + foot_[s], res);
    }
    if (gm) {
      ++transfers_[P];
      for (unsigned l = 0; l < kNumLanes; ++l)
        if (++lane_[l].flight_pos[P] == timing_->lanes[l].in_flight) lane_[l].flight_pos[P] = 0;
    }
    if (ins.op == Opcode::Mmad) {
      const uint32_t k0 = ins.dtype == DType::S8 ? 32 : 16;
      res.fractal_ops += ceilDiv(ins.p[0], 16) * ceilDiv(ins.p[1], 16) * ceilDiv(ins.p[2], k0);
    }
  }
  return true;
}

void Core::reportHazard(Pipe pipe, uint32_t pc, Pipe other, uint32_t other_seq, uint8_t space,
                        uint8_t arg, uint64_t lo, uint64_t len, bool write, bool other_write,
                        BlockResult& res) {
  ++hazard_count_;
  if (res.hazards.size() >= kMaxHazardLines) return;
  const uint32_t other_pc = pc_of_seq_[unsigned(other)][other_seq - seq_base_ - 1];
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
    access(ins.pipe, pc, a.space, a.arg, ops[s].offset, foot_[s],
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
      const uint64_t dstep = uint64_t(p[1]) + p[3], sstep = uint64_t(p[1]) + p[2];
      if (!reference_ && copySmallBursts(ops[0].ptr, ops[1].ptr, p[0], p[1], dstep, sstep)) return;
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
      const uint32_t channels = p[0], spatial = p[1], stride = p[2], c0 = nzColumns(ins.dtype);
      if (es == 1) nchwToNc1hwc0<1>(ops[0].ptr, ops[1].ptr, channels, spatial, stride, c0);
      else if (es == 2) nchwToNc1hwc0<2>(ops[0].ptr, ops[1].ptr, channels, spatial, stride, c0);
      else nchwToNc1hwc0<4>(ops[0].ptr, ops[1].ptr, channels, spatial, stride, c0);
      return;
    }
    case Opcode::Load3d:
      execLoad3d(ins, ops[0].ptr, ops[1].ptr);
      return;
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
#ifdef VINCI_SIM_FAST
          if (!reference_ && fast::available()) {
            std::memcpy(in, s, 512);
            fast::transpose16x16(out, in);
            std::memcpy(d, out, 512);
            continue;
          }
#endif
          std::memcpy(in, s, 512);
          for (unsigned r = 0; r < 16; ++r)
            for (unsigned c = 0; c < 16; ++c) out[c * 16 + r] = in[r * 16 + c];
          std::memcpy(d, out, 512);
        }
      return;
    }
    case Opcode::Mmad:
      mmad(ops[1].ptr, ops[2].ptr, ops[0].ptr, p[0], p[1], p[2], ins.dtype, ins.dtype2,
           ins.flags & flag::Init, scratch_, reference_);
      return;
    case Opcode::MoveL0cToUb:
      execMoveL0cToUb(ins, ops[0].ptr, ops[1].ptr, reference_);
      return;
    default:
      break;
  }
  if (isVectorOp(ins.op)) {
    uint8_t* ptrs[kMaxOperands] = {ops[0].ptr, ops[1].ptr, ops[2].ptr, ops[3].ptr};
    execVector(ins, ptrs, reference_);
  }
}

void Core::run(const ProgramData& prog, uint32_t block_idx, const KernelTiming& timing,
               const std::vector<GmRegion>& args, const RunOptions& opt, BlockResult& res) {
  reset(uint32_t(args.size()));
  prog_ = &prog;
  code_ = prog.code.data();
  timing_ = &timing;
  reference_ = opt.reference_paths;
  soc_ = timing.soc;
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
    foot_ = prog.footprint[pc].data();
    const Operand& dst = ins.operand[0];
    if (dst.used() && Space(dst.space) != Space::GM && ins.op != Opcode::Nop) {
      dirty_lo_[dst.space] = std::min(dirty_lo_[dst.space], ops[0].offset);
      dirty_hi_[dst.space] = std::max(dirty_hi_[dst.space], ops[0].offset + dst.extent);
    }
    if (!time(ins, pc, branch, ops, opt, res)) return;
    checkHazards(ins, pc, ops, args, opt, res);
    if (hazard_count_ && opt.hazards_fatal) {
      res.ok = false;
      res.error = res.hazards.empty() ? "hazard" : res.hazards.front();
      return;
    }
    if (opt.detect_hazards) recordGmWrites(ins, ops, res);
    execute(ins, ops, res);
    if (!res.ok) {
      res.error = "pc " + std::to_string(pc) + ": " + res.error;
      return;
    }
    pc = next;
  }
  for (unsigned l = 0; l < kNumLanes; ++l) {
    uint64_t end = lane_[l].scalar;
    for (uint64_t d : lane_[l].done) end = std::max(end, d);
    res.cycles[l] = end;
  }
}

}  // namespace vinci::sim::detail
