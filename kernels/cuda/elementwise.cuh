// The elementwise building block shared by fused and unfused CUDA variants, in every precision:
// 16-byte loads and stores (4 floats or 8 halves, widened to float for the op), several independent
// loads in flight per thread, a grid sized from the SM count, and a scalar tail so any n works (n = 1,
// n not a multiple of the pack). Using one template for both sides
// keeps the comparison fair: the only difference between variants is what fusion removes.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "common/launch.h"
#include "cuda/pack.cuh"
#include "cuda/cuda_check.cuh"

namespace fusebench::cuda {

constexpr int kMapThreads = 256;
// 16-byte loads in flight per thread before the first use, once an input is large enough that
// threads loop (past kMaxWaves waves of blocks). Two: deeper unrolling lost bandwidth at 16M floats
// with a one-wave grid (docs/measurements.md, "Elementwise grids").
constexpr int kMapUnroll = 2;

// The inputs of a map kernel: kIn arrays of n elements of T, passed by value to the kernel.
template <class T, int kIn>
struct MapInputs {
  const T* p[kIn];
};

// op applied element by element, in float, to one pack of each input; the result rounded to T.
template <class T, int kIn, typename Op>
__device__ __forceinline__ Pack<T> apply_pack(const Op& op, const Pack<T> (&v)[kIn]) {
  static_assert(kIn == 1 || kIn == 2, "map kernels take one or two inputs");
  Pack<T> out;
#pragma unroll
  for (int j = 0; j < Pack<T>::N; ++j) {
    if constexpr (kIn == 1) out.v[j] = from_float<T>(op(to_float(v[0].v[j])));
    else out.v[j] = from_float<T>(op(to_float(v[0].v[j]), to_float(v[1].v[j])));
  }
  return out;
}

// out[i] = op(in_0[i], ...): the one grid-stride loop every elementwise kernel of fusebench uses.
template <class T, int kIn, typename Op>
__global__ void __launch_bounds__(kMapThreads) map_kernel(MapInputs<T, kIn> in, T* __restrict__ out, size_t n, Op op) {
  constexpr int kN = Pack<T>::N;
  const size_t packs = n / kN;
  const auto load = [&](size_t i, Pack<T> (&v)[kIn]) {
#pragma unroll
    for (int k = 0; k < kIn; ++k) v[k] = load_pack(in.p[k], i);
  };
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  size_t i = tid;
  for (; i + (kMapUnroll - 1) * stride < packs; i += kMapUnroll * stride) {
    Pack<T> v[kMapUnroll][kIn];
#pragma unroll
    for (int u = 0; u < kMapUnroll; ++u) load(i + u * stride, v[u]);
#pragma unroll
    for (int u = 0; u < kMapUnroll; ++u) store_pack(out, i + u * stride, apply_pack<T, kIn>(op, v[u]));
  }
  for (; i < packs; i += stride) {
    Pack<T> v[kIn];
    load(i, v);
    store_pack(out, i, apply_pack<T, kIn>(op, v));
  }
  const size_t t = kN * packs + tid;  // the last n % kN elements
  if (t < n) {
    if constexpr (kIn == 1) out[t] = from_float<T>(op(to_float(in.p[0][t])));
    else out[t] = from_float<T>(op(to_float(in.p[0][t]), to_float(in.p[1][t])));
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

// Waves of resident blocks a grid-stride launch may use before threads start looping. A grid covering
// the data once runs faster than one full wave looping over it, close to a same-size memcpy
// (docs/measurements.md, "Elementwise grids"): many short blocks let the block scheduler balance the
// tail. The cap keeps huge inputs looping instead of launching millions of blocks.
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

// Launches map_kernel over n elements; refuses misaligned buffers, which the 16-byte path cannot read.
template <class T, int kIn, typename Op>
void launch_map_n(MapInputs<T, kIn> in, T* out, size_t n, Op op, const LaunchContext& ctx, const char* name) {
  bool aligned = aligned16({out});
  for (const T* p : in.p) aligned = aligned && aligned16({p});
  if (!aligned) throw std::invalid_argument(std::string(name) + ": the map kernel needs 16-byte aligned buffers");
  constexpr auto kernel = map_kernel<T, kIn, Op>;
  const unsigned grid = grid_for<kernel>(kMapThreads, (n + Pack<T>::N - 1) / Pack<T>::N, ctx);
  kernel<<<grid, kMapThreads, 0, static_cast<cudaStream_t>(ctx.stream)>>>(in, out, n, op);
  FB_CUDA_CHECK_LAUNCH(name);
}

// out = op(in), elementwise.
template <class T, typename Op>
void launch_map(const T* in, T* out, size_t n, Op op, const LaunchContext& ctx, const char* name) {
  launch_map_n<T, 1>(MapInputs<T, 1>{{in}}, out, n, op, ctx, name);
}

// out = op(a, b), elementwise.
template <class T, typename Op>
void launch_map2(const T* a, const T* b, T* out, size_t n, Op op, const LaunchContext& ctx, const char* name) {
  launch_map_n<T, 2>(MapInputs<T, 2>{{a, b}}, out, n, op, ctx, name);
}

}  // namespace fusebench::cuda
