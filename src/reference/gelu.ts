/** GELU in float64: the tanh form the kernels compute (with their constants) and the exact erf form. */
import { errorFunction } from 'simple-statistics';
import { nativeConstants } from '../addon/native.ts';

/** GELU, tanh form, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), with the kernels' constants. */
export function geluTanh(x: number): number {
  const { geluSqrt2OverPi, geluCubic } = nativeConstants();
  return 0.5 * x * (1 + Math.tanh(geluSqrt2OverPi * (x + geluCubic * x * x * x)));
}

/** Exact GELU, x·Φ(x), in float64. */
export function geluErf(x: number): number {
  return 0.5 * x * (1 + errorFunction(x / Math.SQRT2));
}
