// The bias map kernel: out[r, c] = op(x[r, c], b[c]) over [rows, cols] with b broadcast along the rows:
// the elementwise map of elementwise.cuh (16-byte loads and stores, kMapUnroll loads in flight,
// grid-stride, scalar tail) with a per-column operand. The unfused twins' bias add and the fused
// bias + GELU are the same kernel with a different op.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>

#include "common/launch.h"
#include "cuda/elementwise.cuh"
#include "cuda/row_reduce.cuh"
#include "cuda_check.cuh"

namespace fusebench::cuda {

// Column of the element after `c` in a row of `cols` (wrapping to the next row).
__device__ __forceinline__ unsigned next_col(unsigned c, unsigned cols) { return c + 1 == cols ? 0 : c + 1; }

// c + step modulo cols, for c, step < cols < 2^31 (so c + step cannot wrap around 2^32).
__device__ __forceinline__ unsigned add_cols(unsigned c, unsigned step, unsigned cols) {
  c += step;
  return c >= cols ? c - cols : c;
}

// The bias of the 4 elements starting at column `col`. With kVecBias (cols % 4 == 0, so col is a
// multiple of 4 and the 4 elements lie in one row) one 16-byte load; otherwise 4 scalar loads that
// wrap into the next row, so any cols works (cols = 1 or 3 included). b is tiny and stays in cache.
template <bool kVecBias>
__device__ __forceinline__ float4 bias4(const float* __restrict__ b, unsigned col, unsigned cols) {
  if constexpr (kVecBias) {
    return reinterpret_cast<const float4*>(b)[col / 4];
  } else {
    float4 v;
    v.x = b[col];
    col = next_col(col, cols);
    v.y = b[col];
    col = next_col(col, cols);
    v.z = b[col];
    col = next_col(col, cols);
    v.w = b[col];
    return v;
  }
}

template <typename Op>
__device__ __forceinline__ float4 apply_bias4(const float4& x, const float4& b, Op op) {
  return make_float4(op(x.x, b.x), op(x.y, b.y), op(x.z, b.z), op(x.w, b.w));
}

// The map kernel of elementwise.cuh (16-byte loads and stores, kMapUnroll loads in flight, grid-stride,
// scalar tail) with a per-column operand. x is read as flat float4s regardless of cols; the
// column of each float4's first element is tracked incrementally — a 64-bit division per float4
// would cost about as much as the GELU.
template <bool kVecBias, typename Op>
__global__ void __launch_bounds__(kMapThreads)
    bias_map_kernel(const float* __restrict__ x, const float* __restrict__ b, float* __restrict__ out, size_t n,
                    unsigned cols, Op op) {
  constexpr int kUnroll = kMapUnroll;
  const size_t n4 = n / 4;
  const auto* x4 = reinterpret_cast<const float4*>(x);
  auto* out4 = reinterpret_cast<float4*>(out);
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // Elements 4·i and 4·(i + stride) are 4·stride apart: their columns differ by `step` (mod cols).
  const auto step = static_cast<unsigned>((4 * stride) % cols);
  auto col = static_cast<unsigned>((4 * tid) % cols);
  size_t i = tid;
  for (; i + (kUnroll - 1) * stride < n4; i += kUnroll * stride) {
    float4 v[kUnroll];
    unsigned c[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      v[u] = x4[i + u * stride];
      c[u] = col;
      col = add_cols(col, step, cols);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) out4[i + u * stride] = apply_bias4(v[u], bias4<kVecBias>(b, c[u], cols), op);
  }
  for (; i < n4; i += stride) {
    out4[i] = apply_bias4(x4[i], bias4<kVecBias>(b, col, cols), op);
    col = add_cols(col, step, cols);
  }
  const size_t t = 4 * n4 + tid;  // the last n % 4 elements
  if (t < n) out[t] = op(x[t], b[t % cols]);
}

template <bool kVecBias, typename Op>
void launch_bias_map_as(const float* x, const float* b, float* out, size_t n, unsigned cols, Op op,
                        const LaunchContext& ctx) {
  constexpr auto kernel = bias_map_kernel<kVecBias, Op>;
  const unsigned grid = grid_for<kernel>(kMapThreads, (n + 3) / 4, ctx);
  kernel<<<grid, kMapThreads, 0, static_cast<cudaStream_t>(ctx.stream)>>>(x, b, out, n, cols, op);
  FB_CUDA_CHECK_LAUNCH("bias_map_kernel");
}

// Launches the bias map; cols < 2^31 (columns are tracked in 32-bit arithmetic).
template <typename Op>
void launch_bias_map(const float* x, const float* b, float* out, size_t rows, size_t cols, Op op,
                     const LaunchContext& ctx) {
  // The flat float4 view of x and out needs 16-byte alignment; workspace buffers have 256.
  if (!aligned16({x, out})) throw std::invalid_argument("bias map: x and out must be 16-byte aligned");
  const size_t n = rows * cols;
  const auto c = static_cast<unsigned>(cols);  // < 2^31: the bias_gelu case states the limit
  if (vector_rows_ok(cols, {b})) launch_bias_map_as<true>(x, b, out, n, c, op, ctx);
  else launch_bias_map_as<false>(x, b, out, n, c, op, ctx);
}

}  // namespace fusebench::cuda
