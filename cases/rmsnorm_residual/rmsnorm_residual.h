// Residual add + RMSNorm, the pre-norm of LLaMA and T5: h = x + r; y = h / √(mean(h²) + ε)·γ per row
// of [rows, hidden], writing both h (the next residual) and y. Unfused: an add kernel writes h, an
// RMSNorm kernel reads it back. Fused: one pass reads x and r and writes h and y.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

struct RmsNormResidualArgs {
  const float* x;      // [rows, hidden]
  const float* r;      // [rows, hidden], the residual
  const float* gamma;  // [hidden]
  float* h;            // [rows, hidden], x + r
  float* y;            // [rows, hidden]
  size_t rows, hidden;
  float eps;
};

void rmsnorm_residual_unfused_cpu(const RmsNormResidualArgs& a);
void rmsnorm_residual_fused_cpu(const RmsNormResidualArgs& a);

#ifdef FUSEBENCH_WITH_CUDA
void rmsnorm_residual_unfused_cuda(const RmsNormResidualArgs& a, const LaunchContext& ctx);
void rmsnorm_residual_fused_cuda(const RmsNormResidualArgs& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
