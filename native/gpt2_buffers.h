// The buffers of the GPT-2-shaped cases, stated once: the stacked weights (gpt2_decode, gpt2_forward: Args
// has hidden, layers, f, vocab and the weight members of gpt2_decode.h / gpt2_forward.h) and the GPT-2
// block's scratch (transformer_block, gpt2_forward: batch, seq, heads, f and common/gpt2_block.h's scratch
// members). Counts in checked arithmetic (checked_size.h).
#pragma once
#include <vector>

#include "case_decl.h"
#include "common/constants.h"

namespace fusebench {

namespace gpt2_weights {
template <class A>
Size c(const A& a) { return Size(a.hidden); }
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
Size vocab_c(const A& a) { return Size(a.vocab) * a.hidden; }
}  // namespace gpt2_weights

// wte, each layer's norms, projections and biases stacked over the layers, and LNf (inputs); wpe, whose
// rows differ by case, is the case's own.
template <class A>
std::vector<Buffer<A>> gpt2_weight_buffers() {
  using namespace gpt2_weights;
  const Role in = Role::Input;
  return {{"wte", &A::wte, in, vocab_c<A>},  {"ln1_g", &A::ln1_g, in, lc<A>}, {"ln1_b", &A::ln1_b, in, lc<A>},
          {"w_qkv", &A::w_qkv, in, lcc3<A>}, {"b_qkv", &A::b_qkv, in, lc3<A>}, {"w_o", &A::w_o, in, lcc<A>},
          {"b_o", &A::b_o, in, lc<A>},       {"ln2_g", &A::ln2_g, in, lc<A>}, {"ln2_b", &A::ln2_b, in, lc<A>},
          {"w1", &A::w1, in, lfc<A>},        {"b1", &A::b1, in, lf<A>},       {"w2", &A::w2, in, lfc<A>},
          {"b2", &A::b2, in, lc<A>},         {"lnf_g", &A::lnf_g, in, c<A>},  {"lnf_b", &A::lnf_b, in, c<A>}};
}

namespace gpt2_block {
// C = heads·headDim, M = batch·seq.
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
}  // namespace gpt2_block

// One block's scratch: the unfused twin's one buffer per op, the fused variants' qkv, merged, g, the fp32
// LayerNorm folds and the rows' statistics (h, an output of transformer_block, is the case's own).
template <class A>
std::vector<Buffer<A>> gpt2_block_scratch() {
  using namespace gpt2_block;
  const Role tmp = Role::Scratch;
  return {{"a", &A::a, tmp, mc<A>},           {"qkv_t", &A::qkv_t, tmp, mc3<A>},   {"qkv", &A::qkv, tmp, mc3<A>},
          {"q", &A::q, tmp, mc<A>},           {"k", &A::k, tmp, mc<A>},            {"v", &A::v, tmp, mc<A>},
          {"scores", &A::scores, tmp, scores<A>}, {"scaled", &A::scaled, tmp, scores<A>},
          {"masked", &A::masked, tmp, scores<A>}, {"p", &A::p, tmp, scores<A>},    {"o", &A::o, tmp, mc<A>},
          {"merged", &A::merged, tmp, mc<A>}, {"proj_t", &A::proj_t, tmp, mc<A>}, {"proj", &A::proj, tmp, mc<A>},
          {"a2", &A::a2, tmp, mc<A>},         {"f1_t", &A::f1_t, tmp, mf<A>},      {"f1", &A::f1, tmp, mf<A>},
          {"g", &A::g, tmp, mf<A>},           {"f2_t", &A::f2_t, tmp, mc<A>},      {"f2", &A::f2, tmp, mc<A>},
          {"wqkv_f", &A::wqkv_f, tmp, cc3<A>}, {"cqkv", &A::cqkv, tmp, c3<A>},     {"dqkv", &A::dqkv, tmp, c3<A>},
          {"w1_f", &A::w1_f, tmp, fc<A>},     {"c1", &A::c1, tmp, f<A>},           {"d1", &A::d1, tmp, f<A>},
          {"stats1", &A::stats1, tmp, rows2<A>}, {"stats2", &A::stats2, tmp, rows2<A>}};
}

}  // namespace fusebench
