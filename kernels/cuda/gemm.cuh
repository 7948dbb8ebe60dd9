// fusebench's own fp32 GEMM with fused epilogues: y[m, n] = epilogue(x[m, k]·w[n, k]ᵀ), both
// operands k-contiguous (PyTorch's Linear layout), plain FMA on the CUDA cores (no TF32).
//
// Tiling: a 256-thread block computes a 128×128 tile of y, walking k in slices of 16. Each thread
// owns an 8×8 register tile (rows {4ty..4ty+3, 64+4ty..}, columns {4tx..4tx+3, 64+4tx..}), so one
// k step costs four 16-byte shared loads and 64 FMAs; a warp spans 4 ty × 8 tx, so its loads of
// the transposed tiles touch 4 and 8 distinct 16-byte words (no bank conflicts). Global tiles are
// prefetched into registers one k slice ahead and stored transposed into the other shared buffer.
//
// Epilogues: gemm_common.cuh, applied to the register tile before the one write of y.
// LayerNorm folding (kLnFold), for y = LayerNorm(x)·wᵀ + b with LayerNorm(x)_k = (x_k − μ)·ρ·γ_k + β_k:
//   Σ_k LN(x)_ik w_jk = ρ_i·(Σ_k x_ik·w'_jk − μ_i·c_j) + Σ_k β_k w_jk,  w'_jk = γ_k·w_jk,  c_j = Σ_k w'_jk
// fold_layernorm_weights() makes w', c and d_j = b_j + Σ_k β_k w_jk (one warp per weight row: a
// read and a write of w, small beside the GEMM, and needed once per weight update: the
// layernorm_linear_prefolded comparison times the GEMM without it); the GEMM then multiplies raw x
// by w', accumulates each row's Σ(x − s) and Σ(x − s)² while its x tiles stream (s = the row's first
// element: a shift that keeps the one-pass variance from cancelling when the mean is large against
// the spread), and applies ρ_i·(acc − μ_i·c_j) with bias d in the epilogue. Every block walks all
// of k, so the row statistics are exact without a second pass over x or another launch.
//
// Constraints (checked by the launcher): k % 4 == 0 and 16-byte aligned x and w (the tiles are
// loaded as float4 along k); any m and n (edge tiles are predicated); n % 4 == 0 and an aligned y
// take the float4 store path, otherwise the epilogue stores element by element.
#pragma once
#include <cuda_runtime.h>

#include "common/gemm_limits.h"
#include "common/launch.h"
#include "cuda_check.cuh"
#include "cuda/gemm_common.cuh"

namespace fusebench::cuda {

constexpr int kGemmBM = 128, kGemmBN = 128, kGemmBK = 16, kGemmThreads = 256;
static_assert(kGemmBM == kGemmTileRows, "common/gemm_limits.h states the GEMM's row tile");
constexpr int kGemmPad = 4;  // shared rows of 132 floats keep the float4 reads aligned

template <Epilogue E, bool kLnFold>
__global__ void __launch_bounds__(kGemmThreads, 2) gemm_tn_kernel(GemmArgs a) {
  constexpr int BM = kGemmBM, BN = kGemmBN, BK = kGemmBK, LD = BM + kGemmPad;
  __shared__ __align__(16) float As[2][BK][LD];
  __shared__ __align__(16) float Bs[2][BK][LD];
  __shared__ float row_mean[kLnFold ? BM : 1], row_rstd[kLnFold ? BM : 1];

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int tx = (warp % 2) * 8 + lane % 8;  // 0..15: column group
  const int ty = (warp / 2) * 4 + lane / 8;  // 0..15: row group
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  // Loader mapping: thread loads float4 (k4) of tile rows lr and lr + 64, for x and for w.
  const int lr = tid / 4, lk = (tid % 4) * 4;
  const float* xrow[2];
  const float* wrow[2];
  bool xok[2], wok[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int gr = row0 + lr + 64 * h, gc = col0 + lr + 64 * h;
    xok[h] = gr < a.m;
    wok[h] = gc < a.n;
    xrow[h] = a.x + static_cast<size_t>(xok[h] ? gr : 0) * a.k;
    wrow[h] = a.w + static_cast<size_t>(wok[h] ? gc : 0) * a.k;
  }

  // LayerNorm folding state: per loaded x row, the shift and the shifted sums.
  float shift[2] = {0.0f, 0.0f}, s1[2] = {0.0f, 0.0f}, s2[2] = {0.0f, 0.0f};
  if constexpr (kLnFold) {
#pragma unroll
    for (int h = 0; h < 2; ++h) shift[h] = xok[h] ? __ldg(xrow[h]) : 0.0f;
  }

  float4 xa[2], wb[2];
  auto load_tile = [&](int k0) {
    const int kk = k0 + lk;
    const bool kin = kk < a.k;  // k % 4 == 0, so a float4 is either all in or all out
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      xa[h] = (xok[h] && kin) ? __ldg(reinterpret_cast<const float4*>(xrow[h] + kk)) : make_float4(0.f, 0.f, 0.f, 0.f);
      wb[h] = (wok[h] && kin) ? __ldg(reinterpret_cast<const float4*>(wrow[h] + kk)) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
  };
  auto store_tile = [&](int buf, int k0) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float4 v = xa[h];
      if constexpr (kLnFold) {
        if (k0 + lk < a.k) {  // padding past k must not enter the statistics
          const float d0 = v.x - shift[h], d1 = v.y - shift[h], d2 = v.z - shift[h], d3 = v.w - shift[h];
          s1[h] += (d0 + d1) + (d2 + d3);
          s2[h] += (d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3);
        }
      }
      const int r = lr + 64 * h;
      As[buf][lk + 0][r] = v.x;
      As[buf][lk + 1][r] = v.y;
      As[buf][lk + 2][r] = v.z;
      As[buf][lk + 3][r] = v.w;
      Bs[buf][lk + 0][r] = wb[h].x;
      Bs[buf][lk + 1][r] = wb[h].y;
      Bs[buf][lk + 2][r] = wb[h].z;
      Bs[buf][lk + 3][r] = wb[h].w;
    }
  };

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

  load_tile(0);
  store_tile(0, 0);
  __syncthreads();
  int buf = 0;
  for (int k0 = 0; k0 < a.k; k0 += BK) {
    const bool more = k0 + BK < a.k;
    if (more) load_tile(k0 + BK);
    gemm_multiply_slice<BK, BM, BN, LD, LD>(acc, &As[buf][0][0], &Bs[buf][0][0], ty, tx);
    if (more) {
      store_tile(buf ^ 1, k0 + BK);
      __syncthreads();
      buf ^= 1;
    }
  }

  if constexpr (kLnFold) {
    // The four loader threads of a row (adjacent lanes) hold partial sums over disjoint k.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
      for (int off = 1; off < 4; off <<= 1) {
        s1[h] += __shfl_xor_sync(0xffffffffu, s1[h], off);
        s2[h] += __shfl_xor_sync(0xffffffffu, s2[h], off);
      }
      if (tid % 4 == 0) {
        const float inv_k = 1.0f / static_cast<float>(a.k);
        const float dm = s1[h] * inv_k;                      // mean − shift
        const float var = fmaxf(s2[h] * inv_k - dm * dm, 0.0f);
        row_mean[lr + 64 * h] = shift[h] + dm;
        row_rstd[lr + 64 * h] = rsqrtf(var + a.eps);
      }
    }
    __syncthreads();
  }

  gemm_store_tile<E, kLnFold, BM, BN>(acc, a, row0, col0, ty, tx, row_mean, row_rstd);
}

// w' = w·diag(γ), c_j = Σ_k w'_jk, d_j = b_j + Σ_k β_k·w_jk for w [n, k] (layernorm_fold.cu).
void fold_layernorm_weights(const float* w, const float* gamma, const float* beta, const float* b, float* w_folded,
                            float* c, float* d, int n, int k, const LaunchContext& ctx);

// Launches the GEMM; throws (naming `what`) when the operands break the kernel's constraints.
template <Epilogue E, bool kLnFold = false>
void launch_gemm_tn(const GemmArgs& a, const LaunchContext& ctx, const char* what) {
  check_gemm_operands(a, kGemmBM, what);
  const dim3 grid((a.n + kGemmBN - 1) / kGemmBN, (a.m + kGemmBM - 1) / kGemmBM);
  gemm_tn_kernel<E, kLnFold><<<grid, kGemmThreads, 0, static_cast<cudaStream_t>(ctx.stream)>>>(a);
  FB_CUDA_CHECK_LAUNCH(what);
}

}  // namespace fusebench::cuda
