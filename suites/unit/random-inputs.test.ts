// The cases' seeded inputs (src/case/random.ts over native/random_fill.cc): deterministic per seed,
// independent of how the work is split across threads, normal with the asked moments, and rounded
// exactly as an upload to a bf16/fp16 buffer stores them.
import { describe, expect, test } from 'vitest';
import { roundFloats } from '../../src/addon/native.ts';
import { roundTo } from '../../src/base/dtype.ts';
import { normalArray } from '../../src/case/random.ts';

describe('normalArray', () => {
  test('the same seed gives the same values, another seed others', () => {
    expect(normalArray(1000, 1, 7)).toEqual(normalArray(1000, 1, 7));
    const other = normalArray(1000, 1, 8);
    expect(normalArray(1000, 1, 7).filter((v, i) => v === other[i]).length).toBeLessThan(5);
  });

  test('a value depends on its index only: a long array (split across threads) starts with the short one', () => {
    const long = normalArray(2 ** 21 + 3, 2, 42, 1);
    const short = normalArray(7, 2, 42, 1);
    expect(long.subarray(0, 7)).toEqual(short);
    // An odd length ends on the first value of a Box–Muller pair: the same as in a longer array.
    expect(normalArray(2 ** 21 + 3, 2, 42, 1).subarray(2 ** 20, 2 ** 20 + 5)).toEqual(
      long.subarray(2 ** 20, 2 ** 20 + 5),
    );
    expect(normalArray(2 ** 20 + 1, 2, 42, 1)[2 ** 20]).toBe(long[2 ** 20]);
  });

  test('mean and standard deviation as asked, tails as a normal has them', () => {
    const n = 2 ** 20;
    const x = normalArray(n, 3, 11, -2);
    const mean = x.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(x.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
    expect(mean).toBeCloseTo(-2, 1);
    expect(sd).toBeGreaterThan(2.97);
    expect(sd).toBeLessThan(3.03);
    // P(|z| > 3) = 0.27%: between 0.2% and 0.35% of a million draws.
    const beyond = x.filter((v) => Math.abs(v + 2) > 9).length / n;
    expect(beyond).toBeGreaterThan(0.002);
    expect(beyond).toBeLessThan(0.0035);
    expect(x.every(Number.isFinite)).toBe(true);
  });

  test.each([[-1], [1.5], [Number.NaN]])('refuses a length of %s', (n) => {
    expect(() => normalArray(n, 1, 1)).toThrow(/Expected a non-negative integer length/);
  });

  test.each([[-1], [2 ** 32], [0.5]])('refuses a seed of %s', (seed) => {
    expect(() => normalArray(4, 1, seed)).toThrow(/Expected a 32-bit unsigned seed/);
  });
});

describe('roundFloats', () => {
  test.each(['bf16', 'fp16'] as const)('rounds in place exactly as the JavaScript %s rounding does', (dtype) => {
    const x = Float32Array.from([...normalArray(2 ** 16, 1, 3), ...normalArray(4096, 3e4, 4), 65_520, -1e-8, 0]);
    const expected = roundTo(dtype, x);
    roundFloats(x, dtype);
    expect(x).toEqual(expected);
  });

  test('leaves fp32 values as they are', () => {
    const x = normalArray(100, 1, 5);
    const copy = x.slice();
    roundFloats(x, 'fp32');
    expect(x).toEqual(copy);
  });
});
