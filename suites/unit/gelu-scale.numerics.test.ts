// Numerics of both gelu_scale variants on every backend this machine can run, at sizes that are
// not multiples of 4 (the CUDA kernels' vector width) or of a block, on fresh random inputs.
import { describe, expect, test } from 'vitest';
import { geluScale } from '../../src/cases/gelu-scale.ts';
import { resolveBackend } from '../../src/device.ts';
import { Workspace, buildInfo, cudaProbe } from '../../src/native.ts';
import { BACKENDS_AT_HAND, checkBothVariants } from './numerics-check.ts';

const cudaUsable = cudaProbe().deviceCount > 0;
const sizes = [1, 3, 4, 5, 31, 1023, 1024, 4099, 65_539, 1_048_576];

describe.each(BACKENDS_AT_HAND)('gelu_scale on %s', (backend) => {
  test.each(sizes)('both variants match the float64 reference at n = %i', (n) => {
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

  test.runIf(cudaUsable)('a failing CUDA call becomes a JS error naming the call', () => {
    expect(() => new Workspace('cuda', 'gelu_scale', [2 ** 45], geluScale.params, undefined)).toThrow(
      /cudaMalloc.*cudaErrorMemoryAllocation/,
    );
  });

  test('an impossible CPU allocation is an error, not an abort', () => {
    expect(() => new Workspace('cpu', 'gelu_scale', [2 ** 50], geluScale.params, undefined)).toThrow(/allocation/);
  });

  test('a non-positive dimension is refused before any allocation, naming the shape', () => {
    expect(() => geluScale.validate([0])).toThrow(/gelu_scale: shape \[0\] has dimension 0/);
    expect(() => geluScale.validate([-5])).toThrow(/dimension -5/);
  });
});
