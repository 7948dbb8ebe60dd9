/** Scale + causal mask + softmax over attention scores: P = softmax(scale·S + mask) per row. */
import { defineCase } from '../../src/case/define.ts';
import { normalArray } from '../../src/case/random.ts';
import { referenceRows, rowsReference } from '../../src/reference/sampling.ts';

/** Key j is masked for query i when j > i + (seq_k − seq_q): the queries are the last seq_q of the keys. */
const lastKey = (row: number, seqQ: number, seqK: number) => (row % seqQ) + seqK - seqQ;

export default defineCase<'batch' | 'heads' | 'seq_q' | 'seq_k', 'scale'>({
  title: 'Scale + causal mask + softmax',
  shapes: {
    cuda: [
      {
        dims: { batch: 32, heads: 12, seq_q: 512, seq_k: 512 },
        description: 'batch 32 × heads 12 × seq 512 × seq 512 (GPT-2 small attention)',
      },
    ],
    cpu: [
      {
        dims: { batch: 2, heads: 4, seq_q: 256, seq_k: 256 },
        description: 'batch 2 × heads 4 × seq 256 × seq 256',
      },
    ],
  },
  // Square and non-square causal masks (seq_q > seq_k leaves rows with every key masked, defined as
  // zeros), row lengths that pick each CUDA configuration (a warp per row up to 1024, a block up to
  // 8192, the streaming kernel past that), multiples of 4 and not, and enough rows that a grid strides.
  testShapes: [
    { batch: 1, heads: 1, seq_q: 1, seq_k: 1 },
    { batch: 1, heads: 1, seq_q: 1, seq_k: 512 },
    { batch: 1, heads: 1, seq_q: 33, seq_k: 33 },
    { batch: 2, heads: 3, seq_q: 33, seq_k: 33 },
    { batch: 1, heads: 1, seq_q: 3, seq_k: 7 },
    { batch: 1, heads: 2, seq_q: 5, seq_k: 3 },
    { batch: 2, heads: 2, seq_q: 64, seq_k: 64 },
    { batch: 2, heads: 4, seq_q: 256, seq_k: 256 },
    { batch: 1, heads: 1, seq_q: 4, seq_k: 1024 },
    { batch: 1, heads: 1, seq_q: 2, seq_k: 1025 },
    { batch: 1, heads: 1, seq_q: 3, seq_k: 4096 },
    { batch: 1, heads: 1, seq_q: 2, seq_k: 8192 },
    { batch: 1, heads: 1, seq_q: 3, seq_k: 8193 },
    { batch: 1, heads: 1, seq_q: 2, seq_k: 20_001 },
    { batch: 20, heads: 31, seq_q: 33, seq_k: 33 },
    { batch: 1, heads: 1, seq_q: 1200, seq_k: 1500 },
  ],
  cappedGridShapes: [
    { batch: 2, heads: 3, seq_q: 100, seq_k: 100 },
    { batch: 1, heads: 2, seq_q: 257, seq_k: 1025 },
  ],
  // q·k over a head dimension of 64 with unit-variance entries has sd 8: after the scale, logits of sd 1.
  inputs: ({ batch, heads, seq_q, seq_k }, seed) => ({ s: normalArray(batch * heads * seq_q * seq_k, 8, seed) }),
  reference: (inputs, { batch, heads, seq_q: seqQ, seq_k: seqK }, { scale }) => {
    const rows = batch * heads * seqQ;
    const s = inputs.s as Float32Array;
    const p = rowsReference(rows, seqK, referenceRows(rows, seqK), (row) => {
      const off = row * seqK;
      const out = new Float64Array(seqK);
      const keys = Math.min(lastKey(row, seqQ, seqK) + 1, seqK); // unmasked keys: 0 .. keys − 1
      if (keys <= 0) return out; // every key masked: all zeros by definition
      let max = Number.NEGATIVE_INFINITY;
      for (let j = 0; j < keys; j++) max = Math.max(max, (s[off + j] as number) * scale);
      let sum = 0;
      for (let j = 0; j < keys; j++) {
        const e = Math.exp((s[off + j] as number) * scale - max);
        out[j] = e;
        sum += e;
      }
      for (let j = 0; j < keys; j++) out[j] = (out[j] as number) / sum;
      return out;
    });
    return { p };
  },
  // p = exp(v − max) / Σ: v = scale·s is exact (the scale is a power of two), v − max rounds once
  // (≲ 1e-6 for logits of sd 1), expf is ≤ 2 ulp, the sum ≲ 50 roundings: ≲ 2e-6 relative, so rtol
  // 1e-5. Errors stay relative even for tiny p (they come from the exponent), so atol only covers
  // values near float32's underflow. Masked keys are exactly 0 in both (measured margins:
  // docs/measurements.md#scale_mask_softmax).
  // bf16/fp16: the roundings of scale·S and of p, within the rtol; fp16 probabilities below 2^-14 are
  // subnormal, spaced 6e-8 (atol 1e-7).
  tolerance: {
    fp32: { atol: 1e-9, rtol: 1e-5 },
    bf16: { atol: 1e-9, rtol: 1.6e-2 },
    fp16: { atol: 1e-7, rtol: 2e-3 },
  },
  traffic: ({ batch, heads, seq_q, seq_k }, e) => {
    const n = batch * heads * seq_q * seq_k;
    return {
      // scale: read S, write T1; mask: read T1, write T2; softmax: read T2, write P.
      unfused: { bytes: e * 6 * n, launches: 3 },
      fused: { bytes: e * 2 * n, launches: 1 }, // read S, write P
    };
  },
  extraNumerics: (_inputs, outputs, { batch, heads, seq_q: seqQ, seq_k: seqK }) => {
    const rows = batch * heads * seqQ;
    const p = outputs.p as Float32Array;
    let maxDev = 0;
    for (const row of referenceRows(rows, seqK)) {
      if (lastKey(row, seqQ, seqK) < 0) continue; // a fully masked row sums to 0 by definition
      let sum = 0;
      for (let j = 0; j < seqK; j++) sum += p[row * seqK + j] as number;
      maxDev = Math.max(maxDev, Math.abs(sum - 1));
    }
    return { 'Max |row sum − 1|': maxDev };
  },
});
