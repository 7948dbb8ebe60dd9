/**
 * The whole GPT-2 forward pass (gpt2_forward.h), c = hidden = heads·64 and m = batch·seq rows:
 *   x = wte[token] + wpe[t]; x = block_l(x) for each of the layers; logits = LNf(x)·wteᵀ.
 * Unfused: one op per launch, as eager PyTorch runs the model (3 + 22·layers + 2 launches). Fused: the
 * suite's fused pieces: one embedding kernel, the fused block per layer (7 launches; transformer_block's
 * fused variant), then LNf, the LM-head weight padded to a multiple of 8 rows, the GEMM over it and the
 * compaction of its output (1 + 7·layers + 4). The logits are the checked output: every layer, the embedding and the LM head show
 * in them.
 */

import { defineCase } from '../../src/case/define.ts';
import { gpt2Weights } from '../../src/case/gpt2-weights.ts';
import { causalAttentionFlops } from '../../src/reference/attention.ts';
import { GPT2_BLOCK_LAUNCHES, gpt2BlockFloats } from '../../src/reference/gpt2-block-traffic.ts';
import { referenceSample, rowsReference, sampleRows } from '../../src/reference/sampling.ts';
import { type ForwardDims, forwardLogits, paddedVocab } from './reference.ts';

type Dim = keyof ForwardDims;

/**
 * Positions of the last batch element the GPU-size reference runs every layer over (a causal model's
 * position s depends on positions ≤ s only): two rows past the first 64-row tile of the mma.sync and fp32
 * flash kernels, but inside the first 128-row tile of the sm_90 kernel that Hopper runs in bf16/fp16, so on
 * an H100 this sample checks no off-diagonal key tile (the attention and transformer_block cases check
 * those at full size, every row sampled across the sequence). ~5.6 G multiply-adds at GPT-2 small (about
 * 4 s of float64 on the H100 machine's host); the whole sequence would take ~44 G.
 */
const PREFIX = 66;
/** Positions of that prefix whose logits are checked (the first, the last, and a spread between). */
const SAMPLED_POSITIONS = 16;

/** GPT-2 small (124 M parameters) over batch 8 × seq 512. */
const GPT2_SMALL = { layers: 12, batch: 8, seq: 512, hidden: 768, heads: 12, f: 3072, vocab: 50_257 };
/** The test configuration the CPU backend runs: 2 layers, hidden 128. */
const SMALL = { layers: 2, batch: 1, seq: 64, hidden: 128, heads: 2, f: 512, vocab: 1000 };

export default defineCase<Dim, 'eps'>({
  title: 'GPT-2 forward (whole model)',
  shapes: {
    cuda: [
      {
        label: '12x768 8x512',
        dims: GPT2_SMALL,
        // Batch 8, not the tutorial's 32: the logits are m × 50,257 (823 M values at batch 32, 3.3 GB in
        // fp32) and the harness downloads and NaN-checks every output of both variants in every precision.
        description: 'GPT-2 small (12 layers, hidden 768, FFN 3,072, vocab 50,257) over batch 8 × seq 512',
      },
    ],
    cpu: [
      { label: '2x128 1x64', dims: SMALL, description: '2 layers, hidden 128, FFN 512, vocab 1,000, batch 1 × seq 64' },
    ],
  },
  // The test configuration; one token; two sequences crossing the 64-row attention tiles with a
  // vocabulary the token walk wraps many times; three layers with an FFN width crossing the GEMM's k slices.
  testShapes: [
    SMALL,
    { layers: 1, batch: 1, seq: 1, hidden: 64, heads: 1, f: 64, vocab: 50 },
    { layers: 1, batch: 2, seq: 70, hidden: 128, heads: 2, f: 40, vocab: 333 },
    { layers: 3, batch: 1, seq: 9, hidden: 64, heads: 1, f: 132, vocab: 7 },
  ],
  inputs: ({ layers, seq, hidden, f, vocab }, seed) => gpt2Weights({ layers, hidden, f, vocab, positions: seq }, seed),
  // Every row while the whole model costs little (every test shape); at GPU sizes, SAMPLED_POSITIONS
  // logits rows among the first PREFIX positions of the last batch element (the other rows are
  // NaN-checked only: the blocks' numerics at every position are transformer_block's to check).
  reference: (inputs, d, { eps }, dtype) => {
    const perRow = d.layers * (4 * d.hidden * d.hidden + 2 * d.hidden * d.f) + d.vocab * d.hidden;
    const m = d.batch * d.seq;
    if (referenceSample(m, SAMPLED_POSITIONS, perRow).length === m) {
      const every = Array.from({ length: d.seq }, (_, s) => s);
      const rows = new Map<number, Float64Array>();
      for (let b = 0; b < d.batch; b++)
        for (const [s, row] of forwardLogits(inputs, d, eps, dtype, b, every)) rows.set(b * d.seq + s, row);
      return { logits: rowsReference(m, d.vocab, [...rows.keys()], (r) => rows.get(r) as Float64Array) };
    }
    const b = d.batch - 1;
    const positions = sampleRows(Math.min(PREFIX, d.seq), SAMPLED_POSITIONS);
    const logits = forwardLogits(inputs, d, eps, dtype, b, positions);
    const note = `${positions.length} of the first ${Math.min(PREFIX, d.seq)} positions of batch element ${b}`;
    return {
      logits: rowsReference(
        m,
        d.vocab,
        positions.map((s) => b * d.seq + s),
        (r) => logits.get(r - b * d.seq) as Float64Array,
        note,
      ),
    };
  },
  // The logits carry the rounding of every stored tensor of every layer (q|k|v, h and the block's output
  // in T in bf16/fp16) and of the LM head's k = 768 sums. The stated atol sits ≥ ×1.5 above the largest
  // error measured on an H100 at GPT-2 small (docs/measurements.md#gpt2_forward: fp32 2.0e-5, bf16 0.16,
  // fp16 0.022), and every planted defect (a layer skipped, the causal mask off by one, the LM head
  // reading the next row) moves logits by more (gpt2-forward.test.ts plants them).
  tolerance: {
    fp32: { atol: 1e-4, rtol: 1e-5 },
    bf16: { atol: 0.25, rtol: 0.03 },
    fp16: { atol: 0.04, rtol: 4e-3 },
  },
  traffic: (d, e, dtype) => {
    const { layers: L, batch, seq, hidden: c, heads, f, vocab: V } = d;
    const m = batch * seq;
    const block = gpt2BlockFloats(batch, seq, heads, f);
    // LNf (read x, γ, β; write xn) and the LM-head GEMM (read xn and wte; write the logits). Fused: wte
    // copied into its padded rows (read it, write V' = paddedVocab rows), the GEMM over them writing m × V'
    // values, and the compaction (read the first V of each row, write the logits).
    const lnf = 2 * m * c + 2 * c;
    const vp = paddedVocab(V);
    const unfusedHead = lnf + (m * c + V * c + m * V);
    const fusedHead = lnf + (V * c + vp * c) + (m * c + vp * c + m * vp) + 2 * m * V;
    // Unfused embedding: the token gather (read m rows of wte, write te), the position gather (read and
    // write seq rows), the broadcast add (read te and pe, write x). Fused: read the rows, write x.
    const unfusedEmbedding = 2 * m * c + 2 * seq * c + (m * c + seq * c + m * c);
    const fusedEmbedding = m * c + seq * c + m * c;
    return {
      unfused: {
        bytes: e * (unfusedEmbedding + L * block.unfused + unfusedHead),
        launches: 3 + L * GPT2_BLOCK_LAUNCHES.unfused + 2,
      },
      fused: {
        bytes: e * (fusedEmbedding + L * (dtype === 'fp32' ? block.fused : block.library) + fusedHead),
        launches: 1 + L * GPT2_BLOCK_LAUNCHES.fused + 4,
      },
    };
  },
  // Per layer the QKV, out-projection and FFN GEMMs and causal attention's useful flops; the LM head.
  flops: ({ layers, batch, seq, hidden: c, heads, f, vocab }) => {
    const m = batch * seq;
    return layers * (2 * m * 4 * c * c + 4 * m * c * f + batch * heads * causalAttentionFlops(seq)) + 2 * m * c * vocab;
  },
});
