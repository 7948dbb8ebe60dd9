#include "bias_gelu.h"
#include "case_decl.h"

namespace fusebench {
namespace {

using kernels::BiasGeluArgs;

template <class T>
CaseDecl<BiasGeluArgs<T>> declare() {
  using A = BiasGeluArgs<T>;
  using namespace kernels;
  constexpr auto n = [](const A& a) { return Size(a.rows) * a.cols; };
  return {"bias_gelu",
          {{"rows", &A::rows}, {"cols", &A::cols}},
          {},
          {{"x", &A::x, Role::Input, n},
           {"b", &A::b, Role::Input, [](const A& a) { return Size(a.cols); }},
           {"tmp", &A::tmp, Role::Scratch, n},
           {"y", &A::y, Role::Output, n}},
          {{"unfused", bias_gelu_unfused_cpu<T>, FB_CUDA(bias_gelu_unfused_cuda<T>)},
           {"fused", bias_gelu_fused_cpu<T>, FB_CUDA(bias_gelu_fused_cuda<T>)}},
          {{"cols < 2^31", "the CUDA kernels track a column in 32-bit unsigned arithmetic as col + step, both < cols",
            [](const A& a) { return a.cols < (size_t{1} << 31); }}}};
}

FB_REGISTER_CASE_DTYPES(declare);

}  // namespace
}  // namespace fusebench
