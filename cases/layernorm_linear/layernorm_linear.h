// LayerNorm + Linear: y = LayerNorm(x)·wᵀ + b, LayerNorm over the k features of each row with γ, β.
// Unfused: a LayerNorm row kernel writes xn, a cuBLAS GEMM writes t = xn·wᵀ, a bias kernel writes y.
// Fused (CUDA): a small kernel folds γ, β and b into the weights, a pass over x takes each row's mean
// and rstd, then one GEMM folds the LayerNorm in (kernels/cuda/gemm.cuh documents the algebra):
//   y_ij = rstd_i·(Σ_k x_ik·γ_k·w_jk − mean_i·Σ_k γ_k·w_jk) + Σ_k β_k·w_jk + b_j
// so xn is never written or read.
// Prefolded (CUDA, fp32): the same GEMM on weights folded once beforehand (w_prefolded, colsum_prefolded,
// bias_prefolded: inputs), as at inference, where weights do not change between calls; the fused
// variant's time less this one's is what folding every call costs.
// In bf16/fp16 (T) the GEMMs run on tensor cores with fp32 accumulation (fusebench's GEMM is fp32 only):
// the twin is the LayerNorm kernel, cublasGemmEx and the bias kernel; the fused variant is the LayerNorm
// kernel feeding cuBLASLt's BIAS epilogue (t and its bias pass removed).
#pragma once
#include <cstddef>

#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::kernels {

// Shape limits: layernorm_linear_case.cc.
template <class T>
struct LayerNormLinearArgs {
  const T* x;  // [m, k]
  const T* gamma;  // [k]
  const T* beta;  // [k]
  const T* w;  // [n, k]
  const T* b;  // [n]
  T* y;  // [m, n]
  T* xn;  // [m, k] scratch: LayerNorm(x) (the twin; in bf16/fp16 also the fused variant)
  T* t;  // [m, n] unfused scratch: xn·wᵀ
  T* w_folded;  // [n, k] fp32 fused scratch: w·diag(γ)
  T* colsum;  // [n] fp32 fused scratch: Σ_k γ_k·w_jk
  T* bias_folded;  // [n] fp32 fused scratch: b_j + Σ_k β_k·w_jk
  T* row_stats;  // [m, 2] fp32 fused scratch: each row's mean and rstd
  const T* w_prefolded;  // [n, k] input: w·diag(γ), folded once (the prefolded variant; fp32)
  const T* colsum_prefolded;  // [n] input: Σ_k γ_k·w_jk
  const T* bias_prefolded;  // [n] input: b_j + Σ_k β_k·w_jk
  size_t m, n, k;
  float eps;
};

FB_FUSED_PAIR_DECL(layernorm_linear, LayerNormLinearArgs)
// fp32, CUDA: the folded GEMM on weights folded once.
FB_IF_CUDA(void layernorm_linear_prefolded_cuda(const LayerNormLinearArgs<float>& a, const LaunchContext& ctx);)

}  // namespace fusebench::kernels
