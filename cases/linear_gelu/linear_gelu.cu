// CUDA Linear + GELU: cuBLAS GEMM → bias kernel → GELU kernel (unfused), fusebench's GEMM with a
// bias+GELU epilogue (fused), and cuBLASLt's GELU_BIAS epilogue (library-fused).
#include "cuda/building_blocks.h"
#include "cuda/cublas_ops.h"
#include "cuda/gemm.cuh"
#include "linear_gelu.h"

namespace fusebench::kernels {

template <class T>
void linear_gelu_unfused_cuda(const LinearGeluArgs<T>& a, const LaunchContext& ctx) {
  cuda::cublas_gemm_xwt(a.x, a.w, a.t, a.m, a.n, a.k, ctx);
  cuda::bias_add(a.t, a.b, a.u, a.m, a.n, ctx);
  cuda::gelu(a.u, a.y, a.m * a.n, ctx);
}

void linear_gelu_fused_cuda(const LinearGeluArgs<float>& a, const LaunchContext& ctx) {
  const int m = static_cast<int>(a.m), n = static_cast<int>(a.n), k = static_cast<int>(a.k);
  cuda::launch_gemm_tn<cuda::Epilogue::BiasGelu>({a.x, a.w, a.b, nullptr, a.y, m, n, k, n}, ctx, "linear_gelu GEMM");
}

template <class T>
void linear_gelu_cublaslt_cuda(const LinearGeluArgs<T>& a, const LaunchContext& ctx) {
  cuda::cublaslt_linear_gelu(a.x, a.w, a.b, a.y, a.m, a.n, a.k, ctx);
}

FB_CUDA_VARIANTS(LinearGeluArgs, linear_gelu_unfused_cuda, linear_gelu_cublaslt_cuda)

}  // namespace fusebench::kernels
