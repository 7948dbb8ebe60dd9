/**
 * Row sampling that keeps the references of GEMM-sized outputs affordable. A GEMM-sized output (16,384 ×
 * 3,072 at k = 768 is 39 G multiply-adds) is too costly to reference whole in JavaScript, so references
 * compute a deterministic sample of output rows: every element of a sampled row is checked, which
 * covers every column, every k and every epilogue term, while the spread of rows (first, last and one
 * per stratum in between, at varied offsets) covers the row tiles.
 */
import type { BoundedReference, SampledReference } from '../case/types.ts';

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

/**
 * Output elements a row-wise reference computes in full (3 Mi): past it, it computes a spread sample of
 * rows holding about as many elements. Every test shape is below it (the largest, bias_gelu's [700, 3072],
 * has 2.15 M; suites/unit/sampling.test.ts checks), so the tests check every row; at GPU sizes the float64
 * reference and the comparison then cost a few hundred milliseconds rather than seconds of JavaScript.
 */
export const REFERENCE_ELEMENTS = 3 * 2 ** 20;

/**
 * The rows a reference of `rows` rows of `rowLength` elements computes: every row while the output has at
 * most REFERENCE_ELEMENTS elements, else sampleRows of as many rows as REFERENCE_ELEMENTS holds (at least 2).
 */
export function referenceRows(rows: number, rowLength: number): number[] {
  const count = Math.max(2, Math.floor(REFERENCE_ELEMENTS / Math.max(1, rowLength)));
  if (rows * rowLength <= REFERENCE_ELEMENTS) return Array.from({ length: rows }, (_, i) => i);
  return sampleRows(rows, count);
}

/**
 * Multiply-adds a GEMM-like reference spends on every row before it samples (64 Mi: a fraction of a second
 * of float64 arithmetic): below it every row is checked, which covers every test shape.
 */
const REFERENCE_WORK = 2 ** 26;

/**
 * The rows a GEMM-like reference computes, each costing `workPerRow` multiply-adds: every row while all
 * of them cost at most REFERENCE_WORK, else sampleRows(rows, count).
 */
export function referenceSample(rows: number, count: number, workPerRow: number): number[] {
  if (rows * workPerRow <= REFERENCE_WORK) return Array.from({ length: rows }, (_, i) => i);
  return sampleRows(rows, count);
}

/**
 * Every `stride`-th index below n, with the stride that keeps them at most REFERENCE_ELEMENTS (1: every
 * index), for figures computed over a whole output beside the reference (extra numerics).
 */
export function spreadIndices(n: number): { stride: number; count: number } {
  const stride = Math.max(1, Math.ceil(n / REFERENCE_ELEMENTS));
  return { stride, count: Math.ceil(n / stride) };
}

/** Elements of one sampled block of an elementwise output (elementsReference). */
const ELEMENT_BLOCK = 4096;

/**
 * The reference of an elementwise output of n elements, `value(i)` each: whole while n is at most
 * REFERENCE_ELEMENTS, else the elements of a spread sample of blocks of 4,096 (first, last and one per
 * stratum, as sampleRows picks rows) plus the ragged tail, noted e.g. "4,096 of 16,384 blocks of 4,096".
 */
export function elementsReference(n: number, value: (i: number) => number): Float64Array | SampledReference {
  if (n <= REFERENCE_ELEMENTS) {
    const whole = new Float64Array(n);
    for (let i = 0; i < n; i++) whole[i] = value(i);
    return whole;
  }
  if (n - 1 > MAX_SAMPLED_INDEX) throw new Error(`${n} elements are past the 32-bit indices of a sampled reference`);
  const blocks = Math.floor(n / ELEMENT_BLOCK);
  const picked = sampleRows(blocks, Math.floor(REFERENCE_ELEMENTS / ELEMENT_BLOCK));
  const tail = n - blocks * ELEMENT_BLOCK;
  const indices = new Uint32Array(picked.length * ELEMENT_BLOCK + tail);
  for (const [k, b] of picked.entries())
    for (let j = 0; j < ELEMENT_BLOCK; j++) indices[k * ELEMENT_BLOCK + j] = b * ELEMENT_BLOCK + j;
  for (let j = 0; j < tail; j++) indices[picked.length * ELEMENT_BLOCK + j] = blocks * ELEMENT_BLOCK + j;
  const values = new Float64Array(indices.length);
  for (let k = 0; k < indices.length; k++) values[k] = value(indices[k] as number);
  const note = `${picked.length.toLocaleString('en-US')} of ${blocks.toLocaleString('en-US')} blocks of ${ELEMENT_BLOCK.toLocaleString('en-US')}${tail > 0 ? ` and the last ${tail}` : ''}`;
  return { indices, values, note };
}

/** Largest element index a SampledReference holds (its indices are a Uint32Array). */
const MAX_SAMPLED_INDEX = 2 ** 32 - 1;

/**
 * The reference of an output of `totalRows` rows of `rowLength` elements, computed for the rows
 * `rows` (sorted, distinct) by `computeRow(row)`: the whole Float64Array when `rows` is every row,
 * otherwise a SampledReference of those rows' elements, noted e.g. "32 of 16,384 rows". A row with a
 * bound (a BoundedReference: every row of one output has one, or none does) makes the whole a
 * BoundedReference and the sample carry the bound.
 */
export function rowsReference(
  totalRows: number,
  rowLength: number,
  rows: readonly number[],
  computeRow: (row: number) => Float64Array | BoundedReference,
  note = `${rows.length.toLocaleString('en-US')} of ${totalRows.toLocaleString('en-US')} rows`,
): Float64Array | BoundedReference | SampledReference {
  const whole = rows.length === totalRows;
  const last = rows.length > 0 ? (rows[rows.length - 1] as number) : 0;
  if (!whole && (last + 1) * rowLength - 1 > MAX_SAMPLED_INDEX) {
    throw new Error(`row ${last} of ${rowLength} elements is past the 32-bit indices of a sampled reference`);
  }
  const size = rows.length * rowLength;
  const values = new Float64Array(size);
  let bound: Float64Array | undefined;
  for (const [i, row] of rows.entries()) {
    const computed = computeRow(row);
    const [v, s] = computed instanceof Float64Array ? [computed, undefined] : [computed.values, computed.bound];
    if (v.length !== rowLength) {
      throw new Error(`row ${row} of the reference has ${v.length} values; expected ${rowLength}`);
    }
    if (s && s.length !== rowLength) {
      throw new Error(`row ${row} of the reference has a bound of ${s.length} values; expected ${rowLength}`);
    }
    if (i === 0 && s) bound = new Float64Array(size);
    if (Boolean(s) !== Boolean(bound)) {
      throw new Error(
        `row ${row} of the reference ${s ? 'has' : 'lacks'} a bound; row ${rows[0]} ${s ? 'lacks' : 'has'} one`,
      );
    }
    const at = (whole ? row : i) * rowLength;
    values.set(v, at);
    if (s) bound?.set(s, at);
  }
  if (whole) return bound ? { values, bound } : values;
  const indices = new Uint32Array(rows.length * rowLength);
  for (const [i, row] of rows.entries()) {
    for (let j = 0; j < rowLength; j++) indices[i * rowLength + j] = row * rowLength + j;
  }
  return { indices, values, note, ...(bound ? { bound } : {}) };
}
