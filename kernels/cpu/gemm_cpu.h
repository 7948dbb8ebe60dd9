// The CPU backend's GEMM, y[m, n] = x[m, k]·w[n, k]ᵀ with both operands row-major and k contiguous
// (PyTorch's Linear layout, and Q·Kᵀ for attention scores), so every output is the dot product of two
// contiguous rows. Single-threaded and plain C++: a 4×4 register tile with four partial sums per
// output (gemm_cpu.cc says how it vectorizes without -ffast-math), columns blocked so a panel of w
// rows stays in L2 while every 4-row stripe of x streams past it.
//
// The fused variants' epilogues run per output row segment right after the GEMM has written it, while
// the segment is still in L1: epi(row, col0, values, count) may rewrite values[0, count), the outputs
// y[row, col0 + j]. The unfused variants pass NoEpilogue and run the same ops as separate passes
// (row_ops.h) with the same float expressions, so both variants round identically where they can.
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

#include "common/gelu.h"
#include "cpu/row_ops.h"

namespace fusebench::kernels::cpu {

// Raw dot products of one block: y[r·ldy + c] = Σ_kk x[r·ldx + kk]·w[c·ldw + kk] for r < rows,
// c < cols. Every output sums its k products in the same order whatever its place in the block (four
// partial sums over kk mod 4, then (s0 + s1) + (s2 + s3)), so a block and a full GEMM agree exactly.
// Fastest when rows and cols are multiples of 4; any positive sizes and any k work.
void gemm_block(const float* x, size_t ldx, const float* w, size_t ldw, float* y, size_t ldy, size_t rows,
                size_t cols, size_t k);

// Rows of x per call of gemm_block: one register tile high, so the stripe of x stays in L1.
constexpr size_t kGemmStripeRows = 4;

// Columns per panel: the panel's w rows take about 512 KiB, well inside L2 (2 MiB on the machines
// this was tuned on), a multiple of the 4-wide tile.
inline size_t gemm_panel_cols(size_t k) {
  const size_t target_floats = size_t{1} << 17;
  const size_t cols = std::max<size_t>(4, target_floats / k);
  return cols - cols % 4;
}

template <typename Epilogue>
void gemm(const float* x, const float* w, float* y, size_t m, size_t n, size_t k, const Epilogue& epi) {
  const size_t panel = gemm_panel_cols(k);
  for (size_t j0 = 0; j0 < n; j0 += panel) {
    const size_t nb = std::min(panel, n - j0);
    for (size_t i0 = 0; i0 < m; i0 += kGemmStripeRows) {
      const size_t mb = std::min(kGemmStripeRows, m - i0);
      float* out = y + i0 * n + j0;
      gemm_block(x + i0 * k, k, w + j0 * k, k, out, n, mb, nb, k);
      for (size_t r = 0; r < mb; ++r) epi(i0 + r, j0, out + r * n, nb);
    }
  }
}

// Rows of x normalized per block by gemm_layernorm: about 256 KiB of normalized rows, a multiple of
// the stripe height, at least one stripe.
inline size_t layernorm_block_rows(size_t k) {
  const size_t target_floats = size_t{1} << 16;
  const size_t rows = std::max<size_t>(kGemmStripeRows, target_floats / k);
  return rows - rows % kGemmStripeRows;
}

// y = LayerNorm(x)·wᵀ with the epilogue, LayerNorm over the k features of each row (γ, β, eps). The
// CPU fusion is "normalize a block of rows, then multiply it while it is hot": each block of rows is
// normalized into a local buffer that stays in L2, and its output rows are computed from there, so the
// normalized x never goes to memory. (The GPU instead folds the LayerNorm algebra into the GEMM,
// layernorm_linear.h.) The normalized rows are bit-identical to layernorm_pass's, so this equals
// layernorm_pass followed by gemm exactly.
template <typename Epilogue>
void gemm_layernorm(const float* x, const float* gamma, const float* beta, float eps, const float* w, float* y,
                    size_t m, size_t n, size_t k, const Epilogue& epi) {
  const size_t block = std::min(layernorm_block_rows(k), m);
  std::vector<float> xn(block * k);
  for (size_t i0 = 0; i0 < m; i0 += block) {
    const size_t mb = std::min(block, m - i0);
    layernorm_pass(x + i0 * k, gamma, beta, xn.data(), mb, k, eps);
    auto shifted = [&epi, i0](size_t row, size_t col0, float* v, size_t count) { epi(i0 + row, col0, v, count); };
    gemm(xn.data(), w, y + i0 * n, mb, n, k, shifted);
  }
}

// --- Epilogues ----------------------------------------------------------------------------------

struct NoEpilogue {
  void operator()(size_t, size_t, float*, size_t) const {}
};

// v + b: bias_pass's expression.
struct BiasEpilogue {
  const float* b;
  void operator()(size_t, size_t col0, float* v, size_t count) const {
    for (size_t j = 0; j < count; ++j) v[j] = v[j] + b[col0 + j];
  }
};

// gelu(v + b): bias_pass then gelu_pass.
struct BiasGeluEpilogue {
  const float* b;
  void operator()(size_t, size_t col0, float* v, size_t count) const {
    for (size_t j = 0; j < count; ++j) v[j] = gelu_tanh(v[j] + b[col0 + j]);
  }
};

// r + (v + b), r the residual stream [m, ld]: bias_pass then add_pass(r, ·).
struct BiasResidualEpilogue {
  const float* b;
  const float* r;
  size_t ld;
  void operator()(size_t row, size_t col0, float* v, size_t count) const {
    const float* res = r + row * ld + col0;
    for (size_t j = 0; j < count; ++j) v[j] = res[j] + (v[j] + b[col0 + j]);
  }
};

}  // namespace fusebench::kernels::cpu
