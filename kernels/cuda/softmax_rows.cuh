// The softmax row kernels over attention scores P = softmax(scale·S + causal mask) along the last
// axis of [rows, seq_k], rows = batch·heads·seq_q, and the causal mask kernel of the unfused twins.
// Key j is masked (−inf) for query i when j > i + (seq_k − seq_q): the queries are the last seq_q
// positions of the seq_k keys. A row with every key masked (possible when seq_q > seq_k) is all
// zeros, never NaN. The fused kernel applies scale and mask as it loads the scores; the unfused
// softmax reads scores already scaled and masked. Both share the row layout, reductions and
// exponentials (row_reduce.cuh), so a speedup measures what fusion saves. Scores and probabilities are
// stored in T; max, exponentials and sums are fp32.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "common/launch.h"
#include "cuda/elementwise.cuh"
#include "cuda/row_reduce.cuh"
#include "cuda/cuda_check.cuh"

namespace fusebench::cuda {

// The last unmasked key of a row of [batch·heads·seq_q, seq_k]: keys j > limit are masked. The
// query is row % seq_q; negative when every key is masked (seq_q > seq_k). One division per row.
__device__ __forceinline__ long long causal_limit(size_t row, int seq_q, int seq_k) {
  return static_cast<long long>(row % static_cast<size_t>(seq_q)) + seq_k - seq_q;
}

// The unfused mask kernel: one warp per row copies the scores, −inf where masked. It reads every
// score, masked or not, as torch.where / masked_fill do.
template <class T, bool kVec>
__global__ void __launch_bounds__(kRowThreads)
    causal_mask_kernel(const T* __restrict__ in, T* __restrict__ out, size_t rows, int seq_q, int seq_k) {
  constexpr int kW = Pack<T>::N;
  const T masked = from_float<T>(-INFINITY);
  constexpr int kWarps = kRowThreads / 32;
  const int lane = threadIdx.x % 32;
  const size_t row_stride = static_cast<size_t>(gridDim.x) * kWarps;
  for (size_t row = static_cast<size_t>(blockIdx.x) * kWarps + threadIdx.x / 32; row < rows; row += row_stride) {
    const long long limit = causal_limit(row, seq_q, seq_k);
    const size_t off = row * static_cast<size_t>(seq_k);
    if constexpr (kVec) {
#pragma unroll 4
      for (int q = lane; q < seq_k / kW; q += 32) {  // seq_k <= 2^30: q + 32 cannot overflow
        Pack<T> v = load_pack(in + off, q);
#pragma unroll
        for (int c = 0; c < kW; ++c)
          if (static_cast<long long>(kW) * q + c > limit) v.v[c] = masked;
        store_pack(out + off, q, v);
      }
    } else {
#pragma unroll 4
      for (int j = lane; j < seq_k; j += 32) out[off + j] = j > limit ? masked : in[off + j];
    }
  }
}

// Scale and mask an element at key index j (kScaleMask, the fused kernel), or take it as it is
// (the unfused softmax, whose input is already scaled and masked).
template <bool kScaleMask>
__device__ __forceinline__ float softmax_score(float v, long long j, long long limit, float scale) {
  if constexpr (kScaleMask) return j > limit ? -INFINITY : v * scale;
  else return v;
}

// exp(v − max) with a guard for the all-masked row: its max is −inf, and exp(−inf − (−inf)) would be
// NaN; shifting by 0 instead gives exp(−inf) = 0 for every element, and the sum's guard gives p = 0.
__device__ __forceinline__ float softmax_shift(float max) { return max == -INFINITY ? 0.0f : max; }
__device__ __forceinline__ float softmax_scale(float sum) { return sum > 0.0f ? 1.0f / sum : 0.0f; }

// e^v for scores stored in T: the full-precision expf (no fast math, ≤ 2 ulp) for fp32; the hardware
// exponential (relative error ~2^-21) for the half types, whose probabilities are rounded to 2^-9 or
// 2^-12 anyway and whose kernels expf made compute-bound (docs/measurements.md, "Half-precision math").
template <class T>
__device__ __forceinline__ float softmax_exp(float v) {
  if constexpr (std::is_same_v<T, float>) return expf(v);
  else return __expf(v);
}

// Rows of up to Slots::kCapacity scores held in registers: one warp per row (kRowWarps = 1) or the
// whole block (8). Max, exponentials, sum and normalization all work on the registers.
template <class T, int kRowWarps, int kSlots, bool kVec, bool kScaleMask>
__global__ void __launch_bounds__(kRowThreads)
    softmax_rows_kernel(const T* __restrict__ in, T* __restrict__ p, size_t rows, int seq_q, int seq_k, float scale) {
  using Slots = RowSlots<T, kRowWarps, kSlots, kVec>;
  constexpr int kW = Slots::kW;
  const int t = threadIdx.x % Slots::kThreads;
  const size_t row_stride = static_cast<size_t>(gridDim.x) * Slots::kRowsPerBlock;
  size_t row = static_cast<size_t>(blockIdx.x) * Slots::kRowsPerBlock + threadIdx.x / Slots::kThreads;
  for (; row < rows; row += row_stride) {  // uniform across a multi-warp row group
    const size_t off = row * static_cast<size_t>(seq_k);
    const long long limit = kScaleMask ? causal_limit(row, seq_q, seq_k) : 0;
    float v[kSlots][kW];  // past the row's end: −inf, so exp gives 0 (and with kScaleMask: masked)
#pragma unroll
    for (int s = 0; s < kSlots; ++s) Slots::load(in + off, seq_k, s, t, -INFINITY, v[s]);
    float max = -INFINITY;
#pragma unroll
    for (int s = 0; s < kSlots; ++s)
#pragma unroll
      for (int c = 0; c < kW; ++c) {
        v[s][c] = softmax_score<kScaleMask>(v[s][c], Slots::index(s, c, t), limit, scale);
        max = fmaxf(max, v[s][c]);
      }
    const float shift = softmax_shift(row_reduce<kRowWarps>(max, MaxOp{}));
    float sum = 0.0f;
#pragma unroll
    for (int s = 0; s < kSlots; ++s)
#pragma unroll
      for (int c = 0; c < kW; ++c) {
        v[s][c] = softmax_exp<T>(v[s][c] - shift);
        sum += v[s][c];
      }
    const float inv = softmax_scale(row_reduce<kRowWarps>(sum, SumOp{}));
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
#pragma unroll
      for (int c = 0; c < kW; ++c) v[s][c] *= inv;
      Slots::store(p + off, seq_k, s, t, v[s]);
    }
  }
}

// Rows longer than the register kernels hold (seq_k > 8192): one block per row, the row walked in
// tiles of the same slot layout, three passes over the scores (max; sum of exponentials; write),
// each reading them again (mostly from L2) and recomputing scale and mask.
template <class T, bool kVec, bool kScaleMask>
__global__ void __launch_bounds__(kRowThreads)
    softmax_stream_kernel(const T* __restrict__ in, T* __restrict__ p, size_t rows, int seq_q, int seq_k, float scale) {
  constexpr int kTileSlots = 2;  // two 16-byte loads in flight per thread
  using Tile = RowSlots<T, 8, kTileSlots, kVec>;
  constexpr int kW = Tile::kW;
  const int t = threadIdx.x;
  for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {  // uniform across the block
    const size_t off = row * static_cast<size_t>(seq_k);
    const long long limit = kScaleMask ? causal_limit(row, seq_q, seq_k) : 0;
    // Slot s of the tile at `base`, scaled and masked: seq_k <= 2^30, so base + kCapacity fits int.
    auto load_tile = [&](int base, int s, float (&v)[kW]) {
      Tile::load(in + off + base, seq_k - base, s, t, -INFINITY, v);
#pragma unroll
      for (int c = 0; c < kW; ++c) v[c] = softmax_score<kScaleMask>(v[c], base + Tile::index(s, c, t), limit, scale);
    };
    // Every pass walks the row the same way: slot by slot, each tile scaled and masked.
    auto for_each_slot = [&](auto&& visit) {
      for (int base = 0; base < seq_k; base += Tile::kCapacity)
#pragma unroll
        for (int s = 0; s < kTileSlots; ++s) {
          float v[kW];
          load_tile(base, s, v);
          visit(base, s, v);
        }
    };
    float max = -INFINITY;
    for_each_slot([&](int, int, float (&v)[kW]) {
#pragma unroll
      for (int c = 0; c < kW; ++c) max = fmaxf(max, v[c]);
    });
    const float shift = softmax_shift(row_reduce<8>(max, MaxOp{}));
    float sum = 0.0f;
    for_each_slot([&](int, int, float (&v)[kW]) {
#pragma unroll
      for (int c = 0; c < kW; ++c) sum += softmax_exp<T>(v[c] - shift);
    });
    const float inv = softmax_scale(row_reduce<8>(sum, SumOp{}));
    for_each_slot([&](int base, int s, float (&v)[kW]) {
#pragma unroll
      for (int c = 0; c < kW; ++c) v[c] = softmax_exp<T>(v[c] - shift) * inv;
      Tile::store(p + off + base, seq_k - base, s, t, v);
    });
  }
}

// Softmax of `in` into p; with kScaleMask, scale and causal mask are applied on the way in.
template <bool kScaleMask, class T>
void launch_softmax(const T* in, T* p, size_t rows, size_t seq_q_, size_t seq_k_, float scale, const LaunchContext& ctx) {
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  const int seq_q = static_cast<int>(seq_q_);  // <= 2^30: the cases state the limit
  const int seq_k = static_cast<int>(seq_k_);
  const bool vec = vector_rows_ok<T>(seq_k_, {in, p});
  dispatch_rows<T>(seq_k_, vec, [&](auto warps, auto slots, auto vec_tag) {
    constexpr int kRowWarps = decltype(warps)::value;
    constexpr int kSlots = decltype(slots)::value;
    constexpr bool kVec = decltype(vec_tag)::value;
    if constexpr (kSlots == 0) {
      constexpr auto kernel = softmax_stream_kernel<T, kVec, kScaleMask>;
      const unsigned grid = row_grid<kernel>(rows, kRowThreads, ctx);
      kernel<<<grid, kRowThreads, 0, stream>>>(in, p, rows, seq_q, seq_k, scale);
      FB_CUDA_CHECK_LAUNCH("softmax_stream_kernel");
    } else {
      constexpr auto kernel = softmax_rows_kernel<T, kRowWarps, kSlots, kVec, kScaleMask>;
      const unsigned grid = row_grid<kernel>(rows, 32 * kRowWarps, ctx);
      kernel<<<grid, kRowThreads, 0, stream>>>(in, p, rows, seq_q, seq_k, scale);
      FB_CUDA_CHECK_LAUNCH("softmax_rows_kernel");
    }
  });
}

template <bool kVec, class T>
void launch_mask(const T* in, T* out, size_t rows, size_t seq_q, size_t seq_k, const LaunchContext& ctx) {
  constexpr auto kernel = causal_mask_kernel<T, kVec>;
  const unsigned grid = row_grid<kernel>(rows, 32, ctx);
  kernel<<<grid, kRowThreads, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      in, out, rows, static_cast<int>(seq_q), static_cast<int>(seq_k));
  FB_CUDA_CHECK_LAUNCH("causal_mask_kernel");
}

}  // namespace fusebench::cuda
