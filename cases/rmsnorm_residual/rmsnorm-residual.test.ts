// rmsnorm_residual beyond the shared numerics suite: the tolerance catches real defects, the shape
// rules hold, and the traffic model is the 5-pass against 4-pass count.
import { describe, expect, test } from 'vitest';
import { expectCaught } from '../../suites/support/numerics-check.ts';
import { findCase } from '../registry.ts';

const rmsnormResidual = await findCase('rmsnorm_residual');

describe('rmsnorm_residual tolerance catches real defects (CPU kernels against a defective reference)', () => {
  const dims = [8, 4096];
  test('γ left out (γ ≈ 1 ± 0.1)', () => {
    expectCaught(rmsnormResidual, dims, (inputs) => (inputs.gamma as Float32Array).fill(1));
  });
  test('the residual of the neighbouring row', () => {
    expectCaught(rmsnormResidual, dims, (inputs) => (inputs.r as Float32Array).copyWithin(0, 4096));
  });
  test('the mean subtracted, as LayerNorm does', () => {
    expectCaught(rmsnormResidual, dims, (inputs) => {
      // Shifting r by a constant moves the mean RMSNorm must not remove: y changes by ≈ 0.5·rstd.
      const r = inputs.r as Float32Array;
      for (let i = 0; i < r.length; i++) r[i] = (r[i] as number) + 0.5;
    });
  });
});

describe('rmsnorm_residual shape validation', () => {
  test.each([
    [[16_384, 0], /^rmsnorm_residual: shape \[16384, 0\] has hidden 0; every dimension must be a positive integer$/],
    [[4096], /shape \[4096\] has 1 dimensions; expected 2 \(rows, hidden\)/],
    [
      [1, 2 ** 30 + 1],
      /\(rows 1, hidden 1073741825\) breaks the limit hidden <= 2\^30: the CUDA kernels index a row with 32-bit ints/,
    ],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => rmsnormResidual.validate(dims)).toThrow(message);
  });
});

test('traffic: five tensor passes unfused against four fused, a theoretical 1.25x at LLaMA-7B width', () => {
  const [rows, hidden] = [16_384, 4096];
  const n = rows * hidden;
  const t = rmsnormResidual.traffic([rows, hidden]);
  expect(t).toEqual({
    unfused: { bytes: 4 * (5 * n + hidden), launches: 2 },
    fused: { bytes: 4 * (4 * n + hidden), launches: 1 },
  });
  expect(t.unfused.bytes / t.fused.bytes).toBeCloseTo(1.25, 3);
});
