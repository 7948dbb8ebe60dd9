// CPU Linear + GELU, y = gelu(x·wᵀ + b). Unfused, as the unfused GPU twin: the GEMM writes t, a bias
// pass writes u = t + b, a GELU pass writes y (three full passes over [m, n]). Fused: the same GEMM
// with a bias+GELU epilogue, applied to each output row segment while it is still in L1, writes y
// directly. Both run the same GEMM and the same float expressions, so their outputs are identical;
// the difference is the two [m, n] round trips through memory.
#include <type_traits>
#include <vector>

#include "linear_gelu.h"

#include "cpu/gemm_cpu.h"
#include "cpu/row_ops.h"
#include "cpu/widen.h"

namespace fusebench::kernels {

template <class T>
void linear_gelu_unfused_cpu(const LinearGeluArgs<T>& a) {
  if constexpr (std::is_same_v<T, float>) {
    cpu::gemm(a.x, a.w, a.t, a.m, a.n, a.k, cpu::NoEpilogue{});
  } else {  // the operands widened, the GEMM in float, t stored in T
    const std::vector<float> x = cpu::widen(a.x, a.m * a.k), w = cpu::widen(a.w, a.n * a.k);
    std::vector<float> t(a.m * a.n);
    cpu::gemm(x.data(), w.data(), t.data(), a.m, a.n, a.k, cpu::NoEpilogue{});
    cpu::narrow(t.data(), a.t, a.m * a.n);
  }
  cpu::bias_pass(a.t, a.b, a.u, a.m, a.n);
  cpu::gelu_pass(a.u, a.y, a.m * a.n);
}

template <class T>
void linear_gelu_fused_cpu(const LinearGeluArgs<T>& a) {
  if constexpr (std::is_same_v<T, float>) {
    cpu::gemm(a.x, a.w, a.y, a.m, a.n, a.k, cpu::BiasGeluEpilogue{a.b});
  } else {
    const std::vector<float> x = cpu::widen(a.x, a.m * a.k), w = cpu::widen(a.w, a.n * a.k), b = cpu::widen(a.b, a.n);
    std::vector<float> y(a.m * a.n);
    cpu::gemm(x.data(), w.data(), y.data(), a.m, a.n, a.k, cpu::BiasGeluEpilogue{b.data()});
    cpu::narrow(y.data(), a.y, a.m * a.n);
  }
}

FB_CPU_VARIANTS(LinearGeluArgs, linear_gelu_unfused_cpu, linear_gelu_fused_cpu)

}  // namespace fusebench::kernels
