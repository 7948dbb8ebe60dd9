#include <stdexcept>

#include "case_registry.h"
#include "gelu_scale.h"

namespace fusebench {

// dims: [n]; params: [scale]; variants: 0 unfused, 1 fused.
CaseSpec gelu_scale_case() {
  return CaseSpec{
      "gelu_scale",
      {"unfused", "fused"},
      1,
      1,
      [](const std::vector<int64_t>& d) {
        const auto n = static_cast<size_t>(d[0]);
        return std::vector<BufferSpec>{{"x", n, Role::Input}, {"tmp", n, Role::Scratch}, {"y", n, Role::Output}};
      },
      [](const CaseCall& c) {
        const auto n = static_cast<size_t>(c.dims[0]);
        const auto scale = static_cast<float>(c.params[0]);
        const float* x = c.buffers[0];
        float* tmp = c.buffers[1];
        float* y = c.buffers[2];
        if (c.backend == BackendKind::Cpu) {
          if (c.variant == 0) kernels::gelu_scale_unfused_cpu(x, tmp, y, n, scale);
          else kernels::gelu_scale_fused_cpu(x, y, n, scale);
          return;
        }
#ifdef FUSEBENCH_WITH_CUDA
        if (c.variant == 0) kernels::gelu_scale_unfused_cuda(x, tmp, y, n, scale, c.ctx);
        else kernels::gelu_scale_fused_cuda(x, y, n, scale, c.ctx);
#else
        throw std::runtime_error("gelu_scale: built without CUDA");
#endif
      },
  };
}

}  // namespace fusebench
