#include "case_registry.h"
#include "layernorm_linear.h"
#include "variant_table.h"

namespace fusebench {

// dims: [m, n, k]; params: [eps]; variants: 0 unfused, 1 fused.
CaseSpec layernorm_linear_case() {
  return CaseSpec{
      "layernorm_linear",
      {"unfused", "fused"},
      3,
      1,
      [](const std::vector<int64_t>& d) {
        const auto m = static_cast<size_t>(d[0]), n = static_cast<size_t>(d[1]), k = static_cast<size_t>(d[2]);
        return std::vector<BufferSpec>{
            {"x", m * k, Role::Input},     {"gamma", k, Role::Input},          {"beta", k, Role::Input},
            {"w", n * k, Role::Input},     {"b", n, Role::Input},              {"y", m * n, Role::Output},
            {"xn", m * k, Role::Scratch},  {"t", m * n, Role::Scratch},        {"w_folded", n * k, Role::Scratch},
            {"colsum", n, Role::Scratch},  {"bias_folded", n, Role::Scratch}};
      },
      [](const CaseCall& c) {
        const auto& b = c.buffers;
        kernels::LayerNormLinearArgs a{};
        a.x = b[0];
        a.gamma = b[1];
        a.beta = b[2];
        a.w = b[3];
        a.b = b[4];
        a.y = b[5];
        a.xn = b[6];
        a.t = b[7];
        a.w_folded = b[8];
        a.colsum = b[9];
        a.bias_folded = b[10];
        a.m = static_cast<size_t>(c.dims[0]);
        a.n = static_cast<size_t>(c.dims[1]);
        a.k = static_cast<size_t>(c.dims[2]);
        a.eps = static_cast<float>(c.params[0]);
        using namespace kernels;
        run_variant<LayerNormLinearArgs, 2>("layernorm_linear", c, a,
                                            {layernorm_linear_unfused_cpu, layernorm_linear_fused_cpu},
                                            {FB_CUDA_KERNELS(layernorm_linear_unfused_cuda, layernorm_linear_fused_cuda)});
      },
  };
}

}  // namespace fusebench
