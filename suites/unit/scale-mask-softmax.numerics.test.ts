// Numerics of both scale_mask_softmax variants on every backend this machine can run, on fresh
// random inputs: square and non-square causal masks (seq_q > seq_k leaves rows with every key
// masked, defined as zeros), row lengths that pick each CUDA configuration (a warp per row up to
// 1024, a block up to 8192, the streaming kernel past that), multiples of 4 and not, and enough
// rows that a grid strides over several.
import { describe, expect, test } from 'vitest';
import { scaleMaskSoftmax } from '../../src/cases/scale-mask-softmax.ts';
import { BACKENDS_AT_HAND, checkBothVariants } from './numerics-check.ts';

const shapes: [number, number, number, number][] = [
  [1, 1, 1, 1],
  [1, 1, 1, 512],
  [1, 1, 33, 33],
  [2, 3, 33, 33],
  [1, 1, 3, 7],
  [1, 2, 5, 3],
  [2, 2, 64, 64],
  [2, 4, 256, 256],
  [1, 1, 4, 1024],
  [1, 1, 2, 1025],
  [1, 1, 3, 4096],
  [1, 1, 2, 8192],
  [1, 1, 3, 8193],
  [1, 1, 2, 20_001],
  [20, 31, 33, 33],
  [1, 1, 1200, 1500],
];

describe.each(BACKENDS_AT_HAND)('scale_mask_softmax on %s', (backend) => {
  test.each(shapes)('both variants match the float64 reference at [%i, %i, %i, %i]', (...dims) => {
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
    [[1, 1, 0, 5], /scale_mask_softmax: shape \[1, 1, 0, 5\] has dimension 0/],
    [[32, 12, 512], /shape \[32, 12, 512\] has 3 dimensions; expected 4/],
    [[1, 1, 2 ** 30 + 1, 1], /seq_q 1073741825 and seq_k 1; .* at most 1073741824 each/],
    [[1, 1, 1, 2 ** 30 + 1], /seq_k 1073741825/],
    [[2 ** 14, 2 ** 14, 2 ** 14, 2 ** 14], /has 72057594037927940 elements/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => scaleMaskSoftmax.validate(dims)).toThrow(message);
  });
});
