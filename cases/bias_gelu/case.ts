/** Bias + GELU, the epilogue of a transformer FFN's first layer: y = gelu(x + b), b broadcast per column. */

import { seedStream } from '../../src/base/rng.ts';
import { defineCase } from '../../src/case/define.ts';
import { normalArray } from '../../src/case/random.ts';
import { geluErf, geluTanh } from '../../src/reference/gelu.ts';
import { referenceRows, rowsReference, spreadIndices } from '../../src/reference/sampling.ts';

export default defineCase<'rows' | 'cols'>({
  title: 'Bias + GELU',
  shapes: {
    cuda: [
      {
        dims: { rows: 16_384, cols: 3072 },
        description: 'rows 16,384 (batch 32 × seq 512) × cols 3,072 (4 × hidden 768): GPT-2 small FFN',
      },
    ],
    cpu: [
      {
        dims: { rows: 512, cols: 3072 },
        description: 'rows 512 (one sequence) × cols 3,072 (GPT-2 small FFN)',
      },
    ],
  },
  // Column counts that are and are not multiples of 4 (the CUDA bias vector width), element counts with
  // a tail past the last float4, and shapes large enough that each CUDA thread strides over several
  // float4s (the kernel tracks the column across strides).
  testShapes: [
    { rows: 1, cols: 1 },
    { rows: 1, cols: 3 },
    { rows: 5, cols: 3 },
    { rows: 7, cols: 5 },
    { rows: 1000, cols: 1 },
    { rows: 3, cols: 767 },
    { rows: 33, cols: 767 },
    { rows: 1, cols: 3072 },
    { rows: 4, cols: 3072 },
    { rows: 2, cols: 4099 },
    { rows: 1500, cols: 1027 },
    { rows: 700, cols: 3072 },
  ],
  cappedGridShapes: [
    { rows: 333, cols: 767 },
    { rows: 100, cols: 3072 },
    { rows: 4097, cols: 3 },
  ],
  // x + b has sd √5 ≈ 2.2: through GELU's curved region and into both tails.
  inputs: ({ rows, cols }, seed) => ({
    x: normalArray(rows * cols, 2, seedStream(seed, 0)),
    b: normalArray(cols, 1, seedStream(seed, 1)),
  }),
  reference: (inputs, { rows, cols }) => {
    const x = inputs.x as Float32Array;
    const b = inputs.b as Float32Array;
    const y = rowsReference(rows, cols, referenceRows(rows, cols), (r) => {
      const out = new Float64Array(cols);
      for (let c = 0; c < cols; c++) out[c] = geluTanh((x[r * cols + c] as number) + (b[c] as number));
      return out;
    });
    return { y };
  },
  // As GELU + scale: float32 tanh and products, a few ulp relative, absolute near zero where 1 + tanh
  // cancels. The float32 sum x + b adds one rounding (≤ 6e-8 relative), passed on by GELU's slope (< 1.13).
  // bf16/fp16: x + b rounded to T in the unfused twin before GELU (its slope carries the error to y).
  // The stated atol is a small multiple of the atol the CPU needed beside the rtol (measured margins:
  // docs/measurements.md#bias_gelu).
  tolerance: {
    fp32: { atol: 1e-5, rtol: 1e-5 },
    bf16: { atol: 3e-4, rtol: 1.6e-2 },
    fp16: { atol: 4e-5, rtol: 2e-3 },
  },
  traffic: ({ rows, cols }, e) => {
    const n = rows * cols;
    return {
      unfused: { bytes: e * (4 * n + cols), launches: 2 }, // read x, b; write tmp; read tmp; write y
      fused: { bytes: e * (2 * n + cols), launches: 1 }, // read x, b; write y
    };
  },
  extraNumerics: (inputs, outputs, { rows, cols }) => {
    const x = inputs.x as Float32Array;
    const b = inputs.b as Float32Array;
    const y = outputs.y as Float32Array;
    let maxDiff = 0;
    const { stride } = spreadIndices(rows * cols); // every element at the test shapes
    for (let i = 0; i < rows * cols; i += stride) {
      const d = Math.abs((y[i] as number) - geluErf((x[i] as number) + (b[i % cols] as number)));
      if (d > maxDiff) maxDiff = d;
    }
    return { 'Max difference from exact erf-GELU': maxDiff };
  },
});
