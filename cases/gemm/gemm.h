// The GEMM building block on its own: y = x·wᵀ, x [m, k], w [n, k], y [m, n], fp32 (FP32 math, no
// TF32), compared like a case so a GEMM regression is caught where it happens rather than through the
// four GEMM-bound cases built on it: cuBLAS SGEMM (the twins' call, in the unfused column) against
// fusebench's own GEMM without an epilogue (the fused column: "own", kernels/cuda/gemm.cuh, the kernel
// the fused cases run).
// The speedup is cuBLAS's time over fusebench's: the own GEMM's share of cuBLAS throughput. CUDA only:
// the CPU backend has one GEMM.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

// Shape limits: gemm_case.cc.
struct GemmBlockArgs {
  const float* x;  // [m, k]
  const float* w;  // [n, k]
  float* y;        // [m, n]
  size_t m, n, k;
};

#ifdef FUSEBENCH_WITH_CUDA
void gemm_cublas_cuda(const GemmBlockArgs& a, const LaunchContext& ctx);
void gemm_own_cuda(const GemmBlockArgs& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
