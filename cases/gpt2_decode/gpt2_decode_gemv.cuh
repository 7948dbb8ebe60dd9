// The fused GPT-2 decode kernel's GEMV and staging pieces (gpt2_decode_fused.cu): a warp's share of a
// GEMV as (row, 256-column) items with the first batch of weights loaded ahead (across a barrier), and
// the copies of a vector or a LayerNorm's γ/β into shared memory with every load issued before its use.
#pragma once
#include <cuda_runtime.h>

#include "gpt2_decode_device.cuh"

namespace fusebench::kernels::gpt2 {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
// Weight packs a lane holds across a barrier: 128 B of each type (8 of bf16/fp16, 4 of fp32).
template <class T>
constexpr int kPreload = sizeof(T) == 4 ? 4 : 8;

// A warp's share of a GEMV y = W·x (W [rows, k] row-major): the items [i0, i1), item = (row, 256-column
// segment), rows·segs items in all. Row-owned stages give each warp whole rows; split stages cut the
// items evenly and add partial sums.
struct Items {
  size_t i0, i1;
  int segs;
};
__device__ __forceinline__ Items row_items(size_t rows, int k, size_t warp, size_t warps) {
  const int segs = (k + kSeg - 1) / kSeg;
  return {rows * warp / warps * segs, rows * (warp + 1) / warps * segs, segs};
}
__device__ __forceinline__ Items split_items(size_t rows, int k, size_t warp, size_t warps) {
  const int segs = (k + kSeg - 1) / kSeg;
  const size_t n = rows * segs;
  return {n * warp / warps, n * (warp + 1) / warps, segs};
}

// Issues the loads of up to kPreload<T> items from `base` into registers.
template <class T>
__device__ __forceinline__ void load_items(Pack<T> (&buf)[kPreload<T>], const T* w, int k, const Items& it, size_t base) {
  const int lane = threadIdx.x & 31;
  size_t row = base / it.segs;
  int seg = static_cast<int>(base % it.segs);
#pragma unroll
  for (int u = 0; u < kPreload<T>; ++u) {
    const int col = seg * kSeg + lane * kPack;
    if (base + u < it.i1 && col < k) buf[u] = load_pack(w + row * k + col);
    if (++seg == it.segs) seg = 0, ++row;
  }
}

// Lane j's value is bias[first row of the items + j] (0 past 32 rows or without a bias): loaded with the
// weights before a barrier's wait, so the epilogue does not wait on a load.
template <class T>
__device__ __forceinline__ float load_bias(const T* bias, const Items& it) {
  const size_t row0 = it.i0 / it.segs, rows = (it.i1 + it.segs - 1) / it.segs - row0;
  const unsigned lane = threadIdx.x & 31;
  return bias != nullptr && lane < rows ? to_float(bias[row0 + lane]) : 0.f;
}

// Runs the items (the first kPreload<T> already loaded into buf), calling out(row, Σ + bias) in lane 0
// whenever a row's run of items ends; the bias is added by the run that holds the row's column 0.
template <class T, class Out>
__device__ __forceinline__ void gemv(Pack<T> (&buf)[kPreload<T>], const T* w, int k, const Items& it, const float* xs,
                                     const T* bias, float bias_lane, Out out) {
  const int lane = threadIdx.x & 31;
  const size_t row0 = it.i0 / it.segs;
  float acc = 0.f;
  bool first = false;
  for (size_t base = it.i0; base < it.i1; base += kPreload<T>) {
    if (base != it.i0) load_items(buf, w, k, it, base);
    size_t row = base / it.segs;
    int seg = static_cast<int>(base % it.segs);
#pragma unroll
    for (int u = 0; u < kPreload<T>; ++u) {
      if (base + u < it.i1) {  // uniform over the warp
        const int col = seg * kSeg + lane * kPack;
        if (col < k) acc += dot_pack(buf[u], xs + col);
        first |= seg == 0;
        if (seg == it.segs - 1 || base + u + 1 == it.i1) {
          acc = warp_sum(acc);
          const size_t r = row - row0;
          const float b = __shfl_sync(0xFFFFFFFFu, bias_lane, static_cast<int>(r & 31));
          if (lane == 0) out(row, acc + (!first || bias == nullptr ? 0.f : r < 32 ? b : to_float(bias[row])));
          acc = 0.f;
          first = false;
        }
      }
      if (++seg == it.segs) seg = 0, ++row;
    }
  }
}


// xs[0 .. n) ← v[0 .. n), n a multiple of 4 (written by other blocks: through L2). All of a thread's loads
// are issued before its stores, so staging costs one memory round trip, not one per element. N: the threads
// that share the copy (the first N of the block).
template <int N = kThreads>
__device__ __forceinline__ void stage_vector(float* xs, const float* v, int n) {
  constexpr int kPer = 4;
  const int n4 = n / 4;
  for (int base = 0; base < n4; base += kPer * N) {
    float4 r[kPer];
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int i = base + u * N + threadIdx.x;
      if (i < n4) r[u] = __ldcg(reinterpret_cast<const float4*>(v) + i);
    }
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int i = base + u * N + threadIdx.x;
      if (i < n4) reinterpret_cast<float4*>(xs)[i] = r[u];
    }
  }
}
// xs[0 .. n) ← Σ_k v[k·n .. k·n + n) over kCopies copies of a vector that other blocks add into (through
// L2), n a multiple of 4: every load of a thread in flight before its first sum, one round trip while
// n ≤ 4·N (GPT-2 small: 768 ≤ 1024). Past that, ptxas issues the next pass's loads before the first pass's
// store in llama_decode's bf16 kernel (2,048 on sm_90a: 16 loads in a row; docs/llama-decode-tries.md,
// "Tried, and what was kept").
template <int N, int kCopies>
__device__ __forceinline__ void stage_vector_sum(float* xs, const float* v, int n) {
  if constexpr (kCopies == 1) {
    stage_vector<N>(xs, v, n);
  } else {
    const int n4 = n / 4;
    for (int i = threadIdx.x; i < n4; i += N) {
      float4 r[kCopies];
#pragma unroll
      for (int k = 0; k < kCopies; ++k) r[k] = __ldcg(reinterpret_cast<const float4*>(v + size_t(k) * n) + i);
      float4 sum = r[0];
#pragma unroll
      for (int k = 1; k < kCopies; ++k) sum.x += r[k].x, sum.y += r[k].y, sum.z += r[k].z, sum.w += r[k].w;
      reinterpret_cast<float4*>(xs)[i] = sum;
    }
  }
}
// A LayerNorm's γ and β into shared memory as floats, n a multiple of 8 (before a barrier's wait: they do
// not depend on it). N as stage_vector's.
template <class T, int N = kThreads>
__device__ __forceinline__ void stage_norm(float* g, float* b, const T* gamma, const T* beta, int n) {
  for (int i = threadIdx.x * kPack; i < n; i += N * kPack) {
    const Pack<T> pg = load_pack(gamma + i), pb = load_pack(beta + i);
    float fg[kPack], fb[kPack];
    unpack(pg, fg);
    unpack(pb, fb);
#pragma unroll
    for (int j = 0; j < kPack; ++j) g[i + j] = fg[j], b[i + j] = fb[j];
  }
}

}  // namespace fusebench::kernels::gpt2
