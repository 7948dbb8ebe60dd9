// residual_layernorm beyond the shared numerics suite: the shape rules.
import { describe, expect, test } from 'vitest';
import { findCase } from '../registry.ts';

const residualLayerNorm = await findCase('residual_layernorm');

describe('residual_layernorm shape validation', () => {
  test.each([
    [[16_384, 0], /^residual_layernorm: shape \[16384, 0\] has hidden 0; every dimension must be a positive integer$/],
    [[-2, 768], /has rows -2/],
    [[768], /shape \[768\] has 1 dimensions; expected 2 \(rows, hidden\)/],
    [
      [1, 2 ** 30 + 1],
      /shape \[1, 1073741825\] \(rows 1, hidden 1073741825\) breaks the limit hidden <= 2\^30: the CUDA kernels index a row with 32-bit ints/,
    ],
    [[2 ** 27, 2 ** 27], /has 18014398509481984 elements/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => residualLayerNorm.validate(dims)).toThrow(message);
  });
});
