// linear_gelu (fusebench's GEMM with a bias+GELU epilogue) and linear_gelu_cublaslt (cuBLASLt's GELU_BIAS
// epilogue, CUDA only) beyond the shared numerics suite: the sampled reference is the full one, the
// tolerance catches real defects, the shape rules hold, and the models.
import { describe, expect, test } from 'vitest';
import type { SampledReference } from '../../src/case/types.ts';
import { geluTanh } from '../../src/reference/gelu.ts';
import { sampleRows } from '../../src/reference/sampling.ts';
import { backendsFor, expectCaught } from '../../suites/support/numerics-check.ts';
import { findCase } from '../registry.ts';

const linearGelu = await findCase('linear_gelu');
const linearGeluCublasLt = await findCase('linear_gelu_cublaslt');

test('linear_gelu_cublaslt never runs on the CPU (cuBLASLt is its fused variant)', () => {
  expect(linearGeluCublasLt.unavailableReason('cpu')).toMatch(/runs on cuda only/);
  expect(backendsFor(linearGeluCublasLt)).not.toContain('cpu');
  expect(linearGeluCublasLt.variants).toEqual({ unfused: 'unfused', fused: 'cublaslt' });
});
test('the sampled reference is the full float64 computation at the sampled rows', () => {
  // Rows × n × k past REFERENCE_WORK (2^26 multiply-adds), so the reference samples 32 rows.
  const dims = [4097, 128, 128];
  const [m, n, k] = dims as [number, number, number];
  const inputs = linearGelu.inputs(dims, 12_345);
  const ref = linearGelu.reference(inputs, dims).y as SampledReference;
  expect(ref).not.toBeInstanceOf(Float64Array);
  expect(ref.note).toBe('32 of 4,097 rows');
  const rows = sampleRows(m, 32);
  expect(Array.from(ref.indices)).toEqual(rows.flatMap((r) => Array.from({ length: n }, (_, j) => r * n + j)));
  // Naive, written out here independently of reference-math.
  const [x, w, b] = [inputs.x, inputs.w, inputs.b] as [Float32Array, Float32Array, Float32Array];
  const full = new Float64Array(m * n);
  for (const i of rows)
    for (let j = 0; j < n; j++) {
      let z = b[j] as number;
      for (let kk = 0; kk < k; kk++) z += (x[i * k + kk] as number) * (w[j * k + kk] as number);
      full[i * n + j] = geluTanh(z);
    }
  for (const [i, index] of ref.indices.entries()) {
    expect(Math.abs((ref.values[i] as number) - (full[index] as number))).toBeLessThan(1e-12);
  }
  // When every row is sampled the reference is the whole output.
  const small = [20, 24, 20];
  expect(linearGelu.reference(linearGelu.inputs(small, 1), small).y).toBeInstanceOf(Float64Array);
});

describe('linear_gelu tolerance catches real defects (CPU kernels against a defective reference)', () => {
  const dims = [48, 64, 768]; // k of the CUDA shape: the smallest defects relative to the rounding
  test('the bias of the neighbouring column', () => {
    expectCaught(linearGelu, dims, (inputs) => {
      const b = inputs.b as Float32Array;
      b.set([...b.subarray(1), b[0] as number]);
    });
  });
  test('a row of x dropped from the product', () => {
    expectCaught(linearGelu, dims, (inputs) => (inputs.x as Float32Array).fill(0, 47 * 768, 48 * 768));
  });
  test('the last k-slice of 16 left out', () => {
    expectCaught(linearGelu, dims, (inputs) => {
      const x = inputs.x as Float32Array;
      for (let row = 0; row < 48; row++) x.fill(0, row * 768 + 752, (row + 1) * 768);
    });
  });
});

describe('linear_gelu shape validation', () => {
  test.each([
    [[16_384, 0, 768], /^linear_gelu: shape \[16384, 0, 768\] has n 0; every dimension must be a positive integer$/],
    [[16_384, 3072], /shape \[16384, 3072\] has 2 dimensions; expected 3 \(m, n, k\)/],
    [[2 ** 31, 1, 4], /breaks the limit every dimension < 2\^31: the launchers and cuBLAS take 32-bit ints/],
    [[8_388_481, 1, 4], /breaks the limit m <= 8,388,480: fusebench's GEMM grid takes 65,535 tiles of 128 rows/],
    [
      [2 ** 22, 2 ** 11, 4],
      /has 8589934592 elements in y; the numerics hold a buffer in a JS typed array indexed with 32 bits/,
    ],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => linearGelu.validate(dims)).toThrow(message);
  });

  test('linear_gelu_cublaslt takes the limits of the native case it shares, under its own name', () => {
    expect(() => linearGeluCublasLt.validate([8_388_481, 1, 4])).toThrow(
      /^linear_gelu_cublaslt: shape \[8388481, 1, 4\] \(m 8388481, n 1, k 4\) breaks the limit m <= 8,388,480/,
    );
  });
});

describe('linear_gelu model', () => {
  test('elements is the largest buffer', () => {
    expect(linearGelu.elements([5, 7, 12])).toBe(7 * 12); // w [n, k]
    expect(linearGelu.elements([16_384, 3072, 768])).toBe(16_384 * 3072);
  });

  test('flops and traffic at the CUDA shape', () => {
    const dims = [16_384, 3072, 768];
    expect(linearGelu.flops?.(dims)).toBe(2 * 16_384 * 3072 * 768);
    const t = linearGelu.traffic(dims);
    const mn = 16_384 * 3072;
    const inputs = 16_384 * 768 + 3072 * 768;
    expect(t.unfused).toEqual({ bytes: 4 * (inputs + 5 * mn + 3072), launches: 3 });
    expect(t.fused).toEqual({ bytes: 4 * (inputs + mn + 3072), launches: 1 });
    expect(linearGeluCublasLt.traffic(dims)).toEqual(t);
  });
});
