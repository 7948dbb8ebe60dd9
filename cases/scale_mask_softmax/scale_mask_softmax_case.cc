#include "case_decl.h"
#include "common/constants.h"
#include "scale_mask_softmax.h"

FB_CASE(scale_mask_softmax, ScaleMaskSoftmaxArgs) {
  constexpr auto scores = [](const A& a) { return Size(a.batch) * a.heads * a.seq_q * a.seq_k; };
  return {case_name,
          {{"batch", &A::batch}, {"heads", &A::heads}, {"seq_q", &A::seq_q}, {"seq_k", &A::seq_k}},
          {{"scale", &A::scale, kAttentionScale}},
          {{"s", &A::s, Role::Input, scores},
           {"scaled", &A::scaled, Role::Scratch, scores},
           {"masked", &A::masked, Role::Scratch, scores},
           {"p", &A::p, Role::Output, scores}},
          {FB_FUSED_PAIR(scale_mask_softmax)},
          {{"seq_q <= 2^30 and seq_k <= 2^30", "the CUDA kernels index a row with 32-bit ints, with headroom for a tile",
            [](const A& a) { return a.seq_q <= (size_t{1} << 30) && a.seq_k <= (size_t{1} << 30); }}}};
}
