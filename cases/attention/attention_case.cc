#include "attention.h"
#include "attention_limits.h"
#include "case_decl.h"
#include "common/constants.h"

namespace fusebench {
namespace {

using kernels::AttentionArgs;

CaseDecl<AttentionArgs> declare() {
  using A = AttentionArgs;
  using namespace kernels;
  constexpr auto qkv = [](const A& a) { return a.batch * a.heads * a.seq * a.d; };
  constexpr auto scores = [](const A& a) { return a.batch * a.heads * a.seq * a.seq; };
  return {"attention",
          {{"batch", &A::batch}, {"heads", &A::heads}, {"seq", &A::seq}, {"d", &A::d}},
          {},
          {{"q", &A::q, Role::Input, qkv},
           {"k", &A::k, Role::Input, qkv},
           {"v", &A::v, Role::Input, qkv},
           {"o", &A::o, Role::Output, qkv},
           {"scores", &A::scores, Role::Scratch, scores},
           {"scaled", &A::scaled, Role::Scratch, scores},
           {"masked", &A::masked, Role::Scratch, scores},
           {"p", &A::p, Role::Scratch, scores}},
          {{"unfused", attention_unfused_cpu, FB_CUDA(attention_unfused_cuda), Needs::Cublas},
           {"fused", attention_fused_cpu, FB_CUDA(attention_fused_cuda), Needs::Nothing, kFlashSmemBytes}},
          attention_limits<A>()};
}

FB_REGISTER_CASE(declare);

}  // namespace
}  // namespace fusebench
