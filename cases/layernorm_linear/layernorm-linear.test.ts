// layernorm_linear (LayerNorm written out and read back by a GEMM, against the CUDA GEMM with the
// LayerNorm folded into its weights and epilogue, or the CPU's normalize-then-multiply in cache) beyond
// the shared numerics suite: the tolerance catches real defects, the shape rules hold, and the models.
import { describe, expect, test } from 'vitest';
import { normalArray } from '../../src/case/random.ts';
import { linearRow, rowOf } from '../../src/reference/linear.ts';
import { layerNormRow } from '../../src/reference/norms.ts';
import { expectCaught } from '../../suites/support/numerics-check.ts';
import { findCase } from '../registry.ts';
import { foldLayerNorm } from './case.ts';

const layerNormLinear = await findCase('layernorm_linear');
const prefolded = await findCase('layernorm_linear_prefolded');

describe('layernorm_linear_prefolded (the folded GEMM on weights folded once)', () => {
  test('is an fp32 CUDA comparison against the same twin', async () => {
    expect(prefolded.variants).toEqual({ unfused: 'unfused', fused: 'prefolded' });
    expect(prefolded.dtype).toBe('fp32');
    expect(prefolded.unavailableReason('cpu', { cublas: true })).toMatch(/runs on cuda only/);
    expect(prefolded.unavailableReason('cuda', { cublas: true })).toBeUndefined();
  });

  test("the fold's algebra: ρ·(x·w'ᵀ − μ·c) + d is LayerNorm(x)·wᵀ + b (float64, rows off zero)", () => {
    const [n, k, eps] = [5, 48, 1e-5];
    const x = normalArray(3 * k, 1, 11, 3);
    const [gamma, beta] = [normalArray(k, 0.1, 12, 1), normalArray(k, 0.1, 13)];
    const [w, b] = [normalArray(n * k, 0.2, 14), normalArray(n, 0.5, 15)];
    const { wFolded, colsum, biasFolded } = foldLayerNorm(w, gamma, beta, b, n, k);
    for (let row = 0; row < 3; row++) {
      const xr = rowOf(x, row, k);
      const mu = xr.reduce((s, v) => s + v, 0) / k;
      const rho = 1 / Math.sqrt(xr.reduce((s, v) => s + (v - mu) ** 2, 0) / k + eps);
      const direct = linearRow(layerNormRow(xr, gamma, beta, eps), w, b, n);
      const raw = linearRow(xr, wFolded, undefined, n);
      for (let j = 0; j < n; j++) {
        const folded = rho * ((raw[j] as number) - mu * (colsum[j] as number)) + (biasFolded[j] as number);
        // float32 storage of w', c and d: ~1e-6 relative of Σ|x·w'| ≈ 3·Σ|w'|.
        expect(Math.abs(folded - (direct[j] as number))).toBeLessThan(2e-5);
      }
    }
  });

  test("moves the row statistics' and the GEMM's bytes only, in two launches", () => {
    const [m, n, k] = [16_384, 768, 768];
    expect(prefolded.traffic([m, n, k]).fused).toEqual({
      bytes: 4 * (2 * m * k + 4 * m + n * k + 2 * n + m * n),
      launches: 2,
    });
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
    expect(t.fused).toEqual({ bytes: 4 * (2 * m * k + 4 * m + 3 * n * k + 2 * k + 5 * n + m * n), launches: 2 });
  });
});
