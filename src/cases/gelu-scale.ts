/** GELU (tanh form) then scale: the V100 tutorial's case. */
import { errorFunction } from 'simple-statistics';
import { normalArray } from '../rng.ts';
import { type CaseDef, checkDims } from './types.ts';

const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);
/** √2: with it the tanh-vs-erf distance is the V100 report's 6.7e-4 (4.73e-4 unscaled × √2). */
export const GELU_SCALE = Math.fround(Math.SQRT2);

/** GELU, tanh form, in float64. */
export function geluTanh(x: number): number {
  return 0.5 * x * (1 + Math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)));
}

/** Exact GELU, x·Φ(x), in float64. */
export function geluErf(x: number): number {
  return 0.5 * x * (1 + errorFunction(x / Math.SQRT2));
}

const elements = (dims: number[]) => dims[0] as number;

export const geluScale: CaseDef = {
  name: 'gelu_scale',
  title: 'GELU + scale',
  sources: ['kernels/cuda/gelu_scale.cu', 'kernels/cpu/gelu_scale.cc'],
  variants: { unfused: 'unfused', fused: 'fused' },
  params: [GELU_SCALE],
  shapes: () => [
    { label: '1K', dims: [1024], description: '1,024 elements' },
    { label: '1M', dims: [1_048_576], description: '1,048,576 elements' },
    {
      label: '32x512x768',
      dims: [32 * 512 * 768],
      description: '12,582,912 elements (batch 32 × seq 512 × hidden 768)',
    },
    { label: '16M', dims: [16_777_216], description: '16,777,216 elements' },
  ],
  validate: (dims) => checkDims('gelu_scale', dims, 1),
  // Normal with sd 3: a wide range, through GELU's curved region and far into both tails.
  inputs: (dims, seed) => ({ x: normalArray(elements(dims), 3, seed) }),
  reference: (inputs, dims) => {
    const x = inputs.x as Float32Array;
    const y = new Float64Array(elements(dims));
    for (let i = 0; i < y.length; i++) y[i] = geluTanh(x[i] as number) * GELU_SCALE;
    return { y };
  },
  // float32 tanh and products: a few ulp relative; absolute near zero where 1 + tanh cancels.
  tolerance: { atol: 1e-5, rtol: 1e-5 },
  traffic: (dims) => {
    const bytes = elements(dims) * 4;
    return {
      unfused: { bytes: 4 * bytes, launches: 2 }, // read x, write tmp, read tmp, write y
      fused: { bytes: 2 * bytes, launches: 1 }, // read x, write y
    };
  },
  extraNumerics: (inputs, outputs) => {
    const x = inputs.x as Float32Array;
    const y = outputs.y as Float32Array;
    let maxDiff = 0;
    for (let i = 0; i < x.length; i++) {
      const d = Math.abs((y[i] as number) - geluErf(x[i] as number) * GELU_SCALE);
      if (d > maxDiff) maxDiff = d;
    }
    return { 'Max difference from exact erf-GELU': maxDiff };
  },
};
