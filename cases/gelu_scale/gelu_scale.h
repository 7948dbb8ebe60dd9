// GELU + scale: the unfused pair (GELU writes an intermediate, scale reads it back) and the fused
// single pass, in every precision (T = float, bf16, fp16), on the CPU and, when built with CUDA, on
// the GPU.
#pragma once
#include <cstddef>

#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::kernels {

template <class T>
struct GeluScaleArgs {
  const T* x;  // [n]
  T* tmp;      // [n] unfused intermediate: gelu(x)
  T* y;        // [n]
  size_t n;
  float scale;
};

template <class T>
void gelu_scale_unfused_cpu(const GeluScaleArgs<T>& a);
template <class T>
void gelu_scale_fused_cpu(const GeluScaleArgs<T>& a);

#ifdef FUSEBENCH_WITH_CUDA
template <class T>
void gelu_scale_unfused_cuda(const GeluScaleArgs<T>& a, const LaunchContext& ctx);
template <class T>
void gelu_scale_fused_cuda(const GeluScaleArgs<T>& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
