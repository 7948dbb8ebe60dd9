// GPT-2's attention companion y = LayerNorm(x + merge_heads(O)), O the causal self-attention of
// Q, K, V [batch, heads, seq, 64] (merge_heads puts head h's 64 values of a position at columns h·64..
// of a [batch, seq, heads·64] row), in every precision (T = float, bf16, fp16). Unfused: the unfused
// attention, a merge-heads copy, the residual add and the LayerNorm kernel. Fused in fp32: the flash
// kernel computes every head of its rows and applies the residual and LayerNorm before writing y
// (kernels/cuda/flash_attention.cuh). Fused in bf16/fp16: the tensor-core flash kernel writes its
// output straight into merged-heads rows (no [batch, heads, seq, 64] o, no copy), then the fused
// residual-add + LayerNorm row kernel (norm_rows.cuh, without storing x + merged) writes y.
#pragma once
#include <cstddef>

#include "common/attention_tensors.h"
#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::kernels {

// x, y [batch, seq, heads·64]; gamma, beta [heads·64]. The attention part's o is unfused scratch here.
template <class T>
struct AttentionLayerNormArgs : AttentionTensorsOf<T> {
  size_t d;            // the head dimension: 64 (a limit of the case)
  const T* x;          // the residual stream
  const T* gamma;
  const T* beta;
  T* y;
  T* merged;           // [batch, seq, heads·64] scratch: merge_heads(O) (unfused; the half fused kernels' too)
  T* h;                // [batch, seq, heads·64] unfused scratch: x + merged
  unsigned* counters;  // [batch·ceil(seq/64)] fp32 fused scratch: the row tiles' finished-head counters
  float eps;
};

FB_FUSED_PAIR_DECL(attention_layernorm_residual, AttentionLayerNormArgs)

}  // namespace fusebench::kernels
