// ProgramBuilder: builds instruction records and encodes them.
#include "vinci/sim/assembler.h"

#include <algorithm>
#include <cstring>

#include "vinci/sim/numeric.h"

namespace vinci::sim {

using soc::Space;

namespace {
Addr make(Space s, uint8_t arg, int64_t base) {
  Addr a;
  a.space = s;
  a.arg = arg;
  a.base = base;
  return a;
}

Operand toOperand(const Addr& a) {
  Operand o;
  o.space = uint8_t(a.space);
  o.arg = a.arg;
  o.base = a.base;
  o.block_coef = a.block_coef;
  for (unsigned d = 0; d < kMaxLoopDepth; ++d) o.iv_coef[d] = a.iv_coef[d];
  o.block_split = a.block_split;
  o.block_row_coef = a.block_row_coef;
  return o;
}

uint32_t scalarBits(DType t, double v) {
  if (t == DType::S32 || t == DType::S8 || t == DType::U8) return uint32_t(int32_t(v));
  return floatBits(float(v));
}

void setVec(Instruction& ins, const VecParams& vp) {
  ins.p[param::Repeat] = vp.repeat;
  ins.p[param::DstBlk] = vp.dst_blk;
  ins.p[param::Src0Blk] = vp.src0_blk;
  ins.p[param::Src1Blk] = vp.src1_blk;
  ins.p[param::DstRep] = vp.dst_rep;
  ins.p[param::Src0Rep] = vp.src0_rep;
  ins.p[param::Src1Rep] = vp.src1_rep;
  ins.mask[0] = vp.mask_lo;
  ins.mask[1] = vp.mask_hi;
  // Mask bits beyond the lanes of a repeat are not encoded (the decoder rejects them).
  const uint32_t widest = std::max(dtypeBytes(ins.dtype), dtypeBytes(ins.dtype2));
  const uint32_t lanes = widest ? 256 / widest : 128;
  if (lanes <= 64) {
    ins.mask[1] = 0;
    if (lanes < 64) ins.mask[0] &= (1ull << lanes) - 1;
  }
}
}  // namespace

Addr Addr::gm(uint8_t arg, int64_t base) { return make(Space::GM, arg, base); }
Addr Addr::l1(int64_t base) { return make(Space::L1, 0, base); }
Addr Addr::l0a(int64_t base) { return make(Space::L0A, 0, base); }
Addr Addr::l0b(int64_t base) { return make(Space::L0B, 0, base); }
Addr Addr::l0c(int64_t base) { return make(Space::L0C, 0, base); }
Addr Addr::ub(int64_t base) { return make(Space::UB, 0, base); }

Addr& Addr::iv(unsigned depth, int32_t coef) {
  if (depth < kMaxLoopDepth) iv_coef[depth] += coef;
  return *this;
}
Addr& Addr::block(int32_t coef) {
  block_coef += coef;
  return *this;
}
Addr& Addr::blockGrid(uint16_t split, int32_t col_coef, int32_t row_coef) {
  block_split = split;
  block_coef = col_coef;
  block_row_coef = row_coef;
  return *this;
}
Addr Addr::plus(int64_t bytes) const {
  Addr a = *this;
  a.base += bytes;
  return a;
}

VecParams& VecParams::maskCount(uint32_t lanes) {
  mask_lo = lanes >= 64 ? ~0ull : (lanes ? (1ull << lanes) - 1 : 0);
  mask_hi = lanes >= 128 ? ~0ull : (lanes > 64 ? (1ull << (lanes - 64)) - 1 : 0);
  return *this;
}
VecParams& VecParams::maskBits(uint64_t lo, uint64_t hi) {
  mask_lo = lo;
  mask_hi = hi;
  return *this;
}
VecParams VecParams::dense(DType dtype, uint32_t repeat) {
  VecParams v;
  v.repeat = repeat;
  v.maskCount(dtypeBytes(dtype) ? 256 / dtypeBytes(dtype) : 128);
  return v;
}

void ProgramBuilder::emit(Instruction ins) {
  for (unsigned s = 0; s < kMaxOperands; ++s) {
    uint64_t fp = operandFootprint(ins, s);
    ins.operand[s].extent = fp > UINT32_MAX ? UINT32_MAX : uint32_t(fp);
  }
  Pipe pipe = Pipe::S;
  if (!expectedPipe(ins, pipe) && error_.empty())
    error_ = std::string("instruction ") + std::to_string(code_.size()) + " (" +
             opcodeName(ins.op) + "): operand spaces do not name a pipe";
  ins.pipe = pipe;
  code_.push_back(ins);
}

unsigned ProgramBuilder::loopBegin(uint32_t trip_count) {
  Instruction ins;
  ins.op = Opcode::LoopBegin;
  ins.p[0] = trip_count;
  emit(ins);
  if (depth_ >= kMaxLoopDepth && error_.empty()) error_ = "loops nested deeper than 4";
  return depth_++;
}

void ProgramBuilder::loopEnd() {
  if (depth_ == 0) {
    if (error_.empty()) error_ = "loopEnd without loopBegin";
  } else {
    --depth_;
  }
  Instruction ins;
  ins.op = Opcode::LoopEnd;
  emit(ins);
}

void ProgramBuilder::setFlag(Pipe src, Pipe dst, uint8_t event) {
  Instruction ins;
  ins.op = Opcode::SetFlag;
  ins.p[0] = uint32_t(src);
  ins.p[1] = uint32_t(dst);
  ins.p[2] = event;
  emit(ins);
}

void ProgramBuilder::waitFlag(Pipe src, Pipe dst, uint8_t event) {
  Instruction ins;
  ins.op = Opcode::WaitFlag;
  ins.p[0] = uint32_t(src);
  ins.p[1] = uint32_t(dst);
  ins.p[2] = event;
  emit(ins);
}

void ProgramBuilder::pipeBarrier(Pipe pipe) {
  Instruction ins;
  ins.op = Opcode::PipeBarrier;
  ins.p[0] = uint32_t(pipe);
  emit(ins);
}

void ProgramBuilder::pipeBarrierAll() {
  Instruction ins;
  ins.op = Opcode::PipeBarrier;
  ins.p[0] = kPipeAll;
  emit(ins);
}

void ProgramBuilder::nop() { emit(Instruction{}); }

void ProgramBuilder::copy(const Addr& dst, const Addr& src, const Burst& b) {
  Instruction ins;
  ins.op = Opcode::Copy;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src);
  ins.p[0] = b.count;
  ins.p[1] = b.bytes;
  ins.p[2] = b.src_gap;
  ins.p[3] = b.dst_gap;
  emit(ins);
}

void ProgramBuilder::copyNd2Nz(const Addr& dst, const Addr& src, DType dtype, uint32_t rows,
                               uint32_t cols, uint32_t src_row_stride, uint32_t dst_rows,
                               uint32_t dst_cols) {
  Instruction ins;
  ins.op = Opcode::CopyNd2Nz;
  ins.dtype = dtype;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src);
  ins.p[0] = rows;
  ins.p[1] = cols;
  ins.p[2] = src_row_stride;
  ins.p[3] = dst_rows;
  ins.p[4] = dst_cols;
  emit(ins);
}

void ProgramBuilder::copyGather(const Addr& dst, const Addr& table, const Addr& indices,
                                uint32_t rows, uint32_t row_bytes, uint32_t table_row_stride,
                                uint32_t dst_row_stride, uint32_t table_rows) {
  Instruction ins;
  ins.op = Opcode::CopyGather;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(table);
  ins.operand[2] = toOperand(indices);
  ins.p[0] = rows;
  ins.p[1] = row_bytes;
  ins.p[2] = table_row_stride;
  ins.p[3] = dst_row_stride;
  ins.p[4] = table_rows;
  emit(ins);
}

void ProgramBuilder::copyNz2Nd(const Addr& dst, const Addr& src, DType dtype, uint32_t rows,
                               uint32_t cols, uint32_t dst_row_stride, uint32_t src_rows) {
  Instruction ins;
  ins.op = Opcode::CopyNz2Nd;
  ins.dtype = dtype;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src);
  ins.p[0] = rows;
  ins.p[1] = cols;
  ins.p[2] = dst_row_stride;
  ins.p[3] = src_rows;
  emit(ins);
}

void ProgramBuilder::copyNchw2Nc1hwc0(const Addr& dst, const Addr& src, DType dtype,
                                      uint32_t channels, uint32_t spatial,
                                      uint32_t src_channel_stride) {
  Instruction ins;
  ins.op = Opcode::CopyNchw2Nc1hwc0;
  ins.dtype = dtype;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src);
  ins.p[0] = channels;
  ins.p[1] = spatial;
  ins.p[2] = src_channel_stride;
  emit(ins);
}

void ProgramBuilder::loadFractals(const Addr& dst, const Addr& src, DType dtype, uint32_t outer,
                                  uint32_t inner, uint32_t src_outer_stride,
                                  uint32_t src_inner_stride, uint32_t dst_outer_stride,
                                  uint32_t dst_inner_stride, bool transpose) {
  Instruction ins;
  ins.op = Opcode::LoadFractals;
  ins.dtype = dtype;
  ins.flags = transpose ? flag::Transpose : 0;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src);
  ins.p[0] = outer;
  ins.p[1] = inner;
  ins.p[2] = src_outer_stride;
  ins.p[3] = src_inner_stride;
  ins.p[4] = dst_outer_stride;
  ins.p[5] = dst_inner_stride;
  emit(ins);
}

void ProgramBuilder::load3d(const Addr& dst, const Addr& src, DType dtype, const Load3dParams& params) {
  Instruction ins;
  ins.op = Opcode::Load3d;
  ins.dtype = dtype;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src);
  setLoad3dParams(ins, params);
  emit(ins);
}

void ProgramBuilder::mmad(const Addr& c, const Addr& a, const Addr& b, DType in, DType out,
                          uint32_t m, uint32_t n, uint32_t k, bool init) {
  Instruction ins;
  ins.op = Opcode::Mmad;
  ins.dtype = in;
  ins.dtype2 = out;
  ins.flags = init ? flag::Init : 0;
  ins.operand[0] = toOperand(c);
  ins.operand[1] = toOperand(a);
  ins.operand[2] = toOperand(b);
  ins.p[0] = m;
  ins.p[1] = n;
  ins.p[2] = k;
  emit(ins);
}

void ProgramBuilder::moveL0cToUb(const Addr& dst, const Addr& src, DType src_type,
                                 DType dst_type, const Burst& b, bool relu, float scale,
                                 bool use_scale) {
  Instruction ins;
  ins.op = Opcode::MoveL0cToUb;
  ins.dtype = src_type;
  ins.dtype2 = dst_type;
  ins.flags = (relu ? flag::Relu : 0) | (use_scale ? flag::Scale : 0);
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src);
  ins.p[0] = b.count;
  ins.p[1] = b.bytes;  // elements for this instruction
  ins.p[2] = b.src_gap;
  ins.p[3] = b.dst_gap;
  ins.p[4] = use_scale ? floatBits(scale) : 0;
  emit(ins);
}

void ProgramBuilder::vbinary(Opcode op, DType dtype, const Addr& dst, const Addr& src0,
                             const Addr& src1, const VecParams& vp) {
  Instruction ins;
  ins.op = op;
  ins.dtype = dtype;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src0);
  ins.operand[2] = toOperand(src1);
  setVec(ins, vp);
  emit(ins);
}

void ProgramBuilder::vscalar(Opcode op, DType dtype, const Addr& dst, const Addr& src,
                             double scalar, const VecParams& vp) {
  Instruction ins;
  ins.op = op;
  ins.dtype = dtype;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src);
  setVec(ins, vp);
  ins.p[param::Scalar] = scalarBits(dtype, scalar);
  emit(ins);
}

void ProgramBuilder::vunary(Opcode op, DType dtype, const Addr& dst, const Addr& src,
                            const VecParams& vp) {
  Instruction ins;
  ins.op = op;
  ins.dtype = dtype;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src);
  setVec(ins, vp);
  emit(ins);
}

void ProgramBuilder::vcmp(CmpMode mode, DType dtype, const Addr& dst_mask, const Addr& src0,
                          const Addr& src1, const VecParams& vp) {
  Instruction ins;
  ins.op = Opcode::VCmp;
  ins.dtype = dtype;
  ins.operand[0] = toOperand(dst_mask);
  ins.operand[1] = toOperand(src0);
  ins.operand[2] = toOperand(src1);
  setVec(ins, vp);
  ins.p[param::Mode] = uint32_t(mode);
  emit(ins);
}

void ProgramBuilder::vcmps(CmpMode mode, DType dtype, const Addr& dst_mask, const Addr& src0,
                           double scalar, const VecParams& vp) {
  Instruction ins;
  ins.op = Opcode::VCmps;
  ins.dtype = dtype;
  ins.operand[0] = toOperand(dst_mask);
  ins.operand[1] = toOperand(src0);
  setVec(ins, vp);
  ins.p[param::Scalar] = scalarBits(dtype, scalar);
  ins.p[param::Mode] = uint32_t(mode);
  emit(ins);
}

void ProgramBuilder::vsel(DType dtype, const Addr& dst, const Addr& src0, const Addr& src1,
                          const Addr& mask, const VecParams& vp) {
  Instruction ins;
  ins.op = Opcode::VSel;
  ins.dtype = dtype;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src0);
  ins.operand[2] = toOperand(src1);
  ins.operand[3] = toOperand(mask);
  setVec(ins, vp);
  emit(ins);
}

void ProgramBuilder::vreduce(Opcode op, DType dtype, const Addr& dst, const Addr& src,
                             const VecParams& vp, bool across_repeats) {
  Instruction ins;
  ins.op = op;
  ins.dtype = dtype;
  ins.flags = across_repeats ? flag::AcrossRepeats : 0;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src);
  setVec(ins, vp);
  emit(ins);
}

void ProgramBuilder::vdup(DType dtype, const Addr& dst, double scalar, const VecParams& vp) {
  Instruction ins;
  ins.op = Opcode::VDup;
  ins.dtype = dtype;
  ins.operand[0] = toOperand(dst);
  setVec(ins, vp);
  ins.p[param::Scalar] = scalarBits(dtype, scalar);
  emit(ins);
}

void ProgramBuilder::vconv(DType dst_type, DType src_type, const Addr& dst, const Addr& src,
                           RoundMode mode, const VecParams& vp) {
  Instruction ins;
  ins.op = Opcode::VConv;
  ins.dtype = src_type;
  ins.dtype2 = dst_type;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src);
  setVec(ins, vp);
  ins.p[param::Mode] = uint32_t(mode);
  emit(ins);
}

void ProgramBuilder::vtranspose(const Addr& dst, const Addr& src, uint32_t tiles) {
  Instruction ins;
  ins.op = Opcode::VTranspose;
  ins.dtype = DType::F16;
  ins.operand[0] = toOperand(dst);
  ins.operand[1] = toOperand(src);
  ins.p[0] = tiles;
  emit(ins);
}

std::string ProgramBuilder::error() const {
  if (!error_.empty()) return error_;
  if (depth_ != 0) return "loopBegin without loopEnd";
  return {};
}

void ProgramBuilder::raw(const Instruction& ins) { code_.push_back(ins); }

std::vector<uint8_t> ProgramBuilder::finish() const {
  std::vector<uint8_t> bytes(kHeaderBytes + code_.size() * kRecordBytes);
  encodeHeader(uint32_t(code_.size()), bytes.data());
  for (size_t i = 0; i < code_.size(); ++i)
    encodeInstruction(code_[i], bytes.data() + kHeaderBytes + i * kRecordBytes);
  return bytes;
}

}  // namespace vinci::sim
