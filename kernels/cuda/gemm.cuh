// fusebench's own fp32 GEMM with fused epilogues: y[m, n] = epilogue(x[m, k]·w[n, k]ᵀ), both
// operands k-contiguous (PyTorch's Linear layout), plain FMA on the CUDA cores (no TF32). The kernel
// (its tiling, copies and pipeline) is gemm_kernel.cuh; the epilogues and the k step's FMAs are
// gemm_common.cuh; this file chooses the tile and launches.
//
// LayerNorm folding (kLnFold), for y = LayerNorm(x)·wᵀ + b with LayerNorm(x)_k = (x_k − μ)·ρ·γ_k + β_k:
//   Σ_k LN(x)_ik w_jk = ρ_i·(Σ_k x_ik·w'_jk − μ_i·c_j) + Σ_k β_k w_jk,  w'_jk = γ_k·w_jk,  c_j = Σ_k w'_jk
// the fold makes w', c and d_j = b_j + Σ_k β_k w_jk (one warp per weight row: a read and a write of w,
// small beside the GEMM, and needed once per weight update: the layernorm_linear_prefolded comparison
// times the GEMM without it); the row statistics read x once for each row's μ_i and ρ_i (one warp a
// row, two passes over the row in cache); layernorm_prologue() runs both in one launch; the GEMM then
// multiplies raw x by w' and applies ρ_i·(acc − μ_i·c_j) with bias d in the epilogue. x is read twice
// and xn is never written. The statistics used to be accumulated inside the GEMM from the x slices it
// holds, which saved that read but slowed the main loop (at 128 registers a thread) by more than the
// separate pass's read of x costs (docs/measurements.md, "GEMM: LayerNorm statistics pass").
//
// Constraints (checked by the launcher): 4-byte aligned x and w, at most 65,535 row tiles, k below
// 2^31 − 16; any m, n and k otherwise (edge tiles are predicated, k past its end zero-filled). With an
// epilogue, ldy % 4 == 0 and a 16-byte aligned y take the float4 store path; otherwise (and without
// one) the stores are element by element.
#pragma once
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "common/gemm_limits.h"
#include "common/launch.h"
#include "cuda/async_copy.cuh"
#include "cuda/gemm_kernel.cuh"
#include "cuda/cuda_check.cuh"

namespace fusebench::cuda {

// The tile launches take: 128×128 outputs of 256 threads (two blocks a multiprocessor), k slices of
// 16, three buffers on sm_80+ (50 KB of shared memory a block; Volta: two, 33 KB): the fastest of the
// configurations scripts/device/gemm-tiles.cu sweeps at all four of the suite's GEMM shapes, ahead of
// four buffers and of slices of 8 or 32 (docs/measurements.md, "GEMM tile and pipeline depth").
using GemmTileDefault = GemmTile<128, 128, 16, 3>;
// Where two default blocks do not fit a multiprocessor's shared memory (100 KB on sm_86, sm_89 and
// sm_120; 64 KB on sm_75), so that it would run one: slices of 8 in four buffers, 34 KB a block, two
// blocks a multiprocessor (timed, forced, only on a GPU where the default tile fits, not yet on one
// that needs this tile: docs/measurements.md, "GEMM compact tile").
using GemmTileCompact = GemmTile<128, 128, 8, 4>;
static_assert(GemmTileDefault::BM == kGemmTileRows && GemmTileCompact::BM == kGemmTileRows,
              "common/gemm_limits.h states the GEMM's row tile");

// One weight fold: w_folded = w·diag(γ), c_j = Σ_k w'_jk, d_j = b_j + Σ_k β_k·w_jk for w [n, k].
struct LayerNormFold {
  const float* w;
  const float* gamma;
  const float* beta;
  const float* b;
  float* w_folded;
  float* c;
  float* d;
  int n, k;
};
// Each row's statistics of x [m, k]: stats[2i] = μ_i, stats[2i + 1] = 1/√(σ²_i + ε).
struct RowStats {
  const float* x;
  float* stats;
  int m, k;
  float eps;
};
constexpr int kMaxLayerNormFolds = 2;
// Up to two weight folds and one x's row statistics in one launch (layernorm_fold.cu).
void layernorm_prologue(std::initializer_list<LayerNormFold> folds, const RowStats& stats, const LaunchContext& ctx);
// The row statistics alone.
void layernorm_row_stats(const RowStats& stats, const LaunchContext& ctx);

// Without relocatable device code every .cu file holds its own copy of a kernel, and the shared-memory
// opt-in (cudaFuncSetAttribute) belongs to one copy, so each file's launcher opts in its own.
namespace {

// Launches one tile configuration; throws (naming `what`) when the operands break the constraints.
template <Epilogue E, bool kLnFold, class Tile>
void launch_gemm_tile(const GemmArgs& a, const LaunchContext& ctx, const char* what) {
  check_gemm_operands(a, Tile::BM, what);
  const dim3 grid((a.n + Tile::BN - 1) / Tile::BN, (a.m + Tile::BM - 1) / Tile::BM);
  // Once per kernel (the process has one device), not inside every timed call.
  static const size_t smem = [] {
    const size_t bytes = Tile::smem_bytes(kLnFold, device_compute_capability());
    FB_CUDA_CHECK(cudaFuncSetAttribute(gemm_kernel<Tile, E, kLnFold>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(bytes)));
    return bytes;
  }();
  gemm_kernel<Tile, E, kLnFold><<<grid, Tile::kThreads, smem, static_cast<cudaStream_t>(ctx.stream)>>>(a);
  FB_CUDA_CHECK_LAUNCH(what);
}

// Launches the GEMM in the tile for this device: the default where two of its blocks fit a
// multiprocessor's shared memory, else the compact one. FUSEBENCH_GEMM_TILE=default or compact picks
// one instead (to run the compact tile's numerics and compute-sanitizer on a GPU that would not).
template <Epilogue E, bool kLnFold = false>
void launch_gemm_tn(const GemmArgs& a, const LaunchContext& ctx, const char* what) {
  static const bool two_default_blocks = [] {
    if (const char* forced = std::getenv("FUSEBENCH_GEMM_TILE")) {
      if (std::strcmp(forced, "default") == 0 || std::strcmp(forced, "compact") == 0) return forced[0] == 'd';
      throw std::invalid_argument(std::string("FUSEBENCH_GEMM_TILE: expected default or compact, got '") + forced + "'");
    }
    const size_t block = GemmTileDefault::smem_bytes(kLnFold, device_compute_capability()) +
                         device_shared_memory().reserved_per_block;
    return 2 * block <= device_shared_memory().per_multiprocessor;
  }();
  if (two_default_blocks) launch_gemm_tile<E, kLnFold, GemmTileDefault>(a, ctx, what);
  else launch_gemm_tile<E, kLnFold, GemmTileCompact>(a, ctx, what);
}

}  // namespace
}  // namespace fusebench::cuda
