#include <type_traits>
#include <vector>

#include "case_decl.h"
#include "common/constants.h"
#include "linear_limits.h"
#include "layernorm_linear.h"

FB_CASE(layernorm_linear, LayerNormLinearArgs) {
  constexpr auto mk = [](const A& a) { return Size(a.m) * a.k; };
  constexpr auto nk = [](const A& a) { return Size(a.n) * a.k; };
  constexpr auto mn = [](const A& a) { return Size(a.m) * a.n; };
  constexpr auto n = [](const A& a) { return Size(a.n); };
  constexpr auto k = [](const A& a) { return Size(a.k); };
  std::vector<Limit<A>> limits = linear_limits<A>();
  std::vector<Variant<A>> variants = {
      {"unfused", layernorm_linear_unfused_cpu<T>, FB_CUDA(layernorm_linear_unfused_cuda<T>), Needs::Cublas},
      // fp32: fusebench's LayerNorm-folded GEMM; bf16/fp16: cuBLASLt (needs cuBLAS).
      {"fused", layernorm_linear_fused_cpu<T>, FB_CUDA(layernorm_linear_fused_cuda<T>),
       std::is_same_v<T, float> ? Needs::Nothing : Needs::Cublas}};
  // fp32, CUDA: the folded GEMM on weights folded once (the CPU's fused variant does not fold).
  if constexpr (std::is_same_v<T, float>) variants.push_back({"prefolded", nullptr, FB_CUDA(layernorm_linear_prefolded_cuda)});
  limits.push_back({"k <= 2^30", "the unfused twin's CUDA LayerNorm kernel indexes a row with 32-bit ints",
                    [](const A& a) { return a.k <= (size_t{1} << 30); }});
  return {case_name,
          {{"m", &A::m}, {"n", &A::n}, {"k", &A::k}},
          {{"eps", &A::eps, kLayerNormEps}},
          {{"x", &A::x, Role::Input, mk},
           {"gamma", &A::gamma, Role::Input, k},
           {"beta", &A::beta, Role::Input, k},
           {"w", &A::w, Role::Input, nk},
           {"b", &A::b, Role::Input, n},
           {"y", &A::y, Role::Output, mn},
           {"xn", &A::xn, Role::Scratch, mk},
           {"t", &A::t, Role::Scratch, mn},
           {"w_folded", &A::w_folded, Role::Scratch, nk},
           {"colsum", &A::colsum, Role::Scratch, n},
           {"bias_folded", &A::bias_folded, Role::Scratch, n},
           {"row_stats", &A::row_stats, Role::Scratch, [](const A& a) { return Size(a.m) * 2; }},
           {"w_prefolded", &A::w_prefolded, Role::Input, nk},
           {"colsum_prefolded", &A::colsum_prefolded, Role::Input, n},
           {"bias_prefolded", &A::bias_prefolded, Role::Input, n}},
          variants,
          limits};
}
