// scale_mask_softmax beyond the shared numerics suite: every row sums to 1, fully masked rows and
// masked keys are exactly zero, and the shape rules.
import { describe, expect, test } from 'vitest';
import { BACKENDS_AT_HAND, checkBothVariants } from '../../suites/support/numerics-check.ts';
import { findCase } from '../registry.ts';

const scaleMaskSoftmax = await findCase('scale_mask_softmax');

describe.each(BACKENDS_AT_HAND)('scale_mask_softmax on %s', (backend) => {
  test.each(scaleMaskSoftmax.testShapes.map((s) => [...s]))('every row sums to 1 at [%i, %i, %i, %i]', (...dims) => {
    checkBothVariants(scaleMaskSoftmax, backend, dims, ({ inputs, outputs, label }) => {
      const rowSums = scaleMaskSoftmax.extraNumerics?.(inputs, outputs, dims) ?? {};
      expect(Object.values(rowSums)[0], label).toBeLessThan(1e-5);
    });
  });

  test('a row with every key masked is exactly zero, and masked keys are exactly zero', () => {
    // seq_q 5 > seq_k 3: queries 0 and 1 see no key; query 2 sees key 0 only.
    checkBothVariants(scaleMaskSoftmax, backend, [1, 2, 5, 3], ({ outputs, label }) => {
      const head = Array.from(outputs.p as Float32Array).slice(0, 15);
      expect(head.slice(0, 6), label).toEqual([0, 0, 0, 0, 0, 0]);
      expect(head.slice(6, 9), label).toEqual([1, 0, 0]);
    });
  });
});

describe('scale_mask_softmax shape validation', () => {
  test.each([
    [
      [1, 1, 0, 5],
      /^scale_mask_softmax: shape \[1, 1, 0, 5\] has seq_q 0; every dimension must be a positive integer$/,
    ],
    [[32, 12, 512], /shape \[32, 12, 512\] has 3 dimensions; expected 4 \(batch, heads, seq_q, seq_k\)/],
    [
      [1, 1, 2 ** 30 + 1, 1],
      /\(batch 1, heads 1, seq_q 1073741825, seq_k 1\) breaks the limit seq_q <= 2\^30 and seq_k <= 2\^30/,
    ],
    [[1, 1, 1, 2 ** 30 + 1], /seq_k 1073741825\) breaks the limit/],
    [[2 ** 14, 2 ** 14, 2 ** 14, 2 ** 14], /has 72057594037927940 elements/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => scaleMaskSoftmax.validate(dims)).toThrow(message);
  });
});
