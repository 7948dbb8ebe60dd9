/**
 * One Llama decode step at batch 1 with a KV cache (llama_decode.h), c = hidden = heads·64, kv = kv_heads·64:
 *   x = embed[token]; per layer: a = RMSNorm(x)·γ; [q|k|v] = a·Wqkvᵀ; q, k ← RoPE at pos; the cache rows
 *   pos ← k, v; o = softmax(q·Kᵀ/8)·V over the cache rows 0 .. pos, query head h on K/V head
 *   h / (heads / kv_heads); x += o·Wo (Wo and Wdown stored in × out: llama_decode.h); a = RMSNorm(x)·γ; [gate|up] = a·Wguᵀ; x += (silu(gate)·up)·Wdown;
 *   then logits = (RMSNorm(x)·γ_f)·embedᵀ (the tied embedding as LM head). No biases.
 * Unfused: one launch per op, as an eager framework with merged QKV and gate/up projections runs the step
 * (3 + 12·layers launches, 195 for Llama-3.2-1B). Fused: one persistent kernel for the whole step
 * (llama_decode_fused.cu). The cache is an input whose row pos both variants write in place; the logits
 * and the caches' rows around pos are the checked outputs.
 */

import { nativeConstants } from '../../src/addon/native.ts';
import { seedStream } from '../../src/base/rng.ts';
import { defineCase } from '../../src/case/define.ts';
import { normalArray } from '../../src/case/random.ts';
import { decodeReferences } from '../../src/reference/kv-cache.ts';
import { decodeStep } from './reference.ts';
import { stepTraffic } from './traffic.ts';
import { llamaWeights } from './weights.ts';

type Dim = 'layers' | 'hidden' | 'heads' | 'kv_heads' | 'f' | 'vocab' | 'ctx' | 'pos' | 'token';

/** Llama-3.2-1B with 1,023 tokens cached: weights 2.47 GB + KV 34 MB in bf16. */
const LLAMA_1B = {
  layers: 16,
  hidden: 2048,
  heads: 32,
  kv_heads: 8,
  f: 8192,
  vocab: 128_256,
  ctx: 1024,
  pos: 1023,
  token: 791,
};
/** The test configuration the CPU backend runs: 2 layers, hidden 128, 2 query heads on 1 K/V head, 13 tokens cached. */
const SMALL = { layers: 2, hidden: 128, heads: 2, kv_heads: 1, f: 256, vocab: 1000, ctx: 64, pos: 13, token: 7 };
/** A cache of 300 rows with 291 keys (two attention chunks even on one block), one K/V head per query head. */
const LONG = { layers: 1, hidden: 128, heads: 2, kv_heads: 2, f: 128, vocab: 50, ctx: 300, pos: 290, token: 49 };
/** A group of 6 query heads a K/V head, over 78 keys. */
const GROUP_OF_6 = { layers: 1, hidden: 768, heads: 12, kv_heads: 2, f: 128, vocab: 60, ctx: 100, pos: 77, token: 5 };
/** Llama-3.2-1B's heads and hidden size at 6 keys. */
const LLAMA_1B_HEADS = {
  layers: 1,
  hidden: 2048,
  heads: 32,
  kv_heads: 8,
  f: 256,
  vocab: 100,
  ctx: 16,
  pos: 5,
  token: 3,
};

export default defineCase<Dim, 'eps' | 'rope_theta'>({
  title: 'Llama decode step (GQA, RoPE, SwiGLU; KV cache, batch 1)',
  shapes: {
    cuda: [
      {
        label: '16x2048@1023',
        dims: LLAMA_1B,
        description:
          'Llama-3.2-1B shape (16 layers, hidden 2,048, 32 query / 8 K/V heads, SwiGLU 8,192, vocab 128,256), batch 1, 1,023 tokens cached',
        // The third arm: the unfused step's 195 launches replayed from a CUDA graph.
        graphTwin: true,
        ungatedSpeedup:
          "the unfused twin's 195 launches a call are issued by the host, whose speed moves its time between machines",
      },
    ],
    cpu: [
      {
        label: '2x128@13',
        dims: SMALL,
        description: '2 layers, hidden 128, 2 query / 1 K/V heads, SwiGLU 256, vocab 1,000, 13 tokens cached',
      },
    ],
  },
  // The test configuration; the second position (two keys); a cache of 300 rows with 291 keys; 4 query
  // heads on 2 K/V heads with SwiGLU 200 (GEMV rows ending inside a 256-wide segment), the last cache
  // row and the last token; 12 query heads on 2 K/V heads (a group of 6: the fused kernel's attention
  // items serve 2 query heads at once, in 3 passes); Llama-3.2-1B's heads at 6 keys.
  testShapes: [
    SMALL,
    { layers: 1, hidden: 128, heads: 2, kv_heads: 1, f: 64, vocab: 50, ctx: 8, pos: 1, token: 3 },
    LONG,
    { layers: 2, hidden: 256, heads: 4, kv_heads: 2, f: 200, vocab: 333, ctx: 40, pos: 39, token: 332 },
    GROUP_OF_6,
    LLAMA_1B_HEADS,
  ],
  // The fused kernel's grid capped at 1 and 3 blocks: several attention and out-projection items per
  // block, and many GEMV pieces a warp, so that warps take pieces a ring apart (the consumers' meeting
  // every eight pieces); at hidden 2,048 the out-projection split's floor of 3 items a head.
  cappedGridShapes: [SMALL, LONG, GROUP_OF_6, LLAMA_1B_HEADS],
  // The model's weights (weights.ts); the cached K and V rows ~ N(0, 1), like the projections.
  inputs: ({ layers, hidden, kv_heads, f, vocab, ctx }, seed) => {
    const kv = kv_heads * nativeConstants().headDim;
    return {
      ...llamaWeights({ layers, hidden, kv, f, vocab }, seed),
      k_cache: normalArray(layers * ctx * kv, 1, seedStream(seed, 16)),
      v_cache: normalArray(layers * ctx * kv, 1, seedStream(seed, 17)),
    };
  },
  // Every logit (128,256 at Llama-3.2-1B: below the sampled references' budget), from the whole step in
  // float64 (reference.ts), and each cache's rows around pos (src/reference/kv-cache.ts).
  reference: (inputs, d, params, dtype) => decodeReferences(inputs, decodeStep(inputs, d, params, dtype)),
  // The logits carry the rounding of every stored tensor of 2·layers blocks. Max |error| against the
  // reference on the CPU, unfused / fused: at the test shapes (seeds 1 .. 16) fp32 2.2e-6 / 2.2e-6, bf16
  // 0.036 / 0.0074, fp16 4.1e-3 / 9.6e-4; at the CUDA shape (2 seeds) fp32 4.2e-5 / 4.2e-5, bf16 0.28 /
  // 0.031, fp16 0.038 / 3.9e-3; on two H100s (the perf runs of docs/llama-decode.md) fp32 ≤ 1.9e-5 /
  // 1.4e-5, bf16 ≤ 0.333 / 0.116, fp16 ≤ 0.036 / 0.014. The unfused twin, rounding a, qkv, att, proj, gu, g
  // and x to T in every layer of 16, sets the atol (logits of rms 2.3 there, 0.55–0.75 at the test shapes).
  // The stated atol sits ≥ ×2 above the largest error measured, and every planted defect (a layer skipped, the K/V
  // row at the wrong position, the attention range off by one, the LM head reading the wrong row, RoPE
  // not turned, a query head reading the wrong K/V head) moves logits by more (the case's tests plant them).
  tolerance: {
    fp32: { atol: 1e-4, rtol: 2e-5 },
    bf16: { atol: 0.7, rtol: 0.03 },
    fp16: { atol: 0.08, rtol: 4e-3 },
  },
  traffic: (d, e) => stepTraffic(d, e),
  // The GEMVs (QKV, out-projection, gate/up, down, LM head) and the attention over pos + 1 keys.
  flops: ({ layers, hidden: c, kv_heads, f, vocab, pos }) => {
    const kv = kv_heads * nativeConstants().headDim;
    return layers * (2 * (c * (c + 2 * kv) + c * c + 3 * c * f) + 4 * c * (pos + 1)) + 2 * vocab * c;
  },
});
