// The whole GPT-2 forward pass over batch × seq tokens, c = hidden = heads·64, m = batch·seq rows:
//   x = wte[token(b, t)] + wpe[t]; x = block_l(x) for each layer l (the pre-LN block of
//   common/gpt2_block.h with layer l's weights); logits = LNf(x)·wteᵀ (the tied embedding as LM head).
// Unfused: one op per launch, as eager PyTorch runs the model: the token and position gathers and their
// broadcast add, each block's 22 launches (gpt2_block's unfused twin), LNf and the LM-head GEMM (cuBLAS).
// Fused: the suite's fused pieces: one embedding kernel, the fused block (7 launches: fusebench's GEMMs
// in fp32, cuBLASLt epilogues around the tensor-core flash kernel in bf16/fp16), then LNf and the LM-head
// GEMM over the vocabulary padded to a multiple of 8 (wte copied into wte_pad with zero rows after it,
// every call) writing logits_pad, whose first vocab columns are compacted into the logits. torch.compile
// pads that GEMM the same way: at 50,257 rows cuBLAS takes a path several times slower. The weights of
// every layer are stacked.
// The tokens are not an input: token(b, t) = ((b·seq + t)·7919 + 13) mod vocab (gpt2::token_of, and the
// reference's tokenOf), a deterministic walk over the vocabulary.
#pragma once
#include <cstddef>

#include "common/dtype.h"
#include "common/gpt2_block.h"
#include "common/launch.h"

namespace fusebench::kernels {

template <class T>
struct Gpt2ForwardArgs {
  // Inputs.
  const T* wte;                      // [vocab, c] token embedding, also the LM head
  const T* wpe;                      // [seq, c] position embedding (the rows the sequence uses)
  const T* ln1_g, *ln1_b;            // [layers, c]
  const T* w_qkv, *b_qkv;            // [layers, 3c, c], [layers, 3c]
  const T* w_o, *b_o;                // [layers, c, c], [layers, c]
  const T* ln2_g, *ln2_b;            // [layers, c]
  const T* w1, *b1;                  // [layers, f, c], [layers, f]
  const T* w2, *b2;                  // [layers, c, f], [layers, c]
  const T* lnf_g, *lnf_b;            // [c]
  // Output.
  T* logits;                         // [m, vocab]
  // Scratch: the residual stream (x0 the embedding's output, then x0/x1 alternate as each block's
  // input and output), the unfused embedding's gathered rows, LNf's output.
  T* x0, *x1, *te, *xn;              // [m, c] each
  T* wte_pad;                        // [padded_vocab(vocab), c]: wte and zero rows, the fused LM head's weight
  T* logits_pad;                     // [m, padded_vocab(vocab)]: the fused LM head's output rows
  T* pe;                             // [seq, c]
  // One block's scratch, reused by every layer (common/gpt2_block.h names them).
  T* h, *a, *qkv_t, *qkv, *q, *k, *v, *scores, *scaled, *masked, *p, *o, *merged, *proj_t, *proj, *a2;
  T* f1_t, *f1, *g, *f2_t, *f2, *wqkv_f, *cqkv, *dqkv, *w1_f, *c1, *d1, *stats1, *stats2;
  size_t layers, batch, seq, hidden, heads, f, vocab;
  float eps;
};

namespace gpt2 {
// The token at row r = b·seq + t.
FB_HD size_t token_of(size_t r, size_t vocab) { return (r * 7919 + 13) % vocab; }

// The fused LM head's vocabulary: rounded up to 8 rows (a GEMM dimension cuBLAS's fast kernels take;
// GPT-2's 50,257 is not).
FB_HD size_t padded_vocab(size_t vocab) { return (vocab + 7) / 8 * 8; }

// Layer l's block over the residual stream x, writing y: layer l's slices of the stacked weights and
// the shared block scratch.
template <class T>
TransformerBlockArgs<T> block_args(const Gpt2ForwardArgs<T>& a, size_t l, const T* x, T* y) {
  const size_t c = a.hidden, f = a.f;
  TransformerBlockArgs<T> b{};
  b.x = x;
  b.ln1_g = a.ln1_g + l * c, b.ln1_b = a.ln1_b + l * c;
  b.w_qkv = a.w_qkv + l * 3 * c * c, b.b_qkv = a.b_qkv + l * 3 * c;
  b.w_o = a.w_o + l * c * c, b.b_o = a.b_o + l * c;
  b.ln2_g = a.ln2_g + l * c, b.ln2_b = a.ln2_b + l * c;
  b.w1 = a.w1 + l * f * c, b.b1 = a.b1 + l * f;
  b.w2 = a.w2 + l * c * f, b.b2 = a.b2 + l * c;
  b.h = a.h, b.y = y;
  b.a = a.a, b.qkv_t = a.qkv_t, b.qkv = a.qkv, b.q = a.q, b.k = a.k, b.v = a.v;
  b.scores = a.scores, b.scaled = a.scaled, b.masked = a.masked, b.p = a.p, b.o = a.o, b.merged = a.merged;
  b.proj_t = a.proj_t, b.proj = a.proj, b.a2 = a.a2, b.f1_t = a.f1_t, b.f1 = a.f1, b.g = a.g;
  b.f2_t = a.f2_t, b.f2 = a.f2;
  b.wqkv_f = a.wqkv_f, b.cqkv = a.cqkv, b.dqkv = a.dqkv, b.w1_f = a.w1_f, b.c1 = a.c1, b.d1 = a.d1;
  b.stats1 = a.stats1, b.stats2 = a.stats2;
  b.batch = a.batch, b.seq = a.seq, b.heads = a.heads, b.f = f;
  b.eps = a.eps;
  return b;
}
}  // namespace gpt2

FB_FUSED_PAIR_DECL(gpt2_forward, Gpt2ForwardArgs)

}  // namespace fusebench::kernels
