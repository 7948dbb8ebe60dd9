#include <algorithm>

#include "case_decl.h"
#include "common/constants.h"
#include "common/gemm_limits.h"
#include "gpt2_buffers.h"
#include "gpt2_decode.h"

namespace fusebench {
namespace {

namespace gpt2 = kernels::gpt2;

// Buffer counts beyond the weights' (gpt2_buffers.h), in checked arithmetic: C = hidden, L = layers.
template <class A>
Size c(const A& a) { return Size(a.hidden); }
template <class A>
Size c3(const A& a) { return c(a) * 3; }
template <class A>
Size f(const A& a) { return Size(a.f); }
template <class A>
Size vocab(const A& a) { return Size(a.vocab); }
template <class A>
Size ctx_c(const A& a) { return Size(a.ctx) * a.hidden; }
template <class A>
Size cache(const A& a) { return Size(a.layers) * a.hidden * a.ctx; }
template <class A>
Size residual(const A& a) { return Size(a.hidden) * gpt2::kResidualCopies; }  // the ring kernel's copies
template <class A>
Size residual_f(const A& a) {  // the copies, or the register kernel's gelu(FFN1)
  const Size copies = residual(a);
  return copies.value() > a.f ? copies : Size(a.f);
}
template <class A>
Size parts(const A& a) { return Size(a.heads) * gpt2::max_splits(a.ctx) * gpt2::kPartFloats; }

}  // namespace
}  // namespace fusebench

FB_CASE(gpt2_decode, Gpt2DecodeArgs) {
  const Role in = Role::Input, out = Role::Output, tmp = Role::Scratch;
  // Inputs: the weights, stacked over the layers, wpe and the KV cache (row pos is written in place); the
  // logits; the unfused twin's one buffer per op, the attention partials and the fused kernel's fp32 vectors.
  std::vector<Buffer<A>> buffers = gpt2_weight_buffers<A>();
  for (Buffer<A> b : std::vector<Buffer<A>>{
           {"wpe", &A::wpe, in, ctx_c<A>}, {"k_cache", &A::k_cache, in, cache<A>}, {"v_cache", &A::v_cache, in, cache<A>},
           {"logits", &A::logits, out, vocab<A>},
           {"x", &A::x, tmp, c<A>}, {"h", &A::h, tmp, c<A>}, {"a", &A::a, tmp, c<A>}, {"qkv", &A::qkv, tmp, c3<A>},
           {"att", &A::att, tmp, c<A>}, {"proj", &A::proj, tmp, c<A>}, {"f1", &A::f1, tmp, f<A>},
           {"g", &A::g, tmp, f<A>}, {"att_part", &A::att_part, tmp, parts<A>}, {"x_f", &A::x_f, tmp, residual<A>},
           {"qkv_f", &A::qkv_f, tmp, c3<A>}, {"g_f", &A::g_f, tmp, residual_f<A>}})
    buffers.push_back(std::move(b));
  return {case_name,
          {{"layers", &A::layers}, {"hidden", &A::hidden}, {"heads", &A::heads}, {"f", &A::f}, {"vocab", &A::vocab},
           {"ctx", &A::ctx}, {"pos", &A::pos}, {"token", &A::token}},
          {{"eps", &A::eps, kLayerNormEps}},
          std::move(buffers),
          {{"unfused", gpt2_decode_unfused_cpu<T>, FB_CUDA(gpt2_decode_unfused_cuda<T>), Needs::Cublas},
           {"fused", gpt2_decode_fused_cpu<T>, FB_CUDA(gpt2_decode_fused_cuda<T>)}},
          {{"heads divides hidden", "attention splits the hidden size into equal heads",
            [](const A& a) { return a.hidden % a.heads == 0; }},
           {"hidden = heads·64", "every attention kernel's head is 64 wide",
            [](const A& a) { return a.hidden == a.heads * kHeadDim; }},
           {"pos < ctx", "the new K/V row is written at pos in a cache of ctx rows (and wpe has ctx rows)",
            [](const A& a) { return a.pos < a.ctx; }},
           {"token < vocab", "the token indexes the embedding's vocab rows", [](const A& a) { return a.token < a.vocab; }},
           {"f % 8 == 0", "the kernels load weights 8 elements (16 B of bf16/fp16) at a time",
            [](const A& a) { return a.f % 8 == 0; }},
           {"max(hidden, f) <= 8,192", "the fused kernel stages the GEMV input vector in shared memory",
            [](const A& a) { return std::max(a.hidden, a.f) <= gpt2::kMaxVector; }},
           {"layers <= 64 and heads <= 64", "the fused kernel's per-(layer, head) completion counters",
            [](const A& a) { return a.layers <= gpt2::kMaxLayers && a.heads <= gpt2::kMaxHeads; }},
           {"every GEMM dimension < 2^31", kIntDimsWhy,
            [](const A& a) { return fit_int({a.vocab, 3 * a.hidden, a.f, a.ctx}); }}}};
}
