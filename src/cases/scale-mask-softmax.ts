/** Scale + causal mask + softmax over attention scores: P = softmax(scale·S + mask) per row. */
import { normalArray } from '../rng.ts';
import { type CaseDef, checkDims } from './types.ts';

/** 1/√64: the attention scale for a head dimension of 64 (GPT-2 small); exact in float32. */
export const ATTENTION_SCALE = 1 / Math.sqrt(64);
/** Longest seq_q and seq_k the CUDA kernels take: they index within a row with 32-bit ints, with headroom for a tile. */
const MAX_SEQ = 2 ** 30;

const shapeOf = (dims: number[]) => {
  const [batch, heads, seqQ, seqK] = dims as [number, number, number, number];
  return { rows: batch * heads * seqQ, seqQ, seqK };
};

/** Key j is masked for query i when j > i + (seq_k − seq_q): the queries are the last seq_q of the keys. */
const lastKey = (row: number, seqQ: number, seqK: number) => (row % seqQ) + seqK - seqQ;

export const scaleMaskSoftmax: CaseDef = {
  name: 'scale_mask_softmax',
  title: 'Scale + causal mask + softmax',
  sources: ['kernels/cuda/scale_mask_softmax.cu', 'kernels/cuda/row_reduce.cuh', 'kernels/cpu/scale_mask_softmax.cc'],
  variants: { unfused: 'unfused', fused: 'fused' },
  params: [ATTENTION_SCALE],
  shapes: (backend) =>
    backend === 'cuda'
      ? [
          {
            label: '32x12x512x512',
            dims: [32, 12, 512, 512],
            description: 'batch 32 × heads 12 × seq 512 × seq 512 (GPT-2 small attention)',
          },
        ]
      : [{ label: '2x4x256x256', dims: [2, 4, 256, 256], description: 'batch 2 × heads 4 × seq 256 × seq 256' }],
  validate: (dims) => {
    checkDims('scale_mask_softmax', dims, 4);
    const { seqQ, seqK } = shapeOf(dims);
    if (seqQ > MAX_SEQ || seqK > MAX_SEQ) {
      throw new Error(
        `scale_mask_softmax: shape [${dims.join(', ')}] has seq_q ${seqQ} and seq_k ${seqK}; the CUDA kernels ` +
          `index a row with 32-bit ints and take at most ${MAX_SEQ} each`,
      );
    }
  },
  // q·k over a head dimension of 64 with unit-variance entries has sd 8: after the scale, logits of sd 1.
  inputs: (dims, seed) => ({
    s: normalArray(
      dims.reduce((a, b) => a * b, 1),
      8,
      seed,
    ),
  }),
  reference: (inputs, dims) => {
    const { rows, seqQ, seqK } = shapeOf(dims);
    const s = inputs.s as Float32Array;
    const p = new Float64Array(rows * seqK);
    for (let row = 0; row < rows; row++) {
      const off = row * seqK;
      const keys = Math.min(lastKey(row, seqQ, seqK) + 1, seqK); // unmasked keys: 0 .. keys − 1
      if (keys <= 0) continue; // every key masked: all zeros by definition
      let max = Number.NEGATIVE_INFINITY;
      for (let j = 0; j < keys; j++) max = Math.max(max, (s[off + j] as number) * ATTENTION_SCALE);
      let sum = 0;
      for (let j = 0; j < keys; j++) {
        const e = Math.exp((s[off + j] as number) * ATTENTION_SCALE - max);
        p[off + j] = e;
        sum += e;
      }
      for (let j = 0; j < keys; j++) p[off + j] = (p[off + j] as number) / sum;
    }
    return { p };
  },
  // p = exp(v − max) / Σ: v = scale·s is exact (the scale is a power of two), v − max rounds once
  // (≲ 1e-6 for logits of sd 1), expf is ≤ 2 ulp, the sum ≲ 50 roundings: ≲ 2e-6 relative, so rtol
  // 1e-5. Errors stay relative even for tiny p (they come from the exponent), so atol only covers
  // values near float32's underflow. Masked keys are exactly 0 in both. Measured on the CPU: ≤ 5e-7 relative.
  tolerance: { atol: 1e-9, rtol: 1e-5 },
  traffic: (dims) => {
    const n = dims.reduce((a, b) => a * b, 1);
    return {
      // scale: read S, write T1; mask: read T1, write T2; softmax: read T2, write P.
      unfused: { bytes: 4 * 6 * n, launches: 3 },
      fused: { bytes: 4 * 2 * n, launches: 1 }, // read S, write P
    };
  },
  extraNumerics: (_inputs, outputs, dims) => {
    const { rows, seqQ, seqK } = shapeOf(dims);
    const p = outputs.p as Float32Array;
    let maxDev = 0;
    for (let row = 0; row < rows; row++) {
      if (lastKey(row, seqQ, seqK) < 0) continue; // a fully masked row sums to 0 by definition
      let sum = 0;
      for (let j = 0; j < seqK; j++) sum += p[row * seqK + j] as number;
      maxDev = Math.max(maxDev, Math.abs(sum - 1));
    }
    return { 'Max |row sum − 1|': maxDev };
  },
};
