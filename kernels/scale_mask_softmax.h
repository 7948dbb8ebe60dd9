// Scale + causal mask + softmax over attention scores: P = softmax(scale·S + mask) along the last
// axis of [batch, heads, seq_q, seq_k]. Key j is masked (−inf) for query i when
// j > i + (seq_k − seq_q): the queries are the last seq_q positions of the seq_k keys. A row with
// every key masked (possible when seq_q > seq_k) is defined as all zeros, never NaN.
// Unfused: a scale kernel, a mask kernel and a softmax kernel, with both intermediates in memory.
// Fused: one pass.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

// The operands of one call. Shapes are validated in TypeScript: every dim > 0, seq_q and seq_k <= 2^30.
struct ScaleMaskSoftmaxArgs {
  const float* s;  // [rows, seq_k] scores, rows = batch·heads·seq_q
  float* scaled;   // [rows, seq_k] unfused intermediate: scale·S
  float* masked;   // [rows, seq_k] unfused intermediate: scale·S + mask
  float* p;        // [rows, seq_k] probabilities
  size_t rows;
  size_t seq_q;
  size_t seq_k;
  float scale;
};

void scale_mask_softmax_unfused_cpu(const ScaleMaskSoftmaxArgs& a);
void scale_mask_softmax_fused_cpu(const ScaleMaskSoftmaxArgs& a);

#ifdef FUSEBENCH_WITH_CUDA
void scale_mask_softmax_unfused_cuda(const ScaleMaskSoftmaxArgs& a, const LaunchContext& ctx);
void scale_mask_softmax_fused_cuda(const ScaleMaskSoftmaxArgs& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
