// Causal self-attention, O = softmax(Q·Kᵀ/√d + causal mask)·V, and its GPT-2 companion
// y = LayerNorm(x + merge_heads(O)). Q, K, V, O are [batch, heads, seq, d] with d = 64.
// Unfused attention: a batched cuBLAS GEMM writes the scores, the scale, mask and softmax kernels
// (the unfused scale_mask_softmax twin) write scaled, masked and p, a batched GEMM writes O. Fused:
// one flash-style kernel (kernels/cuda/flash_attention.cuh). attention_layernorm_residual adds,
// unfused, a merge-heads copy, the add and the LayerNorm kernels; fused, the flash kernel computes
// every head of its rows and applies the residual and LayerNorm before writing y.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

constexpr size_t kAttentionHeadDim = 64;

// Shapes are validated in TypeScript: batch, heads, seq > 0, d == 64, heads·seq·seq < 2^31 per batch.
struct AttentionArgs {
  const float* q;  // [batch, heads, seq, 64]
  const float* k;
  const float* v;
  float* o;        // [batch, heads, seq, 64]
  float* scores;   // [batch, heads, seq, seq] unfused scratch
  float* scaled;   // unfused scratch
  float* masked;   // unfused scratch
  float* p;        // unfused scratch: probabilities
  size_t batch, heads, seq;
};

// x, y [batch, seq, heads·64]; gamma, beta [heads·64]. The attention part uses `att` (its o is
// unfused scratch here).
struct AttentionLayerNormArgs {
  AttentionArgs att;
  const float* x;      // the residual stream
  const float* gamma;
  const float* beta;
  float* y;
  float* merged;       // [batch, seq, heads·64] unfused scratch: merge_heads(O)
  float* h;            // [batch, seq, heads·64] unfused scratch: x + merged
  float* counters;     // [batch·ceil(seq/64)] fused scratch, used as unsigned tile counters
  float eps;
};

void attention_unfused_cpu(const AttentionArgs& a);
void attention_fused_cpu(const AttentionArgs& a);
void attention_layernorm_residual_unfused_cpu(const AttentionLayerNormArgs& a);
void attention_layernorm_residual_fused_cpu(const AttentionLayerNormArgs& a);

#ifdef FUSEBENCH_WITH_CUDA
void attention_unfused_cuda(const AttentionArgs& a, const LaunchContext& ctx);
void attention_fused_cuda(const AttentionArgs& a, const LaunchContext& ctx);
void attention_layernorm_residual_unfused_cuda(const AttentionLayerNormArgs& a, const LaunchContext& ctx);
void attention_layernorm_residual_fused_cuda(const AttentionLayerNormArgs& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
