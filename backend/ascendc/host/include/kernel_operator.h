// kernel_operator.h - Vinci's clean-room host implementation of the Ascend C
// subset that `vinci-compile --emit=ascendc` emits.
//
// Written from Huawei's public Ascend C API documentation (hiascend.com,
// "Ascend C API reference") and docs/isa.md, never from CANN or asc-devkit
// sources: it is what lets an exported project build with the system C++
// compiler and run here, with no CANN and no device (docs/ascendc.md). Only
// the calls the exporter emits exist, with the documented names, parameter
// structs and units; their behaviour is the one documented, made exact where
// the documentation is silent (rounding, lane order) by docs/isa.md's rules.
//
// What a CANN build has and this one replaces:
//  - the function qualifiers (__global__, __aicore__, __gm__) are empty;
//  - each block runs on the host, one after another, on one modelled AI Core
//    of the 310P (UB 256 KiB of which TPipe hands out 248, L1 1 MiB, L0A/L0B
//    64 KiB, L0C 256 KiB), whose buffers start each block filled with a
//    poison pattern, as a device's hold whatever ran before;
//  - every operand range is checked against the TBuf it came from or the
//    device allocation it points into, SetFlag/WaitFlag are counted (a wait
//    that no earlier set satisfies is a deadlock, reported), and two blocks
//    of one launch writing the same GM bytes is reported as the race it is
//    on a device. A fault stops the launch; aclrtSynchronizeStream returns
//    ACL_ERROR_RT_AICORE_EXCEPTION and aclGetRecentErrMsg says what and where.
#ifndef VINCI_ASCENDC_HOST_KERNEL_OPERATOR_H
#define VINCI_ASCENDC_HOST_KERNEL_OPERATOR_H

#include <cstddef>
#include <cstdint>

#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR uint8_t *

/// IEEE binary16, the device's `half`: converts from float rounding to
/// nearest even, and to float exactly.
struct half {
  uint16_t bits = 0;
  half() = default;
  half(float value);  // NOLINT: the device type converts implicitly
  operator float() const;
};

enum pipe_t : int { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL };
enum event_t : int {
  EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7
};

namespace vinci::ascendc_host {

/// Element types the implementation computes with.
enum class Elt : uint8_t { F16, F32, S32, S16, U16, S8, U8, U32 };
template <typename T> struct EltOf;
template <> struct EltOf<half> { static constexpr Elt value = Elt::F16; };
template <> struct EltOf<float> { static constexpr Elt value = Elt::F32; };
template <> struct EltOf<int32_t> { static constexpr Elt value = Elt::S32; };
template <> struct EltOf<uint32_t> { static constexpr Elt value = Elt::U32; };
template <> struct EltOf<int16_t> { static constexpr Elt value = Elt::S16; };
template <> struct EltOf<uint16_t> { static constexpr Elt value = Elt::U16; };
template <> struct EltOf<int8_t> { static constexpr Elt value = Elt::S8; };
template <> struct EltOf<uint8_t> { static constexpr Elt value = Elt::U8; };

/// Where an operand's bytes are: a local buffer (a TPosition's space, from
/// `ptr` to `ptr + avail` the rest of its TBuf) or GM (avail unknown: the
/// allocation registry checks GM ranges).
struct Span {
  int position = 0;  // AscendC::TPosition
  uint8_t *ptr = nullptr;
  uint64_t avail = 0;
  Elt elt = Elt::U8;
};

/// A scalar operand, carried as the element type's value.
struct Scalar {
  double value = 0;
};

}  // namespace vinci::ascendc_host

namespace AscendC {

namespace host = ::vinci::ascendc_host;

enum class TPosition : int {
  GM = 0, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, MAX
};
using QuePosition = TPosition;

enum class HardEvent : int {
  MTE2_MTE1 = 0, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V,
  MTE3_MTE1, MTE1_MTE3, MTE1_V, MTE2_M, M_MTE2, V_MTE1, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2,
  MTE2_S, S_MTE3, MTE3_S, M_S, S_M, MTE1_S, S_MTE1, MAX
};

enum class RoundMode : int {
  CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD
};
enum class CMPMODE : int { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : int { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class ReduceOrder : int { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
enum class BlockMode : int { BLOCK_MODE_NORMAL = 0, BLOCK_MODE_MATRIX, BLOCK_MODE_VECTOR };
enum class DeqScale : int { DEQ_NONE = 0, DEQ, VDEQ, DEQ8, VDEQ8, DEQ16, VDEQ16 };

/// DataCopy's burst parameters, in 32-byte blocks (both sides, GM too).
struct DataCopyParams {
  uint16_t blockCount = 1;
  uint16_t blockLen = 0;
  uint16_t srcStride = 0;  // gap between bursts
  uint16_t dstStride = 0;
  DataCopyParams() = default;
  DataCopyParams(uint16_t count, uint16_t len, uint16_t srcGap, uint16_t dstGap)
      : blockCount(count), blockLen(len), srcStride(srcGap), dstStride(dstGap) {}
};

/// The on-the-way work of a CO1 -> CO2 (L0C -> UB) copy on this core, which
/// has no Fixpipe: blockMode sets the unit of blockLen and strides (a 16x16
/// fractal, or a 1x16 row of one), deqScale/deqValue the int32 dequant
/// (DEQ: times the float in deqValue's low 32 bits), isRelu a ReLU.
struct DataCopyEnhancedParams {
  BlockMode blockMode = BlockMode::BLOCK_MODE_NORMAL;
  DeqScale deqScale = DeqScale::DEQ_NONE;
  uint64_t deqValue = 0;
  uint8_t sidStoreMode = 0;
  bool isRelu = false;
};

/// LoadData (2-D): repeatTimes 512-byte fractals, the i-th from source
/// fractal startIndex + i * srcStride to destination fractal i * (1 +
/// dstGap), each transposed (16-bit types) when ifTranspose.
struct LoadData2DParams {
  uint16_t startIndex = 0;
  uint8_t repeatTimes = 0;
  uint16_t srcStride = 0;
  uint8_t sid = 0;
  uint16_t dstGap = 0;
  bool ifTranspose = false;
  uint8_t addrMode = 0;
};

/// LoadData (3-D, Load3Dv1): img2col of a feature map in A1/B1, planes
/// [C1][l1H][l1W][C0] (C0 = 32 / sizeof(T)), into A2/B2 fractals of 16
/// windows x C0 channels (512 bytes, row-major). Windows walk the padded
/// map's output rows from (leftTopH, leftTopW); tap (kh, kw) of the window
/// at (h, w) reads pixel (h + kh * dilationFilterH, w + kw * dilationFilterW)
/// of plane c1, padValue outside the map. repeatMode 0: repeatTime fractals
/// of the same windows, the tap stepping kw, kh, then the plane from
/// (c1Index, fetchFilterH, fetchFilterW); 1: that tap fixed, 16 more windows
/// a fractal, fractals jumpStride fractals apart. padList is {left, right,
/// top, bottom}.
template <typename T> struct LoadData3DParamsV1 {
  uint8_t padList[4] = {0, 0, 0, 0};
  uint16_t l1H = 0;
  uint16_t l1W = 0;
  uint16_t c1Index = 0;
  uint8_t fetchFilterW = 0;
  uint8_t fetchFilterH = 0;
  int16_t leftTopW = 0;
  int16_t leftTopH = 0;
  uint8_t strideW = 1;
  uint8_t strideH = 1;
  uint8_t filterW = 1;
  uint8_t filterH = 1;
  uint8_t dilationFilterW = 1;
  uint8_t dilationFilterH = 1;
  uint8_t jumpStride = 1;
  uint8_t repeatMode = 0;
  uint8_t repeatTime = 1;
  uint8_t cSize = 0;
  T padValue = T(0);
};

/// Mmad: C (m x n, CO1) = [C +] A (m x k, A2) x B (k x n, B2). cmatrixInitVal
/// starts from zero instead of accumulating; cmatrixSource must be false on
/// this core (no bias from C2).
struct MmadParams {
  uint16_t m = 0;
  uint16_t n = 0;
  uint16_t k = 0;
  bool isBias = false;
  int32_t fmOffset = 0;
  bool enSsparse = false;
  bool enWinogradA = false;
  bool enWinogradB = false;
  uint8_t unitFlag = 0;
  bool kDirectionAlign = false;
  bool cmatrixSource = false;
  bool cmatrixInitVal = true;
};

/// Vector repeat parameters: block strides and repeat strides in 32-byte
/// blocks.
struct BinaryRepeatParams {
  uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
  uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
  BinaryRepeatParams() = default;
  BinaryRepeatParams(uint8_t dstBlk, uint8_t src0Blk, uint8_t src1Blk, uint8_t dstRep,
                     uint8_t src0Rep, uint8_t src1Rep)
      : dstBlkStride(dstBlk), src0BlkStride(src0Blk), src1BlkStride(src1Blk),
        dstRepStride(dstRep), src0RepStride(src0Rep), src1RepStride(src1Rep) {}
};
struct UnaryRepeatParams {
  uint16_t dstBlkStride = 1, srcBlkStride = 1;
  uint8_t dstRepStride = 8, srcRepStride = 8;
  UnaryRepeatParams() = default;
  UnaryRepeatParams(uint16_t dstBlk, uint16_t srcBlk, uint8_t dstRep, uint8_t srcRep)
      : dstBlkStride(dstBlk), srcBlkStride(srcBlk), dstRepStride(dstRep), srcRepStride(srcRep) {}
};
struct CopyRepeatParams {
  uint16_t dstStride = 1, srcStride = 1, dstRepeatSize = 8, srcRepeatSize = 8;
  CopyRepeatParams() = default;
  CopyRepeatParams(uint16_t dstBlk, uint16_t srcBlk, uint16_t dstRep, uint16_t srcRep)
      : dstStride(dstBlk), srcStride(srcBlk), dstRepeatSize(dstRep), srcRepeatSize(srcRep) {}
};

template <typename T> class LocalTensor;

}  // namespace AscendC

namespace vinci::ascendc_host {

// The implementation behind the API (src/). Every call checks its operands
// and throws a fault that the launch catches; none escapes the C API.
uint8_t *initBuffer(AscendC::TPosition position, uint32_t bytes, uint64_t &available);
void checkLocal(const Span &span, uint64_t bytes, const char *call);
void checkGm(const void *ptr, uint64_t bytes, bool write, const char *call);

void dataCopy(const Span &dst, const Span &src, const AscendC::DataCopyParams &params);
void dataCopyCo1(const Span &dst, const Span &src, const AscendC::DataCopyParams &params,
                 const AscendC::DataCopyEnhancedParams &enhanced);
void loadData2d(const Span &dst, const Span &src, const AscendC::LoadData2DParams &params);
/// LoadData3DParamsV1 without its element type: the pad value as its bytes.
struct Load3dV1 {
  uint8_t pads[4];
  uint16_t l1H, l1W, c1Index;
  uint8_t fetchW, fetchH;
  int16_t leftTopW, leftTopH;
  uint8_t strideW, strideH, filterW, filterH, dilationW, dilationH, jumpStride, repeatMode,
      repeatTime, cSize;
  uint8_t padValue[4];
};
void loadData3dV1(const Span &dst, const Span &src, const Load3dV1 &params);
void mmad(const Span &c, const Span &a, const Span &b, const AscendC::MmadParams &params);

enum class VecOp : uint8_t {
  Add, Sub, Mul, Div, Max, Min, MulAddDst,                 // binary
  Adds, Muls, Maxs, Mins, LeakyRelu, Axpy,                 // with a scalar
  Exp, Ln, Sqrt, Rsqrt, Reciprocal, Abs, Relu, Copy,       // unary
};
/// The lane walk of a vector call: block strides and repeat strides per
/// operand (dst, src0, src1), in 32-byte blocks.
struct Strides {
  uint32_t blk[3] = {1, 1, 1};
  uint32_t rep[3] = {8, 8, 8};
};
void vector(VecOp op, const Span &dst, const Span &src0, const Span *src1, Scalar scalar,
            const uint64_t mask[2], uint32_t repeat, const Strides &strides, const char *call);
void duplicate(const Span &dst, Scalar scalar, const uint64_t mask[2], uint32_t repeat,
               uint32_t dstBlk, uint32_t dstRep);
void cast(const Span &dst, const Span &src, AscendC::RoundMode mode, const uint64_t mask[2],
          uint32_t repeat, const Strides &strides);
void compare(const Span &dst, const Span &src0, const Span *src1, Scalar scalar,
             AscendC::CMPMODE mode, const uint64_t mask[2], uint32_t repeat,
             const Strides &strides);
void select(const Span &dst, const Span &selMask, const Span &src0, const Span &src1,
            AscendC::SELMODE mode, const uint64_t mask[2], uint32_t repeat,
            const Strides &strides);
enum class ReduceOp : uint8_t { Sum, Max, Min };
void wholeReduce(ReduceOp op, const Span &dst, const Span &src, const uint64_t mask[2],
                 int32_t repeat, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride,
                 AscendC::ReduceOrder order);
void transpose16(const Span &dst, const Span &src);
Scalar getValue(const Span &span, uint64_t index);
void setValue(const Span &span, uint64_t index, Scalar value);

void setFlag(AscendC::HardEvent event, int32_t id);
void waitFlag(AscendC::HardEvent event, int32_t id);
void pipeBarrier(pipe_t pipe);
int64_t blockIdx();
int64_t blockNum();
[[noreturn]] void trap();

/// Runs `body(context)` once per block, one block after another, each on a
/// fresh modelled core; a fault stops the launch and is kept on `stream` for
/// aclrtSynchronizeStream.
void launch(const char *kernel, uint32_t blockDim, void *stream, void (*body)(void *),
            void *context);
template <typename F> void launch(const char *kernel, uint32_t blockDim, void *stream, F body) {
  launch(kernel, blockDim, stream, [](void *f) { (*static_cast<F *>(f))(); }, &body);
}

template <typename T> Scalar scalarOf(const T &value) { return Scalar{double(value)}; }
inline Scalar scalarOf(const half &value) { return Scalar{double(float(value))}; }
template <typename T> T valueOf(Scalar s) { return static_cast<T>(s.value); }
template <> inline half valueOf<half>(Scalar s) { return half(float(s.value)); }

}  // namespace vinci::ascendc_host

/// The host form of CANN's `kernel<<<blockDim, l2ctrl, stream>>>(args)`.
#define VINCI_HOST_LAUNCH(kernel, blockDim, stream, ...) \
  ::vinci::ascendc_host::launch(#kernel, (blockDim), (stream), [&] { kernel(__VA_ARGS__); })

namespace AscendC {

/// A tensor in a local buffer: a TBuf's bytes from an offset on, typed T.
template <typename T> class LocalTensor {
 public:
  LocalTensor() = default;
  /// The tensor starting `offset` elements further on.
  LocalTensor operator[](uint32_t offset) const {
    LocalTensor t = *this;
    uint64_t bytes = uint64_t(offset) * sizeof(T);
    host::checkLocal(span(), bytes, "LocalTensor::operator[]");
    t.ptr_ += bytes;
    t.avail_ -= bytes;
    return t;
  }
  template <typename U> LocalTensor<U> ReinterpretCast() const {
    LocalTensor<U> t;
    t.position_ = position_;
    t.ptr_ = ptr_;
    t.avail_ = avail_;
    return t;
  }
  T GetValue(uint32_t index) const {
    return host::valueOf<T>(host::getValue(span(), index));
  }
  void SetValue(uint32_t index, T value) const { host::setValue(span(), index, host::scalarOf(value)); }
  uint32_t GetSize() const { return uint32_t(avail_ / sizeof(T)); }
  TPosition GetPosition() const { return position_; }

  host::Span span() const {
    return host::Span{int(position_), ptr_, avail_, host::EltOf<T>::value};
  }

 private:
  template <typename U> friend class LocalTensor;
  template <TPosition P> friend class TBuf;
  TPosition position_ = TPosition::VECCALC;
  uint8_t *ptr_ = nullptr;
  uint64_t avail_ = 0;
};

/// A tensor in GM: a typed pointer into a device allocation.
template <typename T> class GlobalTensor {
 public:
  void SetGlobalBuffer(__gm__ T *buffer, uint64_t bufferSize) {
    ptr_ = buffer;
    size_ = bufferSize;
  }
  void SetGlobalBuffer(__gm__ T *buffer) { ptr_ = buffer; }
  GlobalTensor operator[](uint64_t offset) const {
    GlobalTensor t = *this;
    t.ptr_ += offset;
    t.size_ = offset < size_ ? size_ - offset : 0;
    return t;
  }
  uint64_t GetSize() const { return size_; }
  host::Span span() const {
    return host::Span{int(TPosition::GM), reinterpret_cast<uint8_t *>(ptr_), 0,
                      host::EltOf<T>::value};
  }

 private:
  T *ptr_ = nullptr;
  uint64_t size_ = 0;
};

/// A buffer of one position, handed out by TPipe::InitBuffer.
template <TPosition Pos> class TBuf {
 public:
  template <typename T> LocalTensor<T> Get() const {
    LocalTensor<T> t;
    t.position_ = Pos;
    t.ptr_ = base_;
    t.avail_ = bytes_;
    return t;
  }

 private:
  friend class TPipe;
  uint8_t *base_ = nullptr;
  uint64_t bytes_ = 0;
};

class TPipe {
 public:
  template <TPosition Pos> void InitBuffer(TBuf<Pos> &buf, uint32_t bytes) {
    buf.base_ = host::initBuffer(Pos, bytes, buf.bytes_);
  }
};

// ---- Data movement --------------------------------------------------------

template <typename T>
void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &p) {
  host::dataCopy(dst.span(), src.span(), p);
}
template <typename T>
void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p) {
  host::dataCopy(dst.span(), src.span(), p);
}
template <typename T>
void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p) {
  host::dataCopy(dst.span(), src.span(), p);
}
/// CO1 -> CO2 with conversion (float or int32 in L0C to the UB tensor's type).
template <typename T, typename U>
void DataCopy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const DataCopyParams &p,
              const DataCopyEnhancedParams &enhanced) {
  host::dataCopyCo1(dst.span(), src.span(), p, enhanced);
}
template <typename T>
void LoadData(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LoadData2DParams &p) {
  host::loadData2d(dst.span(), src.span(), p);
}
template <typename T>
void LoadData(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LoadData3DParamsV1<T> &p) {
  static_assert(sizeof(T) <= 4, "the pad value is one element");
  host::Load3dV1 q{{p.padList[0], p.padList[1], p.padList[2], p.padList[3]},
                   p.l1H, p.l1W, p.c1Index, p.fetchFilterW, p.fetchFilterH, p.leftTopW,
                   p.leftTopH, p.strideW, p.strideH, p.filterW, p.filterH, p.dilationFilterW,
                   p.dilationFilterH, p.jumpStride, p.repeatMode, p.repeatTime, p.cSize, {}};
  __builtin_memcpy(q.padValue, &p.padValue, sizeof(T));
  host::loadData3dV1(dst.span(), src.span(), q);
}

// ---- Cube -----------------------------------------------------------------

template <typename T, typename U, typename S>
void Mmad(const LocalTensor<T> &dst, const LocalTensor<U> &fm, const LocalTensor<S> &filter,
          const MmadParams &p) {
  host::mmad(dst.span(), fm.span(), filter.span(), p);
}

// ---- Vector ---------------------------------------------------------------

namespace detail {
inline host::Strides strides(const BinaryRepeatParams &p) {
  host::Strides s;
  s.blk[0] = p.dstBlkStride, s.blk[1] = p.src0BlkStride, s.blk[2] = p.src1BlkStride;
  s.rep[0] = p.dstRepStride, s.rep[1] = p.src0RepStride, s.rep[2] = p.src1RepStride;
  return s;
}
inline host::Strides strides(const UnaryRepeatParams &p) {
  host::Strides s;
  s.blk[0] = p.dstBlkStride, s.blk[1] = p.srcBlkStride;
  s.rep[0] = p.dstRepStride, s.rep[1] = p.srcRepStride;
  return s;
}
}  // namespace detail

#define VINCI_ASCENDC_BINARY(Name)                                                          \
  template <typename T>                                                                     \
  void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, \
            const uint64_t mask[2], uint8_t repeatTimes, const BinaryRepeatParams &p) {     \
    host::Span s1 = src1.span();                                                            \
    host::vector(host::VecOp::Name, dst.span(), src0.span(), &s1, {}, mask, repeatTimes,    \
                 detail::strides(p), #Name);                                                \
  }
VINCI_ASCENDC_BINARY(Add)
VINCI_ASCENDC_BINARY(Sub)
VINCI_ASCENDC_BINARY(Mul)
VINCI_ASCENDC_BINARY(Div)
VINCI_ASCENDC_BINARY(Max)
VINCI_ASCENDC_BINARY(Min)
VINCI_ASCENDC_BINARY(MulAddDst)
#undef VINCI_ASCENDC_BINARY

#define VINCI_ASCENDC_SCALAR(Name)                                                          \
  template <typename T>                                                                     \
  void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue,     \
            const uint64_t mask[2], uint8_t repeatTimes, const UnaryRepeatParams &p) {      \
    host::vector(host::VecOp::Name, dst.span(), src.span(), nullptr,                        \
                 host::scalarOf(scalarValue), mask, repeatTimes, detail::strides(p), #Name); \
  }
VINCI_ASCENDC_SCALAR(Adds)
VINCI_ASCENDC_SCALAR(Muls)
VINCI_ASCENDC_SCALAR(Maxs)
VINCI_ASCENDC_SCALAR(Mins)
VINCI_ASCENDC_SCALAR(LeakyRelu)
VINCI_ASCENDC_SCALAR(Axpy)
#undef VINCI_ASCENDC_SCALAR

#define VINCI_ASCENDC_UNARY(Name)                                                           \
  template <typename T>                                                                     \
  void Name(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[2],   \
            uint8_t repeatTimes, const UnaryRepeatParams &p) {                              \
    host::vector(host::VecOp::Name, dst.span(), src.span(), nullptr, {}, mask, repeatTimes, \
                 detail::strides(p), #Name);                                                \
  }
VINCI_ASCENDC_UNARY(Exp)
VINCI_ASCENDC_UNARY(Ln)
VINCI_ASCENDC_UNARY(Sqrt)
VINCI_ASCENDC_UNARY(Rsqrt)
VINCI_ASCENDC_UNARY(Reciprocal)
VINCI_ASCENDC_UNARY(Abs)
VINCI_ASCENDC_UNARY(Relu)
#undef VINCI_ASCENDC_UNARY

template <typename T>
void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[2],
          uint8_t repeatTimes, const CopyRepeatParams &p) {
  host::Strides s;
  s.blk[0] = p.dstStride, s.blk[1] = p.srcStride;
  s.rep[0] = p.dstRepeatSize, s.rep[1] = p.srcRepeatSize;
  host::vector(host::VecOp::Copy, dst.span(), src.span(), nullptr, {}, mask, repeatTimes, s,
               "Copy");
}

template <typename T>
void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, const uint64_t mask[2],
               uint8_t repeatTimes, uint16_t dstBlockStride, uint8_t dstRepeatStride) {
  host::duplicate(dst.span(), host::scalarOf(scalarValue), mask, repeatTimes, dstBlockStride,
                  dstRepeatStride);
}

template <typename T, typename U>
void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode,
          const uint64_t mask[2], uint8_t repeatTimes, const UnaryRepeatParams &p) {
  host::cast(dst.span(), src.span(), roundMode, mask, repeatTimes, detail::strides(p));
}

template <typename T, typename U>
void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
             CMPMODE mode, const uint64_t mask[2], uint8_t repeatTimes,
             const BinaryRepeatParams &p) {
  host::Span s1 = src1.span();
  host::compare(dst.span(), src0.span(), &s1, {}, mode, mask, repeatTimes, detail::strides(p));
}
template <typename T, typename U>
void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T &src1Scalar,
                   CMPMODE mode, const uint64_t mask[2], uint8_t repeatTimes,
                   const UnaryRepeatParams &p) {
  host::compare(dst.span(), src0.span(), nullptr, host::scalarOf(src1Scalar), mode, mask,
                repeatTimes, detail::strides(p));
}
template <typename T, typename U>
void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
            const LocalTensor<T> &src1, SELMODE mode, const uint64_t mask[2], uint8_t repeatTimes,
            const BinaryRepeatParams &p) {
  host::select(dst.span(), selMask.span(), src0.span(), src1.span(), mode, mask, repeatTimes,
               detail::strides(p));
}

template <typename T>
void WholeReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[2],
                    int32_t repeatTimes, int32_t dstRepStride, int32_t srcBlkStride,
                    int32_t srcRepStride) {
  host::wholeReduce(host::ReduceOp::Sum, dst.span(), src.span(), mask, repeatTimes, dstRepStride,
                    srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE);
}
template <typename T>
void WholeReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[2],
                    int32_t repeatTimes, int32_t dstRepStride, int32_t srcBlkStride,
                    int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  host::wholeReduce(host::ReduceOp::Max, dst.span(), src.span(), mask, repeatTimes, dstRepStride,
                    srcBlkStride, srcRepStride, order);
}
template <typename T>
void WholeReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[2],
                    int32_t repeatTimes, int32_t dstRepStride, int32_t srcBlkStride,
                    int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  host::wholeReduce(host::ReduceOp::Min, dst.span(), src.span(), mask, repeatTimes, dstRepStride,
                    srcBlkStride, srcRepStride, order);
}

/// One 16x16 matrix of 2-byte elements, transposed.
template <typename T> void Transpose(const LocalTensor<T> &dst, const LocalTensor<T> &src) {
  static_assert(sizeof(T) == 2, "Transpose takes 16x16 matrices of 2-byte elements");
  host::transpose16(dst.span(), src.span());
}

// ---- Synchronisation and the core -------------------------------------------

template <HardEvent E> void SetFlag(int32_t eventId) { host::setFlag(E, eventId); }
template <HardEvent E> void WaitFlag(int32_t eventId) { host::waitFlag(E, eventId); }
template <pipe_t P> void PipeBarrier() { host::pipeBarrier(P); }
inline int64_t GetBlockIdx() { return host::blockIdx(); }
inline int64_t GetBlockNum() { return host::blockNum(); }

}  // namespace AscendC

/// The kernel stops with an exception (the device's trap instruction).
inline void trap() { ::vinci::ascendc_host::trap(); }

#endif  // VINCI_ASCENDC_HOST_KERNEL_OPERATOR_H
