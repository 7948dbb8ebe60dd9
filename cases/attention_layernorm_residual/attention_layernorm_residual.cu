// CUDA y = LayerNorm(x + merge_heads(O)). Unfused: the unfused attention building block, the merge-heads
// copy, the add and LayerNorm kernels. Fused in fp32: the flash kernel with its LayerNorm ending
// (kernels/cuda/flash_attention.cuh): the last head to finish a row tile adds x and normalizes the rows.
// Fused in bf16/fp16: the fastest tensor-core flash kernel the device has (cuda::launch_flash_attention:
// the sm_90 kernel on Hopper, else mma.sync) writes merged-heads rows, the residual LayerNorm row kernel
// reads them with x and writes y (h = x + merged is not stored).
#include <type_traits>

#include "attention_layernorm_residual.h"
#include "cuda/building_blocks.h"
#include "cuda/flash_attention.cuh"
#include "cuda/flash_attention_sm90.cuh"
#include "cuda/norm_rows.cuh"

namespace fusebench::kernels {

template <class T>
void attention_layernorm_residual_unfused_cuda(const AttentionLayerNormArgs<T>& a, const LaunchContext& ctx) {
  cuda::attention_unfused(a, ctx);
  cuda::merge_heads(a.o, a.merged, a.batch, a.seq, a.heads, ctx);
  const size_t c = a.heads * kHeadDim, rows = a.batch * a.seq;
  cuda::add(a.x, a.merged, a.h, rows * c, ctx);
  cuda::layernorm(a.h, a.gamma, a.beta, a.y, rows, c, a.eps, ctx);
}

template <class T>
void attention_layernorm_residual_fused_cuda(const AttentionLayerNormArgs<T>& a, const LaunchContext& ctx) {
  if constexpr (std::is_same_v<T, float>) {
    cuda::FlashArgs f = cuda::contiguous_flash_args(a);
    f.x = a.x;
    f.gamma = a.gamma;
    f.beta = a.beta;
    f.y = a.y;
    f.counters = a.counters;
    f.eps = a.eps;
    cuda::launch_flash<true>(f, ctx, "flash_attention_layernorm");
  } else {
    const int c = static_cast<int>(a.heads * kHeadDim);
    report_kernel(ctx, cuda::launch_flash_attention<cuda::CudaHalf<T>, kHeadDim>(
                           cuda::merged_flash_mma_args(a.q, a.k, a.v, a.merged, a.batch, a.heads, a.seq), ctx,
                           "flash_attention (merged heads)"));
    // h = x + merged is stored only where the row is too long for registers (past 16,384 halves: 256
    // heads) and the streaming kernel reads it back; the traffic model counts the register case.
    T* h = cuda::row_in_registers<T>(static_cast<size_t>(c)) ? nullptr : a.h;
    cuda::launch_norm_rows<cuda::Norm::Layer, true>(
        cuda::NormRows<T>{a.x, a.merged, h, a.gamma, a.beta, a.y, a.batch * a.seq, c, a.eps}, ctx);
  }
}

FB_CUDA_VARIANTS(AttentionLayerNormArgs, attention_layernorm_residual_unfused_cuda,
                 attention_layernorm_residual_fused_cuda)

}  // namespace fusebench::kernels
