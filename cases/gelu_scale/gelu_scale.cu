// CUDA GELU + scale. Unfused: the GELU kernel writes the intermediate to global memory and the scale
// kernel reads it back (what an eager framework launches). Fused: one kernel, the intermediate stays
// in registers. Both are the same vectorized map kernel (kernels/cuda/elementwise.cuh).
#include "common/gelu.h"
#include "cuda/building_blocks.h"
#include "cuda/elementwise.cuh"
#include "gelu_scale.h"

namespace fusebench::kernels {
namespace {

template <class T>
struct GeluScaleOp {
  float scale;
  __device__ float operator()(float x) const { return gelu_of<T>(x) * scale; }
};

}  // namespace

template <class T>
void gelu_scale_unfused_cuda(const GeluScaleArgs<T>& a, const LaunchContext& ctx) {
  cuda::gelu(a.x, a.tmp, a.n, ctx);
  cuda::scale(a.tmp, a.y, a.n, a.scale, ctx);
}

template <class T>
void gelu_scale_fused_cuda(const GeluScaleArgs<T>& a, const LaunchContext& ctx) {
  cuda::launch_map(a.x, a.y, a.n, GeluScaleOp<T>{a.scale}, ctx, "gelu_scale");
}

FB_CUDA_VARIANTS(GeluScaleArgs, gelu_scale_unfused_cuda, gelu_scale_fused_cuda)

}  // namespace fusebench::kernels
