/**
 * Row sampling that keeps the references of GEMM-sized outputs affordable. A GEMM-sized output (16,384 ×
 * 3,072 at k = 768 is 39 G multiply-adds) is too costly to reference whole in JavaScript, so references
 * compute a deterministic sample of output rows: every element of a sampled row is checked, which
 * covers every column, every k and every epilogue term, while the spread of rows (first, last and one
 * per stratum in between, at varied offsets) covers the row tiles.
 */
import type { SampledReference } from '../case/types.ts';

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
