// The norm building blocks of the unfused twins (building_blocks.h): the row kernels of norm_rows.cuh
// without the residual.
#include "cuda/building_blocks.h"
#include "cuda/norm_rows.cuh"

namespace fusebench::cuda {

void layernorm(const float* x, const float* gamma, const float* beta, float* y, size_t rows, size_t hidden, float eps,
               const LaunchContext& ctx) {
  launch_norm_rows<Norm::Layer, false>({x, nullptr, nullptr, gamma, beta, y, rows, static_cast<int>(hidden), eps}, ctx);
}

void rmsnorm(const float* x, const float* gamma, float* y, size_t rows, size_t hidden, float eps,
             const LaunchContext& ctx) {
  launch_norm_rows<Norm::Rms, false>({x, nullptr, nullptr, gamma, nullptr, y, rows, static_cast<int>(hidden), eps}, ctx);
}

}  // namespace fusebench::cuda
