// Numerics of both bias_gelu variants on every backend this machine can run, on fresh random
// inputs: column counts that are and are not multiples of 4 (the CUDA bias vector width), element
// counts with a tail past the last float4, and shapes large enough that each CUDA thread strides
// over several float4s (the kernel tracks the column across strides).
import { describe, expect, test } from 'vitest';
import { biasGelu } from '../../src/cases/bias-gelu.ts';
import { Workspace, cudaProbe } from '../../src/native.ts';
import { freshSeed } from '../../src/rng.ts';
import { checkVariant } from '../../src/run-case.ts';

const cudaUsable = cudaProbe().deviceCount > 0;
const backends = cudaUsable ? (['cpu', 'cuda'] as const) : (['cpu'] as const);
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

describe.each(backends)('bias_gelu on %s', (backend) => {
  test.each(shapes)('both variants match the float64 reference at [%i, %i]', (rows, cols) => {
    const dims = [rows, cols];
    biasGelu.validate(dims);
    const seed = freshSeed();
    const ws = new Workspace(backend, 'bias_gelu', dims, biasGelu.params, undefined);
    try {
      for (const variant of [biasGelu.variants.unfused, biasGelu.variants.fused]) {
        const { report, inputs, outputs } = checkVariant(biasGelu, ws, dims, variant, seed);
        expect(report.failure, `${variant}, seed ${seed}`).toBeUndefined();
        const erf = biasGelu.extraNumerics?.(inputs, outputs, dims) ?? {};
        // The tanh form stays within 1e-3 of exact erf-GELU.
        expect(Object.values(erf)[0], `${variant}, seed ${seed}`).toBeLessThan(1e-3);
      }
    } finally {
      ws.dispose();
    }
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
