// Hand-assembled kernels shared by the simulator tests and the matmul
// benchmark: a tiled, double-buffered fp16 matmul and a row softmax.
#ifndef VINCI_TEST_SIM_KERNELS_H
#define VINCI_TEST_SIM_KERNELS_H

#include <cstdint>
#include <string>
#include <vector>

#include "vinci/sim/assembler.h"

namespace vinci::sim::kernels {

// C (M x N, fp16, row-major) = A (M x K, fp16) x B (K x N, fp16), fp32 accumulation.
// GM args: 0 = A, 1 = B, 2 = C. Blocks form a grid_rows x grid_cols grid; block
// (bi, bj) computes the Mb x Nb block of C, Mb = M / grid_rows, Nb = N / grid_cols,
// in row tiles of tile_m rows, k steps of tile_k. Its B panel (K x Nb) stays in
// L1; its A panels (tile_m x K) and its L0A/L0B/L0C/UB buffers are double
// buffered, the pipes synchronised by set_flag/wait_flag.
struct MatmulConfig {
  uint32_t m = 256, n = 256, k = 256;
  uint32_t grid_rows = 2, grid_cols = 2;
  uint32_t tile_m = 64, tile_k = 64;
  // Test hook: leave out the wait_flag(M -> V) that orders the L0C read-out
  // after the Cube's last mmad of a tile.
  bool drop_wait_m_to_v = false;
};

inline uint32_t roundUp(uint32_t v, uint32_t to) { return (v + to - 1) / to * to; }

// Returns false with a message if the configuration does not fit the SoC buffers.
inline bool buildMatmul(const MatmulConfig& c, const soc::SocSpec& soc, std::vector<uint8_t>& out,
                        std::string& error) {
  using soc::Space;
  const uint32_t mb = c.m / c.grid_rows, nb = c.n / c.grid_cols;
  if (c.m % c.grid_rows || c.n % c.grid_cols || mb % c.tile_m || c.k % c.tile_k ||
      (c.k / c.tile_k > 1 && c.tile_k % 16)) {
    error = "shape does not tile evenly";
    return false;
  }
  const uint32_t tmp = roundUp(c.tile_m, 16), nbp = roundUp(nb, 16), kp = roundUp(c.k, 16);
  const uint32_t tkp = roundUp(c.tile_k, 16);
  const uint32_t tiles_m = mb / c.tile_m, ksteps = c.k / c.tile_k;
  const uint32_t m1 = tmp / 16, n1 = nbp / 16, k1 = tkp / 16;
  const uint32_t buffers = tiles_m % 2 == 0 ? 2 : 1;

  // On-chip layout.
  const uint64_t b_panel = uint64_t(kp) * nbp * 2;           // L1: B panel, NZ [n1][kp][16]
  const uint64_t a_panel = uint64_t(roundUp(c.k, 16)) * tmp * 2;  // L1: A panel, NZ [k/16][tmp][16]
  const uint64_t l0a = uint64_t(tmp) * tkp * 2, l0b = uint64_t(tkp) * nbp * 2;
  const uint64_t l0c = uint64_t(tmp) * nbp * 4, ub = uint64_t(tmp) * nbp * 2;
  auto al = [](uint64_t v, uint64_t a) { return (v + a - 1) / a * a; };
  if (b_panel + buffers * al(a_panel, 512) > soc.bufferBytes(Space::L1) || 2 * al(l0a, 512) > soc.bufferBytes(Space::L0A) ||
      2 * al(l0b, 512) > soc.bufferBytes(Space::L0B) || buffers * l0c > soc.bufferBytes(Space::L0C) ||
      buffers * ub > soc.bufferBytes(Space::UB)) {
    error = "tiles do not fit the on-chip buffers";
    return false;
  }
  const int64_t l1_a[2] = {int64_t(al(b_panel, 512)), int64_t(al(b_panel, 512) + al(a_panel, 512))};
  const int64_t l0a_at[2] = {0, int64_t(al(l0a, 512))}, l0b_at[2] = {0, int64_t(al(l0b, 512))};
  const int64_t l0c_at[2] = {0, int64_t(l0c)}, ub_at[2] = {0, int64_t(ub)};

  ProgramBuilder b;
  const int32_t a_row_bytes = int32_t(c.k) * 2, c_row_bytes = int32_t(c.n) * 2;
  Addr a_gm = Addr::gm(0).blockGrid(uint16_t(c.grid_cols), 0, int32_t(mb) * a_row_bytes);
  Addr b_gm = Addr::gm(1).blockGrid(uint16_t(c.grid_cols), int32_t(nb) * 2, 0);
  Addr c_gm = Addr::gm(2).blockGrid(uint16_t(c.grid_cols), int32_t(nb) * 2, int32_t(mb) * c_row_bytes);

  // B panel once; then prime every "buffer free" flag.
  b.copyNd2Nz(Addr::l1(0), b_gm, DType::F16, c.k, nb, c.n, kp, nbp);
  b.setFlag(Pipe::MTE2, Pipe::MTE1, 2);
  b.waitFlag(Pipe::MTE2, Pipe::MTE1, 2);
  for (uint8_t x = 0; x < 2; ++x) b.setFlag(Pipe::M, Pipe::MTE1, x);
  for (uint8_t y = 0; y < buffers; ++y) {
    b.setFlag(Pipe::MTE1, Pipe::MTE2, y);
    b.setFlag(Pipe::V, Pipe::M, y);
    b.setFlag(Pipe::MTE3, Pipe::V, y);
  }

  const unsigned tile_loop = b.loopBegin(tiles_m / buffers);
  for (uint8_t y = 0; y < buffers; ++y) {
    // Row tile index = tile_loop_iv * buffers + y.
    const int64_t tile_row0 = int64_t(y) * c.tile_m;
    const int32_t tile_step = int32_t(buffers * c.tile_m);
    b.waitFlag(Pipe::MTE1, Pipe::MTE2, y);
    b.copyNd2Nz(Addr::l1(l1_a[y]), a_gm.plus(tile_row0 * a_row_bytes).iv(tile_loop, tile_step * a_row_bytes),
                DType::F16, c.tile_m, c.k, c.k, tmp, roundUp(c.k, 16));
    b.setFlag(Pipe::MTE2, Pipe::MTE1, y);
    b.waitFlag(Pipe::MTE2, Pipe::MTE1, y);
    b.waitFlag(Pipe::V, Pipe::M, y);

    // One k step: L1 -> L0A/L0B buffer x, then mmad into L0C[y].
    auto kstep = [&](uint8_t x, int64_t step0, int loop, int32_t loop_steps, bool init) {
      b.waitFlag(Pipe::M, Pipe::MTE1, x);
      // A: L0A fractal (mb, kb) <- L1 fractal ((s*k1 + kb) * m1 + mb).
      Addr a_src = Addr::l1(l1_a[y] + step0 * k1 * m1 * 512);
      if (loop >= 0) a_src.iv(unsigned(loop), loop_steps * int32_t(k1 * m1 * 512));
      b.loadFractals(Addr::l0a(l0a_at[x]), a_src, DType::F16, m1, k1, 1, m1, k1, 1, false);
      // B: L0B fractal (kb, nb) <- L1 fractal (nb * kp/16 + s*k1 + kb), transposed.
      Addr b_src = Addr::l1(step0 * k1 * 512);
      if (loop >= 0) b_src.iv(unsigned(loop), loop_steps * int32_t(k1 * 512));
      b.loadFractals(Addr::l0b(l0b_at[x]), b_src, DType::F16, k1, n1, 1, kp / 16, n1, 1, true);
      b.setFlag(Pipe::MTE1, Pipe::M, x);
      b.waitFlag(Pipe::MTE1, Pipe::M, x);
      b.mmad(Addr::l0c(l0c_at[y]), Addr::l0a(l0a_at[x]), Addr::l0b(l0b_at[x]), DType::F16, DType::F32,
             c.tile_m, nb, c.tile_k, init);
      b.setFlag(Pipe::M, Pipe::MTE1, x);
    };
    kstep(0, 0, -1, 0, true);
    const uint32_t rest = ksteps - 1;
    if (rest / 2) {
      const unsigned kl = b.loopBegin(rest / 2);
      kstep(1, 1, int(kl), 2, false);
      kstep(0, 2, int(kl), 2, false);
      b.loopEnd();
    }
    if (rest % 2) kstep(1, int64_t(ksteps) - 1, -1, 0, false);
    b.setFlag(Pipe::MTE1, Pipe::MTE2, y);  // A panel y free

    // L0C[y] -> UB[y] (fp32 -> fp16, NZ kept) -> GM C.
    b.setFlag(Pipe::M, Pipe::V, y);
    if (!c.drop_wait_m_to_v) b.waitFlag(Pipe::M, Pipe::V, y);
    b.waitFlag(Pipe::MTE3, Pipe::V, y);
    b.moveL0cToUb(Addr::ub(ub_at[y]), Addr::l0c(l0c_at[y]), DType::F32, DType::F16,
                  Burst{1, tmp * nbp, 0, 0}, false);
    b.setFlag(Pipe::V, Pipe::M, y);
    b.setFlag(Pipe::V, Pipe::MTE3, y);
    b.waitFlag(Pipe::V, Pipe::MTE3, y);
    b.copyNz2Nd(c_gm.plus(tile_row0 * c_row_bytes).iv(tile_loop, tile_step * c_row_bytes), Addr::ub(ub_at[y]),
                DType::F16, c.tile_m, nb, c.n, tmp);
    b.setFlag(Pipe::MTE3, Pipe::V, y);
  }
  b.loopEnd();

  // Drain the primed flags so every set has its wait.
  for (uint8_t x = 0; x < 2; ++x) b.waitFlag(Pipe::M, Pipe::MTE1, x);
  for (uint8_t y = 0; y < buffers; ++y) {
    b.waitFlag(Pipe::MTE1, Pipe::MTE2, y);
    b.waitFlag(Pipe::V, Pipe::M, y);
    b.waitFlag(Pipe::MTE3, Pipe::V, y);
  }
  out = b.finish();
  error = b.error();
  return error.empty();
}

// Row softmax over fp32 rows of exactly 64 elements (one repeat each):
// y = exp(x - max(x)) / sum(exp(x - max(x))). GM args: 0 = X, 1 = Y (rows x 64).
// Each block takes rows_per_block rows in chunks of `chunk` rows (<= 255).
inline std::vector<uint8_t> buildSoftmax64(uint32_t rows_per_block, uint32_t chunk) {
  ProgramBuilder b;
  const int64_t X = 0, MX = 65536, BM = 66560, S = 131840, BS = BM, Y = 132864;
  const int32_t chunk_bytes = int32_t(chunk) * 256;
  const VecParams rows = VecParams::dense(DType::F32, chunk);
  VecParams reduce_rows = rows;  // one result per repeat (row)
  b.setFlag(Pipe::V, Pipe::MTE2, 0);
  b.setFlag(Pipe::MTE3, Pipe::V, 0);
  const unsigned i = b.loopBegin(rows_per_block / chunk);
  Addr x_gm = Addr::gm(0).block(int32_t(rows_per_block) * 256).iv(i, chunk_bytes);
  Addr y_gm = Addr::gm(1).block(int32_t(rows_per_block) * 256).iv(i, chunk_bytes);
  b.waitFlag(Pipe::V, Pipe::MTE2, 0);
  b.copy(Addr::ub(X), x_gm, Burst::contiguous(uint32_t(chunk_bytes)));
  b.setFlag(Pipe::MTE2, Pipe::V, 0);
  b.waitFlag(Pipe::MTE2, Pipe::V, 0);
  b.waitFlag(Pipe::MTE3, Pipe::V, 0);
  b.vreduce(Opcode::VCMax, DType::F32, Addr::ub(MX), Addr::ub(X), reduce_rows, false);
  b.vunary(Opcode::VBrcb, DType::F32, Addr::ub(BM), Addr::ub(MX), rows);
  b.vbinary(Opcode::VSub, DType::F32, Addr::ub(X), Addr::ub(X), Addr::ub(BM), rows);
  b.vunary(Opcode::VExp, DType::F32, Addr::ub(X), Addr::ub(X), rows);
  b.vreduce(Opcode::VCAdd, DType::F32, Addr::ub(S), Addr::ub(X), reduce_rows, false);
  b.vunary(Opcode::VBrcb, DType::F32, Addr::ub(BS), Addr::ub(S), rows);
  b.vbinary(Opcode::VDiv, DType::F32, Addr::ub(Y), Addr::ub(X), Addr::ub(BS), rows);
  b.setFlag(Pipe::V, Pipe::MTE2, 0);
  b.setFlag(Pipe::V, Pipe::MTE3, 0);
  b.waitFlag(Pipe::V, Pipe::MTE3, 0);
  b.copy(y_gm, Addr::ub(Y), Burst::contiguous(uint32_t(chunk_bytes)));
  b.setFlag(Pipe::MTE3, Pipe::V, 0);
  b.loopEnd();
  b.waitFlag(Pipe::V, Pipe::MTE2, 0);
  b.waitFlag(Pipe::MTE3, Pipe::V, 0);
  return b.finish();
}

}  // namespace vinci::sim::kernels

#endif  // VINCI_TEST_SIM_KERNELS_H
