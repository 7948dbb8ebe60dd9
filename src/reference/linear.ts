/** Linear-layer building blocks of the GEMM cases' references, in float64 from the float32 inputs. */
import { nativeLinearRow } from '../addon/native.ts';

/** A float32 input or a float64 intermediate of a reference. */
export type Floats = Float32Array | Float64Array;

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
  // Natively (native/js_reference.cc): the same sums in four interleaved partial sums, several times
  // faster than this module's dot, which the large references' K/V projections spend seconds in.
  return nativeLinearRow(a, w, b, n);
}
