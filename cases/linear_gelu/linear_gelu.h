// Linear + GELU: y = gelu(x·wᵀ + b), x [m, k], w [n, k] (PyTorch's Linear layout), b [n], y [m, n].
// Unfused: a cuBLAS GEMM writes t = x·wᵀ, a bias kernel writes u = t + b, a GELU kernel writes y.
// Fused: fusebench's own GEMM applies bias and GELU in its epilogue. cuBLASLt: the library's
// GELU_BIAS epilogue (the same tanh GELU), the "library-fused" third variant. In bf16/fp16 (T) the
// GEMMs run on tensor cores with fp32 accumulation (cublasGemmEx, cuBLASLt); the own GEMM is fp32 only,
// so the half precisions compare the cuBLASLt epilogue with the twin.
#pragma once
#include <cstddef>

#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::kernels {

// Shape limits: linear_gelu_case.cc.
template <class T>
struct LinearGeluArgs {
  const T* x;  // [m, k]
  const T* w;  // [n, k]
  const T* b;  // [n]
  T* y;        // [m, n]
  T* t;        // [m, n] unfused scratch: x·wᵀ
  T* u;        // [m, n] unfused scratch: x·wᵀ + b
  size_t m, n, k;
};

// Unfused, and the fused GEMM with the bias+GELU epilogue (on the CPU also the half precisions' stand-in
// for the library-fused variant: the same epilogue, one rounding of y).
FB_VARIANT_DECL(linear_gelu_unfused, LinearGeluArgs)
template <class T>
void linear_gelu_fused_cpu(const LinearGeluArgs<T>& a);
FB_IF_CUDA(void linear_gelu_fused_cuda(const LinearGeluArgs<float>& a, const LaunchContext& ctx);)  // fusebench's fp32 GEMM
FB_CUDA_VARIANT_DECL(linear_gelu_cublaslt, LinearGeluArgs)

}  // namespace fusebench::kernels
