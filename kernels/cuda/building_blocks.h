// The framework-quality elementwise and row kernels that the GEMM and attention cases' unfused
// twins launch between their library GEMMs: the same vectorized kernels the memory-bound cases
// measure, exposed for reuse.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::cuda {

// out[r, c] = x[r, c] + b[c] (bias_gelu.cu).
void bias_add(const float* x, const float* b, float* out, size_t rows, size_t cols, const LaunchContext& ctx);
// out = gelu(x), tanh form (bias_gelu.cu).
void gelu(const float* x, float* out, size_t n, const LaunchContext& ctx);
// out = x + r (bias_gelu.cu).
void add(const float* x, const float* r, float* out, size_t n, const LaunchContext& ctx);
// y = LayerNorm(x)·γ + β per row of [rows, hidden] (residual_layernorm.cu).
void layernorm(const float* x, const float* gamma, const float* beta, float* y, size_t rows, size_t hidden, float eps,
               const LaunchContext& ctx);
// Copies a [batch, seq, heads·64] slice (row stride `ld`, starting at column `col0`) into [batch, heads, seq, 64]
// (split_heads), or [batch, heads, seq, 64] into [batch, seq, heads·64] (merge_heads) (attention.cu).
void split_heads(const float* src, size_t ld, size_t col0, float* dst, size_t batch, size_t seq, size_t heads,
                 const LaunchContext& ctx);
void merge_heads(const float* src, float* dst, size_t batch, size_t seq, size_t heads, const LaunchContext& ctx);

}  // namespace fusebench::cuda
