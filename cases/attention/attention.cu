// CUDA causal attention. Unfused: the unfused attention building block (batched cuBLAS GEMMs around the
// scale, mask and softmax kernels). Fused: the flash kernel of kernels/cuda/flash_attention.cuh.
#include "attention.h"
#include "cuda/building_blocks.h"
#include "cuda/flash_attention.cuh"

namespace fusebench::kernels {

void attention_unfused_cuda(const AttentionArgs& a, const LaunchContext& ctx) { cuda::attention_unfused(a, ctx); }

void attention_fused_cuda(const AttentionArgs& a, const LaunchContext& ctx) {
  cuda::launch_flash<false>(cuda::contiguous_flash_args(a), ctx, "flash_attention");
}

}  // namespace fusebench::kernels
