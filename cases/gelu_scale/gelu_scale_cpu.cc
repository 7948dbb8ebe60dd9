// CPU GELU + scale: two passes (GELU to an intermediate, then scale) against one pass, with the
// same float math as the CUDA kernels (kernels/common/gelu.h).
#include "common/gelu.h"
#include "gelu_scale.h"

namespace fusebench::kernels {

void gelu_scale_unfused_cpu(const GeluScaleArgs& a) {
  for (size_t i = 0; i < a.n; ++i) a.tmp[i] = gelu_tanh(a.x[i]);
  for (size_t i = 0; i < a.n; ++i) a.y[i] = a.tmp[i] * a.scale;
}

void gelu_scale_fused_cpu(const GeluScaleArgs& a) {
  for (size_t i = 0; i < a.n; ++i) a.y[i] = gelu_tanh(a.x[i]) * a.scale;
}

}  // namespace fusebench::kernels
