// ffn (GEMM, bias, GELU, GEMM, bias, add against two GEMMs with bias+GELU and bias+residual epilogues)
// beyond the shared numerics suite: the tolerance catches real defects, the shape rules hold, the models.
import { describe, expect, test } from 'vitest';
import { expectCaught } from '../../suites/support/numerics-check.ts';
import { findCase } from '../registry.ts';

const ffn = await findCase('ffn');

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
    [[16_384, 0, 3072], /^ffn: shape \[16384, 0, 3072\] has h 0/],
    [[16_384, 768, 3072, 1], /has 4 dimensions; expected 3 \(m, h, f\)/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => ffn.validate(dims)).toThrow(message);
  });
});

describe('ffn model', () => {
  test('flops and traffic at the CUDA shape', () => {
    const [m, h, f] = [16_384, 768, 3072];
    expect(ffn.flops?.([m, h, f])).toBe(4 * m * h * f);
    const t = ffn.traffic([m, h, f]);
    expect(t.unfused).toEqual({ bytes: 4 * (7 * m * h + 6 * m * f + 2 * h * f + f + h), launches: 6 });
    expect(t.fused).toEqual({ bytes: 4 * (3 * m * h + 2 * m * f + 2 * h * f + f + h), launches: 2 });
  });
});
