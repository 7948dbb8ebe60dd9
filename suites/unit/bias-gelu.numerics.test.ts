// Numerics of both bias_gelu variants on every backend this machine can run, on fresh random
// inputs: column counts that are and are not multiples of 4 (the CUDA bias vector width), element
// counts with a tail past the last float4, and shapes large enough that each CUDA thread strides
// over several float4s (the kernel tracks the column across strides).
import { describe, expect, test } from 'vitest';
import { biasGelu } from '../../src/cases/bias-gelu.ts';
import { BACKENDS_AT_HAND, checkBothVariants } from './numerics-check.ts';

const shapes: [number, number][] = [
  [1, 1],
  [1, 3],
  [5, 3],
  [7, 5],
  [1000, 1],
  [3, 767],
  [33, 767],
  [1, 3072],
  [4, 3072],
  [2, 4099],
  [1500, 1027],
  [700, 3072],
];

describe.each(BACKENDS_AT_HAND)('bias_gelu on %s', (backend) => {
  test.each(shapes)('both variants match the float64 reference at [%i, %i]', (rows, cols) => {
    checkBothVariants(biasGelu, backend, [rows, cols], ({ inputs, outputs, label }) => {
      const erf = biasGelu.extraNumerics?.(inputs, outputs, [rows, cols]) ?? {};
      // The tanh form stays within 1e-3 of exact erf-GELU.
      expect(Object.values(erf)[0], label).toBeLessThan(1e-3);
    });
  });
});

describe('bias_gelu shape validation', () => {
  test.each([
    [[0, 3072], /bias_gelu: shape \[0, 3072\] has dimension 0/],
    [[16, -1], /shape \[16, -1\] has dimension -1/],
    [[1.5, 3], /dimension 1.5/],
    [[16], /shape \[16\] has 1 dimensions; expected 2/],
    [[1, 2 ** 31], /shape \[1, 2147483648\] has 2147483648 columns; .* at most 2147483647/],
    [[2 ** 27, 2 ** 27], /has 18014398509481984 elements/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => biasGelu.validate(dims)).toThrow(message);
  });
});
