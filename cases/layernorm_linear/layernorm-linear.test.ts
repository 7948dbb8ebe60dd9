// layernorm_linear (LayerNorm written out and read back by a GEMM, against the CUDA GEMM with the
// LayerNorm folded into its weights and epilogue, or the CPU's normalize-then-multiply in cache) beyond
// the shared numerics suite: the tolerance catches real defects, the shape rules hold, and the models.
import { describe, expect, test } from 'vitest';
import { findCase } from '../registry.ts';
import { expectCaught } from '../../suites/support/numerics-check.ts';

const layerNormLinear = await findCase('layernorm_linear');

describe('layernorm_linear tolerance catches real defects (CPU kernels against a defective reference)', () => {
  const dims = [48, 64, 768];
  test('γ left out (γ ≈ 1 ± 0.1)', () => {
    expectCaught(layerNormLinear, dims, (inputs) => (inputs.gamma as Float32Array).fill(1));
  });
  test('β left out (β ≈ ±0.1)', () => {
    expectCaught(layerNormLinear, dims, (inputs) => (inputs.beta as Float32Array).fill(0));
  });
  test('one feature of every row left out of the statistics and the product', () => {
    expectCaught(layerNormLinear, dims, (inputs) => {
      // Feature 767 set to its row's mean contributes nothing to the deviations of that row.
      const x = inputs.x as Float32Array;
      for (let row = 0; row < 48; row++) {
        let sum = 0;
        for (let i = 0; i < 767; i++) sum += x[row * 768 + i] as number;
        x[row * 768 + 767] = sum / 767;
      }
    });
  });
});

describe('layernorm_linear shape validation', () => {
  test.each([
    [
      [16_384, 768, 770],
      /^layernorm_linear: shape \[16384, 768, 770\] \(m 16384, n 768, k 770\) breaks the limit k % 4 == 0: the fused GEMM loads 16-byte vectors \(4 floats\) along k$/,
    ],
    [[0, 768, 768], /^layernorm_linear: shape \[0, 768, 768\] has m 0; every dimension must be a positive integer$/],
    [[768, 768], /has 2 dimensions; expected 3 \(m, n, k\)/],
    [
      [1, 1, 2 ** 30 + 4],
      /breaks the limit k <= 2\^30: the unfused twin's CUDA LayerNorm kernel indexes a row with 32-bit ints/,
    ],
    [[8_388_481, 1, 4], /breaks the limit m <= 8,388,480: fusebench's GEMM grid/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => layerNormLinear.validate(dims)).toThrow(message);
  });
});

describe('layernorm_linear model', () => {
  test('flops and traffic at the CUDA shape', () => {
    const [m, n, k] = [16_384, 768, 768];
    expect(layerNormLinear.flops?.([m, n, k])).toBe(2 * m * n * k);
    const t = layerNormLinear.traffic([m, n, k]);
    expect(t.unfused).toEqual({ bytes: 4 * (3 * m * k + 2 * k + n * k + 3 * m * n + n), launches: 3 });
    expect(t.fused).toEqual({ bytes: 4 * (m * k + 3 * n * k + 2 * k + 5 * n + m * n), launches: 2 });
  });
});
