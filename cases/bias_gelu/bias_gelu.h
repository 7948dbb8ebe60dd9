// Bias + GELU, the epilogue of a transformer FFN's first layer: y = gelu(x + b) over [rows, cols]
// with b broadcast along the rows. The unfused pair (a bias-add kernel writes the intermediate, a
// GELU kernel reads it back) and the fused single pass, on the CPU and, when built with CUDA, the GPU.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

struct BiasGeluArgs {
  const float* x;  // [rows, cols]
  const float* b;  // [cols]
  float* tmp;      // [rows, cols] unfused intermediate: x + b
  float* y;        // [rows, cols]
  size_t rows, cols;
};

void bias_gelu_unfused_cpu(const BiasGeluArgs& a);
void bias_gelu_fused_cpu(const BiasGeluArgs& a);

#ifdef FUSEBENCH_WITH_CUDA
void bias_gelu_unfused_cuda(const BiasGeluArgs& a, const LaunchContext& ctx);
void bias_gelu_fused_cuda(const BiasGeluArgs& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
