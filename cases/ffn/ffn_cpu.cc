// CPU transformer FFN with its residual, y = x + gelu(x·w1ᵀ + b1)·w2ᵀ + b2. Unfused, one pass per op as
// an eager framework runs it: GEMM → t1, bias → u1, GELU → g, GEMM → t2, bias → u2, add x + u2 → y.
// Fused: two GEMMs, the first with a bias+GELU epilogue writing g, the second with a bias+residual
// epilogue (x + (acc + b2)) writing y, each applied to an output row segment while it is in L1. Both
// variants write g and round every op the same way, so in fp32 their outputs are identical; in bf16/fp16
// the twin also rounds t1, u1, t2 and u2 to T, which the fused variant (as cuBLASLt) never stores.
#include "ffn.h"

#include "cpu/gemm_any.h"
#include "cpu/row_ops.h"

namespace fusebench::kernels {

template <class T>
void ffn_unfused_cpu(const FfnArgs<T>& a) {
  cpu::gemm_any(a.x, a.w1, a.t1, a.m, a.f, a.h);
  cpu::bias_pass(a.t1, a.b1, a.u1, a.m, a.f);
  cpu::gelu_pass(a.u1, a.g, a.m * a.f);
  cpu::gemm_any(a.g, a.w2, a.t2, a.m, a.h, a.f);
  cpu::bias_pass(a.t2, a.b2, a.u2, a.m, a.h);
  cpu::add_pass(a.x, a.u2, a.y, a.m * a.h);
}

template <class T>
void ffn_fused_cpu(const FfnArgs<T>& a) {
  cpu::gemm_any(a.x, a.w1, a.g, a.m, a.f, a.h, [&](auto wide) { return cpu::BiasGeluEpilogue{wide(a.b1, a.f)}; });
  cpu::gemm_any(a.g, a.w2, a.y, a.m, a.h, a.f,
           [&](auto wide) { return cpu::BiasResidualEpilogue{wide(a.b2, a.h), wide(a.x, a.m * a.h), a.h}; });
}

FB_CPU_VARIANTS(FfnArgs, ffn_unfused_cpu, ffn_fused_cpu)

}  // namespace fusebench::kernels
