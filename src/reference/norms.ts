/** LayerNorm and RMSNorm of one row in float64: the references of every case with a norm. */
import { type Dtype, roundTo } from '../base/dtype.ts';
import type { BoundedReference } from '../case/types.ts';

/** A row's mean and 1/√(mean squared deviation + ε), two-pass; and its largest |h|. */
function rowStats(h: Float64Array, eps: number): { mean: number; rstd: number; max: number } {
  const n = h.length;
  let sum = 0;
  let max = 0;
  for (let i = 0; i < n; i++) {
    sum += h[i] as number;
    max = Math.max(max, Math.abs(h[i] as number));
  }
  const mean = sum / n;
  let sq = 0;
  for (let i = 0; i < n; i++) sq += ((h[i] as number) - mean) ** 2;
  return { mean, rstd: 1 / Math.sqrt(sq / n + eps), max };
}

/** LayerNorm of one row, (h − mean)·rstd·γ + β, two-pass (mean, then the mean squared deviation). */
export function layerNormRow(h: Float64Array, gamma: Float32Array, beta: Float32Array, eps: number): Float64Array {
  const { mean, rstd } = rowStats(h, eps);
  const y = new Float64Array(h.length);
  for (let i = 0; i < h.length; i++) {
    y[i] = ((h[i] as number) - mean) * rstd * (gamma[i] as number) + (beta[i] as number);
  }
  return y;
}

/** float32's unit roundoff, 2⁻²⁴. */
const F32_U = 2 ** -24;

/**
 * LayerNorm of one row with each element's error bound for float32 arithmetic (a BoundedReference). The
 * kernels round h (in fp32), its mean and the deviations: together up to e = 4u·max|h| on each deviation
 * in the short rows where the bound matters (0 in a row of one value, its own mean exactly). rstd carries
 * that into y as |δy_i| ≤ |γ_i|·rstd·e·(1 + |z_i|) (the deviation itself, and the variance through rstd),
 * plus one more e·rstd for rsqrt and margin. In a row of spread σ ≈ 1 that stays below ~3e-5 (under a
 * case's atol, which the comparison then applies); in a row of nearly equal values rstd reaches 1/√ε (316 at
 * ε = 1e-5): two values 1e-3 apart near 4 normalize to within ~1e-4 of the exact result, and the bound, up to
 * ~1e-3, is what covers them.
 */
export function layerNormRowBounded(
  h: Float64Array,
  gamma: Float32Array,
  beta: Float32Array,
  eps: number,
): BoundedReference {
  const n = h.length;
  const { mean, rstd, max } = rowStats(h, eps);
  // One value is its own mean, exactly: its deviation is 0 in every variant, and so is the bound.
  const e = n > 1 ? 4 * F32_U * max : 0;
  const values = new Float64Array(n);
  const bound = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const z = ((h[i] as number) - mean) * rstd;
    values[i] = z * (gamma[i] as number) + (beta[i] as number);
    bound[i] = Math.abs(gamma[i] as number) * rstd * e * (2 + Math.abs(z));
  }
  return { values, bound };
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
