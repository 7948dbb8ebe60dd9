// Numerics of layernorm_linear (LayerNorm written out and read back by a GEMM, against the CUDA
// GEMM with the LayerNorm folded into its weights and epilogue, or the CPU's normalize-then-multiply
// in cache) on every backend at hand, at small awkward shapes: a single output, sizes no multiple of
// the tiles, rows and columns crossing the CUDA GEMM's 128×128 tiles, k crossing its k slices of 16;
// and that the tolerance catches real defects, and the shape rules hold.
import { describe, expect, test } from 'vitest';
import { layerNormLinear } from '../../src/cases/layernorm-linear.ts';
import { Workspace } from '../../src/native.ts';
import { backendsFor, checkBothVariants, expectCaught } from './numerics-check.ts';

const shapes: [number, number, number][] = [
  [1, 1, 4],
  [5, 7, 12],
  [3, 33, 132],
  [257, 5, 8],
  [130, 129, 68],
  [64, 256, 256],
];

describe.each(backendsFor(layerNormLinear))('layernorm_linear on %s', (backend) => {
  test.each(shapes)('both variants match the float64 reference at [%i, %i, %i]', (m, n, k) => {
    checkBothVariants(layerNormLinear, backend, [m, n, k]);
  });
});


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
      /^layernorm_linear: shape \[16384, 768, 770\] has k = 770, not a multiple of 4; the fused GEMM loads 16-byte vectors \(4 floats\) along k$/,
    ],
    [
      [0, 768, 768],
      /^layernorm_linear: shape \[0, 768, 768\] has dimension 0; every dimension must be a positive integer$/,
    ],
    [[768, 768], /has 2 dimensions; expected 3/],
    [
      [1, 1, 2 ** 30 + 4],
      /has k 1073741828; the CUDA LayerNorm kernel's row index is 32-bit \(at most 1,073,741,824\)/,
    ],
    [[8_388_481, 1, 4], /has 8388481 rows; fusebench's GEMM grid/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => layerNormLinear.validate(dims)).toThrow(message);
  });
});

describe('layernorm_linear model', () => {
  test('allocatedBytes is 4 bytes per float of the native buffers; elements the largest buffer', () => {
    const dims = [5, 7, 12];
    const ws = new Workspace('cpu', 'layernorm_linear', dims, layerNormLinear.params, undefined);
    try {
      expect(layerNormLinear.allocatedBytes?.(dims)).toBe(4 * ws.buffers().reduce((s, b) => s + b.count, 0));
      expect(layerNormLinear.elements?.(dims)).toBe(Math.max(...ws.buffers().map((b) => b.count)));
    } finally {
      ws.dispose();
    }
  });

  test('flops and traffic at the CUDA shape', () => {
    const [m, n, k] = [16_384, 768, 768];
    expect(layerNormLinear.flops?.([m, n, k])).toBe(2 * m * n * k);
    const t = layerNormLinear.traffic([m, n, k]);
    expect(t.unfused).toEqual({ bytes: 4 * (3 * m * k + 2 * k + n * k + 3 * m * n + n), launches: 3 });
    expect(t.fused).toEqual({ bytes: 4 * (m * k + 3 * n * k + 2 * k + 5 * n + m * n), launches: 2 });
  });
});
