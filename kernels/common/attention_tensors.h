// The operands of causal self-attention as the unfused twins run it, O = softmax(Q·Kᵀ/√64 + mask)·V
// with Q, K, V, O [batch, heads, seq, 64] and the seq×seq scores materialized in scratch. Shared by
// the CPU and CUDA building blocks (cpu::attention_unfused, cuda::attention_unfused) and the cases
// built on them.
#pragma once
#include <cstddef>

namespace fusebench::kernels {

struct AttentionTensors {
  const float* q;  // [batch, heads, seq, 64]
  const float* k;
  const float* v;
  float* o;       // [batch, heads, seq, 64]
  float* scores;  // [batch, heads, seq, seq] scratch: Q·Kᵀ
  float* scaled;  // scratch: scores·1/√64
  float* masked;  // scratch: scaled with −∞ after each query's position
  float* p;       // scratch: probabilities
  size_t batch, heads, seq;
};

}  // namespace fusebench::kernels
