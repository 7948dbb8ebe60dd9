// CUDA bias + GELU. Unfused: the bias-add kernel writes x + b to global memory and the GELU map kernel
// reads it back, as an eager framework launches them. Fused: the same bias kernel
// (kernels/cuda/bias_map.cuh) with GELU applied before the store, the sum never leaving registers.
#include "bias_gelu.h"
#include "common/gelu.h"
#include "cuda/bias_map.cuh"
#include "cuda/building_blocks.h"

namespace fusebench::kernels {
namespace {

template <class T>
struct AddGeluOp {
  __device__ float operator()(float x, float b) const { return gelu_of<T>(x + b); }
};

}  // namespace

template <class T>
void bias_gelu_unfused_cuda(const BiasGeluArgs<T>& a, const LaunchContext& ctx) {
  cuda::bias_add(a.x, a.b, a.tmp, a.rows, a.cols, ctx);
  cuda::gelu(a.tmp, a.y, a.rows * a.cols, ctx);
}

template <class T>
void bias_gelu_fused_cuda(const BiasGeluArgs<T>& a, const LaunchContext& ctx) {
  cuda::launch_bias_map(a.x, a.b, a.y, a.rows, a.cols, AddGeluOp<T>{}, ctx);
}

FB_CUDA_VARIANTS(BiasGeluArgs, bias_gelu_unfused_cuda, bias_gelu_fused_cuda)

}  // namespace fusebench::kernels
