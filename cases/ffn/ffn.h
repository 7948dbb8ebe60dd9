// Transformer FFN with its residual: y = x + gelu(x·w1ᵀ + b1)·w2ᵀ + b2, x [m, h], w1 [f, h], w2 [h, f].
// Unfused, one launch per op as an eager framework runs it: GEMM → t1, bias → u1, GELU → g,
// GEMM → t2, bias → u2, add → y. Fused: fusebench's GEMM with a bias+GELU epilogue writes g, then
// with a bias+residual epilogue writes y. Library-fused (cublaslt): cuBLASLt's GELU_BIAS and BIAS
// (β = 1 on the residual) epilogues. In bf16/fp16 (T) the GEMMs run on tensor cores with fp32
// accumulation: cublasGemmEx in the twin, and the cuBLASLt epilogues as the fused variant (fusebench's
// own GEMM is fp32 only).
#pragma once
#include <cstddef>

#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::kernels {

// Shape limits: ffn_case.cc.
template <class T>
struct FfnArgs {
  const T* x;   // [m, h]
  const T* w1;  // [f, h]
  const T* b1;  // [f]
  const T* w2;  // [h, f]
  const T* b2;  // [h]
  T* y;         // [m, h]
  T* g;         // [m, f] gelu(x·w1ᵀ + b1), both variants
  T* t1;        // [m, f] unfused scratch
  T* u1;        // [m, f] unfused scratch
  T* t2;        // [m, h] unfused scratch
  T* u2;        // [m, h] unfused scratch
  size_t m, h, f;
};

FB_VARIANT_DECL(ffn_unfused, FfnArgs)
template <class T>
void ffn_fused_cpu(const FfnArgs<T>& a);
FB_IF_CUDA(void ffn_fused_cuda(const FfnArgs<float>& a, const LaunchContext& ctx);)  // fusebench's fp32 GEMM
FB_CUDA_VARIANT_DECL(ffn_cublaslt, FfnArgs)

}  // namespace fusebench::kernels
