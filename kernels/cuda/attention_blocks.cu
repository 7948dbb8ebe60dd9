// The attention building blocks of the unfused twins (building_blocks.h): the head split/merge copies
// an eager framework makes around the attention, and the unfused attention itself (batched cuBLAS
// GEMMs around the scale, mask and softmax kernels).
#include <stdexcept>

#include "common/constants.h"
#include "cuda/building_blocks.h"
#include "cuda/cublas_ops.h"
#include "cuda/elementwise.cuh"

namespace fusebench::cuda {
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
    const size_t rows = (b * seq + s) * ld + col0 + h * kHeadDim + d4 * 4;
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
  if (!aligned16({src, dst}) || ld % 4 != 0 || col0 % 4 != 0)
    throw std::invalid_argument("heads copy: operands must be 16-byte aligned");
  const size_t total4 = batch * heads * seq * (kHeadDim / 4);
  constexpr auto kernel = heads_copy_kernel<kMerge>;
  const unsigned grid = grid_for<kernel>(256, total4, ctx);
  kernel<<<grid, 256, 0, static_cast<cudaStream_t>(ctx.stream)>>>(src, dst, ld, col0, seq, heads, total4);
  FB_CUDA_CHECK_LAUNCH(kMerge ? "merge_heads" : "split_heads");
}

}  // namespace

void split_heads(const float* src, size_t ld, size_t col0, float* dst, size_t batch, size_t seq, size_t heads,
                 const LaunchContext& ctx) {
  heads_copy<false>(src, dst, ld, col0, batch, seq, heads, ctx);
}

void merge_heads(const float* src, float* dst, size_t batch, size_t seq, size_t heads, const LaunchContext& ctx) {
  heads_copy<true>(src, dst, heads * kHeadDim, 0, batch, seq, heads, ctx);
}

template <class T>
void attention_unfused(const kernels::AttentionTensorsOf<T>& a, const LaunchContext& ctx) {
  const size_t bh = a.batch * a.heads, rows = bh * a.seq;
  cublas_gemm_batched(a.q, a.k, a.scores, bh, a.seq, a.seq, kHeadDim, true, ctx);
  scale(a.scores, a.scaled, rows * a.seq, static_cast<float>(kAttentionScale), ctx);
  causal_mask(a.scaled, a.masked, rows, a.seq, a.seq, ctx);
  softmax(a.masked, a.p, rows, a.seq, a.seq, ctx);
  cublas_gemm_batched(a.p, a.v, a.o, bh, a.seq, kHeadDim, a.seq, false, ctx);
}

#define FB_INSTANTIATE(T) template void attention_unfused<T>(const kernels::AttentionTensorsOf<T>&, const LaunchContext&);
FB_FOR_EACH_DTYPE(FB_INSTANTIATE)
#undef FB_INSTANTIATE

}  // namespace fusebench::cuda
