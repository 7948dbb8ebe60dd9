#include <stdexcept>

#include "case_registry.h"
#include "residual_layernorm.h"

namespace fusebench {

// dims: [rows, hidden]; params: [eps]; variants: 0 unfused, 1 fused. h is an output of both.
CaseSpec residual_layernorm_case() {
  return CaseSpec{
      "residual_layernorm",
      {"unfused", "fused"},
      2,
      1,
      [](const std::vector<int64_t>& d) {
        const auto hidden = static_cast<size_t>(d[1]);
        const size_t n = static_cast<size_t>(d[0]) * hidden;
        return std::vector<BufferSpec>{{"x", n, Role::Input},
                                       {"r", n, Role::Input},
                                       {"gamma", hidden, Role::Input},
                                       {"beta", hidden, Role::Input},
                                       {"h", n, Role::Output},
                                       {"y", n, Role::Output}};
      },
      [](const CaseCall& c) {
        kernels::ResidualLayerNormArgs a{};
        a.x = c.buffers[0];
        a.r = c.buffers[1];
        a.gamma = c.buffers[2];
        a.beta = c.buffers[3];
        a.h = c.buffers[4];
        a.y = c.buffers[5];
        a.rows = static_cast<size_t>(c.dims[0]);
        a.hidden = static_cast<size_t>(c.dims[1]);
        a.eps = static_cast<float>(c.params[0]);
        if (c.backend == BackendKind::Cpu) {
          if (c.variant == 0) kernels::residual_layernorm_unfused_cpu(a);
          else kernels::residual_layernorm_fused_cpu(a);
          return;
        }
#ifdef FUSEBENCH_WITH_CUDA
        if (c.variant == 0) kernels::residual_layernorm_unfused_cuda(a, c.ctx);
        else kernels::residual_layernorm_fused_cuda(a, c.ctx);
#else
        throw std::runtime_error("residual_layernorm: built without CUDA");
#endif
      },
  };
}

}  // namespace fusebench
