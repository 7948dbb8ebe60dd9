#include "bias_gelu.h"
#include "case_decl.h"

FB_CASE(bias_gelu, BiasGeluArgs) {
  constexpr auto n = [](const A& a) { return Size(a.rows) * a.cols; };
  return {case_name,
          {{"rows", &A::rows}, {"cols", &A::cols}},
          {},
          {{"x", &A::x, Role::Input, n},
           {"b", &A::b, Role::Input, [](const A& a) { return Size(a.cols); }},
           {"tmp", &A::tmp, Role::Scratch, n},
           {"y", &A::y, Role::Output, n}},
          {FB_FUSED_PAIR(bias_gelu)},
          {{"cols < 2^31", "the CUDA kernels track a column in 32-bit unsigned arithmetic as col + step, both < cols",
            [](const A& a) { return a.cols < (size_t{1} << 31); }}}};
}
