// Numerics of both residual_layernorm variants (h and y) on every backend this machine can run, on
// fresh random inputs, at row lengths that pick each CUDA configuration: one warp per row (up to
// 1024), a block per row (up to 8192), the streaming kernel past that; multiples of 4 (16-byte
// path) and not (scalar path); and enough rows that a grid strides over several.
import { describe, expect, test } from 'vitest';
import { residualLayerNorm } from '../../src/cases/residual-layernorm.ts';
import { BACKENDS_AT_HAND, checkBothVariants } from './numerics-check.ts';

const shapes: [number, number][] = [
  [1, 1],
  [3, 1],
  [2, 2],
  [7, 3],
  [1, 767],
  [5, 767],
  [3, 768],
  [64, 768],
  [4, 129],
  [2, 1024],
  [3, 1025],
  [2, 2047],
  [2, 4096],
  [2, 8192],
  [2, 8193],
  [1, 20_001],
  [20_000, 33],
  [1500, 1028],
];

describe.each(BACKENDS_AT_HAND)('residual_layernorm on %s', (backend) => {
  test.each(shapes)('both variants match the float64 reference at [%i, %i]', (rows, hidden) => {
    checkBothVariants(residualLayerNorm, backend, [rows, hidden]);
  });
});

describe('residual_layernorm shape validation', () => {
  test.each([
    [[16_384, 0], /residual_layernorm: shape \[16384, 0\] has dimension 0/],
    [[-2, 768], /dimension -2/],
    [[768], /shape \[768\] has 1 dimensions; expected 2/],
    [[1, 2 ** 30 + 1], /shape \[1, 1073741825\] has hidden 1073741825; .* at most 1073741824/],
    [[2 ** 27, 2 ** 27], /has 18014398509481984 elements/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => residualLayerNorm.validate(dims)).toThrow(message);
  });
});
