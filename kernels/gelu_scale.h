// GELU + scale: the unfused pair (GELU writes an intermediate, scale reads it back) and the fused
// single pass, on the CPU and, when built with CUDA, on the GPU.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

void gelu_scale_unfused_cpu(const float* x, float* tmp, float* y, size_t n, float scale);
void gelu_scale_fused_cpu(const float* x, float* y, size_t n, float scale);

#ifdef FUSEBENCH_WITH_CUDA
void gelu_scale_unfused_cuda(const float* x, float* tmp, float* y, size_t n, float scale, const LaunchContext& ctx);
void gelu_scale_fused_cuda(const float* x, float* y, size_t n, float scale, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
