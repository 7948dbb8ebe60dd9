#include <type_traits>
#include <vector>

#include "case_decl.h"
#include "common/constants.h"
#include "gpt2_block_limits.h"
#include "gpt2_forward.h"

namespace fusebench {
namespace {

// Buffer counts, in checked arithmetic (checked_size.h): C = hidden, M = batch·seq, L = layers, F = FFN width.
template <class A>
Size c(const A& a) { return Size(a.hidden); }
template <class A>
Size c3(const A& a) { return c(a) * 3; }
template <class A>
Size f(const A& a) { return Size(a.f); }
template <class A>
Size cc(const A& a) { return c(a) * a.hidden; }
template <class A>
Size cc3(const A& a) { return cc(a) * 3; }
template <class A>
Size fc(const A& a) { return f(a) * a.hidden; }
template <class A>
Size lc(const A& a) { return Size(a.layers) * a.hidden; }
template <class A>
Size lc3(const A& a) { return lc(a) * 3; }
template <class A>
Size lf(const A& a) { return Size(a.layers) * a.f; }
template <class A>
Size lcc(const A& a) { return lc(a) * a.hidden; }
template <class A>
Size lcc3(const A& a) { return lcc(a) * 3; }
template <class A>
Size lfc(const A& a) { return lf(a) * a.hidden; }
template <class A>
Size m(const A& a) { return Size(a.batch) * a.seq; }
template <class A>
Size mc(const A& a) { return m(a) * a.hidden; }
template <class A>
Size mc3(const A& a) { return mc(a) * 3; }
template <class A>
Size mf(const A& a) { return m(a) * a.f; }
template <class A>
Size seq_c(const A& a) { return Size(a.seq) * a.hidden; }
template <class A>
Size vocab_c(const A& a) { return Size(a.vocab) * a.hidden; }
template <class A>
Size logits(const A& a) { return m(a) * a.vocab; }
template <class A>
Size logits_pad(const A& a) { return m(a) * kernels::gpt2::padded_vocab(a.vocab); }
template <class A>
Size wte_pad(const A& a) { return Size(kernels::gpt2::padded_vocab(a.vocab)) * a.hidden; }
template <class A>
Size scores(const A& a) { return Size(a.batch) * a.heads * a.seq * a.seq; }
template <class A>
Size rows2(const A& a) { return m(a) * 2; }

}  // namespace
}  // namespace fusebench

FB_CASE(gpt2_forward, Gpt2ForwardArgs) {
  std::vector<Limit<A>> limits = {
      {"heads divides hidden", "attention splits the hidden size into equal heads",
       [](const A& a) { return a.hidden % a.heads == 0; }},
      {"hidden = heads·64", "every attention kernel's head is 64 wide",
       [](const A& a) { return a.hidden == a.heads * kHeadDim; }},
      {"vocab < 2^31", kIntDimsWhy, [](const A& a) { return fit_int({a.vocab}); }}};
  for (auto& l : gpt2_block_limits<T, A>()) limits.push_back(l);
  const Role in = Role::Input, out = Role::Output, tmp = Role::Scratch;
  return {case_name,
          {{"layers", &A::layers}, {"batch", &A::batch}, {"seq", &A::seq}, {"hidden", &A::hidden},
           {"heads", &A::heads}, {"f", &A::f}, {"vocab", &A::vocab}},
          {{"eps", &A::eps, kLayerNormEps}},
          {// Inputs: the embeddings and the weights, stacked over the layers.
           {"wte", &A::wte, in, vocab_c<A>}, {"wpe", &A::wpe, in, seq_c<A>},
           {"ln1_g", &A::ln1_g, in, lc<A>}, {"ln1_b", &A::ln1_b, in, lc<A>},
           {"w_qkv", &A::w_qkv, in, lcc3<A>}, {"b_qkv", &A::b_qkv, in, lc3<A>},
           {"w_o", &A::w_o, in, lcc<A>}, {"b_o", &A::b_o, in, lc<A>},
           {"ln2_g", &A::ln2_g, in, lc<A>}, {"ln2_b", &A::ln2_b, in, lc<A>},
           {"w1", &A::w1, in, lfc<A>}, {"b1", &A::b1, in, lf<A>},
           {"w2", &A::w2, in, lfc<A>}, {"b2", &A::b2, in, lc<A>},
           {"lnf_g", &A::lnf_g, in, c<A>}, {"lnf_b", &A::lnf_b, in, c<A>},
           // Output.
           {"logits", &A::logits, out, logits<A>},
           // Scratch: the residual stream, the unfused embedding's rows, LNf's output, one block's scratch.
           {"x0", &A::x0, tmp, mc<A>}, {"x1", &A::x1, tmp, mc<A>}, {"te", &A::te, tmp, mc<A>},
           {"pe", &A::pe, tmp, seq_c<A>}, {"xn", &A::xn, tmp, mc<A>}, {"wte_pad", &A::wte_pad, tmp, wte_pad<A>},
           {"logits_pad", &A::logits_pad, tmp, logits_pad<A>},
           {"h", &A::h, tmp, mc<A>}, {"a", &A::a, tmp, mc<A>}, {"qkv_t", &A::qkv_t, tmp, mc3<A>},
           {"qkv", &A::qkv, tmp, mc3<A>}, {"q", &A::q, tmp, mc<A>}, {"k", &A::k, tmp, mc<A>}, {"v", &A::v, tmp, mc<A>},
           {"scores", &A::scores, tmp, scores<A>}, {"scaled", &A::scaled, tmp, scores<A>},
           {"masked", &A::masked, tmp, scores<A>}, {"p", &A::p, tmp, scores<A>}, {"o", &A::o, tmp, mc<A>},
           {"merged", &A::merged, tmp, mc<A>}, {"proj_t", &A::proj_t, tmp, mc<A>}, {"proj", &A::proj, tmp, mc<A>},
           {"a2", &A::a2, tmp, mc<A>}, {"f1_t", &A::f1_t, tmp, mf<A>}, {"f1", &A::f1, tmp, mf<A>}, {"g", &A::g, tmp, mf<A>},
           {"f2_t", &A::f2_t, tmp, mc<A>}, {"f2", &A::f2, tmp, mc<A>}, {"wqkv_f", &A::wqkv_f, tmp, cc3<A>},
           {"cqkv", &A::cqkv, tmp, c3<A>}, {"dqkv", &A::dqkv, tmp, c3<A>}, {"w1_f", &A::w1_f, tmp, fc<A>},
           {"c1", &A::c1, tmp, f<A>}, {"d1", &A::d1, tmp, f<A>}, {"stats1", &A::stats1, tmp, rows2<A>},
           {"stats2", &A::stats2, tmp, rows2<A>}},
          {{"unfused", gpt2_forward_unfused_cpu<T>, FB_CUDA(gpt2_forward_unfused_cuda<T>), Needs::Cublas},
           // fp32: fusebench's fused block (SIMT flash); bf16/fp16: the library-fused block (tensor-core flash, sm_80+).
           {"fused", gpt2_forward_fused_cpu<T>, FB_CUDA(gpt2_forward_fused_cuda<T>), Needs::Cublas,
            std::is_same_v<T, float> ? kFlashSmemBytes : kFlashMmaSmemBytes, std::is_same_v<T, float> ? 0 : 80}},
          limits};
}
