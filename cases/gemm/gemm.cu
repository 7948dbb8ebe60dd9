// CUDA y = x·wᵀ: cuBLAS SGEMM (pinned to FP32 math) against fusebench's GEMMs with no epilogue: the
// one the fused cases run (gemm.cuh) and the multistage candidate (gemm_multistage.cuh).
#include "cuda/cublas_ops.h"
#include "cuda/gemm.cuh"
#include "cuda/gemm_multistage.cuh"
#include "gemm.h"

namespace fusebench::kernels {

void gemm_cublas_cuda(const GemmBlockArgs& a, const LaunchContext& ctx) {
  cuda::cublas_gemm_xwt(a.x, a.w, a.y, a.m, a.n, a.k, ctx);
}

void gemm_own_cuda(const GemmBlockArgs& a, const LaunchContext& ctx) {
  const int m = static_cast<int>(a.m), n = static_cast<int>(a.n), k = static_cast<int>(a.k);
  cuda::launch_gemm_tn<cuda::Epilogue::None>({a.x, a.w, nullptr, nullptr, a.y, m, n, k, n}, ctx, "gemm");
}

void gemm_multistage_cuda(const GemmBlockArgs& a, const LaunchContext& ctx) {
  const int m = static_cast<int>(a.m), n = static_cast<int>(a.n), k = static_cast<int>(a.k);
  cuda::launch_gemm_multistage<cuda::GemmMultistageTile, cuda::Epilogue::None>({a.x, a.w, nullptr, nullptr, a.y, m, n, k, n}, ctx,
                                                                               "gemm (multistage)");
}

}  // namespace fusebench::kernels
