//===- Encode.cpp - dv kernels -> Vinci ISA program bytes ------------------===//
//
// A walk over one dv.kernel (docs/dv-dialect.md, "Encoding"). Each instruction
// op fills one sim::Instruction; operand extents come from the ISA's own
// footprint rule (sim::operandFootprint) and the pipe from sim::expectedPipe,
// cross-checked against the op's PipeOpInterface. The records are encoded
// with sim::encodeHeader / sim::encodeInstruction and decoded again as a
// self-check.
//
//===----------------------------------------------------------------------===//
#include "vinci/backend/Encode.h"
#include "vinci/backend/Address.h"

#include <cstdio>
#include <cstring>
#include <optional>

#include "dv/DvOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"
#include "vinci/sim/executor.h"
#include "vinci/sim/isa.h"
#include "vinci/soc.h"

namespace vinci::backend {
namespace {

using namespace mlir;
namespace sim = vinci::sim;
namespace dv = vinci::dv;

// One error line: "<file:line:col: >'<op>' op <message>".
std::string opError(Operation *op, const Twine &msg) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << loc.getFilename().getValue() << ":" << loc.getLine() << ":" << loc.getColumn() << ": ";
  os << "'" << op->getName().getStringRef() << "' op " << msg;
  return s;
}

std::optional<sim::DType> dtypeOf(Type t) {
  if (t.isF16()) return sim::DType::F16;
  if (t.isF32()) return sim::DType::F32;
  if (t.isBF16()) return sim::DType::BF16;
  if (t.isUnsignedInteger(8)) return sim::DType::U8;
  if (t.isSignlessInteger(8) || t.isSignedInteger(8)) return sim::DType::S8;
  if (t.isSignlessInteger(32) || t.isSignedInteger(32)) return sim::DType::S32;
  return std::nullopt;
}

uint32_t f32Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

class Encoder {
public:
  explicit Encoder(dv::KernelOp kernel) : kernel_(kernel), soc_(dv::getSoc(kernel)) {}

  bool run(EncodedKernel &out, std::string &error);

private:
  LogicalResult fail(Operation *op, const Twine &msg) {
    if (error_.empty()) error_ = opError(op, msg);
    return failure();
  }
  LogicalResult walk(Block &block);
  LogicalResult encodeOp(Operation *op);
  LogicalResult operand(Operation *user, Value buffer, sim::Operand &out);
  LogicalResult dtype(Operation *op, Value buffer, sim::DType &out);
  LogicalResult vector(Operation *op, sim::Instruction &ins, int64_t repeat,
                       std::optional<ArrayRef<int64_t>> blk, std::optional<ArrayRef<int64_t>> rep,
                       std::optional<ArrayRef<int64_t>> mask);
  LogicalResult scalar(Operation *op, Attribute attr, sim::Instruction &ins);
  LogicalResult emit(Operation *op, sim::Instruction ins);

  dv::KernelOp kernel_;
  const soc::SocSpec &soc_;
  std::vector<sim::Instruction> code_;
  std::vector<Operation *> origin_;  // the op of each record
  uint64_t slotBytes_[sim::kMaxOperands] = {};  // bytes of each operand's dv type
  std::string error_;
};

//===----------------------------------------------------------------------===//
// Addresses
//===----------------------------------------------------------------------===//

static_assert(kAddressLoopDepth == sim::kMaxLoopDepth, "one loop-depth limit");

LogicalResult Encoder::operand(Operation *user, Value buffer, sim::Operand &out) {
  OperandAddress a;
  Operation *where = nullptr;
  std::string message;
  if (failed(resolveAddress(kernel_.getOperation(), user, buffer, a, where, message)))
    return fail(where, message);
  auto fitsI32 = [](int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
  out = sim::Operand{};
  out.space = a.space;
  out.arg = a.arg;
  if (a.base < -sim::kMaxAbsBase || a.base > sim::kMaxAbsBase)
    return fail(user, "operand base " + std::to_string(a.base) + " bytes exceeds the ISA's 2^40");
  out.base = a.base;
  for (unsigned d = 0; d < sim::kMaxLoopDepth; ++d) {
    if (!fitsI32(a.iv[d]))
      return fail(user, "loop coefficient " + std::to_string(a.iv[d]) +
                            " bytes does not fit the ISA's i32 (depth " + std::to_string(d) + ")");
    out.iv_coef[d] = int32_t(a.iv[d]);
  }
  int64_t col = a.blockWhole, row = 0;
  if (a.split) {
    // block_idx = (block_idx mod G) + G * (block_idx floordiv G).
    if (a.split > UINT16_MAX)
      return fail(user, "block split G = " + std::to_string(a.split) +
                            " exceeds the ISA's 65535");
    col = a.blockWhole + a.blockMod;
    row = a.blockWhole * a.split + a.blockDiv;
    out.block_split = uint16_t(a.split);
  }
  if (!fitsI32(col) || !fitsI32(row))
    return fail(user, "block coefficient " + std::to_string(fitsI32(col) ? row : col) +
                          " bytes does not fit the ISA's i32");
  out.block_coef = int32_t(col);
  out.block_row_coef = int32_t(row);
  return success();
}

LogicalResult Encoder::dtype(Operation *op, Value buffer, sim::DType &out) {
  Type t = dv::getElementType(buffer.getType());
  std::optional<sim::DType> d = dtypeOf(t);
  if (!d) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "element type " << t << " has no ISA dtype";
    return fail(op, s);
  }
  out = *d;
  return success();
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

LogicalResult Encoder::vector(Operation *op, sim::Instruction &ins, int64_t repeat,
                              std::optional<ArrayRef<int64_t>> blk,
                              std::optional<ArrayRef<int64_t>> rep,
                              std::optional<ArrayRef<int64_t>> mask) {
  namespace P = sim::param;
  ins.p[P::Repeat] = uint32_t(repeat);
  // Absent strides: contiguous (block 1, repeat 8) for every slot, as the
  // assembler does. The lists name dst, src0[, src1] in that order.
  ins.p[P::DstBlk] = ins.p[P::Src0Blk] = ins.p[P::Src1Blk] = 1;
  ins.p[P::DstRep] = ins.p[P::Src0Rep] = ins.p[P::Src1Rep] = 8;
  if (blk) {
    if (blk->size() > 3) return fail(op, "'blk' lists more than 3 strides");
    for (auto [i, s] : llvm::enumerate(*blk)) ins.p[P::DstBlk + i] = uint32_t(s);
  }
  if (rep) {
    if (rep->size() > 3) return fail(op, "'rep' lists more than 3 strides");
    for (auto [i, s] : llvm::enumerate(*rep)) ins.p[P::DstRep + i] = uint32_t(s);
  }
  if (mask) {
    if (mask->size() != 2) return fail(op, "mask must have two words");
    ins.mask[0] = uint64_t((*mask)[0]);
    ins.mask[1] = uint64_t((*mask)[1]);
  } else {
    const uint32_t widest = std::max(sim::dtypeBytes(ins.dtype), sim::dtypeBytes(ins.dtype2));
    const uint32_t lanes = widest ? 256 / widest : 128;
    ins.mask[0] = lanes >= 64 ? ~0ull : (1ull << lanes) - 1;
    ins.mask[1] = lanes >= 128 ? ~0ull : lanes > 64 ? (1ull << (lanes - 64)) - 1 : 0;
  }
  return success();
}

LogicalResult Encoder::scalar(Operation *op, Attribute attr, sim::Instruction &ins) {
  if (auto f = dyn_cast<FloatAttr>(attr)) {
    ins.p[sim::param::Scalar] = f32Bits(float(f.getValueAsDouble()));
    return success();
  }
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    ins.p[sim::param::Scalar] = uint32_t(int32_t(i.getInt()));
    return success();
  }
  return fail(op, "scalar must be an f32 or i32 attribute");
}

LogicalResult Encoder::emit(Operation *op, sim::Instruction ins) {
  for (unsigned s = 0; s < sim::kMaxOperands; ++s) {
    uint64_t fp = sim::operandFootprint(ins, s);
    // The verifier checks the same footprint against the operand's type.
    if (ins.operand[s].used() && fp > slotBytes_[s])
      return fail(op, "operand " + std::to_string(s) + " touches " + std::to_string(fp) +
                          " bytes, more than its type's " + std::to_string(slotBytes_[s]));
    if (fp > UINT32_MAX)
      return fail(op, "operand " + std::to_string(s) + " extent exceeds the ISA's u32");
    ins.operand[s].extent = uint32_t(fp);
  }
  sim::Pipe pipe = sim::Pipe::S;
  if (!sim::expectedPipe(ins, pipe))
    return fail(op, "operand spaces name no pipe of the ISA");
  if (auto p = dyn_cast<dv::PipeOpInterface>(op))
    if (uint8_t(p.getPipe()) != uint8_t(pipe) &&
        !(p.getPipe() == dv::Pipe::ALL && pipe == sim::Pipe::S))
      return fail(op, std::string("dv names pipe ") + dv::stringifyPipe(p.getPipe()).str() +
                          " but the ISA derives " + sim::pipeName(pipe));
  ins.pipe = pipe;
  if (code_.size() >= sim::kMaxInstructions)
    return fail(op, "kernel exceeds the ISA's " + std::to_string(sim::kMaxInstructions) +
                        " instructions");
  code_.push_back(ins);
  origin_.push_back(op);
  return success();
}

LogicalResult Encoder::encodeOp(Operation *op) {
  using sim::Opcode;
  sim::Instruction ins;
  for (uint64_t &b : slotBytes_) b = 0;
  auto slots = [&](Operation *user, std::initializer_list<Value> values) -> LogicalResult {
    unsigned s = 0;
    for (Value v : values) {
      if (v && failed(operand(user, v, ins.operand[s])))
        return failure();
      if (v) slotBytes_[s] = dv::getBufferBytes(v.getType());
      ++s;
    }
    return success();
  };
  auto dt = [&](Value v, sim::DType &out) { return dtype(op, v, out); };

  // Vector helpers, by shape of the op.
  auto binary = [&](auto o, Opcode code) -> LogicalResult {
    ins.op = code;
    if (failed(dt(o.getSrc0(), ins.dtype)) || failed(slots(op, {o.getDst(), o.getSrc0(), o.getSrc1()})) ||
        failed(vector(op, ins, o.getRepeat(), o.getBlk(), o.getRep(), o.getMask())))
      return failure();
    return emit(op, ins);
  };
  auto withScalar = [&](auto o, Opcode code) -> LogicalResult {
    ins.op = code;
    if (failed(dt(o.getSrc0(), ins.dtype)) || failed(slots(op, {o.getDst(), o.getSrc0()})) ||
        failed(vector(op, ins, o.getRepeat(), o.getBlk(), o.getRep(), o.getMask())) ||
        failed(scalar(op, o.getScalar(), ins)))
      return failure();
    return emit(op, ins);
  };
  auto unary = [&](auto o, Opcode code) -> LogicalResult {
    ins.op = code;
    if (failed(dt(o.getSrc0(), ins.dtype)) || failed(slots(op, {o.getDst(), o.getSrc0()})) ||
        failed(vector(op, ins, o.getRepeat(), o.getBlk(), o.getRep(), o.getMask())))
      return failure();
    return emit(op, ins);
  };
  auto reduce = [&](auto o, Opcode code) -> LogicalResult {
    if (o.getAcrossRepeats()) ins.flags |= sim::flag::AcrossRepeats;
    return unary(o, code);
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      // Structure: no code of their own.
      .Case<dv::BlockIdxOp, dv::AllocOp, dv::ViewOp, dv::YieldOp, dv::ReturnOp>(
          [](auto) { return success(); })
      .Case([&](dv::LoopOp loop) -> LogicalResult {
        if (loop.getTrip() < 0 || loop.getTrip() > sim::kMaxTripCount)
          return fail(op, "trip count outside the ISA's 0..2^24");
        if (loop.getDepth() >= sim::kMaxLoopDepth)
          return fail(op, "loops nest at most 4 deep in the ISA");
        sim::Instruction begin;
        begin.op = Opcode::LoopBegin;
        begin.p[0] = uint32_t(loop.getTrip());
        if (failed(emit(op, begin)) || failed(walk(loop.getBody().front())))
          return failure();
        sim::Instruction end;
        end.op = Opcode::LoopEnd;
        return emit(op, end);
      })
      // Sync.
      .Case([&](dv::SetFlagOp o) {
        ins.op = Opcode::SetFlag;
        ins.p[0] = uint32_t(o.getSrc());
        ins.p[1] = uint32_t(o.getDst());
        ins.p[2] = uint32_t(o.getEvent());
        return emit(op, ins);
      })
      .Case([&](dv::WaitFlagOp o) {
        ins.op = Opcode::WaitFlag;
        ins.p[0] = uint32_t(o.getSrc());
        ins.p[1] = uint32_t(o.getDst());
        ins.p[2] = uint32_t(o.getEvent());
        return emit(op, ins);
      })
      .Case([&](dv::PipeBarrierOp o) {
        ins.op = Opcode::PipeBarrier;
        ins.p[0] = uint32_t(o.getBarrierPipe());  // ALL = sim::kPipeAll
        return emit(op, ins);
      })
      // Data movement.
      .Case([&](dv::CopyOp o) -> LogicalResult {
        ins.op = Opcode::Copy;
        if (failed(slots(op, {o.getDst(), o.getSrc()})))
          return failure();
        ins.p[0] = uint32_t(o.getBursts());
        ins.p[1] = uint32_t(o.getBurstBytes());
        ins.p[2] = uint32_t(o.getSrcGap());
        ins.p[3] = uint32_t(o.getDstGap());
        return emit(op, ins);
      })
      .Case([&](dv::CopyNd2NzOp o) -> LogicalResult {
        ins.op = Opcode::CopyNd2Nz;
        if (failed(dt(o.getSrc(), ins.dtype)) || failed(slots(op, {o.getDst(), o.getSrc()})))
          return failure();
        ins.p[0] = uint32_t(o.getRows());
        ins.p[1] = uint32_t(o.getCols());
        ins.p[2] = uint32_t(o.getSrcRowStride());
        ins.p[3] = uint32_t(o.getDstRows());
        ins.p[4] = uint32_t(o.getDstCols());
        return emit(op, ins);
      })
      .Case([&](dv::CopyNz2NdOp o) -> LogicalResult {
        ins.op = Opcode::CopyNz2Nd;
        if (failed(dt(o.getSrc(), ins.dtype)) || failed(slots(op, {o.getDst(), o.getSrc()})))
          return failure();
        ins.p[0] = uint32_t(o.getRows());
        ins.p[1] = uint32_t(o.getCols());
        ins.p[2] = uint32_t(o.getDstRowStride());
        ins.p[3] = uint32_t(o.getSrcRows());
        return emit(op, ins);
      })
      .Case([&](dv::CopyNchw2Nc1hwc0Op o) -> LogicalResult {
        ins.op = Opcode::CopyNchw2Nc1hwc0;
        if (failed(dt(o.getSrc(), ins.dtype)) || failed(slots(op, {o.getDst(), o.getSrc()})))
          return failure();
        ins.p[0] = uint32_t(o.getChannels());
        ins.p[1] = uint32_t(o.getSpatial());
        ins.p[2] = uint32_t(o.getSrcChannelStride());
        return emit(op, ins);
      })
      .Case([&](dv::CopyGatherOp o) -> LogicalResult {
        ins.op = Opcode::CopyGather;
        if (failed(slots(op, {o.getDst(), o.getSrc(), o.getIndices()})))
          return failure();
        ins.p[0] = uint32_t(o.getRows());
        ins.p[1] = uint32_t(o.getRowBytes());
        ins.p[2] = uint32_t(o.getSrcRowStride());
        ins.p[3] = uint32_t(o.getDstRowStride());
        ins.p[4] = uint32_t(o.getTableRows());
        return emit(op, ins);
      })
      .Case([&](dv::LoadFractalsOp o) -> LogicalResult {
        ins.op = Opcode::LoadFractals;
        if (failed(dt(o.getSrc(), ins.dtype)) || failed(slots(op, {o.getDst(), o.getSrc()})))
          return failure();
        ins.flags = o.getTranspose() ? sim::flag::Transpose : 0;
        ins.p[0] = uint32_t(o.getOuter());
        ins.p[1] = uint32_t(o.getInner());
        ins.p[2] = uint32_t(o.getSrcOuterStride());
        ins.p[3] = uint32_t(o.getSrcInnerStride());
        ins.p[4] = uint32_t(o.getDstOuterStride());
        ins.p[5] = uint32_t(o.getDstInnerStride());
        return emit(op, ins);
      })
      .Case([&](dv::Load3dOp o) -> LogicalResult {
        ins.op = Opcode::Load3d;
        if (failed(dt(o.getSrc(), ins.dtype)) || failed(slots(op, {o.getDst(), o.getSrc()})))
          return failure();
        ArrayRef<int64_t> pads = o.getPads();
        sim::Load3dParams p;
        p.l1_h = uint32_t(o.getFmapH());
        p.l1_w = uint32_t(o.getFmapW());
        p.pad_left = uint32_t(pads[0]);
        p.pad_right = uint32_t(pads[1]);
        p.pad_top = uint32_t(pads[2]);
        p.pad_bottom = uint32_t(pads[3]);
        p.c1_index = uint32_t(o.getC1Index());
        p.filter_w = uint32_t(o.getFilter()[0]);
        p.filter_h = uint32_t(o.getFilter()[1]);
        p.stride_w = uint32_t(o.getStrides()[0]);
        p.stride_h = uint32_t(o.getStrides()[1]);
        p.dilation_w = uint32_t(o.getDilations()[0]);
        p.dilation_h = uint32_t(o.getDilations()[1]);
        p.fetch_filter_w = uint32_t(o.getFirstTap()[0]);
        p.fetch_filter_h = uint32_t(o.getFirstTap()[1]);
        p.left_top_w = int32_t(o.getLeftTop()[0]);
        p.left_top_h = int32_t(o.getLeftTop()[1]);
        p.repeat_mode = uint32_t(o.getMode());
        p.repeat = uint32_t(o.getRepeat());
        p.jump_stride = uint32_t(o.getJumpStride());
        if (Attribute pad = o.getPadValueAttr()) {
          if (auto f = dyn_cast<FloatAttr>(pad)) {
            APFloat half = f.getValue();
            bool lost = false;
            half.convert(APFloat::IEEEhalf(), APFloat::rmNearestTiesToEven, &lost);
            p.pad_value = uint32_t(half.bitcastToAPInt().getZExtValue());
          } else {
            p.pad_value = uint32_t(cast<IntegerAttr>(pad).getInt()) & 0xFFu;
          }
        }
        sim::setLoad3dParams(ins, p);
        return emit(op, ins);
      })
      // Cube.
      .Case([&](dv::MmadOp o) -> LogicalResult {
        ins.op = Opcode::Mmad;
        if (failed(dt(o.getA(), ins.dtype)) || failed(dt(o.getC(), ins.dtype2)) ||
            failed(slots(op, {o.getC(), o.getA(), o.getB()})))
          return failure();
        if (ins.dtype == sim::DType::F32)
          return fail(op, "the ISA's mmad takes no f32 inputs (f16, bf16 or i8 only)");
        ins.flags = o.getInit() ? sim::flag::Init : 0;
        ins.p[0] = uint32_t(o.getM());
        ins.p[1] = uint32_t(o.getN());
        ins.p[2] = uint32_t(o.getK());
        return emit(op, ins);
      })
      .Case([&](dv::MoveL0cUbOp o) -> LogicalResult {
        ins.op = Opcode::MoveL0cToUb;
        if (failed(dt(o.getSrc(), ins.dtype)) || failed(dt(o.getDst(), ins.dtype2)) ||
            failed(slots(op, {o.getDst(), o.getSrc()})))
          return failure();
        ins.flags = o.getRelu() ? sim::flag::Relu : 0;
        ins.p[0] = uint32_t(o.getBursts());
        ins.p[1] = uint32_t(o.getBurstElems());
        ins.p[2] = uint32_t(o.getSrcGap());
        ins.p[3] = uint32_t(o.getDstGap());
        if (std::optional<APFloat> scale = o.getScale()) {
          ins.flags |= sim::flag::Scale;
          ins.p[4] = f32Bits(scale->convertToFloat());
        }
        return emit(op, ins);
      })
      // Vector.
      .Case([&](dv::VAddOp o) { return binary(o, Opcode::VAdd); })
      .Case([&](dv::VSubOp o) { return binary(o, Opcode::VSub); })
      .Case([&](dv::VMulOp o) { return binary(o, Opcode::VMul); })
      .Case([&](dv::VDivOp o) { return binary(o, Opcode::VDiv); })
      .Case([&](dv::VMaxOp o) { return binary(o, Opcode::VMax); })
      .Case([&](dv::VMinOp o) { return binary(o, Opcode::VMin); })
      .Case([&](dv::VMlaOp o) { return binary(o, Opcode::VMla); })
      .Case([&](dv::VAddsOp o) { return withScalar(o, Opcode::VAdds); })
      .Case([&](dv::VMulsOp o) { return withScalar(o, Opcode::VMuls); })
      .Case([&](dv::VMaxsOp o) { return withScalar(o, Opcode::VMaxs); })
      .Case([&](dv::VMinsOp o) { return withScalar(o, Opcode::VMins); })
      .Case([&](dv::VLeakyReluOp o) { return withScalar(o, Opcode::VLeakyRelu); })
      .Case([&](dv::VAxpyOp o) { return withScalar(o, Opcode::VAxpy); })
      .Case([&](dv::VExpOp o) { return unary(o, Opcode::VExp); })
      .Case([&](dv::VLnOp o) { return unary(o, Opcode::VLn); })
      .Case([&](dv::VSqrtOp o) { return unary(o, Opcode::VSqrt); })
      .Case([&](dv::VRsqrtOp o) { return unary(o, Opcode::VRsqrt); })
      .Case([&](dv::VRecOp o) { return unary(o, Opcode::VRec); })
      .Case([&](dv::VAbsOp o) { return unary(o, Opcode::VAbs); })
      .Case([&](dv::VReluOp o) { return unary(o, Opcode::VRelu); })
      .Case([&](dv::VNegOp o) { return unary(o, Opcode::VNeg); })
      .Case([&](dv::VCopyOp o) { return unary(o, Opcode::VCopy); })
      .Case([&](dv::VBrcbOp o) { return unary(o, Opcode::VBrcb); })
      .Case([&](dv::VCAddOp o) { return reduce(o, Opcode::VCAdd); })
      .Case([&](dv::VCMaxOp o) { return reduce(o, Opcode::VCMax); })
      .Case([&](dv::VCMinOp o) { return reduce(o, Opcode::VCMin); })
      .Case([&](dv::VCmpOp o) -> LogicalResult {
        ins.op = Opcode::VCmp;
        ins.p[sim::param::Mode] = uint32_t(o.getMode());
        return binary(o, Opcode::VCmp);
      })
      .Case([&](dv::VCmpsOp o) -> LogicalResult {
        ins.p[sim::param::Mode] = uint32_t(o.getMode());
        return withScalar(o, Opcode::VCmps);
      })
      .Case([&](dv::VSelOp o) -> LogicalResult {
        ins.op = Opcode::VSel;
        if (failed(dt(o.getSrc0(), ins.dtype)) ||
            failed(slots(op, {o.getDst(), o.getSrc0(), o.getSrc1(), o.getSelMask()})) ||
            failed(vector(op, ins, o.getRepeat(), o.getBlk(), o.getRep(), o.getMask())))
          return failure();
        return emit(op, ins);
      })
      .Case([&](dv::VDupOp o) -> LogicalResult {
        ins.op = Opcode::VDup;
        if (failed(dt(o.getDst(), ins.dtype)) || failed(slots(op, {o.getDst()})) ||
            failed(vector(op, ins, o.getRepeat(), o.getBlk(), o.getRep(), o.getMask())) ||
            failed(scalar(op, o.getScalar(), ins)))
          return failure();
        return emit(op, ins);
      })
      .Case([&](dv::VConvOp o) -> LogicalResult {
        ins.op = Opcode::VConv;
        if (failed(dt(o.getSrc0(), ins.dtype)) || failed(dt(o.getDst(), ins.dtype2)) ||
            failed(slots(op, {o.getDst(), o.getSrc0()})) ||
            failed(vector(op, ins, o.getRepeat(), o.getBlk(), o.getRep(), o.getMask())))
          return failure();
        ins.p[sim::param::Mode] = uint32_t(o.getRound());
        return emit(op, ins);
      })
      .Case([&](dv::VTransposeOp o) -> LogicalResult {
        ins.op = Opcode::VTranspose;
        if (failed(dt(o.getSrc0(), ins.dtype)) || failed(slots(op, {o.getDst(), o.getSrc0()})))
          return failure();
        ins.p[0] = uint32_t(o.getTiles());
        return emit(op, ins);
      })
      .Default([&](Operation *other) {
        return fail(other, "has no ISA encoding (only dv ops can appear in a dv.kernel body)");
      });
}

LogicalResult Encoder::walk(Block &block) {
  for (Operation &op : block)
    if (failed(encodeOp(&op)))
      return failure();
  return success();
}

bool Encoder::run(EncodedKernel &out, std::string &error) {
  Operation *k = kernel_.getOperation();
  auto reject = [&](Operation *at, const Twine &msg) {
    (void)fail(at, msg);
    error = error_;
    return false;
  };
  if (kernel_.getBody().empty() || !kernel_.getBody().hasOneBlock())
    return reject(k, "needs a body of one block");
  if (kernel_.getBlockDim() < 1 || kernel_.getBlockDim() > sim::kMaxBlockDim)
    return reject(k, "block_dim outside the ISA's 1..65535");
  const unsigned numArgs = kernel_.getBody().front().getNumArguments();
  if (numArgs > 255)
    return reject(k, "more than 255 GM arguments");
  for (BlockArgument arg : kernel_.getBody().front().getArguments())
    if (!isa<dv::GmType>(arg.getType()))
      return reject(k, "argument #" + std::to_string(arg.getArgNumber()) +
                                    " is not a GM buffer");
  if (failed(walk(kernel_.getBody().front()))) {
    error = error_;
    return false;
  }

  std::vector<uint8_t> bytes(sim::kHeaderBytes + code_.size() * sim::kRecordBytes);
  sim::encodeHeader(uint32_t(code_.size()), bytes.data());
  for (size_t i = 0; i < code_.size(); ++i)
    sim::encodeInstruction(code_[i], bytes.data() + sim::kHeaderBytes + i * sim::kRecordBytes);

  // Self-check: the runtime must accept what the encoder emits.
  sim::Program program;
  std::string why;
  if (!sim::decodeProgram(bytes.data(), bytes.size(), soc_, numArgs, program, why)) {
    Operation *at = k;
    unsigned long pc = 0;
    if (sscanf(why.c_str(), "instruction %lu", &pc) == 1 && pc < origin_.size())
      at = origin_[pc];
    return reject(at, "encodes to a program the ISA decoder rejects: " + why);
  }

  out.name = kernel_.getSymName().str();
  out.program = std::move(bytes);
  out.num_args = numArgs;
  out.block_dim = uint32_t(kernel_.getBlockDim());
  out.kind = kernel_.getKind().str();
  out.soc = soc_.name;
  out.instruction_count = uint32_t(code_.size());
  out.dynamic_instruction_count = program.dynamicInstructionCount();
  return true;
}

}  // namespace

bool encodeKernel(dv::KernelOp kernel, EncodedKernel &out, std::string &error) {
  Encoder encoder(kernel);
  return encoder.run(out, error);
}

bool encodeKernel(dv::KernelOp kernel, std::vector<uint8_t> &program, std::string &error) {
  EncodedKernel out;
  if (!encodeKernel(kernel, out, error))
    return false;
  program = std::move(out.program);
  return true;
}

}  // namespace vinci::backend
