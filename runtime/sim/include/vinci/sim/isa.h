// The Vinci Da Vinci ISA: opcodes, operand and instruction records, and the
// binary encoding (version 1). docs/isa.md is the reference; this header is
// its machine-readable half.
//
// Encoding (all little-endian):
//   header, 16 bytes: magic "VNCK", u16 version (=1), u16 header bytes (=16),
//                     u32 instruction count, u32 record bytes (=256)
//   then `count` fixed records of 256 bytes:
//     +0   u8 opcode, u8 pipe, u8 dtype, u8 dtype2, u32 flags
//     +8   4 operands x 40 bytes: u8 space (0xFF = unused), u8 GM arg index,
//          u16 block split G, u32 extent (bytes), i64 base (bytes),
//          i32 block coefficient, i32 x 4 induction-variable coefficients
//          (loop depth 0 = outermost), i32 block-row coefficient.
//          offset = base + sum iv_coef[d]*iv[d] + (G == 0 ? block_coef*block_idx
//                   : block_coef*(block_idx % G) + block_row_coef*(block_idx / G))
//          so a kernel can tile a 2-D grid of blocks with affine addresses.
//     +168 u32 x 16 parameters (meaning per opcode, see Param below)
//     +232 u64 mask low (lanes 0..63), u64 mask high (lanes 64..127)
//     +248 8 bytes zero
// Reserved bytes must be zero; decodeProgram rejects anything else.
#ifndef VINCI_SIM_ISA_H
#define VINCI_SIM_ISA_H

#include <cstddef>
#include <cstdint>

#include "vinci/sim/executor.h"
#include "vinci/soc.h"

namespace vinci::sim {

enum class DType : uint8_t { None = 0, F16 = 1, F32 = 2, BF16 = 3, S8 = 4, U8 = 5, S32 = 6 };
// 0 for None. Inline: the simulator asks it several times per instruction.
inline uint32_t dtypeBytes(DType t) {
  switch (t) {
    case DType::F16: case DType::BF16: return 2;
    case DType::F32: case DType::S32: return 4;
    case DType::S8: case DType::U8: return 1;
    case DType::None: return 0;
  }
  return 0;
}
// Columns of one FRACTAL_NZ (and NC1HWC0) block: 16 for 16- and 32-bit types
// (the Cube's 16x16 fractal, fp32 in L0C included), 32 for 8-bit types.
uint32_t nzColumns(DType t);
const char* dtypeName(DType t);

enum class Opcode : uint8_t {
  // Scalar unit (pipe S), and the sync instructions.
  Nop = 0,
  LoopBegin = 1,    // P0 trip count (0 skips the body)
  LoopEnd = 2,
  SetFlag = 3,      // pipe = src; P0 src pipe, P1 dst pipe, P2 event id
  WaitFlag = 4,     // pipe = dst; P0 src pipe, P1 dst pipe, P2 event id
  PipeBarrier = 5,  // pipe = the pipe (S for all); P0 pipe or kPipeAll
  // Data movement.
  Copy = 10,        // op0 dst, op1 src; P0 bursts, P1 burst bytes, P2 src gap bytes, P3 dst gap bytes
  CopyNd2Nz = 11,   // GM ND -> NZ; P0 rows, P1 cols, P2 src row stride (elems), P3 dst rows (x16), P4 dst cols (x C0)
  CopyNz2Nd = 12,   // UB NZ -> GM ND; P0 rows, P1 cols, P2 dst row stride (elems), P3 src rows (x16)
  CopyNchw2Nc1hwc0 = 13,  // GM -> L1/UB; P0 channels, P1 spatial (H*W), P2 src channel stride (elems)
  LoadFractals = 14,  // L1 -> L0A/L0B; P0 outer, P1 inner, P2 src outer stride, P3 src inner stride,
                      // P4 dst outer stride, P5 dst inner stride (all in 512-byte fractals); flag Transpose
  // GM rows picked by s32 indices in UB -> UB/L1 (embedding lookups, Gather): op0 dst, op1 GM
  // table, op2 UB indices; P0 rows, P1 row bytes, P2 table row stride bytes, P3 dst row stride
  // bytes, P4 table rows V (index i in [-V, V), negative counts from the end; others fail).
  CopyGather = 15,
  // img2col: L1 feature map (NC1HWC0 planes) -> L0A/L0B fractals of 16 output
  // positions x C0 channels of one kernel tap (Load3D v1); op0 dst, op1 src.
  // Parameters: see Load3dParams (packed by setLoad3dParams).
  Load3d = 16,
  // Cube.
  Mmad = 20,        // op0 L0C, op1 L0A, op2 L0B; dtype in, dtype2 out; P0 m, P1 n, P2 k; flag Init
  // L0C -> UB through the vector pipe: P0 bursts, P1 burst elems, P2 src gap elems, P3 dst gap elems,
  // P4 scale (f32 bits, used with flag Scale); dtype src, dtype2 dst; flag Relu.
  MoveL0cToUb = 21,
  // Vector unit (pipe V). Common parameters: see Param::Repeat .. Param::Mode.
  VAdd = 30, VSub = 31, VMul = 32, VDiv = 33, VMax = 34, VMin = 35,
  VMla = 36,        // dst = src0 * src1 + dst (two roundings)
  VAxpy = 37,       // dst = src0 * scalar + dst (two roundings)
  VAdds = 40, VMuls = 41, VMaxs = 42, VMins = 43,
  VLeakyRelu = 44,  // dst = src0 >= 0 ? src0 : src0 * scalar
  VExp = 50, VLn = 51, VSqrt = 52, VRsqrt = 53, VRec = 54, VAbs = 55, VRelu = 56, VNeg = 57,
  VCmp = 60,        // op0 dst bit mask, op1 src0, op2 src1; P8 CmpMode
  VCmps = 61,       // op0 dst bit mask, op1 src0, scalar; P8 CmpMode
  VSel = 62,        // op0 dst, op1 src0 (bit set), op2 src1 (bit clear), op3 bit mask
  VCAdd = 63, VCMax = 64, VCMin = 65,  // reduce each repeat to one element; flag AcrossRepeats
  VDup = 66,        // dst = scalar
  VConv = 67,       // dtype src, dtype2 dst; P8 RoundMode
  VTranspose = 68,  // op0 dst, op1 src; P0 count of consecutive 16x16 fp16 tiles
  VCopy = 69,       // dst = src0 (masked, strided)
  VBrcb = 70,       // every active lane of repeat r of dst = element r of src0 (contiguous)
};
const char* opcodeName(Opcode op);
inline bool isVectorOp(Opcode op) {  // VAdd .. VBrcb
  return uint8_t(op) >= uint8_t(Opcode::VAdd) && uint8_t(op) <= uint8_t(Opcode::VBrcb);
}

// Parameter slots.
namespace param {
inline constexpr unsigned Repeat = 0, DstBlk = 1, Src0Blk = 2, Src1Blk = 3, DstRep = 4, Src0Rep = 5,
                          Src1Rep = 6, Scalar = 7, Mode = 8;
}

// Instruction flags.
namespace flag {
inline constexpr uint32_t Init = 1u << 0;           // Mmad: overwrite L0C instead of accumulating
inline constexpr uint32_t Transpose = 1u << 1;      // LoadFractals: transpose each 16x16 fractal
inline constexpr uint32_t Relu = 1u << 2;           // MoveL0cToUb
inline constexpr uint32_t Scale = 1u << 3;          // MoveL0cToUb: multiply by P4 before the cast
inline constexpr uint32_t AcrossRepeats = 1u << 4;  // VCAdd/VCMax/VCMin: one result for all repeats
inline constexpr uint32_t kAll = (1u << 5) - 1;
}  // namespace flag

enum class CmpMode : uint8_t { LT = 0, LE = 1, GT = 2, GE = 3, EQ = 4, NE = 5 };
// Float -> int conversions honour all modes; float -> narrower float uses RNE only.
enum class RoundMode : uint8_t { Rint = 0, Floor = 1, Ceil = 2, Trunc = 3, Away = 4 };

inline constexpr uint8_t kNoSpace = 0xFF;
inline constexpr unsigned kMaxOperands = 4;
inline constexpr unsigned kNumParams = 16;
inline constexpr unsigned kMaxLoopDepth = 4;
inline constexpr size_t kHeaderBytes = 16;
inline constexpr size_t kRecordBytes = 256;
inline constexpr uint32_t kMaxInstructions = 1u << 16;           // static, per program
inline constexpr uint32_t kMaxTripCount = 1u << 24;              // per loop
inline constexpr uint64_t kMaxDynamicInstructions = 1ull << 26;  // per block
inline constexpr uint32_t kMaxBlockDim = 65535;
inline constexpr uint32_t kMaxStride = 65535;                    // vector strides, in 32-byte blocks
inline constexpr int64_t kMaxAbsBase = int64_t(1) << 40;

// A buffer operand: space, affine offset (see the encoding above), extent.
struct Operand {
  uint8_t space = kNoSpace;  // soc::Space, or kNoSpace
  uint8_t arg = 0;           // GM argument index (GM only)
  uint16_t block_split = 0;  // G: 0 = block_idx used whole
  uint32_t extent = 0;       // bytes the instruction may touch from the offset
  int64_t base = 0;
  int32_t block_coef = 0;
  int32_t iv_coef[kMaxLoopDepth] = {};
  int32_t block_row_coef = 0;  // times block_idx / G (G != 0 only)
  bool used() const { return space != kNoSpace; }
};

struct Instruction {
  Opcode op = Opcode::Nop;
  Pipe pipe = Pipe::S;
  DType dtype = DType::None;
  DType dtype2 = DType::None;
  uint32_t flags = 0;
  Operand operand[kMaxOperands];
  uint32_t p[kNumParams] = {};
  uint64_t mask[2] = {};
};

// The parameters of load_3d (Opcode::Load3d), after Load3D v1 (docs/isa.md):
// the feature map is l1_h x l1_w pixels of C0 channels per plane ([C1][H][W]
// [C0] from the source offset), read through a window of filter_h x
// filter_w taps with the given strides, dilations and pads; positions run
// along output rows of Wo = (l1_w + pad_left + pad_right - dilation_w *
// (filter_w - 1) - 1) / stride_w + 1 windows, from the window whose top-left
// pixel is (left_top_h, left_top_w). repeat_mode 0 steps through taps (kw,
// then kh, then the plane) from (c1_index, fetch_filter_h, fetch_filter_w)
// with 16 fixed positions, one fractal after the other; repeat_mode 1 steps
// through positions, 16 a repeat, with a fixed tap, fractals jump_stride
// apart. A pixel outside the map reads pad_value (the dtype's bits).
struct Load3dParams {
  uint32_t l1_h = 1, l1_w = 1;                   // 1..32767
  uint32_t pad_left = 0, pad_right = 0, pad_top = 0, pad_bottom = 0;  // 0..255
  uint32_t c1_index = 0;                         // 0..4095
  uint32_t fetch_filter_w = 0, fetch_filter_h = 0;  // 0..254, below the filter size
  int32_t left_top_w = 0, left_top_h = 0;        // -255..32767, not above the pads
  uint32_t stride_w = 1, stride_h = 1;           // 1..63
  uint32_t filter_w = 1, filter_h = 1;           // 1..255
  uint32_t dilation_w = 1, dilation_h = 1;       // 1..255
  uint32_t jump_stride = 1;                      // 1..127 (fractals; repeat mode 1)
  uint32_t repeat_mode = 0;                      // 0 taps, 1 positions
  uint32_t repeat = 1;                           // 1..255 fractals
  uint32_t pad_value = 0;                        // bits of one element
};
// P0 l1_h, P1 l1_w, P2 pads (left | right << 8 | top << 16 | bottom << 24),
// P3 c1_index, P4 fetch_w | fetch_h << 16, P5 left_top_w, P6 left_top_h
// (two's complement), P7 stride_w | stride_h << 8, P8 filter_w | filter_h << 8,
// P9 dilation_w | dilation_h << 8, P10 jump_stride, P11 repeat_mode,
// P12 repeat, P13 pad_value. Fields are truncated to their slot.
void setLoad3dParams(Instruction& ins, const Load3dParams& p);
Load3dParams load3dParams(const Instruction& ins);
// Output windows per row (Wo); 0 when the window does not fit the padded row.
uint32_t load3dRowWindows(const Load3dParams& p);

// Bytes from an operand's offset that `ins` touches (its envelope). Assumes the
// instruction's parameters have been validated; returns 0 for unused slots.
uint64_t operandFootprint(const Instruction& ins, unsigned slot);
// The pipe an instruction must name (derived from opcode and operand spaces).
bool expectedPipe(const Instruction& ins, Pipe& pipe);

// Encodes one record into `out` (kRecordBytes bytes).
void encodeInstruction(const Instruction& ins, uint8_t* out);
void encodeHeader(uint32_t instruction_count, uint8_t* out);

}  // namespace vinci::sim

#endif  // VINCI_SIM_ISA_H
