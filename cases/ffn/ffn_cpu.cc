// CPU transformer FFN with its residual, y = x + gelu(x·w1ᵀ + b1)·w2ᵀ + b2. Unfused, one pass per op as
// an eager framework runs it: GEMM → t1, bias → u1, GELU → g, GEMM → t2, bias → u2, add x + u2 → y.
// Fused: two GEMMs, the first with a bias+GELU epilogue writing g, the second with a bias+residual
// epilogue (x + (acc + b2)) writing y, each applied to an output row segment while it is in L1. Both
// variants write g and round every op the same way, so their outputs are identical.
#include <type_traits>
#include <vector>

#include "ffn.h"

#include "cpu/gemm_cpu.h"
#include "cpu/row_ops.h"
#include "cpu/widen.h"

namespace fusebench::kernels {

namespace {

// out [m, n] = x [m, k]·w [n, k]ᵀ with epilogue `e` (built from the widened operands); in the half
// types the operands are widened, the GEMM runs in float and out is rounded to T.
template <class T, class MakeEpilogue>
void gemm_any(const T* x, const T* w, T* out, size_t m, size_t n, size_t k, MakeEpilogue make) {
  if constexpr (std::is_same_v<T, float>) {
    cpu::gemm(x, w, out, m, n, k, make([](const float* p, size_t) { return p; }));
  } else {
    const std::vector<float> xf = cpu::widen(x, m * k), wf = cpu::widen(w, n * k);
    std::vector<float> o(m * n);
    std::vector<std::vector<float>> keep;  // the widened epilogue operands, alive through the GEMM
    const auto wide = [&keep](const T* p, size_t count) {
      keep.push_back(cpu::widen(p, count));
      return static_cast<const float*>(keep.back().data());
    };
    cpu::gemm(xf.data(), wf.data(), o.data(), m, n, k, make(wide));
    cpu::narrow(o.data(), out, m * n);
  }
}

}  // namespace

template <class T>
void ffn_unfused_cpu(const FfnArgs<T>& a) {
  gemm_any(a.x, a.w1, a.t1, a.m, a.f, a.h, [](auto) { return cpu::NoEpilogue{}; });
  cpu::bias_pass(a.t1, a.b1, a.u1, a.m, a.f);
  cpu::gelu_pass(a.u1, a.g, a.m * a.f);
  gemm_any(a.g, a.w2, a.t2, a.m, a.h, a.f, [](auto) { return cpu::NoEpilogue{}; });
  cpu::bias_pass(a.t2, a.b2, a.u2, a.m, a.h);
  cpu::add_pass(a.x, a.u2, a.y, a.m * a.h);
}

template <class T>
void ffn_fused_cpu(const FfnArgs<T>& a) {
  gemm_any(a.x, a.w1, a.g, a.m, a.f, a.h, [&](auto wide) { return cpu::BiasGeluEpilogue{wide(a.b1, a.f)}; });
  gemm_any(a.g, a.w2, a.y, a.m, a.h, a.f,
           [&](auto wide) { return cpu::BiasResidualEpilogue{wide(a.b2, a.h), wide(a.x, a.m * a.h), a.h}; });
}

FB_CPU_VARIANTS(FfnArgs, ffn_unfused_cpu, ffn_fused_cpu)

}  // namespace fusebench::kernels
