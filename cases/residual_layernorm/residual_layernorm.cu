// CUDA residual add + LayerNorm. Unfused: the vectorized add kernel writes h = x + r, then the LayerNorm
// row kernel reads h back and writes y. Fused: the same row kernel (kernels/cuda/norm_rows.cuh) reads x
// and r, writes h and normalizes the row it already holds in registers.
#include "cuda/building_blocks.h"
#include "cuda/norm_rows.cuh"
#include "residual_layernorm.h"

namespace fusebench::kernels {

template <class T>
void residual_layernorm_unfused_cuda(const ResidualLayerNormArgs<T>& a, const LaunchContext& ctx) {
  cuda::add(a.x, a.r, a.h, a.rows * a.hidden, ctx);
  cuda::layernorm(a.h, a.gamma, a.beta, a.y, a.rows, a.hidden, a.eps, ctx);
}

template <class T>
void residual_layernorm_fused_cuda(const ResidualLayerNormArgs<T>& a, const LaunchContext& ctx) {
  cuda::launch_norm_rows<cuda::Norm::Layer, true>(
      cuda::NormRows<T>{a.x, a.r, a.h, a.gamma, a.beta, a.y, a.rows, static_cast<int>(a.hidden), a.eps}, ctx);
}

FB_CUDA_VARIANTS(ResidualLayerNormArgs, residual_layernorm_unfused_cuda, residual_layernorm_fused_cuda)

}  // namespace fusebench::kernels
