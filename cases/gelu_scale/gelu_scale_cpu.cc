// CPU GELU + scale: two passes (GELU to an intermediate, then scale) against one pass, with the
// same float math as the CUDA kernels (kernels/common/gelu.h).
#include "common/gelu.h"
#include "gelu_scale.h"

namespace fusebench::kernels {

template <class T>
void gelu_scale_unfused_cpu(const GeluScaleArgs<T>& a) {
  for (size_t i = 0; i < a.n; ++i) a.tmp[i] = from_float<T>(gelu_tanh(to_float(a.x[i])));
  for (size_t i = 0; i < a.n; ++i) a.y[i] = from_float<T>(to_float(a.tmp[i]) * a.scale);
}

template <class T>
void gelu_scale_fused_cpu(const GeluScaleArgs<T>& a) {
  for (size_t i = 0; i < a.n; ++i) a.y[i] = from_float<T>(gelu_tanh(to_float(a.x[i])) * a.scale);
}

FB_CPU_VARIANTS(GeluScaleArgs, gelu_scale_unfused_cpu, gelu_scale_fused_cpu)

}  // namespace fusebench::kernels
