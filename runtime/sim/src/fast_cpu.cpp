// fast::available(), fast::avx512(): whether the host runs the instructions
// fast.cpp and fast_avx3.cpp were compiled for. Built for the baseline ISA,
// like everything but those two.
#include "fast.h"

#include <atomic>

#if defined(VINCI_SIM_FAST) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define VINCI_SIM_FAST_X86 1
#endif

namespace vinci::sim::detail::fast {
namespace {

#ifdef VINCI_SIM_FAST_X86
// Highway's AVX2 target: AVX2, BMI1/2, LZCNT, FMA, F16C, POPCNT, PCLMUL and
// AES in the CPU, and the YMM state enabled by the OS (XGETBV).
bool detect() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const bool leaf1 = (c & (1u << 1)) && (c & (1u << 12)) && (c & (1u << 23)) && (c & (1u << 25)) &&
                     (c & (1u << 27)) && (c & (1u << 28)) && (c & (1u << 29));  // pclmul fma popcnt aes osxsave avx f16c
  if (!leaf1) return false;
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0x6u) != 0x6u) return false;
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid_count(7, 0, a, b, c, d);
  if (!((b & (1u << 3)) && (b & (1u << 5)) && (b & (1u << 8)))) return false;  // bmi1 avx2 bmi2
  if (!__get_cpuid(0x80000001, &a, &b, &c, &d)) return false;
  return c & (1u << 5);  // lzcnt
}
// Highway's AVX3 target: AVX-512 F, DQ, BW and VL, and the opmask, ZMM_Hi256
// and Hi16_ZMM state enabled by the OS.
bool detectAvx512() {
  if (!detect()) return false;
  unsigned a, b, c, d;
  __cpuid_count(7, 0, a, b, c, d);
  const bool f = b & (1u << 16), dq = b & (1u << 17), bw = b & (1u << 30), vl = b & (1u << 31);
  if (!(f && dq && bw && vl)) return false;
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  return (xcr0_lo & 0xE6u) == 0xE6u;
}
#else
bool detect() { return false; }
bool detectAvx512() { return false; }
#endif

std::atomic<bool> avx512_allowed{true};

}  // namespace

bool available() {
  static const bool has = detect();
  return has;
}

bool avx512() {
  static const bool has = detectAvx512();
  return has && avx512_allowed.load(std::memory_order_relaxed);
}

void allowAvx512(bool allowed) { avx512_allowed = allowed; }

}  // namespace vinci::sim::detail::fast
