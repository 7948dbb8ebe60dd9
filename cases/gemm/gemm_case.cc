#include "case_decl.h"
#include "common/gemm_limits.h"
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
          {{"x", &A::x, Role::Input, [](const A& a) { return a.m * a.k; }},
           {"w", &A::w, Role::Input, [](const A& a) { return a.n * a.k; }},
           {"y", &A::y, Role::Output, [](const A& a) { return a.m * a.n; }}},
          // CUDA only: the CPU backend has one GEMM, nothing to compare it with.
          {{"cublas", nullptr, FB_CUDA(gemm_cublas_cuda), Needs::Cublas},
           {"own", nullptr, FB_CUDA(gemm_own_cuda)}},
          {{"k % 4 == 0", kVectorKWhy, [](const A& a) { return a.k % 4 == 0; }},
           {"every dimension < 2^31", kIntDimsWhy, [](const A& a) { return fit_int({a.m, a.n, a.k}); }},
           {"m <= 8,388,480", kGemmRowsWhy, [](const A& a) { return a.m <= kMaxGemmRows; }}}};
}

FB_REGISTER_CASE(declare);

}  // namespace
}  // namespace fusebench
