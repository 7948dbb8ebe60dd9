// Transformer FFN with its residual: y = x + gelu(x·w1ᵀ + b1)·w2ᵀ + b2, x [m, h], w1 [f, h], w2 [h, f].
// Unfused, one launch per op as an eager framework runs it: GEMM → t1, bias → u1, GELU → g,
// GEMM → t2, bias → u2, add → y. Fused: fusebench's GEMM with a bias+GELU epilogue writes g, then
// with a bias+residual epilogue writes y.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

// Shape limits: ffn_case.cc.
struct FfnArgs {
  const float* x;   // [m, h]
  const float* w1;  // [f, h]
  const float* b1;  // [f]
  const float* w2;  // [h, f]
  const float* b2;  // [h]
  float* y;         // [m, h]
  float* g;         // [m, f] gelu(x·w1ᵀ + b1), both variants
  float* t1;        // [m, f] unfused scratch
  float* u1;        // [m, f] unfused scratch
  float* t2;        // [m, h] unfused scratch
  float* u2;        // [m, h] unfused scratch
  size_t m, h, f;
};

void ffn_unfused_cpu(const FfnArgs& a);
void ffn_fused_cpu(const FfnArgs& a);

#ifdef FUSEBENCH_WITH_CUDA
void ffn_unfused_cuda(const FfnArgs& a, const LaunchContext& ctx);
void ffn_fused_cuda(const FfnArgs& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
