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

FB_FUSED_PAIR_DECL(gelu_scale, GeluScaleArgs)

}  // namespace fusebench::kernels
