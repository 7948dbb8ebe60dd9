// Numerics of linear_gelu (fusebench's GEMM with a bias+GELU epilogue against cuBLAS + bias + GELU)
// and linear_gelu_cublaslt (cuBLASLt's GELU_BIAS epilogue, CUDA only) on every backend at hand that
// can run them, at small awkward shapes: a single output, sizes that are no multiple of the tiles,
// rows and columns that cross the CUDA GEMM's 128×128 tiles and the CPU GEMM's 4×4 ones, k that
// crosses the CUDA GEMM's k slices of 16; and that the sampled reference is the full one, the
// tolerance catches real defects, and the shape rules hold.
import { describe, expect, test } from 'vitest';
import { geluTanh } from '../../src/cases/gelu-scale.ts';
import { linearGelu, linearGeluCublasLt } from '../../src/cases/linear-gelu.ts';
import { sampleRows } from '../../src/cases/reference-math.ts';
import type { SampledReference } from '../../src/cases/types.ts';
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

describe.each(backendsFor(linearGelu))('linear_gelu on %s', (backend) => {
  test.each(shapes)('both variants match the float64 reference at [%i, %i, %i]', (m, n, k) => {
    checkBothVariants(linearGelu, backend, [m, n, k]);
  });
});

describe.each(backendsFor(linearGeluCublasLt))('linear_gelu_cublaslt on %s', (backend) => {
  test.each(shapes)('both variants match the float64 reference at [%i, %i, %i]', (m, n, k) => {
    checkBothVariants(linearGeluCublasLt, backend, [m, n, k]);
  });
});

test('linear_gelu_cublaslt never runs on the CPU (cuBLASLt is its fused variant)', () => {
  expect(linearGeluCublasLt.backends).toEqual(['cuda']);
  expect(backendsFor(linearGeluCublasLt)).not.toContain('cpu');
});

test('the sampled reference is the full float64 computation at the sampled rows', () => {
  const dims = [40, 24, 20];
  const [m, n, k] = dims as [number, number, number];
  const inputs = linearGelu.inputs(dims, 12_345);
  const ref = linearGelu.reference(inputs, dims).y as SampledReference;
  expect(ref).not.toBeInstanceOf(Float64Array);
  expect(ref.note).toBe('32 of 40 rows');
  const rows = sampleRows(m, 32);
  expect(Array.from(ref.indices)).toEqual(rows.flatMap((r) => Array.from({ length: n }, (_, j) => r * n + j)));
  // Naive, written out here independently of reference-math.
  const [x, w, b] = [inputs.x, inputs.w, inputs.b] as [Float32Array, Float32Array, Float32Array];
  const full = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
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

describe('sampleRows', () => {
  test('every row when there are no more rows than the count', () => {
    expect(sampleRows(1, 32)).toEqual([0]);
    expect(sampleRows(10, 32)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(sampleRows(32, 32)).toHaveLength(32);
  });

  test.each([33, 40, 130, 1000, 16_384, 196_608])(
    '%i rows: count distinct sorted rows with the first and last, spread over tiles',
    (rows) => {
      const picked = sampleRows(rows, 32);
      expect(picked).toHaveLength(32);
      expect(picked[0]).toBe(0);
      expect(picked[31]).toBe(rows - 1);
      for (let i = 1; i < picked.length; i++) {
        const gap = (picked[i] as number) - (picked[i - 1] as number);
        expect(gap).toBeGreaterThan(0);
        expect(gap).toBeLessThanOrEqual(2 * Math.ceil((rows - 2) / 30) + 1);
      }
      expect(sampleRows(rows, 32)).toEqual(picked); // deterministic
      if (rows >= 16_384) expect(new Set(picked.map((r) => r % 128)).size).toBeGreaterThan(16); // not one stride
    },
  );

  test('refuses a count below 2', () => {
    expect(() => sampleRows(100, 1)).toThrow(/count must be at least 2/);
  });
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
    [
      [5, 7, 6],
      /^linear_gelu: shape \[5, 7, 6\] has k = 6, not a multiple of 4; the fused GEMM loads 16-byte vectors \(4 floats\) along k$/,
    ],
    [
      [16_384, 0, 768],
      /^linear_gelu: shape \[16384, 0, 768\] has dimension 0; every dimension must be a positive integer$/,
    ],
    [[16_384, 3072], /shape \[16384, 3072\] has 2 dimensions; expected 3/],
    [[2 ** 31, 1, 4], /has dimension 2147483648; the kernels take 32-bit ints \(at most 2,147,483,647\)/],
    [[8_388_481, 1, 4], /has 8388481 rows; fusebench's GEMM grid takes 65,535 tiles of 128 rows \(at most 8,388,480\)/],
    [[2 ** 22, 2 ** 11, 4], /has 8589934592 elements in y; the numerics index an operand with 32 bits/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => linearGelu.validate(dims)).toThrow(message);
  });

  test('linear_gelu_cublaslt keeps the native case rule k % 4 == 0 but has no GEMM row limit', () => {
    expect(() => linearGeluCublasLt.validate([5, 7, 6])).toThrow(
      /^linear_gelu_cublaslt: shape \[5, 7, 6\] has k = 6, not a multiple of 4; the native linear_gelu case's own fused GEMM/,
    );
    expect(() => linearGeluCublasLt.validate([8_388_481, 1, 4])).not.toThrow();
  });
});

describe('linear_gelu model', () => {
  test('allocatedBytes is 4 bytes per float of the native buffers; elements the largest buffer', () => {
    const dims = [5, 7, 12];
    const ws = new Workspace('cpu', 'linear_gelu', dims, [], undefined);
    try {
      const floats = ws.buffers().reduce((s, b) => s + b.count, 0);
      expect(linearGelu.allocatedBytes?.(dims)).toBe(4 * floats);
      expect(linearGelu.elements?.(dims)).toBe(Math.max(...ws.buffers().map((b) => b.count)));
    } finally {
      ws.dispose();
    }
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
