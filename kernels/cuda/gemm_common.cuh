// What fusebench's GEMM kernel (gemm_kernel.cuh) is built from: its arguments, the fused epilogues, a
// k slice's FMAs, the one write of a thread's 8×8 register tile, and the launcher's operand checks.
// No CUDA headers, so the CPU emulation of the kernel (suites/emu) compiles it too.
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
  // LayerNorm folding (kLnFold): w is w', b is d, colsum is c, row_stats holds each row's μ
  // and ρ ([m, 2]): layernorm_prologue (gemm.cuh) makes them.
  const float* colsum = nullptr;
  const float* row_stats = nullptr;
};

// The launcher's checks, naming `what`: 4-byte aligned x and w (the kernel copies single floats), k
// below 2^31 − 16 (the kernel's slice arithmetic k + 15 stays an int) and a grid of at most 65,535 row
// tiles of bm rows.
inline void check_gemm_operands(const GemmArgs& a, int bm, const char* what) {
  const auto misaligned = [](const void* p) { return reinterpret_cast<size_t>(p) % 4 != 0; };
  if (misaligned(a.x) || misaligned(a.w)) throw std::invalid_argument(std::string(what) + ": the GEMM needs 4-byte aligned x and w");
  if (a.k > 2147483647 - 16) throw std::invalid_argument(std::string(what) + ": k = " + std::to_string(a.k) + " exceeds 2^31 - 17");
  if ((a.m + bm - 1) / bm > 65535) {
    throw std::invalid_argument(std::string(what) + ": m = " + std::to_string(a.m) + " needs more than 65535 row tiles");
  }
}

template <Epilogue E>
__device__ __forceinline__ float epilogue_value(float acc, float bias, float res) {
  // None adds +0.0f, which the compiler must keep (−0 + 0 = +0): the stored value is then a new register
  // and not the accumulator itself (gemm_store_tile says why that matters).
  if constexpr (E == Epilogue::None) return acc + 0.0f;
  else if constexpr (E == Epilogue::Bias) return acc + bias;
  else if constexpr (E == Epilogue::BiasGelu) return gelu_fast(acc + bias);  // the epilogue's math is not hidden behind memory traffic
  else return acc + bias + res;
}

// A thread's fragments of k step kk: its 8 x values (rows {4ty..4ty+3, BM/2+4ty..}) and 8 w values
// (columns {4tx..4tx+3, BN/2+4tx..}) from a slice stored transposed (`as`: BK rows of x values, lda
// floats apart; `bs` likewise for w), four 16-byte shared loads; a warp spans 4 ty × 8 tx, so the loads
// touch 4 and 8 distinct 16-byte words (no bank conflicts).
template <int BM, int BN, int LDA, int LDB>
__device__ __forceinline__ void gemm_load_fragments(float (&a)[8], float (&b)[8], const float* as, const float* bs, int kk, int ty,
                                                    int tx) {
  *reinterpret_cast<float4*>(a) = *reinterpret_cast<const float4*>(as + kk * LDA + 4 * ty);
  *reinterpret_cast<float4*>(a + 4) = *reinterpret_cast<const float4*>(as + kk * LDA + BM / 2 + 4 * ty);
  *reinterpret_cast<float4*>(b) = *reinterpret_cast<const float4*>(bs + kk * LDB + 4 * tx);
  *reinterpret_cast<float4*>(b + 4) = *reinterpret_cast<const float4*>(bs + kk * LDB + BN / 2 + 4 * tx);
}

// The 64 FMAs of one k step, ordered so that ptxas can keep each FMA's register operands in
// different register banks: column pairs left to right, rows down then up within each, so consecutive
// FMAs share an operand (one comes from the operand-reuse cache) and the accumulators of a pair
// alternate. An FMA whose register operands share a bank waits a cycle to read them (ncu: "dispatch
// stall"), and the plain row-by-row order lost the GEMM a clear share of cuBLAS's throughput. The gain
// rests on ptxas's allocation, so a change here is measured (gemm case, scripts/device/gemm-tiles.cu)
// before it lands: a snake with a U-turn inside each column pair, every FMA sharing an operand with
// the one before, measured slower than this order in this kernel (docs/measurements.md, "GEMM FMA order").
__device__ __forceinline__ void gemm_outer_product(float (&acc)[8][8], const float (&a)[8], const float (&b)[8]) {
#pragma unroll
  for (int jp = 0; jp < 4; ++jp)
#pragma unroll
    for (int ii = 0; ii < 8; ++ii) {
      const int i = (jp & 1) ? 7 - ii : ii;
#pragma unroll
      for (int jj = 0; jj < 2; ++jj) acc[i][2 * jp + jj] = fmaf(a[i], b[2 * jp + jj], acc[i][2 * jp + jj]);
    }
}

// One k slice of FMAs on a thread's 8×8 tile. (Loading step kk + 1's fragments during step kk's FMAs,
// in a second register set, measured slower here: ptxas already hoists the loads; docs/measurements.md,
// "GEMM FMA order".)
template <int BK, int BM, int BN, int LDA, int LDB>
__device__ __forceinline__ void gemm_multiply_slice(float (&acc)[8][8], const float* as, const float* bs, int ty, int tx) {
#pragma unroll
  for (int kk = 0; kk < BK; ++kk) {
    float a[8], b[8];
    gemm_load_fragments<BM, BN, LDA, LDB>(a, b, as, bs, kk, ty, tx);
    gemm_outer_product(acc, a, b);
  }
}

// The thread's output rows and columns in the BM×BN block tile: rows {4ty + i, BM/2 + 4ty + i} and
// columns {4tx + j, BN/2 + 4tx + j} (i, j < 4); acc[i][4g + j] is the output at row i, column j of
// column half g.
template <int BM>
__device__ __forceinline__ int gemm_tile_row(int i, int ty) { return (i < 4 ? 0 : BM / 2) + 4 * ty + (i % 4); }
template <int BN>
__device__ __forceinline__ int gemm_tile_col(int g, int tx) { return (BN / 2) * g + 4 * tx; }

// Writes a thread's tile of the BM×BN block tile at (row0, col0) (gemm_tile_row, gemm_tile_col). The
// columns' bias (and column sums) are read once, before the rows (read for every element they slowed
// the Bias epilogue). The residual is read element by element next to its store: reading a row's
// residual first, in 16-byte loads, gained at k = 768 but lost at the FFN down-projection (k = 3072),
// and a prefetch of the residual into L2 lost too (ptxas's register allocation in the main loop moved
// with each; docs/measurements.md, "GEMM epilogue"). Rows past m and columns past n are not written;
// ldy % 4 == 0 and an aligned y take 16-byte stores. With kLnFold, row_mean and row_rstd hold the
// block's rows' μ and ρ (shared memory).
template <Epilogue E, bool kLnFold, int BM, int BN>
__device__ __forceinline__ void gemm_store_tile(const float (&acc)[8][8], const GemmArgs& a, int row0, int col0, int ty,
                                                int tx, const float* row_mean, const float* row_rstd) {
  // Every epilogue's values, None's too (epilogue_value), are new registers and go out as 16-byte stores.
  // Storing the accumulators themselves that way makes ptxas give each accumulator quad four
  // consecutive registers, which puts acc[i][j] in w value j's register bank and costs the main loop a
  // cycle on half its FMAs. None then stored single floats, which avoided that, and storing new
  // registers in 16-byte stores is faster still (docs/measurements.md, "GEMM epilogue").
  const bool vec_store = (a.ldy % 4 == 0) && (reinterpret_cast<size_t>(a.y) % 16 == 0);
  float bias[8], colsum[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const int col = col0 + gemm_tile_col<BN>(j / 4, tx) + j % 4;
    const int cc = col < a.n ? col : a.n - 1;  // clamped reads; stores are predicated
    bias[j] = E == Epilogue::None ? 0.0f : __ldg(a.b + cc);
    colsum[j] = kLnFold ? __ldg(a.colsum + cc) : 0.0f;
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int lrow = gemm_tile_row<BM>(i, ty);
    const int row = row0 + lrow;
    if (row >= a.m) continue;
#pragma unroll
    for (int g = 0; g < 2; ++g) {
      const int col = col0 + gemm_tile_col<BN>(g, tx);
      if (col >= a.n) continue;
      float v[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int j = 4 * g + c;
        float s = acc[i][j];
        if constexpr (kLnFold) s = row_rstd[lrow] * (s - row_mean[lrow] * colsum[j]);
        float res = 0.0f;
        if constexpr (E == Epilogue::BiasResidual) {
          res = __ldg(a.r + static_cast<size_t>(row) * a.n + (col + c < a.n ? col + c : a.n - 1));
        }
        v[c] = epilogue_value<E>(s, bias[j], res);
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
