// Numerics of ffn (GEMM, bias, GELU, GEMM, bias, add against two GEMMs with bias+GELU and
// bias+residual epilogues) on every backend at hand, at small awkward shapes: a single row, sizes no
// multiple of the tiles, rows and both GEMMs' columns crossing the CUDA GEMM's 128×128 tiles, both k
// crossing its k slices of 16; and that the tolerance catches real defects, and the shape rules hold.
import { describe, expect, test } from 'vitest';
import { ffn } from '../../src/cases/ffn.ts';
import { Workspace } from '../../src/native.ts';
import { backendsFor, checkBothVariants, expectCaught } from './numerics-check.ts';

const shapes: [number, number, number][] = [
  [1, 4, 4],
  [5, 12, 20],
  [3, 132, 36],
  [130, 68, 132],
  [64, 128, 512],
];

describe.each(backendsFor(ffn))('ffn on %s', (backend) => {
  test.each(shapes)('both variants match the float64 reference at [%i, %i, %i]', (m, h, f) => {
    checkBothVariants(ffn, backend, [m, h, f]);
  });
});


describe('ffn tolerance catches real defects (CPU kernels against a defective reference)', () => {
  const dims = [40, 768, 3072]; // the CUDA shape's widths: the most rounding
  test('b2 left out', () => {
    expectCaught(ffn, dims, (inputs) => (inputs.b2 as Float32Array).fill(0));
  });
  test('one FFN unit left out (b1 far negative: GELU ≈ 0)', () => {
    expectCaught(ffn, dims, (inputs) => {
      (inputs.b1 as Float32Array)[3071] = -1e4;
    });
  });
});

describe('ffn shape validation', () => {
  test.each([
    [
      [16_384, 770, 3072],
      /^ffn: shape \[16384, 770, 3072\] has h = 770, not a multiple of 4; the fused GEMM loads 16-byte vectors \(4 floats\) along k \(k is h in the first GEMM, f in the second\)$/,
    ],
    [[16_384, 768, 3070], /^ffn: shape \[16384, 768, 3070\] has f = 3070, not a multiple of 4/],
    [[16_384, 0, 3072], /^ffn: shape \[16384, 0, 3072\] has dimension 0/],
    [[16_384, 768, 3072, 1], /has 4 dimensions; expected 3/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => ffn.validate(dims)).toThrow(message);
  });
});

describe('ffn model', () => {
  test('allocatedBytes is 4 bytes per float of the native buffers; elements the largest buffer', () => {
    const dims = [5, 12, 20];
    const ws = new Workspace('cpu', 'ffn', dims, [], undefined);
    try {
      expect(ffn.allocatedBytes?.(dims)).toBe(4 * ws.buffers().reduce((s, b) => s + b.count, 0));
      expect(ffn.elements?.(dims)).toBe(Math.max(...ws.buffers().map((b) => b.count)));
    } finally {
      ws.dispose();
    }
  });

  test('flops and traffic at the CUDA shape', () => {
    const [m, h, f] = [16_384, 768, 3072];
    expect(ffn.flops?.([m, h, f])).toBe(4 * m * h * f);
    const t = ffn.traffic([m, h, f]);
    expect(t.unfused).toEqual({ bytes: 4 * (7 * m * h + 6 * m * f + 2 * h * f + f + h), launches: 6 });
    expect(t.fused).toEqual({ bytes: 4 * (3 * m * h + 2 * m * f + 2 * h * f + f + h), launches: 2 });
  });
});
