// The functional Cube. The hot path (fp16/bf16 -> fp32) converts the fractal
// operands to fp32 panels once per call, then runs a register-blocked
// micro-kernel (6 rows x 16 columns). An AVX2+FMA+F16C build of the kernel is
// chosen at run time when the host has it; both builds give identical bits
// because every product is exact in fp32 and the summation order is fixed.
#include "mmad.h"

#include <array>
#include <cstring>
#include <utility>

#include "fast.h"
#include "vinci/sim/numeric.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define VINCI_HAVE_X86_DISPATCH 1
#endif

namespace vinci::sim::detail {
namespace {

constexpr unsigned kMr = 6;  // rows per micro-kernel call

uint32_t ceilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// Scratch that only grows: a shrink and regrow would zero-fill the new part
// on every call whose shape is larger than the last one's.
template <typename T>
void grow(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

// ---- Packing ----------------------------------------------------------------
// A (L0A) -> row-major fp32 [mpad][k]; B (L0B) -> fp32 panels [n1][k][16].

template <typename Cvt>
void packA(const uint16_t* a, float* af, uint32_t mpad, uint32_t k, uint32_t k1, Cvt cvt) {
  for (uint32_t row = 0; row < mpad; ++row) {
    const uint16_t* frac_row = a + (size_t(row / 16) * k1) * 256 + (row % 16) * 16;
    float* dst = af + size_t(row) * k;
    for (uint32_t kk = 0; kk < k; ++kk) dst[kk] = cvt(frac_row[size_t(kk / 16) * 256 + kk % 16]);
  }
}

template <typename Cvt>
void packB(const uint16_t* b, float* bp, uint32_t n1, uint32_t k, Cvt cvt) {
  const uint32_t k1 = ceilDiv(k, 16);
  for (uint32_t kb = 0; kb < k1; ++kb)
    for (uint32_t nb = 0; nb < n1; ++nb) {
      const uint16_t* frac = b + (size_t(kb) * n1 + nb) * 256;
      const uint32_t kr_end = k - kb * 16 < 16 ? k - kb * 16 : 16;
      float* dst = bp + (size_t(nb) * k + kb * 16) * 16;
      for (uint32_t kr = 0; kr < kr_end; ++kr)
        for (uint32_t nc = 0; nc < 16; ++nc) dst[kr * 16 + nc] = cvt(frac[nc * 16 + kr]);
    }
}

float cvtF16(uint16_t h) { return f16ToF32(h); }
float cvtBf16(uint16_t h) { return bf16ToF32(h); }

// ---- Portable micro-kernel ---------------------------------------------------

template <unsigned MR>
void microPortable(const float* af, size_t lda, const float* bp, float* c, uint32_t k, bool init) {
  float acc[MR][16];
  for (unsigned r = 0; r < MR; ++r)
    if (init) std::memset(acc[r], 0, sizeof acc[r]);
    else std::memcpy(acc[r], c + r * 16, sizeof acc[r]);
  for (uint32_t kk = 0; kk < k; ++kk) {
    const float* brow = bp + size_t(kk) * 16;
    for (unsigned r = 0; r < MR; ++r) {
      const float av = af[r * lda + kk];
      for (unsigned j = 0; j < 16; ++j) acc[r][j] += av * brow[j];
    }
  }
  for (unsigned r = 0; r < MR; ++r) std::memcpy(c + r * 16, acc[r], sizeof acc[r]);
}

using MicroFn = void (*)(const float*, size_t, const float*, float*, uint32_t, bool);

void computePortable(const float* af, const float* bp, float* c, uint32_t mpad, uint32_t n1,
                     uint32_t k, bool init) {
  static const MicroFn micro[kMr + 1] = {nullptr,
                                         microPortable<1>, microPortable<2>, microPortable<3>,
                                         microPortable<4>, microPortable<5>, microPortable<6>};
  for (uint32_t nb = 0; nb < n1; ++nb) {
    const float* bpanel = bp + size_t(nb) * k * 16;
    float* cpanel = c + size_t(nb) * mpad * 16;
    for (uint32_t row = 0; row < mpad; row += kMr) {
      const uint32_t rows = mpad - row < kMr ? mpad - row : kMr;
      micro[rows](af + size_t(row) * k, k, bpanel, cpanel + size_t(row) * 16, k, init);
    }
  }
}

// ---- AVX2 + FMA + F16C --------------------------------------------------------
#ifdef VINCI_HAVE_X86_DISPATCH

// A result as arithmetic stores it: a NaN becomes the positive quiet NaN
// (what mmad's scan of the accumulators does on the portable path).
__attribute__((target("avx2,fma"))) inline __m256 canonicalNan(__m256 v) {
  return _mm256_blendv_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)),
                          _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

template <unsigned MR>
__attribute__((target("avx2,fma"))) void microAvx2(const float* af, size_t lda, const float* bp,
                                                   float* c, uint32_t k, bool init) {
  __m256 acc0[MR], acc1[MR];
  for (unsigned r = 0; r < MR; ++r) {
    acc0[r] = init ? _mm256_setzero_ps() : _mm256_loadu_ps(c + r * 16);
    acc1[r] = init ? _mm256_setzero_ps() : _mm256_loadu_ps(c + r * 16 + 8);
  }
  for (uint32_t kk = 0; kk < k; ++kk) {
    const __m256 b0 = _mm256_loadu_ps(bp + size_t(kk) * 16);
    const __m256 b1 = _mm256_loadu_ps(bp + size_t(kk) * 16 + 8);
    for (unsigned r = 0; r < MR; ++r) {
      const __m256 av = _mm256_broadcast_ss(af + r * lda + kk);
      // Exact product: the fused form rounds exactly as multiply-then-add.
      acc0[r] = _mm256_fmadd_ps(av, b0, acc0[r]);
      acc1[r] = _mm256_fmadd_ps(av, b1, acc1[r]);
    }
  }
  for (unsigned r = 0; r < MR; ++r) {
    _mm256_storeu_ps(c + r * 16, canonicalNan(acc0[r]));
    _mm256_storeu_ps(c + r * 16 + 8, canonicalNan(acc1[r]));
  }
}

// The full 6-row kernel with named accumulators: GCC keeps an array of
// __m256 in memory across iterations, which halves the throughput.
template <>
__attribute__((target("avx2,fma"))) void microAvx2<6>(const float* af, size_t lda, const float* bp,
                                                      float* c, uint32_t k, bool init) {
#define VINCI_ACC_LOAD(r)                                                    \
  __m256 c##r##0 = init ? _mm256_setzero_ps() : _mm256_loadu_ps(c + r * 16); \
  __m256 c##r##1 = init ? _mm256_setzero_ps() : _mm256_loadu_ps(c + r * 16 + 8);
  VINCI_ACC_LOAD(0) VINCI_ACC_LOAD(1) VINCI_ACC_LOAD(2) VINCI_ACC_LOAD(3) VINCI_ACC_LOAD(4) VINCI_ACC_LOAD(5)
#undef VINCI_ACC_LOAD
  const float *a0 = af, *a1 = af + lda, *a2 = af + 2 * lda, *a3 = af + 3 * lda, *a4 = af + 4 * lda,
              *a5 = af + 5 * lda;
  for (uint32_t kk = 0; kk < k; ++kk) {
    const __m256 b0 = _mm256_loadu_ps(bp + size_t(kk) * 16);
    const __m256 b1 = _mm256_loadu_ps(bp + size_t(kk) * 16 + 8);
#define VINCI_ROW(r)                                   \
  {                                                    \
    const __m256 av = _mm256_broadcast_ss(a##r + kk);  \
    c##r##0 = _mm256_fmadd_ps(av, b0, c##r##0);         \
    c##r##1 = _mm256_fmadd_ps(av, b1, c##r##1);         \
  }
    VINCI_ROW(0) VINCI_ROW(1) VINCI_ROW(2) VINCI_ROW(3) VINCI_ROW(4) VINCI_ROW(5)
#undef VINCI_ROW
  }
#define VINCI_ACC_STORE(r)                               \
  _mm256_storeu_ps(c + r * 16, canonicalNan(c##r##0));   \
  _mm256_storeu_ps(c + r * 16 + 8, canonicalNan(c##r##1));
  VINCI_ACC_STORE(0) VINCI_ACC_STORE(1) VINCI_ACC_STORE(2) VINCI_ACC_STORE(3) VINCI_ACC_STORE(4) VINCI_ACC_STORE(5)
#undef VINCI_ACC_STORE
}

__attribute__((target("avx2,fma"))) void computeAvx2(const float* af, const float* bp, float* c,
                                                     uint32_t mpad, uint32_t n1, uint32_t k,
                                                     bool init) {
  static const MicroFn micro[kMr + 1] = {nullptr, microAvx2<1>, microAvx2<2>, microAvx2<3>,
                                         microAvx2<4>, microAvx2<5>, microAvx2<6>};
  for (uint32_t nb = 0; nb < n1; ++nb) {
    const float* bpanel = bp + size_t(nb) * k * 16;
    float* cpanel = c + size_t(nb) * mpad * 16;
    for (uint32_t row = 0; row < mpad; row += kMr) {
      const uint32_t rows = mpad - row < kMr ? mpad - row : kMr;
      micro[rows](af + size_t(row) * k, k, bpanel, cpanel + size_t(row) * 16, k, init);
    }
  }
}

// ---- AVX-512 -------------------------------------------------------------------
// A 16-column panel is one zmm register: 12 rows of two panels side by side
// (24 accumulators), each broadcast of A feeding two FMAs. The same sums in
// the same order as the AVX2 and portable kernels.

__attribute__((target("avx512f"))) inline __m512 canonicalNan512(__m512 v) {
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return _mm512_mask_blend_ps(nan, v, _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
}

constexpr unsigned kMr512 = 12;

// MR rows of NP (1 or 2) panels; `bstride`, `cstride`: floats from one panel to the next.
template <unsigned MR, unsigned NP>
__attribute__((target("avx512f"))) void microAvx512(const float* af, size_t lda, const float* bp, size_t bstride,
                                                    float* c, size_t cstride, uint32_t k, bool init) {
  __m512 acc[NP][MR];
  for (unsigned p = 0; p < NP; ++p)
    for (unsigned r = 0; r < MR; ++r) acc[p][r] = init ? _mm512_setzero_ps() : _mm512_loadu_ps(c + p * cstride + r * 16);
  for (uint32_t kk = 0; kk < k; ++kk) {
    __m512 b[NP];
    for (unsigned p = 0; p < NP; ++p) b[p] = _mm512_loadu_ps(bp + p * bstride + size_t(kk) * 16);
    for (unsigned r = 0; r < MR; ++r) {
      const __m512 av = _mm512_set1_ps(af[r * lda + kk]);
      for (unsigned p = 0; p < NP; ++p) acc[p][r] = _mm512_fmadd_ps(av, b[p], acc[p][r]);
    }
  }
  for (unsigned p = 0; p < NP; ++p)
    for (unsigned r = 0; r < MR; ++r) _mm512_storeu_ps(c + p * cstride + r * 16, canonicalNan512(acc[p][r]));
}

using Micro512Fn = void (*)(const float*, size_t, const float*, size_t, float*, size_t, uint32_t, bool);

template <unsigned NP, size_t... R>
constexpr std::array<Micro512Fn, sizeof...(R)> micro512Table(std::index_sequence<R...>) {
  return {microAvx512<unsigned(R) + 1, NP>...};
}

__attribute__((target("avx512f"))) void computeAvx512(const float* af, const float* bp, float* c, uint32_t mpad,
                                                      uint32_t n1, uint32_t k, bool init) {
  static constexpr auto pairs = micro512Table<2>(std::make_index_sequence<kMr512>());
  static constexpr auto singles = micro512Table<1>(std::make_index_sequence<kMr512>());
  const size_t bstride = size_t(k) * 16, cstride = size_t(mpad) * 16;
  for (uint32_t nb = 0; nb < n1; nb += 2) {
    const auto& micro = nb + 1 < n1 ? pairs : singles;
    const float* bpanel = bp + nb * bstride;
    float* cpanel = c + nb * cstride;
    for (uint32_t row = 0; row < mpad; row += kMr512) {
      const uint32_t rows = mpad - row < kMr512 ? mpad - row : kMr512;
      micro[rows - 1](af + size_t(row) * k, k, bpanel, bstride, cpanel + size_t(row) * 16, cstride, k, init);
    }
  }
}

// fp16 packing with F16C: 16 halves at a time.
__attribute__((target("avx2,f16c"))) void packAF16C(const uint16_t* a, float* af, uint32_t mpad,
                                                    uint32_t k, uint32_t k1) {
  for (uint32_t row = 0; row < mpad; ++row) {
    const uint16_t* frac_row = a + (size_t(row / 16) * k1) * 256 + (row % 16) * 16;
    float* dst = af + size_t(row) * k;
    uint32_t kk = 0;
    for (; kk + 16 <= k; kk += 16) {
      const uint16_t* src = frac_row + size_t(kk / 16) * 256;
      _mm256_storeu_ps(dst + kk, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src))));
      _mm256_storeu_ps(dst + kk + 8, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 8))));
    }
    for (; kk < k; ++kk) dst[kk] = f16ToF32(frac_row[size_t(kk / 16) * 256 + kk % 16]);
  }
}

// Each B fractal (n-major) transposed as 16-bit halves (fast.cpp's AVX2
// transpose when the host has that target), then converted a row of 16 at a
// time; otherwise through a fp32 tile read back column by column.
__attribute__((target("avx2,f16c"))) void packBF16C(const uint16_t* b, float* bp, uint32_t n1,
                                                    uint32_t k) {
  const uint32_t k1 = ceilDiv(k, 16);
#ifdef VINCI_SIM_FAST
  const bool transpose_halves = fast::available();
#else
  const bool transpose_halves = false;
#endif
  alignas(32) float tile[16][16];  // [nc][kr]
  alignas(32) uint16_t halves[256];  // [kr][nc]
  for (uint32_t kb = 0; kb < k1; ++kb)
    for (uint32_t nb = 0; nb < n1; ++nb) {
      const uint16_t* frac = b + (size_t(kb) * n1 + nb) * 256;
      const uint32_t kr_end = k - kb * 16 < 16 ? k - kb * 16 : 16;
      float* dst = bp + (size_t(nb) * k + kb * 16) * 16;
#ifdef VINCI_SIM_FAST
      if (transpose_halves) {
        fast::transpose16x16(halves, frac);
        for (uint32_t kr = 0; kr < kr_end; ++kr) {
          const __m128i* row = reinterpret_cast<const __m128i*>(halves + kr * 16);
          _mm256_storeu_ps(dst + kr * 16, _mm256_cvtph_ps(_mm_load_si128(row)));
          _mm256_storeu_ps(dst + kr * 16 + 8, _mm256_cvtph_ps(_mm_load_si128(row + 1)));
        }
        continue;
      }
#endif
      for (uint32_t nc = 0; nc < 16; ++nc) {
        _mm256_store_ps(tile[nc], _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(frac + nc * 16))));
        _mm256_store_ps(tile[nc] + 8, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(frac + nc * 16 + 8))));
      }
      for (uint32_t kr = 0; kr < kr_end; ++kr)
        for (uint32_t nc = 0; nc < 16; ++nc) dst[kr * 16 + nc] = tile[nc][kr];
    }
}

// AVX2, FMA and F16C in the CPU, and YMM state enabled by the OS (CPUID + XGETBV;
// clang's __builtin_cpu_supports does not know "f16c").
bool detectAvx2() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const bool fma = c & (1u << 12), osxsave = c & (1u << 27), avx = c & (1u << 28), f16c = c & (1u << 29);
  if (!(fma && osxsave && avx && f16c)) return false;
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0x6u) != 0x6u) return false;  // XMM and YMM state
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid_count(7, 0, a, b, c, d);
  return b & (1u << 5);  // AVX2
}

bool hostHasAvx2() {
  static const bool has = detectAvx2();
  return has;
}

#endif

// ---- int8 ---------------------------------------------------------------------

void mmadS8(const int8_t* a, const int8_t* b, int32_t* c, uint32_t m, uint32_t n, uint32_t k,
            bool init, MmadScratch& s) {
  const uint32_t m1 = ceilDiv(m, 16), n1 = ceilDiv(n, 16), k1 = ceilDiv(k, 32), mpad = m1 * 16;
  grow(s.ai, size_t(mpad) * k);
  grow(s.bi, size_t(n1) * k * 16);
  for (uint32_t row = 0; row < mpad; ++row)
    for (uint32_t kk = 0; kk < k; ++kk)
      s.ai[size_t(row) * k + kk] = a[(size_t(row / 16) * k1 + kk / 32) * 512 + (row % 16) * 32 + kk % 32];
  for (uint32_t nb = 0; nb < n1; ++nb)
    for (uint32_t kk = 0; kk < k; ++kk)
      for (uint32_t nc = 0; nc < 16; ++nc)
        s.bi[(size_t(nb) * k + kk) * 16 + nc] = b[(size_t(kk / 32) * n1 + nb) * 512 + nc * 32 + kk % 32];
  for (uint32_t nb = 0; nb < n1; ++nb)
    for (uint32_t row = 0; row < mpad; ++row) {
      int32_t acc[16];
      int32_t* crow = c + (size_t(nb) * mpad + row) * 16;
      if (init) std::memset(acc, 0, sizeof acc);
      else std::memcpy(acc, crow, sizeof acc);
      const int32_t* arow = s.ai.data() + size_t(row) * k;
      const int32_t* bpanel = s.bi.data() + size_t(nb) * k * 16;
      for (uint32_t kk = 0; kk < k; ++kk)
        for (unsigned j = 0; j < 16; ++j)  // wraps like 32-bit hardware accumulators
          acc[j] = int32_t(uint32_t(acc[j]) + uint32_t(arow[kk] * bpanel[kk * 16 + j]));
      std::memcpy(crow, acc, sizeof acc);
    }
}

}  // namespace

void mmad(const uint8_t* a, const uint8_t* b, uint8_t* c, uint32_t m, uint32_t n, uint32_t k,
          DType in, DType out, bool init, MmadScratch& s, bool reference) {
  if (in == DType::S8) {
    mmadS8(reinterpret_cast<const int8_t*>(a), reinterpret_cast<const int8_t*>(b),
           reinterpret_cast<int32_t*>(c), m, n, k, init, s);
    return;
  }
  const uint32_t m1 = ceilDiv(m, 16), n1 = ceilDiv(n, 16), k1 = ceilDiv(k, 16), mpad = m1 * 16;
  const uint16_t* a16 = reinterpret_cast<const uint16_t*>(a);
  const uint16_t* b16 = reinterpret_cast<const uint16_t*>(b);
  grow(s.a, size_t(mpad) * k);
  grow(s.b, size_t(n1) * k * 16);
  bool fast = false, avx512 = false;
#ifdef VINCI_HAVE_X86_DISPATCH
  fast = !reference && hostHasAvx2();
#ifdef VINCI_SIM_FAST
  avx512 = fast && fast::avx512();  // implies AVX-512F
#endif
#endif
  if (in == DType::F16 && fast) {
#ifdef VINCI_HAVE_X86_DISPATCH
    packAF16C(a16, s.a.data(), mpad, k, k1);
    packBF16C(b16, s.b.data(), n1, k);
#endif
  } else if (in == DType::F16) {
    packA(a16, s.a.data(), mpad, k, k1, cvtF16);
    packB(b16, s.b.data(), n1, k, cvtF16);
  } else {
    packA(a16, s.a.data(), mpad, k, k1, cvtBf16);
    packB(b16, s.b.data(), n1, k, cvtBf16);
  }

  // The accumulator is L0C itself for fp32 results, else an fp32 copy of it.
  const size_t c_elems = size_t(n1) * mpad * 16;
  float* acc = reinterpret_cast<float*>(c);
  if (out == DType::F16) {
    grow(s.c, c_elems);
    acc = s.c.data();
    const uint16_t* c16 = reinterpret_cast<const uint16_t*>(c);
    for (size_t i = 0; i < c_elems; ++i) acc[i] = init ? 0.0f : f16ToF32(c16[i]);
  }
#ifdef VINCI_HAVE_X86_DISPATCH
  if (fast && avx512) computeAvx512(s.a.data(), s.b.data(), acc, mpad, n1, k, init && out != DType::F16);
  else if (fast) computeAvx2(s.a.data(), s.b.data(), acc, mpad, n1, k, init && out != DType::F16);
  else
#endif
    computePortable(s.a.data(), s.b.data(), acc, mpad, n1, k, init && out != DType::F16);
  // Results as arithmetic stores them: a NaN is the positive quiet NaN
  // (sums of NaNs would otherwise keep the sign their order gives).
  if (out == DType::F16) {
    uint16_t* c16 = reinterpret_cast<uint16_t*>(c);
    for (size_t i = 0; i < c_elems; ++i) c16[i] = f16Result(acc[i]);
  } else if (!fast) {  // the AVX2 kernels store canonical NaNs themselves
    for (size_t i = 0; i < c_elems; ++i)
      if (acc[i] != acc[i]) acc[i] = bitsFloat(0x7FC00000u);
  }
}

}  // namespace vinci::sim::detail
