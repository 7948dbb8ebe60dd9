#include <stdexcept>

#include "case_registry.h"
#include "scale_mask_softmax.h"

namespace fusebench {

// dims: [batch, heads, seq_q, seq_k]; params: [scale]; variants: 0 unfused, 1 fused. The two
// scratch buffers are the unfused variant's intermediates (scaled, then masked).
CaseSpec scale_mask_softmax_case() {
  return CaseSpec{
      "scale_mask_softmax",
      {"unfused", "fused"},
      4,
      1,
      [](const std::vector<int64_t>& d) {
        const size_t n = static_cast<size_t>(d[0]) * static_cast<size_t>(d[1]) * static_cast<size_t>(d[2]) *
                         static_cast<size_t>(d[3]);
        return std::vector<BufferSpec>{{"s", n, Role::Input},
                                       {"scaled", n, Role::Scratch},
                                       {"masked", n, Role::Scratch},
                                       {"p", n, Role::Output}};
      },
      [](const CaseCall& c) {
        kernels::ScaleMaskSoftmaxArgs a{};
        a.s = c.buffers[0];
        a.scaled = c.buffers[1];
        a.masked = c.buffers[2];
        a.p = c.buffers[3];
        a.seq_q = static_cast<size_t>(c.dims[2]);
        a.seq_k = static_cast<size_t>(c.dims[3]);
        a.rows = static_cast<size_t>(c.dims[0]) * static_cast<size_t>(c.dims[1]) * a.seq_q;
        a.scale = static_cast<float>(c.params[0]);
        if (c.backend == BackendKind::Cpu) {
          if (c.variant == 0) kernels::scale_mask_softmax_unfused_cpu(a);
          else kernels::scale_mask_softmax_fused_cpu(a);
          return;
        }
#ifdef FUSEBENCH_WITH_CUDA
        if (c.variant == 0) kernels::scale_mask_softmax_unfused_cuda(a, c.ctx);
        else kernels::scale_mask_softmax_fused_cuda(a, c.ctx);
#else
        throw std::runtime_error("scale_mask_softmax: built without CUDA");
#endif
      },
  };
}

}  // namespace fusebench
