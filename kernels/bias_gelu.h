// Bias + GELU, the epilogue of a transformer FFN's first layer: y = gelu(x + b) over [rows, cols]
// with b broadcast along the rows. The unfused pair (a bias-add kernel writes the intermediate, a
// GELU kernel reads it back) and the fused single pass, on the CPU and, when built with CUDA, the GPU.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

void bias_gelu_unfused_cpu(const float* x, const float* b, float* tmp, float* y, size_t rows, size_t cols);
void bias_gelu_fused_cpu(const float* x, const float* b, float* y, size_t rows, size_t cols);

#ifdef FUSEBENCH_WITH_CUDA
// x, tmp and y must be 16-byte aligned (cudaMalloc gives 256); cols < 2^31.
void bias_gelu_unfused_cuda(const float* x, const float* b, float* tmp, float* y, size_t rows, size_t cols,
                            const LaunchContext& ctx);
void bias_gelu_fused_cuda(const float* x, const float* b, float* y, size_t rows, size_t cols, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
