// Residual add + LayerNorm: h = x + r; y = (h − mean(h)) / sqrt(var(h) + eps) · gamma + beta, per
// row of [rows, hidden], writing both h (the next residual) and y. Unfused: an add kernel writes h,
// a LayerNorm kernel reads it back. Fused: one pass reads x and r and writes h and y.
#pragma once
#include <cstddef>

#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::kernels {

template <class T>
struct ResidualLayerNormArgs {
  const T* x;  // [rows, hidden]
  const T* r;  // [rows, hidden], the residual
  const T* gamma;  // [hidden]
  const T* beta;  // [hidden]
  T* h;  // [rows, hidden], x + r
  T* y;  // [rows, hidden]
  size_t rows, hidden;
  float eps;
};

FB_FUSED_PAIR_DECL(residual_layernorm, ResidualLayerNormArgs)

}  // namespace fusebench::kernels
