// bias_gelu beyond the shared numerics suite: the tanh form within 1e-3 of exact erf-GELU at every
// test shape, and the shape rules.
import { describe, expect, test } from 'vitest';
import { BACKENDS_AT_HAND, checkBothVariants } from '../../suites/support/numerics-check.ts';
import { findCase } from '../registry.ts';

const biasGelu = await findCase('bias_gelu');

describe.each(BACKENDS_AT_HAND)('bias_gelu on %s', (backend) => {
  test.each(biasGelu.testShapes.map((s) => [...s]))('within 1e-3 of exact erf-GELU at [%i, %i]', (rows, cols) => {
    checkBothVariants(biasGelu, backend, [rows, cols], ({ inputs, outputs, label }) => {
      const erf = biasGelu.extraNumerics?.(inputs, outputs, [rows, cols]) ?? {};
      expect(Object.values(erf)[0], label).toBeLessThan(1e-3);
    });
  });
});

describe('bias_gelu shape validation', () => {
  test.each([
    [[0, 3072], /^bias_gelu: shape \[0, 3072\] has rows 0; every dimension must be a positive integer$/],
    [[16, -1], /shape \[16, -1\] has cols -1/],
    [[1.5, 3], /has rows 1.5/],
    [[16], /shape \[16\] has 1 dimensions; expected 2 \(rows, cols\)/],
    [
      [1, 2 ** 31],
      /shape \[1, 2147483648\] \(rows 1, cols 2147483648\) breaks the limit cols < 2\^31: the CUDA kernels track a column in 32-bit/,
    ],
    [[2 ** 27, 2 ** 27], /has 18014398509481984 elements/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => biasGelu.validate(dims)).toThrow(message);
  });
});
