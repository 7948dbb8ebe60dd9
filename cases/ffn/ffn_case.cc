#include <type_traits>
#include <vector>

#include "case_decl.h"
#include "common/gemm_limits.h"
#include "ffn.h"

FB_CASE(ffn, FfnArgs) {
  constexpr auto mh = [](const A& a) { return Size(a.m) * a.h; };
  constexpr auto mf = [](const A& a) { return Size(a.m) * a.f; };
  constexpr auto fh = [](const A& a) { return Size(a.f) * a.h; };
  std::vector<Variant<A>> variants = {{"unfused", ffn_unfused_cpu<T>, FB_CUDA(ffn_unfused_cuda<T>), Needs::Cublas}};
  if constexpr (std::is_same_v<T, float>) {
    variants.push_back({"fused", ffn_fused_cpu<T>, FB_CUDA(ffn_fused_cuda)});
    variants.push_back({"cublaslt", nullptr, FB_CUDA(ffn_cublaslt_cuda<T>), Needs::Cublas});
  } else {
    // fusebench's GEMM is fp32 only: in bf16/fp16 the fused variant is cuBLASLt's epilogues on tensor
    // cores (on the CPU, the GEMMs with the same epilogues, g and y rounded once).
    variants.push_back({"fused", ffn_fused_cpu<T>, FB_CUDA(ffn_cublaslt_cuda<T>), Needs::Cublas});
  }
  return {case_name,
          {{"m", &A::m}, {"h", &A::h}, {"f", &A::f}},
          {},
          {{"x", &A::x, Role::Input, mh},
           {"w1", &A::w1, Role::Input, fh},
           {"b1", &A::b1, Role::Input, [](const A& a) { return Size(a.f); }},
           {"w2", &A::w2, Role::Input, fh},
           {"b2", &A::b2, Role::Input, [](const A& a) { return Size(a.h); }},
           {"y", &A::y, Role::Output, mh},
           {"g", &A::g, Role::Scratch, mf},
           {"t1", &A::t1, Role::Scratch, mf},
           {"u1", &A::u1, Role::Scratch, mf},
           {"t2", &A::t2, Role::Scratch, mh},
           {"u2", &A::u2, Role::Scratch, mh}},
          variants,
          {{"every dimension < 2^31", kIntDimsWhy, [](const A& a) { return fit_int({a.m, a.h, a.f}); }},
           {"m <= 8,388,480", kGemmRowsWhy, [](const A& a) { return a.m <= kMaxGemmRows; }}}};
}
