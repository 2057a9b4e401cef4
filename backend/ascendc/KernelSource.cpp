//===- KernelSource.cpp - one dv.kernel as an Ascend C source -------------===//
//
// The kernel's frame (TPipe and one TBuf per space it uses, a GlobalTensor per
// argument, the block index, the fresh-core zeroing of the UB), its loops,
// its addresses, its synchronisation and its vector instructions. Data
// movement and the Cube are in KernelMoves.cpp. docs/ascendc.md has the
// mapping table.
//
//===----------------------------------------------------------------------===//
#include "KernelWriter.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

namespace vinci::backend::ascendc {

using namespace mlir;

namespace {

/// The physical space as the generated code names its raw byte tensor and
/// the TBuf position it comes from.
struct SpaceInfo {
  const char *var;       // LocalTensor<uint8_t> over the whole TBuf
  const char *position;  // TPosition of the TBuf
  const char *prefix;    // alloc variables: <prefix><n>
};

const SpaceInfo &spaceInfo(dv::MemSpace space) {
  static const SpaceInfo kInfo[] = {
      {"", "GM", "gm"},           {"l1", "A1", "l1_"},    {"l0a", "A2", "l0a_"},
      {"l0b", "B2", "l0b_"},      {"l0c", "CO1", "l0c_"}, {"ub", "VECCALC", "ub_"}};
  return kInfo[unsigned(space)];
}

const char *pipeName(dv::Pipe pipe) {
  switch (pipe) {
  case dv::Pipe::S: return "S";
  case dv::Pipe::V: return "V";
  case dv::Pipe::M: return "M";
  case dv::Pipe::MTE1: return "MTE1";
  case dv::Pipe::MTE2: return "MTE2";
  case dv::Pipe::MTE3: return "MTE3";
  case dv::Pipe::ALL: return "ALL";
  }
  return "?";
}

/// The HardEvent pairs Ascend C names (the host implementation has the same).
bool isHardEvent(dv::Pipe src, dv::Pipe dst) {
  static const char *const kPairs[] = {
      "MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3",
      "M_V", "V_M", "V_V", "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1",
      "MTE3_MTE2", "MTE2_MTE3", "S_V", "V_S", "S_MTE2", "MTE2_S", "S_MTE3", "MTE3_S", "M_S",
      "S_M", "MTE1_S", "S_MTE1"};
  std::string name = std::string(pipeName(src)) + "_" + pipeName(dst);
  for (const char *pair : kPairs)
    if (name == pair)
      return true;
  return false;
}

std::string hexMask(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64 "ull", v);
  return buf;
}

/// A float literal that converts to exactly `v`.
std::string floatLiteral(float v) {
  if (std::isnan(v))
    return "__builtin_nanf(\"\")";
  if (std::isinf(v))
    return v > 0 ? "__builtin_huge_valf()" : "-__builtin_huge_valf()";
  if (v == std::trunc(v) && std::fabs(v) < 1e7f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1ff", double(v));
    return buf;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%af", double(v));
  return buf;
}

} // namespace

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

LogicalResult KernelWriter::fail(Operation *op, const Twine &message) {
  if (!error_.empty())
    return failure();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "kernel " << kernel_.getSymName() << ": ";
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << loc.getFilename().getValue() << ":" << loc.getLine() << ":" << loc.getColumn() << ": ";
  os << "'" << op->getName().getStringRef() << "' op " << message;
  error_ = text;
  return failure();
}

std::optional<std::string> KernelWriter::cType(Operation *op, Type element) {
  if (element.isF16())
    return std::string("half");
  if (element.isF32())
    return std::string("float");
  if (element.isSignlessInteger(32) || element.isSignedInteger(32))
    return std::string("int32_t");
  if (element.isSignlessInteger(8) || element.isSignedInteger(8))
    return std::string("int8_t");
  if (element.isUnsignedInteger(8))
    return std::string("uint8_t");
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "element type " << element << " has no Ascend C type on this SoC (no bfloat16_t on 310P)";
  (void)fail(op, text);
  return std::nullopt;
}

LogicalResult KernelWriter::ref(Operation *user, Value buffer, TensorRef &out) {
  Operation *where = nullptr;
  std::string message;
  if (failed(resolveAddress(kernel_.getOperation(), user, buffer, out.bytes, where, message)))
    return fail(where, message);
  auto name = names_.find(out.bytes.root);
  if (name == names_.end())
    return fail(user, "operand's buffer has no tensor variable");
  out.var = name->second;
  out.element = dv::getElementType(buffer.getType());
  out.space = dv::getSpace(buffer.getType());
  // The variable starts at the alloc's offset.
  if (auto alloc = out.bytes.root.getDefiningOp<dv::AllocOp>())
    out.bytes.base -= *alloc.getOffset();
  if (out.bytes.blockWhole || out.bytes.blockMod || out.bytes.blockDiv)
    usesBlockIdx_ = true;
  return success();
}

std::string KernelWriter::at(const TensorRef &t, int64_t extraBytes, const std::string &extraTerm) {
  const int64_t es = std::max(1u, dv::elementBytes(t.element));
  std::vector<std::string> terms;
  auto term = [&](int64_t bytes, const std::string &what) {
    if (bytes == 0)
      return;
    int64_t elems = bytes / es;
    std::string coef = elems == 1 ? "" : std::to_string(elems) + " * ";
    terms.push_back(what.empty() ? std::to_string(elems) : coef + what);
  };
  for (unsigned d = 0; d < kAddressLoopDepth; ++d)
    term(t.bytes.iv[d], "i" + std::to_string(d));
  term(t.bytes.blockWhole, "bid");
  if (t.bytes.split) {
    term(t.bytes.blockMod, "(bid % " + std::to_string(t.bytes.split) + ")");
    term(t.bytes.blockDiv, "(bid / " + std::to_string(t.bytes.split) + ")");
  }
  if (!extraTerm.empty())
    terms.push_back(extraTerm);
  term(t.bytes.base + extraBytes, "");
  if (terms.empty())
    return t.var;
  std::string offset;
  for (const std::string &s : terms)
    offset += (offset.empty() ? "" : " + ") + s;
  return t.var + "[" + offset + "]";
}

std::string KernelWriter::atAs(const TensorRef &t, const std::string &as, int64_t extraBytes) {
  return at(t, extraBytes) + ".ReinterpretCast<" + as + ">()";
}

std::string KernelWriter::mask(uint64_t lo, uint64_t hi) {
  auto [it, inserted] = masks_.try_emplace({lo, hi}, "");
  if (inserted) {
    it->second = "mask" + std::to_string(maskOrder_.size());
    maskOrder_.push_back("  uint64_t " + it->second + "[2] = {" + hexMask(lo) + ", " + hexMask(hi) +
                         "};\n");
  }
  return it->second;
}

void KernelWriter::line(const Twine &text) {
  body_.append(2 * indent_, ' ');
  body_ += text.str();
  body_ += "\n";
}

void KernelWriter::open(const Twine &text) {
  line(text + " {");
  ++indent_;
}

void KernelWriter::close() {
  --indent_;
  line("}");
}

void KernelWriter::barrierAll(const char *why) { line("PipeBarrier<PIPE_ALL>();  // " + Twine(why)); }

std::string KernelWriter::literal(const std::string &type, Attribute scalar) {
  if (auto f = dyn_cast<FloatAttr>(scalar)) {
    std::string lit = floatLiteral(float(f.getValueAsDouble()));
    return type == "float" ? lit : type + "(" + lit + ")";
  }
  auto i = cast<IntegerAttr>(scalar);
  int64_t v = int32_t(i.getInt());
  if (v == INT32_MIN)
    return type + "(-2147483647 - 1)";
  return type + "(" + std::to_string(v) + ")";
}

VectorParams KernelWriter::vectorParams(Operation *, int64_t repeat,
                                        std::optional<ArrayRef<int64_t>> blk,
                                        std::optional<ArrayRef<int64_t>> rep,
                                        std::optional<ArrayRef<int64_t>> mask, Type widest) {
  VectorParams p;
  p.repeat = repeat;
  if (blk)
    for (auto [i, s] : llvm::enumerate(*blk))
      if (i < 3)
        p.blk[i] = s;
  if (rep)
    for (auto [i, s] : llvm::enumerate(*rep))
      if (i < 3)
        p.rep[i] = s;
  if (mask && mask->size() == 2) {
    p.mask[0] = uint64_t((*mask)[0]);
    p.mask[1] = uint64_t((*mask)[1]);
  } else {
    // Every lane of a repeat: 256 bytes of the widest element (docs/isa.md).
    const unsigned lanes = 256 / std::max(1u, dv::elementBytes(widest));
    p.mask[0] = lanes >= 64 ? ~0ull : (1ull << lanes) - 1;
    p.mask[1] = lanes >= 128 ? ~0ull : lanes > 64 ? (1ull << (lanes - 64)) - 1 : 0;
  }
  return p;
}

void KernelWriter::zeroUb(const TensorRef &t, int64_t extraBytes, uint64_t bytes,
                          const uint64_t *lanePattern) {
  // uint16 lanes: 128 per 256-byte repeat, at most 255 repeats a call.
  const uint64_t full[2] = {~0ull, ~0ull};
  const uint64_t *pattern = lanePattern ? lanePattern : full;
  uint64_t done = 0;
  while (done < bytes) {
    uint64_t left = bytes - done;
    if (left >= 256) {
      uint64_t repeats = std::min<uint64_t>(left / 256, 255);
      line("Duplicate(" + atAs(t, "uint16_t", extraBytes + int64_t(done)) + ", uint16_t(0), " +
           mask(pattern[0], pattern[1]) + ", " + std::to_string(repeats) + ", 1, 8);");
      done += repeats * 256;
      continue;
    }
    // A last partial repeat: the first left / 2 lanes.
    uint64_t lanes = left / 2;
    uint64_t lo = pattern[0] & (lanes >= 64 ? ~0ull : (1ull << lanes) - 1);
    uint64_t hi = lanes > 64 ? pattern[1] & ((1ull << (lanes - 64)) - 1) : 0;
    line("Duplicate(" + atAs(t, "uint16_t", extraBytes + int64_t(done)) + ", uint16_t(0), " +
         mask(lo, hi) + ", 1, 1, 8);");
    done = bytes;
  }
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

LogicalResult KernelWriter::scan() {
  unsigned counters[6] = {};
  for (BlockArgument arg : kernel_.getBody().front().getArguments())
    names_[arg] = "gm" + std::to_string(arg.getArgNumber());
  WalkResult result = kernel_.walk([&](dv::AllocOp alloc) {
    dv::MemSpace space = dv::getSpace(alloc.getType());
    if (!alloc.getOffset()) {
      (void)fail(alloc, "has no offset: run the buffer allocation pass first");
      return WalkResult::interrupt();
    }
    uint64_t end = uint64_t(*alloc.getOffset()) + dv::getBufferBytes(alloc.getType());
    if (space == dv::MemSpace::UB && end > kAscendCUbBytes) {
      (void)fail(alloc, "ends at byte " + std::to_string(end) +
                            " of the UB: Ascend C gives a kernel 248 KiB of its 256 (plan "
                            "the kernels for Ascend310P3-AscendC)");
      return WalkResult::interrupt();
    }
    spaceBytes_[unsigned(space)] = std::max(spaceBytes_[unsigned(space)], end);
    names_[alloc.getResult()] =
        spaceInfo(space).prefix + std::to_string(counters[unsigned(space)]++);
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  stagingOffset_ = int64_t((spaceBytes_[unsigned(dv::MemSpace::UB)] + 31) / 32 * 32);
  // A GM write whose bursts end inside a 32-byte block is exact on one
  // core (writeTail, or the next burst covering it) but a race between
  // cores: such a kernel runs its blocks one after another.
  bool partialGmWrites = false;
  kernel_.walk([&](Operation *op) {
    if (auto copy = dyn_cast<dv::CopyOp>(op))
      partialGmWrites |= isa<dv::GmType>(copy.getDst().getType()) && copy.getBurstBytes() % 32 != 0;
    if (auto nz = dyn_cast<dv::CopyNz2NdOp>(op)) {
      unsigned es = dv::elementBytes(dv::getElementType(nz.getDst().getType()));
      partialGmWrites |= (nz.getCols() % (es == 1 ? 32 : 16)) * es % 32 != 0;
    }
  });
  serialized_ = partialGmWrites && kernel_.getBlockDim() > 1;
  return success();
}

LogicalResult KernelWriter::emitBlock(Block &block) {
  for (Operation &op : block)
    if (failed(emitOp(&op)))
      return failure();
  return success();
}

LogicalResult KernelWriter::emitOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<dv::BlockIdxOp, dv::ViewOp, dv::YieldOp, dv::ReturnOp>([](auto) { return success(); })
      .Case([&](dv::AllocOp alloc) -> LogicalResult {
        dv::MemSpace space = dv::getSpace(alloc.getType());
        std::optional<std::string> type = cType(op, dv::getElementType(alloc.getType()));
        if (!type)
          return failure();
        line("LocalTensor<" + *type + "> " + names_[alloc.getResult()] + " = " +
             spaceInfo(space).var + "[" + std::to_string(*alloc.getOffset()) +
             "].ReinterpretCast<" + *type + ">();");
        return success();
      })
      .Case([&](dv::LoopOp loop) -> LogicalResult {
        std::string iv = "i" + std::to_string(loop.getDepth());
        open("for (int64_t " + iv + " = 0; " + iv + " < " + std::to_string(loop.getTrip()) +
             "; ++" + iv + ")");
        if (failed(emitBlock(loop.getBody().front())))
          return failure();
        close();
        return success();
      })
      .Case<dv::SetFlagOp, dv::WaitFlagOp, dv::PipeBarrierOp>([&](auto) { return emitSync(op); })
      .Case([&](dv::CopyOp o) { return emitCopy(o); })
      .Case([&](dv::CopyNd2NzOp o) { return emitCopyNd2Nz(o); })
      .Case([&](dv::CopyNz2NdOp o) { return emitCopyNz2Nd(o); })
      .Case([&](dv::CopyGatherOp o) { return emitCopyGather(o); })
      .Case([&](dv::LoadFractalsOp o) { return emitLoadFractals(o); })
      .Case([&](dv::MmadOp o) { return emitMmad(o); })
      .Case([&](dv::MoveL0cUbOp o) { return emitMoveL0cUb(o); })
      .Case([&](dv::Load3dOp o) { return emitLoad3d(o); })
      .Case([&](dv::CopyNchw2Nc1hwc0Op o) {
        return fail(op, "has no Ascend C mapping yet (an element-wise NCHW -> NC1HWC0 scatter; "
                        "DataCopy moves 32-byte blocks)");
      })
      .Default([&](Operation *other) { return emitVector(other); });
}

LogicalResult KernelWriter::emitSync(Operation *op) {
  if (auto barrier = dyn_cast<dv::PipeBarrierOp>(op)) {
    line(std::string("PipeBarrier<PIPE_") + pipeName(barrier.getBarrierPipe()) + ">();");
    return success();
  }
  bool set = isa<dv::SetFlagOp>(op);
  dv::Pipe src = set ? cast<dv::SetFlagOp>(op).getSrc() : cast<dv::WaitFlagOp>(op).getSrc();
  dv::Pipe dst = set ? cast<dv::SetFlagOp>(op).getDst() : cast<dv::WaitFlagOp>(op).getDst();
  int64_t event = set ? cast<dv::SetFlagOp>(op).getEvent() : cast<dv::WaitFlagOp>(op).getEvent();
  if (!isHardEvent(src, dst))
    return fail(op, std::string("pipe pair ") + pipeName(src) + " -> " + pipeName(dst) +
                        " is not an Ascend C HardEvent");
  line(std::string(set ? "SetFlag" : "WaitFlag") + "<HardEvent::" + pipeName(src) + "_" +
       pipeName(dst) + ">(EVENT_ID" + std::to_string(event) + ");");
  return success();
}

//===----------------------------------------------------------------------===//
// Vector instructions
//===----------------------------------------------------------------------===//

namespace {

/// Ascend C's repeat strides are 8-bit: a larger one runs repeat by repeat.
bool repeatStridesFit(const VectorParams &p, unsigned operands) {
  for (unsigned i = 0; i < operands; ++i)
    if (p.rep[i] > 255)
      return false;
  return true;
}

std::string binaryParams(const VectorParams &p, bool oneRepeat) {
  auto rep = [&](unsigned i) { return std::to_string(oneRepeat ? 8 : p.rep[i]); };
  return "BinaryRepeatParams(" + std::to_string(p.blk[0]) + ", " + std::to_string(p.blk[1]) +
         ", " + std::to_string(p.blk[2]) + ", " + rep(0) + ", " + rep(1) + ", " + rep(2) + ")";
}

std::string unaryParams(const VectorParams &p, bool oneRepeat, const char *name = "UnaryRepeatParams") {
  auto rep = [&](unsigned i) { return std::to_string(oneRepeat ? 8 : p.rep[i]); };
  return std::string(name) + "(" + std::to_string(p.blk[0]) + ", " + std::to_string(p.blk[1]) +
         ", " + rep(0) + ", " + rep(1) + ")";
}

const char *cmpMode(dv::CmpMode mode) {
  switch (mode) {
  case dv::CmpMode::LT: return "CMPMODE::LT";
  case dv::CmpMode::LE: return "CMPMODE::LE";
  case dv::CmpMode::GT: return "CMPMODE::GT";
  case dv::CmpMode::GE: return "CMPMODE::GE";
  case dv::CmpMode::EQ: return "CMPMODE::EQ";
  case dv::CmpMode::NE: return "CMPMODE::NE";
  }
  return "CMPMODE::EQ";
}

} // namespace

LogicalResult KernelWriter::emitVector(Operation *op) {
  // The operands in ISA slot order (dst, src0[, src1]) and the call shape.
  enum class Shape { Binary, Scalar, Unary, Neg, Copy, Brcb, Reduce, Cmp, Cmps, Sel, Dup, Conv,
                     Transpose };
  struct Form {
    Shape shape;
    const char *call;
  };
  std::optional<Form> form = llvm::TypeSwitch<Operation *, std::optional<Form>>(op)
      .Case([](dv::VAddOp) { return Form{Shape::Binary, "Add"}; })
      .Case([](dv::VSubOp) { return Form{Shape::Binary, "Sub"}; })
      .Case([](dv::VMulOp) { return Form{Shape::Binary, "Mul"}; })
      .Case([](dv::VDivOp) { return Form{Shape::Binary, "Div"}; })
      .Case([](dv::VMaxOp) { return Form{Shape::Binary, "Max"}; })
      .Case([](dv::VMinOp) { return Form{Shape::Binary, "Min"}; })
      .Case([](dv::VMlaOp) { return Form{Shape::Binary, "MulAddDst"}; })
      .Case([](dv::VAddsOp) { return Form{Shape::Scalar, "Adds"}; })
      .Case([](dv::VMulsOp) { return Form{Shape::Scalar, "Muls"}; })
      .Case([](dv::VMaxsOp) { return Form{Shape::Scalar, "Maxs"}; })
      .Case([](dv::VMinsOp) { return Form{Shape::Scalar, "Mins"}; })
      .Case([](dv::VLeakyReluOp) { return Form{Shape::Scalar, "LeakyRelu"}; })
      .Case([](dv::VAxpyOp) { return Form{Shape::Scalar, "Axpy"}; })
      .Case([](dv::VExpOp) { return Form{Shape::Unary, "Exp"}; })
      .Case([](dv::VLnOp) { return Form{Shape::Unary, "Ln"}; })
      .Case([](dv::VSqrtOp) { return Form{Shape::Unary, "Sqrt"}; })
      .Case([](dv::VRsqrtOp) { return Form{Shape::Unary, "Rsqrt"}; })
      .Case([](dv::VRecOp) { return Form{Shape::Unary, "Reciprocal"}; })
      .Case([](dv::VAbsOp) { return Form{Shape::Unary, "Abs"}; })
      .Case([](dv::VReluOp) { return Form{Shape::Unary, "Relu"}; })
      .Case([](dv::VNegOp) { return Form{Shape::Neg, "Muls"}; })
      .Case([](dv::VCopyOp) { return Form{Shape::Copy, "Copy"}; })
      .Case([](dv::VBrcbOp) { return Form{Shape::Brcb, "Duplicate"}; })
      .Case([](dv::VCAddOp) { return Form{Shape::Reduce, "WholeReduceSum"}; })
      .Case([](dv::VCMaxOp) { return Form{Shape::Reduce, "WholeReduceMax"}; })
      .Case([](dv::VCMinOp) { return Form{Shape::Reduce, "WholeReduceMin"}; })
      .Case([](dv::VCmpOp) { return Form{Shape::Cmp, "Compare"}; })
      .Case([](dv::VCmpsOp) { return Form{Shape::Cmps, "CompareScalar"}; })
      .Case([](dv::VSelOp) { return Form{Shape::Sel, "Select"}; })
      .Case([](dv::VDupOp) { return Form{Shape::Dup, "Duplicate"}; })
      .Case([](dv::VConvOp) { return Form{Shape::Conv, "Cast"}; })
      .Case([](dv::VTransposeOp) { return Form{Shape::Transpose, "Transpose"}; })
      .Default([](Operation *) { return std::nullopt; });
  if (!form)
    return fail(op, "has no Ascend C mapping (only dv ops can appear in a dv.kernel body)");

  // Operands by slot: the dv op's accessors differ by shape; read them
  // through the op's operand list, whose order ODS fixes per op.
  auto operands = op->getOperands();
  Value dst, src0, src1, sel;
  switch (form->shape) {
  case Shape::Binary: case Shape::Cmp: src0 = operands[0], src1 = operands[1], dst = operands[2]; break;
  case Shape::Sel: src0 = operands[0], src1 = operands[1], sel = operands[2], dst = operands[3]; break;
  case Shape::Dup: dst = operands[0]; break;
  default: src0 = operands[0], dst = operands[1]; break;
  }
  TensorRef d, s0, s1, sm;
  if (failed(ref(op, dst, d)) || (src0 && failed(ref(op, src0, s0))) ||
      (src1 && failed(ref(op, src1, s1))) || (sel && failed(ref(op, sel, sm))))
    return failure();

  if (auto t = dyn_cast<dv::VTransposeOp>(op)) {
    const int64_t tiles = t.getTiles();
    if (tiles == 1) {
      line("Transpose(" + at(d) + ", " + at(s0) + ");");
      return success();
    }
    open("for (int32_t t = 0; t < " + std::to_string(tiles) + "; ++t)");
    line("Transpose(" + at(d, 0, "t * 256") + ", " + at(s0, 0, "t * 256") + ");");
    close();
    return success();
  }

  Type dataType = dv::getElementType((src0 ? src0 : dst).getType());
  Type dstType = dv::getElementType(dst.getType());
  Type widest = dv::elementBytes(dstType) > dv::elementBytes(dataType) ? dstType : dataType;
  if (isa<dv::VCmpOp, dv::VCmpsOp>(op))
    widest = dataType;
  auto attr = [&](StringRef name) { return op->getAttr(name); };
  auto arrayOf = [&](StringRef name) -> std::optional<ArrayRef<int64_t>> {
    if (auto a = dyn_cast_or_null<DenseI64ArrayAttr>(attr(name)))
      return a.asArrayRef();
    return std::nullopt;
  };
  auto repeatAttr = dyn_cast_or_null<IntegerAttr>(attr("repeat"));
  VectorParams p = vectorParams(op, repeatAttr ? repeatAttr.getInt() : 0, arrayOf("blk"),
                                arrayOf("rep"), arrayOf("mask"), widest);
  if (p.repeat == 0)
    return success();  // no lanes
  for (int64_t b : p.blk)
    if (b > 255)
      return fail(op, "block stride " + std::to_string(b) + " exceeds Ascend C's 255");
  std::optional<std::string> type = cType(op, dataType);
  if (!type)
    return failure();
  const std::string m = mask(p.mask[0], p.mask[1]);
  const unsigned operandsUsed = form->shape == Shape::Binary || form->shape == Shape::Sel ||
                                        form->shape == Shape::Cmp
                                    ? 3
                                    : 2;
  // With a repeat stride over 255 the call runs once per repeat, each
  // operand advanced by its repeat stride (lanes stay in repeat order).
  const bool perRepeat = !repeatStridesFit(p, operandsUsed) && p.repeat > 1;
  const std::string repeats = perRepeat ? "1" : std::to_string(p.repeat);
  auto operand = [&](const TensorRef &t, unsigned slot) {
    if (!perRepeat)
      return at(t);
    int64_t es = dv::elementBytes(t.element);
    return at(t, 0, "r * " + std::to_string(p.rep[slot] * 32 / es));
  };
  if (perRepeat)
    open("for (int32_t r = 0; r < " + std::to_string(p.repeat) + "; ++r)");

  switch (form->shape) {
  case Shape::Binary:
    line(std::string(form->call) + "(" + operand(d, 0) + ", " + operand(s0, 1) + ", " +
         operand(s1, 2) + ", " + m + ", " + repeats + ", " + binaryParams(p, perRepeat) + ");");
    break;
  case Shape::Scalar:
    line(std::string(form->call) + "(" + operand(d, 0) + ", " + operand(s0, 1) + ", " +
         literal(*type, attr("scalar")) + ", " + m + ", " + repeats + ", " +
         unaryParams(p, perRepeat) + ");");
    break;
  case Shape::Neg: {
    // -x as x * -1: the same bits but for a NaN's sign (docs/ascendc.md).
    Attribute minusOne = type->find("int") == 0 ? Attribute(IntegerAttr::get(
                                                      IntegerType::get(op->getContext(), 32), -1))
                                                : Attribute(FloatAttr::get(
                                                      Float32Type::get(op->getContext()), -1.0));
    line("Muls(" + operand(d, 0) + ", " + operand(s0, 1) + ", " + literal(*type, minusOne) + ", " +
         m + ", " + repeats + ", " + unaryParams(p, perRepeat) + ");");
    break;
  }
  case Shape::Unary:
    line(std::string(form->call) + "(" + operand(d, 0) + ", " + operand(s0, 1) + ", " + m + ", " +
         repeats + ", " + unaryParams(p, perRepeat) + ");");
    break;
  case Shape::Copy:
    line("Copy(" + operand(d, 0) + ", " + operand(s0, 1) + ", " + m + ", " + repeats + ", " +
         unaryParams(p, perRepeat, "CopyRepeatParams") + ");");
    break;
  case Shape::Dup:
    line("Duplicate(" + operand(d, 0) + ", " + literal(*type, attr("scalar")) + ", " + m + ", " +
         repeats + ", " + std::to_string(p.blk[0]) + ", " + (perRepeat ? "8" : std::to_string(p.rep[0])) +
         ");");
    break;
  case Shape::Brcb: {
    // Element r of src0 to every active lane of repeat r: the 310P has no
    // Brcb; the Scalar unit reads each element (after the vector pipe's
    // earlier writes have landed) and Duplicate broadcasts it.
    if (perRepeat)
      return fail(op, "repeat stride over 255");
    line("SetFlag<HardEvent::V_S>(EVENT_ID0);  // vbrcb: the Scalar unit reads " + at(s0));
    line("WaitFlag<HardEvent::V_S>(EVENT_ID0);");
    const int64_t es = dv::elementBytes(dstType);
    if (p.repeat == 1) {
      line("Duplicate(" + at(d) + ", " + at(s0) + ".GetValue(0), " + m + ", 1, " +
           std::to_string(p.blk[0]) + ", 8);");
      break;
    }
    open("for (int32_t r = 0; r < " + std::to_string(p.repeat) + "; ++r)");
    line("Duplicate(" + at(d, 0, "r * " + std::to_string(p.rep[0] * 32 / es)) + ", " + at(s0) +
         ".GetValue(r), " + m + ", 1, " + std::to_string(p.blk[0]) + ", 8);");
    close();
    break;
  }
  case Shape::Reduce: {
    if (op->hasAttr("across_repeats") && p.repeat > 1) {
      // One result over every repeat, the lanes in order: WholeReduce*
      // reduce each repeat alone, so the Scalar unit walks the lanes (float
      // for float types, rounded once; int64 for int32).
      const int64_t es = dv::elementBytes(dataType), perBlock = 32 / es;
      const unsigned lanes = 256 / unsigned(es);
      const bool isFloat = *type != "int32_t";
      const std::string acc = isFloat ? "float" : "int64_t";
      std::string identity = isa<dv::VCAddOp>(op) ? (isFloat ? "0.0f" : "0")
                             : isa<dv::VCMaxOp>(op) ? (isFloat ? "-__builtin_huge_valf()" : "-2147483648")
                                                    : (isFloat ? "__builtin_huge_valf()" : "2147483647");
      line("{  // " + std::string(op->getName().getStringRef()) + " across " +
           std::to_string(p.repeat) + " repeats");
      ++indent_;
      line("SetFlag<HardEvent::V_S>(EVENT_ID0);");
      line("WaitFlag<HardEvent::V_S>(EVENT_ID0);");
      line(acc + " acc = " + identity + ";");
      open("for (int32_t r = 0; r < " + std::to_string(p.repeat) + "; ++r)");
      open("for (int32_t l = 0; l < " + std::to_string(lanes) + "; ++l)");
      line("if (((" + m + "[l >> 6] >> (l & 63)) & 1) == 0) continue;");
      line(acc + " x = " + acc + "(" + at(s0) + ".GetValue(r * " +
           std::to_string(p.rep[1] * 32 / es) + " + (l / " + std::to_string(perBlock) + ") * " +
           std::to_string(p.blk[1] * 32 / es) + " + l % " + std::to_string(perBlock) + "));");
      if (isa<dv::VCAddOp>(op))
        line("acc = acc + x;");
      else if (isFloat)  // NaN stays; otherwise the ISA's `acc > x ? acc : x` (min: <)
        line(std::string("acc = acc != acc ? acc : x != x ? x : acc ") +
             (isa<dv::VCMaxOp>(op) ? ">" : "<") + " x ? acc : x;");
      else
        line(std::string("acc = acc ") + (isa<dv::VCMaxOp>(op) ? ">" : "<") + " x ? acc : x;");
      close();
      close();
      line(at(d) + ".SetValue(0, " + *type + "(acc));");
      line("SetFlag<HardEvent::S_V>(EVENT_ID0);");
      line("WaitFlag<HardEvent::S_V>(EVENT_ID0);");
      --indent_;
      line("}");
      break;
    }
    std::string order = isa<dv::VCAddOp>(op) ? "" : ", ReduceOrder::ORDER_ONLY_VALUE";
    line(std::string(form->call) + "(" + at(d) + ", " + at(s0) + ", " + m + ", " +
         std::to_string(p.repeat) + ", 1, " + std::to_string(p.blk[1]) + ", " +
         std::to_string(p.rep[1]) + order + ");");
    break;
  }
  case Shape::Cmp:
    line("Compare(" + at(d) + ", " + operand(s0, 1) + ", " + operand(s1, 2) + ", " +
         cmpMode(cast<dv::VCmpOp>(op).getMode()) + ", " + m + ", " + repeats + ", " +
         binaryParams(p, perRepeat) + ");");
    if (perRepeat)
      return fail(op, "repeat stride over 255");
    break;
  case Shape::Cmps:
    if (perRepeat)
      return fail(op, "repeat stride over 255");
    line("CompareScalar(" + at(d) + ", " + at(s0) + ", " + literal(*type, attr("scalar")) + ", " +
         cmpMode(cast<dv::VCmpsOp>(op).getMode()) + ", " + m + ", " + repeats + ", " +
         unaryParams(p, false) + ");");
    break;
  case Shape::Sel:
    if (perRepeat)
      return fail(op, "repeat stride over 255");
    line("Select(" + at(d) + ", " + at(sm) + ", " + at(s0) + ", " + at(s1) +
         ", SELMODE::VSEL_TENSOR_TENSOR_MODE, " + m + ", " + repeats + ", " +
         binaryParams(p, false) + ");");
    break;
  case Shape::Conv: {
    auto conv = cast<dv::VConvOp>(op);
    bool fromFloat = dataType.isF16() || dataType.isF32();
    bool toFloat = dstType.isF16() || dstType.isF32();
    std::string mode = "RoundMode::CAST_NONE";
    if (toFloat && dataType.isF32() && dstType.isF16())
      mode = "RoundMode::CAST_RINT";  // to the nearest half, ties to even
    if (fromFloat && !toFloat) {
      switch (conv.getRound()) {
      case dv::RoundMode::Rint: mode = "RoundMode::CAST_RINT"; break;
      case dv::RoundMode::Floor: mode = "RoundMode::CAST_FLOOR"; break;
      case dv::RoundMode::Ceil: mode = "RoundMode::CAST_CEIL"; break;
      case dv::RoundMode::Trunc: mode = "RoundMode::CAST_TRUNC"; break;
      case dv::RoundMode::Away: mode = "RoundMode::CAST_ROUND"; break;
      }
    }
    if (!cType(op, dstType))
      return failure();
    line("Cast(" + operand(d, 0) + ", " + operand(s0, 1) + ", " + mode + ", " + m + ", " + repeats +
         ", " + unaryParams(p, perRepeat) + ");");
    break;
  }
  case Shape::Transpose:
    break;
  }
  if (perRepeat)
    close();
  return success();
}

//===----------------------------------------------------------------------===//
// The file
//===----------------------------------------------------------------------===//

std::string launchDeclaration(const KernelSource &kernel) {
  std::string decl = "void launch_" + kernel.name + "(uint32_t blockDim, void *stream";
  for (unsigned i = 0; i < kernel.numArgs; ++i)
    decl += ", uint8_t *arg" + std::to_string(i);
  return decl + ")";
}

std::string KernelWriter::assemble(const KernelSource &out) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto attrList = [&](StringRef name) {
    std::string list;
    if (auto array = kernel_->getAttrOfType<ArrayAttr>(name))
      for (Attribute a : array)
        if (auto s = dyn_cast<StringAttr>(a))
          list += (list.empty() ? "" : ", ") + s.str();
    return list;
  };
  auto lowering = kernel_->getAttrOfType<StringAttr>("vinci.template");
  os << "// " << out.fileName << ": kernel " << out.name << ", written by vinci-compile "
     << "--emit=ascendc from its dv kernel (do not edit).\n";
  os << "// Template: " << (lowering ? lowering.getValue() : "(none)")
     << "; model nodes: " << attrList("vinci.source_nodes") << "; " << kernel_.getKind()
     << " kernel, " << out.blockDim << " block" << (out.blockDim == 1 ? "" : "s")
     << ". docs/ascendc.md maps each instruction.\n";
  os << "#include \"kernel_operator.h\"\n\nusing namespace AscendC;\n\n";
  // The parameter structs by field name: their constructors' argument
  // lists differ between CANN versions.
  // Each helper is guarded: kernels that share one translation unit share it.
  if (usesLoadHelper_)
    os << "#ifndef VINCI_ASCENDC_LOAD2D\n#define VINCI_ASCENDC_LOAD2D\n"
          "// LoadData (2-D) of `repeat` fractals: source fractals srcStride apart, the\n"
          "// destination's dstGap apart.\n"
          "__aicore__ inline LoadData2DParams load2d(uint8_t repeat, uint16_t srcStride, "
          "uint16_t dstGap, bool transpose) {\n"
          "  LoadData2DParams p;\n  p.startIndex = 0;\n  p.repeatTimes = repeat;\n"
          "  p.srcStride = srcStride;\n  p.sid = 0;\n  p.dstGap = dstGap;\n"
          "  p.ifTranspose = transpose;\n  p.addrMode = 0;\n  return p;\n}\n#endif\n\n";
  if (usesMmadHelper_)
    os << "#ifndef VINCI_ASCENDC_MMAD\n#define VINCI_ASCENDC_MMAD\n"
          "// Mmad of an m x k by k x n product into CO1, accumulating unless init.\n"
          "__aicore__ inline MmadParams mmad(uint16_t m, uint16_t n, uint16_t k, bool init) {\n"
          "  MmadParams p;\n  p.m = m;\n  p.n = n;\n  p.k = k;\n  p.isBias = false;\n"
          "  p.cmatrixSource = false;\n  p.cmatrixInitVal = init;\n  return p;\n}\n#endif\n\n";
  if (usesWriteTail_)
    os << "#ifndef VINCI_ASCENDC_WRITE_TAIL\n#define VINCI_ASCENDC_WRITE_TAIL\n"
          "// Writes the first `bytes` (< 32) bytes of `src` to `dst` and leaves the rest of the\n"
          "// 32-byte GM block as it was: DataCopy writes whole blocks, so the block is read, the\n"
          "// bytes are merged over its head by the Scalar unit, and it is written back.\n"
          "template <typename T>\n"
          "__aicore__ inline void writeTail(const GlobalTensor<T> &dst, const LocalTensor<T> &src,\n"
          "                                 const LocalTensor<T> &stage, uint32_t bytes) {\n"
          "  PipeBarrier<PIPE_ALL>();\n"
          "  DataCopy(stage, dst, DataCopyParams(1, 1, 0, 0));\n"
          "  SetFlag<HardEvent::MTE2_S>(EVENT_ID0);\n"
          "  WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);\n"
          "  LocalTensor<uint8_t> from = src.template ReinterpretCast<uint8_t>();\n"
          "  LocalTensor<uint8_t> to = stage.template ReinterpretCast<uint8_t>();\n"
          "  for (uint32_t i = 0; i < bytes; ++i) to.SetValue(i, from.GetValue(i));\n"
          "  SetFlag<HardEvent::S_MTE3>(EVENT_ID0);\n"
          "  WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);\n"
          "  DataCopy(dst, stage, DataCopyParams(1, 1, 0, 0));\n"
          "}\n#endif\n\n";
  if (usesCo1Helper_)
    os << "#ifndef VINCI_ASCENDC_CO1_TO_UB\n#define VINCI_ASCENDC_CO1_TO_UB\n"
          "// CO1 -> CO2 (L0C -> UB) on a core without Fixpipe: the unit of the burst\n"
          "// lengths, the int32 dequant and a ReLU ride on the copy.\n"
          "__aicore__ inline DataCopyEnhancedParams co1ToUb(BlockMode mode, DeqScale deq, "
          "uint64_t deqValue, bool relu) {\n"
          "  DataCopyEnhancedParams p;\n  p.blockMode = mode;\n  p.deqScale = deq;\n"
          "  p.deqValue = deqValue;\n  p.isRelu = relu;\n  return p;\n}\n#endif\n\n";
  os << "extern \"C\" __global__ __aicore__ void " << out.name << "(";
  for (unsigned i = 0; i < out.numArgs; ++i)
    os << (i ? ", " : "") << "GM_ADDR arg" << i;
  os << ") {\n  TPipe pipe;\n";
  for (dv::MemSpace space : {dv::MemSpace::UB, dv::MemSpace::L1, dv::MemSpace::L0A,
                             dv::MemSpace::L0B, dv::MemSpace::L0C}) {
    uint64_t bytes = spaceBytes_[unsigned(space)];
    if (space == dv::MemSpace::UB)
      bytes = uint64_t(stagingOffset_) + stagingBytes_;
    if (bytes == 0)
      continue;
    bytes = (bytes + 31) / 32 * 32;
    const SpaceInfo &info = spaceInfo(space);
    os << "  TBuf<TPosition::" << info.position << "> " << info.var << "Buf;\n";
    os << "  pipe.InitBuffer(" << info.var << "Buf, " << bytes << ");\n";
    os << "  LocalTensor<uint8_t> " << info.var << " = " << info.var << "Buf.Get<uint8_t>();\n";
  }
  for (BlockArgument arg : kernel_.getBody().front().getArguments()) {
    auto gm = cast<dv::GmType>(arg.getType());
    std::string type = *cType(kernel_, gm.getElementType());
    uint64_t elems = dv::getBufferBytes(gm) / std::max(1u, dv::elementBytes(gm.getElementType()));
    os << "  GlobalTensor<" << type << "> gm" << arg.getArgNumber() << ";\n";
    os << "  gm" << arg.getArgNumber() << ".SetGlobalBuffer(reinterpret_cast<__gm__ " << type
       << " *>(arg" << arg.getArgNumber() << "), " << elems << ");\n";
  }
  if (usesBlockIdx_ && !serialized_)
    os << "  const int64_t bid = GetBlockIdx();\n";
  for (const std::string &decl : maskOrder_)
    os << decl;
  for (const std::string &decl : paramDecls_)
    os << decl;
  if (serialized_)
    os << "  // The ISA's " << kernel_.getBlockDim() << " blocks one after another on this core: "
       << "the kernel writes GM bursts\n"
       << "  // that end inside a 32-byte block, on which blocks on several cores would race.\n"
       << "  for (int64_t bid = 0; bid < " << kernel_.getBlockDim() << "; ++bid) {\n";
  os << body_;
  if (serialized_)
    os << "  }\n";
  os << "}\n\n";
  std::string decl = launchDeclaration(out);
  os << "// The host program's launch. CANN's compiler takes the <<<>>> form; a build\n"
     << "// against Vinci's host implementation (VINCI_ASCENDC_HOST) its host form.\n";
  os << decl << " {\n#ifndef VINCI_ASCENDC_HOST\n  " << out.name << "<<<blockDim, nullptr, stream>>>(";
  for (unsigned i = 0; i < out.numArgs; ++i)
    os << (i ? ", " : "") << "arg" << i;
  os << ");\n#else\n  VINCI_HOST_LAUNCH(" << out.name << ", blockDim, stream";
  for (unsigned i = 0; i < out.numArgs; ++i)
    os << ", arg" << i;
  os << ");\n#endif\n}\n";
  return text;
}

bool KernelWriter::run(KernelSource &out, std::string &error) {
  out.name = kernel_.getSymName().str();
  out.fileName = out.name + ".cpp";
  out.blockDim = uint32_t(kernel_.getBlockDim());
  out.numArgs = kernel_.getBody().front().getNumArguments();
  for (BlockArgument arg : kernel_.getBody().front().getArguments())
    if (!isa<dv::GmType>(arg.getType()) ||
        !cType(kernel_, cast<dv::GmType>(arg.getType()).getElementType())) {
      (void)fail(kernel_, "argument #" + std::to_string(arg.getArgNumber()) +
                              " is not a GM buffer of an Ascend C type");
      error = error_;
      return false;
    }
  if (failed(scan())) {
    error = error_;
    return false;
  }
  // A fresh core: the ISA starts every block with zeroed buffers, a device
  // with whatever ran before; the UB the kernel uses is zeroed first.
  uint64_t ubBytes = spaceBytes_[unsigned(dv::MemSpace::UB)];
  if (serialized_) {
    ++indent_;
    barrierAll("the block before this one is done");
  }
  if (ubBytes) {
    TensorRef whole;
    whole.var = "ub";
    whole.element = IntegerType::get(kernel_.getContext(), 8, IntegerType::Unsigned);
    whole.space = dv::MemSpace::UB;
    line("// The ISA's fresh core: zeroed UB (a device's holds what ran before).");
    zeroUb(whole, 0, (ubBytes + 31) / 32 * 32);
    barrierAll("the zeroing lands before any pipe touches the UB");
  }
  if (failed(emitBlock(kernel_.getBody().front()))) {
    error = error_;
    return false;
  }
  if (serialized_)
    out.blockDim = 1;
  if (uint64_t(stagingOffset_) + stagingBytes_ > kAscendCUbBytes) {
    (void)fail(kernel_, "needs " + std::to_string(stagingOffset_ + stagingBytes_) +
                            " bytes of UB, more than the 248 KiB Ascend C gives a kernel");
    error = error_;
    return false;
  }
  out.text = assemble(out);
  return true;
}

bool writeKernelSource(dv::KernelOp kernel, KernelSource &out, std::string &error) {
  KernelWriter writer(kernel);
  return writer.run(out, error);
}

} // namespace vinci::backend::ascendc
