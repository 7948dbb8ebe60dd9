#include "case_decl.h"
#include "common/constants.h"
#include "scale_mask_softmax.h"

namespace fusebench {
namespace {

using kernels::ScaleMaskSoftmaxArgs;

template <class T>
CaseDecl<ScaleMaskSoftmaxArgs<T>> declare() {
  using A = ScaleMaskSoftmaxArgs<T>;
  using namespace kernels;
  constexpr auto scores = [](const A& a) { return Size(a.batch) * a.heads * a.seq_q * a.seq_k; };
  return {"scale_mask_softmax",
          {{"batch", &A::batch}, {"heads", &A::heads}, {"seq_q", &A::seq_q}, {"seq_k", &A::seq_k}},
          {{"scale", &A::scale, kAttentionScale}},
          {{"s", &A::s, Role::Input, scores},
           {"scaled", &A::scaled, Role::Scratch, scores},
           {"masked", &A::masked, Role::Scratch, scores},
           {"p", &A::p, Role::Output, scores}},
          {{"unfused", scale_mask_softmax_unfused_cpu<T>, FB_CUDA(scale_mask_softmax_unfused_cuda<T>)},
           {"fused", scale_mask_softmax_fused_cpu<T>, FB_CUDA(scale_mask_softmax_fused_cuda<T>)}},
          {{"seq_q <= 2^30 and seq_k <= 2^30", "the CUDA kernels index a row with 32-bit ints, with headroom for a tile",
            [](const A& a) { return a.seq_q <= (size_t{1} << 30) && a.seq_k <= (size_t{1} << 30); }}}};
}

FB_REGISTER_CASE_DTYPES(declare);

}  // namespace
}  // namespace fusebench
