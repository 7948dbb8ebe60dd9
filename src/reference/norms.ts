/** LayerNorm and RMSNorm of one row in float64: the references of every case with a norm. */
import { type Dtype, roundTo } from '../base/dtype.ts';

/** LayerNorm of one row, (h − mean)·rstd·γ + β, two-pass (mean, then the mean squared deviation). */
export function layerNormRow(h: Float64Array, gamma: Float32Array, beta: Float32Array, eps: number): Float64Array {
  const n = h.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += h[i] as number;
  const mean = sum / n;
  let sq = 0;
  for (let i = 0; i < n; i++) sq += ((h[i] as number) - mean) ** 2;
  const rstd = 1 / Math.sqrt(sq / n + eps);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = ((h[i] as number) - mean) * rstd * (gamma[i] as number) + (beta[i] as number);
  return y;
}

/** RMSNorm of one row, h·rstd·γ with rstd = 1/√(mean(h²) + ε). */
export function rmsNormRow(h: Float64Array, gamma: Float32Array, eps: number): Float64Array {
  const n = h.length;
  let sq = 0;
  for (let i = 0; i < n; i++) sq += (h[i] as number) ** 2;
  const rstd = 1 / Math.sqrt(sq / n + eps);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = (h[i] as number) * rstd * (gamma[i] as number);
  return y;
}

/**
 * Row `row` of x + r (both [rows, n]): the residual stream a norm case normalizes. In fp32 the exact
 * float64 sum; in bf16/fp16 the h the case stores and then normalizes, the float sum rounded to the
 * precision (as autocast's eager ops hold it, and as both variants of the norm cases normalize it).
 */
export function residualRow(
  x: Float32Array,
  r: Float32Array,
  row: number,
  n: number,
  dtype: Dtype = 'fp32',
): Float64Array {
  const h = new Float64Array(n);
  for (let i = 0; i < n; i++) h[i] = (x[row * n + i] as number) + (r[row * n + i] as number);
  return storedRow(dtype, h);
}

/**
 * A float64 row as a case stores it in `dtype` before reading it again (a residual stream h that a
 * norm then normalizes): itself in fp32, rounded to the precision in bf16/fp16.
 */
export function storedRow(dtype: Dtype, h: Float64Array): Float64Array {
  return dtype === 'fp32' ? h : Float64Array.from(roundTo(dtype, Float32Array.from(h)));
}
