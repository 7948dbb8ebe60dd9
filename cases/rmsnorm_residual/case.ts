/** Residual add + RMSNorm (the pre-norm of LLaMA and T5): h = x + r; y = h / √(mean(h²) + ε)·γ per row, writing h and y. */

import { seedStream } from '../../src/base/rng.ts';
import { defineCase } from '../../src/case/define.ts';
import { normalArray } from '../../src/case/random.ts';
import { residualRow, rmsNormRow } from '../../src/reference/norms.ts';
import { referenceRows, rowsReference } from '../../src/reference/sampling.ts';

export default defineCase<'rows' | 'hidden', 'eps'>({
  title: 'Residual add + RMSNorm',
  shapes: {
    cuda: [
      {
        dims: { rows: 16_384, hidden: 4096 },
        description: 'rows 16,384 (batch 32 × seq 512) × hidden 4,096 (LLaMA-7B)',
      },
      {
        dims: { rows: 16_384, hidden: 768 },
        description: 'rows 16,384 (batch 32 × seq 512) × hidden 768 (GPT-2 small width)',
      },
    ],
    cpu: [
      {
        dims: { rows: 1024, hidden: 768 },
        description: 'rows 1,024 (batch 2 × seq 512) × hidden 768',
      },
    ],
  },
  // Hidden 1, 767 and 4,097 (no multiple of 4: the scalar path), rows that pick each CUDA configuration
  // (a warp per row up to 1,024, a block up to 8,192, the streaming kernel past that), and enough rows
  // that a grid strides over several.
  testShapes: [
    { rows: 1, hidden: 1 },
    { rows: 3, hidden: 1 },
    { rows: 5, hidden: 767 },
    { rows: 64, hidden: 768 },
    { rows: 2, hidden: 1025 },
    { rows: 3, hidden: 4096 },
    { rows: 2, hidden: 4097 },
    { rows: 2, hidden: 8193 },
    { rows: 1, hidden: 20_001 },
    { rows: 1500, hidden: 1028 },
  ],
  cappedGridShapes: [
    { rows: 1000, hidden: 768 },
    { rows: 777, hidden: 33 },
  ],
  // A residual stream larger than the block output added to it (sd 2 against 1), γ ≈ 1 as in a
  // trained model. RMSNorm sums squares (all positive): no cancellation to provoke, unlike LayerNorm.
  inputs: ({ rows, hidden }, seed) => ({
    x: normalArray(rows * hidden, 1, seedStream(seed, 0)),
    r: normalArray(rows * hidden, 2, seedStream(seed, 1)),
    gamma: normalArray(hidden, 0.1, seedStream(seed, 2), 1),
  }),
  reference: (inputs, { rows, hidden }, { eps }, dtype) => {
    const [x, r, gamma] = [inputs.x, inputs.r, inputs.gamma] as [Float32Array, Float32Array, Float32Array];
    const picked = referenceRows(rows, hidden);
    const hRow = (row: number) => residualRow(x, r, row, hidden, dtype);
    return {
      h: rowsReference(rows, hidden, picked, hRow),
      y: rowsReference(rows, hidden, picked, (row) => rmsNormRow(hRow(row), gamma, eps)),
    };
  },
  // h = x + r is one float32 rounding (rtol). y = h·rstd·γ: rstd's relative error is the sum of squares
  // rounded in ~30 steps (per-thread runs and the tree, or 8 lanes on the CPU) plus rsqrtf's ≤ 2 ulp,
  // ≲ 1e-6 together, times |h·rstd·γ| ≲ 5 (a 5-sigma element): ≲ 5e-6 absolute, then a few ulp of |y|.
  // atol 2e-5 and rtol 1e-5 leave ×4 over that bound; the CPU's errors stay well below it (measured
  // margins: docs/measurements.md#rmsnorm_residual). A real defect (γ left out, a neighbour's row,
  // the mean subtracted as in LayerNorm) moves y by ≥ 1e-2.
  // bf16/fp16: both variants normalize the h they store (rounded to T), and so does the reference;
  // y's rounding is within the rtol (the CPU needed no atol beside it:
  // docs/measurements.md#rmsnorm_residual).
  tolerance: {
    fp32: { atol: 2e-5, rtol: 1e-5 },
    bf16: { atol: 1e-5, rtol: 1.6e-2 },
    fp16: { atol: 1e-5, rtol: 2e-3 },
  },
  traffic: ({ rows, hidden }, e) => {
    const n = rows * hidden;
    return {
      // add: read x, r; write h. RMSNorm: read h, γ; write y.
      unfused: { bytes: e * (5 * n + hidden), launches: 2 },
      // read x, r, γ; write h, y.
      fused: { bytes: e * (4 * n + hidden), launches: 1 },
    };
  },
});
