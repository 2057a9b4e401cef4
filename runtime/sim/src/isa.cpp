// Names, footprints, pipes and the record encoder of the Vinci ISA.
#include "vinci/sim/isa.h"

#include <algorithm>

#include "load3d.h"

namespace vinci::sim {

using soc::Space;

const char* pipeName(Pipe p) {
  switch (p) {
    case Pipe::S: return "S";
    case Pipe::V: return "V";
    case Pipe::M: return "M";
    case Pipe::MTE1: return "MTE1";
    case Pipe::MTE2: return "MTE2";
    case Pipe::MTE3: return "MTE3";
  }
  return "?";
}

const char* dtypeName(DType t) {
  switch (t) {
    case DType::None: return "none";
    case DType::F16: return "f16";
    case DType::F32: return "f32";
    case DType::BF16: return "bf16";
    case DType::S8: return "s8";
    case DType::U8: return "u8";
    case DType::S32: return "s32";
  }
  return "?";
}

const char* opcodeName(Opcode op) {
  switch (op) {
    case Opcode::Nop: return "nop";
    case Opcode::LoopBegin: return "loop";
    case Opcode::LoopEnd: return "endloop";
    case Opcode::SetFlag: return "set_flag";
    case Opcode::WaitFlag: return "wait_flag";
    case Opcode::PipeBarrier: return "pipe_barrier";
    case Opcode::Copy: return "copy";
    case Opcode::CopyNd2Nz: return "copy_nd2nz";
    case Opcode::CopyNz2Nd: return "copy_nz2nd";
    case Opcode::CopyNchw2Nc1hwc0: return "copy_nchw2nc1hwc0";
    case Opcode::LoadFractals: return "load_fractals";
    case Opcode::CopyGather: return "copy_gather";
    case Opcode::Load3d: return "load_3d";
    case Opcode::Mmad: return "mmad";
    case Opcode::MoveL0cToUb: return "move_l0c_ub";
    case Opcode::VAdd: return "vadd";
    case Opcode::VSub: return "vsub";
    case Opcode::VMul: return "vmul";
    case Opcode::VDiv: return "vdiv";
    case Opcode::VMax: return "vmax";
    case Opcode::VMin: return "vmin";
    case Opcode::VMla: return "vmla";
    case Opcode::VAxpy: return "vaxpy";
    case Opcode::VAdds: return "vadds";
    case Opcode::VMuls: return "vmuls";
    case Opcode::VMaxs: return "vmaxs";
    case Opcode::VMins: return "vmins";
    case Opcode::VLeakyRelu: return "vlrelu";
    case Opcode::VExp: return "vexp";
    case Opcode::VLn: return "vln";
    case Opcode::VSqrt: return "vsqrt";
    case Opcode::VRsqrt: return "vrsqrt";
    case Opcode::VRec: return "vrec";
    case Opcode::VAbs: return "vabs";
    case Opcode::VRelu: return "vrelu";
    case Opcode::VNeg: return "vneg";
    case Opcode::VCmp: return "vcmp";
    case Opcode::VCmps: return "vcmps";
    case Opcode::VSel: return "vsel";
    case Opcode::VCAdd: return "vcadd";
    case Opcode::VCMax: return "vcmax";
    case Opcode::VCMin: return "vcmin";
    case Opcode::VDup: return "vdup";
    case Opcode::VConv: return "vconv";
    case Opcode::VTranspose: return "vtranspose";
    case Opcode::VCopy: return "vcopy";
    case Opcode::VBrcb: return "vbrcb";
  }
  return nullptr;  // not an opcode: the decoder relies on this
}

namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Lanes of one vector repeat: 256 bytes of the widest element involved.
uint32_t vectorLanes(const Instruction& ins) {
  uint32_t widest = std::max(dtypeBytes(ins.dtype), dtypeBytes(ins.dtype2));
  return widest ? 256 / widest : 0;
}

// Envelope of a strided vector operand of element size `esize`.
uint64_t vectorEnvelope(const Instruction& ins, uint32_t esize, uint32_t blk_stride,
                        uint32_t rep_stride) {
  uint64_t repeat = ins.p[param::Repeat];
  if (repeat == 0 || esize == 0) return 0;
  uint64_t lanes = vectorLanes(ins);
  uint64_t blocks = ceilDiv(lanes * esize, 32);
  return (repeat - 1) * rep_stride * 32ull + (blocks - 1) * blk_stride * 32ull + 32;
}

uint64_t burstEnvelope(uint64_t count, uint64_t len, uint64_t gap) {
  if (count == 0 || len == 0) return 0;
  return count * (len + gap) - gap;
}

}  // namespace

uint32_t nzColumns(DType t) {
  const uint32_t es = dtypeBytes(t);
  return es == 0 ? 0 : es == 1 ? 32 : 16;
}

namespace {
uint32_t c0Of(DType t) { return nzColumns(t); }

}  // namespace

uint64_t operandFootprint(const Instruction& ins, unsigned slot) {
  if (slot >= kMaxOperands || !ins.operand[slot].used()) return 0;
  const uint32_t* p = ins.p;
  const uint64_t es = dtypeBytes(ins.dtype);
  switch (ins.op) {
    case Opcode::Copy:
      return slot == 0 ? burstEnvelope(p[0], p[1], p[3]) : burstEnvelope(p[0], p[1], p[2]);
    case Opcode::CopyNd2Nz:
      if (slot == 0) return uint64_t(p[3]) * p[4] * es;
      return p[0] && p[1] ? ((uint64_t(p[0]) - 1) * p[2] + p[1]) * es : 0;
    case Opcode::CopyNz2Nd:
      if (slot == 1) return uint64_t(p[3]) * ceilDiv(p[1], c0Of(ins.dtype)) * c0Of(ins.dtype) * es;
      return p[0] && p[1] ? ((uint64_t(p[0]) - 1) * p[2] + p[1]) * es : 0;
    case Opcode::CopyNchw2Nc1hwc0:
      if (slot == 0) return ceilDiv(p[0], c0Of(ins.dtype)) * p[1] * c0Of(ins.dtype) * es;
      return p[0] && p[1] ? ((uint64_t(p[0]) - 1) * p[2] + p[1]) * es : 0;
    case Opcode::CopyGather:
      if (!p[0] || !p[1]) return 0;
      if (slot == 0) return (uint64_t(p[0]) - 1) * p[3] + p[1];
      if (slot == 1) return p[4] ? (uint64_t(p[4]) - 1) * p[2] + p[1] : 0;  // the whole table
      return uint64_t(p[0]) * 4;
    case Opcode::LoadFractals: {
      if (!p[0] || !p[1]) return 0;
      uint64_t so = slot == 0 ? p[4] : p[2], si = slot == 0 ? p[5] : p[3];
      return ((uint64_t(p[0]) - 1) * so + (uint64_t(p[1]) - 1) * si + 1) * 512;
    }
    case Opcode::Load3d:
      return detail::load3dFootprint(ins, slot);
    case Opcode::Mmad: {
      const uint32_t k0 = ins.dtype == DType::S8 ? 32 : 16;
      const uint64_t m1 = ceilDiv(p[0], 16), n1 = ceilDiv(p[1], 16), k1 = ceilDiv(p[2], k0);
      if (slot == 0) return n1 * m1 * 256 * dtypeBytes(ins.dtype2);
      if (slot == 1) return m1 * k1 * 512;
      return k1 * n1 * 512;
    }
    case Opcode::MoveL0cToUb:
      return slot == 0 ? burstEnvelope(p[0], p[1], p[3]) * dtypeBytes(ins.dtype2)
                       : burstEnvelope(p[0], p[1], p[2]) * es;
    case Opcode::VCmp:
    case Opcode::VCmps:
      if (slot == 0) return uint64_t(p[param::Repeat]) * vectorLanes(ins) / 8;
      return vectorEnvelope(ins, es, slot == 1 ? p[param::Src0Blk] : p[param::Src1Blk],
                            slot == 1 ? p[param::Src0Rep] : p[param::Src1Rep]);
    case Opcode::VSel:
      if (slot == 3) return uint64_t(p[param::Repeat]) * vectorLanes(ins) / 8;
      break;
    case Opcode::VCAdd:
    case Opcode::VCMax:
    case Opcode::VCMin:
      if (slot == 0) {
        if (p[param::Repeat] == 0) return 0;
        return (ins.flags & flag::AcrossRepeats) ? es : uint64_t(p[param::Repeat]) * es;
      }
      break;
    case Opcode::VTranspose:
      return uint64_t(p[0]) * 512;
    case Opcode::VBrcb:
      if (slot == 1) return uint64_t(p[param::Repeat]) * es;
      break;
    case Opcode::VConv:
      if (slot == 0)
        return vectorEnvelope(ins, dtypeBytes(ins.dtype2), p[param::DstBlk], p[param::DstRep]);
      break;
    default:
      break;
  }
  if (isVectorOp(ins.op)) {
    if (slot == 0) return vectorEnvelope(ins, es, p[param::DstBlk], p[param::DstRep]);
    if (slot == 1) return vectorEnvelope(ins, es, p[param::Src0Blk], p[param::Src0Rep]);
    if (slot == 2) return vectorEnvelope(ins, es, p[param::Src1Blk], p[param::Src1Rep]);
  }
  return 0;
}

bool expectedPipe(const Instruction& ins, Pipe& pipe) {
  auto space = [&](unsigned slot) { return ins.operand[slot].space; };
  const uint8_t GM = uint8_t(Space::GM), L1 = uint8_t(Space::L1), L0A = uint8_t(Space::L0A),
                L0B = uint8_t(Space::L0B), UB = uint8_t(Space::UB);
  switch (ins.op) {
    case Opcode::Nop:
    case Opcode::LoopBegin:
    case Opcode::LoopEnd:
      pipe = Pipe::S;
      return true;
    case Opcode::SetFlag:
      if (ins.p[0] >= kNumPipes) return false;
      pipe = Pipe(ins.p[0]);
      return true;
    case Opcode::WaitFlag:
      if (ins.p[1] >= kNumPipes) return false;
      pipe = Pipe(ins.p[1]);
      return true;
    case Opcode::PipeBarrier:
      if (ins.p[0] > kPipeAll) return false;
      pipe = ins.p[0] == kPipeAll ? Pipe::S : Pipe(ins.p[0]);
      return true;
    case Opcode::Copy: {
      const uint8_t d = space(0), s = space(1);
      if (s == GM && (d == L1 || d == L0A || d == L0B || d == UB)) pipe = Pipe::MTE2;
      else if (s == L1 && (d == L0A || d == L0B || d == UB)) pipe = Pipe::MTE1;
      else if (s == UB && (d == GM || d == L1)) pipe = Pipe::MTE3;
      else if (s == UB && d == UB) pipe = Pipe::V;
      else return false;
      return true;
    }
    case Opcode::CopyNd2Nz:
    case Opcode::CopyNchw2Nc1hwc0:
      pipe = Pipe::MTE2;
      return space(1) == GM && (space(0) == L1 || space(0) == L0A || space(0) == L0B || space(0) == UB);
    case Opcode::CopyGather:
      // The Scalar unit reads each index and the MTE2 fetches the row.
      pipe = Pipe::MTE2;
      return space(1) == GM && (space(0) == L1 || space(0) == UB) && space(2) == UB;
    case Opcode::CopyNz2Nd:
      pipe = Pipe::MTE3;
      return space(1) == UB && space(0) == GM;
    case Opcode::LoadFractals:
    case Opcode::Load3d:
      pipe = Pipe::MTE1;
      return space(1) == L1 && (space(0) == L0A || space(0) == L0B);
    case Opcode::Mmad:
      pipe = Pipe::M;
      return space(0) == uint8_t(Space::L0C) && space(1) == L0A && space(2) == L0B;
    case Opcode::MoveL0cToUb:
      pipe = Pipe::V;
      return space(0) == UB && space(1) == uint8_t(Space::L0C);
    default:
      break;
  }
  if (isVectorOp(ins.op)) {
    pipe = Pipe::V;
    for (unsigned s = 0; s < kMaxOperands; ++s)
      if (ins.operand[s].used() && ins.operand[s].space != UB) return false;
    return true;
  }
  return false;
}

namespace {
void put8(uint8_t*& o, uint8_t v) { *o++ = v; }
void put16(uint8_t*& o, uint16_t v) { put8(o, uint8_t(v)); put8(o, uint8_t(v >> 8)); }
void put32(uint8_t*& o, uint32_t v) { put16(o, uint16_t(v)); put16(o, uint16_t(v >> 16)); }
void put64(uint8_t*& o, uint64_t v) { put32(o, uint32_t(v)); put32(o, uint32_t(v >> 32)); }
}  // namespace

void encodeHeader(uint32_t instruction_count, uint8_t* out) {
  uint8_t* o = out;
  put8(o, 'V'); put8(o, 'N'); put8(o, 'C'); put8(o, 'K');
  put16(o, kProgramFormatVersion);
  put16(o, uint16_t(kHeaderBytes));
  put32(o, instruction_count);
  put32(o, uint32_t(kRecordBytes));
}

void encodeInstruction(const Instruction& ins, uint8_t* out) {
  uint8_t* o = out;
  put8(o, uint8_t(ins.op));
  put8(o, uint8_t(ins.pipe));
  put8(o, uint8_t(ins.dtype));
  put8(o, uint8_t(ins.dtype2));
  put32(o, ins.flags);
  for (const Operand& a : ins.operand) {
    put8(o, a.space);
    put8(o, a.arg);
    put16(o, a.block_split);
    put32(o, a.extent);
    put64(o, uint64_t(a.base));
    put32(o, uint32_t(a.block_coef));
    for (int32_t c : a.iv_coef) put32(o, uint32_t(c));
    put32(o, uint32_t(a.block_row_coef));
  }
  for (uint32_t v : ins.p) put32(o, v);
  put64(o, ins.mask[0]);
  put64(o, ins.mask[1]);
  put64(o, 0);
}

}  // namespace vinci::sim
