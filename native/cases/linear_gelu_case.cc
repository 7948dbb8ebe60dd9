#include "case_registry.h"
#include "linear_gelu.h"
#include "variant_table.h"

namespace fusebench {

// dims: [m, n, k]; no params; variants: 0 unfused, 1 fused (own GEMM), 2 cublaslt (CUDA only).
CaseSpec linear_gelu_case() {
  return CaseSpec{
      "linear_gelu",
      {"unfused", "fused", "cublaslt"},
      3,
      0,
      [](const std::vector<int64_t>& d) {
        const auto m = static_cast<size_t>(d[0]), n = static_cast<size_t>(d[1]), k = static_cast<size_t>(d[2]);
        return std::vector<BufferSpec>{{"x", m * k, Role::Input},   {"w", n * k, Role::Input},
                                       {"b", n, Role::Input},       {"y", m * n, Role::Output},
                                       {"t", m * n, Role::Scratch}, {"u", m * n, Role::Scratch}};
      },
      [](const CaseCall& c) {
        const auto& b = c.buffers;
        const kernels::LinearGeluArgs a{b[0], b[1], b[2], b[3], b[4], b[5], static_cast<size_t>(c.dims[0]),
                                        static_cast<size_t>(c.dims[1]), static_cast<size_t>(c.dims[2])};
        using namespace kernels;
        run_variant<LinearGeluArgs, 3>(
            "linear_gelu", c, a, {linear_gelu_unfused_cpu, linear_gelu_fused_cpu, nullptr},
            {FB_CUDA_KERNELS(linear_gelu_unfused_cuda, linear_gelu_fused_cuda, linear_gelu_cublaslt_cuda)});
      },
  };
}

}  // namespace fusebench
