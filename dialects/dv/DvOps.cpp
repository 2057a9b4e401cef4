//===- DvOps.cpp - dv op verifiers, parsers and printers ------------------===//
//
// The verifiers mirror the simulator's decoder (runtime/sim/src/decode.cpp)
// and the SoC table, so an op that verifies encodes to an instruction that
// decodes. Messages are one line and name the operand or parameter at fault.
//
//===----------------------------------------------------------------------===//
#include "dv/DvOps.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

#include "vinci/soc.h"

using namespace mlir;
using namespace vinci::dv;

void DVDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "dv/DvOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

namespace {

constexpr int64_t kMaxU16 = 65535;
constexpr int64_t kMaxTripCount = int64_t(1) << 24;
constexpr unsigned kMaxLoopDepth = 4;
constexpr int64_t kMaxBlockDim = 65535;

vinci::soc::Space toSoc(MemSpace s) { return vinci::soc::Space(static_cast<uint8_t>(s)); }

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// C0 of FRACTAL_NZ / NC1HWC0: 32 for 8-bit types, else 16.
uint64_t c0Of(Type element) { return elementBytes(element) == 1 ? 32 : 16; }

bool isFloat(Type t) { return t.isF16() || t.isBF16() || t.isF32(); }
bool isS8(Type t) { return t.isSignlessInteger(8); }
bool isS32(Type t) { return t.isSignlessInteger(32); }

std::string spaceList(ArrayRef<MemSpace> spaces) {
  std::string out;
  for (auto [i, s] : llvm::enumerate(spaces)) {
    if (i)
      out += i + 1 == spaces.size() ? " or " : ", ";
    out += stringifyMemSpace(s).str();
  }
  return out;
}

LogicalResult checkSpace(Operation *op, StringRef what, Value v, ArrayRef<MemSpace> allowed) {
  MemSpace s = getSpace(v.getType());
  if (llvm::is_contained(allowed, s))
    return success();
  return op->emitOpError() << what << " must be in " << spaceList(allowed) << ", got "
                           << stringifyMemSpace(s);
}

// `footprint` bytes from the start of `v` must lie inside v's type.
LogicalResult checkExtent(Operation *op, StringRef what, Value v, uint64_t footprint) {
  uint64_t bytes = getBufferBytes(v.getType());
  if (footprint <= bytes)
    return success();
  return op->emitOpError() << what << " accesses " << footprint << " bytes but its buffer has "
                           << bytes;
}

LogicalResult checkRange(Operation *op, StringRef name, int64_t v, int64_t lo, int64_t hi) {
  if (v >= lo && v <= hi)
    return success();
  return op->emitOpError() << name << " must be in " << lo << ".." << hi << ", got " << v;
}

LogicalResult checkLayout(Operation *op, StringRef what, Value v, Layout layout) {
  auto buf = dyn_cast<BufType>(v.getType());
  if (buf && buf.getLayout() == layout)
    return success();
  return op->emitOpError() << what << " must have layout " << stringifyLayout(layout);
}

LogicalResult checkSameElement(Operation *op, StringRef a, Value va, StringRef b, Value vb) {
  Type ta = getElementType(va.getType()), tb = getElementType(vb.getType());
  if (ta == tb)
    return success();
  return op->emitOpError() << a << " and " << b << " must have the same element type, got "
                           << ta << " and " << tb;
}

uint64_t burstEnvelope(uint64_t count, uint64_t len, uint64_t gap) {
  if (count == 0 || len == 0)
    return 0;
  return count * (len + gap) - gap;
}

} // namespace

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildType = [](Builder &builder, ArrayRef<Type> args, ArrayRef<Type> results,
                      function_interface_impl::VariadicFlag, std::string &) {
    return builder.getFunctionType(args, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false, getFunctionTypeAttrName(result.name), buildType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(p, *this, /*isVariadic=*/false,
                                           getFunctionTypeAttrName(), getArgAttrsAttrName(),
                                           getResAttrsAttrName());
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto kernel = symbols.lookupNearestSymbolFrom<KernelOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError("'") << getKernel() << "' is not a dv.kernel";
  ArrayRef<Type> arguments = kernel.getArgumentTypes();
  size_t tensors = getInputs().size() + getOutputs().size();
  if (arguments.size() != tensors)
    return emitOpError("kernel '") << getKernel() << "' takes " << arguments.size()
                                   << " GM buffers but the launch passes " << tensors
                                   << " tensors (operands, then results)";
  SmallVector<Type> tensorTypes(getInputs().getTypes());
  llvm::append_range(tensorTypes, getOutputs().getTypes());
  for (auto [index, pair] : llvm::enumerate(llvm::zip(tensorTypes, arguments))) {
    auto [tensorType, argumentType] = pair;
    auto tensor = cast<RankedTensorType>(tensorType);
    auto gm = dyn_cast<GmType>(argumentType);
    if (!gm)
      return emitOpError("kernel argument ") << index << " is not a GM buffer";
    uint64_t gmElements = 1;
    for (int64_t dim : gm.getShape())
      gmElements *= static_cast<uint64_t>(dim);
    // A FRACTAL_NZ weight is stored padded: [cols/16][rows to 16][16].
    uint64_t expected = tensor.hasStaticShape() ? uint64_t(tensor.getNumElements()) : 0;
    auto nz = kernel->getAttrOfType<DenseI64ArrayAttr>(DVDialect::kNzWeightsAttrName);
    if (nz && llvm::is_contained(nz.asArrayRef(), int64_t(index)) && tensor.hasStaticShape() &&
        tensor.getRank() >= 2) {
      ArrayRef<int64_t> shape = tensor.getShape();
      uint64_t batch = 1;
      for (int64_t dim : shape.drop_back(2))
        batch *= uint64_t(dim);
      expected = batch * uint64_t((shape[shape.size() - 1] + 15) / 16) *
                 uint64_t((shape[shape.size() - 2] + 15) / 16 * 16) * 16;
    }
    // A FRACTAL_Z conv weight [OC, C, kh, kw] is stored [C1 kh kw][OC1][16][16].
    auto fz = kernel->getAttrOfType<DenseI64ArrayAttr>(DVDialect::kFractalZWeightsAttrName);
    if (fz && llvm::is_contained(fz.asArrayRef(), int64_t(index)) && tensor.hasStaticShape() &&
        tensor.getRank() == 4) {
      ArrayRef<int64_t> shape = tensor.getShape();
      expected = uint64_t((shape[1] + 15) / 16) * uint64_t(shape[2] * shape[3]) *
                 uint64_t((shape[0] + 15) / 16) * 256;
    }
    // An NC1HWC0 activation [N, C, H, W] is stored [N, C1, H, W, 16].
    auto layouts = (*this)->getAttrOfType<ArrayAttr>("vinci.layouts");
    if (layouts && index < layouts.size() && tensor.hasStaticShape() && tensor.getRank() == 4)
      if (auto name = dyn_cast<StringAttr>(layouts[index]); name && name.getValue() == "nc1hwc0") {
        ArrayRef<int64_t> shape = tensor.getShape();
        expected = uint64_t(shape[0]) * uint64_t((shape[1] + 15) / 16) * uint64_t(shape[2]) *
                   uint64_t(shape[3]) * 16;
      }
    if (!tensor.hasStaticShape() || expected != gmElements)
      return emitOpError("tensor ") << index << " (" << tensor << ") and kernel argument "
                                    << index << " (" << gm << ") differ in element count";
  }
  return success();
}

LogicalResult KernelOp::verify() {
  if (failed(checkRange(*this, "block_dim", getBlockDim(), 1, kMaxBlockDim)))
    return failure();
  StringRef kind = getKind();
  if (kind != "cube" && kind != "vector" && kind != "mix")
    return emitOpError() << "kind must be cube, vector or mix, got '" << kind << "'";
  if (!getFunctionType().getResults().empty())
    return emitOpError() << "kernels have no results";
  if (getFunctionType().getNumInputs() > 255)
    return emitOpError() << "at most 255 GM arguments";
  for (auto [i, type] : llvm::enumerate(getFunctionType().getInputs()))
    if (!isa<GmType>(type))
      return emitOpError() << "argument #" << i << " must be a !dv.gm buffer, got " << type;
  if (getBody().empty())
    return emitOpError() << "kernels must have a body";
  return success();
}

//===----------------------------------------------------------------------===//
// Loops, block index
//===----------------------------------------------------------------------===//

void LoopOp::build(OpBuilder &builder, OperationState &result, int64_t trip) {
  result.addAttribute(getTripAttrName(result.name), builder.getI64IntegerAttr(trip));
  Region *body = result.addRegion();
  Block *block = new Block();
  block->addArgument(builder.getIndexType(), result.location);
  body->push_back(block);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  YieldOp::create(builder, result.location);
}

ParseResult LoopOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument iv;
  int64_t trip = 0;
  if (parser.parseArgument(iv) || parser.parseKeyword("trip") || parser.parseInteger(trip))
    return failure();
  iv.type = parser.getBuilder().getIndexType();
  result.addAttribute("trip", parser.getBuilder().getI64IntegerAttr(trip));
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, {iv}))
    return failure();
  LoopOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return parser.parseOptionalAttrDict(result.attributes);
}

void LoopOp::print(OpAsmPrinter &p) {
  p << ' ' << getInductionVar() << " trip " << getTrip() << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false, /*printBlockTerminators=*/false);
  p.printOptionalAttrDict((*this)->getAttrs(), {"trip"});
}

unsigned LoopOp::getDepth() {
  unsigned depth = 0;
  for (Operation *cur = (*this)->getParentOp(); cur; cur = cur->getParentOp())
    if (isa<LoopOp>(cur))
      ++depth;
  return depth;
}

LogicalResult LoopOp::verify() {
  if (failed(checkRange(*this, "trip", getTrip(), 0, kMaxTripCount)))
    return failure();
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError() << "body must take one index induction variable";
  if (getDepth() >= kMaxLoopDepth)
    return emitOpError() << "loops nest at most " << kMaxLoopDepth << " deep";
  if (!(*this)->getParentOfType<KernelOp>())
    return emitOpError() << "must be inside a dv.kernel";
  return success();
}

LogicalResult BlockIdxOp::verify() {
  if (!(*this)->getParentOfType<KernelOp>())
    return emitOpError() << "must be inside a dv.kernel";
  return success();
}

//===----------------------------------------------------------------------===//
// Buffers and views
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  auto type = cast<BufType>(getResult().getType());
  const vinci::soc::SocSpec &soc = getSoc(*this);
  vinci::soc::Space space = toSoc(type.getSpace());
  uint64_t capacity = soc.bufferBytes(space), bytes = type.getSizeInBytes();
  if (bytes > capacity)
    return emitOpError() << "buffer of " << bytes << " bytes exceeds " << soc.name << "'s "
                         << stringifyMemSpace(type.getSpace()) << " (" << capacity << " bytes)";
  if (std::optional<int64_t> offset = getOffset()) {
    int64_t align = soc.alignment(space);
    if (*offset < 0 || *offset % align != 0)
      return emitOpError() << "offset " << *offset << " is not a multiple of the "
                           << stringifyMemSpace(type.getSpace()) << " alignment (" << align
                           << " bytes)";
    if (uint64_t(*offset) + bytes > capacity)
      return emitOpError() << "buffer [" << *offset << ", " << uint64_t(*offset) + bytes
                           << ") exceeds " << soc.name << "'s "
                           << stringifyMemSpace(type.getSpace()) << " (" << capacity
                           << " bytes)";
  }
  return success();
}

ParseResult ViewOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand source;
  SmallVector<OpAsmParser::UnresolvedOperand> indices;
  Attribute map;
  Type sourceType, resultType;
  if (parser.parseOperand(source) ||
      parser.parseAffineMapOfSSAIds(indices, map, "map", result.attributes,
                                    OpAsmParser::Delimiter::Square) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColonType(sourceType) ||
      parser.parseKeyword("to") || parser.parseType(resultType))
    return failure();
  Type index = parser.getBuilder().getIndexType();
  if (parser.resolveOperand(source, sourceType, result.operands) ||
      parser.resolveOperands(indices, index, result.operands))
    return failure();
  result.addTypes(resultType);
  return success();
}

void ViewOp::print(OpAsmPrinter &p) {
  p << ' ' << getSource() << '[';
  p.printAffineMapOfSSAIds(getMapAttr(), getIndices());
  p << ']';
  p.printOptionalAttrDict((*this)->getAttrs(), {"map"});
  p << " : " << getSource().getType() << " to " << getResult().getType();
}

namespace {

// An offset in the ISA's form: base + sum coef * index, where an index term
// is index d whole, d mod G, or d floordiv G.
struct AffineTerm {
  unsigned dim;
  enum Kind { Whole, Mod, FloorDiv } kind;
  int64_t divisor;  // G for Mod/FloorDiv
  int64_t coef;
};

bool decompose(AffineExpr expr, int64_t scale, int64_t &base, SmallVectorImpl<AffineTerm> &terms) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    base += scale * c.getValue();
    return true;
  }
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    terms.push_back({d.getPosition(), AffineTerm::Whole, 0, scale});
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return false;
  AffineExpr lhs = bin.getLHS(), rhs = bin.getRHS();
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return decompose(lhs, scale, base, terms) && decompose(rhs, scale, base, terms);
  case AffineExprKind::Mul: {
    if (auto c = dyn_cast<AffineConstantExpr>(rhs))
      return decompose(lhs, scale * c.getValue(), base, terms);
    if (auto c = dyn_cast<AffineConstantExpr>(lhs))
      return decompose(rhs, scale * c.getValue(), base, terms);
    return false;
  }
  case AffineExprKind::Mod:
  case AffineExprKind::FloorDiv: {
    auto d = dyn_cast<AffineDimExpr>(lhs);
    auto c = dyn_cast<AffineConstantExpr>(rhs);
    if (!d || !c || c.getValue() <= 0)
      return false;
    terms.push_back({d.getPosition(),
                     expr.getKind() == AffineExprKind::Mod ? AffineTerm::Mod
                                                           : AffineTerm::FloorDiv,
                     c.getValue(), scale});
    return true;
  }
  default:
    return false;
  }
}

} // namespace

LogicalResult ViewOp::verify() {
  Type srcType = getSource().getType(), resType = getResult().getType();
  if (isa<GmType>(srcType) != isa<GmType>(resType) ||
      getSpace(srcType) != getSpace(resType))
    return emitOpError() << "result must be in the source's space ("
                         << stringifyMemSpace(getSpace(srcType)) << ")";
  if (failed(checkSameElement(*this, "source", getSource(), "result", getResult())))
    return failure();
  AffineMap map = getMap();
  if (map.getNumResults() != 1 || map.getNumSymbols() != 0 ||
      map.getNumDims() != getIndices().size())
    return emitOpError() << "offset must be one affine expression of the indices";
  int64_t base = 0;
  SmallVector<AffineTerm> terms;
  if (!decompose(map.getResult(0), 1, base, terms))
    return emitOpError() << "offset must be base + sum c * index, with block_idx also "
                            "allowed as (block_idx mod G) and (block_idx floordiv G)";

  // Each index: a loop induction variable or block_idx, with its largest value.
  SmallVector<int64_t> maxValue;
  SmallVector<bool> isBlock;
  auto kernel = (*this)->getParentOfType<KernelOp>();
  for (Value index : getIndices()) {
    if (auto arg = dyn_cast<BlockArgument>(index)) {
      if (auto loop = dyn_cast<LoopOp>(arg.getOwner()->getParentOp())) {
        maxValue.push_back(std::max<int64_t>(loop.getTrip() - 1, 0));
        isBlock.push_back(false);
        continue;
      }
    } else if (index.getDefiningOp<BlockIdxOp>()) {
      maxValue.push_back(kernel ? kernel.getBlockDim() - 1 : 0);
      isBlock.push_back(true);
      continue;
    }
    return emitOpError() << "indices must be dv.loop induction variables or dv.block_idx";
  }
  int64_t split = 0;
  for (const AffineTerm &t : terms) {
    if (t.kind == AffineTerm::Whole)
      continue;
    if (!isBlock[t.dim])
      return emitOpError() << "mod and floordiv apply to block_idx only";
    if (split && split != t.divisor)
      return emitOpError() << "one block split G per offset, got " << split << " and "
                           << t.divisor;
    split = t.divisor;
  }

  // Alignment of every term (bytes) in on-chip spaces.
  int64_t esize = elementBytes(getElementType(srcType));
  MemSpace space = getSpace(srcType);
  const vinci::soc::SocSpec &soc = getSoc(*this);
  if (space != MemSpace::GM) {
    int64_t align = soc.alignment(toSoc(space));
    auto misaligned = [&](int64_t elems) { return (elems * esize) % align != 0; };
    bool bad = misaligned(base);
    for (const AffineTerm &t : terms)
      bad |= misaligned(t.coef);
    if (bad)
      return emitOpError() << "offset terms must be multiples of the "
                           << stringifyMemSpace(space) << " alignment (" << align
                           << " bytes) in every term";
  }

  // The range over all iterations and blocks: loop terms independently,
  // block_idx's terms together over every block (b mod G and b floordiv G
  // of one b are not independent: a row split's edge block is the last).
  int64_t lo = base, hi = base;
  std::optional<int64_t> blockLo, blockHi;
  for (unsigned dim = 0; dim < isBlock.size(); ++dim) {
    if (!isBlock[dim])
      continue;
    for (int64_t block = 0; block <= maxValue[dim]; ++block) {
      int64_t at = 0;
      for (const AffineTerm &t : terms)
        if (t.dim == dim)
          at += t.coef * (t.kind == AffineTerm::Whole ? block
                          : t.kind == AffineTerm::Mod ? block % t.divisor
                                                      : block / t.divisor);
      blockLo = std::min(blockLo.value_or(at), at);
      blockHi = std::max(blockHi.value_or(at), at);
    }
  }
  lo += blockLo.value_or(0);
  hi += blockHi.value_or(0);
  for (const AffineTerm &t : terms) {
    if (isBlock[t.dim])
      continue;
    int64_t m = maxValue[t.dim];
    int64_t range = t.kind == AffineTerm::Whole ? m
                    : t.kind == AffineTerm::Mod ? std::min(m, t.divisor - 1)
                                                : m / t.divisor;
    int64_t span = t.coef * range;
    (span < 0 ? lo : hi) += span;
  }
  uint64_t srcBytes = getBufferBytes(srcType), resBytes = getBufferBytes(resType);
  if (lo < 0)
    return emitOpError() << "view starts before its source (element offset " << lo << ")";
  if (uint64_t(hi) * esize + resBytes > srcBytes)
    return emitOpError() << "view bytes [" << lo * esize << ", " << uint64_t(hi) * esize + resBytes
                         << ") exceed the source's " << srcBytes << " bytes";
  return success();
}

//===----------------------------------------------------------------------===//
// Sync
//===----------------------------------------------------------------------===//

static LogicalResult verifyFlag(Operation *op, Pipe src, Pipe dst, int64_t event) {
  if (src == Pipe::ALL || dst == Pipe::ALL)
    return op->emitOpError() << "flags connect two pipes, not ALL";
  if (src == dst)
    return op->emitOpError() << "flag between pipe " << stringifyPipe(src) << " and itself";
  return checkRange(op, "event", event, 0, int64_t(getSoc(op).event_ids) - 1);
}

LogicalResult SetFlagOp::verify() { return verifyFlag(*this, getSrc(), getDst(), getEvent()); }
LogicalResult WaitFlagOp::verify() { return verifyFlag(*this, getSrc(), getDst(), getEvent()); }

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

Pipe CopyOp::getPipe() {
  MemSpace s = getSpace(getSrc().getType()), d = getSpace(getDst().getType());
  switch (s) {
  case MemSpace::GM:
    return Pipe::MTE2;
  case MemSpace::L1:
    return Pipe::MTE1;
  case MemSpace::UB:
    return d == MemSpace::UB ? Pipe::V : Pipe::MTE3;
  default:
    return Pipe::S;  // not a legal copy; the verifier rejects it
  }
}

LogicalResult CopyOp::verify() {
  MemSpace s = getSpace(getSrc().getType()), d = getSpace(getDst().getType());
  using M = MemSpace;
  bool legal = (s == M::GM && (d == M::L1 || d == M::L0A || d == M::L0B || d == M::UB)) ||
               (s == M::L1 && (d == M::L0A || d == M::L0B || d == M::UB)) ||
               (s == M::UB && (d == M::GM || d == M::L1 || d == M::UB));
  if (!legal)
    return emitOpError() << "no copy path from " << stringifyMemSpace(s) << " to "
                         << stringifyMemSpace(d)
                         << " (GM->L1/L0A/L0B/UB, L1->L0A/L0B/UB, UB->GM/L1/UB)";
  if (failed(checkRange(*this, "bursts", getBursts(), 1, kMaxU16)) ||
      failed(checkRange(*this, "burst_bytes", getBurstBytes(), 1, UINT32_MAX)) ||
      failed(checkRange(*this, "src_gap", getSrcGap(), 0, UINT32_MAX)) ||
      failed(checkRange(*this, "dst_gap", getDstGap(), 0, UINT32_MAX)))
    return failure();
  if (failed(checkExtent(*this, "src", getSrc(),
                         burstEnvelope(getBursts(), getBurstBytes(), getSrcGap()))) ||
      failed(checkExtent(*this, "dst", getDst(),
                         burstEnvelope(getBursts(), getBurstBytes(), getDstGap()))))
    return failure();
  return success();
}

LogicalResult CopyNd2NzOp::verify() {
  using M = MemSpace;
  if (failed(checkSpace(*this, "dst", getDst(), {M::L1, M::L0A, M::L0B, M::UB})) ||
      failed(checkLayout(*this, "dst", getDst(), Layout::NZ)) ||
      failed(checkSameElement(*this, "src", getSrc(), "dst", getDst())))
    return failure();
  Type t = getElementType(getSrc().getType());
  int64_t c0 = c0Of(t), es = elementBytes(t);
  int64_t rows = getRows(), cols = getCols();
  if (failed(checkRange(*this, "rows", rows, 1, kMaxU16)) ||
      failed(checkRange(*this, "cols", cols, 1, kMaxU16)))
    return failure();
  if (getSrcRowStride() < cols)
    return emitOpError() << "src_row_stride " << getSrcRowStride() << " is smaller than cols "
                         << cols;
  if (getDstRows() % 16 || getDstRows() < rows || getDstRows() > kMaxU16)
    return emitOpError() << "dst_rows must be a multiple of 16 >= rows, got " << getDstRows();
  if (getDstCols() % c0 || getDstCols() < cols || getDstCols() > kMaxU16)
    return emitOpError() << "dst_cols must be a multiple of C0 = " << c0 << " >= cols, got "
                         << getDstCols();
  if (failed(checkExtent(*this, "src", getSrc(),
                         (uint64_t(rows - 1) * getSrcRowStride() + cols) * es)) ||
      failed(checkExtent(*this, "dst", getDst(), uint64_t(getDstRows()) * getDstCols() * es)))
    return failure();
  return success();
}

LogicalResult CopyNz2NdOp::verify() {
  if (failed(checkSpace(*this, "src", getSrc(), {MemSpace::UB})) ||
      failed(checkLayout(*this, "src", getSrc(), Layout::NZ)) ||
      failed(checkSameElement(*this, "src", getSrc(), "dst", getDst())))
    return failure();
  Type t = getElementType(getSrc().getType());
  int64_t c0 = c0Of(t), es = elementBytes(t);
  int64_t rows = getRows(), cols = getCols();
  if (failed(checkRange(*this, "rows", rows, 1, kMaxU16)) ||
      failed(checkRange(*this, "cols", cols, 1, kMaxU16)))
    return failure();
  if (getDstRowStride() < cols)
    return emitOpError() << "dst_row_stride " << getDstRowStride() << " is smaller than cols "
                         << cols;
  if (getSrcRows() % 16 || getSrcRows() < rows || getSrcRows() > kMaxU16)
    return emitOpError() << "src_rows must be a multiple of 16 >= rows, got " << getSrcRows();
  if (failed(checkExtent(*this, "src", getSrc(),
                         uint64_t(getSrcRows()) * ceilDiv(cols, c0) * c0 * es)) ||
      failed(checkExtent(*this, "dst", getDst(),
                         (uint64_t(rows - 1) * getDstRowStride() + cols) * es)))
    return failure();
  return success();
}

LogicalResult CopyNchw2Nc1hwc0Op::verify() {
  if (failed(checkSpace(*this, "dst", getDst(), {MemSpace::L1, MemSpace::UB})) ||
      failed(checkLayout(*this, "dst", getDst(), Layout::NC1HWC0)) ||
      failed(checkSameElement(*this, "src", getSrc(), "dst", getDst())))
    return failure();
  Type t = getElementType(getSrc().getType());
  int64_t c0 = c0Of(t), es = elementBytes(t);
  if (failed(checkRange(*this, "channels", getChannels(), 1, kMaxU16)) ||
      failed(checkRange(*this, "spatial", getSpatial(), 1, UINT32_MAX)))
    return failure();
  if (getSrcChannelStride() < getSpatial())
    return emitOpError() << "src_channel_stride " << getSrcChannelStride()
                         << " is smaller than spatial " << getSpatial();
  if (failed(checkExtent(*this, "src", getSrc(),
                         (uint64_t(getChannels() - 1) * getSrcChannelStride() + getSpatial()) *
                             es)) ||
      failed(checkExtent(*this, "dst", getDst(),
                         ceilDiv(getChannels(), c0) * getSpatial() * c0 * es)))
    return failure();
  return success();
}

LogicalResult CopyGatherOp::verify() {
  if (failed(checkSpace(*this, "dst", getDst(), {MemSpace::L1, MemSpace::UB})) ||
      failed(checkSpace(*this, "indices", getIndices(), {MemSpace::UB})) ||
      failed(checkSameElement(*this, "src", getSrc(), "dst", getDst())))
    return failure();
  if (!getElementType(getIndices().getType()).isSignlessInteger(32))
    return emitOpError() << "indices must be i32, got " << getElementType(getIndices().getType());
  if (failed(checkRange(*this, "rows", getRows(), 1, kMaxU16)) ||
      failed(checkRange(*this, "row_bytes", getRowBytes(), 1, UINT32_MAX)) ||
      failed(checkRange(*this, "table_rows", getTableRows(), 1, INT32_MAX)))
    return failure();
  if (getSrcRowStride() < getRowBytes() || getDstRowStride() < getRowBytes())
    return emitOpError() << "row strides (" << getSrcRowStride() << ", " << getDstRowStride()
                         << ") must be at least row_bytes " << getRowBytes();
  if (failed(checkExtent(*this, "src", getSrc(),
                         uint64_t(getTableRows() - 1) * getSrcRowStride() + getRowBytes())) ||
      failed(checkExtent(*this, "indices", getIndices(), uint64_t(getRows()) * 4)) ||
      failed(checkExtent(*this, "dst", getDst(),
                         uint64_t(getRows() - 1) * getDstRowStride() + getRowBytes())))
    return failure();
  return success();
}

LogicalResult LoadFractalsOp::verify() {
  if (failed(checkSpace(*this, "src", getSrc(), {MemSpace::L1})) ||
      failed(checkSpace(*this, "dst", getDst(), {MemSpace::L0A, MemSpace::L0B})) ||
      failed(checkSameElement(*this, "src", getSrc(), "dst", getDst())))
    return failure();
  unsigned es = elementBytes(getElementType(getSrc().getType()));
  if (es != 1 && es != 2)
    return emitOpError() << "fractals must hold 8- or 16-bit elements";
  if (getTranspose() && es != 2)
    return emitOpError() << "transpose needs a 16-bit element type";
  if (failed(checkRange(*this, "outer", getOuter(), 1, kMaxU16)) ||
      failed(checkRange(*this, "inner", getInner(), 1, kMaxU16)) ||
      failed(checkRange(*this, "src_outer_stride", getSrcOuterStride(), 0, kMaxU16)) ||
      failed(checkRange(*this, "src_inner_stride", getSrcInnerStride(), 0, kMaxU16)) ||
      failed(checkRange(*this, "dst_outer_stride", getDstOuterStride(), 0, kMaxU16)) ||
      failed(checkRange(*this, "dst_inner_stride", getDstInnerStride(), 0, kMaxU16)))
    return failure();
  auto envelope = [&](int64_t so, int64_t si) {
    return (uint64_t(getOuter() - 1) * so + uint64_t(getInner() - 1) * si + 1) * 512;
  };
  if (failed(checkExtent(*this, "src", getSrc(),
                         envelope(getSrcOuterStride(), getSrcInnerStride()))) ||
      failed(checkExtent(*this, "dst", getDst(),
                         envelope(getDstOuterStride(), getDstInnerStride()))))
    return failure();
  return success();
}

int64_t Load3dOp::getRowWindows() {
  ArrayRef<int64_t> pads = getPads(), filter = getFilter(), strides = getStrides(),
                    dilations = getDilations();
  if (pads.size() != 4 || filter.size() != 2 || strides.size() != 2 || dilations.size() != 2 ||
      strides[0] <= 0)
    return 0;
  int64_t span = dilations[0] * (filter[0] - 1) + 1, padded = getFmapW() + pads[0] + pads[1];
  return padded < span ? 0 : (padded - span) / strides[0] + 1;
}

uint64_t Load3dOp::getDstFootprint() {
  uint64_t repeat = uint64_t(getRepeat());
  return getMode() == Load3dMode::Taps ? repeat * 512
                                       : ((repeat - 1) * uint64_t(getJumpStride()) + 1) * 512;
}

uint64_t Load3dOp::getSrcFootprint() {
  ArrayRef<int64_t> filter = getFilter(), first = getFirstTap();
  Type element = getElementType(getSrc().getType());
  uint64_t plane = uint64_t(getFmapH()) * uint64_t(getFmapW()) * c0Of(element) * elementBytes(element);
  uint64_t last = uint64_t(getC1Index());
  if (getMode() == Load3dMode::Taps) {
    uint64_t taps = uint64_t(filter[0] * filter[1]);
    last += (uint64_t(first[1] * filter[0] + first[0]) + uint64_t(getRepeat()) - 1) / taps;
  }
  return (last + 1) * plane;
}

LogicalResult Load3dOp::verify() {
  if (failed(checkSpace(*this, "src", getSrc(), {MemSpace::L1})) ||
      failed(checkSpace(*this, "dst", getDst(), {MemSpace::L0A, MemSpace::L0B})) ||
      failed(checkSameElement(*this, "src", getSrc(), "dst", getDst())))
    return failure();
  Type element = getElementType(getSrc().getType());
  if (!element.isF16() && !element.isInteger(8))
    return emitOpError() << "feature maps must be f16, i8 or ui8, got " << element;
  auto pair = [&](StringRef name, ArrayRef<int64_t> v, int64_t lo, int64_t hi) -> LogicalResult {
    if (v.size() != 2)
      return emitOpError() << "'" << name << "' must be [w, h]";
    if (failed(checkRange(*this, (name + " w").str(), v[0], lo, hi)) ||
        failed(checkRange(*this, (name + " h").str(), v[1], lo, hi)))
      return failure();
    return success();
  };
  ArrayRef<int64_t> pads = getPads();
  if (pads.size() != 4)
    return emitOpError() << "'pads' must be [left, right, top, bottom]";
  for (int64_t p : pads)
    if (failed(checkRange(*this, "pad", p, 0, 255)))
      return failure();
  if (failed(checkRange(*this, "fmap_h", getFmapH(), 1, 32767)) ||
      failed(checkRange(*this, "fmap_w", getFmapW(), 1, 32767)) ||
      failed(checkRange(*this, "c1_index", getC1Index(), 0, 4095)) ||
      failed(pair("filter", getFilter(), 1, 255)) || failed(pair("strides", getStrides(), 1, 63)) ||
      failed(pair("dilations", getDilations(), 1, 255)) ||
      failed(pair("first_tap", getFirstTap(), 0, 254)) ||
      failed(pair("left_top", getLeftTop(), -255, 32767)) ||
      failed(checkRange(*this, "repeat", getRepeat(), 1, 255)) ||
      failed(checkRange(*this, "jump_stride", getJumpStride(), 1, 127)))
    return failure();
  ArrayRef<int64_t> filter = getFilter(), first = getFirstTap(), leftTop = getLeftTop();
  if (first[0] >= filter[0] || first[1] >= filter[1])
    return emitOpError() << "first_tap [" << first[0] << ", " << first[1]
                         << "] must lie inside the filter";
  int64_t windows = getRowWindows();
  if (windows == 0)
    return emitOpError() << "the filter does not fit the padded feature map's width";
  int64_t lastW = -pads[0] + (windows - 1) * getStrides()[0];
  if (leftTop[0] < -pads[0] || leftTop[0] > lastW)
    return emitOpError() << "left_top w must be a window of the padded row (" << -pads[0]
                         << ".." << lastW << "), got " << leftTop[0];
  if (leftTop[1] < -pads[2])
    return emitOpError() << "left_top h must not start above the top pad, got " << leftTop[1];
  if (Attribute pad = getPadValueAttr()) {
    bool ok = element.isF16() ? isa<FloatAttr>(pad) : isa<IntegerAttr>(pad);
    if (!ok)
      return emitOpError() << "pad_value must be an " << (element.isF16() ? "f32" : "i32")
                           << " for element type " << element;
  }
  if (failed(checkExtent(*this, "src", getSrc(), getSrcFootprint())) ||
      failed(checkExtent(*this, "dst", getDst(), getDstFootprint())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Cube
//===----------------------------------------------------------------------===//

LogicalResult MmadOp::verify() {
  if (failed(checkSpace(*this, "a", getA(), {MemSpace::L0A})) ||
      failed(checkSpace(*this, "b", getB(), {MemSpace::L0B})) ||
      failed(checkSpace(*this, "c", getC(), {MemSpace::L0C})) ||
      failed(checkSameElement(*this, "a", getA(), "b", getB())))
    return failure();
  const vinci::soc::SocSpec &soc = getSoc(*this);
  Type in = getElementType(getA().getType()), out = getElementType(getC().getType());
  if (in.isBF16() && !soc.supports_bf16)
    return emitOpError() << "the Cube of " << soc.name << " takes no bf16 inputs";
  if (in.isF32() && !soc.supports_fp32_cube)
    return emitOpError() << "the Cube of " << soc.name << " takes no f32 inputs";
  bool ok = (in.isF16() && (out.isF32() || out.isF16())) || (in.isBF16() && out.isF32()) ||
            (isS8(in) && isS32(out)) || (in.isF32() && out.isF32());
  if (!ok)
    return emitOpError() << "unsupported mmad types " << in << " x " << in << " -> " << out
                         << " (f16 -> f32/f16, i8 -> i32)";
  if (failed(checkRange(*this, "m", getM(), 1, soc.mmad_max_m)) ||
      failed(checkRange(*this, "n", getN(), 1, soc.mmad_max_n)) ||
      failed(checkRange(*this, "k", getK(), 1, soc.mmad_max_k)))
    return failure();
  uint64_t k0 = isS8(in) ? 32 : 16;
  uint64_t m1 = ceilDiv(getM(), 16), n1 = ceilDiv(getN(), 16), k1 = ceilDiv(getK(), k0);
  if (failed(checkExtent(*this, "a", getA(), m1 * k1 * 512)) ||
      failed(checkExtent(*this, "b", getB(), k1 * n1 * 512)) ||
      failed(checkExtent(*this, "c", getC(), n1 * m1 * 256 * elementBytes(out))))
    return failure();
  return success();
}

LogicalResult MoveL0cUbOp::verify() {
  if (failed(checkSpace(*this, "src", getSrc(), {MemSpace::L0C})) ||
      failed(checkSpace(*this, "dst", getDst(), {MemSpace::UB})))
    return failure();
  Type s = getElementType(getSrc().getType()), d = getElementType(getDst().getType());
  bool ok = (s.isF32() && (d.isF32() || d.isF16() || d.isBF16())) ||
            (isS32(s) && (isS32(d) || d.isF32() || d.isF16())) ||
            (s.isF16() && (d.isF16() || d.isF32()));
  if (!ok)
    return emitOpError() << "unsupported L0C -> UB cast " << s << " -> " << d
                         << " (f32 -> f32/f16/bf16, i32 -> i32/f32/f16, f16 -> f16/f32)";
  if (getScale() && isS32(d))
    return emitOpError() << "scale needs a float result";
  if (failed(checkRange(*this, "bursts", getBursts(), 1, kMaxU16)) ||
      failed(checkRange(*this, "burst_elems", getBurstElems(), 1, UINT32_MAX)) ||
      failed(checkRange(*this, "src_gap", getSrcGap(), 0, UINT32_MAX)) ||
      failed(checkRange(*this, "dst_gap", getDstGap(), 0, UINT32_MAX)))
    return failure();
  if (failed(checkExtent(*this, "src", getSrc(),
                         burstEnvelope(getBursts(), getBurstElems(), getSrcGap()) *
                             elementBytes(s))) ||
      failed(checkExtent(*this, "dst", getDst(),
                         burstEnvelope(getBursts(), getBurstElems(), getDstGap()) *
                             elementBytes(d))))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Vector
//===----------------------------------------------------------------------===//

namespace {

enum class VKind { Binary, Scalar, Unary, Conv, Cmp, Cmps, Sel, Reduce, Dup, Brcb };

// Everything the shared vector verifier needs from one op.
struct VecOperands {
  Value dst, src0, src1, mask;  // mask: vsel's bit mask
  Attribute scalar;
  bool floatOnly = false;
  bool acrossRepeats = false;
};

LogicalResult verifyVector(Operation *op, VKind kind, const VecOperands &v, int64_t repeat,
                           std::optional<ArrayRef<int64_t>> blk,
                           std::optional<ArrayRef<int64_t>> rep,
                           std::optional<ArrayRef<int64_t>> mask) {
  const vinci::soc::SocSpec &soc = getSoc(op);
  // Spaces: UB only.
  for (auto [name, value] : {std::pair<StringRef, Value>{"dst", v.dst}, {"src0", v.src0},
                             {"src1", v.src1}, {"sel_mask", v.mask}})
    if (value && failed(checkSpace(op, name, value, {MemSpace::UB})))
      return failure();

  // Element types.
  Type dstType = getElementType(v.dst.getType());
  Type t = v.src0 ? getElementType(v.src0.getType()) : dstType;
  Type t2;  // second dtype (vconv)
  bool maskDst = kind == VKind::Cmp || kind == VKind::Cmps;
  if (kind == VKind::Conv) {
    t2 = dstType;
    if (t == t2)
      return op->emitOpError() << "vconv needs two different element types, got " << t;
  } else {
    bool vecType = t.isF16() || t.isF32() || t.isBF16() || isS32(t);
    if (!vecType)
      return op->emitOpError() << "vector element type must be f16, bf16, f32 or i32, got "
                               << t;
    if (v.floatOnly && !isFloat(t))
      return op->emitOpError() << "needs a float element type, got " << t;
    if (!maskDst && failed(checkSameElement(op, "src0", v.src0 ? v.src0 : v.dst, "dst", v.dst)))
      return failure();
    if (v.src1 && failed(checkSameElement(op, "src0", v.src0, "src1", v.src1)))
      return failure();
  }
  if (v.scalar) {
    bool ok = isFloat(t) ? (isa<FloatAttr>(v.scalar) &&
                            cast<FloatAttr>(v.scalar).getType().isF32())
                         : (isa<IntegerAttr>(v.scalar) &&
                            cast<IntegerAttr>(v.scalar).getType().isSignlessInteger(32));
    if (!ok)
      return op->emitOpError() << "scalar must be an " << (isFloat(t) ? "f32" : "i32")
                               << " for element type " << t;
  }

  // Repeat, strides, mask.
  if (failed(checkRange(op, "repeat", repeat, 0, soc.max_repeat)))
    return failure();
  // Strided operands: dst, src0, src1 (those present; vbrcb's src0 is contiguous).
  SmallVector<std::pair<StringRef, Value>> strided{{"dst", v.dst}};
  if (v.src0 && kind != VKind::Brcb)
    strided.push_back({"src0", v.src0});
  if (v.src1)
    strided.push_back({"src1", v.src1});
  for (auto [name, list] : {std::pair<StringRef, std::optional<ArrayRef<int64_t>>>{"blk", blk},
                            {"rep", rep}}) {
    if (!list)
      continue;
    if (list->size() != strided.size()) {
      std::string names;
      for (auto [i, s] : llvm::enumerate(strided))
        names += (i ? ", " : "") + s.first.str();
      return op->emitOpError() << "'" << name << "' must list " << strided.size()
                               << " strides (" << names << ")";
    }
    for (int64_t s : *list)
      if (failed(checkRange(op, (name + " stride").str(), s, 0, kMaxU16)))
        return failure();
  }
  uint64_t widest = std::max(elementBytes(t), t2 ? elementBytes(t2) : 0u);
  uint64_t lanes = 256 / widest;
  if (mask) {
    if (mask->size() != 2)
      return op->emitOpError() << "mask must be [lanes 0..63, lanes 64..127]";
    uint64_t lo = uint64_t((*mask)[0]), hi = uint64_t((*mask)[1]);
    if (lanes < 128 && (hi != 0 || (lanes < 64 && (lo >> lanes) != 0)))
      return op->emitOpError() << "mask sets lanes beyond the " << lanes << " of a repeat";
  }

  // Footprints (the simulator's operandFootprint).
  if (repeat == 0)
    return success();
  auto envelope = [&](uint64_t es, size_t i) -> uint64_t {
    uint64_t b = blk ? uint64_t((*blk)[i]) : 1, r = rep ? uint64_t((*rep)[i]) : 8;
    uint64_t blocks = ceilDiv(lanes * es, 32);
    return (uint64_t(repeat) - 1) * r * 32 + (blocks - 1) * b * 32 + 32;
  };
  uint64_t es = elementBytes(t);
  uint64_t maskBytes = uint64_t(repeat) * lanes / 8;
  for (auto [i, s] : llvm::enumerate(strided)) {
    uint64_t need = envelope(s.first == "dst" && kind == VKind::Conv ? elementBytes(t2) : es, i);
    if (s.first == "dst" && maskDst)
      need = maskBytes;
    if (s.first == "dst" && kind == VKind::Reduce)
      need = v.acrossRepeats ? es : uint64_t(repeat) * es;
    if (failed(checkExtent(op, s.first, s.second, need)))
      return failure();
  }
  if (kind == VKind::Brcb && failed(checkExtent(op, "src0", v.src0, uint64_t(repeat) * es)))
    return failure();
  if (v.mask && failed(checkExtent(op, "sel_mask", v.mask, maskBytes)))
    return failure();
  return success();
}

template <typename OpT>
LogicalResult verifyVec(OpT op, VKind kind, VecOperands v) {
  return verifyVector(op, kind, v, op.getRepeat(), op.getBlk(), op.getRep(), op.getMask());
}

} // namespace

#define DV_BINARY(OP, FLOAT)                                                                 \
  LogicalResult OP::verify() {                                                                \
    VecOperands v{getDst(), getSrc0(), getSrc1(), {}, {}, FLOAT};                            \
    return verifyVec(*this, VKind::Binary, v);                                               \
  }
DV_BINARY(VAddOp, false)
DV_BINARY(VSubOp, false)
DV_BINARY(VMulOp, false)
DV_BINARY(VDivOp, true)
DV_BINARY(VMaxOp, false)
DV_BINARY(VMinOp, false)
DV_BINARY(VMlaOp, true)
#undef DV_BINARY

#define DV_SCALAR(OP, FLOAT)                                                                 \
  LogicalResult OP::verify() {                                                                \
    VecOperands v{getDst(), getSrc0(), {}, {}, getScalar(), FLOAT};                          \
    return verifyVec(*this, VKind::Scalar, v);                                               \
  }
DV_SCALAR(VAddsOp, false)
DV_SCALAR(VMulsOp, false)
DV_SCALAR(VMaxsOp, false)
DV_SCALAR(VMinsOp, false)
DV_SCALAR(VLeakyReluOp, true)
DV_SCALAR(VAxpyOp, true)
#undef DV_SCALAR

#define DV_UNARY(OP, FLOAT, KIND)                                                            \
  LogicalResult OP::verify() {                                                                \
    VecOperands v{getDst(), getSrc0(), {}, {}, {}, FLOAT};                                   \
    return verifyVec(*this, KIND, v);                                                        \
  }
DV_UNARY(VExpOp, true, VKind::Unary)
DV_UNARY(VLnOp, true, VKind::Unary)
DV_UNARY(VSqrtOp, true, VKind::Unary)
DV_UNARY(VRsqrtOp, true, VKind::Unary)
DV_UNARY(VRecOp, true, VKind::Unary)
DV_UNARY(VAbsOp, false, VKind::Unary)
DV_UNARY(VReluOp, false, VKind::Unary)
DV_UNARY(VNegOp, false, VKind::Unary)
DV_UNARY(VCopyOp, false, VKind::Unary)
DV_UNARY(VBrcbOp, false, VKind::Brcb)
#undef DV_UNARY

LogicalResult VConvOp::verify() {
  if (isa<FloatType>(getElementType(getDst().getType())) && getRound() != RoundMode::Rint)
    return emitOpError() << "conversions to float round to nearest even (rint) only";
  VecOperands v{getDst(), getSrc0(), {}, {}, {}, false};
  return verifyVec(*this, VKind::Conv, v);
}

LogicalResult VCmpOp::verify() {
  VecOperands v{getDst(), getSrc0(), getSrc1(), {}, {}, false};
  return verifyVec(*this, VKind::Cmp, v);
}
LogicalResult VCmpsOp::verify() {
  VecOperands v{getDst(), getSrc0(), {}, {}, getScalar(), false};
  return verifyVec(*this, VKind::Cmps, v);
}
LogicalResult VSelOp::verify() {
  VecOperands v{getDst(), getSrc0(), getSrc1(), getSelMask(), {}, false};
  return verifyVec(*this, VKind::Sel, v);
}

#define DV_REDUCE(OP)                                                                        \
  LogicalResult OP::verify() {                                                                \
    VecOperands v{getDst(), getSrc0(), {}, {}, {}, false, getAcrossRepeats()};               \
    return verifyVec(*this, VKind::Reduce, v);                                               \
  }
DV_REDUCE(VCAddOp)
DV_REDUCE(VCMaxOp)
DV_REDUCE(VCMinOp)
#undef DV_REDUCE

LogicalResult VDupOp::verify() {
  VecOperands v{getDst(), {}, {}, {}, getScalar(), false};
  return verifyVec(*this, VKind::Dup, v);
}

LogicalResult VTransposeOp::verify() {
  if (failed(checkSpace(*this, "src0", getSrc0(), {MemSpace::UB})) ||
      failed(checkSpace(*this, "dst", getDst(), {MemSpace::UB})) ||
      failed(checkSameElement(*this, "src0", getSrc0(), "dst", getDst())))
    return failure();
  if (elementBytes(getElementType(getSrc0().getType())) != 2)
    return emitOpError() << "vtranspose needs a 16-bit element type";
  if (failed(checkRange(*this, "tiles", getTiles(), 1, getSoc(*this).max_repeat)))
    return failure();
  uint64_t bytes = uint64_t(getTiles()) * 512;
  if (failed(checkExtent(*this, "src0", getSrc0(), bytes)) ||
      failed(checkExtent(*this, "dst", getDst(), bytes)))
    return failure();
  return success();
}

#define GET_OP_CLASSES
#include "dv/DvOps.cpp.inc"
