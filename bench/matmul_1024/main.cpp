// Benchmark: a hand-assembled 1024 x 1024 x 1024 fp16 matmul kernel (fp32
// accumulation, fp16 result) on the simulated Ascend 310P3. Prints one JSON
// object: the timing model's figures (Cube utilisation, simulated cycles) and
// the host wall time of the simulation. A benchmark, not a test.
//
//   vinci-bench-matmul [--threads N] [--runs N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels.h"
#include "vinci/sim/executor.h"
#include "vinci/sim/numeric.h"
#include "vinci/soc.h"

using namespace vinci;

int main(int argc, char** argv) {
  unsigned threads = 0, runs = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) threads = unsigned(std::stoul(argv[++i]));
    else if (a == "--runs" && i + 1 < argc) runs = std::max(1u, unsigned(std::stoul(argv[++i])));
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--runs N]\n", argv[0]);
      return 2;
    }
  }
  const soc::SocSpec& soc = soc::defaultSoc();
  sim::kernels::MatmulConfig cfg;
  cfg.m = cfg.n = cfg.k = 1024;
  cfg.grid_rows = 2;  // 8 blocks: each a 512 x 256 block of C
  cfg.grid_cols = 4;
  cfg.tile_m = 128;
  cfg.tile_k = 64;
  std::vector<uint8_t> bytes;
  std::string error;
  if (!sim::kernels::buildMatmul(cfg, soc, bytes, error)) {
    std::fprintf(stderr, "build: %s\n", error.c_str());
    return 1;
  }
  sim::Program program;
  if (!sim::decodeProgram(bytes.data(), bytes.size(), soc, 3, program, error)) {
    std::fprintf(stderr, "decode: %s\n", error.c_str());
    return 1;
  }

  const size_t n = 1024;
  std::vector<uint16_t> a(n * n), b(n * n), c(n * n);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (auto& x : a) x = sim::f32ToF16(d(rng));
  for (auto& x : b) x = sim::f32ToF16(d(rng));
  std::vector<sim::GmRegion> args = {
      {reinterpret_cast<uint8_t*>(a.data()), a.size() * 2, false},
      {reinterpret_cast<uint8_t*>(b.data()), b.size() * 2, false},
      {reinterpret_cast<uint8_t*>(c.data()), c.size() * 2, true}};
  sim::RunOptions opt;
  opt.threads = threads;
  opt.hazards_fatal = true;

  sim::KernelProfile prof;
  std::vector<double> walls;
  for (unsigned r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    if (!sim::runKernel(program, cfg.grid_rows * cfg.grid_cols, args, soc, opt, prof, error)) {
      std::fprintf(stderr, "run: %s\n", error.c_str());
      return 1;
    }
    walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(walls.begin(), walls.end());

  // Spot-check 256 elements against a double-precision reference.
  double worst = 0;
  for (int s = 0; s < 256; ++s) {
    const size_t i = rng() % n, j = rng() % n;
    double ref = 0;
    for (size_t k = 0; k < n; ++k) ref += double(sim::f16ToF32(a[i * n + k])) * sim::f16ToF32(b[k * n + j]);
    const double err = std::fabs(sim::f16ToF32(c[i * n + j]) - ref) / (std::fabs(ref) * std::ldexp(1.0, -11) + 1e-3);
    worst = std::max(worst, err);
  }

  const double cycles = double(prof.cycles);
  const double cube_busy = double(prof.pipe_busy[unsigned(sim::Pipe::M)]);
  const double ideal = double(n) * n * n / soc.cubeMacsPerCyclePerCore(soc::CubeInput::F16) / soc.ai_core_count;
  std::printf("{\n");
  std::printf("  \"note\": \"simulated figures model an %s AI Core from published numbers (timing table in docs/isa.md), not a hardware measurement\",\n", soc.name);
  std::printf("  \"soc\": \"%s\",\n  \"shape\": [1024, 1024, 1024],\n  \"dtype\": \"fp16 x fp16 -> fp32 accumulate -> fp16\",\n", soc.name);
  std::printf("  \"block_dim\": %u,\n  \"cores_used\": %u,\n", prof.block_dim, prof.cores_used);
  std::printf("  \"simulated_cycles\": %llu,\n", static_cast<unsigned long long>(prof.cycles));
  std::printf("  \"simulated_us\": %.3f,\n", cycles / soc.clock_hz * 1e6);
  std::printf("  \"simulated_us_ideal_l2\": %.3f,\n", double(prof.cycles_ideal_l2) / soc.clock_hz * 1e6);
  std::printf("  \"simulated_us_bounds\": [%.3f, %.3f],\n", double(prof.cycles_low) / soc.clock_hz * 1e6,
              double(prof.cycles_high) / soc.clock_hz * 1e6);
  std::printf("  \"ideal_cube_cycles\": %.0f,\n", ideal);
  std::printf("  \"cube_utilisation\": %.4f,\n", cube_busy / (cycles * prof.cores_used));
  std::printf("  \"cube_utilisation_of_chip_peak\": %.4f,\n", ideal / cycles);
  std::printf("  \"pipe_busy_fraction\": {");
  for (unsigned p = 0; p < sim::kNumPipes; ++p)
    std::printf("%s\"%s\": %.4f", p ? ", " : "", sim::pipeName(sim::Pipe(p)),
                double(prof.pipe_busy[p]) / (cycles * prof.cores_used));
  std::printf("},\n");
  std::printf("  \"gm_bytes_read\": %llu,\n  \"gm_bytes_written\": %llu,\n",
              static_cast<unsigned long long>(prof.gm_bytes_read), static_cast<unsigned long long>(prof.gm_bytes_written));
  std::printf("  \"gm_bound_cycles\": %.0f,\n",
              double(prof.gm_bytes_read + prof.gm_bytes_written) / (soc.gm_bytes_per_second / soc.clock_hz));
  // The same bound at the sustained rate the timing table gives 8 cores.
  std::printf("  \"gm_sustained_bound_cycles\": %.0f,\n",
              double(prof.gm_bytes_read + prof.gm_bytes_written) /
                  std::min(soc.timing.gm_core_bytes_per_cycle.value * prof.cores_used,
                           soc.timing.gm_sustained_efficiency.value * soc.gm_bytes_per_second / soc.clock_hz));
  std::printf("  \"instructions_executed\": %llu,\n", static_cast<unsigned long long>(prof.instructions_executed));
  std::printf("  \"hazards\": %zu,\n", prof.hazards.size());
  std::printf("  \"max_error_in_half_ulps\": %.3f,\n", worst);
  std::printf("  \"host_threads\": %u,\n", threads);
  std::printf("  \"host_wall_seconds\": %.6f,\n", walls.front());
  std::printf("  \"host_wall_seconds_median\": %.6f\n", walls[walls.size() / 2]);
  std::printf("}\n");
  return worst <= 1.0 && prof.hazards.empty() ? 0 : 1;
}
