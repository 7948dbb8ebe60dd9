// CPU transformer FFN with its residual, y = x + gelu(x·w1ᵀ + b1)·w2ᵀ + b2. Unfused, one pass per op as
// an eager framework runs it: GEMM → t1, bias → u1, GELU → g, GEMM → t2, bias → u2, add x + u2 → y.
// Fused: two GEMMs, the first with a bias+GELU epilogue writing g, the second with a bias+residual
// epilogue (x + (acc + b2)) writing y, each applied to an output row segment while it is in L1. Both
// variants write g and round every op the same way, so their outputs are identical.
#include "ffn.h"

#include "cpu/gemm_cpu.h"
#include "cpu/row_ops.h"

namespace fusebench::kernels {

void ffn_unfused_cpu(const FfnArgs& a) {
  cpu::gemm(a.x, a.w1, a.t1, a.m, a.f, a.h, cpu::NoEpilogue{});
  cpu::bias_pass(a.t1, a.b1, a.u1, a.m, a.f);
  cpu::gelu_pass(a.u1, a.g, a.m * a.f);
  cpu::gemm(a.g, a.w2, a.t2, a.m, a.h, a.f, cpu::NoEpilogue{});
  cpu::bias_pass(a.t2, a.b2, a.u2, a.m, a.h);
  cpu::add_pass(a.x, a.u2, a.y, a.m * a.h);
}

void ffn_fused_cpu(const FfnArgs& a) {
  cpu::gemm(a.x, a.w1, a.g, a.m, a.f, a.h, cpu::BiasGeluEpilogue{a.b1});
  cpu::gemm(a.g, a.w2, a.y, a.m, a.h, a.f, cpu::BiasResidualEpilogue{a.b2, a.x, a.h});
}

}  // namespace fusebench::kernels
