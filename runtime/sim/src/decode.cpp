// decodeProgram: parses and validates untrusted program bytes. Everything the
// executor relies on (operand extents, parameters, loop structure, caps) is
// checked here, so that runKernel only has to check what depends on block_idx
// and the GM regions.
#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "load3d.h"
#include "program_data.h"
#include "vinci/sim/executor.h"
#include "vinci/sim/isa.h"

namespace vinci::sim {

using soc::Space;

Program::Program() = default;
Program::~Program() = default;
Program::Program(const Program&) = default;
Program& Program::operator=(const Program&) = default;
bool Program::valid() const { return data_ != nullptr; }
size_t Program::instructionCount() const { return data_ ? data_->code.size() : 0; }
uint64_t Program::dynamicInstructionCount() const { return data_ ? data_->dynamic_count : 0; }
uint32_t Program::numArgs() const { return data_ ? data_->num_args : 0; }
void Program::reset(std::shared_ptr<const detail::ProgramData> d) { data_ = std::move(d); }

namespace {

class Reader {
 public:
  explicit Reader(const uint8_t* p) : p_(p) {}
  uint8_t u8() { return *p_++; }
  uint16_t u16() { uint16_t v = u8(); return uint16_t(v | (uint16_t(u8()) << 8)); }
  uint32_t u32() { uint32_t v = u16(); return v | (uint32_t(u16()) << 16); }
  uint64_t u64() { uint64_t v = u32(); return v | (uint64_t(u32()) << 32); }

 private:
  const uint8_t* p_;
};

struct Fail {
  std::string& error;
  size_t pc;
  const Instruction* ins;
  bool operator()(const std::string& msg) const {
    const char* name = ins ? opcodeName(ins->op) : nullptr;
    error = "instruction " + std::to_string(pc) + " (" + (name ? name : "?") + "): " + msg;
    return false;
  }
};

bool isFloat(DType t) { return t == DType::F16 || t == DType::F32 || t == DType::BF16; }

// Which operand slots an opcode uses (bit per slot).
unsigned operandSlots(Opcode op) {
  switch (op) {
    case Opcode::Nop: case Opcode::LoopBegin: case Opcode::LoopEnd: case Opcode::SetFlag:
    case Opcode::WaitFlag: case Opcode::PipeBarrier:
      return 0;
    case Opcode::Mmad: case Opcode::CopyGather: return 0b111;
    case Opcode::VDup: return 0b1;
    case Opcode::VSel: return 0b1111;
    case Opcode::VAdd: case Opcode::VSub: case Opcode::VMul: case Opcode::VDiv: case Opcode::VMax:
    case Opcode::VMin: case Opcode::VMla: case Opcode::VCmp:
      return 0b111;
    default:
      return 0b11;
  }
}

uint32_t allowedFlags(Opcode op) {
  switch (op) {
    case Opcode::Mmad: return flag::Init;
    case Opcode::LoadFractals: return flag::Transpose;
    case Opcode::MoveL0cToUb: return flag::Relu | flag::Scale;
    case Opcode::VCAdd: case Opcode::VCMax: case Opcode::VCMin: return flag::AcrossRepeats;
    default: return 0;
  }
}

// Validates the dtypes and parameters of one instruction.
bool checkParams(const Instruction& ins, const soc::SocSpec& soc, const Fail& fail) {
  const uint32_t* p = ins.p;
  const DType t = ins.dtype, t2 = ins.dtype2;
  auto dtypeOk = [&](DType d) { return d != DType::BF16 || soc.supports_bf16; };
  if (!dtypeOk(t) || !dtypeOk(t2)) return fail("bf16 is not supported on " + std::string(soc.name));
  switch (ins.op) {
    case Opcode::Nop: case Opcode::LoopEnd:
      return true;
    case Opcode::LoopBegin:
      if (p[0] > kMaxTripCount) return fail("trip count " + std::to_string(p[0]) + " exceeds 2^24");
      return true;
    case Opcode::SetFlag: case Opcode::WaitFlag:
      if (p[0] >= kNumPipes || p[1] >= kNumPipes) return fail("bad pipe");
      if (p[0] == p[1]) return fail("flag between a pipe and itself");
      if (p[2] >= soc.event_ids) return fail("event id " + std::to_string(p[2]) + " out of range");
      return true;
    case Opcode::PipeBarrier:
      return p[0] <= kPipeAll ? true : fail("bad pipe");
    case Opcode::Copy:
      if (p[0] == 0 || p[1] == 0) return fail("empty burst");
      if (p[0] > 65535) return fail("more than 65535 bursts");
      return true;
    case Opcode::CopyNd2Nz: case Opcode::CopyNz2Nd: {
      if (t == DType::None) return fail("bad dtype");
      const uint32_t c0 = nzColumns(t);
      const uint32_t rows = p[0], cols = p[1];
      if (rows == 0 || cols == 0 || rows > 65535 || cols > 65535) return fail("bad rows/cols");
      if (p[2] < cols) return fail("row stride smaller than cols");
      if (ins.op == Opcode::CopyNd2Nz) {
        if (p[3] % 16 || p[3] < rows || p[3] > 65535) return fail("dst rows must be a multiple of 16 >= rows");
        if (p[4] % c0 || p[4] < cols || p[4] > 65535) return fail("dst cols must be a multiple of C0 >= cols");
      } else if (p[3] % 16 || p[3] < rows || p[3] > 65535) {
        return fail("src rows must be a multiple of 16 >= rows");
      }
      return true;
    }
    case Opcode::CopyNchw2Nc1hwc0:
      if (t == DType::None) return fail("bad dtype");
      if (p[0] == 0 || p[1] == 0 || p[0] > 65535) return fail("bad channels/spatial");
      if (p[2] < p[1]) return fail("channel stride smaller than spatial size");
      return true;
    case Opcode::CopyGather:
      if (t != DType::None || t2 != DType::None) return fail("copy_gather moves bytes: dtype must be none");
      if (p[0] == 0 || p[0] > 65535) return fail("rows must be in 1..65535");
      if (p[1] == 0) return fail("empty row");
      if (p[2] < p[1] || p[3] < p[1]) return fail("row stride smaller than the row");
      if (p[4] == 0 || p[4] > 0x7fffffffu) return fail("table rows must be in 1..2^31-1");
      return true;
    case Opcode::LoadFractals:
      if (dtypeBytes(t) != 1 && dtypeBytes(t) != 2) return fail("fractal dtype must be 8 or 16 bit");
      if (p[0] == 0 || p[1] == 0 || p[0] > 65535 || p[1] > 65535) return fail("bad fractal counts");
      for (int i = 2; i < 6; ++i)
        if (p[i] > 65535) return fail("fractal stride exceeds 65535");
      if ((ins.flags & flag::Transpose) && dtypeBytes(t) != 2) return fail("transpose needs a 16-bit dtype");
      return true;
    case Opcode::Load3d: {
      const std::string why = detail::checkLoad3d(ins);
      return why.empty() ? true : fail(why);
    }
    case Opcode::Mmad: {
      const bool ok = (t == DType::F16 && (t2 == DType::F32 || t2 == DType::F16)) ||
                      (t == DType::BF16 && t2 == DType::F32) || (t == DType::S8 && t2 == DType::S32);
      if (!ok) return fail(std::string("unsupported mmad types ") + dtypeName(t) + "->" + dtypeName(t2));
      if (p[0] == 0 || p[1] == 0 || p[2] == 0 || p[0] > soc.mmad_max_m || p[1] > soc.mmad_max_n ||
          p[2] > soc.mmad_max_k)
        return fail("m, n, k must be in 1..4095");
      return true;
    }
    case Opcode::MoveL0cToUb: {
      const bool ok = (t == DType::F32 && (t2 == DType::F32 || t2 == DType::F16 || t2 == DType::BF16)) ||
                      (t == DType::S32 && (t2 == DType::S32 || t2 == DType::F32 || t2 == DType::F16)) ||
                      (t == DType::F16 && (t2 == DType::F16 || t2 == DType::F32));
      if (!ok) return fail("unsupported L0C->UB types");
      if (p[0] == 0 || p[1] == 0 || p[0] > 65535) return fail("empty burst");
      if (t == DType::S32 && t2 == DType::S32 && (ins.flags & flag::Scale)) return fail("scale needs a float result");
      return true;
    }
    default:
      break;
  }
  if (!isVectorOp(ins.op)) return fail("unknown opcode");
  // Vector instructions.
  if (ins.op == Opcode::VTranspose) {
    if (t != DType::F16 && t != DType::BF16) return fail("transpose needs a 16-bit dtype");
    if (p[0] == 0 || p[0] > soc.max_repeat) return fail("tile count must be 1..max repeat");
    return true;
  }
  if (p[param::Repeat] > soc.max_repeat) return fail("repeat " + std::to_string(p[param::Repeat]) + " exceeds " + std::to_string(soc.max_repeat));
  for (unsigned i = param::DstBlk; i <= param::Src1Rep; ++i)
    if (p[i] > kMaxStride) return fail("stride exceeds 65535 blocks");
  const bool vec_type = t == DType::F16 || t == DType::F32 || t == DType::BF16 || t == DType::S32;
  switch (ins.op) {
    case Opcode::VConv: {
      static const DType all[] = {DType::F16, DType::F32, DType::BF16, DType::S8, DType::U8, DType::S32};
      if (std::find(std::begin(all), std::end(all), t) == std::end(all) ||
          std::find(std::begin(all), std::end(all), t2) == std::end(all) || t == t2)
        return fail("unsupported conversion");
      if (p[param::Mode] > uint32_t(RoundMode::Away)) return fail("bad round mode");
      if (isFloat(t2) && p[param::Mode] != uint32_t(RoundMode::Rint)) return fail("conversions to float round to nearest even only");
      break;
    }
    case Opcode::VDiv: case Opcode::VExp: case Opcode::VLn: case Opcode::VSqrt: case Opcode::VRsqrt:
    case Opcode::VRec: case Opcode::VLeakyRelu: case Opcode::VAxpy: case Opcode::VMla:
      if (!isFloat(t)) return fail("needs a float dtype");
      break;
    case Opcode::VCmp: case Opcode::VCmps:
      if (!vec_type) return fail("bad dtype");
      if (p[param::Mode] > uint32_t(CmpMode::NE)) return fail("bad compare mode");
      break;
    default:
      if (!vec_type) return fail("bad dtype");
      break;
  }
  if (ins.op != Opcode::VConv && t2 != DType::None) return fail("unexpected second dtype");
  const uint32_t widest = std::max(dtypeBytes(t), dtypeBytes(t2));
  const uint32_t lanes = 256 / widest;
  if (lanes < 128 && (ins.mask[1] != 0 || (lanes < 64 && (ins.mask[0] >> lanes) != 0)))
    return fail("mask sets lanes beyond the " + std::to_string(lanes) + " of a repeat");
  return true;
}

// Checks one operand's encoding, alignment and static range.
bool checkOperand(const Instruction& ins, unsigned slot, unsigned depth,
                  const std::vector<uint32_t>& trips, const soc::SocSpec& soc, uint32_t num_args,
                  const Fail& fail) {
  const Operand& a = ins.operand[slot];
  const std::string which = "operand " + std::to_string(slot);
  if (a.space >= soc::kNumSpaces) return fail(which + ": bad space");
  const Space space = Space(a.space);
  if (space == Space::GM) {
    if (a.arg >= num_args)
      return fail(which + ": GM argument " + std::to_string(a.arg) + " >= " + std::to_string(num_args) + " arguments");
  } else if (a.arg != 0) {
    return fail(which + ": argument index on an on-chip space");
  }
  if (a.base > kMaxAbsBase || a.base < -kMaxAbsBase) return fail(which + ": base out of range");
  if (a.block_split == 0 && a.block_row_coef != 0) return fail(which + ": block-row coefficient without a block split");
  for (unsigned d = depth; d < kMaxLoopDepth; ++d)
    if (a.iv_coef[d] != 0) return fail(which + ": uses the induction variable of a loop it is not in");
  const uint64_t need = operandFootprint(ins, slot);
  if (need == 0) return true;  // repeat 0: the instruction touches nothing
  if (a.extent < need)
    return fail(which + ": extent " + std::to_string(a.extent) + " smaller than the " + std::to_string(need) + " bytes accessed");
  if (space == Space::GM) return true;  // sizes known at run time
  const int64_t align = soc.alignment(space);
  if (a.base % align || a.block_coef % align || a.block_row_coef % align)
    return fail(which + ": " + soc::spaceName(space) + " offset not " + std::to_string(align) + "-byte aligned");
  int64_t lo = a.base, hi = a.base;
  for (unsigned d = 0; d < depth; ++d) {
    if (a.iv_coef[d] % align) return fail(which + ": loop stride not " + std::to_string(align) + "-byte aligned");
    const int64_t span = int64_t(a.iv_coef[d]) * int64_t(trips[d] ? trips[d] - 1 : 0);
    (span < 0 ? lo : hi) += span;
  }
  const int64_t size = int64_t(soc.bufferBytes(space));
  if (lo < 0 || hi + int64_t(a.extent) > size)
    return fail(which + ": " + soc::spaceName(space) + " range [" + std::to_string(lo) + ", " +
                std::to_string(hi + int64_t(a.extent)) + ") outside the " + std::to_string(size) + "-byte buffer");
  return true;
}

}  // namespace

bool decodeProgram(const uint8_t* bytes, size_t size, const soc::SocSpec& soc, uint32_t num_args,
                   Program& out, std::string& error) {
  out.reset(nullptr);
  if (bytes == nullptr || size < kHeaderBytes) {
    error = "program truncated: " + std::to_string(size) + " bytes, header needs 16";
    return false;
  }
  if (bytes[0] != 'V' || bytes[1] != 'N' || bytes[2] != 'C' || bytes[3] != 'K') {
    error = "bad program magic";
    return false;
  }
  Reader hr(bytes + 4);
  const uint16_t version = hr.u16(), header_bytes = hr.u16();
  const uint32_t count = hr.u32(), record_bytes = hr.u32();
  if (version != kProgramFormatVersion) {
    error = "unsupported program format version " + std::to_string(version);
    return false;
  }
  if (header_bytes != kHeaderBytes || record_bytes != kRecordBytes) {
    error = "bad header or record size";
    return false;
  }
  if (count > kMaxInstructions) {
    error = "program has " + std::to_string(count) + " instructions, the cap is 65536";
    return false;
  }
  if (size != kHeaderBytes + uint64_t(count) * kRecordBytes) {
    error = "program size " + std::to_string(size) + " does not match " + std::to_string(count) + " instructions";
    return false;
  }
  if (num_args > 255) {
    error = "more than 255 kernel arguments";
    return false;
  }

  auto data = std::make_shared<detail::ProgramData>();
  static std::atomic<uint64_t> next_serial{1};
  data->serial = next_serial.fetch_add(1, std::memory_order_relaxed);
  data->num_args = num_args;
  data->code.resize(count);
  data->loop_partner.assign(count, 0);
  std::vector<uint32_t> open_loops;  // pcs of enclosing LoopBegins
  std::vector<uint32_t> trips;       // their trip counts
  uint64_t multiplier = 1;           // product of enclosing trip counts
  uint64_t dynamic = 0;

  for (uint32_t pc = 0; pc < count; ++pc) {
    Reader r(bytes + kHeaderBytes + size_t(pc) * kRecordBytes);
    Instruction& ins = data->code[pc];
    Fail fail{error, pc, nullptr};
    const uint8_t opcode = r.u8();
    ins.op = Opcode(opcode);
    if (opcodeName(ins.op) == nullptr) return fail("unknown opcode " + std::to_string(opcode));
    fail.ins = &ins;
    const uint8_t pipe = r.u8();
    const uint8_t dt = r.u8(), dt2 = r.u8();
    if (pipe >= kNumPipes) return fail("bad pipe " + std::to_string(pipe));
    if (dt > uint8_t(DType::S32) || dt2 > uint8_t(DType::S32)) return fail("bad dtype");
    ins.pipe = Pipe(pipe);
    ins.dtype = DType(dt);
    ins.dtype2 = DType(dt2);
    ins.flags = r.u32();
    bool reserved_ok = true;
    for (Operand& a : ins.operand) {
      a.space = r.u8();
      a.arg = r.u8();
      a.block_split = r.u16();
      a.extent = r.u32();
      a.base = int64_t(r.u64());
      a.block_coef = int32_t(r.u32());
      for (int32_t& c : a.iv_coef) c = int32_t(r.u32());
      a.block_row_coef = int32_t(r.u32());
    }
    for (uint32_t& v : ins.p) v = r.u32();
    ins.mask[0] = r.u64();
    ins.mask[1] = r.u64();
    reserved_ok &= r.u64() == 0;
    if (!reserved_ok) return fail("reserved bytes not zero");
    if (ins.flags & ~allowedFlags(ins.op)) return fail("bad flags");

    const unsigned slots = operandSlots(ins.op);
    for (unsigned s = 0; s < kMaxOperands; ++s) {
      const Operand& a = ins.operand[s];
      const bool want = (slots >> s) & 1;
      if (!want) {
        bool zero = a.space == kNoSpace && a.arg == 0 && a.extent == 0 && a.base == 0 &&
                    a.block_coef == 0 && a.block_split == 0 && a.block_row_coef == 0;
        for (int32_t c : a.iv_coef) zero &= c == 0;
        if (!zero) return fail("operand " + std::to_string(s) + " must be unused");
      } else if (!a.used()) {
        return fail("operand " + std::to_string(s) + " missing");
      } else if (a.space >= soc::kNumSpaces) {
        return fail("operand " + std::to_string(s) + ": bad space " + std::to_string(a.space));
      }
    }
    if (!checkParams(ins, soc, fail)) return false;
    Pipe expected;
    if (!expectedPipe(ins, expected)) return fail("operand spaces do not form a valid transfer");
    if (expected != ins.pipe)
      return fail(std::string("names pipe ") + pipeName(ins.pipe) + ", expected " + pipeName(expected));
    if (ins.op == Opcode::VSel && ins.operand[3].space != uint8_t(Space::UB)) return fail("select mask must be in UB");

    const unsigned depth = unsigned(open_loops.size());
    for (unsigned s = 0; s < kMaxOperands; ++s)
      if (((slots >> s) & 1) && !checkOperand(ins, s, depth, trips, soc, num_args, fail)) return false;
    if (ins.op == Opcode::CopyNd2Nz || ins.op == Opcode::CopyNz2Nd || ins.op == Opcode::Copy) {
      // An on-chip to on-chip move inside the same space must not overlap itself:
      // the hardware gives no ordering within one transfer.
      const Operand &d = ins.operand[0], &s = ins.operand[1];
      if (d.space == s.space && d.space != uint8_t(Space::GM)) {
        bool same_affine = d.block_coef == s.block_coef && d.block_split == s.block_split &&
                           d.block_row_coef == s.block_row_coef;
        for (unsigned i = 0; i < kMaxLoopDepth; ++i) same_affine &= d.iv_coef[i] == s.iv_coef[i];
        if (same_affine && d.base < s.base + int64_t(s.extent) && s.base < d.base + int64_t(d.extent))
          return fail("source and destination overlap");
      }
    }

    // Loop structure and the dynamic instruction count.
    dynamic += multiplier;
    if (ins.op == Opcode::LoopBegin) {
      if (depth >= kMaxLoopDepth) return fail("loops nested deeper than 4");
      open_loops.push_back(pc);
      trips.push_back(ins.p[0]);
      multiplier *= ins.p[0];  // <= 2^96 is impossible: capped below before it can overflow
    } else if (ins.op == Opcode::LoopEnd) {
      if (open_loops.empty()) return fail("endloop without loop");
      const uint32_t begin = open_loops.back();
      data->loop_partner[begin] = pc;
      data->loop_partner[pc] = begin;
      open_loops.pop_back();
      trips.pop_back();
      multiplier = 1;
      for (uint32_t t : trips) multiplier *= t;
    }
    if (dynamic > kMaxDynamicInstructions || multiplier > kMaxDynamicInstructions * 2) {
      // A loop whose body would run past the cap is rejected even if the body is still open.
      return fail("program executes more than 2^26 instructions per block");
    }
  }
  if (!open_loops.empty()) {
    error = "loop at instruction " + std::to_string(open_loops.back()) + " is never closed";
    return false;
  }
  data->dynamic_count = dynamic;
  data->footprint.resize(count);
  for (uint32_t pc = 0; pc < count; ++pc)
    for (unsigned slot = 0; slot < kMaxOperands; ++slot)
      data->footprint[pc][slot] = operandFootprint(data->code[pc], slot);
  out.reset(std::move(data));
  return true;
}

namespace {
std::string operandText(const Operand& a) {
  std::ostringstream os;
  os << soc::spaceName(Space(a.space));
  if (Space(a.space) == Space::GM) os << "#" << unsigned(a.arg);
  os << "[" << a.base;
  if (a.block_split == 0 && a.block_coef) os << " + " << a.block_coef << "*blk";
  if (a.block_split) os << " + " << a.block_coef << "*(blk%" << a.block_split << ") + " << a.block_row_coef << "*(blk/" << a.block_split << ")";
  for (unsigned d = 0; d < kMaxLoopDepth; ++d)
    if (a.iv_coef[d]) os << " + " << a.iv_coef[d] << "*i" << d;
  os << " : " << a.extent << "]";
  return os.str();
}
}  // namespace

std::string Program::disassemble() const {
  if (!data_) return {};
  std::ostringstream os;
  unsigned depth = 0;
  for (size_t pc = 0; pc < data_->code.size(); ++pc) {
    const Instruction& ins = data_->code[pc];
    if (ins.op == Opcode::LoopEnd && depth) --depth;
    char head[48];
    std::snprintf(head, sizeof head, "%5zu  %-4s ", pc, pipeName(ins.pipe));
    os << head << std::string(depth * 2, ' ') << opcodeName(ins.op);
    if (ins.dtype != DType::None) os << "." << dtypeName(ins.dtype);
    if (ins.dtype2 != DType::None) os << "->" << dtypeName(ins.dtype2);
    for (const Operand& a : ins.operand)
      if (a.used()) os << " " << operandText(a);
    unsigned last = kNumParams;
    while (last > 0 && ins.p[last - 1] == 0) --last;
    if (last) {
      os << " {";
      for (unsigned i = 0; i < last; ++i) os << (i ? "," : "") << ins.p[i];
      os << "}";
    }
    if (isVectorOp(ins.op)) {
      char m[48];
      std::snprintf(m, sizeof m, " mask=%016" PRIx64 ":%016" PRIx64, ins.mask[1], ins.mask[0]);
      os << m;
    }
    if (ins.flags) os << " flags=" << ins.flags;
    os << "\n";
    if (ins.op == Opcode::LoopBegin) ++depth;
  }
  return os.str();
}

}  // namespace vinci::sim
