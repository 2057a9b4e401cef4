//===- EmitOm.cpp - write a lowered model as an .om -----------------------===//
#include "om/EmitOm.h"

#include "dv/DvOps.h"
#include "passes/KernelRules.h"
#include "vg/VgOps.h"
#include "vinci/backend/Encode.h"
#include "vinci/backend/InPlace.h"
#include "vinci/backend/MemoryPlan.h"
#include "vinci/format/writer.h"
#include "vinci/soc.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"

#include <fp16.h>

using namespace mlir;

namespace vinci::backend {
namespace {

namespace om = ::vinci::om;

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// The .om dtype of an element type, or Unknown.
om::DType dtypeOf(Type element) {
  if (element.isF32()) return om::DType::F32;
  if (element.isF16()) return om::DType::F16;
  if (element.isBF16()) return om::DType::BF16;
  if (element.isInteger(1)) return om::DType::Bool;
  if (auto integer = dyn_cast<IntegerType>(element)) {
    bool isUnsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
    case 8: return isUnsigned ? om::DType::U8 : om::DType::I8;
    case 16: return isUnsigned ? om::DType::U16 : om::DType::I16;
    case 32: return isUnsigned ? om::DType::U32 : om::DType::I32;
    case 64: return isUnsigned ? om::DType::U64 : om::DType::I64;
    default: break;
    }
  }
  return om::DType::Unknown;
}

uint64_t elementCount(ArrayRef<int64_t> shape) {
  uint64_t count = 1;
  for (int64_t dim : shape)
    count *= static_cast<uint64_t>(dim);
  return count;
}

/// Set by vinci-narrow-int64 on graph arguments and results whose caller
/// type (int64) differs from the one the kernels compute in.
constexpr llvm::StringLiteral kIoElementTypeAttr = "vinci.io_element_type";

/// Where a tensor lives in GM, as task arguments name it.
struct Placement {
  om::Space space = om::Space::Arena;
  uint32_t index = 0;   // io index
  uint64_t offset = 0;  // arena or weights offset
  uint64_t size = 0;    // bytes in storage precision
  int64_t arenaBuffer = -1;
  /// Where a view (a piece of a split) starts within its arena buffer;
  /// planArena adds it to the buffer's offset.
  uint64_t viewOffset = 0;
};

/// The bytes of a constant in its storage type (f32 becomes fp16,
/// round to nearest even; other types are stored as they are).
bool weightBytes(vg::ConstantOp constant, Type storage, std::vector<uint8_t> &bytes,
                 std::string &error) {
  ElementsAttr value = constant.getValue();
  auto type = cast<RankedTensorType>(value.getType());
  ArrayRef<char> raw;
  std::vector<char> unpacked;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob) {
      error = "weight '" + resource.getRawHandle().getKey().str() + "' has no data";
      return false;
    }
    raw = blob->getData();
  } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat() || type.getElementType().isInteger(1)) {
      // Splats store one element; bools are bit-packed: expand both.
      unsigned bytesPer = type.getElementType().isInteger(1)
                              ? 1
                              : type.getElementType().getIntOrFloatBitWidth() / 8;
      for (int64_t i = 0; i < type.getNumElements(); ++i) {
        if (type.getElementType().isInteger(1)) {
          unpacked.push_back(dense.getValues<bool>()[i] ? 1 : 0);
          continue;
        }
        APInt bits = isa<FloatType>(type.getElementType())
                         ? dense.getValues<APFloat>()[i].bitcastToAPInt()
                         : dense.getValues<APInt>()[i];
        for (unsigned b = 0; b < bytesPer; ++b)
          unpacked.push_back(static_cast<char>(bits.extractBitsAsZExtValue(8, 8 * b)));
      }
      raw = unpacked;
    } else {
      raw = dense.getRawData();
    }
  } else {
    error = "a constant of type " + typeText(type) + " cannot be stored as a weight";
    return false;
  }
  Type element = type.getElementType();
  if (element.isF32() && storage.isF16()) {
    size_t count = raw.size() / 4;
    bytes.resize(count * 2);
    for (size_t i = 0; i < count; ++i) {
      float f;
      std::memcpy(&f, raw.data() + 4 * i, 4);
      uint16_t h = fp16_ieee_from_fp32_value(f);
      std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
    return true;
  }
  // Bools are unpacked to one byte (0 or 1) above: what a u8 argument holds.
  bool boolAsByte = element.isInteger(1) && storage.isUnsignedInteger(8);
  if (element != storage && !boolAsByte) {
    error = "weight of type " + typeText(type) + " cannot be stored as " + typeText(storage);
    return false;
  }
  bytes.assign(raw.begin(), raw.end());
  return true;
}

/// A [rows, cols] matrix of `elementBytes` elements (row-major) in
/// FRACTAL_NZ: [cols/16][rows padded to 16][16], zero padded (docs/isa.md).
std::vector<uint8_t> toFractalNz(const std::vector<uint8_t> &dense, int64_t rows, int64_t cols,
                                 unsigned elementBytes) {
  int64_t rowsP = (rows + 15) / 16 * 16, blocks = (cols + 15) / 16;
  std::vector<uint8_t> nz(static_cast<size_t>(blocks * rowsP * 16) * elementBytes, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t block = 0; block < blocks; ++block) {
      int64_t width = std::min<int64_t>(16, cols - block * 16);
      std::memcpy(nz.data() + ((block * rowsP + r) * 16) * elementBytes,
                  dense.data() + (r * cols + block * 16) * elementBytes, width * elementBytes);
    }
  return nz;
}

/// A conv weight [oc, c, kh, kw] (row-major) in FRACTAL_Z: [C1 * kh * kw]
/// [OC1][16 oc][16 c], channels zero padded to 16: fractal (k1, n1) is the
/// Cube's L0B fractal of K = (c1, kh, kw, c0) by N = oc (n-major).
std::vector<uint8_t> toFractalZ(const std::vector<uint8_t> &dense, ArrayRef<int64_t> shape,
                                unsigned elementBytes) {
  int64_t oc = shape[0], c = shape[1], taps = shape[2] * shape[3];
  int64_t c1 = (c + 15) / 16, oc1 = (oc + 15) / 16;
  std::vector<uint8_t> fz(static_cast<size_t>(c1 * taps * oc1 * 256) * elementBytes, 0);
  for (int64_t o = 0; o < oc; ++o)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t t = 0; t < taps; ++t) {
        int64_t k1 = (ci / 16) * taps + t;
        size_t at = size_t(((k1 * oc1 + o / 16) * 16 + o % 16) * 16 + ci % 16) * elementBytes;
        std::memcpy(fz.data() + at, dense.data() + ((o * c + ci) * taps + t) * elementBytes,
                    elementBytes);
      }
  return fz;
}

class Emitter {
public:
  Emitter(ModuleOp module, func::FuncOp graph, const soc::SocSpec &soc)
      : module(module), graph(graph), soc(soc), writer(soc.name) {}

  bool run(const std::string &modelName, const std::string &path, OmSummary &summary,
           std::string &error) {
    writer.setModelName(modelName);
    writer.setProducer("vinci-compile", "0.1");
    writer.setPrecision(precisionMode());
    if (!placeInputs(error) || !placeOutputs(error) || !collectTasks(error) ||
        !planArena(summary, error) || !addTasks(error))
      return false;
    format::Status status = writer.writeToFile(path);
    if (!status.ok()) {
      error = status.message;
      return false;
    }
    summary.numKernels = kernelIndex.size();
    summary.numTasks = launches.size();
    summary.weightsBytes = weightsBytes;
    uint64_t size = 0;
    if (!llvm::sys::fs::file_size(path, size))
      summary.fileBytes = size;
    return true;
  }

private:
  /// The module's precision mode (the driver sets `vinci.precision_mode`;
  /// none is force_fp16, the default).
  om::PrecisionMode precisionMode() const {
    auto mode = module->getAttrOfType<StringAttr>("vinci.precision_mode");
    if (mode && mode.getValue() == "allow_mix_precision")
      return om::PrecisionMode::AllowMixPrecision;
    if (mode && mode.getValue() == "must_keep_origin_dtype")
      return om::PrecisionMode::MustKeepOriginDtype;
    return om::PrecisionMode::ForceFp16;
  }

  /// The GM element type a kernel uses for operand or result `index` of
  /// `launch` (the tensor's storage type).
  Type storageType(dv::LaunchOp launch, unsigned index) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<dv::KernelOp>(launch, launch.getKernelAttr());
    return cast<dv::GmType>(kernel.getArgumentTypes()[index]).getElementType();
  }

  /// The bytes of GM argument `index` of the kernel `launch` runs.
  uint64_t gmArgumentBytes(dv::LaunchOp launch, unsigned index) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<dv::KernelOp>(launch, launch.getKernelAttr());
    return cast<dv::GmType>(kernel.getArgumentTypes()[index]).getSizeInBytes();
  }

  format::TensorInfo tensorInfo(std::string name, RankedTensorType type, Type storage) {
    format::TensorInfo info;
    info.name = std::move(name);
    info.dtype = dtypeOf(storage);
    info.shape.assign(type.getShape().begin(), type.getShape().end());
    return info;
  }

  /// The descriptor and placement of a graph input or output, which the
  /// caller passes in its own dtype (no fp16 conversion at the boundary).
  /// `hostElement` is the caller's element type when the graph computes
  /// the tensor in another (int64 narrowed to int32): then the tensor gets
  /// an arena buffer, and the runtime converts on the way in or out.
  /// `storage` (default: `value`) is the tensor that gets the placement: a
  /// kernel result that `value`, a graph output, is a view of.
  bool placeIo(Value value, std::string name, om::Space space, TypeAttr hostElement,
               std::string &error, Value storage = {}) {
    if (!storage)
      storage = value;
    bool isInput = space == om::Space::Input;
    auto type = cast<RankedTensorType>(value.getType());
    format::IoInfo io;
    io.tensor = tensorInfo(std::move(name), type,
                           hostElement ? hostElement.getValue() : type.getElementType());
    if (io.tensor.dtype == om::DType::Unknown) {
      error = "graph " + std::string(isInput ? "input" : "output") + " '" + io.tensor.name +
              "' has type " + typeText(type) + ", which the .om cannot describe";
      return false;
    }
    Placement placement;
    placement.size = elementCount(type.getShape()) *
                     format::dtypeSize(static_cast<uint8_t>(dtypeOf(type.getElementType())));
    // An empty tensor has nothing to convert: no arena buffer for it.
    if (!hostElement || placement.size == 0) {
      placement.space = space;
      placement.index = isInput ? writer.addInput(io) : writer.addOutput(io);
      placements[storage] = placement;
      return true;
    }
    io.placement = om::IoPlacement::Arena;
    io.device_dtype = dtypeOf(type.getElementType());
    PlanBuffer buffer;
    buffer.id = buffers.size();
    buffer.name = std::string(isInput ? "input:" : "output:") + io.tensor.name;
    buffer.size = placement.size;
    buffers.push_back(buffer);
    placement.space = om::Space::Arena;
    placement.arenaBuffer = static_cast<int64_t>(buffer.id);
    uint32_t index = isInput ? writer.addInput(io) : writer.addOutput(io);
    arenaIo.push_back({isInput, index, buffer.id});
    placements[storage] = placement;
    return true;
  }

  bool placeInputs(std::string &error) {
    for (BlockArgument argument : graph.getArguments()) {
      unsigned index = argument.getArgNumber();
      auto name = graph.getArgAttrOfType<StringAttr>(index, "vg.name");
      if (!placeIo(argument, name ? name.str() : "input" + std::to_string(index),
                   om::Space::Input,
                   graph.getArgAttrOfType<TypeAttr>(index, kIoElementTypeAttr), error))
        return false;
    }
    return true;
  }

  bool placeOutputs(std::string &error) {
    auto ret = cast<func::ReturnOp>(graph.getBody().front().getTerminator());
    for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
      // Only a kernel writes an output buffer: an output that is a graph
      // input, a constant or another output would need a copy task. An
      // output that is a view (reshape-like) of a kernel result is that
      // result's bytes: the kernel writes the caller's buffer.
      Value produced = value;
      while (Operation *def = produced.getDefiningOp()) {
        if (isa<dv::LaunchOp, vg::ConstantOp>(def) || def->getNumOperands() != 1 ||
            def->getNumResults() != 1)
          break;
        produced = def->getOperand(0);
      }
      // An empty output has no bytes for anything to write.
      bool empty = cast<RankedTensorType>(value.getType()).getNumElements() == 0;
      if (!empty && (placements.count(produced) || !produced.getDefiningOp<dv::LaunchOp>())) {
        error = "graph output " + std::to_string(index) +
                " is not computed by a kernel (it is an input, a constant, a view or another "
                "output); such models are not supported yet";
        return false;
      }
      auto name = graph.getResultAttrOfType<StringAttr>(index, "vg.name");
      if (!placeIo(value, name ? name.str() : "output" + std::to_string(index), om::Space::Output,
                   graph.getResultAttrOfType<TypeAttr>(index, kIoElementTypeAttr), error,
                   produced))
        return false;
    }
    return true;
  }

  /// Walks the graph: launches become tasks, constants weights, views share
  /// their source's placement, and launch results become arena buffers.
  bool collectTasks(std::string &error) {
    for (Operation &op : graph.getBody().front()) {
      if (auto launch = dyn_cast<dv::LaunchOp>(op)) {
        int64_t task = static_cast<int64_t>(launches.size());
        launches.push_back(launch);
        for (auto [i, operand] : llvm::enumerate(launch.getInputs()))
          if (!placeOperand(launch, i, operand, task, error))
            return false;
        for (auto [i, result] : llvm::enumerate(launch.getOutputs())) {
          if (auto output = placements.find(result); output != placements.end()) {
            // A graph output; one the runtime converts lives in the arena
            // from here to the end of the run.
            if (output->second.arenaBuffer >= 0)
              buffers[output->second.arenaBuffer].firstTask = task;
            continue;
          }
          // The kernel's GM argument has the tensor's storage shape (an
          // NC1HWC0 activation pads its channels to 16).
          PlanBuffer buffer;
          buffer.id = buffers.size();
          buffer.name = launch.getKernel().str() + ":" + std::to_string(i);
          buffer.size = gmArgumentBytes(launch, launch.getInputs().size() + i);
          buffer.firstTask = buffer.lastTask = task;
          Placement placement;
          placement.space = om::Space::Arena;
          placement.size = buffer.size;
          placement.arenaBuffer = static_cast<int64_t>(buffer.id);
          placements[result] = placement;
          buffers.push_back(buffer);
        }
        continue;
      }
      if (isa<vg::ConstantOp, func::ReturnOp>(op))
        continue; // constants are placed by the launches that read them
      if (isViewOp(&op) && placements.count(op.getOperand(0))) {
        // A view (reshape-like, or a split into contiguous pieces): bytes
        // of its source, at an offset, under another shape.
        Placement source = placements[op.getOperand(0)];
        auto sourceType = cast<RankedTensorType>(op.getOperand(0).getType());
        uint64_t elementBytes =
            source.size / std::max<uint64_t>(1, elementCount(sourceType.getShape()));
        for (OpResult result : op.getResults()) {
          if (placements.count(result)) {
            error = "graph output " + typeText(result.getType()) +
                    " is a view of another tensor; such models are not supported yet";
            return false;
          }
          auto type = cast<RankedTensorType>(result.getType());
          uint64_t offset = uint64_t(viewElementOffset(result)) * elementBytes;
          Placement view = source;
          view.viewOffset += offset; // for an arena buffer, not placed yet
          view.offset += offset;     // for a graph output's buffer
          view.size = elementCount(type.getShape()) * elementBytes;
          placements[result] = view;
        }
        continue;
      }
      error = "the graph still holds '" + op.getName().getStringRef().str() +
              "' outside any kernel: lower every kernel before writing an .om";
      return false;
    }
    return true;
  }

  /// The device layout in which the kernel of `launch` takes GM argument
  /// `index`, when it is a weight packed at compile time.
  static om::Format weightFormat(dv::LaunchOp launch, unsigned index) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<dv::KernelOp>(launch, launch.getKernelAttr());
    auto listed = [&](StringRef attr) {
      auto args = kernel->getAttrOfType<DenseI64ArrayAttr>(attr);
      return args && llvm::is_contained(args.asArrayRef(), int64_t(index));
    };
    if (listed(dv::DVDialect::kNzWeightsAttrName))
      return om::Format::FRACTAL_NZ;
    if (listed(dv::DVDialect::kFractalZWeightsAttrName))
      return om::Format::FRACTAL_Z;
    return om::Format::ND;
  }

  /// The placements of weights stored in `format` (a constant read in two
  /// layouts is stored twice).
  llvm::DenseMap<Value, Placement> &placementsIn(om::Format format) {
    if (format == om::Format::FRACTAL_NZ)
      return nzPlacements;
    if (format == om::Format::FRACTAL_Z)
      return fractalZPlacements;
    return placements;
  }

  /// The placement a launch's GM argument `index` (holding `tensor`) uses.
  const Placement &placementOf(dv::LaunchOp launch, unsigned index, Value tensor) {
    return placementsIn(weightFormat(launch, index))[tensor];
  }

  bool placeOperand(dv::LaunchOp launch, unsigned index, Value operand, int64_t task,
                    std::string &error) {
    om::Format format = weightFormat(launch, index);
    bool packed = format != om::Format::ND;
    if (packed && placementsIn(format).count(operand))
      return true;
    auto found = placements.find(operand);
    if (packed)
      found = placements.end();
    if (found != placements.end()) {
      if (found->second.arenaBuffer >= 0) {
        PlanBuffer &buffer = buffers[found->second.arenaBuffer];
        buffer.lastTask = std::max(buffer.lastTask, task);
      }
      return true;
    }
    auto constant = operand.getDefiningOp<vg::ConstantOp>();
    if (!constant) {
      error = "operand " + std::to_string(index) + " of the launch of '" +
              launch.getKernel().str() + "' is neither a graph input, a weight nor a kernel result";
      return false;
    }
    Type storage = storageType(launch, index);
    std::vector<uint8_t> bytes;
    if (!weightBytes(constant, storage, bytes, error))
      return false;
    auto type = cast<RankedTensorType>(constant.getType());
    std::string name;
    if (auto loc = dyn_cast<NameLoc>(constant.getLoc()))
      name = loc.getName().str();
    format::TensorInfo info = tensorInfo(name, type, storage);
    if (format == om::Format::FRACTAL_Z) {
      if (type.getRank() != 4) {
        error = "the kernel of '" + launch.getKernel().str() + "' wants weight '" + name +
                "' in FRACTAL_Z, which needs a rank-4 conv weight";
        return false;
      }
      bytes = toFractalZ(bytes, type.getShape(), dv::elementBytes(storage));
      info.format = om::Format::FRACTAL_Z;
      info.size = bytes.size();
    }
    if (format == om::Format::FRACTAL_NZ) {
      if (type.getRank() < 2) {
        error = "the kernel of '" + launch.getKernel().str() + "' wants weight '" + name +
                "' in FRACTAL_NZ, which needs rank >= 2";
        return false;
      }
      int64_t rows = type.getShape()[type.getRank() - 2], cols = type.getShape().back();
      bytes = toFractalNz(bytes, rows, cols, dv::elementBytes(storage));
      info.format = om::Format::FRACTAL_NZ;
      info.size = bytes.size();
    }
    uint32_t weight = writer.addWeight(info, bytes.data(), bytes.size());
    Placement placement;
    placement.space = om::Space::Weight;
    placement.offset = writer.weightOffset(weight);
    placement.size = bytes.size();
    placementsIn(format)[operand] = placement;
    weightsBytes += bytes.size();
    return true;
  }

  /// Offers in-place reuse where backend/memplan/InPlace.h finds it legal:
  /// an output of a kernel lowered by the elementwise template (recorded by
  /// vinci-lower-kernels as "vinci.template") over a same-shaped input that
  /// dies there. Graph inputs and outputs that the runtime converts through
  /// the arena are the caller's tensors and take no part.
  void offerInPlace() {
    llvm::DenseSet<uint64_t> ioBuffers;
    for (const ArenaIo &io : arenaIo)
      ioBuffers.insert(io.buffer);
    auto describe = [&](dv::LaunchOp launch, unsigned index, Value value) {
      LaunchTensor tensor;
      auto found = placements.find(value);
      if (found != placements.end() && found->second.arenaBuffer >= 0 &&
          !ioBuffers.contains(uint64_t(found->second.arenaBuffer)))
        tensor.arenaBuffer = uint64_t(found->second.arenaBuffer);
      auto type = cast<RankedTensorType>(value.getType());
      tensor.shape.assign(type.getShape().begin(), type.getShape().end());
      tensor.storageType = typeText(storageType(launch, index));
      return tensor;
    };
    std::vector<KernelLaunch> described;
    for (auto [task, launch] : llvm::enumerate(launches)) {
      auto kernel =
          SymbolTable::lookupNearestSymbolFrom<dv::KernelOp>(launch, launch.getKernelAttr());
      auto lowering = kernel->getAttrOfType<StringAttr>("vinci.template");
      KernelLaunch entry;
      entry.task = static_cast<int64_t>(task);
      entry.readsEachElementBeforeWritingIt = lowering && lowering.getValue() == "elementwise";
      unsigned numInputs = launch.getInputs().size();
      for (auto [i, operand] : llvm::enumerate(launch.getInputs()))
        entry.inputs.push_back(describe(launch, i, operand));
      for (auto [i, result] : llvm::enumerate(launch.getOutputs()))
        entry.outputs.push_back(describe(launch, numInputs + i, result));
      described.push_back(std::move(entry));
    }
    offerInPlaceCandidates(described, buffers);
  }

  bool planArena(OmSummary &summary, std::string &error) {
    for (const ArenaIo &io : arenaIo)
      if (!io.isInput)
        buffers[io.buffer].lastTask = std::max<int64_t>(0, int64_t(launches.size()) - 1);
    offerInPlace();
    MemoryPlan plan;
    PlanOptions options;
    options.verify = true;
    if (!planMemory(buffers, plan, error, options))
      return false;
    for (auto &[value, placement] : placements)
      if (placement.arenaBuffer >= 0)
        placement.offset = plan.buffers[placement.arenaBuffer].offset + placement.viewOffset;
    writer.setArenaSize(plan.arenaBytes);
    for (const ArenaIo &io : arenaIo) {
      uint64_t offset = plan.buffers[io.buffer].offset;
      if (io.isInput)
        writer.setInputArenaOffset(io.index, offset);
      else
        writer.setOutputArenaOffset(io.index, offset);
    }
    for (auto [buffer, placed] : llvm::zip(buffers, plan.buffers)) {
      format::BufferInfo info;
      info.name = buffer.name;
      info.offset = placed.offset;
      info.size = placed.allocatedSize;
      info.first_task = static_cast<uint32_t>(buffer.firstTask);
      info.last_task = static_cast<uint32_t>(buffer.lastTask);
      writer.addBuffer(info);
    }
    summary.arenaBytes = plan.arenaBytes;
    summary.arenaLowerBoundBytes = plan.arenaLowerBoundBytes;
    return true;
  }

  bool addTasks(std::string &error) {
    for (dv::LaunchOp launch : launches) {
      auto kernel =
          SymbolTable::lookupNearestSymbolFrom<dv::KernelOp>(launch, launch.getKernelAttr());
      auto [entry, inserted] = kernelIndex.try_emplace(kernel.getOperation(), 0);
      if (inserted) {
        format::KernelInfo info;
        info.name = kernel.getSymName().str();
        if (!encodeKernel(kernel, info.program, error)) {
          error = "kernel " + info.name + ": " + error;
          return false;
        }
        info.block_dim = static_cast<uint32_t>(kernel.getBlockDim());
        info.num_args = static_cast<uint32_t>(kernel.getArgumentTypes().size());
        info.kind = kernel.getKind() == "cube"    ? om::KernelKind::Cube
                    : kernel.getKind() == "vector" ? om::KernelKind::Vector
                                                   : om::KernelKind::Mixed;
        if (auto sources = kernel->getAttrOfType<ArrayAttr>("vinci.source_nodes"))
          for (Attribute source : sources)
            info.source_nodes.push_back(cast<StringAttr>(source).str());
        entry->second = writer.addKernel(std::move(info));
      }
      std::vector<format::TaskArgInfo> args;
      SmallVector<Value> tensors(launch.getInputs());
      llvm::append_range(tensors, launch.getOutputs());
      for (auto [index, tensor] : llvm::enumerate(tensors)) {
        const Placement &placement = placementOf(launch, index, tensor);
        format::TaskArgInfo arg;
        arg.space = placement.space;
        arg.index = placement.index;
        arg.offset = placement.offset;
        arg.size = placement.size;
        args.push_back(arg);
      }
      writer.addTask(entry->second, std::move(args));
    }
    return true;
  }

  ModuleOp module;
  func::FuncOp graph;
  const soc::SocSpec &soc;
  format::OmWriter writer;
  llvm::DenseMap<Value, Placement> placements;
  /// Weights stored in FRACTAL_NZ for the kernels that take them so (a
  /// constant read by both kinds of kernel is stored twice).
  llvm::DenseMap<Value, Placement> nzPlacements;
  llvm::DenseMap<Value, Placement> fractalZPlacements;
  std::vector<dv::LaunchOp> launches;
  std::vector<PlanBuffer> buffers;
  /// Graph inputs and outputs the runtime converts through the arena.
  struct ArenaIo {
    bool isInput;
    uint32_t index;
    uint64_t buffer;
  };
  std::vector<ArenaIo> arenaIo;
  llvm::DenseMap<Operation *, uint32_t> kernelIndex;
  uint64_t weightsBytes = 0;
};

} // namespace

bool emitOm(ModuleOp module, const std::string &modelName, const std::string &path,
            OmSummary &summary, std::string &error) {
  auto graph = module.lookupSymbol<func::FuncOp>("main");
  if (!graph) {
    error = "the module has no graph function @main";
    return false;
  }
  Emitter emitter(module, graph, dv::getSoc(module));
  return emitter.run(modelName, path, summary, error);
}

} // namespace vinci::backend
