// CUDA y = x·wᵀ: cuBLAS SGEMM (pinned to FP32 math) against fusebench's GEMM (gemm.cuh, the one the
// fused cases run) with no epilogue.
#include "cuda/cublas_ops.h"
#include "cuda/gemm.cuh"
#include "gemm.h"

namespace fusebench::kernels {

void gemm_cublas_cuda(const GemmBlockArgs& a, const LaunchContext& ctx) {
  cuda::cublas_gemm_xwt(a.x, a.w, a.y, a.m, a.n, a.k, ctx);
}

void gemm_own_cuda(const GemmBlockArgs& a, const LaunchContext& ctx) {
  const int m = static_cast<int>(a.m), n = static_cast<int>(a.n), k = static_cast<int>(a.k);
  cuda::launch_gemm_tn<cuda::Epilogue::None>({a.x, a.w, nullptr, nullptr, a.y, m, n, k, n}, ctx, "gemm");
}

}  // namespace fusebench::kernels
