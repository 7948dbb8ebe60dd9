#include <stdexcept>

#include "bias_gelu.h"
#include "case_registry.h"

namespace fusebench {

// dims: [rows, cols]; no params; variants: 0 unfused, 1 fused.
CaseSpec bias_gelu_case() {
  return CaseSpec{
      "bias_gelu",
      {"unfused", "fused"},
      2,
      0,
      [](const std::vector<int64_t>& d) {
        const auto rows = static_cast<size_t>(d[0]);
        const auto cols = static_cast<size_t>(d[1]);
        const size_t n = rows * cols;
        return std::vector<BufferSpec>{
            {"x", n, Role::Input}, {"b", cols, Role::Input}, {"tmp", n, Role::Scratch}, {"y", n, Role::Output}};
      },
      [](const CaseCall& c) {
        const auto rows = static_cast<size_t>(c.dims[0]);
        const auto cols = static_cast<size_t>(c.dims[1]);
        const float* x = c.buffers[0];
        const float* b = c.buffers[1];
        float* tmp = c.buffers[2];
        float* y = c.buffers[3];
        if (c.backend == BackendKind::Cpu) {
          if (c.variant == 0) kernels::bias_gelu_unfused_cpu(x, b, tmp, y, rows, cols);
          else kernels::bias_gelu_fused_cpu(x, b, y, rows, cols);
          return;
        }
#ifdef FUSEBENCH_WITH_CUDA
        if (c.variant == 0) kernels::bias_gelu_unfused_cuda(x, b, tmp, y, rows, cols, c.ctx);
        else kernels::bias_gelu_fused_cuda(x, b, y, rows, cols, c.ctx);
#else
        throw std::runtime_error("bias_gelu: built without CUDA");
#endif
      },
  };
}

}  // namespace fusebench
