#include "case_decl.h"
#include "common/constants.h"
#include "rmsnorm_residual.h"

FB_CASE(rmsnorm_residual, RmsNormResidualArgs) {
  constexpr auto n = [](const A& a) { return Size(a.rows) * a.hidden; };
  return {case_name,
          {{"rows", &A::rows}, {"hidden", &A::hidden}},
          {{"eps", &A::eps, kRmsNormEps}},
          {{"x", &A::x, Role::Input, n},
           {"r", &A::r, Role::Input, n},
           {"gamma", &A::gamma, Role::Input, [](const A& a) { return Size(a.hidden); }},
           {"h", &A::h, Role::Output, n},
           {"y", &A::y, Role::Output, n}},
          {FB_FUSED_PAIR(rmsnorm_residual)},
          {{"hidden <= 2^30", "the CUDA kernels index a row with 32-bit ints, with headroom for a tile",
            [](const A& a) { return a.hidden <= (size_t{1} << 30); }}}};
}
