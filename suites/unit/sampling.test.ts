// The row sampling of the GEMM-sized references (src/reference/sampling.ts).
import { describe, expect, test } from 'vitest';
import { sampleRows } from '../../src/reference/sampling.ts';

describe('sampleRows', () => {
  test('every row when there are no more rows than the count', () => {
    expect(sampleRows(1, 32)).toEqual([0]);
    expect(sampleRows(10, 32)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(sampleRows(32, 32)).toHaveLength(32);
  });

  test.each([33, 40, 130, 1000, 16_384, 196_608])(
    '%i rows: count distinct sorted rows with the first and last, spread over tiles',
    (rows) => {
      const picked = sampleRows(rows, 32);
      expect(picked).toHaveLength(32);
      expect(picked[0]).toBe(0);
      expect(picked[31]).toBe(rows - 1);
      for (let i = 1; i < picked.length; i++) {
        const gap = (picked[i] as number) - (picked[i - 1] as number);
        expect(gap).toBeGreaterThan(0);
        expect(gap).toBeLessThanOrEqual(2 * Math.ceil((rows - 2) / 30) + 1);
      }
      expect(sampleRows(rows, 32)).toEqual(picked); // deterministic
      if (rows >= 16_384) expect(new Set(picked.map((r) => r % 128)).size).toBeGreaterThan(16); // not one stride
    },
  );

  test('refuses a count below 2', () => {
    expect(() => sampleRows(100, 1)).toThrow(/count must be at least 2/);
  });
});
