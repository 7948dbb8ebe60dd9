/** Bias + GELU, the epilogue of a transformer FFN's first layer: y = gelu(x + b), b broadcast per column. */
import { normalArray, seedStream } from '../rng.ts';
import { geluErf, geluTanh } from './gelu-scale.ts';
import { type CaseDef, checkDims } from './types.ts';

/** Most columns the CUDA kernels take: they track a column in 32-bit unsigned arithmetic as col + step, both < cols. */
const MAX_COLS = 2 ** 31 - 1;

const rowsCols = (dims: number[]) => ({ rows: dims[0] as number, cols: dims[1] as number });

/** Independent input streams from one seed (the run uses seed and seed + 1 for its two variants). */

export const biasGelu: CaseDef = {
  name: 'bias_gelu',
  title: 'Bias + GELU',
  sources: ['kernels/cuda/bias_gelu.cu', 'kernels/cpu/bias_gelu.cc'],
  variants: { unfused: 'unfused', fused: 'fused' },
  params: [],
  shapes: (backend) =>
    backend === 'cuda'
      ? [
          {
            label: '16384x3072',
            dims: [16_384, 3072],
            description: 'rows 16,384 (batch 32 × seq 512) × cols 3,072 (4 × hidden 768): GPT-2 small FFN',
          },
        ]
      : [
          {
            label: '512x3072',
            dims: [512, 3072],
            description: 'rows 512 (one sequence) × cols 3,072 (GPT-2 small FFN)',
          },
        ],
  validate: (dims) => {
    checkDims('bias_gelu', dims, 2);
    const { cols } = rowsCols(dims);
    if (cols > MAX_COLS) {
      throw new Error(
        `bias_gelu: shape [${dims.join(', ')}] has ${cols} columns; the CUDA kernels track columns in 32-bit ` +
          `arithmetic and take at most ${MAX_COLS}`,
      );
    }
  },
  // x + b has sd √5 ≈ 2.2: through GELU's curved region and into both tails.
  inputs: (dims, seed) => {
    const { rows, cols } = rowsCols(dims);
    return { x: normalArray(rows * cols, 2, seedStream(seed, 0)), b: normalArray(cols, 1, seedStream(seed, 1)) };
  },
  reference: (inputs, dims) => {
    const { rows, cols } = rowsCols(dims);
    const x = inputs.x as Float32Array;
    const b = inputs.b as Float32Array;
    const y = new Float64Array(rows * cols);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) y[r * cols + c] = geluTanh((x[r * cols + c] as number) + (b[c] as number));
    }
    return { y };
  },
  // As GELU + scale: float32 tanh and products, a few ulp relative, absolute near zero where 1 + tanh
  // cancels. The float32 sum x + b adds one rounding (≤ 6e-8 relative), passed on by GELU's slope (< 1.13).
  tolerance: { atol: 1e-5, rtol: 1e-5 },
  traffic: (dims) => {
    const { rows, cols } = rowsCols(dims);
    const n = rows * cols;
    return {
      unfused: { bytes: 4 * (4 * n + cols), launches: 2 }, // read x, b; write tmp; read tmp; write y
      fused: { bytes: 4 * (2 * n + cols), launches: 1 }, // read x, b; write y
    };
  },
  extraNumerics: (inputs, outputs, dims) => {
    const { rows, cols } = rowsCols(dims);
    const x = inputs.x as Float32Array;
    const b = inputs.b as Float32Array;
    const y = outputs.y as Float32Array;
    let maxDiff = 0;
    for (let i = 0; i < rows * cols; i++) {
      const d = Math.abs((y[i] as number) - geluErf((x[i] as number) + (b[i % cols] as number)));
      if (d > maxDiff) maxDiff = d;
    }
    return { 'Max difference from exact erf-GELU': maxDiff };
  },
};
