// The CPU GEMM's block kernel (gemm_cpu.h): one 4×4 register tile, plain C++.
//
// Each of the 16 outputs keeps four partial sums, one per kk mod 4. The lane loop is elementwise, so
// GCC vectorizes the tile without -ffast-math (no reassociation is needed: lane l of output (r, c) is
// its own sum): per 4 values of k, 4 loads of x, 4 of w and 16 vector multiplies and adds, the 16
// accumulators kept in (nearly all of) the 16 SSE registers of the baseline x86-64 build. Every index
// into the accumulators is a constant (the k % 4 tail is zero-padded to a full step), or GCC would keep
// them in memory and lose a third of the speed. Partial sums also make the rounding error grow with
// k/4 instead of k.
//
// Ragged edges (rows or cols not a multiple of 4) go through the same tile on zero-padded copies of
// the last x rows / w rows, so every output is summed in the same order wherever it sits, and odd
// tile shapes, which GCC vectorizes far worse, never run.
#include <algorithm>
#include <cstring>
#include <vector>

#include "cpu/gemm_cpu.h"

namespace fusebench::kernels::cpu {
namespace {

constexpr size_t kTile = 4;   // rows and columns of the register tile
constexpr size_t kLanes = 4;  // partial sums per output

// y[r·ldy + c] for r, c < 4 from rows x[r·ldx, +k) and w[c·ldw, +k).
void tile4x4(const float* x, size_t ldx, const float* w, size_t ldw, float* y, size_t ldy, size_t k) {
  float acc[kTile][kTile][kLanes] = {};
  const size_t k_main = k - k % kLanes;
  for (size_t kk = 0; kk < k_main; kk += kLanes)
    for (size_t r = 0; r < kTile; ++r)
      for (size_t c = 0; c < kTile; ++c)
        for (size_t l = 0; l < kLanes; ++l) acc[r][c][l] += x[r * ldx + kk + l] * w[c * ldw + kk + l];
  if (k_main < k) {
    // The last k % 4 values, zero-padded to a full step: the padding adds 0·0 to the spare lanes.
    float xt[kTile][kLanes] = {};
    float wt[kTile][kLanes] = {};
    for (size_t l = 0; l < k - k_main; ++l)
      for (size_t t = 0; t < kTile; ++t) {
        xt[t][l] = x[t * ldx + k_main + l];
        wt[t][l] = w[t * ldw + k_main + l];
      }
    for (size_t r = 0; r < kTile; ++r)
      for (size_t c = 0; c < kTile; ++c)
        for (size_t l = 0; l < kLanes; ++l) acc[r][c][l] += xt[r][l] * wt[c][l];
  }
  for (size_t r = 0; r < kTile; ++r)
    for (size_t c = 0; c < kTile; ++c) {
      const float* a = acc[r][c];
      y[r * ldy + c] = (a[0] + a[1]) + (a[2] + a[3]);
    }
}

// The first `rows` rows of src (row stride ld) into a zeroed kTile×k buffer.
void pad_rows(const float* src, size_t ld, size_t rows, size_t k, std::vector<float>& buf) {
  buf.assign(kTile * k, 0.0f);
  for (size_t r = 0; r < rows; ++r) std::memcpy(buf.data() + r * k, src + r * ld, k * sizeof(float));
}

}  // namespace

void gemm_block(const float* x, size_t ldx, const float* w, size_t ldw, float* y, size_t ldy, size_t rows,
                size_t cols, size_t k) {
  const size_t cols_main = cols - cols % kTile;
  // Allocated only for ragged blocks: at most once per call, against the 4·cols·k multiply-adds of a
  // call (the drivers pass whole stripes; the flash attention's key blocks are ragged only at seq's end).
  std::vector<float> w_edge;  // the last cols % 4 rows of w, zero-padded to a full tile
  std::vector<float> x_edge;  // the last rows % 4 rows of x, likewise
  if (cols_main < cols) pad_rows(w + cols_main * ldw, ldw, cols - cols_main, k, w_edge);
  for (size_t i0 = 0; i0 < rows; i0 += kTile) {
    const size_t ri = std::min(kTile, rows - i0);
    const float* xs = x + i0 * ldx;
    size_t ldxs = ldx;
    if (ri < kTile) {
      pad_rows(xs, ldx, ri, k, x_edge);
      xs = x_edge.data();
      ldxs = k;
    }
    float* ys = y + i0 * ldy;
    float out[kTile * kTile];
    for (size_t j0 = 0; j0 < cols_main; j0 += kTile) {
      if (ri == kTile) {
        tile4x4(xs, ldxs, w + j0 * ldw, ldw, ys + j0, ldy, k);
      } else {
        tile4x4(xs, ldxs, w + j0 * ldw, ldw, out, kTile, k);
        for (size_t r = 0; r < ri; ++r) std::memcpy(ys + r * ldy + j0, out + r * kTile, kTile * sizeof(float));
      }
    }
    if (cols_main < cols) {
      tile4x4(xs, ldxs, w_edge.data(), k, out, kTile, k);
      for (size_t r = 0; r < ri; ++r)
        std::memcpy(ys + r * ldy + cols_main, out + r * kTile, (cols - cols_main) * sizeof(float));
    }
  }
}

}  // namespace fusebench::kernels::cpu
