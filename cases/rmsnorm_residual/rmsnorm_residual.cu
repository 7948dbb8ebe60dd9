// CUDA residual add + RMSNorm. Unfused: the vectorized add kernel writes h = x + r, then the RMSNorm row
// kernel reads h back and writes y. Fused: the same row kernel (kernels/cuda/norm_rows.cuh) reads x and
// r, writes h and normalizes the row it already holds in registers.
#include "cuda/building_blocks.h"
#include "cuda/norm_rows.cuh"
#include "rmsnorm_residual.h"

namespace fusebench::kernels {

template <class T>
void rmsnorm_residual_unfused_cuda(const RmsNormResidualArgs<T>& a, const LaunchContext& ctx) {
  cuda::add(a.x, a.r, a.h, a.rows * a.hidden, ctx);
  cuda::rmsnorm(a.h, a.gamma, a.y, a.rows, a.hidden, a.eps, ctx);
}

template <class T>
void rmsnorm_residual_fused_cuda(const RmsNormResidualArgs<T>& a, const LaunchContext& ctx) {
  cuda::launch_norm_rows<cuda::Norm::Rms, true>(
      cuda::NormRows<T>{a.x, a.r, a.h, a.gamma, nullptr, a.y, a.rows, static_cast<int>(a.hidden), a.eps}, ctx);
}

FB_CUDA_VARIANTS(RmsNormResidualArgs, rmsnorm_residual_unfused_cuda, rmsnorm_residual_fused_cuda)

}  // namespace fusebench::kernels
