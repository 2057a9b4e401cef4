//===- DvDialect.cpp - dv dialect registration, types, SoC lookup --------===//
#include "dv/DvOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include "vinci/soc.h"

using namespace mlir;
using namespace vinci::dv;

#include "dv/DvOpsDialect.cpp.inc"
#include "dv/DvOpsEnums.cpp.inc"
#include "dv/DvOpsInterfaces.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dv/DvOpsTypes.cpp.inc"

void DVDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dv/DvOpsTypes.cpp.inc"
      >();
  registerOps();
}

LogicalResult DVDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  if (attr.getName() == kNzWeightsAttrName || attr.getName() == kFractalZWeightsAttrName) {
    StringRef name = attr.getName().getValue();
    auto kernel = dyn_cast<KernelOp>(op);
    auto args = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!kernel || !args)
      return op->emitError() << "'" << name
                             << "' must be an array of GM argument indices on a dv.kernel";
    for (int64_t index : args.asArrayRef())
      if (index < 0 || index >= int64_t(kernel.getArgumentTypes().size()) ||
          !isa<GmType>(kernel.getArgumentTypes()[index]))
        return op->emitError() << "'" << name << "' names " << index
                               << ", which is not a GM argument of the kernel";
    return success();
  }
  if (attr.getName() != kSocAttrName)
    return op->emitError() << "unknown dv attribute '" << attr.getName().getValue() << "'";
  auto name = dyn_cast<StringAttr>(attr.getValue());
  if (!name)
    return op->emitError() << "'dv.soc' must be a string naming a SoC";
  if (!vinci::soc::findSoc(name.getValue().str()))
    return op->emitError() << "unknown SoC '" << name.getValue() << "' in 'dv.soc'";
  return success();
}

namespace vinci::dv {

const soc::SocSpec &getSoc(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (auto name = cur->getAttrOfType<StringAttr>(DVDialect::kSocAttrName))
      if (const soc::SocSpec *spec = soc::findSoc(name.getValue().str()))
        return *spec;
  return soc::defaultSoc();
}

unsigned elementBytes(Type type) {
  if (type.isF16() || type.isBF16())
    return 2;
  if (type.isF32())
    return 4;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (integer.getWidth() == 8 && !integer.isSigned())
      return 1;  // i8 (s8) and ui8 (u8)
    if (integer.getWidth() == 32 && integer.isSignless())
      return 4;  // i32 (s32)
  }
  return 0;
}

MemSpace getSpace(Type bufferType) {
  if (auto buf = dyn_cast<BufType>(bufferType))
    return buf.getSpace();
  return MemSpace::GM;
}

uint64_t getBufferBytes(Type bufferType) {
  if (auto buf = dyn_cast<BufType>(bufferType))
    return buf.getSizeInBytes();
  if (auto gm = dyn_cast<GmType>(bufferType))
    return gm.getSizeInBytes();
  return 0;
}

Type getElementType(Type bufferType) {
  if (auto buf = dyn_cast<BufType>(bufferType))
    return buf.getElementType();
  if (auto gm = dyn_cast<GmType>(bufferType))
    return gm.getElementType();
  return {};
}

} // namespace vinci::dv

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

static uint64_t product(ArrayRef<int64_t> shape) {
  uint64_t n = 1;
  for (int64_t d : shape)
    n *= uint64_t(d);
  return n;
}

static LogicalResult verifyShapeAndElement(function_ref<InFlightDiagnostic()> emitError,
                                           ArrayRef<int64_t> shape, Type elementType) {
  if (shape.empty())
    return emitError() << "buffer shape must have at least one dim";
  for (int64_t d : shape)
    if (d <= 0)
      return emitError() << "buffer dims must be static and positive";
  if (elementBytes(elementType) == 0)
    return emitError() << "unsupported element type " << elementType
                       << " (expected f16, bf16, f32, i8, ui8 or i32)";
  // Far beyond any space; keeps byte arithmetic in 64 bits.
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (n > (uint64_t(1) << 40) / uint64_t(d))
      return emitError() << "buffer larger than 2^40 elements";
    n *= uint64_t(d);
  }
  return success();
}

static ParseResult parseShapeAndElement(AsmParser &parser, SmallVectorImpl<int64_t> &shape,
                                        Type &elementType) {
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false, /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return failure();
  return success();
}

static void printShapeAndElement(AsmPrinter &printer, ArrayRef<int64_t> shape,
                                 Type elementType) {
  for (int64_t d : shape)
    printer << d << 'x';
  printer << elementType;
}

Type GmType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type element;
  if (parser.parseLess() || parseShapeAndElement(parser, shape, element) ||
      parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), shape, element);
}

void GmType::print(AsmPrinter &printer) const {
  printer << '<';
  printShapeAndElement(printer, getShape(), getElementType());
  printer << '>';
}

LogicalResult GmType::verify(function_ref<InFlightDiagnostic()> emitError,
                             ArrayRef<int64_t> shape, Type elementType) {
  return verifyShapeAndElement(emitError, shape, elementType);
}

uint64_t GmType::getNumElements() const { return product(getShape()); }
uint64_t GmType::getSizeInBytes() const {
  return getNumElements() * elementBytes(getElementType());
}

Type BufType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type element;
  StringRef spaceName;
  SMLoc spaceLoc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&spaceName))
    return {};
  std::optional<MemSpace> space = symbolizeMemSpace(spaceName);
  if (!space || *space == MemSpace::GM) {
    parser.emitError(spaceLoc, "expected an on-chip space: l1, l0a, l0b, l0c or ub");
    return {};
  }
  if (parser.parseComma() || parseShapeAndElement(parser, shape, element))
    return {};
  Layout layout = Layout::ND;
  if (succeeded(parser.parseOptionalComma())) {
    StringRef layoutName;
    SMLoc layoutLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&layoutName))
      return {};
    std::optional<Layout> parsed = symbolizeLayout(layoutName);
    if (!parsed) {
      parser.emitError(layoutLoc, "expected a layout: nd, nz or nc1hwc0");
      return {};
    }
    layout = *parsed;
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), *space, shape, element, layout);
}

void BufType::print(AsmPrinter &printer) const {
  printer << '<' << stringifyMemSpace(getSpace()) << ", ";
  printShapeAndElement(printer, getShape(), getElementType());
  if (getLayout() != Layout::ND)
    printer << ", " << stringifyLayout(getLayout());
  printer << '>';
}

LogicalResult BufType::verify(function_ref<InFlightDiagnostic()> emitError, MemSpace space,
                              ArrayRef<int64_t> shape, Type elementType, Layout layout) {
  if (space == MemSpace::GM)
    return emitError() << "GM buffers are !dv.gm, not !dv.buf";
  if (failed(verifyShapeAndElement(emitError, shape, elementType)))
    return failure();
  int64_t c0 = elementBytes(elementType) == 1 ? 32 : 16;
  if (layout == Layout::NZ) {
    if (shape.size() != 2 || shape[0] % 16 != 0 || shape[1] % c0 != 0)
      return emitError() << "nz buffer shape must be [rows x cols] with rows a multiple of 16 "
                            "and cols a multiple of C0 = "
                         << c0;
  } else if (layout == Layout::NC1HWC0) {
    if (shape.size() < 2 || shape.back() != c0)
      return emitError() << "nc1hwc0 buffer must have C0 = " << c0 << " as its innermost dim";
  }
  return success();
}

uint64_t BufType::getNumElements() const { return product(getShape()); }
uint64_t BufType::getSizeInBytes() const {
  return getNumElements() * elementBytes(getElementType());
}
