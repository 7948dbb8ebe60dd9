// The operands of causal self-attention as the unfused twins run it, O = softmax(Q·Kᵀ/√64 + mask)·V
// with Q, K, V, O [batch, heads, seq, 64] and the seq×seq scores materialized in scratch. Shared by
// the CPU and CUDA building blocks (cpu::attention_unfused, cuda::attention_unfused) and the cases
// built on them.
#pragma once
#include <cstddef>

namespace fusebench::kernels {

// T: the element type (float, bf16, fp16; kernels/common/dtype.h) of every tensor.
template <class T>
struct AttentionTensorsOf {
  const T* q;  // [batch, heads, seq, 64]
  const T* k;
  const T* v;
  T* o;       // [batch, heads, seq, 64]
  T* scores;  // [batch, heads, seq, seq] scratch: Q·Kᵀ
  T* scaled;  // scratch: scores·1/√64
  T* masked;  // scratch: scaled with −∞ after each query's position
  T* p;       // scratch: probabilities
  size_t batch, heads, seq;
};

using AttentionTensors = AttentionTensorsOf<float>;

}  // namespace fusebench::kernels
