// CUDA residual add + LayerNorm. Unfused: a vectorized add kernel writes h = x + r, then the
// LayerNorm row kernel reads h back and writes y. Fused: the same row kernel reads x and r, writes
// h and normalizes the row it already holds in registers. Both variants share the row layout, the
// reductions and the normalization code, so the speedup is what fusion saves: one write and one
// read of h, and a launch.
#include <stdexcept>

#include "cuda/elementwise.cuh"
#include "cuda/building_blocks.h"
#include "cuda/row_reduce.cuh"
#include "residual_layernorm.h"

namespace fusebench::kernels {
namespace {

// Rows of up to Slots::kCapacity floats, held in registers: one warp per row (kRowWarps = 1) or the
// whole block (8). kResidual: read x and r, write h = x + r (fused); otherwise read h from x (the
// unfused LayerNorm; r and h unused). The variance is two-pass over the registers, so it needs no
// second read of memory and does not suffer the cancellation of E[h²] − E[h]².
template <int kRowWarps, int kSlots, bool kVec, bool kResidual>
__global__ void __launch_bounds__(cuda::kRowThreads)
    layernorm_rows_kernel(const float* __restrict__ x, const float* __restrict__ r, float* __restrict__ h,
                          const float* __restrict__ gamma, const float* __restrict__ beta, float* __restrict__ y,
                          size_t rows, int n, float eps) {
  using Slots = cuda::RowSlots<kRowWarps, kSlots, kVec>;
  const int t = threadIdx.x % Slots::kThreads;
  const size_t row_stride = static_cast<size_t>(gridDim.x) * Slots::kRowsPerBlock;
  size_t row = static_cast<size_t>(blockIdx.x) * Slots::kRowsPerBlock + threadIdx.x / Slots::kThreads;
  for (; row < rows; row += row_stride) {  // uniform across a multi-warp row group
    const size_t off = row * static_cast<size_t>(n);
    float v[kSlots][4];  // elements past the row's end hold 0 and add nothing to the sum
#pragma unroll
    for (int s = 0; s < kSlots; ++s) Slots::load(x + off, n, s, t, 0.0f, v[s]);
    if constexpr (kResidual) {
      float rs[kSlots][4];  // every load of the row issued before the first use
#pragma unroll
      for (int s = 0; s < kSlots; ++s) Slots::load(r + off, n, s, t, 0.0f, rs[s]);
#pragma unroll
      for (int s = 0; s < kSlots; ++s) {
#pragma unroll
        for (int c = 0; c < 4; ++c) v[s][c] += rs[s][c];
        Slots::store(h + off, n, s, t, v[s]);
      }
    }
    float sum = 0.0f;
#pragma unroll
    for (int s = 0; s < kSlots; ++s)
#pragma unroll
      for (int c = 0; c < 4; ++c) sum += v[s][c];
    const float mean = cuda::row_reduce<kRowWarps>(sum, cuda::SumOp{}) / static_cast<float>(n);
    float sq = 0.0f;
#pragma unroll
    for (int s = 0; s < kSlots; ++s)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const float d = Slots::index(s, c, t) < n ? v[s][c] - mean : 0.0f;
        sq += d * d;
      }
    const float var = cuda::row_reduce<kRowWarps>(sq, cuda::SumOp{}) / static_cast<float>(n);
    const float rstd = rsqrtf(var + eps);
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      float g[4], b[4], o[4];
      Slots::load(gamma, n, s, t, 0.0f, g);  // gamma and beta are read by every row: L1/L2 hits
      Slots::load(beta, n, s, t, 0.0f, b);
#pragma unroll
      for (int c = 0; c < 4; ++c) o[c] = (v[s][c] - mean) * rstd * g[c] + b[c];
      Slots::store(y + off, n, s, t, o);
    }
  }
}

// Rows longer than the register kernels hold (hidden > 8192): one block per row, the row walked in
// tiles of the same slot layout, three passes (sum; squared deviations; normalize). Passes 2 and 3
// read h again (mostly from L2). Each thread reads back only the elements it wrote itself in pass 1
// (the tiles map elements to threads the same way every pass), so no fence is needed between them.
template <bool kVec, bool kResidual>
__global__ void __launch_bounds__(cuda::kRowThreads)
    layernorm_stream_kernel(const float* __restrict__ x, const float* __restrict__ r, float* __restrict__ h,
                            const float* __restrict__ gamma, const float* __restrict__ beta, float* __restrict__ y,
                            size_t rows, int n, float eps) {
  constexpr int kTileSlots = 2;  // two 16-byte loads in flight per operand and thread
  using Tile = cuda::RowSlots<8, kTileSlots, kVec>;
  const int t = threadIdx.x;
  const float* src = kResidual ? h : x;  // what passes 2 and 3 read
  for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {  // uniform across the block
    const size_t off = row * static_cast<size_t>(n);
    float sum = 0.0f;
    for (int base = 0; base < n; base += Tile::kCapacity) {  // n <= 2^30, so base + kCapacity fits int
      const size_t at = off + base;
      const int rem = n - base;
#pragma unroll
      for (int s = 0; s < kTileSlots; ++s) {
        float v[4];
        Tile::load(x + at, rem, s, t, 0.0f, v);
        if constexpr (kResidual) {
          float rs[4];
          Tile::load(r + at, rem, s, t, 0.0f, rs);
#pragma unroll
          for (int c = 0; c < 4; ++c) v[c] += rs[c];
          Tile::store(h + at, rem, s, t, v);
        }
#pragma unroll
        for (int c = 0; c < 4; ++c) sum += v[c];
      }
    }
    const float mean = cuda::row_reduce<8>(sum, cuda::SumOp{}) / static_cast<float>(n);
    float sq = 0.0f;
    for (int base = 0; base < n; base += Tile::kCapacity) {
      const int rem = n - base;
#pragma unroll
      for (int s = 0; s < kTileSlots; ++s) {
        float v[4];
        Tile::load(src + off + base, rem, s, t, 0.0f, v);
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const float d = Tile::index(s, c, t) < rem ? v[c] - mean : 0.0f;
          sq += d * d;
        }
      }
    }
    const float var = cuda::row_reduce<8>(sq, cuda::SumOp{}) / static_cast<float>(n);
    const float rstd = rsqrtf(var + eps);
    for (int base = 0; base < n; base += Tile::kCapacity) {
      const int rem = n - base;
#pragma unroll
      for (int s = 0; s < kTileSlots; ++s) {
        float v[4], g[4], b[4];
        Tile::load(src + off + base, rem, s, t, 0.0f, v);
        Tile::load(gamma + base, rem, s, t, 0.0f, g);
        Tile::load(beta + base, rem, s, t, 0.0f, b);
#pragma unroll
        for (int c = 0; c < 4; ++c) v[c] = (v[c] - mean) * rstd * g[c] + b[c];
        Tile::store(y + off + base, rem, s, t, v);
      }
    }
  }
}

// LayerNorm of `in` into a.y; with kResidual, in = x, and h = x + r is written on the way.
template <bool kResidual>
void launch_layernorm(const float* in, const float* r, float* h, const ResidualLayerNormArgs& a,
                      const LaunchContext& ctx) {
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  const int n = static_cast<int>(a.hidden);  // <= 2^30, checked by the TypeScript validate()
  const bool vec = cuda::vector_rows_ok(a.hidden, {in, r, h, a.gamma, a.beta, a.y});
  cuda::dispatch_rows(a.hidden, vec, [&](auto warps, auto slots, auto vec_tag) {
    constexpr int kRowWarps = decltype(warps)::value;
    constexpr int kSlots = decltype(slots)::value;
    constexpr bool kVec = decltype(vec_tag)::value;
    if constexpr (kSlots == 0) {
      constexpr auto kernel = layernorm_stream_kernel<kVec, kResidual>;
      const unsigned grid = cuda::row_grid<kernel>(a.rows, cuda::kRowThreads, ctx);
      kernel<<<grid, cuda::kRowThreads, 0, stream>>>(in, r, h, a.gamma, a.beta, a.y, a.rows, n, a.eps);
      FB_CUDA_CHECK_LAUNCH("layernorm_stream_kernel");
    } else {
      constexpr auto kernel = layernorm_rows_kernel<kRowWarps, kSlots, kVec, kResidual>;
      const unsigned grid = cuda::row_grid<kernel>(a.rows, 32 * kRowWarps, ctx);
      kernel<<<grid, cuda::kRowThreads, 0, stream>>>(in, r, h, a.gamma, a.beta, a.y, a.rows, n, a.eps);
      FB_CUDA_CHECK_LAUNCH("layernorm_rows_kernel");
    }
  });
}

}  // namespace

void residual_layernorm_unfused_cuda(const ResidualLayerNormArgs& a, const LaunchContext& ctx) {
  cuda::launch_map2(a.x, a.r, a.h, a.rows * a.hidden, cuda::AddOp{}, ctx, "add");
  launch_layernorm<false>(a.h, nullptr, nullptr, a, ctx);
}

void residual_layernorm_fused_cuda(const ResidualLayerNormArgs& a, const LaunchContext& ctx) {
  launch_layernorm<true>(a.x, a.r, a.h, a, ctx);
}

}  // namespace fusebench::kernels

void fusebench::cuda::layernorm(const float* x, const float* gamma, const float* beta, float* y, size_t rows,
                                size_t hidden, float eps, const LaunchContext& ctx) {
  using fusebench::kernels::ResidualLayerNormArgs;
  ResidualLayerNormArgs a{};
  a.gamma = gamma;
  a.beta = beta;
  a.y = y;
  a.rows = rows;
  a.hidden = hidden;
  a.eps = eps;
  kernels::launch_layernorm<false>(x, nullptr, nullptr, a, ctx);
}
