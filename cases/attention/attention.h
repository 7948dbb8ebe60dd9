// Causal self-attention, O = softmax(Q·Kᵀ/√d + causal mask)·V, Q, K, V, O [batch, heads, seq, d] with
// d = 64. Unfused: the unfused attention building block (a batched cuBLAS GEMM writes the scores, the
// scale, mask and softmax kernels write scaled, masked and p, a batched GEMM writes O). Fused: one
// flash-style kernel (kernels/cuda/flash_attention.cuh).
#pragma once
#include <cstddef>

#include "common/attention_tensors.h"
#include "common/launch.h"

namespace fusebench::kernels {

struct AttentionArgs : AttentionTensors {
  size_t d;  // the head dimension: 64 (a limit of the case)
};

void attention_unfused_cpu(const AttentionArgs& a);
void attention_fused_cpu(const AttentionArgs& a);

#ifdef FUSEBENCH_WITH_CUDA
void attention_unfused_cuda(const AttentionArgs& a, const LaunchContext& ctx);
void attention_fused_cuda(const AttentionArgs& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
