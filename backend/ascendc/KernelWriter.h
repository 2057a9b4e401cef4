//===- KernelWriter.h - the dv -> Ascend C instruction mapping ---*- C++ -*-===//
//
// Internal to backend/ascendc: the writer that KernelSource.cpp (structure,
// addresses, sync, vector calls) and KernelMoves.cpp (data movement, Cube)
// share. docs/ascendc.md has the mapping table this implements.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_ASCENDC_KERNELWRITER_H
#define VINCI_BACKEND_ASCENDC_KERNELWRITER_H

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "KernelSource.h"
#include "dv/DvOps.h"
#include "vinci/backend/Address.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"

namespace vinci::backend::ascendc {

/// The UB bytes TPipe hands out to a kernel (Ascend C keeps the rest).
constexpr uint64_t kAscendCUbBytes = 248 * 1024;

/// A dv operand as the generated code names it: a tensor variable (one per
/// dv.alloc and per kernel argument) plus an element offset that is affine
/// in the loop variables and the block index.
struct TensorRef {
  std::string var;       // "ub3", "gm0"
  mlir::Type element;    // dv element type
  dv::MemSpace space = dv::MemSpace::GM;
  OperandAddress bytes;  // the offset from the variable's start, in bytes
};

/// The vector parameters of a dv vector op, with the ISA's defaults filled in.
struct VectorParams {
  int64_t repeat = 0;
  int64_t blk[3] = {1, 1, 1};
  int64_t rep[3] = {8, 8, 8};
  uint64_t mask[2] = {0, 0};
};

class KernelWriter {
public:
  explicit KernelWriter(dv::KernelOp kernel) : kernel_(kernel) {}
  bool run(KernelSource &out, std::string &error);

  // ---- shared by the instruction families ----
  mlir::LogicalResult fail(mlir::Operation *op, const llvm::Twine &message);
  /// The element type's C++ name (half, float, int32_t, int8_t, uint8_t).
  std::optional<std::string> cType(mlir::Operation *op, mlir::Type element);
  mlir::LogicalResult ref(mlir::Operation *user, mlir::Value buffer, TensorRef &out);
  /// "var[offset]" (or "var"), the offset in elements plus `extraBytes`
  /// (which must be a whole number of elements) and `extraTerm` (an
  /// expression in elements, e.g. "r * 64").
  std::string at(const TensorRef &t, int64_t extraBytes = 0, const std::string &extraTerm = "");
  /// The same tensor reinterpreted as `as` ("var[off].ReinterpretCast<as>()").
  std::string atAs(const TensorRef &t, const std::string &as, int64_t extraBytes = 0);
  /// A mask array declared once at the top of the kernel.
  std::string mask(uint64_t lo, uint64_t hi);
  void line(const llvm::Twine &text);
  void open(const llvm::Twine &text);  // "text {" and indent
  void close();                        // "}"
  void requireStaging(uint64_t bytes) { stagingBytes_ = std::max(stagingBytes_, bytes); }
  /// The UB byte offset of the staging area (above every dv.alloc of the
  /// kernel), valid once the kernel has been scanned.
  int64_t stagingOffset() const { return stagingOffset_; }
  /// The bytes of stage() the UB has room for (whole 32-byte blocks above
  /// writeTail's block), valid once the kernel has been scanned.
  int64_t stageCapacity() const {
    return std::max<int64_t>(0, (int64_t(kAscendCUbBytes) - stagingOffset_ - 32) / 32 * 32);
  }
  /// The zero scalar literal of a C++ element type, e.g. "half(0.0f)".
  static std::string literal(const std::string &type, mlir::Attribute scalar);
  VectorParams vectorParams(mlir::Operation *op, int64_t repeat,
                            std::optional<llvm::ArrayRef<int64_t>> blk,
                            std::optional<llvm::ArrayRef<int64_t>> rep,
                            std::optional<llvm::ArrayRef<int64_t>> mask, mlir::Type widest);
  /// Zeroes `bytes` (a multiple of 32) of UB from `t` + `extraBytes` with
  /// uint16 Duplicates whose lanes follow `lanePattern` (one bit per 2-byte
  /// lane of a 256-byte repeat; all lanes when empty).
  void zeroUb(const TensorRef &t, int64_t extraBytes, uint64_t bytes,
              const uint64_t *lanePattern = nullptr);
  void barrierAll(const char *why);
  /// The UB staging area typed `type`.
  std::string stage(const std::string &type);
  /// writeTail's 32-byte block of the staging area.
  std::string tailStage(const std::string &type);
  /// Writes `bytes` bytes from UB `src` to GM `dst` (each indexed by an
  /// optional element offset) leaving every GM byte past them as it was:
  /// whole blocks by DataCopy, the rest by the file's writeTail().
  void exactGmWrite(const std::string &type, int64_t es, const std::string &dst,
                    const std::string &src, const std::string &offsetGm,
                    const std::string &offsetUb, int64_t bytes);

  // ---- the instruction families (KernelMoves.cpp) ----
  mlir::LogicalResult emitCopy(dv::CopyOp op);
  mlir::LogicalResult emitFractalCopy(dv::CopyOp op, const TensorRef &src, const TensorRef &dst);
  mlir::LogicalResult emitCopyNd2Nz(dv::CopyNd2NzOp op);
  mlir::LogicalResult emitCopyNz2Nd(dv::CopyNz2NdOp op);
  mlir::LogicalResult emitCopyGather(dv::CopyGatherOp op);
  mlir::LogicalResult emitLoadFractals(dv::LoadFractalsOp op);
  mlir::LogicalResult emitLoad3d(dv::Load3dOp op);
  mlir::LogicalResult emitMmad(dv::MmadOp op);
  mlir::LogicalResult emitMoveL0cUb(dv::MoveL0cUbOp op);

private:
  mlir::LogicalResult scan();
  mlir::LogicalResult emitBlock(mlir::Block &block);
  mlir::LogicalResult emitOp(mlir::Operation *op);
  mlir::LogicalResult emitSync(mlir::Operation *op);
  mlir::LogicalResult emitVector(mlir::Operation *op);
  std::string assemble(const KernelSource &out);

  dv::KernelOp kernel_;
  std::string body_;
  unsigned indent_ = 1;
  std::string error_;
  llvm::DenseMap<mlir::Value, std::string> names_;
  std::map<std::pair<uint64_t, uint64_t>, std::string> masks_;
  std::vector<std::string> maskOrder_;
  // Parameter structs declared once at the top of the kernel, by their text.
  std::map<std::string, std::string> params_;
  std::vector<std::string> paramDecls_;
  uint64_t spaceBytes_[6] = {};  // by dv::MemSpace: the bytes the allocs span
  uint64_t stagingBytes_ = 0;
  int64_t stagingOffset_ = 0;
  bool usesBlockIdx_ = false;
  bool usesLoadHelper_ = false;  // the file's load2d(), mmad(), co1ToUb() helpers
  bool usesMmadHelper_ = false;
  bool usesCo1Helper_ = false;
  bool usesWriteTail_ = false;
  bool serialized_ = false;  // the blocks run in a loop on one core
};

}  // namespace vinci::backend::ascendc

#endif  // VINCI_BACKEND_ASCENDC_KERNELWRITER_H
