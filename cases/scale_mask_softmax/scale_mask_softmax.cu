// CUDA scale + causal mask + softmax. Unfused, as an eager framework launches it: the scale map kernel
// writes scale·S, the mask kernel writes the masked copy, the softmax row kernel reads that. Fused:
// the same softmax row kernel applies scale and mask as it loads the scores (kernels/cuda/softmax_rows.cuh).
#include "cuda/building_blocks.h"
#include "cuda/softmax_rows.cuh"
#include "scale_mask_softmax.h"

namespace fusebench::kernels {

template <class T>
void scale_mask_softmax_unfused_cuda(const ScaleMaskSoftmaxArgs<T>& a, const LaunchContext& ctx) {
  cuda::scale(a.s, a.scaled, a.rows() * a.seq_k, a.scale, ctx);
  cuda::causal_mask(a.scaled, a.masked, a.rows(), a.seq_q, a.seq_k, ctx);
  cuda::softmax(a.masked, a.p, a.rows(), a.seq_q, a.seq_k, ctx);
}

template <class T>
void scale_mask_softmax_fused_cuda(const ScaleMaskSoftmaxArgs<T>& a, const LaunchContext& ctx) {
  cuda::launch_softmax<true>(a.s, a.p, a.rows(), a.seq_q, a.seq_k, a.scale, ctx);
}

FB_CUDA_VARIANTS(ScaleMaskSoftmaxArgs, scale_mask_softmax_unfused_cuda, scale_mask_softmax_fused_cuda)

}  // namespace fusebench::kernels
