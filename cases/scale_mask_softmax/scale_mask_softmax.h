// Scale + causal mask + softmax over attention scores: P = softmax(scale·S + mask) along the last
// axis of [batch, heads, seq_q, seq_k]. Key j is masked (−inf) for query i when
// j > i + (seq_k − seq_q): the queries are the last seq_q positions of the seq_k keys. A row with
// every key masked (possible when seq_q > seq_k) is defined as all zeros, never NaN.
// Unfused: a scale kernel, a mask kernel and a softmax kernel, with both intermediates in memory.
// Fused: one pass.
#pragma once
#include <cstddef>

#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::kernels {

template <class T>
struct ScaleMaskSoftmaxArgs {
  const T* s;  // [batch, heads, seq_q, seq_k] scores
  T* scaled;  // unfused intermediate: scale·S
  T* masked;  // unfused intermediate: scale·S + mask
  T* p;  // probabilities
  size_t batch, heads, seq_q, seq_k;
  float scale;
  size_t rows() const { return batch * heads * seq_q; }
};

FB_FUSED_PAIR_DECL(scale_mask_softmax, ScaleMaskSoftmaxArgs)

}  // namespace fusebench::kernels
