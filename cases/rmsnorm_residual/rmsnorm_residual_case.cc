#include "case_decl.h"
#include "common/constants.h"
#include "rmsnorm_residual.h"

namespace fusebench {
namespace {

using kernels::RmsNormResidualArgs;

template <class T>
CaseDecl<RmsNormResidualArgs<T>> declare() {
  using A = RmsNormResidualArgs<T>;
  using namespace kernels;
  constexpr auto n = [](const A& a) { return Size(a.rows) * a.hidden; };
  return {"rmsnorm_residual",
          {{"rows", &A::rows}, {"hidden", &A::hidden}},
          {{"eps", &A::eps, kRmsNormEps}},
          {{"x", &A::x, Role::Input, n},
           {"r", &A::r, Role::Input, n},
           {"gamma", &A::gamma, Role::Input, [](const A& a) { return Size(a.hidden); }},
           {"h", &A::h, Role::Output, n},
           {"y", &A::y, Role::Output, n}},
          {{"unfused", rmsnorm_residual_unfused_cpu<T>, FB_CUDA(rmsnorm_residual_unfused_cuda<T>)},
           {"fused", rmsnorm_residual_fused_cpu<T>, FB_CUDA(rmsnorm_residual_fused_cuda<T>)}},
          {{"hidden <= 2^30", "the CUDA kernels index a row with 32-bit ints, with headroom for a tile",
            [](const A& a) { return a.hidden <= (size_t{1} << 30); }}}};
}

FB_REGISTER_CASE_DTYPES(declare);

}  // namespace
}  // namespace fusebench
