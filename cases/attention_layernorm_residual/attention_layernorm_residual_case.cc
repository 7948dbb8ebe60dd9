#include <type_traits>
#include <vector>

#include "attention_layernorm_residual.h"
#include "attention_limits.h"
#include "case_decl.h"
#include "common/constants.h"

FB_CASE(attention_layernorm_residual, AttentionLayerNormArgs) {
  constexpr bool kHalf = !std::is_same_v<T, float>;
  constexpr auto qkv = [](const A& a) { return Size(a.batch) * a.heads * a.seq * a.d; };
  constexpr auto scores = [](const A& a) { return Size(a.batch) * a.heads * a.seq * a.seq; };
  constexpr auto c = [](const A& a) { return Size(a.heads) * a.d; };
  std::vector<Limit<A>> limits = attention_limits<A>();
  if constexpr (kHalf) limits.push_back(tensor_core_flash_grid_limit<A>());
  return {case_name,
          {{"batch", &A::batch}, {"heads", &A::heads}, {"seq", &A::seq}, {"d", &A::d}},
          {{"eps", &A::eps, kLayerNormEps}},
          {{"q", &A::q, Role::Input, qkv},
           {"k", &A::k, Role::Input, qkv},
           {"v", &A::v, Role::Input, qkv},
           {"x", &A::x, Role::Input, qkv},
           {"gamma", &A::gamma, Role::Input, c},
           {"beta", &A::beta, Role::Input, c},
           {"y", &A::y, Role::Output, qkv},
           {"o", &A::o, Role::Scratch, qkv},
           {"scores", &A::scores, Role::Scratch, scores},
           {"scaled", &A::scaled, Role::Scratch, scores},
           {"masked", &A::masked, Role::Scratch, scores},
           {"p", &A::p, Role::Scratch, scores},
           {"merged", &A::merged, Role::Scratch, qkv},
           {"h", &A::h, Role::Scratch, qkv},
           {"counters", &A::counters, Role::Scratch, [](const A& a) { return Size(a.batch) * ((Size(a.seq) + 63) / 64); }}},
          {{"unfused", attention_layernorm_residual_unfused_cpu<T>,
            FB_CUDA(attention_layernorm_residual_unfused_cuda<T>), Needs::Cublas},
           // fp32: the SIMT flash kernel with its LayerNorm ending; bf16/fp16: the tensor-core flash
           // kernel (sm_80+) and the residual LayerNorm row kernel.
           {"fused", attention_layernorm_residual_fused_cpu<T>, FB_CUDA(attention_layernorm_residual_fused_cuda<T>),
            Needs::Nothing, kHalf ? kFlashMmaSmemBytes : kFlashSmemBytes, kHalf ? 80 : 0}},
          limits};
}
