#include <type_traits>
#include <vector>

#include "case_decl.h"
#include "common/constants.h"
#include "gpt2_block_limits.h"
#include "gpt2_buffers.h"
#include "gpt2_forward.h"

namespace fusebench {
namespace {

// Buffer counts beyond the shared ones (gpt2_buffers.h), in checked arithmetic: M = batch·seq.
template <class A>
Size seq_c(const A& a) { return Size(a.seq) * a.hidden; }
template <class A>
Size logits(const A& a) { return Size(a.batch) * a.seq * a.vocab; }
template <class A>
Size logits_pad(const A& a) { return Size(a.batch) * a.seq * kernels::gpt2::padded_vocab(a.vocab); }
template <class A>
Size wte_pad(const A& a) { return Size(kernels::gpt2::padded_vocab(a.vocab)) * a.hidden; }

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
  using gpt2_block::mc;
  const Role in = Role::Input, out = Role::Output, tmp = Role::Scratch;
  // Inputs: the embeddings and the weights, stacked over the layers; the logits; then the residual
  // stream, the unfused embedding's rows, LNf's output, the fused LM head's padded weight and output, and
  // one block's scratch (every layer reuses it).
  std::vector<Buffer<A>> buffers = gpt2_weight_buffers<A>();
  for (Buffer<A> b : std::vector<Buffer<A>>{
           {"wpe", &A::wpe, in, seq_c<A>},          {"logits", &A::logits, out, logits<A>},
           {"x0", &A::x0, tmp, mc<A>},              {"x1", &A::x1, tmp, mc<A>},
           {"te", &A::te, tmp, mc<A>},              {"pe", &A::pe, tmp, seq_c<A>},
           {"xn", &A::xn, tmp, mc<A>},              {"wte_pad", &A::wte_pad, tmp, wte_pad<A>},
           {"logits_pad", &A::logits_pad, tmp, logits_pad<A>}, {"h", &A::h, tmp, mc<A>}})
    buffers.push_back(std::move(b));
  for (auto& b : gpt2_block_scratch<A>()) buffers.push_back(std::move(b));
  return {case_name,
          {{"layers", &A::layers}, {"batch", &A::batch}, {"seq", &A::seq}, {"hidden", &A::hidden},
           {"heads", &A::heads}, {"f", &A::f}, {"vocab", &A::vocab}},
          {{"eps", &A::eps, kLayerNormEps}},
          std::move(buffers),
          {{"unfused", gpt2_forward_unfused_cpu<T>, FB_CUDA(gpt2_forward_unfused_cuda<T>), Needs::Cublas},
           // fp32: fusebench's fused block (SIMT flash); bf16/fp16: the library-fused block (tensor-core flash, sm_80+).
           {"fused", gpt2_forward_fused_cpu<T>, FB_CUDA(gpt2_forward_fused_cuda<T>), Needs::Cublas,
            std::is_same_v<T, float> ? kFlashSmemBytes : kFlashMmaSmemBytes, std::is_same_v<T, float> ? 0 : 80}},
          limits};
}
