// GELU + scale: the unfused pair (GELU writes an intermediate, scale reads it back) and the fused
// single pass, on the CPU and, when built with CUDA, on the GPU.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

struct GeluScaleArgs {
  const float* x;  // [n]
  float* tmp;      // [n] unfused intermediate: gelu(x)
  float* y;        // [n]
  size_t n;
  float scale;
};

void gelu_scale_unfused_cpu(const GeluScaleArgs& a);
void gelu_scale_fused_cpu(const GeluScaleArgs& a);

#ifdef FUSEBENCH_WITH_CUDA
void gelu_scale_unfused_cuda(const GeluScaleArgs& a, const LaunchContext& ctx);
void gelu_scale_fused_cuda(const GeluScaleArgs& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
