// CPU GELU + scale: two passes (GELU to an intermediate, then scale) against one pass, with the
// same float math as the CUDA kernels (kernels/common/gelu.h).
#include "gelu_scale.h"

#include "common/gelu.h"

namespace fusebench::kernels {

void gelu_scale_unfused_cpu(const float* x, float* tmp, float* y, size_t n, float scale) {
  for (size_t i = 0; i < n; ++i) tmp[i] = gelu_tanh(x[i]);
  for (size_t i = 0; i < n; ++i) y[i] = tmp[i] * scale;
}

void gelu_scale_fused_cpu(const float* x, float* y, size_t n, float scale) {
  for (size_t i = 0; i < n; ++i) y[i] = gelu_tanh(x[i]) * scale;
}

}  // namespace fusebench::kernels
