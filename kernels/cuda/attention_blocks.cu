// The attention building blocks of the unfused twins (building_blocks.h): the head split/merge copies
// an eager framework makes around the attention, and the unfused attention itself (batched cuBLAS
// GEMMs around the scale, mask and softmax kernels).
#include <cmath>
#include <stdexcept>

#include "common/constants.h"
#include "cuda/building_blocks.h"
#include "cuda/cublas_ops.h"
#include "cuda/elementwise.cuh"
#include "cuda/pack.cuh"

namespace fusebench::cuda {
namespace {

// dst[b, h, s, :] = src[(b·seq + s)·ld + col0 + h·64 + :] (kMerge: the other way round, ld = heads·64,
// col0 = 0). One thread per 16-byte pack (4 floats or 8 halves; a head row of 64 is P packs).
template <bool kMerge, class T>
__global__ void heads_copy_kernel(const T* __restrict__ src, T* __restrict__ dst, size_t ld, size_t col0, size_t seq,
                                  size_t heads, size_t packs) {
  constexpr size_t N = Pack<T>::N, P = kHeadDim / N;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < packs;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t dp = i % P, s = (i / P) % seq, h = (i / (P * seq)) % heads, b = i / (P * seq * heads);
    const size_t split = i * N;  // [b, h, s, d]
    const size_t rows = (b * seq + s) * ld + col0 + h * kHeadDim + dp * N;
    const T* from = src + (kMerge ? split : rows);
    T* to = dst + (kMerge ? rows : split);
    store_pack(to, 0, load_pack(from, 0));
  }
}

template <bool kMerge, class T>
void heads_copy(const T* src, T* dst, size_t ld, size_t col0, size_t batch, size_t seq, size_t heads,
                const LaunchContext& ctx) {
  constexpr size_t N = Pack<T>::N;
  if (!aligned16({src, dst}) || ld % N != 0 || col0 % N != 0)
    throw std::invalid_argument("heads copy: operands must be 16-byte aligned");
  const size_t packs = batch * heads * seq * (kHeadDim / N);
  constexpr auto kernel = heads_copy_kernel<kMerge, T>;
  const unsigned grid = grid_for<kernel>(256, packs, ctx);
  kernel<<<grid, 256, 0, static_cast<cudaStream_t>(ctx.stream)>>>(src, dst, ld, col0, seq, heads, packs);
  FB_CUDA_CHECK_LAUNCH(kMerge ? "merge_heads" : "split_heads");
}

}  // namespace

template <class T>
void split_heads(const T* src, size_t ld, size_t col0, T* dst, size_t batch, size_t seq, size_t heads,
                 const LaunchContext& ctx) {
  heads_copy<false>(src, dst, ld, col0, batch, seq, heads, ctx);
}

template <class T>
void merge_heads(const T* src, T* dst, size_t batch, size_t seq, size_t heads, const LaunchContext& ctx) {
  heads_copy<true>(src, dst, heads * kHeadDim, 0, batch, seq, heads, ctx);
}

template <class T>
void attention_unfused(const kernels::AttentionTensorsOf<T>& a, const LaunchContext& ctx, size_t d) {
  const size_t bh = a.batch * a.heads, rows = bh * a.seq;
  const float scale_d = d == kHeadDim ? static_cast<float>(kAttentionScale)
                                      : static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  cublas_gemm_batched(a.q, a.k, a.scores, bh, a.seq, a.seq, d, true, ctx);
  scale(a.scores, a.scaled, rows * a.seq, scale_d, ctx);
  causal_mask(a.scaled, a.masked, rows, a.seq, a.seq, ctx);
  softmax(a.masked, a.p, rows, a.seq, a.seq, ctx);
  cublas_gemm_batched(a.p, a.v, a.o, bh, a.seq, d, a.seq, false, ctx);
}

#define FB_INSTANTIATE(T)                                                                                   \
  template void split_heads<T>(const T*, size_t, size_t, T*, size_t, size_t, size_t, const LaunchContext&); \
  template void merge_heads<T>(const T*, T*, size_t, size_t, size_t, const LaunchContext&);                 \
  template void attention_unfused<T>(const kernels::AttentionTensorsOf<T>&, const LaunchContext&, size_t);
FB_FOR_EACH_DTYPE(FB_INSTANTIATE)
#undef FB_INSTANTIATE

}  // namespace fusebench::cuda
