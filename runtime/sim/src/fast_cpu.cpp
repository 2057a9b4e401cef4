// fast::available(): whether the host runs the instructions fast.cpp was
// compiled for. Built for the baseline ISA, like everything but fast.cpp.
#include "fast.h"

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
#else
bool detect() { return false; }
#endif

}  // namespace

bool available() {
  static const bool has = detect();
  return has;
}

}  // namespace vinci::sim::detail::fast
