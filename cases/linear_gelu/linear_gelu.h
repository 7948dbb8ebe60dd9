// Linear + GELU: y = gelu(x·wᵀ + b), x [m, k], w [n, k] (PyTorch's Linear layout), b [n], y [m, n].
// Unfused: a cuBLAS GEMM writes t = x·wᵀ, a bias kernel writes u = t + b, a GELU kernel writes y.
// Fused: fusebench's own GEMM applies bias and GELU in its epilogue. cuBLASLt: the library's
// GELU_BIAS epilogue (the same tanh GELU), the "library-fused" third variant.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

// Shape limits: linear_gelu_case.cc.
struct LinearGeluArgs {
  const float* x;  // [m, k]
  const float* w;  // [n, k]
  const float* b;  // [n]
  float* y;        // [m, n]
  float* t;        // [m, n] unfused scratch: x·wᵀ
  float* u;        // [m, n] unfused scratch: x·wᵀ + b
  size_t m, n, k;
};

void linear_gelu_unfused_cpu(const LinearGeluArgs& a);
void linear_gelu_fused_cpu(const LinearGeluArgs& a);

#ifdef FUSEBENCH_WITH_CUDA
void linear_gelu_unfused_cuda(const LinearGeluArgs& a, const LaunchContext& ctx);
void linear_gelu_fused_cuda(const LinearGeluArgs& a, const LaunchContext& ctx);
void linear_gelu_cublaslt_cuda(const LinearGeluArgs& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
