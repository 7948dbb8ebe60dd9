// The kernels of ours that both unfused decode twins launch (gpt2_decode_unfused.cu,
// llama_decode_unfused.cu): the embedding row copy, and the split-KV attention over the cache with its
// per-head combine. The attention takes grouped-query attention: query head h reads K/V head h / group
// (group = 1 in GPT-2).
#pragma once
#include "cuda/launch_pdl.cuh"
#include "gpt2_decode.h"
#include "gpt2_decode_device.cuh"

namespace fusebench::kernels::gpt2 {

constexpr int kAttentionThreads = 256;

// dst[0 .. n) = src[0 .. n): one embedding row (the gather of nn.Embedding at one index).
template <class T>
__global__ void copy_row_kernel(const T* src, T* dst, int n) {
  cuda::pdl_begin();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) dst[i] = src[i];
}

// One block per (chunk, query head h): the chunk's partial attention of h's query (row h of `qs`, 64
// wide) over the cache rows of K/V head h / group; cache rows are `stride` elements apart.
template <class T>
__global__ void __launch_bounds__(kAttentionThreads) attention_chunk_kernel(const T* qs, const T* kc, const T* vc,
                                                                            size_t stride, unsigned group, size_t keys,
                                                                            size_t chunk, float* parts) {
  __shared__ __align__(16) float q[64];
  __shared__ float s[kMaxChunk];
  __shared__ __align__(16) float opart[kAttentionThreads / 8 * 64];
  __shared__ float red[32];
  cuda::pdl_begin();
  const size_t h = blockIdx.y, kvh = blockIdx.y / group, k0 = blockIdx.x * chunk,
               k1 = k0 + chunk < keys ? k0 + chunk : keys;
  if (threadIdx.x < 64) q[threadIdx.x] = to_float(qs[h * 64 + threadIdx.x]) * kScoreScale;
  __syncthreads();
  attend_chunk(q, kc + kvh * 64, vc + kvh * 64, stride, k0, k1, s, opart, red,
               parts + (h * gridDim.x + blockIdx.x) * kPartFloats);
}

// One block of 64 threads per head: the head's output from its chunks.
template <class T>
__global__ void attention_combine_kernel(const float* parts, size_t splits, T* att) {
  cuda::pdl_begin();
  const size_t h = blockIdx.x;
  att[h * 64 + threadIdx.x] = from_float<T>(combine_head(parts + h * splits * kPartFloats, splits, threadIdx.x));
}

}  // namespace fusebench::kernels::gpt2
