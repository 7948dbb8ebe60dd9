/**
 * Float64 building blocks of the GEMM and attention cases' references, and the row sampling that
 * keeps those references affordable at GPU sizes.
 *
 * Every reference computes in float64 from the float32 inputs, so its own rounding (~1e-16 relative)
 * is negligible beside a float32 kernel's, and the comparison measures the kernel alone. A GEMM-sized
 * output (16,384 × 3,072 at k = 768 is 39 G multiply-adds) is too costly to reference whole in
 * JavaScript, so the references compute a deterministic sample of output rows: every element of a
 * sampled row is checked, which covers every column, every k and every epilogue term, while the
 * spread of rows (first, last and one per stratum in between, at varied offsets) covers the row tiles.
 */
import { geluTanh } from './gelu-scale.ts';
import { LAYERNORM_EPS } from './residual-layernorm.ts';
import type { SampledReference } from './types.ts';

/** A float32 input or a float64 intermediate of a reference. */
export type Floats = Float32Array | Float64Array;

/** The head dimension of every attention kernel (their tiles are 64 wide). */
export const HEAD_DIM = 64;
/** Attention's score scale 1/√64 (exactly 1/8). */
const SCORE_SCALE = 1 / Math.sqrt(HEAD_DIM);

/** GELU, tanh form (the kernels' form), in float64. */
export const gelu = geluTanh;

/** Σ a[aOff + i]·b[bOff + i] over i < n, in float64. */
export function dot(a: Floats, aOff: number, b: Floats, bOff: number, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += (a[aOff + i] as number) * (b[bOff + i] as number);
  return s;
}

/** Row `row` of a row-major [rows, len] buffer as float64 (a copy). */
export function rowOf(data: Floats, row: number, len: number): Float64Array {
  return Float64Array.from(data.subarray(row * len, (row + 1) * len));
}

/**
 * One row of a Linear layer, y_j = Σ_k a_k·w[j, k] + b_j for j < n, with w [n, k] row-major (PyTorch's
 * layout, k = a.length) and b [n] (no bias when absent).
 */
export function linearRow(a: Float64Array, w: Float32Array, b: Float32Array | undefined, n: number): Float64Array {
  const k = a.length;
  const y = new Float64Array(n);
  for (let j = 0; j < n; j++) y[j] = dot(a, 0, w, j * k, k) + (b ? (b[j] as number) : 0);
  return y;
}

/** LayerNorm of one row, (h − mean)·rstd·γ + β, two-pass (mean, then mean squared deviation), ε = LAYERNORM_EPS. */
export function layerNormRow(h: Float64Array, gamma: Float32Array, beta: Float32Array): Float64Array {
  const n = h.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += h[i] as number;
  const mean = sum / n;
  let sq = 0;
  for (let i = 0; i < n; i++) sq += ((h[i] as number) - mean) ** 2;
  const rstd = 1 / Math.sqrt(sq / n + LAYERNORM_EPS);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = ((h[i] as number) - mean) * rstd * (gamma[i] as number) + (beta[i] as number);
  return y;
}

/** Where one head's 64-wide rows lie in a buffer: position s starts at data[base + s·stride]. */
export interface HeadRows {
  data: Floats;
  base: number;
  stride: number;
}

/**
 * One causal attention output row: softmax_j(q_i·k_j/√64) over keys j ≤ i, then Σ_j p_j·v_j (64 values).
 * Strided views serve both the [batch, heads, seq, 64] tensors and Q/K/V inside a projection's rows.
 */
export function causalAttentionRow(q: HeadRows, k: HeadRows, v: HeadRows, i: number): Float64Array {
  const qOff = q.base + i * q.stride;
  const scores = new Float64Array(i + 1);
  let max = Number.NEGATIVE_INFINITY;
  for (let j = 0; j <= i; j++) {
    const s = dot(q.data, qOff, k.data, k.base + j * k.stride, HEAD_DIM) * SCORE_SCALE;
    scores[j] = s;
    if (s > max) max = s;
  }
  let sum = 0;
  for (let j = 0; j <= i; j++) {
    const e = Math.exp((scores[j] as number) - max);
    scores[j] = e;
    sum += e;
  }
  const out = new Float64Array(HEAD_DIM);
  for (let j = 0; j <= i; j++) {
    const p = (scores[j] as number) / sum;
    const vOff = v.base + j * v.stride;
    for (let d = 0; d < HEAD_DIM; d++) out[d] = (out[d] as number) + p * (v.data[vOff + d] as number);
  }
  return out;
}

/** Useful flops of causal attention per (batch, head): Q·Kᵀ and P·V over the unmasked pairs j ≤ i, 2·64 each. */
export function causalAttentionFlops(seq: number): number {
  return 4 * HEAD_DIM * ((seq * (seq + 1)) / 2);
}

const GOLDEN = (Math.sqrt(5) - 1) / 2;

/**
 * `count` distinct row indices of `rows`, sorted: 0, rows − 1, and one row in each of count − 2 equal
 * strata of the rows between, at an offset within its stratum that moves by the golden ratio from one
 * stratum to the next (so the sample lands at varied positions within tiles, not on one stride).
 * Deterministic; every row when rows <= count.
 */
export function sampleRows(rows: number, count: number): number[] {
  if (!Number.isSafeInteger(rows) || rows < 1)
    throw new Error(`sampleRows: rows must be a positive integer, got ${rows}`);
  if (!Number.isSafeInteger(count) || count < 2) throw new Error(`sampleRows: count must be at least 2, got ${count}`);
  if (rows <= count) return Array.from({ length: rows }, (_, i) => i);
  const strata = count - 2;
  const interior = rows - 2; // rows 1 .. rows − 2; at least `strata` of them, since rows > count
  const picked = [0];
  for (let s = 0; s < strata; s++) {
    const lo = Math.floor((s * interior) / strata);
    const hi = Math.floor(((s + 1) * interior) / strata); // hi − lo >= 1
    const frac = (s * GOLDEN) % 1;
    picked.push(1 + lo + Math.floor(frac * (hi - lo)));
  }
  picked.push(rows - 1);
  return picked;
}

/** Largest element index a SampledReference holds (its indices are a Uint32Array). */
export const MAX_SAMPLED_INDEX = 2 ** 32 - 1;

/**
 * The reference of an output of `totalRows` rows of `rowLength` elements, computed for the rows
 * `rows` (sorted, distinct) by `computeRow(row)`: the whole Float64Array when `rows` is every row,
 * otherwise a SampledReference of those rows' elements, noted e.g. "32 of 16,384 rows".
 */
export function rowsReference(
  totalRows: number,
  rowLength: number,
  rows: readonly number[],
  computeRow: (row: number) => Float64Array,
  note = `${rows.length.toLocaleString('en-US')} of ${totalRows.toLocaleString('en-US')} rows`,
): Float64Array | SampledReference {
  const put = (target: Float64Array, at: number, row: number) => {
    const values = computeRow(row);
    if (values.length !== rowLength) {
      throw new Error(`row ${row} of the reference has ${values.length} values; expected ${rowLength}`);
    }
    target.set(values, at);
  };
  if (rows.length === totalRows) {
    const whole = new Float64Array(totalRows * rowLength);
    for (const row of rows) put(whole, row * rowLength, row);
    return whole;
  }
  const last = rows.length > 0 ? (rows[rows.length - 1] as number) : 0;
  if ((last + 1) * rowLength - 1 > MAX_SAMPLED_INDEX) {
    throw new Error(`row ${last} of ${rowLength} elements is past the 32-bit indices of a sampled reference`);
  }
  const indices = new Uint32Array(rows.length * rowLength);
  const values = new Float64Array(rows.length * rowLength);
  for (const [i, row] of rows.entries()) {
    for (let j = 0; j < rowLength; j++) indices[i * rowLength + j] = row * rowLength + j;
    put(values, i * rowLength, row);
  }
  return { indices, values, note };
}
