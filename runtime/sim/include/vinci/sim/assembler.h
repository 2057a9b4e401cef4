// A small builder for kernel programs in the Vinci ISA (vinci/sim/isa.h).
//
//   ProgramBuilder b;
//   unsigned i = b.loopBegin(16);                       // iv[i] = 0..15
//   b.copy(Addr::ub(0), Addr::gm(0).iv(i, 4096).block(65536), Burst::contiguous(4096));
//   ...
//   b.loopEnd();
//   std::vector<uint8_t> bytes = b.finish();            // b.error() empty when well formed
//
// The builder fills every operand's extent from the instruction's parameters
// and the pipe from the opcode and spaces. It does not validate against a SoC:
// decodeProgram does that.
#ifndef VINCI_SIM_ASSEMBLER_H
#define VINCI_SIM_ASSEMBLER_H

#include <cstdint>
#include <string>
#include <vector>

#include "vinci/sim/isa.h"

namespace vinci::sim {

// An affine buffer address: base + block_coef*block_idx + sum coef[d]*iv[d] bytes.
struct Addr {
  soc::Space space = soc::Space::UB;
  uint8_t arg = 0;
  int64_t base = 0;
  int32_t block_coef = 0;
  int32_t iv_coef[kMaxLoopDepth] = {};
  uint16_t block_split = 0;
  int32_t block_row_coef = 0;

  static Addr gm(uint8_t arg, int64_t base = 0);
  static Addr l1(int64_t base);
  static Addr l0a(int64_t base);
  static Addr l0b(int64_t base);
  static Addr l0c(int64_t base);
  static Addr ub(int64_t base);
  // Adds `coef` bytes per step of the loop at `depth` (as returned by loopBegin).
  Addr& iv(unsigned depth, int32_t coef);
  Addr& block(int32_t coef);
  // 2-D block grid of `split` columns: adds col_coef*(block_idx % split) +
  // row_coef*(block_idx / split) (replaces block()).
  Addr& blockGrid(uint16_t split, int32_t col_coef, int32_t row_coef);
  Addr plus(int64_t bytes) const;
};

// n bursts of `bytes` each; gaps are bytes skipped between bursts on each side.
struct Burst {
  uint32_t count = 1, bytes = 0, src_gap = 0, dst_gap = 0;
  static Burst contiguous(uint32_t bytes) { return {1, bytes, 0, 0}; }
};

// Vector repeat/stride/mask parameters (strides in 32-byte blocks).
struct VecParams {
  uint32_t repeat = 1;
  uint32_t dst_blk = 1, src0_blk = 1, src1_blk = 1;
  uint32_t dst_rep = 8, src0_rep = 8, src1_rep = 8;
  uint64_t mask_lo = ~0ull, mask_hi = ~0ull;
  // The first `lanes` lanes of each repeat (1..128).
  VecParams& maskCount(uint32_t lanes);
  VecParams& maskBits(uint64_t lo, uint64_t hi);
  // `repeat` dense repeats of the full mask for `dtype` (all lanes of 256 bytes).
  static VecParams dense(DType dtype, uint32_t repeat);
};

class ProgramBuilder {
 public:
  // Control and sync.
  unsigned loopBegin(uint32_t trip_count);  // returns the loop's depth (its iv index)
  void loopEnd();
  void setFlag(Pipe src, Pipe dst, uint8_t event);
  void waitFlag(Pipe src, Pipe dst, uint8_t event);
  void pipeBarrier(Pipe pipe);
  void pipeBarrierAll();
  void nop();

  // Data movement; the pipe follows from the spaces (docs/isa.md).
  void copy(const Addr& dst, const Addr& src, const Burst& burst);
  // GM ND (rows x cols, row stride in elements) -> NZ tile of dst_rows x dst_cols (zero padded).
  void copyNd2Nz(const Addr& dst, const Addr& src, DType dtype, uint32_t rows, uint32_t cols,
                 uint32_t src_row_stride, uint32_t dst_rows, uint32_t dst_cols);
  // Rows of a GM table picked by `rows` s32 indices in UB (negative ones count from the end of
  // the table's `table_rows`) -> dst rows `dst_row_stride` bytes apart.
  void copyGather(const Addr& dst, const Addr& table, const Addr& indices, uint32_t rows,
                  uint32_t row_bytes, uint32_t table_row_stride, uint32_t dst_row_stride,
                  uint32_t table_rows);
  // UB NZ tile (src_rows padded rows) -> GM ND rows x cols with the given row stride.
  void copyNz2Nd(const Addr& dst, const Addr& src, DType dtype, uint32_t rows, uint32_t cols,
                 uint32_t dst_row_stride, uint32_t src_rows);
  void copyNchw2Nc1hwc0(const Addr& dst, const Addr& src, DType dtype, uint32_t channels,
                        uint32_t spatial, uint32_t src_channel_stride);
  void loadFractals(const Addr& dst, const Addr& src, DType dtype, uint32_t outer, uint32_t inner,
                    uint32_t src_outer_stride, uint32_t src_inner_stride, uint32_t dst_outer_stride,
                    uint32_t dst_inner_stride, bool transpose);
  // img2col of an L1 feature map ([C1][H][W][C0] planes) into L0A/L0B fractals.
  void load3d(const Addr& dst, const Addr& src, DType dtype, const Load3dParams& params);

  // Cube: C (L0C) = [C +] A (L0A) x B (L0B).
  void mmad(const Addr& c, const Addr& a, const Addr& b, DType in, DType out, uint32_t m,
            uint32_t n, uint32_t k, bool init);
  // Burst fields count ELEMENTS here: count bursts of `bytes` elements, gaps in elements.
  void moveL0cToUb(const Addr& dst, const Addr& src, DType src_type, DType dst_type,
                   const Burst& burst_elems, bool relu, float scale = 1.0f, bool use_scale = false);

  // Vector.
  void vbinary(Opcode op, DType dtype, const Addr& dst, const Addr& src0, const Addr& src1,
               const VecParams& vp);
  void vscalar(Opcode op, DType dtype, const Addr& dst, const Addr& src, double scalar,
               const VecParams& vp);
  void vunary(Opcode op, DType dtype, const Addr& dst, const Addr& src, const VecParams& vp);
  void vcmp(CmpMode mode, DType dtype, const Addr& dst_mask, const Addr& src0, const Addr& src1,
            const VecParams& vp);
  void vcmps(CmpMode mode, DType dtype, const Addr& dst_mask, const Addr& src0, double scalar,
             const VecParams& vp);
  void vsel(DType dtype, const Addr& dst, const Addr& src0, const Addr& src1, const Addr& mask,
            const VecParams& vp);
  void vreduce(Opcode op, DType dtype, const Addr& dst, const Addr& src, const VecParams& vp,
               bool across_repeats);
  void vdup(DType dtype, const Addr& dst, double scalar, const VecParams& vp);
  void vconv(DType dst_type, DType src_type, const Addr& dst, const Addr& src, RoundMode mode,
             const VecParams& vp);
  void vtranspose(const Addr& dst, const Addr& src, uint32_t tiles);

  // Appends an instruction as given (extents and pipe as set by the caller):
  // for tests of the decoder.
  void raw(const Instruction& ins);

  size_t size() const { return code_.size(); }
  // The encoded program. error() is non-empty if the builder was misused
  // (unbalanced loops, too deep nesting, spaces naming no pipe); the bytes are
  // still produced, and decodeProgram rejects them.
  std::vector<uint8_t> finish() const;
  std::string error() const;

 private:
  void emit(Instruction ins);  // fills extents and pipe
  std::vector<Instruction> code_;
  unsigned depth_ = 0;
  std::string error_;
};

}  // namespace vinci::sim

#endif  // VINCI_SIM_ASSEMBLER_H
