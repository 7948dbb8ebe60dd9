// CUDA y = LayerNorm(x + merge_heads(O)). Unfused: the unfused attention building block, the merge-heads
// copy, the add and LayerNorm kernels. Fused: the flash kernel with its LayerNorm ending
// (kernels/cuda/flash_attention.cuh): the last head to finish a row tile adds x and normalizes the rows.
#include "attention_layernorm_residual.h"
#include "cuda/building_blocks.h"
#include "cuda/flash_attention.cuh"

namespace fusebench::kernels {

void attention_layernorm_residual_unfused_cuda(const AttentionLayerNormArgs& a, const LaunchContext& ctx) {
  cuda::attention_unfused(a, ctx);
  cuda::merge_heads(a.o, a.merged, a.batch, a.seq, a.heads, ctx);
  const size_t c = a.heads * kHeadDim, rows = a.batch * a.seq;
  cuda::add(a.x, a.merged, a.h, rows * c, ctx);
  cuda::layernorm(a.h, a.gamma, a.beta, a.y, rows, c, a.eps, ctx);
}

void attention_layernorm_residual_fused_cuda(const AttentionLayerNormArgs& a, const LaunchContext& ctx) {
  cuda::FlashArgs f = cuda::contiguous_flash_args(a);
  f.x = a.x;
  f.gamma = a.gamma;
  f.beta = a.beta;
  f.y = a.y;
  f.counters = a.counters;
  f.eps = a.eps;
  cuda::launch_flash<true>(f, ctx, "flash_attention_layernorm");
}

}  // namespace fusebench::kernels
