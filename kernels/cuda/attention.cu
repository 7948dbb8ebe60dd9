// CUDA causal attention and attention + residual + LayerNorm. Unfused: batched cuBLAS GEMMs around
// the unfused scale, mask and softmax kernels (and, for the LayerNorm case, merge-heads copy, add,
// LayerNorm). Fused: the flash kernels of flash_attention.cuh. Also the head split/merge copies.
#include <stdexcept>

#include "attention.h"
#include "cuda/building_blocks.h"
#include "cuda/cublas_ops.h"
#include "cuda/elementwise.cuh"
#include "cuda/flash_attention.cuh"
#include "scale_mask_softmax.h"

namespace fusebench::kernels {
namespace {

// dst[b, h, s, :] = src[(b·seq + s)·ld + col0 + h·64 + :] (kMerge: the other way round, ld = heads·64,
// col0 = 0). One thread per float4.
template <bool kMerge>
__global__ void heads_copy_kernel(const float* __restrict__ src, float* __restrict__ dst, size_t ld, size_t col0,
                                  size_t seq, size_t heads, size_t total4) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < total4;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t d4 = i % 16, s = (i / 16) % seq, h = (i / (16 * seq)) % heads, b = i / (16 * seq * heads);
    const size_t split = i * 4;  // [b, h, s, d]
    const size_t rows = (b * seq + s) * ld + col0 + h * 64 + d4 * 4;
    if constexpr (kMerge) {
      *reinterpret_cast<float4*>(dst + rows) = __ldg(reinterpret_cast<const float4*>(src + split));
    } else {
      *reinterpret_cast<float4*>(dst + split) = __ldg(reinterpret_cast<const float4*>(src + rows));
    }
  }
}

template <bool kMerge>
void heads_copy(const float* src, float* dst, size_t ld, size_t col0, size_t batch, size_t seq, size_t heads,
                const LaunchContext& ctx) {
  if (!cuda::aligned16({src, dst}) || ld % 4 != 0 || col0 % 4 != 0)
    throw std::invalid_argument("heads copy: operands must be 16-byte aligned");
  const size_t total4 = batch * heads * seq * 16;
  constexpr auto kernel = heads_copy_kernel<kMerge>;
  const unsigned grid = cuda::grid_for<kernel>(256, total4, ctx);
  kernel<<<grid, 256, 0, static_cast<cudaStream_t>(ctx.stream)>>>(src, dst, ld, col0, seq, heads, total4);
  FB_CUDA_CHECK_LAUNCH(kMerge ? "merge_heads" : "split_heads");
}

cuda::FlashArgs flash_args(const AttentionArgs& a) {
  const auto sh = static_cast<long long>(a.seq * kAttentionHeadDim), sb = static_cast<long long>(a.heads) * sh;
  cuda::FlashArgs f{};
  f.q = {a.q, sb, sh, 64};
  f.k = {a.k, sb, sh, 64};
  f.v = {a.v, sb, sh, 64};
  f.o = a.o;
  f.osb = sb;
  f.osh = sh;
  f.oss = 64;
  f.batch = static_cast<int>(a.batch);
  f.heads = static_cast<int>(a.heads);
  f.seq = static_cast<int>(a.seq);
  f.scale_log2 = cuda::kFlashScaleLog2;
  return f;
}

}  // namespace

}  // namespace fusebench::kernels

void fusebench::cuda::split_heads(const float* src, size_t ld, size_t col0, float* dst, size_t batch, size_t seq, size_t heads,
                       const LaunchContext& ctx) {
  kernels::heads_copy<false>(src, dst, ld, col0, batch, seq, heads, ctx);
}

void fusebench::cuda::merge_heads(const float* src, float* dst, size_t batch, size_t seq, size_t heads,
                                  const LaunchContext& ctx) {
  kernels::heads_copy<true>(src, dst, heads * 64, 0, batch, seq, heads, ctx);
}

namespace fusebench::kernels {

void attention_unfused_cuda(const AttentionArgs& a, const LaunchContext& ctx) {
  const size_t bh = a.batch * a.heads, d = kAttentionHeadDim;
  cuda::cublas_gemm_batched(a.q, a.k, a.scores, bh, a.seq, a.seq, d, true, ctx);
  ScaleMaskSoftmaxArgs s{a.scores, a.scaled, a.masked, a.p, bh * a.seq, a.seq, a.seq, 0.125f};  // 1/√64
  scale_mask_softmax_unfused_cuda(s, ctx);
  cuda::cublas_gemm_batched(a.p, a.v, a.o, bh, a.seq, d, a.seq, false, ctx);
}

void attention_fused_cuda(const AttentionArgs& a, const LaunchContext& ctx) {
  cuda::launch_flash<false>(flash_args(a), ctx, "flash_attention");
}

void attention_layernorm_residual_unfused_cuda(const AttentionLayerNormArgs& a, const LaunchContext& ctx) {
  attention_unfused_cuda(a.att, ctx);
  cuda::merge_heads(a.att.o, a.merged, a.att.batch, a.att.seq, a.att.heads, ctx);
  const size_t c = a.att.heads * kAttentionHeadDim, rows = a.att.batch * a.att.seq;
  cuda::add(a.x, a.merged, a.h, rows * c, ctx);
  cuda::layernorm(a.h, a.gamma, a.beta, a.y, rows, c, a.eps, ctx);
}

void attention_layernorm_residual_fused_cuda(const AttentionLayerNormArgs& a, const LaunchContext& ctx) {
  cuda::FlashArgs f = flash_args(a.att);
  f.x = a.x;
  f.gamma = a.gamma;
  f.beta = a.beta;
  f.y = a.y;
  f.counters = reinterpret_cast<unsigned*>(a.counters);
  f.eps = a.eps;
  cuda::launch_flash<true>(f, ctx, "flash_attention_layernorm");
}

}  // namespace fusebench::kernels
