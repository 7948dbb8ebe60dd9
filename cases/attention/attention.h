// Causal self-attention, O = softmax(Q·Kᵀ/√d + causal mask)·V, Q, K, V, O [batch, heads, seq, d] with
// d = 64 in every precision (T = float, bf16, fp16) and d = 128 in bf16/fp16. Unfused: the unfused
// attention building block (a batched cuBLAS GEMM writes the scores, the scale, mask and softmax kernels
// write scaled, masked and p, a batched GEMM writes O; tensor-core GEMMs in the half types). Fused: one
// flash-style kernel, the fp32 SIMT kernel (kernels/cuda/flash_attention.cuh) or, in bf16/fp16, the
// fastest tensor-core kernel the device has (cuda::launch_flash_attention: the wgmma/TMA kernel of
// kernels/cuda/flash_attention_sm90.cuh on Hopper, else the mma.sync kernel of flash_attention_mma.cuh).
#pragma once
#include <cstddef>

#include "common/attention_tensors.h"
#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::kernels {

template <class T>
struct AttentionArgs : AttentionTensorsOf<T> {
  size_t d;  // the head dimension: 64, or 128 in bf16/fp16 (limits of the case)
};

FB_FUSED_PAIR_DECL(attention, AttentionArgs)

}  // namespace fusebench::kernels
