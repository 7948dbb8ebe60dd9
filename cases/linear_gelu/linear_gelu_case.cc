#include "case_decl.h"
#include "common/gemm_limits.h"
#include "linear_gelu.h"

namespace fusebench {
namespace {

using kernels::LinearGeluArgs;

CaseDecl<LinearGeluArgs> declare() {
  using A = LinearGeluArgs;
  using namespace kernels;
  constexpr auto mn = [](const A& a) { return a.m * a.n; };
  return {"linear_gelu",
          {{"m", &A::m}, {"n", &A::n}, {"k", &A::k}},
          {},
          {{"x", &A::x, Role::Input, [](const A& a) { return a.m * a.k; }},
           {"w", &A::w, Role::Input, [](const A& a) { return a.n * a.k; }},
           {"b", &A::b, Role::Input, [](const A& a) { return a.n; }},
           {"y", &A::y, Role::Output, mn},
           {"t", &A::t, Role::Scratch, mn},
           {"u", &A::u, Role::Scratch, mn}},
          {{"unfused", linear_gelu_unfused_cpu, FB_CUDA(linear_gelu_unfused_cuda), Needs::Cublas},
           {"fused", linear_gelu_fused_cpu, FB_CUDA(linear_gelu_fused_cuda)},
           {"cublaslt", nullptr, FB_CUDA(linear_gelu_cublaslt_cuda), Needs::Cublas}},
          {{"k % 4 == 0", kVectorKWhy, [](const A& a) { return a.k % 4 == 0; }},
           {"every dimension < 2^31", kIntDimsWhy, [](const A& a) { return fit_int({a.m, a.n, a.k}); }},
           {"m <= 8,388,480", kGemmRowsWhy, [](const A& a) { return a.m <= kMaxGemmRows; }}}};
}

FB_REGISTER_CASE(declare);

}  // namespace
}  // namespace fusebench
