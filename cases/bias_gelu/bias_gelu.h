// Bias + GELU, the epilogue of a transformer FFN's first layer: y = gelu(x + b) over [rows, cols]
// with b broadcast along the rows. The unfused pair (a bias-add kernel writes the intermediate, a
// GELU kernel reads it back) and the fused single pass, on the CPU and, when built with CUDA, the GPU.
#pragma once
#include <cstddef>

#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::kernels {

template <class T>
struct BiasGeluArgs {
  const T* x;  // [rows, cols]
  const T* b;  // [cols]
  T* tmp;  // [rows, cols] unfused intermediate: x + b
  T* y;  // [rows, cols]
  size_t rows, cols;
};

FB_FUSED_PAIR_DECL(bias_gelu, BiasGeluArgs)

}  // namespace fusebench::kernels
