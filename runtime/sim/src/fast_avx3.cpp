// The elementwise loops of fast_elementwise.h built for Highway's AVX3
// (AVX-512: F, VL, DQ, BW) target, 16 fp32 lanes a vector; entered through
// fast::f16 / fast::f32 only when fast::avx512() says the host has it.
#include "fast_elementwise.h"

#if HWY_STATIC_TARGET != HWY_AVX3
#error "fast_avx3.cpp must be compiled for Highway's AVX3 target (see runtime/sim/CMakeLists.txt)"
#endif

namespace vinci::sim::detail::fast::avx3 {

void f16(Op op, uint16_t* d, const uint16_t* a, const uint16_t* b, float s, const Runs& runs) {
  using namespace fast::HWY_NAMESPACE;
  elementwiseRuns<F16Elements>(op, d, a, b, s, runs);
}

void f32(Op op, float* d, const float* a, const float* b, float s, const Runs& runs) {
  using namespace fast::HWY_NAMESPACE;
  elementwiseRuns<F32Elements>(op, d, a, b, s, runs);
}

}  // namespace vinci::sim::detail::fast::avx3
