// gemm (fusebench's fp32 GEMM against cuBLAS SGEMM, the building block measured alone) beyond the
// shared numerics suite: where it runs, the shape rules, the models.
import { describe, expect, test } from 'vitest';
import { findCase } from '../registry.ts';

const gemm = await findCase('gemm');

describe('gemm', () => {
  test('compares the own GEMM (fused column) with cuBLAS (unfused column) at the four GPT-2 GEMM shapes', () => {
    expect(gemm.variants).toEqual({ unfused: 'cublas', fused: 'own' });
    expect(gemm.shapes('cuda').map((s) => s.label)).toEqual([
      '16384x3072x768',
      '16384x768x768',
      '16384x768x3072',
      '16384x2304x768',
    ]);
  });

  test('runs on CUDA only, and needs cuBLAS there', () => {
    expect(gemm.unavailableReason('cpu', { cublas: true })).toMatch(/runs on cuda only/);
    expect(gemm.unavailableReason('cuda', { cublas: false })).toMatch(/cuBLAS/);
    expect(gemm.unavailableReason('cuda', { cublas: true })).toBeUndefined();
  });

  test.each([
    [[8_388_481, 4, 4], /breaks the limit m <= 8,388,480: fusebench's GEMM grid/],
    [[16_384, 0, 768], /^gemm: shape \[16384, 0, 768\] has n 0/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => gemm.validate(dims)).toThrow(message);
  });

  test('takes any k: the GEMM copies single floats and zero-fills a partial last k slice', () => {
    expect(() => gemm.validate([16_384, 768, 770])).not.toThrow();
    expect(() => gemm.validate([9, 33, 37])).not.toThrow();
  });

  test('both variants move the same bytes: the speedup is the throughput ratio', () => {
    const [m, n, k] = [16_384, 3072, 768];
    const bytes = 4 * (m * k + n * k + m * n);
    expect(gemm.traffic([m, n, k])).toEqual({
      unfused: { bytes, launches: 1 },
      fused: { bytes, launches: 1 },
    });
    expect(gemm.flops?.([m, n, k])).toBe(2 * m * n * k);
  });
});
