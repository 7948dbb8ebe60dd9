// The elementwise building block shared by fused and unfused CUDA variants: 16-byte loads and
// stores, several independent loads in flight per thread, a grid sized from the SM count, and a
// scalar tail so any n works (n = 1, n not a multiple of 4). Using one template for both sides
// keeps the comparison fair: the only difference between variants is what fusion removes.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
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

template <typename Op>
__global__ void __launch_bounds__(kMapThreads) map_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                          size_t n, Op op) {
  const size_t n4 = n / 4;
  const auto* in4 = reinterpret_cast<const float4*>(in);
  auto* out4 = reinterpret_cast<float4*>(out);
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  size_t i = tid;
  for (; i + (kMapUnroll - 1) * stride < n4; i += kMapUnroll * stride) {
    float4 v[kMapUnroll];
#pragma unroll
    for (int u = 0; u < kMapUnroll; ++u) v[u] = in4[i + u * stride];
#pragma unroll
    for (int u = 0; u < kMapUnroll; ++u) {
      v[u].x = op(v[u].x);
      v[u].y = op(v[u].y);
      v[u].z = op(v[u].z);
      v[u].w = op(v[u].w);
      out4[i + u * stride] = v[u];
    }
  }
  for (; i < n4; i += stride) {
    float4 v = in4[i];
    v.x = op(v.x);
    v.y = op(v.y);
    v.z = op(v.z);
    v.w = op(v.w);
    out4[i] = v;
  }
  const size_t t = 4 * n4 + tid;  // the last n % 4 elements
  if (t < n) out[t] = op(in[t]);
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

template <typename Op>
void launch_map(const float* in, float* out, size_t n, Op op, const LaunchContext& ctx, const char* name) {
  // The vector path reads and writes float4: a misaligned buffer would fault (or be wrong), so refuse it.
  if ((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) % alignof(float4) != 0)
    throw std::invalid_argument(std::string(name) + ": the map kernel needs 16-byte aligned buffers");
  const unsigned grid = grid_for<map_kernel<Op>>(kMapThreads, (n + 3) / 4, ctx);
  map_kernel<Op><<<grid, kMapThreads, 0, static_cast<cudaStream_t>(ctx.stream)>>>(in, out, n, op);
  FB_CUDA_CHECK_LAUNCH(name);
}

}  // namespace fusebench::cuda
