#include <type_traits>
#include <vector>

#include "case_decl.h"
#include "common/constants.h"
#include "common/gpt2_block.h"
#include "gpt2_block_limits.h"
#include "gpt2_buffers.h"

FB_CASE(transformer_block, TransformerBlockArgs) {
  std::vector<Variant<A>> variants = {
      {"unfused", transformer_block_unfused_cpu<T>, FB_CUDA(transformer_block_unfused_cuda<T>), Needs::Cublas}};
  if constexpr (std::is_same_v<T, float>) {
    variants.push_back({"fused", transformer_block_fused_cpu, FB_CUDA(transformer_block_fused_cuda), Needs::Nothing,
                        kFlashSmemBytes});
    variants.push_back({"cublaslt", nullptr, FB_CUDA(transformer_block_cublaslt_cuda<T>), Needs::Cublas, kFlashSmemBytes});
  } else {
    // fusebench's GEMM is fp32 only: in bf16/fp16 the fused variant is the library-fused block (cuBLASLt
    // epilogues around the tensor-core flash kernel, sm_80+).
    variants.push_back({"fused", transformer_block_cublaslt_cpu<T>, FB_CUDA(transformer_block_cublaslt_cuda<T>),
                        Needs::Cublas, kFlashMmaSmemBytes, 80});
  }
  std::vector<Limit<A>> limits = gpt2_block_limits<T, A>();
  using namespace gpt2_block;
  const Role in = Role::Input, out = Role::Output;
  std::vector<Buffer<A>> buffers = {
      {"x", &A::x, in, mc<A>},          {"ln1_g", &A::ln1_g, in, c<A>}, {"ln1_b", &A::ln1_b, in, c<A>},
      {"w_qkv", &A::w_qkv, in, cc3<A>}, {"b_qkv", &A::b_qkv, in, c3<A>}, {"w_o", &A::w_o, in, cc<A>},
      {"b_o", &A::b_o, in, c<A>},       {"ln2_g", &A::ln2_g, in, c<A>}, {"ln2_b", &A::ln2_b, in, c<A>},
      {"w1", &A::w1, in, fc<A>},        {"b1", &A::b1, in, f<A>},       {"w2", &A::w2, in, fc<A>},
      {"b2", &A::b2, in, c<A>},
      // Outputs of both variants.
      {"h", &A::h, out, mc<A>},         {"y", &A::y, out, mc<A>}};
  for (auto& b : gpt2_block_scratch<A>()) buffers.push_back(std::move(b));
  return {case_name,
          {{"batch", &A::batch}, {"seq", &A::seq}, {"heads", &A::heads}, {"f", &A::f}},
          {{"eps", &A::eps, kLayerNormEps}},
          std::move(buffers),
          variants,
          limits};
}
