// Device pieces the GPT-2 decode kernels run: 8-element weight packs (16 B of bf16/fp16, 32 B of
// fp32), dot products against a float vector in shared memory, reductions over a block (or over the
// consumer warps of a block whose producer warp never joins), the LayerNorm of a vector staged in shared
// memory, and the attention of one query over a chunk of cached keys with its per-head combine (the
// split-KV "flash decoding" scheme).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "common/dtype.h"
#include "gpt2_decode.h"

namespace fusebench::kernels::gpt2 {

constexpr int kPack = 8;           // elements one lane loads at a time
constexpr int kSeg = 32 * kPack;   // elements one warp loads at a time (a GEMV "item")
constexpr float kScoreScale = 0.125f;  // 1/√64

// Eight elements of T as raw words.
template <class T>
struct Pack {
  uint4 v[sizeof(T) == 4 ? 2 : 1];
};

// Eight elements from p. Weights are read-only for the whole kernel: the non-coherent path. kCoherent:
// data other blocks of the same kernel may have written (the cache row pos), through L2 only.
template <class T, bool kCoherent = false>
__device__ __forceinline__ Pack<T> load_pack(const T* p) {
  Pack<T> r;
  const uint4* q = reinterpret_cast<const uint4*>(p);
#pragma unroll
  for (int i = 0; i < static_cast<int>(sizeof(r.v) / sizeof(uint4)); ++i) r.v[i] = kCoherent ? __ldcg(q + i) : __ldg(q + i);
  return r;
}
template <class T>
__device__ __forceinline__ Pack<T> load_pack_cg(const T* p) {
  return load_pack<T, true>(p);
}
// Eight elements from shared memory (16-byte aligned).
template <class T>
__device__ __forceinline__ Pack<T> smem_pack(const T* p) {
  Pack<T> r;
  const uint4* q = reinterpret_cast<const uint4*>(p);
#pragma unroll
  for (int i = 0; i < static_cast<int>(sizeof(r.v) / sizeof(uint4)); ++i) r.v[i] = q[i];
  return r;
}

// The threads that share a block's work and its barriers: the whole block, or its first N threads (a
// kernel whose last warp is a producer that never joins them synchronizes them on named barrier 1).
struct WholeBlock {
  __device__ static void sync() { __syncthreads(); }
  __device__ static int size() { return static_cast<int>(blockDim.x); }
};
template <int N>
struct FirstThreads {
  static_assert(N % 32 == 0, "whole warps");
  __device__ static void sync() { asm volatile("bar.sync 1, %0;\n" ::"n"(N) : "memory"); }
  __device__ static constexpr int size() { return N; }
};

template <class T>
__device__ __forceinline__ void unpack(const Pack<T>& p, float (&f)[kPack]) {
  if constexpr (sizeof(T) == 4) {
    const uint32_t w[8] = {p.v[0].x, p.v[0].y, p.v[0].z, p.v[0].w, p.v[1].x, p.v[1].y, p.v[1].z, p.v[1].w};
#pragma unroll
    for (int i = 0; i < 8; ++i) f[i] = __uint_as_float(w[i]);
  } else {
    const uint32_t w[4] = {p.v[0].x, p.v[0].y, p.v[0].z, p.v[0].w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      f[2 * i] = to_float(T{static_cast<uint16_t>(w[i] & 0xFFFFu)});
      f[2 * i + 1] = to_float(T{static_cast<uint16_t>(w[i] >> 16)});
    }
  }
}

// Σ pack[i]·x[i] over 8 elements, x 16-byte aligned in shared memory.
template <class T>
__device__ __forceinline__ float dot_pack(const Pack<T>& p, const float* x) {
  float w[kPack];
  unpack(p, w);
  const float4 x0 = *reinterpret_cast<const float4*>(x), x1 = *reinterpret_cast<const float4*>(x + 4);
  // Four short chains, then a tree: half the dependent latency of one chain of eight (a warp's share of a
  // GEMV row is a few packs, so latency, not the issue rate, sets its time).
  const float a = fmaf(w[1], x0.y, w[0] * x0.x), b = fmaf(w[3], x0.w, w[2] * x0.z);
  const float c = fmaf(w[5], x1.y, w[4] * x1.x), d = fmaf(w[7], x1.w, w[6] * x1.z);
  return (a + b) + (c + d);
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
  return v;
}
// Sum over the 8 lanes of an aligned group of 8.
__device__ __forceinline__ float group8_sum(float v) {
  v += __shfl_xor_sync(0xFFFFFFFFu, v, 1);
  v += __shfl_xor_sync(0xFFFFFFFFu, v, 2);
  v += __shfl_xor_sync(0xFFFFFFFFu, v, 4);
  return v;
}

// Sum (or max) over the group G (a multiple of 32 threads); every thread of it gets it. `red` holds 32
// floats. Ends with G's barrier, so shared memory written before it is visible after it.
template <bool kMax, class G = WholeBlock>
__device__ __forceinline__ float block_reduce(float v, float* red) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = G::size() >> 5;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const float u = __shfl_xor_sync(0xFFFFFFFFu, v, o);
    v = kMax ? fmaxf(v, u) : v + u;
  }
  G::sync();  // red may still be read from the previous reduction
  if (lane == 0) red[warp] = v;
  G::sync();
  v = lane < warps ? red[lane] : (kMax ? -INFINITY : 0.f);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const float u = __shfl_xor_sync(0xFFFFFFFFu, v, o);
    v = kMax ? fmaxf(v, u) : v + u;
  }
  return v;
}

// Both sums over the group G (a multiple of 32 threads, at most 16 warps); every thread of it gets them.
// `red` holds 32 floats, free when G enters (the caller's barrier) and read by every thread after: the
// caller's next barrier must come before red is written again. One barrier, where block_reduce takes two
// reductions of two barriers each for the same pair.
template <class G>
__device__ __forceinline__ float2 block_sum2(float a, float b, float* red) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = G::size() >> 5;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    a += __shfl_xor_sync(0xFFFFFFFFu, a, o);
    b += __shfl_xor_sync(0xFFFFFFFFu, b, o);
  }
  if (lane == 0) red[2 * warp] = a, red[2 * warp + 1] = b;
  G::sync();
  float sa = 0.f, sb = 0.f;
  for (int w = 0; w < warps; ++w) sa += red[2 * w], sb += red[2 * w + 1];
  return {sa, sb};
}

// xs[0 .. n) ← LayerNorm(xs)·γ + β in place over the group G (xs, γ and β in shared memory, written by
// G's threads before the call). One pass over xs for both moments, shifted by xs[0]: the sums of d = x − x₀
// and d² keep the variance's precision unless |mean − x₀| ≫ σ, which one element of the row does not make.
// xh, when given, gets the result rounded to H as well (the operand of a tensor-core GEMV).
template <class G = WholeBlock, class H = float>
__device__ inline void layernorm_smem(float* xs, const float* gamma, const float* beta, int n, float eps, float* red,
                                      H* xh = nullptr) {
  G::sync();
  const int stride = G::size();
  const float x0 = xs[0];
  float s = 0.f, s2 = 0.f;
  for (int i = threadIdx.x; i < n; i += stride) {
    const float d = xs[i] - x0;
    s += d;
    s2 += d * d;
  }
  const float2 t = block_sum2<G>(s, s2, red);
  const float md = t.x / static_cast<float>(n);
  const float mean = x0 + md, rstd = rsqrtf(fmaxf(t.y / static_cast<float>(n) - md * md, 0.f) + eps);
  for (int i = threadIdx.x; i < n; i += stride) {
    const float v = (xs[i] - mean) * rstd * gamma[i] + beta[i];
    xs[i] = v;
    if (xh != nullptr) xh[i] = from_float<H>(v);
  }
  G::sync();
}

// Attention of one head's query q (64 floats in shared memory, scaled by 1/8) over the cached keys
// k0 .. k1 − 1 (k1 − k0 <= kMaxChunk): writes (max score, Σ exp, Σ exp·v[0 .. 64)) to out. K and V point
// at the head's columns of row 0 of the layer's cache, rows `stride` elements apart. Groups of 8 lanes
// take one key each (16 B a lane). Shared: s [kMaxChunk], opart [blockDim/8 · 64], red [32].
template <class T>
__device__ void attend_chunk(const float* q, const T* K, const T* V, size_t stride, size_t k0, size_t k1, float* s,
                             float* opart, float* red, float* out) {
  const int tid = threadIdx.x, l8 = tid & 7, grp = tid >> 3, groups = blockDim.x >> 3;
  const int n = static_cast<int>(k1 - k0);
  // Two keys a group at a time (both loads in flight); the loop bound is the warp's first group, so all 32
  // lanes reach the shuffles together.
  for (int j0 = grp & ~3; j0 < n; j0 += 2 * groups) {
    const int ja = j0 + (grp & 3), jb = ja + groups;
    Pack<T> ka, kb;
    if (ja < n) ka = load_pack_cg(K + (k0 + ja) * stride + l8 * kPack);
    if (jb < n) kb = load_pack_cg(K + (k0 + jb) * stride + l8 * kPack);
    const float da = group8_sum(ja < n ? dot_pack(ka, q + l8 * kPack) : 0.f);
    const float db = group8_sum(jb < n ? dot_pack(kb, q + l8 * kPack) : 0.f);
    if (ja < n && l8 == 0) s[ja] = da;
    if (jb < n && l8 == 0) s[jb] = db;
  }
  __syncthreads();
  float m = -INFINITY;
  for (int j = tid; j < n; j += blockDim.x) m = fmaxf(m, s[j]);
  m = block_reduce<true>(m, red);
  float l = 0.f;
  for (int j = tid; j < n; j += blockDim.x) {
    const float p = __expf(s[j] - m);
    s[j] = p;
    l += p;
  }
  l = block_reduce<false>(l, red);  // its barriers also publish the p written into s
  float o[kPack] = {};
  for (int j = grp; j < n; j += 2 * groups) {
    const int jb = j + groups;
    Pack<T> va, vb;
    va = load_pack_cg(V + (k0 + j) * stride + l8 * kPack);
    if (jb < n) vb = load_pack_cg(V + (k0 + jb) * stride + l8 * kPack);
    float v[kPack];
    unpack(va, v);
#pragma unroll
    for (int i = 0; i < kPack; ++i) o[i] += s[j] * v[i];
    if (jb < n) {
      unpack(vb, v);
#pragma unroll
      for (int i = 0; i < kPack; ++i) o[i] += s[jb] * v[i];
    }
  }
#pragma unroll
  for (int i = 0; i < kPack; ++i) opart[grp * 64 + l8 * kPack + i] = o[i];
  __syncthreads();
  if (tid < 64) {
    float sum = 0.f;
    for (int g = 0; g < groups; ++g) sum += opart[g * 64 + tid];
    out[2 + tid] = sum;
  }
  if (tid == 0) {
    out[0] = m;
    out[1] = l;
  }
  __syncthreads();  // s, opart and red are reused by the caller
}

// Output d (< 64) of one head from its chunks' partial results (`parts`: splits × kPartFloats, written by
// other blocks: read through L2), kBatch chunks at a time.
__device__ __forceinline__ float combine_head(const float* parts, size_t splits, int d) {
  constexpr int kBatch = 16;  // chunks whose loads are in flight together (GPT-2 small on 132 SMs: 11, one round trip)
  float m = -INFINITY, l = 0.f, o = 0.f;
  for (size_t c0 = 0; c0 < splits; c0 += kBatch) {
    float mc[kBatch], lc[kBatch], oc[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const float* part = parts + (c0 + u) * kPartFloats;
      const bool in = c0 + u < splits;
      mc[u] = in ? __ldcg(part) : -INFINITY;
      lc[u] = in ? __ldcg(part + 1) : 0.f;
      oc[u] = in ? __ldcg(part + 2 + d) : 0.f;
    }
    // The batch's max first, then every chunk's weight at once: no chain of rescalings, chunk by chunk,
    // on the critical path. A chunk past the head's last has m = −∞: weight 0.
    float mx = m;
#pragma unroll
    for (int u = 0; u < kBatch; ++u) mx = fmaxf(mx, mc[u]);
    const float mn = mx, old_scale = __expf(m - mn);
    float lb = 0.f, ob = 0.f;
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const float w = __expf(mc[u] - mn);
      lb += lc[u] * w;
      ob += oc[u] * w;
    }
    l = l * old_scale + lb;
    o = o * old_scale + ob;
    m = mn;
  }
  return o / l;
}

}  // namespace fusebench::kernels::gpt2
