import { describe, expect, test } from 'vitest';
import { compare } from '../../src/case/numerics.ts';

const tol = { atol: 1e-5, rtol: 1e-5 };

describe('compare with a float64 reference', () => {
  test('passes within tolerance and reports the largest errors', () => {
    const ref = new Float64Array([1, -2, 3e-9, 100]);
    const out = new Float32Array([1 + 1e-6, -2, 0, 100.0005]);
    const r = compare(out, ref, tol);
    expect(r.failure).toBeUndefined();
    expect(r.maxAbsError).toBeCloseTo(Math.abs(Math.fround(100.0005) - 100), 10);
    expect(r.maxRelError).toBeGreaterThan(0);
  });

  test('an unwritten (poisoned) element fails and is named with its index', () => {
    const ref = new Float64Array([1, 2, 3]);
    const out = new Float32Array([1, Number.NaN, 3]);
    expect(compare(out, ref, tol, 'y').failure).toMatch(/y\[1\] is NaN/);
  });

  test('an infinite output fails and is named', () => {
    const r = compare(new Float32Array([Number.POSITIVE_INFINITY]), new Float64Array([1]), tol);
    expect(r.failure).toMatch(/\[0\] is Infinity/);
  });

  test("an element's own error bound applies where it exceeds the tolerance, and only there", () => {
    const ref = new Float64Array([1, 2]);
    const bound = new Float64Array([1e-3, 1e-9]);
    expect(compare(new Float32Array([1.0005, 2]), ref, tol, 'y', undefined, bound).failure).toBeUndefined();
    // below the tolerance a bound narrows nothing: the second element keeps atol + rtol·|ref|
    expect(compare(new Float32Array([1, 2.00002]), ref, tol, 'y', undefined, bound).failure).toBeUndefined();
    expect(compare(new Float32Array([1.002, 2]), ref, tol, 'y', undefined, bound).failure).toMatch(
      /^y\[0\] = 1\.00\d+ but the reference is 1: \|error\| 2\.0\d+e-3 exceeds atol 0\.00001 \+ rtol 0\.00001·\|ref\| and the element's own bound 1\.000e-3$/,
    );
    expect(compare(new Float32Array([1, 2]), ref, tol, 'y', undefined, new Float64Array(3)).failure).toMatch(
      /bound has 3 elements/,
    );
    // a NaN bound widens nothing
    expect(
      compare(new Float32Array([100]), new Float64Array([0]), tol, 'y', undefined, new Float64Array([Number.NaN]))
        .failure,
    ).toMatch(/exceeds/);
  });

  test('an error beyond tolerance fails with the index, value and reference', () => {
    const r = compare(new Float32Array([1, 2.001]), new Float64Array([1, 2]), tol, 'y');
    expect(r.failure).toMatch(/y\[1\] = 2\.00\d+ but the reference is 2/);
  });

  test('a length mismatch fails', () => {
    expect(compare(new Float32Array(2), new Float64Array(3), tol).failure).toMatch(/length/);
  });
});
