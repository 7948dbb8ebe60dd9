// The framework-quality kernels that the unfused twins launch one op at a time, as an eager framework
// does: the same vectorized elementwise, row and softmax kernels the memory-bound cases measure, the
// head split/merge copies, and the unfused attention (batched cuBLAS GEMMs around the softmax kernels).
// The cases build their twins from these; none of them belongs to a case.
#pragma once
#include <cstddef>

#include "common/attention_tensors.h"
#include "common/constants.h"
#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::cuda {

// The elementwise, norm and softmax blocks exist in every precision (T = float, bf16, fp16: stored in
// T, computed in float; instantiated in their .cu files).

// --- elementwise_blocks.cu -----------------------------------------------------------------------
// out[r, c] = x[r, c] + b[c] over [rows, cols], cols < 2^31.
template <class T>
void bias_add(const T* x, const T* b, T* out, size_t rows, size_t cols, const LaunchContext& ctx);
// out = gelu(x), tanh form.
template <class T>
void gelu(const T* x, T* out, size_t n, const LaunchContext& ctx);
// out = x + r.
template <class T>
void add(const T* x, const T* r, T* out, size_t n, const LaunchContext& ctx);
// out = x·s.
template <class T>
void scale(const T* x, T* out, size_t n, float s, const LaunchContext& ctx);
// out[i] = silu(gate_up[i])·gate_up[n + i], silu(g) = g / (1 + e^−g): SwiGLU over the [gate | up] halves of
// gate_up, n·sizeof(T) a multiple of 16 (the up half starts on a 16-byte pack).
template <class T>
void swiglu(const T* gate_up, T* out, size_t n, const LaunchContext& ctx);

// --- norm_blocks.cu ------------------------------------------------------------------------------
// y = LayerNorm(x)·γ + β per row of [rows, hidden], hidden <= 2^30.
template <class T>
void layernorm(const T* x, const T* gamma, const T* beta, T* y, size_t rows, size_t hidden, float eps,
               const LaunchContext& ctx);
// y = x / √(mean(x²) + ε)·γ per row of [rows, hidden], hidden <= 2^30.
template <class T>
void rmsnorm(const T* x, const T* gamma, T* y, size_t rows, size_t hidden, float eps, const LaunchContext& ctx);

// --- softmax_blocks.cu ---------------------------------------------------------------------------
// out = in with −∞ at the masked keys of each row of [rows, seq_k] (rows = batch·heads·seq_q).
template <class T>
void causal_mask(const T* in, T* out, size_t rows, size_t seq_q, size_t seq_k, const LaunchContext& ctx);
// p = softmax(in) per row of [rows, seq_k], in already scaled and masked; an all-masked row gives zeros.
template <class T>
void softmax(const T* in, T* p, size_t rows, size_t seq_q, size_t seq_k, const LaunchContext& ctx);

// --- attention_blocks.cu -------------------------------------------------------------------------
// Copies a [batch, seq, heads·64] slice (row stride `ld`, starting at column `col0`) into
// [batch, heads, seq, 64] (split_heads), or [batch, heads, seq, 64] into [batch, seq, heads·64] (merge_heads);
// ld and col0 in elements, multiples of one 16-byte pack.
template <class T>
void split_heads(const T* src, size_t ld, size_t col0, T* dst, size_t batch, size_t seq, size_t heads,
                 const LaunchContext& ctx);
template <class T>
void merge_heads(const T* src, T* dst, size_t batch, size_t seq, size_t heads, const LaunchContext& ctx);
// The unfused causal attention: batched cuBLAS GEMM → scores, scale (1/√d), mask, softmax, batched GEMM → O,
// every intermediate stored in T (float, or bf16/fp16 with tensor-core GEMMs accumulating in fp32); d is
// the head dimension of Q, K, V, O [batch, heads, seq, d].
template <class T>
void attention_unfused(const kernels::AttentionTensorsOf<T>& a, const LaunchContext& ctx, size_t d = kHeadDim);

}  // namespace fusebench::cuda
