#include "case_decl.h"
#include "common/constants.h"
#include "residual_layernorm.h"

namespace fusebench {
namespace {

using kernels::ResidualLayerNormArgs;

template <class T>
CaseDecl<ResidualLayerNormArgs<T>> declare() {
  using A = ResidualLayerNormArgs<T>;
  using namespace kernels;
  constexpr auto n = [](const A& a) { return Size(a.rows) * a.hidden; };
  constexpr auto hidden = [](const A& a) { return Size(a.hidden); };
  return {"residual_layernorm",
          {{"rows", &A::rows}, {"hidden", &A::hidden}},
          {{"eps", &A::eps, kLayerNormEps}},
          {{"x", &A::x, Role::Input, n},
           {"r", &A::r, Role::Input, n},
           {"gamma", &A::gamma, Role::Input, hidden},
           {"beta", &A::beta, Role::Input, hidden},
           {"h", &A::h, Role::Output, n},
           {"y", &A::y, Role::Output, n}},
          {{"unfused", residual_layernorm_unfused_cpu<T>, FB_CUDA(residual_layernorm_unfused_cuda<T>)},
           {"fused", residual_layernorm_fused_cpu<T>, FB_CUDA(residual_layernorm_fused_cuda<T>)}},
          {{"hidden <= 2^30", "the CUDA kernels index a row with 32-bit ints, with headroom for a tile",
            [](const A& a) { return a.hidden <= (size_t{1} << 30); }}}};
}

FB_REGISTER_CASE_DTYPES(declare);

}  // namespace
}  // namespace fusebench
