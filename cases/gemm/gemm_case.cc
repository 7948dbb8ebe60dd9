#include "case_decl.h"
#include "linear_limits.h"
#include "gemm.h"

namespace fusebench {
namespace {

using kernels::GemmBlockArgs;

CaseDecl<GemmBlockArgs> declare() {
  using A = GemmBlockArgs;
  using namespace kernels;
  return {"gemm",
          {{"m", &A::m}, {"n", &A::n}, {"k", &A::k}},
          {},
          {{"x", &A::x, Role::Input, [](const A& a) { return Size(a.m) * a.k; }},
           {"w", &A::w, Role::Input, [](const A& a) { return Size(a.n) * a.k; }},
           {"y", &A::y, Role::Output, [](const A& a) { return Size(a.m) * a.n; }}},
          // CUDA only: the CPU backend has one GEMM, nothing to compare it with.
          {{"cublas", nullptr, FB_CUDA(gemm_cublas_cuda), Needs::Cublas},
           {"own", nullptr, FB_CUDA(gemm_own_cuda)}},
          linear_limits<A>()};
}

FB_REGISTER_CASE(declare);

}  // namespace
}  // namespace fusebench
