#include <type_traits>
#include <vector>

#include "case_decl.h"
#include "common/constants.h"
#include "gpt2_block_limits.h"
#include "common/gpt2_block.h"

namespace fusebench {
namespace {

// Buffer counts, in checked arithmetic (checked_size.h): C = heads·headDim, M = batch·seq.
template <class A>
Size c(const A& a) { return Size(a.heads) * kHeadDim; }
template <class A>
Size m(const A& a) { return Size(a.batch) * a.seq; }
template <class A>
Size c3(const A& a) { return c(a) * 3; }
template <class A>
Size cc(const A& a) { return c(a) * c(a); }
template <class A>
Size cc3(const A& a) { return cc(a) * 3; }
template <class A>
Size f(const A& a) { return Size(a.f); }
template <class A>
Size fc(const A& a) { return Size(a.f) * c(a); }
template <class A>
Size mc(const A& a) { return m(a) * c(a); }
template <class A>
Size mc3(const A& a) { return mc(a) * 3; }
template <class A>
Size mf(const A& a) { return m(a) * a.f; }
template <class A>
Size scores(const A& a) { return Size(a.batch) * a.heads * a.seq * a.seq; }
template <class A>
Size rows2(const A& a) { return m(a) * 2; }

}  // namespace
}  // namespace fusebench

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
  const Role in = Role::Input, out = Role::Output, tmp = Role::Scratch;
  return {case_name,
          {{"batch", &A::batch}, {"seq", &A::seq}, {"heads", &A::heads}, {"f", &A::f}},
          {{"eps", &A::eps, kLayerNormEps}},
          {// Inputs.
           {"x", &A::x, in, mc<A>}, {"ln1_g", &A::ln1_g, in, c<A>}, {"ln1_b", &A::ln1_b, in, c<A>},
           {"w_qkv", &A::w_qkv, in, cc3<A>}, {"b_qkv", &A::b_qkv, in, c3<A>}, {"w_o", &A::w_o, in, cc<A>},
           {"b_o", &A::b_o, in, c<A>}, {"ln2_g", &A::ln2_g, in, c<A>}, {"ln2_b", &A::ln2_b, in, c<A>},
           {"w1", &A::w1, in, fc<A>}, {"b1", &A::b1, in, f<A>}, {"w2", &A::w2, in, fc<A>}, {"b2", &A::b2, in, c<A>},
           // Outputs of both variants.
           {"h", &A::h, out, mc<A>}, {"y", &A::y, out, mc<A>},
           // Scratch: the unfused twin's one buffer per op, the fused variant's qkv, merged, g and folds.
           {"a", &A::a, tmp, mc<A>}, {"qkv_t", &A::qkv_t, tmp, mc3<A>}, {"qkv", &A::qkv, tmp, mc3<A>},
           {"q", &A::q, tmp, mc<A>}, {"k", &A::k, tmp, mc<A>}, {"v", &A::v, tmp, mc<A>},
           {"scores", &A::scores, tmp, scores<A>}, {"scaled", &A::scaled, tmp, scores<A>},
           {"masked", &A::masked, tmp, scores<A>}, {"p", &A::p, tmp, scores<A>}, {"o", &A::o, tmp, mc<A>},
           {"merged", &A::merged, tmp, mc<A>}, {"proj_t", &A::proj_t, tmp, mc<A>}, {"proj", &A::proj, tmp, mc<A>},
           {"a2", &A::a2, tmp, mc<A>}, {"f1_t", &A::f1_t, tmp, mf<A>}, {"f1", &A::f1, tmp, mf<A>}, {"g", &A::g, tmp, mf<A>},
           {"f2_t", &A::f2_t, tmp, mc<A>}, {"f2", &A::f2, tmp, mc<A>}, {"wqkv_f", &A::wqkv_f, tmp, cc3<A>},
           {"cqkv", &A::cqkv, tmp, c3<A>}, {"dqkv", &A::dqkv, tmp, c3<A>}, {"w1_f", &A::w1_f, tmp, fc<A>},
           {"c1", &A::c1, tmp, f<A>}, {"d1", &A::d1, tmp, f<A>}, {"stats1", &A::stats1, tmp, rows2<A>},
           {"stats2", &A::stats2, tmp, rows2<A>}},
          variants,
          limits};
}
