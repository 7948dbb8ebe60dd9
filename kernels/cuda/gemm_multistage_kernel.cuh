// fusebench's multistage fp32 GEMM kernel (the launcher: gemm_multistage.cuh): y[m, n] =
// epilogue(x[m, k]·w[n, k]ᵀ), both operands k-contiguous, plain FMA on the CUDA cores (no TF32); the
// same epilogues and LayerNorm fold as gemm.cuh (which states the fold's algebra), on a copy pipeline
// that keeps several k slices in flight.
//
// Tiling (GemmTile): a block computes a BM×BN tile of y with (BM/8)·(BN/8) threads, walking k in
// slices of BK. Each thread owns an 8×8 register tile (rows {4ty..4ty+3, BM/2+4ty..}, columns
// {4tx..4tx+3, BN/2+4tx..}); a warp spans 4 ty × 8 tx, so one k step costs four 16-byte shared loads
// (4 and 8 distinct words a warp) and 64 FMAs.
//
// Shared memory holds each slice transposed (k-major: row kk holds the slice's BM x values, then its
// BN w values, of one k), so the inner loop reads 4 rows or 4 columns per 16-byte load at addresses
// fixed at compile time. Rows are padded by 4 floats: a warp's copies (8 consecutive k of 4 rows)
// then land in 32 distinct banks, and the 16-byte reads stay aligned.
//
// Copies: on sm_80+ every element goes global → shared by a 4-byte asynchronous copy (cp.async,
// zero-filled past k), kStages − 1 slices ahead of the slice being multiplied; a warp's
// copies read 32 contiguous bytes of each of 4 rows. Volta has no asynchronous copy: the same
// elements are loaded into registers one slice ahead and stored into the other of two shared buffers
// after the slice's FMAs.
//
// LayerNorm fold (kLnFold): the row statistics come from the x slices already in shared memory (each
// row summed by kThreads / BM threads over disjoint k, combined once at the end), shifted by the
// row's first element as in gemm.cuh.
//
// Device code only (no CUDA headers), so the tests run it on the CPU (suites/emu).
#pragma once
#include <cstddef>

#include "cuda/gemm_common.cuh"

namespace fusebench::cuda {

// One tile configuration: BM×BN outputs per block, k slices of BK, kStages shared buffers (sm_80+:
// kStages − 1 slices copied while one is multiplied).
template <int BM_, int BN_, int BK_, int kStages_>
struct GemmTile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, kStages = kStages_;
  static constexpr int kThreads = (BM / 8) * (BN / 8);
  static constexpr int kMinBlocks = kThreads >= 512 ? 1 : 512 / kThreads;  // 128 registers a thread at most
  static constexpr int kWarpCols = BN / 64;                                // warps across the tile's columns
  static constexpr int kStatParts = kThreads / BM;                         // kLnFold: threads per row of x
  static constexpr int kLdA = BM + 4, kLdB = BN + 4;  // padded shared rows (above)
  static constexpr int kStageFloats = BK * (kLdA + kLdB);
  static constexpr size_t smem_bytes(bool ln_fold) {
    return sizeof(float) * (static_cast<size_t>(kStages) * kStageFloats + (ln_fold ? 2 * BM * (kStatParts + 1) : 0));
  }
  static_assert(BM % 64 == 0 && BN % 64 == 0, "a warp spans 4×8 threads of 8×8 outputs, in two halves");
  static_assert(BK % 8 == 0, "a warp copies 8 consecutive k of 4 rows");
  static_assert(kThreads % BM == 0 && BK % kStatParts == 0, "the row statistics split a slice's k evenly");
  static_assert(kStages >= 2, "two buffers at least");
};

// The kernels are local to each .cu file that includes this header (see gemm_multistage.cuh).
namespace {

// A thread's copies of one slice of an operand with R rows (shared rows of LD floats): thread tid
// copies slice row kk_of(h) = 8·h + tid % 8 of tile row r_of(j) = tid / 8 + j·kThreads / 8, for
// h < BK / 8 and j < kRowSteps, so a warp reads 8 consecutive k (32 bytes) of each of 4 rows.
template <class Tile, int R, int LD>
struct SliceCopy {
  static constexpr int kRowStep = Tile::kThreads / 8, kRowSteps = R / kRowStep, kHalves = Tile::BK / 8;
  static_assert(R % kRowStep == 0, "a slice's rows are a whole number of the threads' row steps");
  __device__ static int kk_of(int tid, int h) { return 8 * h + tid % 8; }
  __device__ static int r_of(int tid, int j) { return tid / 8 + j * kRowStep; }
  // Shared offset of element (h, j) in a stage's operand block.
  __device__ static int at(int tid, int h, int j) { return kk_of(tid, h) * LD + r_of(tid, j); }
  // sm_80+: issues this thread's asynchronous copies of the slice at k0 from its rows into `stage`.
  // kWhole: the slice lies before k (every slice but a partial last one) and copies unpredicated;
  // otherwise k past its end is zero-filled from an address inside the tile.
  template <bool kWhole>
  __device__ static void copy_async(float* stage, const float* const (&rows)[kRowSteps], const float* tile, int tid,
                                    int k0, int k) {
#pragma unroll
    for (int h = 0; h < kHalves; ++h) {
      const bool kin = kWhole || k0 + kk_of(tid, h) < k;
#pragma unroll
      for (int j = 0; j < kRowSteps; ++j)
        __pipeline_memcpy_async(stage + at(tid, h, j), kin ? rows[j] + k0 + 8 * h : tile, 4, kin ? 0 : 4);
    }
  }
  // Offset of element (0, j) in the operand from its tile's first row, for a tile of `rows` rows
  // (rows past them read the last one: their copies are zero-filled) and `k` columns.
  __device__ static int src_offset(int tid, int j, int rows, int k) {
    const int r = r_of(tid, j) < rows ? r_of(tid, j) : rows - 1;
    return r * k + tid % 8;
  }
};

template <class Tile, Epilogue E, bool kLnFold>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks) gemm_multistage_kernel(GemmArgs a) {
  constexpr int BM = Tile::BM, BN = Tile::BN, BK = Tile::BK, S = Tile::kStages;
  constexpr int LDA = Tile::kLdA, LDB = Tile::kLdB;
  using CopyA = SliceCopy<Tile, BM, LDA>;
  using CopyB = SliceCopy<Tile, BN, LDB>;
  extern __shared__ __align__(16) float smem[];
  float* stats = smem + S * Tile::kStageFloats;  // kLnFold: partial sums, then the rows' μ and ρ

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int tx = (warp % Tile::kWarpCols) * 8 + lane % 8;  // column group
  const int ty = (warp / Tile::kWarpCols) * 4 + lane / 8;  // row group
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int slices = (a.k + BK - 1) / BK;
  auto stage_a = [&](int s) { return smem + s * Tile::kStageFloats; };
  auto stage_b = [&](int s) { return smem + s * Tile::kStageFloats + BK * LDA; };

  // The operand tiles (their first rows) and each copied row: element (h, j) of slice t is at
  // row[j] + t·BK + 8·h. Rows past m or n copy the last row instead (SliceCopy::src_offset):
  // their sums are never stored, so they need no zero fill, and whole slices copy unpredicated.
  const float* xtile = a.x + static_cast<size_t>(row0) * a.k;
  const float* wtile = a.w + static_cast<size_t>(col0) * a.k;
  const float* xrow[CopyA::kRowSteps];
  const float* wrow[CopyB::kRowSteps];
#pragma unroll
  for (int j = 0; j < CopyA::kRowSteps; ++j) xrow[j] = xtile + CopyA::src_offset(tid, j, a.m - row0, a.k);
#pragma unroll
  for (int j = 0; j < CopyB::kRowSteps; ++j) wrow[j] = wtile + CopyB::src_offset(tid, j, a.n - col0, a.k);
  // Whether element (h, ·) of the slice starting at k0 lies before k (always, but in a last partial
  // slice); kk_of is the same for both operands.
  auto k_in = [&](int k0, int h) { return k0 + CopyA::kk_of(tid, h) < a.k; };

  // LayerNorm fold: this thread sums row stat_row of x over slice rows [stat_part·kStatK, +kStatK).
  constexpr int kStatK = BK / Tile::kStatParts;
  const int stat_row = tid % BM, stat_part = tid / BM;
  float shift = 0.0f, s1 = 0.0f, s2 = 0.0f;
  if constexpr (kLnFold) shift = row0 + stat_row < a.m ? __ldg(a.x + static_cast<size_t>(row0 + stat_row) * a.k) : 0.0f;
  auto add_stats = [&](int s, int slice) {
    const float* as = stage_a(s);
#pragma unroll
    for (int i = 0; i < kStatK; ++i) {
      const int kk = stat_part * kStatK + i;
      if (slice * BK + kk < a.k) {  // the zero padding past k must not enter the statistics
        const float d = as[kk * LDA + stat_row] - shift;
        s1 += d;
        s2 = fmaf(d, d, s2);
      }
    }
  };

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  auto multiply = [&](int s) { gemm_multiply_slice<BK, BM, BN, LDA, LDB>(acc, stage_a(s), stage_b(s), ty, tx); };

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // Asynchronous copies, S − 1 slices ahead of the one being multiplied (SliceCopy::copy_async).
  auto fetch_slice = [&](int s, int slice) {
    const int k0 = slice * BK;
    if (k0 + BK <= a.k) {
      CopyA::template copy_async<true>(stage_a(s), xrow, xtile, tid, k0, a.k);
      CopyB::template copy_async<true>(stage_b(s), wrow, wtile, tid, k0, a.k);
    } else {
      CopyA::template copy_async<false>(stage_a(s), xrow, xtile, tid, k0, a.k);
      CopyB::template copy_async<false>(stage_b(s), wrow, wtile, tid, k0, a.k);
    }
  };
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < slices) fetch_slice(s, s);
    __pipeline_commit();
  }
  for (int t = 0; t < slices; ++t) {
    __pipeline_wait_prior(S - 2);  // this thread's copies of slice t have landed ...
    __syncthreads();               // ... and everyone's; everyone is done with slice t − 1's buffer
    if (t + S - 1 < slices) fetch_slice((t + S - 1) % S, t + S - 1);
    __pipeline_commit();
    if constexpr (kLnFold) add_stats(t % S, t);
    multiply(t % S);
  }
#else
  // Volta: registers one slice ahead, two shared buffers.
  float xa[CopyA::kHalves][CopyA::kRowSteps], wb[CopyB::kHalves][CopyB::kRowSteps];
  auto load = [&](int slice) {
    const int k0 = slice * BK;
#pragma unroll
    for (int h = 0; h < CopyA::kHalves; ++h)
#pragma unroll
      for (int j = 0; j < CopyA::kRowSteps; ++j) xa[h][j] = k_in(k0, h) ? __ldg(xrow[j] + k0 + 8 * h) : 0.0f;
#pragma unroll
    for (int h = 0; h < CopyB::kHalves; ++h)
#pragma unroll
      for (int j = 0; j < CopyB::kRowSteps; ++j) wb[h][j] = k_in(k0, h) ? __ldg(wrow[j] + k0 + 8 * h) : 0.0f;
  };
  auto store = [&](int s) {
#pragma unroll
    for (int h = 0; h < CopyA::kHalves; ++h)
#pragma unroll
      for (int j = 0; j < CopyA::kRowSteps; ++j) stage_a(s)[CopyA::at(tid, h, j)] = xa[h][j];
#pragma unroll
    for (int h = 0; h < CopyB::kHalves; ++h)
#pragma unroll
      for (int j = 0; j < CopyB::kRowSteps; ++j) stage_b(s)[CopyB::at(tid, h, j)] = wb[h][j];
  };
  load(0);
  store(0);
  __syncthreads();
  for (int t = 0; t < slices; ++t) {
    const bool more = t + 1 < slices;
    if (more) load(t + 1);
    if constexpr (kLnFold) add_stats(t % 2, t);
    multiply(t % 2);
    if (more) {
      store((t + 1) % 2);
      __syncthreads();
    }
  }
#endif

  float* row_mean = stats + 2 * BM * Tile::kStatParts;
  float* row_rstd = row_mean + BM;
  if constexpr (kLnFold) {
    stats[stat_part * BM + stat_row] = s1;
    stats[(Tile::kStatParts + stat_part) * BM + stat_row] = s2;
    __syncthreads();
    if (tid < BM) {
      float t1 = 0.0f, t2 = 0.0f;
#pragma unroll
      for (int p = 0; p < Tile::kStatParts; ++p) {
        t1 += stats[p * BM + tid];
        t2 += stats[(Tile::kStatParts + p) * BM + tid];
      }
      const float inv_k = 1.0f / static_cast<float>(a.k);
      const float dm = t1 * inv_k;  // mean − shift
      row_mean[tid] = shift + dm;
      row_rstd[tid] = rsqrtf(fmaxf(t2 * inv_k - dm * dm, 0.0f) + a.eps);
    }
    __syncthreads();
  }
  gemm_store_tile<E, kLnFold, BM, BN>(acc, a, row0, col0, ty, tx, row_mean, row_rstd);
}

}  // namespace
}  // namespace fusebench::cuda
