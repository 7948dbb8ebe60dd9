// Residual add + LayerNorm: h = x + r; y = (h − mean(h)) / sqrt(var(h) + eps) · gamma + beta, per
// row of [rows, hidden], writing both h (the next residual) and y. Unfused: an add kernel writes h,
// a LayerNorm kernel reads it back. Fused: one pass reads x and r and writes h and y.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

struct ResidualLayerNormArgs {
  const float* x;      // [rows, hidden]
  const float* r;      // [rows, hidden], the residual
  const float* gamma;  // [hidden]
  const float* beta;   // [hidden]
  float* h;            // [rows, hidden], x + r
  float* y;            // [rows, hidden]
  size_t rows, hidden;
  float eps;
};

void residual_layernorm_unfused_cpu(const ResidualLayerNormArgs& a);
void residual_layernorm_fused_cpu(const ResidualLayerNormArgs& a);

#ifdef FUSEBENCH_WITH_CUDA
void residual_layernorm_unfused_cuda(const ResidualLayerNormArgs& a, const LaunchContext& ctx);
void residual_layernorm_fused_cuda(const ResidualLayerNormArgs& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
