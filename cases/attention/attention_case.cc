#include <type_traits>
#include <vector>

#include "attention.h"
#include "attention_limits.h"
#include "case_decl.h"
#include "common/constants.h"

FB_CASE(attention, AttentionArgs) {
  constexpr bool kHalf = !std::is_same_v<T, float>;
  constexpr auto qkv = [](const A& a) { return Size(a.batch) * a.heads * a.seq * a.d; };
  constexpr auto scores = [](const A& a) { return Size(a.batch) * a.heads * a.seq * a.seq; };
  // fp32: head dimension 64 (the SIMT flash kernel's tiles); bf16/fp16: 64 or 128.
  std::vector<Limit<A>> limits = attention_limits<A>(kHalf ? head_dim_64_or_128_limit<A>() : head_dim_64_limit<A>());
  if constexpr (kHalf) limits.push_back(tensor_core_flash_grid_limit<A>());
  return {case_name,
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
          {{"unfused", attention_unfused_cpu<T>, FB_CUDA(attention_unfused_cuda<T>), Needs::Cublas},
           // fp32: the SIMT flash kernel; bf16/fp16: the tensor-core ones, picked at run time (the sm_90a
           // wgmma/TMA kernel on Hopper, the mma.sync kernel on sm_80+: attention.cu); the shared memory
           // stated is the mma.sync kernel's at d = 64, what every device that runs the variant needs.
           {"fused", attention_fused_cpu<T>, FB_CUDA(attention_fused_cuda<T>), Needs::Nothing,
            kHalf ? kFlashMmaSmemBytes : kFlashSmemBytes, kHalf ? 80 : 0}},
          limits};
}
