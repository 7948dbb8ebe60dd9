// residual_layernorm beyond the shared numerics suite: the shape rules, and rows of two in the half
// precisions.
import { describe, expect, test } from 'vitest';
import { checkBothVariants } from '../../suites/support/numerics-check.ts';
import { findCase, loadCases } from '../registry.ts';

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

describe('residual_layernorm in the half precisions', () => {
  // Rows of two: rounding h to bf16/fp16 can make h0 = h1 (z = 0 instead of ±1). Both variants normalize
  // the stored h and so does the reference, so the 512 rows of 16 runs agree at the stated tolerance.
  test.each(['bf16', 'fp16'])(
    '%s rows of two, where rounding h decides the row, agree with the reference',
    async (dtype) => {
      const def = (await loadCases()).find((c) => c.name === 'residual_layernorm' && c.dtype === dtype);
      if (!def) throw new Error(`residual_layernorm is not registered in ${dtype}`);
      for (let run = 0; run < 16; run++) checkBothVariants(def, 'cpu', [512, 2]);
    },
  );
});
