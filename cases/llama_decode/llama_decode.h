// One decode step of a Llama-style model at batch 1 with a KV cache (the Llama-3.2-1B shape: RMSNorm,
// grouped-query attention with RoPE, a SwiGLU FFN, the tied embedding as LM head), c = heads·64,
// kv = kv_heads·64, g = heads / kv_heads query heads per K/V head:
//   x = embed[token]; for each layer l:
//     a = RMSNorm(x)·γ_attn; [q | k | v] = a·Wqkvᵀ (q: c, k and v: kv values);
//     q, k ← RoPE at position pos (each head's pairs (i, i + 32) turned by pos·θ^(−i/32), i < 32);
//     K[l][pos] = k, V[l][pos] = v (written into the cache); o = attention of each query head h over the
//     cache rows 0 .. pos of K/V head h / g; x += o·Wo;
//     a = RMSNorm(x)·γ_ffn; [gate | up] = a·Wguᵀ; x += (silu(gate)·up)·Wdown;
//   logits = RMSNorm(x)·γ_f·embedᵀ.
// Wo and W_down are stored in × out (x·W, not x·Wᵀ): the fused kernel splits both projections by their
// inputs (a head's 64, a block's FFN columns), whose weights are then contiguous runs, not 128-byte pieces
// of every row. No biases (Llama has none). Unfused: one launch per op, as an eager framework with merged QKV and
// gate/up projections runs the step (vLLM's and SGLang's layout). Fused: one persistent kernel for the
// whole step on Hopper (llama_decode_fused.cu). The cache is an input whose row pos both variants write
// in place (as gpt2_decode's).
#pragma once
#include <cmath>
#include <cstddef>

#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::kernels {

template <class T>
struct LlamaDecodeArgs {
  // Inputs.
  const T* embed;             // [vocab, c] token embedding, also the LM head
  const T* attn_norm;         // [layers, c] γ of the RMSNorm before attention
  const T* w_qkv;             // [layers, c + 2·kv, c]: rows [Q | K | V]
  const T* w_o;               // [layers, c, c] stored in × out: row i holds input i's weight to every output
  const T* ffn_norm;          // [layers, c] γ of the RMSNorm before the FFN
  const T* w_gu;              // [layers, 2f, c]: rows [gate | up]
  const T* w_down;            // [layers, f, c] stored in × out (as GPT-2's Conv1D stores its weights)
  const T* norm_f;            // [c] γ of the final RMSNorm
  T* k_cache, *v_cache;       // [layers, ctx, kv]: the past in rows 0 .. pos − 1; the step writes row pos
  // Output.
  T* logits;                  // [vocab]
  // Scratch of the unfused twin, one buffer per op output (as eager stores them, in T).
  T* x, *h, *a, *att, *proj;  // [c]: the residual before and after attention, the norm, attention, projection
  T* qkv;                     // [c + 2·kv] (q and k turned by RoPE in place)
  T* gu;                      // [2f]
  T* g;                       // [f] silu(gate)·up
  // Scratch of both: the attention's per-chunk partial results (max, sum, 64 unnormalized outputs).
  float* att_part;            // [heads, max_splits(ctx), 66]
  // Scratch of the fused kernel, fp32: the residual stream in two buffers that take turns, and q|k|v.
  float* x_f, *x2_f;          // [c·kResidualCopies] each
  float* qkv_f;               // [c + 2·kv]
  size_t layers, hidden, heads, kv_heads, f, vocab, ctx, pos, token;
  float eps, rope_theta;
};

namespace llama {
// RoPE's angle for pair i < 32 of a head at position pos: pos·θ^(−2i/64), in double (the angle reaches
// ~10³ rad at the cache's end, where float's rounding alone would move it by ~10⁻⁴).
FB_HD double rope_angle(size_t pos, int i, double theta) { return static_cast<double>(pos) * pow(theta, -2.0 * i / 64.0); }
}  // namespace llama

FB_FUSED_PAIR_DECL(llama_decode, LlamaDecodeArgs)

}  // namespace fusebench::kernels
