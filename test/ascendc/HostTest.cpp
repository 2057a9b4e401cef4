// GoogleTest of the host implementation of Ascend C and AscendCL
// (backend/ascendc/host): each call's documented behaviour on small kernels,
// and the faults it reports. Expected values are worked out by hand from the
// API documentation and docs/isa.md, not from the implementation.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "acl/acl.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

/// AscendCL initialised, device 0 set, one stream; device buffers freed.
class Host : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  }
  void TearDown() override {
    for (void *p : buffers) aclrtFree(p);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
  }
  template <typename T> T *device(const std::vector<T> &host) {
    void *p = nullptr;
    EXPECT_EQ(aclrtMalloc(&p, host.size() * sizeof(T), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(p, host.size() * sizeof(T), host.data(), host.size() * sizeof(T),
                          ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    buffers.push_back(p);
    return static_cast<T *>(p);
  }
  template <typename T> std::vector<T> back(const T *dev, size_t n) {
    std::vector<T> host(n);
    EXPECT_EQ(aclrtMemcpy(host.data(), n * sizeof(T), dev, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_SUCCESS);
    return host;
  }
  /// The stream's result: "" or the fault message.
  std::string sync() {
    aclError status = aclrtSynchronizeStream(stream);
    if (status == ACL_SUCCESS) return "";
    EXPECT_EQ(status, ACL_ERROR_RT_AICORE_EXCEPTION);
    return aclGetRecentErrMsg();
  }
  aclrtStream stream = nullptr;
  std::vector<void *> buffers;
};

// ---- Data movement ----------------------------------------------------------

__aicore__ void copyBlocks(GM_ADDR in, GM_ADDR out) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> ub = buf.Get<float>();
  GlobalTensor<float> src, dst;
  src.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(in), 64);
  dst.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(out), 64);
  // Two bursts of one 32-byte block, a block apart in GM, contiguous in UB.
  DataCopy(ub, src, DataCopyParams(2, 1, 1, 0));
  SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
  DataCopy(dst, ub, DataCopyParams(1, 2, 0, 0));
}

TEST_F(Host, DataCopyMovesWholeBlocksWithGapsInBlocks) {
  std::vector<float> in(64), zero(64, 0.0f);
  for (int i = 0; i < 64; ++i) in[i] = float(i);
  float *src = device(in), *dst = device(zero);
  VINCI_HOST_LAUNCH(copyBlocks, 1, stream, reinterpret_cast<uint8_t *>(src),
                    reinterpret_cast<uint8_t *>(dst));
  ASSERT_EQ(sync(), "");
  std::vector<float> out = back(dst, 64);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], float(i));           // burst 0: elements 0..7
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[8 + i], float(16 + i));  // burst 1: 16..23
  EXPECT_EQ(out[16], 0.0f);
}

__aicore__ void copyPastTBuf(GM_ADDR in) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 64);
  GlobalTensor<float> src;
  src.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(in), 64);
  DataCopy(buf.Get<float>(), src, DataCopyParams(1, 3, 0, 0));  // 96 bytes into 64
}

TEST_F(Host, ARangePastItsTBufIsAFault) {
  std::vector<float> in(64, 1.0f);
  VINCI_HOST_LAUNCH(copyPastTBuf, 1, stream, reinterpret_cast<uint8_t *>(device(in)));
  EXPECT_NE(sync().find("past the end of its TBuf"), std::string::npos);
}

__aicore__ void readPastAllocation(GM_ADDR in) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 1024);
  GlobalTensor<float> src;
  src.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(in), 8);
  DataCopy(buf.Get<float>(), src, DataCopyParams(1, 3, 0, 0));  // 96 bytes of an 8-float tensor
}

TEST_F(Host, GmOutsideEveryAllocationIsAFault) {
  // aclrtMalloc(32) reserves 32 + 32 bytes: 96 bytes reach past them.
  std::vector<float> in(8, 1.0f);
  VINCI_HOST_LAUNCH(readPastAllocation, 1, stream, reinterpret_cast<uint8_t *>(device(in)));
  EXPECT_NE(sync().find("outside every device allocation"), std::string::npos);
}

__aicore__ void tooMuchUb() {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 248 * 1024 + 32);
}

TEST_F(Host, TPipeHandsOut248KiBOfTheUb) {
  VINCI_HOST_LAUNCH(tooMuchUb, 1, stream);
  EXPECT_NE(sync().find("exceed the 253952 bytes"), std::string::npos);
}

// ---- Vector -----------------------------------------------------------------

__aicore__ void maskedAdd(GM_ADDR a, GM_ADDR b, GM_ADDR out) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 3 * 512);
  LocalTensor<half> ub = buf.Get<half>();
  GlobalTensor<half> ga, gb, go;
  ga.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(a), 256);
  gb.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(b), 256);
  go.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(out), 256);
  DataCopy(ub, ga, DataCopyParams(1, 16, 0, 0));
  DataCopy(ub[256], gb, DataCopyParams(1, 16, 0, 0));
  DataCopy(ub[512], ga, DataCopyParams(1, 16, 0, 0));
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  // Lanes 0 and 17 of each of 2 repeats; repeat stride 4 blocks (64 halves),
  // source 1 read with block stride 2.
  uint64_t mask[2] = {(1ull << 0) | (1ull << 17), 0};
  Add(ub[512], ub, ub[256], mask, 2, BinaryRepeatParams(1, 1, 2, 4, 4, 4));
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(go, ub[512], DataCopyParams(1, 16, 0, 0));
}

TEST_F(Host, VectorLanesFollowMaskBlockAndRepeatStrides) {
  std::vector<half> a(256), b(256);
  for (int i = 0; i < 256; ++i) a[i] = half(float(i)), b[i] = half(1000.0f + float(i));
  a[81] = half(2048.0f), b[97] = half(1.0f);  // 2048 + 1 is 2048 in half (ties to even)
  half *out = device(std::vector<half>(256));
  VINCI_HOST_LAUNCH(maskedAdd, 1, stream, reinterpret_cast<uint8_t *>(device(a)),
                    reinterpret_cast<uint8_t *>(device(b)), reinterpret_cast<uint8_t *>(out));
  ASSERT_EQ(sync(), "");
  std::vector<half> r = back(out, 256);
  // Repeat 0: lane 0 = a[0] + b[0]; lane 17 (block 1, element 1) = a[17] +
  // b[33], source 1's block 1 being two blocks on.
  EXPECT_EQ(float(r[0]), 1000.0f);
  EXPECT_EQ(float(r[17]), 1050.0f);
  // Lane 1 is masked off: it keeps its copy of a.
  EXPECT_EQ(float(r[1]), 1.0f);
  // Repeat 1 starts 64 halves on.
  EXPECT_EQ(float(r[64]), 1128.0f);
  EXPECT_EQ(float(r[81]), 2048.0f);
}

__aicore__ void castModes(GM_ADDR in, GM_ADDR out) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 1024);
  LocalTensor<float> f = buf.Get<float>();
  LocalTensor<int32_t> i = buf.Get<int32_t>()[64];
  GlobalTensor<float> gi;
  GlobalTensor<int32_t> go;
  gi.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(in), 8);
  go.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t *>(out), 40);
  DataCopy(f, gi, DataCopyParams(1, 1, 0, 0));
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  uint64_t mask[2] = {0xff, 0};
  const RoundMode modes[] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                             RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC};
  for (int m = 0; m < 5; ++m) Cast(i[8 * m], f, modes[m], mask, 1, UnaryRepeatParams(1, 1, 8, 8));
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(go, i, DataCopyParams(1, 5, 0, 0));
}

TEST_F(Host, CastRoundsAsItsModeSaysAndSaturates) {
  std::vector<float> in = {2.5f, -2.5f, 3.5f, -0.5f, NAN, 3e9f, -3e9f, 1.0f};
  int32_t *out = device(std::vector<int32_t>(40));
  VINCI_HOST_LAUNCH(castModes, 1, stream, reinterpret_cast<uint8_t *>(device(in)),
                    reinterpret_cast<uint8_t *>(out));
  ASSERT_EQ(sync(), "");
  std::vector<int32_t> r = back(out, 40);
  const int32_t expected[5][4] = {{2, -2, 4, 0}, {2, -3, 3, -1}, {3, -2, 4, 0},
                                  {3, -3, 4, -1}, {2, -2, 3, 0}};
  for (int m = 0; m < 5; ++m) {
    for (int k = 0; k < 4; ++k) EXPECT_EQ(r[8 * m + k], expected[m][k]) << "mode " << m << " " << k;
    EXPECT_EQ(r[8 * m + 4], 0);          // NaN
    EXPECT_EQ(r[8 * m + 5], INT32_MAX);  // saturated
    EXPECT_EQ(r[8 * m + 6], INT32_MIN);
  }
}

__aicore__ void reduceInOrder(GM_ADDR in, GM_ADDR out) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 512);
  LocalTensor<float> ub = buf.Get<float>();
  GlobalTensor<float> gi, go;
  gi.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(in), 64);
  go.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(out), 16);
  DataCopy(ub, gi, DataCopyParams(1, 8, 0, 0));
  SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
  uint64_t mask[2] = {0xf, 0};
  WholeReduceSum(ub[64], ub, mask, 1, 1, 1, 8);
  uint64_t all[2] = {~0ull, 0};
  WholeReduceMax(ub[72], ub, all, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(go, ub[64], DataCopyParams(1, 2, 0, 0));
}

TEST_F(Host, WholeReduceSumAddsTheLanesInOrder) {
  // In lane order: 1e8 + 1 = 1e8, - 1e8 = 0, + 1 = 1 (a tree gives 0).
  std::vector<float> in(64, -5.0f);
  in[0] = 1e8f, in[1] = 1.0f, in[2] = -1e8f, in[3] = 1.0f, in[40] = 7.0f;
  float *out = device(std::vector<float>(16));
  VINCI_HOST_LAUNCH(reduceInOrder, 1, stream, reinterpret_cast<uint8_t *>(device(in)),
                    reinterpret_cast<uint8_t *>(out));
  ASSERT_EQ(sync(), "");
  std::vector<float> r = back(out, 16);
  EXPECT_EQ(r[0], 1.0f);
  EXPECT_EQ(r[8], 1e8f);
}

// ---- Cube ---------------------------------------------------------------------

__aicore__ void matmul16(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
  TPipe pipe;
  TBuf<TPosition::A1> l1;
  TBuf<TPosition::A2> l0a;
  TBuf<TPosition::B2> l0b;
  TBuf<TPosition::CO1> l0c;
  TBuf<TPosition::VECCALC> ub;
  pipe.InitBuffer(l1, 1024);
  pipe.InitBuffer(l0a, 512);
  pipe.InitBuffer(l0b, 512);
  pipe.InitBuffer(l0c, 1024);
  pipe.InitBuffer(ub, 1024);
  GlobalTensor<half> ga, gb;
  GlobalTensor<float> gc;
  ga.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(a), 256);
  gb.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(b), 256);
  gc.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(c), 256);
  LocalTensor<half> tiles = l1.Get<half>();
  DataCopy(tiles, ga, DataCopyParams(1, 16, 0, 0));
  DataCopy(tiles[256], gb, DataCopyParams(1, 16, 0, 0));
  SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
  LoadData2DParams load;
  load.repeatTimes = 1;
  load.srcStride = 1;
  LoadData(l0a.Get<half>(), tiles, load);
  load.ifTranspose = true;  // B stored row-major (k, n) becomes the n-major fractal
  LoadData(l0b.Get<half>(), tiles[256], load);
  SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
  WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
  MmadParams mm;
  mm.m = 16, mm.n = 16, mm.k = 16, mm.cmatrixInitVal = true;
  Mmad(l0c.Get<float>(), l0a.Get<half>(), l0b.Get<half>(), mm);
  mm.cmatrixInitVal = false;  // accumulate the same product again
  Mmad(l0c.Get<float>(), l0a.Get<half>(), l0b.Get<half>(), mm);
  SetFlag<HardEvent::M_V>(EVENT_ID0);
  WaitFlag<HardEvent::M_V>(EVENT_ID0);
  DataCopyEnhancedParams enhanced;
  enhanced.blockMode = BlockMode::BLOCK_MODE_MATRIX;
  DataCopy(ub.Get<float>(), l0c.Get<float>(), DataCopyParams(1, 1, 0, 0), enhanced);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(gc, ub.Get<float>(), DataCopyParams(1, 32, 0, 0));
}

// img2col (Load3Dv1) read back through the Cube: each L0A fractal times the
// identity, one Mmad a fractal, to L0C, the UB and GM (exact in fp32).
constexpr int kC1 = 2, kH = 5, kW = 4, kFractals = 6;
__aicore__ void img2col(GM_ADDR fmap, GM_ADDR eye, GM_ADDR out, GM_ADDR mode) {
  TPipe pipe;
  TBuf<TPosition::A1> l1;
  TBuf<TPosition::A2> l0a;
  TBuf<TPosition::B2> l0b;
  TBuf<TPosition::CO1> l0c;
  TBuf<TPosition::VECCALC> ub;
  pipe.InitBuffer(l1, kC1 * kH * kW * 32 + 512);
  pipe.InitBuffer(l0a, 2 * kFractals * 512);
  pipe.InitBuffer(l0b, 512);
  pipe.InitBuffer(l0c, 2 * kFractals * 1024);
  pipe.InitBuffer(ub, 2 * kFractals * 1024);
  GlobalTensor<half> gf, ge;
  GlobalTensor<float> go;
  gf.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(fmap), kC1 * kH * kW * 16);
  ge.SetGlobalBuffer(reinterpret_cast<__gm__ half *>(eye), 256);
  go.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(out), 2 * kFractals * 256);
  DataCopy(l1.Get<half>(), gf, DataCopyParams(1, kC1 * kH * kW, 0, 0));
  DataCopy(l1.Get<half>()[kC1 * kH * kW * 16], ge, DataCopyParams(1, 16, 0, 0));
  PipeBarrier<PIPE_ALL>();
  LoadData2DParams identity;
  identity.repeatTimes = 1;
  LoadData(l0b.Get<half>(), l1.Get<half>()[kC1 * kH * kW * 16], identity);
  // A 3 x 2 (w x h) filter, pads left 1, right 0, top 1, bottom 0, strides
  // (w 1, h 2), dilation h 2: taps from (c1 0, kh 1, kw 2) in mode 0; tap
  // (c1 1, kh 0, kw 1), fractals 2 apart, in mode 1; windows from (-1, -1).
  LoadData3DParamsV1<half> p;
  p.padList[0] = 1, p.padList[2] = 1;
  p.l1H = kH, p.l1W = kW;
  p.leftTopW = -1, p.leftTopH = -1;
  p.strideW = 1, p.strideH = 2, p.filterW = 3, p.filterH = 2, p.dilationFilterH = 2;
  p.padValue = half(-0.5f);
  if (*mode == 0) {
    p.fetchFilterH = 1, p.fetchFilterW = 2, p.repeatMode = 0, p.repeatTime = kFractals;
  } else {
    p.c1Index = 1, p.fetchFilterW = 1, p.repeatMode = 1, p.repeatTime = kFractals, p.jumpStride = 2;
  }
  LoadData(l0a.Get<half>(), l1.Get<half>(), p);
  PipeBarrier<PIPE_ALL>();
  MmadParams mm;
  mm.m = 16, mm.n = 16, mm.k = 16, mm.cmatrixInitVal = true;
  for (int f = 0; f < 2 * kFractals; ++f)
    Mmad(l0c.Get<float>()[f * 256], l0a.Get<half>()[f * 256], l0b.Get<half>(), mm);
  PipeBarrier<PIPE_ALL>();
  DataCopyEnhancedParams enhanced;
  enhanced.blockMode = BlockMode::BLOCK_MODE_MATRIX;
  DataCopy(ub.Get<float>(), l0c.Get<float>(), DataCopyParams(1, 2 * kFractals, 0, 0), enhanced);
  PipeBarrier<PIPE_ALL>();
  DataCopy(go, ub.Get<float>(), DataCopyParams(1, 2 * kFractals * 32, 0, 0));
}

TEST_F(Host, Load3dV1IsTheIm2colOfThePaddedMap) {
  // The feature map: distinct values exact in fp16; the identity for B.
  std::vector<half> fmap(kC1 * kH * kW * 16), eye(256, half(0.0f));
  for (size_t i = 0; i < fmap.size(); ++i) fmap[i] = half(float(i % 1000) + 1.0f);
  for (int i = 0; i < 16; ++i) eye[i * 16 + i] = half(1.0f);
  // The scalar im2col: window n of the walk (right by stride w, past the
  // row's last window back to -pad left, one stride h down), pixel (h + kh
  // * 2, w + kw) of plane c1, -0.5 outside.
  const int wo = (kW + 1 - 3) / 1 + 1;
  auto pixel = [&](int n, int c1, int kh, int kw, int c) {
    int h = -1 + (n / wo) * 2 + kh * 2, w = -1 + n % wo + kw;
    if (h < 0 || h >= kH || w < 0 || w >= kW) return -0.5f;
    return float(fmap[((c1 * kH + h) * kW + w) * 16 + c]);
  };
  for (int32_t mode : {0, 1}) {
    SCOPED_TRACE(mode == 0 ? "repeat mode 0 (taps)" : "repeat mode 1 (positions)");
    float *out = device(std::vector<float>(2 * kFractals * 256, 7.0f));
    VINCI_HOST_LAUNCH(img2col, 1, stream, reinterpret_cast<uint8_t *>(device(fmap)),
                      reinterpret_cast<uint8_t *>(device(eye)), reinterpret_cast<uint8_t *>(out),
                      reinterpret_cast<uint8_t *>(device(std::vector<int32_t>{mode, 0, 0, 0, 0, 0, 0, 0})));
    ASSERT_EQ(sync(), "");
    std::vector<float> got = back(out, 2 * kFractals * 256);
    int differ = 0;
    for (int f = 0; f < kFractals; ++f) {
      // Mode 0: tap 1 * 3 + 2 + f of the 6 taps a plane (kw, kh, plane);
      // mode 1: tap (1, 0, 1), windows 16 f.., at fractal 2 f.
      int tap = 5 + f, c1 = mode == 0 ? tap / 6 : 1, kh = mode == 0 ? tap % 6 / 3 : 0;
      int kw = mode == 0 ? tap % 3 : 1, slot = mode == 0 ? f : 2 * f, first = mode == 0 ? 0 : 16 * f;
      for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) {
          // L0C's NZ: the 16 x 16 result fractal at slot, row-major inside.
          float want = pixel(first + r, c1, kh, kw, c), have = got[slot * 256 + r * 16 + c];
          if (want != have && differ++ < 3)
            ADD_FAILURE() << "fractal " << f << " row " << r << " channel " << c << ": " << have
                          << ", want " << want;
        }
    }
    EXPECT_EQ(differ, 0);
  }
}

TEST_F(Host, MmadMultipliesZzByZnIntoNzAndAccumulates) {
  std::vector<half> a(256), b(256);
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 16; ++k) a[r * 16 + k] = half(float((r + k) % 5) - 2.0f);
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 16; ++n) b[k * 16 + n] = half(float((k * 3 + n) % 7) - 3.0f);
  float *c = device(std::vector<float>(256));
  VINCI_HOST_LAUNCH(matmul16, 1, stream, reinterpret_cast<uint8_t *>(device(a)),
                    reinterpret_cast<uint8_t *>(device(b)), reinterpret_cast<uint8_t *>(c));
  ASSERT_EQ(sync(), "");
  std::vector<float> out = back(c, 256);
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < 16; ++n) {
      float ref = 0;
      for (int k = 0; k < 16; ++k) ref += float(a[r * 16 + k]) * float(b[k * 16 + n]);
      EXPECT_EQ(out[r * 16 + n], 2 * ref) << r << "," << n;  // NZ of one fractal is row-major
    }
}

// ---- Synchronisation and the launch -------------------------------------------------

__aicore__ void waitWithoutSet() { WaitFlag<HardEvent::MTE2_V>(EVENT_ID3); }
__aicore__ void setWithoutWait() { SetFlag<HardEvent::V_MTE3>(EVENT_ID1); }
__aicore__ void setThenWait() {
  SetFlag<HardEvent::MTE2_V>(EVENT_ID3);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID3);
}

TEST_F(Host, AWaitNoSetSatisfiesIsADeadlock) {
  VINCI_HOST_LAUNCH(waitWithoutSet, 1, stream);
  std::string message = sync();
  EXPECT_NE(message.find("waitWithoutSet block 0: WaitFlag<HardEvent::MTE2_V>(3) with no SetFlag"),
            std::string::npos) << message;
  VINCI_HOST_LAUNCH(setThenWait, 2, stream);
  EXPECT_EQ(sync(), "");
}

TEST_F(Host, AFlagLeftSetIsAFault) {
  VINCI_HOST_LAUNCH(setWithoutWait, 1, stream);
  EXPECT_NE(sync().find("never waited for"), std::string::npos);
}

__aicore__ void writeOwnBlock(GM_ADDR out, int64_t stride) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 32);
  LocalTensor<float> ub = buf.Get<float>();
  GlobalTensor<float> dst;
  dst.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(out), 64);
  uint64_t mask[2] = {0xff, 0};
  Duplicate(ub, float(GetBlockIdx()), mask, 1, 1, 8);
  SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
  DataCopy(dst[GetBlockIdx() * stride], ub, DataCopyParams(1, 1, 0, 0));
}

TEST_F(Host, TwoBlocksWritingOneGmByteRace) {
  float *out = device(std::vector<float>(64));
  uint8_t *bytes = reinterpret_cast<uint8_t *>(out);
  // 8 floats a block: disjoint 32-byte blocks.
  VINCI_HOST_LAUNCH(writeOwnBlock, 4, stream, bytes, int64_t(8));
  ASSERT_EQ(sync(), "");
  EXPECT_EQ(back(out, 64)[3 * 8], 3.0f);
  // 4 floats apart: each block's 32 bytes overlap the next block's.
  VINCI_HOST_LAUNCH(writeOwnBlock, 4, stream, bytes, int64_t(4));
  EXPECT_NE(sync().find("blocks 0 and 1 both write bytes [16, 32)"), std::string::npos);
}

__aicore__ void readUninitialised(GM_ADDR out) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 32);
  GlobalTensor<uint8_t> dst;
  dst.SetGlobalBuffer(out, 32);
  DataCopy(dst, buf.Get<uint8_t>(), DataCopyParams(1, 1, 0, 0));
}

TEST_F(Host, BuffersStartPoisonedNotZeroed) {
  uint8_t *out = device(std::vector<uint8_t>(32, 0));
  VINCI_HOST_LAUNCH(readUninitialised, 1, stream, out);
  ASSERT_EQ(sync(), "");
  EXPECT_EQ(back(out, 32)[5], 0xFF);
}

TEST_F(Host, AclChecksItsArguments) {
  void *p = nullptr;
  EXPECT_EQ(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  int host = 0;
  EXPECT_EQ(aclrtMemcpy(&host, 4, &host, 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("not device memory"), std::string::npos);
  EXPECT_EQ(aclrtFree(&host), ACL_ERROR_INVALID_PARAM);
}

}  // namespace
