/**
 * One GPT-2 decode step at batch 1 with a KV cache (gpt2_decode.h), c = hidden = heads·64:
 *   x = wte[token] + wpe[pos]; per layer: a = LN1(x); [q|k|v] = a·Wqkvᵀ + bqkv; the cache rows pos ← k, v;
 *   o = softmax(q·Kᵀ/8)·V over the cache rows 0 .. pos, per head; x += o·Woᵀ + bo;
 *   x += gelu(LN2(x)·W1ᵀ + b1)·W2ᵀ + b2; then logits = LNf(x)·wteᵀ (the tied embedding as LM head).
 * Unfused: one launch per op, as eager PyTorch runs the step (3 + 12·layers + 2 launches, 149 for GPT-2
 * small). Fused: one persistent kernel for the whole step (gpt2_decode_fused.cu; docs/gpt2-decode.md has
 * its design, stage costs and measurements). The cache is an input whose row pos both variants write in
 * place; the logits and the caches' rows around pos are the checked outputs.
 */

import { seedStream } from '../../src/base/rng.ts';
import { defineCase } from '../../src/case/define.ts';
import { gpt2Weights } from '../../src/case/gpt2-weights.ts';
import { normalArray } from '../../src/case/random.ts';
import { decodeReferences } from '../../src/reference/kv-cache.ts';
import { decodeStep } from './reference.ts';
import { stepTraffic } from './traffic.ts';

type Dim = 'layers' | 'hidden' | 'heads' | 'f' | 'vocab' | 'ctx' | 'pos' | 'token';

/** GPT-2 small with 511 tokens cached: the shape (weights 247 MB + KV 19 MB in bf16). */
const GPT2_SMALL = { layers: 12, hidden: 768, heads: 12, f: 3072, vocab: 50_257, ctx: 1024, pos: 511, token: 464 };
/** The test configuration the CPU backend runs: 2 layers, hidden 128, 13 tokens cached. */
const SMALL = { layers: 2, hidden: 128, heads: 2, f: 512, vocab: 1000, ctx: 64, pos: 13, token: 7 };

export default defineCase<Dim, 'eps'>({
  title: 'GPT-2 decode step (KV cache, batch 1)',
  shapes: {
    cuda: [
      {
        label: '12x768@511',
        dims: GPT2_SMALL,
        description: 'GPT-2 small (12 layers, hidden 768, FFN 3,072, vocab 50,257), batch 1, 511 tokens cached',
        // The third arm: the unfused step's 149 launches replayed from a CUDA graph.
        graphTwin: true,
        // Measured bf16: the eager twin 0.64–0.79 ms a call on H100s and 0.67–0.94 ms on H200s, the fused step within 0.6%.
        ungatedSpeedup:
          "the unfused twin's 149 launches a call are bound by the host, whose speed moves its time by up to 40% between machines",
      },
    ],
    cpu: [
      { label: '2x128@13', dims: SMALL, description: '2 layers, hidden 128, FFN 512, vocab 1,000, 13 tokens cached' },
    ],
  },
  // The test configuration; the second position (two keys); a cache of 300 rows with 291 keys (two
  // attention chunks even on one block); hidden 192 and FFN 200 (GEMV rows ending inside a 256-wide
  // segment); the last cache row and the last token.
  testShapes: [
    { layers: 2, hidden: 128, heads: 2, f: 512, vocab: 1000, ctx: 64, pos: 13, token: 7 },
    { layers: 1, hidden: 64, heads: 1, f: 64, vocab: 50, ctx: 8, pos: 1, token: 3 },
    { layers: 1, hidden: 64, heads: 1, f: 64, vocab: 50, ctx: 300, pos: 290, token: 49 },
    { layers: 3, hidden: 192, heads: 3, f: 200, vocab: 333, ctx: 40, pos: 39, token: 332 },
  ],
  // The fused kernel's grid capped at 1 and 3 blocks: several (head, chunk) items per block, every
  // warp's share of each GEMV larger than its registers hold.
  cappedGridShapes: [
    { layers: 2, hidden: 128, heads: 2, f: 512, vocab: 1000, ctx: 64, pos: 13, token: 7 },
    { layers: 1, hidden: 64, heads: 1, f: 64, vocab: 50, ctx: 300, pos: 290, token: 49 },
  ],
  // The model's weights (src/case/gpt2-weights.ts); the cached K and V rows ~ N(0, 1), like the projections.
  inputs: ({ layers, hidden, f, vocab, ctx }, seed) => ({
    ...gpt2Weights({ layers, hidden, f, vocab, positions: ctx }, seed),
    k_cache: normalArray(layers * ctx * hidden, 1, seedStream(seed, 16)),
    v_cache: normalArray(layers * ctx * hidden, 1, seedStream(seed, 17)),
  }),
  // Every logit (the LM head is vocab·hidden multiply-adds, 38.6 M at GPT-2 small: below the sampled
  // references' budget), from the whole step in float64 (reference.ts), and each cache's rows around pos
  // (src/reference/kv-cache.ts: the new row where it belongs, its neighbours unchanged).
  reference: (inputs, d, { eps }, dtype) => decodeReferences(inputs, decodeStep(inputs, d, eps, dtype)),
  // The logits carry the rounding of every stored tensor of 2·layers blocks: measured in
  // docs/gpt2-decode.md (CPU, every test shape, several seeds; H100 at GPT-2 small, fused against
  // unfused). fp32: float accumulation only. bf16/fp16: the unfused twin rounds a, qkv, att, proj, h,
  // f1, g and x to T in every layer; the stated atol sits ≥ ×2 above the largest error measured, and
  // every planted defect (a layer skipped, the K/V row at the wrong position, the attention range off by
  // one, the LM head reading the wrong row) moves logits by more (the case's tests plant them).
  tolerance: {
    fp32: { atol: 5e-5, rtol: 1e-5 },
    bf16: { atol: 0.25, rtol: 0.03 },
    fp16: { atol: 0.04, rtol: 4e-3 },
  },
  traffic: (d, e) => stepTraffic(d, e),
  // The GEMVs (QKV, out-projection, FFN, LM head) and the attention over pos + 1 keys.
  flops: ({ layers, hidden: c, f, vocab, pos }) =>
    layers * (2 * (4 * c * c + 2 * c * f) + 4 * c * (pos + 1)) + 2 * vocab * c,
});
