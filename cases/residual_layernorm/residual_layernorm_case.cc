#include "case_decl.h"
#include "common/constants.h"
#include "residual_layernorm.h"

FB_CASE(residual_layernorm, ResidualLayerNormArgs) {
  constexpr auto n = [](const A& a) { return Size(a.rows) * a.hidden; };
  constexpr auto hidden = [](const A& a) { return Size(a.hidden); };
  return {case_name,
          {{"rows", &A::rows}, {"hidden", &A::hidden}},
          {{"eps", &A::eps, kLayerNormEps}},
          {{"x", &A::x, Role::Input, n},
           {"r", &A::r, Role::Input, n},
           {"gamma", &A::gamma, Role::Input, hidden},
           {"beta", &A::beta, Role::Input, hidden},
           {"h", &A::h, Role::Output, n},
           {"y", &A::y, Role::Output, n}},
          {FB_FUSED_PAIR(residual_layernorm)},
          {{"hidden <= 2^30", "the CUDA kernels index a row with 32-bit ints, with headroom for a tile",
            [](const A& a) { return a.hidden <= (size_t{1} << 30); }}}};
}
