// CUDA GELU + scale. Unfused: a GELU kernel writes the intermediate to global memory and a scale
// kernel reads it back (what an eager framework launches). Fused: one kernel, the intermediate
// stays in registers. Both are the same vectorized map kernel (elementwise.cuh).
#include "common/gelu.h"
#include "cuda/elementwise.cuh"
#include "gelu_scale.h"

namespace fusebench::kernels {
namespace {

struct ScaleOp {
  float scale;
  __device__ float operator()(float x) const { return x * scale; }
};
struct GeluScaleOp {
  float scale;
  __device__ float operator()(float x) const { return gelu_tanh(x) * scale; }
};

}  // namespace

void gelu_scale_unfused_cuda(const float* x, float* tmp, float* y, size_t n, float scale, const LaunchContext& ctx) {
  cuda::launch_map(x, tmp, n, GeluOp{}, ctx, "gelu");
  cuda::launch_map(tmp, y, n, ScaleOp{scale}, ctx, "scale");
}

void gelu_scale_fused_cuda(const float* x, float* y, size_t n, float scale, const LaunchContext& ctx) {
  cuda::launch_map(x, y, n, GeluScaleOp{scale}, ctx, "gelu_scale");
}

}  // namespace fusebench::kernels
