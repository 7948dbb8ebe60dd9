// CPU LayerNorm + Linear, y = LayerNorm(x)·wᵀ + b. Unfused: a LayerNorm pass over every row writes
// xn, the GEMM writes t, a bias pass writes y. Fused: on the CPU the fusion is "normalize a block of
// rows, then multiply it while it is hot" (cpu::gemm_layernorm): each block of rows is normalized
// into a local buffer that stays in L2 and immediately multiplied, with the bias in the GEMM's
// epilogue, so neither xn nor t goes to memory. The GPU folds the LayerNorm algebra into the GEMM
// instead (layernorm_linear.h); here the normalized rows are the same floats as the unfused xn, so
// the two variants agree exactly.
#include <type_traits>

#include "layernorm_linear.h"

#include "cpu/gemm_any.h"
#include "cpu/row_ops.h"

namespace fusebench::kernels {

template <class T>
void layernorm_linear_unfused_cpu(const LayerNormLinearArgs<T>& a) {
  cpu::layernorm_pass(a.x, a.gamma, a.beta, a.xn, a.m, a.k, a.eps);
  cpu::gemm_any(a.xn, a.w, a.t, a.m, a.n, a.k);
  cpu::bias_pass(a.t, a.b, a.y, a.m, a.n);
}

// bf16/fp16, as the GPU's fused variant: xn stored in T, then the GEMM with the bias epilogue.
template <class T>
void layernorm_linear_fused_cpu(const LayerNormLinearArgs<T>& a) {
  if constexpr (std::is_same_v<T, float>) {
    cpu::gemm_layernorm(a.x, a.gamma, a.beta, a.eps, a.w, a.y, a.m, a.n, a.k, cpu::BiasEpilogue{a.b});
  } else {
    cpu::layernorm_pass(a.x, a.gamma, a.beta, a.xn, a.m, a.k, a.eps);
    cpu::gemm_any(a.xn, a.w, a.y, a.m, a.n, a.k, [&](auto wide) { return cpu::BiasEpilogue{wide(a.b, a.n)}; });
  }
}

FB_CPU_VARIANTS(LayerNormLinearArgs, layernorm_linear_unfused_cpu, layernorm_linear_fused_cpu)

}  // namespace fusebench::kernels
