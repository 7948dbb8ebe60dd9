// CUDA FFN: GEMM, bias, GELU, GEMM, bias, add, one launch each (unfused); two of fusebench's fp32 GEMMs
// with bias+GELU and bias+residual epilogues (fused); two cuBLASLt calls with the GELU_BIAS and BIAS
// (β = 1 on the residual) epilogues (cublaslt: the library-fused variant in fp32, the fused one in
// bf16/fp16).
#include "cuda/building_blocks.h"
#include "cuda/cublas_ops.h"
#include "cuda/gemm.cuh"
#include "ffn.h"

namespace fusebench::kernels {

template <class T>
void ffn_unfused_cuda(const FfnArgs<T>& a, const LaunchContext& ctx) {
  cuda::cublas_gemm_xwt(a.x, a.w1, a.t1, a.m, a.f, a.h, ctx);
  cuda::bias_add(a.t1, a.b1, a.u1, a.m, a.f, ctx);
  cuda::gelu(a.u1, a.g, a.m * a.f, ctx);
  cuda::cublas_gemm_xwt(a.g, a.w2, a.t2, a.m, a.h, a.f, ctx);
  cuda::bias_add(a.t2, a.b2, a.u2, a.m, a.h, ctx);
  cuda::add(a.x, a.u2, a.y, a.m * a.h, ctx);
}

void ffn_fused_cuda(const FfnArgs<float>& a, const LaunchContext& ctx) {
  const int m = static_cast<int>(a.m), h = static_cast<int>(a.h), f = static_cast<int>(a.f);
  cuda::launch_gemm_tn<cuda::Epilogue::BiasGelu>({a.x, a.w1, a.b1, nullptr, a.g, m, f, h, f}, ctx, "ffn GEMM 1");
  cuda::launch_gemm_tn<cuda::Epilogue::BiasResidual>({a.g, a.w2, a.b2, a.x, a.y, m, h, f, h}, ctx, "ffn GEMM 2");
}

template <class T>
void ffn_cublaslt_cuda(const FfnArgs<T>& a, const LaunchContext& ctx) {
  cuda::cublaslt_linear_gelu(a.x, a.w1, a.b1, a.g, a.m, a.f, a.h, ctx);
  cuda::cublaslt_linear_bias_residual(a.g, a.w2, a.b2, a.x, a.y, a.m, a.h, a.f, ctx);
}

FB_CUDA_VARIANTS(FfnArgs, ffn_unfused_cuda, ffn_cublaslt_cuda)

}  // namespace fusebench::kernels
