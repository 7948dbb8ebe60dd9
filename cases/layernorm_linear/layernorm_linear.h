// LayerNorm + Linear: y = LayerNorm(x)·wᵀ + b, LayerNorm over the k features of each row with γ, β.
// Unfused: a LayerNorm row kernel writes xn, a cuBLAS GEMM writes t = xn·wᵀ, a bias kernel writes y.
// Fused (CUDA): a small kernel folds γ, β and b into the weights, then one GEMM folds the LayerNorm in
// (kernels/cuda/gemm.cuh documents the algebra):
//   y_ij = rstd_i·(Σ_k x_ik·γ_k·w_jk − mean_i·Σ_k γ_k·w_jk) + Σ_k β_k·w_jk + b_j
// with the row statistics accumulated while the x tiles stream, so xn is never written or read.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

// Shape limits: layernorm_linear_case.cc.
struct LayerNormLinearArgs {
  const float* x;      // [m, k]
  const float* gamma;  // [k]
  const float* beta;   // [k]
  const float* w;      // [n, k]
  const float* b;      // [n]
  float* y;            // [m, n]
  float* xn;           // [m, k] unfused scratch: LayerNorm(x)
  float* t;            // [m, n] unfused scratch: xn·wᵀ
  float* w_folded;     // [n, k] fused scratch: w·diag(γ)
  float* colsum;       // [n] fused scratch: Σ_k γ_k·w_jk
  float* bias_folded;  // [n] fused scratch: b_j + Σ_k β_k·w_jk
  size_t m, n, k;
  float eps;
};

void layernorm_linear_unfused_cpu(const LayerNormLinearArgs& a);
void layernorm_linear_fused_cpu(const LayerNormLinearArgs& a);

#ifdef FUSEBENCH_WITH_CUDA
void layernorm_linear_unfused_cuda(const LayerNormLinearArgs& a, const LaunchContext& ctx);
void layernorm_linear_fused_cuda(const LayerNormLinearArgs& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
