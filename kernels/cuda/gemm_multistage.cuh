// The launcher of fusebench's multistage fp32 GEMM (gemm_multistage_kernel.cuh): the candidate
// successor of gemm.cuh's kernel, measured against cuBLAS by the gemm case ("multistage") before the
// fused cases move to it.
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <climits>
#include <stdexcept>
#include <string>

#include "common/gemm_limits.h"
#include "common/launch.h"
#include "cuda/gemm_multistage_kernel.cuh"
#include "cuda_check.cuh"

namespace fusebench::cuda {

// The configuration the launcher takes: 128×128 tiles of 256 threads (two blocks a multiprocessor),
// k slices of 8, four shared buffers: three slices copied while one is multiplied (33 KB a block).
using GemmMultistageTile = GemmTile<128, 128, 8, 4>;
static_assert(GemmMultistageTile::BM == kGemmTileRows, "common/gemm_limits.h states the GEMM's row tile");

// Without relocatable device code every .cu file holds its own copy of a kernel, and the shared-memory
// opt-in (cudaFuncSetAttribute) belongs to one copy, so each file's launcher opts in its own.
namespace {

// Launches one tile configuration; throws (naming `what`) when the operands break the constraints.
template <class Tile, Epilogue E, bool kLnFold = false>
void launch_gemm_multistage(const GemmArgs& a, const LaunchContext& ctx, const char* what) {
  check_gemm_operands(a, Tile::BM, what);
  if (a.k > INT_MAX / Tile::BM) {  // the kernel's offsets within a tile of rows are ints
    throw std::invalid_argument(std::string(what) + ": k = " + std::to_string(a.k) + " exceeds the multistage GEMM's limit of " +
                                std::to_string(INT_MAX / Tile::BM));
  }
  const dim3 grid((a.n + Tile::BN - 1) / Tile::BN, (a.m + Tile::BM - 1) / Tile::BM);
  constexpr size_t smem = Tile::smem_bytes(kLnFold);
  // Once per kernel (the process has one device), not inside every timed call.
  static const bool opted_in = [] {
    FB_CUDA_CHECK(cudaFuncSetAttribute(gemm_multistage_kernel<Tile, E, kLnFold>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem)));
    return true;
  }();
  (void)opted_in;
  gemm_multistage_kernel<Tile, E, kLnFold><<<grid, Tile::kThreads, smem, static_cast<cudaStream_t>(ctx.stream)>>>(a);
  FB_CUDA_CHECK_LAUNCH(what);
}

}  // namespace
}  // namespace fusebench::cuda
