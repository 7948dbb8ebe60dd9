// gelu_scale beyond the shared numerics suite: how far the tanh form lies from exact erf-GELU (the V100
// report's 1e-3), and the backend errors a run can meet, with gelu_scale as the vehicle.
import { describe, expect, test } from 'vitest';
import { resolveBackend } from '../../src/addon/device.ts';
import { buildInfo, cudaProbe, Workspace } from '../../src/addon/native.ts';
import { BACKENDS_AT_HAND, checkBothVariants } from '../../suites/support/numerics-check.ts';
import { findCase } from '../registry.ts';

const geluScale = await findCase('gelu_scale');
const cudaUsable = cudaProbe().deviceCount > 0;

describe.each(BACKENDS_AT_HAND)('gelu_scale on %s', (backend) => {
  test.each(geluScale.testShapes.map((s) => [s[0] as number]))('within 1e-3 of exact erf-GELU at n = %i', (n) => {
    checkBothVariants(geluScale, backend, [n], ({ report, inputs, outputs, label }) => {
      expect(report.maxAbsError, label).toBeLessThan(geluScale.tolerance.atol * 4);
      const erf = geluScale.extraNumerics?.(inputs, outputs, [n]) ?? {};
      // The tanh form stays within the V100 report's 1e-3 of exact erf-GELU (scaled by √2).
      expect(Object.values(erf)[0], label).toBeLessThan(1e-3);
    });
  });
});

describe('backend errors', () => {
  test.runIf(!cudaUsable)('asking for CUDA without a usable device says which and how to fix it', () => {
    expect(() => resolveBackend('cuda')).toThrow(buildInfo().cuda ? /no CUDA device is usable/ : /built without it/);
    expect(resolveBackend('auto')).toMatchObject({ backend: 'cpu' });
  });

  test.runIf(cudaUsable)('a shape past the device memory is a JS error naming the limit, before any cudaMalloc', () => {
    // Refused by the size check against the device's memory, before cudaMalloc is asked.
    expect(() => new Workspace('cuda', 'gelu_scale', 'fp32', [2 ** 45], [...geluScale.params], undefined)).toThrow(
      /needs [\d,]+ bytes of buffers; the limit is [\d,]+ bytes, the CUDA device's global memory/,
    );
  });

  test('an impossible CPU allocation is an error, not an abort', () => {
    // Refused by the size check against the host's memory, before anything is allocated.
    expect(() => new Workspace('cpu', 'gelu_scale', 'fp32', [2 ** 50], [...geluScale.params], undefined)).toThrow(
      /needs [\d,]+ bytes of buffers; the limit is [\d,]+ bytes, the CPU backend's memory/,
    );
  });

  test('a non-positive dimension is refused before any allocation, naming the shape', () => {
    expect(() => geluScale.validate([0])).toThrow(
      /gelu_scale: shape \[0\] has n 0; every dimension must be a positive integer/,
    );
    expect(() => geluScale.validate([-5])).toThrow(/has n -5/);
  });
});
