// CUDA LayerNorm + Linear: LayerNorm row kernel → cuBLAS GEMM → bias kernel (unfused); the weight
// fold with the row statistics (one launch), then one LayerNorm-folded GEMM (fused; gemm.cuh documents
// the algebra), or the statistics and that GEMM on weights folded beforehand (prefolded); in bf16/fp16 the LayerNorm kernel feeding cuBLASLt's BIAS
// epilogue.
#include <type_traits>

#include "cuda/building_blocks.h"
#include "cuda/cublas_ops.h"
#include "cuda/gemm.cuh"
#include "layernorm_linear.h"

namespace fusebench::kernels {

template <class T>
void layernorm_linear_unfused_cuda(const LayerNormLinearArgs<T>& a, const LaunchContext& ctx) {
  cuda::layernorm(a.x, a.gamma, a.beta, a.xn, a.m, a.k, a.eps, ctx);
  cuda::cublas_gemm_xwt(a.xn, a.w, a.t, a.m, a.n, a.k, ctx);
  cuda::bias_add(a.t, a.b, a.y, a.m, a.n, ctx);
}

namespace {

// y = LayerNorm(x)·wᵀ + b as one GEMM on folded weights (w' = w·diag(γ), c, d: gemm.cuh) and the rows'
// statistics, which a.row_stats holds.
void layernorm_folded_gemm(const LayerNormLinearArgs<float>& a, const float* w_folded, const float* colsum,
                           const float* bias_folded, const LaunchContext& ctx) {
  const int m = static_cast<int>(a.m), n = static_cast<int>(a.n), k = static_cast<int>(a.k);
  cuda::GemmArgs g{a.x, w_folded, bias_folded, nullptr, a.y, m, n, k, n};
  g.colsum = colsum;
  g.row_stats = a.row_stats;
  cuda::launch_gemm_tn<cuda::Epilogue::Bias, true>(g, ctx, "layernorm_linear GEMM");
}

cuda::RowStats row_stats(const LayerNormLinearArgs<float>& a) {
  return {a.x, a.row_stats, static_cast<int>(a.m), static_cast<int>(a.k), a.eps};
}

}  // namespace

template <class T>
void layernorm_linear_fused_cuda(const LayerNormLinearArgs<T>& a, const LaunchContext& ctx) {
  if constexpr (std::is_same_v<T, float>) {
    const int n = static_cast<int>(a.n), k = static_cast<int>(a.k);
    const cuda::LayerNormFold fold{a.w, a.gamma, a.beta, a.b, a.w_folded, a.colsum, a.bias_folded, n, k};
    cuda::layernorm_prologue({fold}, row_stats(a), ctx);
    layernorm_folded_gemm(a, a.w_folded, a.colsum, a.bias_folded, ctx);
  } else {
    cuda::layernorm(a.x, a.gamma, a.beta, a.xn, a.m, a.k, a.eps, ctx);
    cuda::cublaslt_linear_bias(a.xn, a.w, a.b, a.y, a.m, a.n, a.k, ctx);
  }
}

void layernorm_linear_prefolded_cuda(const LayerNormLinearArgs<float>& a, const LaunchContext& ctx) {
  cuda::layernorm_row_stats(row_stats(a), ctx);
  layernorm_folded_gemm(a, a.w_prefolded, a.colsum_prefolded, a.bias_prefolded, ctx);
}

FB_CUDA_VARIANTS(LayerNormLinearArgs, layernorm_linear_unfused_cuda, layernorm_linear_fused_cuda)

}  // namespace fusebench::kernels
