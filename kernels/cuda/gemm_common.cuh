// What fusebench's GEMM kernels share (gemm.cuh, gemm_multistage_kernel.cuh): their arguments, the
// fused epilogues, a k slice's FMAs, the one write of a thread's 8×8 register tile, and the launchers'
// operand checks. No CUDA headers, so the CPU emulation of the kernels (suites/emu) compiles it too.
//
// Epilogues (applied to the register tile before the one write of y):
//   None          y = acc (the GEMM alone: the gemm case measures it against cuBLAS)
//   Bias          y = acc + b_j
//   BiasGelu      y = gelu(acc + b_j)
//   BiasResidual  y = acc + b_j + r_ij
// With the LayerNorm fold (gemm.cuh states the algebra) acc first becomes ρ_i·(acc − μ_i·c_j).
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

#include "common/gelu.h"

namespace fusebench::cuda {

enum class Epilogue { None, Bias, BiasGelu, BiasResidual };

struct GemmArgs {
  const float* x;  // [m, k]
  const float* w;  // [n, k]
  const float* b;  // [n]
  const float* r;  // [m, n] residual (BiasResidual), row stride n
  float* y;        // [m, n], row stride ldy
  int m, n, k;
  int ldy;
  // LayerNorm folding (kLnFold): w is w', b is d, colsum is c (fold_layernorm_weights), and ε.
  const float* colsum = nullptr;
  float eps = 0.0f;
};

// The launchers' checks, naming `what`: k % 4 == 0 and 16-byte aligned x and w (the GEMM cases'
// interface: gemm.cuh's kernel loads float4 along k), and a grid of at most 65,535 row tiles of bm rows.
inline void check_gemm_operands(const GemmArgs& a, int bm, const char* what) {
  const auto misaligned = [](const void* p) { return reinterpret_cast<size_t>(p) % 16 != 0; };
  if (a.k % 4 != 0 || misaligned(a.x) || misaligned(a.w)) {
    throw std::invalid_argument(std::string(what) + ": the fused GEMM needs k % 4 == 0 and 16-byte aligned " +
                                "operands (it loads float4 along k); got k = " + std::to_string(a.k));
  }
  if ((a.m + bm - 1) / bm > 65535) {
    throw std::invalid_argument(std::string(what) + ": m = " + std::to_string(a.m) + " needs more than 65535 row tiles");
  }
}

template <Epilogue E>
__device__ __forceinline__ float epilogue_value(float acc, float bias, float res) {
  if constexpr (E == Epilogue::None) return acc;
  else if constexpr (E == Epilogue::Bias) return acc + bias;
  else if constexpr (E == Epilogue::BiasGelu) return gelu_fast(acc + bias);  // the epilogue's math is not hidden behind memory traffic
  else return acc + bias + res;
}

// One k slice of FMAs on a thread's 8×8 tile (rows {4ty + i, BM/2 + 4ty + i}, columns {4tx + j,
// BN/2 + 4tx + j}): `as` and `bs` hold the slice transposed, BK rows of x values (lda floats apart) and
// of w values (ldb floats apart), so each k step is four 16-byte shared loads and 64 FMAs.
template <int BK, int BM, int BN, int LDA, int LDB>
__device__ __forceinline__ void gemm_multiply_slice(float (&acc)[8][8], const float* as, const float* bs, int ty, int tx) {
#pragma unroll
  for (int kk = 0; kk < BK; ++kk) {
    float av[8], bv[8];
    *reinterpret_cast<float4*>(av) = *reinterpret_cast<const float4*>(as + kk * LDA + 4 * ty);
    *reinterpret_cast<float4*>(av + 4) = *reinterpret_cast<const float4*>(as + kk * LDA + BM / 2 + 4 * ty);
    *reinterpret_cast<float4*>(bv) = *reinterpret_cast<const float4*>(bs + kk * LDB + 4 * tx);
    *reinterpret_cast<float4*>(bv + 4) = *reinterpret_cast<const float4*>(bs + kk * LDB + BN / 2 + 4 * tx);
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
  }
}

// Writes a thread's tile of the BM×BN block tile at (row0, col0): rows {4ty + i, BM/2 + 4ty + i},
// columns {4tx + j, BN/2 + 4tx + j} (i, j < 4), acc[i][j] in that order. Rows past m and columns past
// n are not written; n % 4 == 0 and an aligned y take 16-byte stores. With kLnFold, row_mean and
// row_rstd hold the block's rows' μ and ρ (shared memory).
template <Epilogue E, bool kLnFold, int BM, int BN>
__device__ __forceinline__ void gemm_store_tile(const float (&acc)[8][8], const GemmArgs& a, int row0, int col0, int ty,
                                                int tx, const float* row_mean, const float* row_rstd) {
  const bool vec_store = (a.ldy % 4 == 0) && (reinterpret_cast<size_t>(a.y) % 16 == 0);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int lrow = (i < 4 ? 0 : BM / 2) + 4 * ty + (i % 4);
    const int row = row0 + lrow;
    if (row >= a.m) continue;
#pragma unroll
    for (int jh = 0; jh < 2; ++jh) {
      const int col = col0 + (BN / 2) * jh + 4 * tx;
      if (col >= a.n) continue;
      float v[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int cc = col + c < a.n ? col + c : a.n - 1;  // clamped reads; stores are predicated
        float s = acc[i][4 * jh + c];
        if constexpr (kLnFold) s = row_rstd[lrow] * (s - row_mean[lrow] * __ldg(a.colsum + cc));
        float res = 0.0f;
        if constexpr (E == Epilogue::BiasResidual) res = __ldg(a.r + static_cast<size_t>(row) * a.n + cc);
        v[c] = epilogue_value<E>(s, E == Epilogue::None ? 0.0f : __ldg(a.b + cc), res);
      }
      float* out = a.y + static_cast<size_t>(row) * a.ldy + col;
      if (vec_store && col + 3 < a.n) {
        *reinterpret_cast<float4*>(out) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int c = 0; c < 4; ++c)
          if (col + c < a.n) out[c] = v[c];
      }
    }
  }
}

}  // namespace fusebench::cuda
