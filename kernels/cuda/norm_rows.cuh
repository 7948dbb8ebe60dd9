// The row-normalization kernels: LayerNorm and RMSNorm of each row of [rows, n], optionally fused with
// the residual add before them (h = x + r is written on the way). The unfused twins launch the same
// kernels without the residual after a separate add kernel, so a speedup measures what fusion removes
// (one write and one read of h, and a launch), nothing else.
//
//   LayerNorm  y = (h − mean)·rstd·γ + β,  rstd = 1/√(mean((h − mean)²) + ε)
//   RMSNorm    y = h·rstd·γ,               rstd = 1/√(mean(h²) + ε)
//
// In every precision the row is widened to float in registers and the statistics are fp32; h and y are
// stored in T. Rows of up to 8192 floats (16384 halves) live in registers (row_reduce.cuh's slot layout, one warp or one block
// per row), so the LayerNorm variance is two-pass over the registers: no second read of memory, and
// none of the cancellation of E[h²] − E[h]². Longer rows stream through the row in tiles, reading h
// again (mostly from L2) in each pass.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/launch.h"
#include "cuda/elementwise.cuh"
#include "cuda/row_reduce.cuh"
#include "cuda/cuda_check.cuh"

namespace fusebench::cuda {

enum class Norm { Layer, Rms };

// The operands of one launch. With a residual, x and r are read and h = x + r written; otherwise x is
// the row to normalize (r and h unused). h may be null where only y is wanted, for rows that fit in
// registers (the streaming kernel reads h back). β is LayerNorm's only.
template <class T>
struct NormRows {
  const T* x;
  const T* r;
  T* h;
  const T* gamma;
  const T* beta;
  T* y;
  size_t rows;
  int n;
  float eps;
};

// v as T stores it: the fused kernels normalize the h they write (rounded to bf16/fp16), as the unfused
// twin normalizes the h it reads back, so both compute the same function and differ only in traffic.
template <class T>
__device__ __forceinline__ float stored(float v) {
  return to_float(from_float<T>(v));
}

// kStoreH: h = x + r is written (false: a.h is null and only y is wanted; a template argument, as a
// run-time test of a.h cost measurable time at GPT-2's rows: docs/measurements.md, "Norms: kStoreH").
template <class T, int kRowWarps, int kSlots, bool kVec, Norm kNorm, bool kResidual, bool kStoreH>
__global__ void __launch_bounds__(kRowThreads) norm_rows_kernel(NormRows<T> a) {
  using Slots = RowSlots<T, kRowWarps, kSlots, kVec>;
  constexpr int kW = Slots::kW;
  const int n = a.n;
  const int t = threadIdx.x % Slots::kThreads;
  const size_t row_stride = static_cast<size_t>(gridDim.x) * Slots::kRowsPerBlock;
  size_t row = static_cast<size_t>(blockIdx.x) * Slots::kRowsPerBlock + threadIdx.x / Slots::kThreads;
  for (; row < a.rows; row += row_stride) {  // uniform across a multi-warp row group
    const size_t off = row * static_cast<size_t>(n);
    float v[kSlots][kW];  // elements past the row's end hold 0 and add nothing to the sums
#pragma unroll
    for (int s = 0; s < kSlots; ++s) Slots::load(a.x + off, n, s, t, 0.0f, v[s]);
    if constexpr (kResidual) {
      float rs[kSlots][kW];  // every load of the row issued before the first use
#pragma unroll
      for (int s = 0; s < kSlots; ++s) Slots::load(a.r + off, n, s, t, 0.0f, rs[s]);
#pragma unroll
      for (int s = 0; s < kSlots; ++s) {
#pragma unroll
        for (int c = 0; c < kW; ++c) v[s][c] = stored<T>(v[s][c] + rs[s][c]);
        if constexpr (kStoreH) Slots::store(a.h + off, n, s, t, v[s]);
      }
    }
    float mean = 0.0f;
    if constexpr (kNorm == Norm::Layer) {
      float sum = 0.0f;
#pragma unroll
      for (int s = 0; s < kSlots; ++s)
#pragma unroll
        for (int c = 0; c < kW; ++c) sum += v[s][c];
      mean = row_reduce<kRowWarps>(sum, SumOp{}) / static_cast<float>(n);
    }
    float sq = 0.0f;
#pragma unroll
    for (int s = 0; s < kSlots; ++s)
#pragma unroll
      for (int c = 0; c < kW; ++c) {
        const float d = kNorm == Norm::Rms ? v[s][c] : (Slots::index(s, c, t) < n ? v[s][c] - mean : 0.0f);
        sq += d * d;
      }
    const float rstd = rsqrtf(row_reduce<kRowWarps>(sq, SumOp{}) / static_cast<float>(n) + a.eps);
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      float g[kW], b[kW] = {}, o[kW];
      Slots::load(a.gamma, n, s, t, 0.0f, g);  // γ and β are read by every row: L1/L2 hits
      if constexpr (kNorm == Norm::Layer) Slots::load(a.beta, n, s, t, 0.0f, b);
#pragma unroll
      for (int c = 0; c < kW; ++c) o[c] = kNorm == Norm::Layer ? (v[s][c] - mean) * rstd * g[c] + b[c] : v[s][c] * rstd * g[c];
      Slots::store(a.y + off, n, s, t, o);
    }
  }
}

// Rows longer than the register kernels hold (n > 8192): one block per row, walked in tiles of the
// same slot layout: LayerNorm in three passes (sum; squared deviations; normalize), RMSNorm in two
// (squares; normalize). Later passes read h again (mostly from L2); each thread reads back only the
// elements it wrote itself in the first pass (the tiles map elements to threads the same way every
// pass), so no fence is needed between passes.
template <class T, bool kVec, Norm kNorm, bool kResidual>
__global__ void __launch_bounds__(kRowThreads) norm_stream_kernel(NormRows<T> a) {
  constexpr int kTileSlots = 2;  // two 16-byte loads in flight per operand and thread
  using Tile = RowSlots<T, 8, kTileSlots, kVec>;
  constexpr int kW = Tile::kW;
  const int n = a.n;
  const int t = threadIdx.x;
  const T* src = kResidual ? a.h : a.x;  // what the later passes read
  for (size_t row = blockIdx.x; row < a.rows; row += gridDim.x) {  // uniform across the block
    const size_t off = row * static_cast<size_t>(n);
    float sum = 0.0f, sq = 0.0f;  // the first pass: the sum (LayerNorm) or the squares (RMSNorm)
    for (int base = 0; base < n; base += Tile::kCapacity) {  // n <= 2^30, so base + kCapacity fits int
      const size_t at = off + base;
      const int rem = n - base;
#pragma unroll
      for (int s = 0; s < kTileSlots; ++s) {
        float v[kW];
        Tile::load(a.x + at, rem, s, t, 0.0f, v);
        if constexpr (kResidual) {
          float rs[kW];
          Tile::load(a.r + at, rem, s, t, 0.0f, rs);
#pragma unroll
          for (int c = 0; c < kW; ++c) v[c] = stored<T>(v[c] + rs[c]);
          Tile::store(a.h + at, rem, s, t, v);
        }
#pragma unroll
        for (int c = 0; c < kW; ++c) {
          sum += v[c];
          sq += v[c] * v[c];
        }
      }
    }
    float mean = 0.0f;
    if constexpr (kNorm == Norm::Layer) {
      mean = row_reduce<8>(sum, SumOp{}) / static_cast<float>(n);
      sq = 0.0f;
      for (int base = 0; base < n; base += Tile::kCapacity) {
        const int rem = n - base;
#pragma unroll
        for (int s = 0; s < kTileSlots; ++s) {
          float v[kW];
          Tile::load(src + off + base, rem, s, t, 0.0f, v);
#pragma unroll
          for (int c = 0; c < kW; ++c) {
            const float d = Tile::index(s, c, t) < rem ? v[c] - mean : 0.0f;
            sq += d * d;
          }
        }
      }
    }
    const float rstd = rsqrtf(row_reduce<8>(sq, SumOp{}) / static_cast<float>(n) + a.eps);
    for (int base = 0; base < n; base += Tile::kCapacity) {
      const int rem = n - base;
#pragma unroll
      for (int s = 0; s < kTileSlots; ++s) {
        float v[kW], g[kW], b[kW] = {};
        Tile::load(src + off + base, rem, s, t, 0.0f, v);
        Tile::load(a.gamma + base, rem, s, t, 0.0f, g);
        if constexpr (kNorm == Norm::Layer) Tile::load(a.beta + base, rem, s, t, 0.0f, b);
#pragma unroll
        for (int c = 0; c < kW; ++c) v[c] = kNorm == Norm::Layer ? (v[c] - mean) * rstd * g[c] + b[c] : v[c] * rstd * g[c];
        Tile::store(a.y + off + base, rem, s, t, v);
      }
    }
  }
}

// Launches the norm over a.rows rows of a.n elements (n <= 2^30: the kernels index a row with ints).
template <Norm kNorm, bool kResidual, class T>
void launch_norm_rows(const NormRows<T>& a, const LaunchContext& ctx) {
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  const auto n = static_cast<size_t>(a.n);
  const bool vec = vector_rows_ok<T>(n, {a.x, a.r, a.h, a.gamma, a.beta, a.y});
  dispatch_rows<T>(n, vec, [&](auto warps, auto slots, auto vec_tag) {
    constexpr int kRowWarps = decltype(warps)::value;
    constexpr int kSlots = decltype(slots)::value;
    constexpr bool kVec = decltype(vec_tag)::value;
    if constexpr (kSlots == 0) {
      if (kResidual && a.h == nullptr)
        throw std::invalid_argument("norm rows: a row of " + std::to_string(n) +
                                    " elements is too long for registers and streams through h; h must be given");
      constexpr auto kernel = norm_stream_kernel<T, kVec, kNorm, kResidual>;
      const unsigned grid = row_grid<kernel>(a.rows, kRowThreads, ctx);
      kernel<<<grid, kRowThreads, 0, stream>>>(a);
      FB_CUDA_CHECK_LAUNCH("norm_stream_kernel");
    } else {
      const auto launch = [&](auto store_h) {
        constexpr auto kernel = norm_rows_kernel<T, kRowWarps, kSlots, kVec, kNorm, kResidual, decltype(store_h)::value>;
        const unsigned grid = row_grid<kernel>(a.rows, 32 * kRowWarps, ctx);
        kernel<<<grid, kRowThreads, 0, stream>>>(a);
        FB_CUDA_CHECK_LAUNCH("norm_rows_kernel");
      };
      if (kResidual && a.h == nullptr) launch(std::false_type{});
      else launch(std::bool_constant<kResidual>{});
    }
  });
}

}  // namespace fusebench::cuda
