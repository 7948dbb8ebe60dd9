// CPU Linear + GELU, y = gelu(x·wᵀ + b). Unfused, as the unfused GPU twin: the GEMM writes t, a bias
// pass writes u = t + b, a GELU pass writes y (three full passes over [m, n]). Fused: the same GEMM
// with a bias+GELU epilogue, applied to each output row segment while it is still in L1, writes y
// directly. Both run the same GEMM and the same float expressions, so in fp32 their outputs are
// identical; the difference is the two [m, n] round trips through memory. In bf16/fp16 the twin also
// rounds t and u to T, which the fused variant (as cuBLASLt's epilogue) never stores.
#include "linear_gelu.h"

#include "cpu/gemm_any.h"
#include "cpu/row_ops.h"

namespace fusebench::kernels {

template <class T>
void linear_gelu_unfused_cpu(const LinearGeluArgs<T>& a) {
  cpu::gemm_any(a.x, a.w, a.t, a.m, a.n, a.k);
  cpu::bias_pass(a.t, a.b, a.u, a.m, a.n);
  cpu::gelu_pass(a.u, a.y, a.m * a.n);
}

template <class T>
void linear_gelu_fused_cpu(const LinearGeluArgs<T>& a) {
  cpu::gemm_any(a.x, a.w, a.y, a.m, a.n, a.k, [&](auto wide) { return cpu::BiasGeluEpilogue{wide(a.b, a.n)}; });
}

FB_CPU_VARIANTS(LinearGeluArgs, linear_gelu_unfused_cpu, linear_gelu_fused_cpu)

}  // namespace fusebench::kernels
