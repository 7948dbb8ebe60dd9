// The bias map kernel: out[r, c] = op(x[r, c], b[c]) over [rows, cols] with b broadcast along the rows:
// the elementwise map of elementwise.cuh (16-byte loads and stores, kMapUnroll loads in flight,
// grid-stride, scalar tail) with a per-column operand, in every precision. The unfused twins' bias add and the fused
// bias + GELU are the same kernel with a different op.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>

#include "common/launch.h"
#include "cuda/elementwise.cuh"
#include "cuda/row_reduce.cuh"
#include "cuda/cuda_check.cuh"

namespace fusebench::cuda {

// Column of the element after `c` in a row of `cols` (wrapping to the next row).
__device__ __forceinline__ unsigned next_col(unsigned c, unsigned cols) { return c + 1 == cols ? 0 : c + 1; }

// c + step modulo cols, for c, step < cols < 2^31 (so c + step cannot wrap around 2^32).
__device__ __forceinline__ unsigned add_cols(unsigned c, unsigned step, unsigned cols) {
  c += step;
  return c >= cols ? c - cols : c;
}

// The bias of the kW elements starting at column `col`, widened to float. With kVecBias (cols % kW ==
// 0, so col is a multiple of kW and the elements lie in one row) one 16-byte load; otherwise scalar
// loads that wrap into the next row, so any cols works (cols = 1 or 3 included). b is tiny and stays
// in cache.
template <bool kVecBias, class T>
__device__ __forceinline__ void bias_pack(const T* __restrict__ b, unsigned col, unsigned cols, float (&v)[Pack<T>::N]) {
  if constexpr (kVecBias) {
    const Pack<T> p = load_pack(b, col / Pack<T>::N);
#pragma unroll
    for (int j = 0; j < Pack<T>::N; ++j) v[j] = to_float(p.v[j]);
  } else {
#pragma unroll
    for (int j = 0; j < Pack<T>::N; ++j) {
      v[j] = to_float(b[col]);
      col = next_col(col, cols);
    }
  }
}

template <class T, typename Op>
__device__ __forceinline__ Pack<T> apply_bias_pack(const Pack<T>& x, const float (&b)[Pack<T>::N], Op op) {
  Pack<T> out;
#pragma unroll
  for (int j = 0; j < Pack<T>::N; ++j) out.v[j] = from_float<T>(op(to_float(x.v[j]), b[j]));
  return out;
}

// The map kernel of elementwise.cuh (16-byte loads and stores, kMapUnroll loads in flight, grid-stride,
// scalar tail) with a per-column operand. x is read as flat packs regardless of cols; the column of
// each pack's first element is tracked incrementally — a 64-bit division per pack would cost about as
// much as the GELU.
template <class T, bool kVecBias, typename Op>
__global__ void __launch_bounds__(kMapThreads)
    bias_map_kernel(const T* __restrict__ x, const T* __restrict__ b, T* __restrict__ out, size_t n, unsigned cols,
                    Op op) {
  constexpr int kUnroll = kMapUnroll, kW = Pack<T>::N;
  const size_t packs = n / kW;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // Elements kW·i and kW·(i + stride) are kW·stride apart: their columns differ by `step` (mod cols).
  const auto step = static_cast<unsigned>((kW * stride) % cols);
  auto col = static_cast<unsigned>((kW * tid) % cols);
  size_t i = tid;
  for (; i + (kUnroll - 1) * stride < packs; i += kUnroll * stride) {
    Pack<T> v[kUnroll];
    unsigned c[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      v[u] = load_pack(x, i + u * stride);
      c[u] = col;
      col = add_cols(col, step, cols);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      float bias[kW];
      bias_pack<kVecBias>(b, c[u], cols, bias);
      store_pack(out, i + u * stride, apply_bias_pack(v[u], bias, op));
    }
  }
  for (; i < packs; i += stride) {
    float bias[kW];
    bias_pack<kVecBias>(b, col, cols, bias);
    store_pack(out, i, apply_bias_pack(load_pack(x, i), bias, op));
    col = add_cols(col, step, cols);
  }
  const size_t t = kW * packs + tid;  // the last n % kW elements
  if (t < n) out[t] = from_float<T>(op(to_float(x[t]), to_float(b[t % cols])));
}

template <bool kVecBias, class T, typename Op>
void launch_bias_map_as(const T* x, const T* b, T* out, size_t n, unsigned cols, Op op, const LaunchContext& ctx) {
  constexpr auto kernel = bias_map_kernel<T, kVecBias, Op>;
  const unsigned grid = grid_for<kernel>(kMapThreads, (n + Pack<T>::N - 1) / Pack<T>::N, ctx);
  kernel<<<grid, kMapThreads, 0, static_cast<cudaStream_t>(ctx.stream)>>>(x, b, out, n, cols, op);
  FB_CUDA_CHECK_LAUNCH("bias_map_kernel");
}

// Launches the bias map; cols < 2^31 (columns are tracked in 32-bit arithmetic).
template <class T, typename Op>
void launch_bias_map(const T* x, const T* b, T* out, size_t rows, size_t cols, Op op, const LaunchContext& ctx) {
  // The flat pack view of x and out needs 16-byte alignment; workspace buffers have 256.
  if (!aligned16({x, out})) throw std::invalid_argument("bias map: x and out must be 16-byte aligned");
  const size_t n = rows * cols;
  const auto c = static_cast<unsigned>(cols);  // < 2^31: the bias_gelu case states the limit
  if (vector_rows_ok<T>(cols, {b})) launch_bias_map_as<true>(x, b, out, n, c, op, ctx);
  else launch_bias_map_as<false>(x, b, out, n, c, op, ctx);
}

}  // namespace fusebench::cuda
