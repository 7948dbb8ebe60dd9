// fusebench's fp32 GEMM kernel (launcher: gemm.cuh): y[m, n] = epilogue(x[m, k]·w[n, k]ᵀ), both
// operands k-contiguous (PyTorch's Linear layout), plain FMA on the CUDA cores (no TF32), with the
// epilogues and the LayerNorm fold of gemm_common.cuh.
//
// Tiling (GemmTile): a block computes a BM×BN tile of y with (BM/8)·(BN/8) threads, walking k in
// slices of BK. Each thread owns an 8×8 register tile (rows {4ty..4ty+3, BM/2+4ty..}, columns
// {4tx..4tx+3, BN/2+4tx..}); a warp spans 4 ty × 8 tx, so one k step costs four 16-byte shared loads
// (4 and 8 distinct words a warp) and 64 FMAs (gemm_multiply_slice: the FMAs in a bank-friendly
// order).
//
// Shared memory holds each slice transposed (k-major: row kk holds the slice's BM x values, then its
// BN w values, of one k), so the inner loop reads 4 rows or 4 columns per 16-byte load at addresses
// fixed at compile time. Rows are padded by 4 floats: a warp's copies (8 consecutive k of 4 rows)
// then land in 32 distinct banks, and the 16-byte reads stay aligned.
//
// Copies: on sm_80+ every element goes global → shared by a 4-byte asynchronous copy (async_copy.cuh:
// one 32-bit shared address a thread, every other element a compile-time offset from it), zero-filled
// past k; a warp's copies read 32 contiguous bytes of each of 4 rows. Volta has no asynchronous copy:
// the same elements are loaded into registers one slice ahead and stored into the other of two shared
// buffers after the slice's FMAs, with a block barrier per slice.
//
// Pipeline (sm_80+): kStages buffers, each with two shared-memory barriers (mbarrier) instead of a
// block barrier per slice: full[s] completes when every thread's copies into buffer s have landed
// (each thread arrives through cp.async.mbarrier.arrive once its copies are in), empty[s] when every
// thread has finished multiplying it. A thread multiplies slice t once full says so, arrives on empty,
// then, once everyone is past slice t − 1, copies slice t + kStages − 1 into slice t − 1's buffer. With
// three buffers the copies of a slice are issued one slice of FMAs before they are needed, as with two
// buffers and a block barrier; the third buffer lets a warp run up to a slice ahead of the slowest one
// instead of meeting it at every slice. The block barrier was a stall cuBLAS's SGEMM barely has; the
// mbarriers remove it and bring the GEMM without an epilogue closer to cuBLAS at the suite's shapes
// (ncu's stalls and the throughputs: docs/measurements.md, "GEMM pipeline: mbarriers";
// scripts/device/gemm-tiles.cu).
// On sm_80 a waiting warp polls (mbarrier.test_wait), on sm_90 it is suspended (mbarrier.try_wait).

// LayerNorm fold (kLnFold; gemm.cuh states the algebra): the main loop is the plain GEMM on x and the
// folded weights; the epilogue applies each row's μ and ρ (layernorm_row_stats, a pass over x before
// the launch) and the column sums c.
//
// Device code only (no CUDA headers; the copy functions come from async_copy.cuh on the GPU and from
// suites/emu/cuda_emu.h on the CPU), so the tests run it on the CPU.
#pragma once
#include <cstddef>

#include "cuda/gemm_common.cuh"

namespace fusebench::cuda {

// One tile configuration: BM×BN outputs per block, k slices of BK, kStages shared buffers on sm_80+
// (the pipeline above; Volta uses two).
template <int BM_, int BN_, int BK_, int kStages_>
struct GemmTile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, kStages = kStages_;
  static constexpr int kThreads = (BM / 8) * (BN / 8);
  static constexpr int kMinBlocks = kThreads >= 512 ? 1 : 512 / kThreads;  // 128 registers a thread at most
  static constexpr int kWarpCols = BN / 64;                                // warps across the tile's columns
  static constexpr int kLdA = BM + 4, kLdB = BN + 4;  // padded shared rows (above)
  static constexpr int kStageFloats = BK * (kLdA + kLdB);
  // Shared buffers on a GPU of compute capability `cc` (10·major + minor).
  __host__ __device__ static constexpr int buffers(int cc) { return cc >= 80 ? kStages : 2; }
  // Bytes of shared memory a block takes there: the buffers, then (kLnFold) the rows' μ and ρ, then
  // (sm_80+) the full and empty barriers, 8 bytes each.
  static constexpr size_t smem_bytes(bool ln_fold, int cc) {
    return sizeof(float) * (static_cast<size_t>(buffers(cc)) * kStageFloats + (ln_fold ? 2 * BM : 0)) +
           (cc >= 80 ? 16 * static_cast<size_t>(kStages) : 0);
  }
  static_assert(BM % 64 == 0 && BN % 64 == 0, "a warp spans 4×8 threads of 8×8 outputs, in two halves");
  static_assert(BK % 8 == 0, "a warp copies 8 consecutive k of 4 rows");
  static_assert(kThreads >= BM, "a thread a row loads the LayerNorm statistics");
  static_assert(kStages >= 3, "slice t + kStages − 1 goes into slice t − 1's buffer, not slice t's");
  static_assert(kStageFloats % 2 == 0 && BM % 2 == 0, "the barriers after the buffers are 8-byte aligned");
};

// The kernels are local to each .cu file that includes this header (see gemm.cuh).
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
  // Shared offset (floats) of element (h, j) from the thread's element (0, 0): fixed at compile time.
  __host__ __device__ static constexpr int step(int h, int j) { return 8 * h * LD + j * kRowStep; }
  // Shared offset of the thread's element (0, 0) in a stage's operand block.
  __device__ static int first(int tid) { return kk_of(tid, 0) * LD + r_of(tid, 0); }
  // Where element (0, j) of the first slice is, for an operand tile at `tile` of `rows` rows (rows
  // past them read the last one: their sums are never stored) and `k` columns.
  __device__ static const float* source(const float* tile, int tid, int j, int rows, int k) {
    const int r = r_of(tid, j) < rows ? r_of(tid, j) : rows - 1;
    return tile + static_cast<size_t>(r) * k + tid % 8;
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // Issues this thread's asynchronous copies of the slice at k0 into the shared address `dst` of its
  // element (0, 0), from src[j] (element (0, j) of that slice), then advances src to the next slice.
  // kWhole: the slice lies before k (every slice but a partial last one) and copies unpredicated;
  // otherwise k past its end is zero-filled, from `safe` (an address inside the operand).
  template <bool kWhole>
  __device__ static void copy_async(unsigned dst, const float* (&src)[kRowSteps], const float* safe, int tid, int k0, int k) {
#pragma unroll
    for (int h = 0; h < kHalves; ++h) {
      const bool kin = kWhole || k0 + kk_of(tid, h) < k;
#pragma unroll
      for (int j = 0; j < kRowSteps; ++j) {
        if constexpr (kWhole) cp_async4(dst + 4u * step(h, j), src[j] + 8 * h);
        else cp_async4_zfill(dst + 4u * step(h, j), kin ? src[j] + 8 * h : safe, kin);
      }
    }
#pragma unroll
    for (int j = 0; j < kRowSteps; ++j) src[j] += Tile::BK;
  }
#endif
};

template <class Tile, Epilogue E, bool kLnFold>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks) gemm_kernel(GemmArgs a) {
  constexpr int BM = Tile::BM, BN = Tile::BN, BK = Tile::BK;
#ifdef __CUDA_ARCH__
  constexpr int S = Tile::buffers(__CUDA_ARCH__ / 10);  // as the launcher sizes shared memory (smem_bytes)
#else
  constexpr int S = Tile::buffers(0);  // the host pass: never runs
#endif
  constexpr int LDA = Tile::kLdA, LDB = Tile::kLdB;
  using CopyA = SliceCopy<Tile, BM, LDA>;
  using CopyB = SliceCopy<Tile, BN, LDB>;
  extern __shared__ __align__(16) float smem[];
  float* row_mean = smem + S * Tile::kStageFloats;  // kLnFold: the block's rows' μ and ρ
  float* row_rstd = row_mean + BM;

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int tx = (warp % Tile::kWarpCols) * 8 + lane % 8;  // column group
  const int ty = (warp / Tile::kWarpCols) * 4 + lane / 8;  // row group
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int slices = (a.k + BK - 1) / BK;
  auto stage_a = [&](int s) { return smem + s * Tile::kStageFloats; };
  auto stage_b = [&](int s) { return smem + s * Tile::kStageFloats + BK * LDA; };

  // Where each copied row's element (0, j) of the next slice to fetch is.
  const float* xtile = a.x + static_cast<size_t>(row0) * a.k;
  const float* wtile = a.w + static_cast<size_t>(col0) * a.k;
  const float* xsrc[CopyA::kRowSteps];
  const float* wsrc[CopyB::kRowSteps];
#pragma unroll
  for (int j = 0; j < CopyA::kRowSteps; ++j) xsrc[j] = CopyA::source(xtile, tid, j, a.m - row0, a.k);
#pragma unroll
  for (int j = 0; j < CopyB::kRowSteps; ++j) wsrc[j] = CopyB::source(wtile, tid, j, a.n - col0, a.k);

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  auto multiply = [&](int s) { gemm_multiply_slice<BK, BM, BN, LDA, LDB>(acc, stage_a(s), stage_b(s), ty, tx); };

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // The barriers (the pipeline above): full[s] at full0 + 8s, empty[s] at empty0 + 8s, after the buffers
  // and the LayerNorm statistics.
  const unsigned full0 = shared_address(row_mean + (kLnFold ? 2 * BM : 0)), empty0 = full0 + 8u * S;
  if (tid == 0) {
    for (int s = 0; s < S; ++s) {
      mbarrier_init(full0 + 8u * s, Tile::kThreads);
      mbarrier_init(empty0 + 8u * s, Tile::kThreads);
    }
  }
  __syncthreads();
  // Copies slice `slice` into buffer s (SliceCopy::copy_async) and arrives on full[s] once they have landed.
  const unsigned dst_a = shared_address(smem + CopyA::first(tid));
  const unsigned dst_b = shared_address(smem + BK * LDA + CopyB::first(tid));
  auto fetch = [&](int s, int slice) {
    const int k0 = slice * BK;
    const unsigned off = 4u * static_cast<unsigned>(s * Tile::kStageFloats);
    if (k0 + BK <= a.k) {
      CopyA::template copy_async<true>(dst_a + off, xsrc, xtile, tid, k0, a.k);
      CopyB::template copy_async<true>(dst_b + off, wsrc, wtile, tid, k0, a.k);
    } else {
      CopyA::template copy_async<false>(dst_a + off, xsrc, xtile, tid, k0, a.k);
      CopyB::template copy_async<false>(dst_b + off, wsrc, wtile, tid, k0, a.k);
    }
    cp_async_mbarrier_arrive(full0 + 8u * s);
  };
#pragma unroll
  for (int s = 0; s < S - 1; ++s)
    if (s < slices) fetch(s, s);
  for (int t = 0; t < slices; ++t) {
    const int s = t % S;
    mbarrier_wait(full0 + 8u * s, (t / S) & 1);  // buffer s's (t / S)-th filling has landed
    multiply(s);
    mbarrier_arrive(empty0 + 8u * s);
    const int next = t + S - 1;
    if (next < slices) {
      const int ns = next % S;  // slice t − 1's buffer (new at t = 0)
      if (t > 0) mbarrier_wait(empty0 + 8u * ns, ((t - 1) / S) & 1);
      fetch(ns, next);
    }
  }
#else
  // Volta: registers one slice ahead, two shared buffers.
  float xa[CopyA::kHalves][CopyA::kRowSteps], wb[CopyB::kHalves][CopyB::kRowSteps];
  auto load = [&](int slice) {
    const int k0 = slice * BK;
#pragma unroll
    for (int h = 0; h < CopyA::kHalves; ++h) {
      const bool kin = k0 + CopyA::kk_of(tid, h) < a.k;
#pragma unroll
      for (int j = 0; j < CopyA::kRowSteps; ++j) xa[h][j] = kin ? __ldg(xsrc[j] + k0 + 8 * h) : 0.0f;
#pragma unroll
      for (int j = 0; j < CopyB::kRowSteps; ++j) wb[h][j] = kin ? __ldg(wsrc[j] + k0 + 8 * h) : 0.0f;
    }
  };
  auto store = [&](int s) {
#pragma unroll
    for (int h = 0; h < CopyA::kHalves; ++h) {
#pragma unroll
      for (int j = 0; j < CopyA::kRowSteps; ++j) stage_a(s)[CopyA::first(tid) + CopyA::step(h, j)] = xa[h][j];
#pragma unroll
      for (int j = 0; j < CopyB::kRowSteps; ++j) stage_b(s)[CopyB::first(tid) + CopyB::step(h, j)] = wb[h][j];
    }
  };
  load(0);
  store(0);
  __syncthreads();
  for (int t = 0; t < slices; ++t) {
    const bool more = t + 1 < slices;
    if (more) load(t + 1);
    multiply(t % 2);
    if (more) {
      store((t + 1) % 2);
      __syncthreads();
    }
  }
#endif

  if constexpr (kLnFold) {
    if (tid < BM) {
      const bool in = row0 + tid < a.m;
      row_mean[tid] = in ? __ldg(a.row_stats + 2 * static_cast<size_t>(row0 + tid)) : 0.0f;
      row_rstd[tid] = in ? __ldg(a.row_stats + 2 * static_cast<size_t>(row0 + tid) + 1) : 0.0f;
    }
    __syncthreads();
  }
  gemm_store_tile<E, kLnFold, BM, BN>(acc, a, row0, col0, ty, tx, row_mean, row_rstd);
}

}  // namespace
}  // namespace fusebench::cuda
