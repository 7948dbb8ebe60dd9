// The elementwise building block shared by fused and unfused CUDA variants: 16-byte loads and
// stores, several independent loads in flight per thread, a grid sized from the SM count, and a
// scalar tail so any n works (n = 1, n not a multiple of 4). Using one template for both sides
// keeps the comparison fair: the only difference between variants is what fusion removes.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "common/launch.h"
#include "cuda_check.cuh"

namespace fusebench::cuda {

constexpr int kMapThreads = 256;
// float4 loads in flight per thread before the first use, once an input is large enough that
// threads loop (past kMaxWaves waves of blocks). Measured on an H200 at 16M elements with a
// one-wave grid: 2 → 3876 GB/s, 4 → 3810, 8 → 3650.
constexpr int kMapUnroll = 2;

// The inputs of a map kernel: kIn arrays of n floats, passed by value to the kernel.
template <int kIn>
struct MapInputs {
  const float* p[kIn];
};

// op applied lane by lane to one float4 of each input.
template <int kIn, typename Op>
__device__ __forceinline__ float4 apply4(const Op& op, const float4 (&v)[kIn]) {
  if constexpr (kIn == 1) {
    return make_float4(op(v[0].x), op(v[0].y), op(v[0].z), op(v[0].w));
  } else {
    static_assert(kIn == 2, "map kernels take one or two inputs");
    return make_float4(op(v[0].x, v[1].x), op(v[0].y, v[1].y), op(v[0].z, v[1].z), op(v[0].w, v[1].w));
  }
}

// out[i] = op(in_0[i], ...): the one grid-stride loop every elementwise kernel of fusebench uses.
template <int kIn, typename Op>
__global__ void __launch_bounds__(kMapThreads) map_kernel(MapInputs<kIn> in, float* __restrict__ out, size_t n, Op op) {
  const size_t n4 = n / 4;
  auto* out4 = reinterpret_cast<float4*>(out);
  const auto load4 = [&](size_t i, float4 (&v)[kIn]) {
#pragma unroll
    for (int k = 0; k < kIn; ++k) v[k] = reinterpret_cast<const float4*>(in.p[k])[i];
  };
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  size_t i = tid;
  for (; i + (kMapUnroll - 1) * stride < n4; i += kMapUnroll * stride) {
    float4 v[kMapUnroll][kIn];
#pragma unroll
    for (int u = 0; u < kMapUnroll; ++u) load4(i + u * stride, v[u]);
#pragma unroll
    for (int u = 0; u < kMapUnroll; ++u) out4[i + u * stride] = apply4<kIn>(op, v[u]);
  }
  for (; i < n4; i += stride) {
    float4 v[kIn];
    load4(i, v);
    out4[i] = apply4<kIn>(op, v);
  }
  const size_t t = 4 * n4 + tid;  // the last n % 4 elements
  if (t < n) {
    if constexpr (kIn == 1) out[t] = op(in.p[0][t]);
    else out[t] = op(in.p[0][t], in.p[1][t]);
  }
}

// a + b, the elementwise add of the unfused twins (bias add, residual add).
struct AddOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// Whether every pointer is 16-byte aligned (cudaMalloc gives 256; a null, unused operand passes).
inline bool aligned16(std::initializer_list<const void*> pointers) {
  for (const void* p : pointers)
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) return false;
  return true;
}

// Waves of resident blocks a grid-stride launch may use before threads start looping. Measured on
// an H200 (fused GELU+scale, L2 flushed): at 16M floats a grid of one full wave looping over the data
// ran at 3869 GB/s, a grid covering the data once (15.5 waves) at 4010 GB/s, 98% of a same-size
// memcpy: many short blocks let the block scheduler balance the tail. The cap keeps huge inputs
// looping instead of launching millions of blocks.
constexpr size_t kMaxWaves = 32;

// Blocks for a grid-stride kernel, sized from the SM count: enough to cover the work once, at most
// kMaxWaves full waves (occupancy × SMs). The occupancy is cached per kernel (a non-type template
// parameter, so two kernels with the same signature do not share an entry).
template <auto kKernel>
unsigned grid_for(int threads, size_t work_items, const LaunchContext& ctx) {
  static int blocks_per_sm = 0;
  if (blocks_per_sm == 0) FB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kKernel, threads, 0));
  const size_t wave = static_cast<size_t>(blocks_per_sm > 0 ? blocks_per_sm : 1) * ctx.sm_count;
  const size_t needed = (work_items + threads - 1) / threads;
  size_t blocks = needed < kMaxWaves * wave ? needed : kMaxWaves * wave;
  if (ctx.max_blocks > 0 && blocks > ctx.max_blocks) blocks = ctx.max_blocks;
  return static_cast<unsigned>(blocks > 0 ? blocks : 1);
}

// Launches map_kernel over n floats; refuses misaligned buffers, which the float4 path cannot read.
template <int kIn, typename Op>
void launch_map_n(MapInputs<kIn> in, float* out, size_t n, Op op, const LaunchContext& ctx, const char* name) {
  bool aligned = aligned16({out});
  for (const float* p : in.p) aligned = aligned && aligned16({p});
  if (!aligned) throw std::invalid_argument(std::string(name) + ": the map kernel needs 16-byte aligned buffers");
  const unsigned grid = grid_for<map_kernel<kIn, Op>>(kMapThreads, (n + 3) / 4, ctx);
  map_kernel<kIn, Op><<<grid, kMapThreads, 0, static_cast<cudaStream_t>(ctx.stream)>>>(in, out, n, op);
  FB_CUDA_CHECK_LAUNCH(name);
}

// out = op(in), elementwise.
template <typename Op>
void launch_map(const float* in, float* out, size_t n, Op op, const LaunchContext& ctx, const char* name) {
  launch_map_n<1>(MapInputs<1>{{in}}, out, n, op, ctx, name);
}

// out = op(a, b), elementwise.
template <typename Op>
void launch_map2(const float* a, const float* b, float* out, size_t n, Op op, const LaunchContext& ctx, const char* name) {
  launch_map_n<2>(MapInputs<2>{{a, b}}, out, n, op, ctx, name);
}

}  // namespace fusebench::cuda
