// Helpers for the simulator tests.
#ifndef VINCI_TEST_SIM_UTIL_H
#define VINCI_TEST_SIM_UTIL_H

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "vinci/sim/assembler.h"
#include "vinci/sim/executor.h"
#include "vinci/sim/numeric.h"
#include "vinci/soc.h"

namespace vinci::sim::test {

inline const soc::SocSpec& soc310() { return *soc::findSoc("Ascend310P3"); }

struct RunResult {
  bool ok = false;
  std::string error;
  KernelProfile profile;
};

// Decodes and runs `bytes` on the given GM buffers (all writable).
inline RunResult run(const std::vector<uint8_t>& bytes, std::vector<std::vector<uint8_t>*> gm,
                     uint32_t block_dim = 1, RunOptions opt = {}, const soc::SocSpec* soc = nullptr) {
  const soc::SocSpec& s = soc ? *soc : soc310();
  RunResult r;
  Program p;
  if (!decodeProgram(bytes.data(), bytes.size(), s, uint32_t(gm.size()), p, r.error)) return r;
  std::vector<GmRegion> args;
  for (auto* v : gm) args.push_back(GmRegion{v->data(), v->size(), true});
  r.ok = runKernel(p, block_dim, args, s, opt, r.profile, r.error);
  return r;
}

inline RunOptions fatal() {
  RunOptions o;
  o.hazards_fatal = true;
  return o;
}

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <typename T>
std::vector<T> valuesOf(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace vinci::sim::test

#endif  // VINCI_TEST_SIM_UTIL_H
