#include "case_registry.h"
#include "ffn.h"
#include "variant_table.h"

namespace fusebench {

// dims: [m, h, f] (rows, hidden, FFN width); no params; variants: 0 unfused, 1 fused. g is written
// by both variants but only y is checked.
CaseSpec ffn_case() {
  return CaseSpec{
      "ffn",
      {"unfused", "fused"},
      3,
      0,
      [](const std::vector<int64_t>& d) {
        const auto m = static_cast<size_t>(d[0]), h = static_cast<size_t>(d[1]), f = static_cast<size_t>(d[2]);
        return std::vector<BufferSpec>{{"x", m * h, Role::Input},    {"w1", f * h, Role::Input},
                                       {"b1", f, Role::Input},       {"w2", h * f, Role::Input},
                                       {"b2", h, Role::Input},       {"y", m * h, Role::Output},
                                       {"g", m * f, Role::Scratch},  {"t1", m * f, Role::Scratch},
                                       {"u1", m * f, Role::Scratch}, {"t2", m * h, Role::Scratch},
                                       {"u2", m * h, Role::Scratch}};
      },
      [](const CaseCall& c) {
        const auto& b = c.buffers;
        const kernels::FfnArgs a{b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10],
                                 static_cast<size_t>(c.dims[0]), static_cast<size_t>(c.dims[1]),
                                 static_cast<size_t>(c.dims[2])};
        using namespace kernels;
        run_variant<FfnArgs, 2>("ffn", c, a, {ffn_unfused_cpu, ffn_fused_cpu},
                                {FB_CUDA_KERNELS(ffn_unfused_cuda, ffn_fused_cuda)});
      },
  };
}

}  // namespace fusebench
