// GPT-2's attention companion y = LayerNorm(x + merge_heads(O)), O the causal self-attention of
// Q, K, V [batch, heads, seq, 64] (merge_heads puts head h's 64 values of a position at columns h·64..
// of a [batch, seq, heads·64] row). Unfused: the unfused attention, a merge-heads copy, the residual
// add and the LayerNorm kernel. Fused: the flash kernel computes every head of its rows and applies the
// residual and LayerNorm before writing y (kernels/cuda/flash_attention.cuh).
#pragma once
#include <cstddef>

#include "common/attention_tensors.h"
#include "common/launch.h"

namespace fusebench::kernels {

// x, y [batch, seq, heads·64]; gamma, beta [heads·64]. The attention part's o is unfused scratch here.
struct AttentionLayerNormArgs : AttentionTensors {
  size_t d;            // the head dimension: 64 (a limit of the case)
  const float* x;      // the residual stream
  const float* gamma;
  const float* beta;
  float* y;
  float* merged;       // [batch, seq, heads·64] unfused scratch: merge_heads(O)
  float* h;            // [batch, seq, heads·64] unfused scratch: x + merged
  unsigned* counters;  // [batch·ceil(seq/64)] fused scratch: the row tiles' finished-head counters
  float eps;
};

void attention_layernorm_residual_unfused_cpu(const AttentionLayerNormArgs& a);
void attention_layernorm_residual_fused_cpu(const AttentionLayerNormArgs& a);

#ifdef FUSEBENCH_WITH_CUDA
void attention_layernorm_residual_unfused_cuda(const AttentionLayerNormArgs& a, const LaunchContext& ctx);
void attention_layernorm_residual_fused_cuda(const AttentionLayerNormArgs& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
