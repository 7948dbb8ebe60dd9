/**
 * Transformer FFN with its residual: y = x + gelu(x·w1ᵀ + b1)·w2ᵀ + b2, x [m, h], w1 [f, h], b1 [f],
 * w2 [h, f], b2 [h]. Unfused, one launch per op as an eager framework runs it (GEMM, bias, GELU, GEMM,
 * bias, add). Two comparisons against that twin in fp32: fusebench's own GEMMs with bias+GELU and
 * bias+residual epilogues, and cuBLASLt's GELU_BIAS and BIAS (β = 1 on the residual) epilogues (the
 * library-fused variant, CUDA only). In bf16/fp16 the fused variant is the cuBLASLt one.
 */

import { seedStream } from '../../src/base/rng.ts';
import { defineCase } from '../../src/case/define.ts';
import { normalArray } from '../../src/case/random.ts';
import { geluTanh } from '../../src/reference/gelu.ts';
import { linearRow, rowOf } from '../../src/reference/linear.ts';
import { referenceSample, rowsReference } from '../../src/reference/sampling.ts';

/** Output rows the reference computes: 32 × 2·h·f multiply-adds, 151 M at the CUDA shape. */
const SAMPLED_ROWS = 32;

export default defineCase<'m' | 'h' | 'f'>({
  title: 'FFN (Linear + GELU + Linear + residual)',
  // fusebench's GEMM is fp32 only: in bf16/fp16 the native 'fused' variant is cuBLASLt's epilogues on
  // tensor cores, and there is no separate library-fused comparison.
  compare: [
    { fused: 'fused' },
    { name: 'ffn_cublaslt', title: 'FFN (cuBLASLt epilogues)', fused: 'cublaslt', dtypes: ['fp32'] },
  ],
  shapes: {
    cuda: [
      {
        dims: { m: 16_384, h: 768, f: 3072 },
        description: 'rows 16,384 (batch 32 × seq 512) × hidden 768 × FFN 3,072 (GPT-2 small)',
      },
    ],
    cpu: [{ dims: { m: 256, h: 128, f: 512 }, description: 'rows 256 × hidden 128 × FFN 512' }],
  },
  // A single row, sizes no multiple of the tiles, rows and both GEMMs' columns crossing the CUDA GEMM's
  // 128×128 tiles, both k crossing its k slices of 16; an odd hidden size (the first GEMM's k).
  testShapes: [
    { m: 1, h: 4, f: 4 },
    { m: 5, h: 12, f: 20 },
    { m: 3, h: 132, f: 36 },
    { m: 130, h: 68, f: 132 },
    { m: 64, h: 128, f: 512 },
    { m: 7, h: 37, f: 22 },
  ],
  // x ~ N(0, 1) (the residual stream); w1 ~ N(0, 1/√h) and w2 ~ N(0, 1/√f), so each GEMM's outputs
  // have sd ≈ 1 and ≈ 0.6 whatever the sizes; b1, b2 ~ N(0, 0.5), so a wrong or missing bias shows.
  inputs: ({ m, h, f }, seed) => ({
    x: normalArray(m * h, 1, seedStream(seed, 0)),
    w1: normalArray(f * h, 1 / Math.sqrt(h), seedStream(seed, 1)),
    b1: normalArray(f, 0.5, seedStream(seed, 2)),
    w2: normalArray(h * f, 1 / Math.sqrt(f), seedStream(seed, 3)),
    b2: normalArray(h, 0.5, seedStream(seed, 4)),
  }),
  reference: (inputs, { m, h, f }) => {
    const [x, w1, b1, w2, b2] = [inputs.x, inputs.w1, inputs.b1, inputs.w2, inputs.b2] as Float32Array[] as [
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
    ];
    const y = rowsReference(m, h, referenceSample(m, SAMPLED_ROWS, 2 * h * f), (row) => {
      const xr = rowOf(x, row, h);
      const g = linearRow(xr, w1, b1, f).map(geluTanh);
      const out = linearRow(g, w2, b2, h);
      for (let j = 0; j < h; j++) out[j] = (xr[j] as number) + (out[j] as number);
      return out;
    });
    return { y };
  },
  // y = x + g·w2ᵀ + b2 with g = gelu(x·w1ᵀ + b1): the second GEMM dominates, an f-long float32 dot
  // product with Σ|g·w2| ≈ f·E|g|·E|w2| ≈ 0.36·√f, ≈ 0.36·f·u = 6.5e-5 at f = 3,072 in the
  // probabilistic bound (as linear_gelu's); the first GEMM's error (≲ 3e-5 at h = 768) enters through
  // w2 averaged down by √f, and the residual add costs an ulp of |y| ≲ 7 (rtol). Absolute, so atol
  // carries it: 1e-4, ×1.5 that bound, well above the errors measured on the CPU and the GPU (measured
  // margins: docs/measurements.md#ffn). A real defect is ≥ 1e-2 (the tests plant them): b2 left out
  // moves y by ~0.5, one FFN unit of 3,072 left out by ~0.02.
  // bf16/fp16: inputs rounded to T, fp32 accumulation, g and y rounded (the twin also rounds t1, u1, t2
  // and u2), and g's rounding carried through the second GEMM's 3,072-term sums. The stated atol is a
  // small multiple of the atol the CPU needed beside the rtol (measured margins: docs/measurements.md#ffn).
  tolerance: {
    fp32: { atol: 1e-4, rtol: 1e-5 },
    bf16: { atol: 3e-2, rtol: 1.6e-2 },
    fp16: { atol: 4e-3, rtol: 2e-3 },
  },
  traffic: ({ m, h, f }, e) => {
    const mh = m * h;
    const mf = m * f;
    const fh = f * h;
    return {
      // GEMM: read x, w1; write t1. bias: read t1, b1; write u1. GELU: read u1; write g.
      // GEMM: read g, w2; write t2. bias: read t2, b2; write u2. add: read x, u2; write y.
      unfused: {
        bytes: e * (mh + fh + mf + (mf + f + mf) + (mf + mf) + (mf + fh + mh) + (mh + h + mh) + (mh + mh + mh)),
        launches: 6,
      },
      // GEMM 1: read x, w1, b1; write g. GEMM 2: read g, w2, b2, x; write y.
      fused: { bytes: e * (mh + fh + f + mf + (mf + fh + h + mh + mh)), launches: 2 },
    };
  },
  flops: ({ m, h, f }) => 4 * m * h * f,
});
