#include "case_decl.h"
#include "common/constants.h"
#include "common/gemm_limits.h"
#include "llama_decode.h"
#include "../gpt2_decode/gpt2_decode.h"

namespace fusebench {
namespace {

namespace gpt2 = kernels::gpt2;

// Buffer counts in checked arithmetic: C = hidden, KV = kv_heads·64, Q = C + 2·KV (the rows of Wqkv).
template <class A>
Size c(const A& a) { return Size(a.hidden); }
template <class A>
Size kv(const A& a) { return Size(a.kv_heads) * kHeadDim; }
template <class A>
Size q(const A& a) { return c(a) + kv(a) * 2; }
template <class A>
Size lc(const A& a) { return Size(a.layers) * a.hidden; }
template <class A>
Size lqc(const A& a) { return q(a) * a.layers * a.hidden; }
template <class A>
Size lcc(const A& a) { return lc(a) * a.hidden; }
template <class A>
Size lfc(const A& a) { return Size(a.layers) * a.f * a.hidden; }
template <class A>
Size lfc2(const A& a) { return lfc(a) * 2; }
template <class A>
Size f(const A& a) { return Size(a.f); }
template <class A>
Size f2(const A& a) { return f(a) * 2; }
template <class A>
Size vocab(const A& a) { return Size(a.vocab); }
template <class A>
Size vocab_c(const A& a) { return vocab(a) * a.hidden; }
template <class A>
Size cache(const A& a) { return kv(a) * a.layers * a.ctx; }
template <class A>
Size residual(const A& a) { return c(a) * gpt2::kResidualCopies; }  // the ring kernel's copies
template <class A>  // the attention's chunks of keys, in both variants
Size parts(const A& a) { return Size(a.heads) * gpt2::max_splits(a.ctx) * gpt2::kPartFloats; }

// Llama-3.2-1B's RoPE base.
constexpr double kRopeTheta = 500000.0;

}  // namespace
}  // namespace fusebench

FB_CASE(llama_decode, LlamaDecodeArgs) {
  const Role in = Role::Input, out = Role::Output, tmp = Role::Scratch;
  return {case_name,
          {{"layers", &A::layers}, {"hidden", &A::hidden}, {"heads", &A::heads}, {"kv_heads", &A::kv_heads},
           {"f", &A::f}, {"vocab", &A::vocab}, {"ctx", &A::ctx}, {"pos", &A::pos}, {"token", &A::token}},
          {{"eps", &A::eps, kLlamaRmsNormEps}, {"rope_theta", &A::rope_theta, kRopeTheta}},
          {{"embed", &A::embed, in, vocab_c<A>}, {"attn_norm", &A::attn_norm, in, lc<A>}, {"w_qkv", &A::w_qkv, in, lqc<A>},
           {"w_o", &A::w_o, in, lcc<A>}, {"ffn_norm", &A::ffn_norm, in, lc<A>}, {"w_gu", &A::w_gu, in, lfc2<A>},
           {"w_down", &A::w_down, in, lfc<A>}, {"norm_f", &A::norm_f, in, c<A>},
           {"k_cache", &A::k_cache, in, cache<A>}, {"v_cache", &A::v_cache, in, cache<A>},
           {"logits", &A::logits, out, vocab<A>},
           {"x", &A::x, tmp, c<A>}, {"h", &A::h, tmp, c<A>}, {"a", &A::a, tmp, c<A>}, {"att", &A::att, tmp, c<A>}, {"proj", &A::proj, tmp, c<A>},
           {"qkv", &A::qkv, tmp, q<A>}, {"gu", &A::gu, tmp, f2<A>}, {"g", &A::g, tmp, f<A>},
           {"att_part", &A::att_part, tmp, parts<A>}, {"x_f", &A::x_f, tmp, residual<A>},
           {"x2_f", &A::x2_f, tmp, residual<A>}, {"qkv_f", &A::qkv_f, tmp, q<A>}},
          {{"unfused", llama_decode_unfused_cpu<T>, FB_CUDA(llama_decode_unfused_cuda<T>), Needs::Cublas},
           // The ring kernel is sm_90a code: Hopper only, and only in a build that has it.
           {"fused", llama_decode_fused_cpu<T>, FB_CUDA_SM90A(llama_decode_fused_cuda<T>), Needs::Nothing, 0, 90, 90}},
          {{"hidden = heads·64", "every attention kernel's head is 64 wide",
            [](const A& a) { return a.hidden == a.heads * kHeadDim; }},
           {"kv_heads divides heads", "grouped-query attention gives each K/V head the same number of query heads",
            [](const A& a) { return a.kv_heads > 0 && a.heads % a.kv_heads == 0; }},
           {"pos < ctx", "the new K/V row is written at pos in a cache of ctx rows",
            [](const A& a) { return a.pos < a.ctx; }},
           {"token < vocab", "the token indexes the embedding's vocab rows", [](const A& a) { return a.token < a.vocab; }},
           {"f % 8 == 0", "the kernels load weights 8 elements (16 B of bf16/fp16) at a time",
            [](const A& a) { return a.f % 8 == 0; }},
           {"hidden <= 8,192", "the fused kernel stages the GEMV input vector in shared memory",
            [](const A& a) { return a.hidden <= gpt2::kMaxVector; }},
           {"layers <= 64 and heads <= 64", "the fused kernel's per-(layer, head) completion counters",
            [](const A& a) { return a.layers <= gpt2::kMaxLayers && a.heads <= gpt2::kMaxHeads; }},
           {"every GEMM dimension < 2^31", kIntDimsWhy,
            [](const A& a) { return fit_int({a.vocab, a.hidden + 2 * a.kv_heads * kHeadDim, 2 * a.f, a.ctx}); }}}};
}
