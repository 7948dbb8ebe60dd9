#include <type_traits>
#include <vector>

#include "case_decl.h"
#include "linear_limits.h"
#include "linear_gelu.h"

FB_CASE(linear_gelu, LinearGeluArgs) {
  constexpr bool kFloat = std::is_same_v<T, float>;
  constexpr auto mn = [](const A& a) { return Size(a.m) * a.n; };
  std::vector<Variant<A>> variants = {
      {"unfused", linear_gelu_unfused_cpu<T>, FB_CUDA(linear_gelu_unfused_cuda<T>), Needs::Cublas}};
  if constexpr (kFloat) {
    variants.push_back({"fused", linear_gelu_fused_cpu<T>, FB_CUDA(linear_gelu_fused_cuda)});
    variants.push_back({"cublaslt", nullptr, FB_CUDA(linear_gelu_cublaslt_cuda<T>), Needs::Cublas});
  } else {
    // fusebench's GEMM is fp32 only: in bf16/fp16 the fused variant is cuBLASLt's GELU_BIAS epilogue on
    // tensor cores (on the CPU, the GEMM with the same epilogue, y rounded once).
    variants.push_back({"fused", linear_gelu_fused_cpu<T>, FB_CUDA(linear_gelu_cublaslt_cuda<T>), Needs::Cublas});
  }
  return {case_name,
          {{"m", &A::m}, {"n", &A::n}, {"k", &A::k}},
          {},
          {{"x", &A::x, Role::Input, [](const A& a) { return Size(a.m) * a.k; }},
           {"w", &A::w, Role::Input, [](const A& a) { return Size(a.n) * a.k; }},
           {"b", &A::b, Role::Input, [](const A& a) { return Size(a.n); }},
           {"y", &A::y, Role::Output, mn},
           {"t", &A::t, Role::Scratch, mn},
           {"u", &A::u, Role::Scratch, mn}},
          variants,
          linear_limits<A>()};
}
