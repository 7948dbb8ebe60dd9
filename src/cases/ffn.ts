/**
 * Transformer FFN with its residual: y = x + gelu(x·w1ᵀ + b1)·w2ᵀ + b2, x [m, h], w1 [f, h], b1 [f],
 * w2 [h, f], b2 [h]. Unfused, one launch per op as an eager framework runs it (GEMM, bias, GELU, GEMM,
 * bias, add); fused, two of fusebench's GEMMs with bias+GELU and bias+residual epilogues.
 */
import { normalArray, seedStream } from '../rng.ts';
import { checkGemmShape, requireMultipleOf4, VECTOR_K_REASON } from './linear-gelu.ts';
import { gelu, linearRow, rowOf, rowsReference, sampleRows } from './reference-math.ts';
import { type CaseDef, checkDims } from './types.ts';

const mhf = (dims: number[]) => ({ m: dims[0] as number, h: dims[1] as number, f: dims[2] as number });

/** Output rows the reference computes: 32 × 2·h·f multiply-adds, 151 M at the CUDA shape. */
const SAMPLED_ROWS = 32;

export const ffn: CaseDef = {
  name: 'ffn',
  title: 'FFN (Linear + GELU + Linear + residual)',
  sources: [
    'kernels/cuda/ffn.cu',
    'kernels/cuda/gemm.cuh',
    'kernels/cuda/cublas_ops.cu',
    'kernels/cuda/bias_gelu.cu',
    'kernels/cpu/ffn.cc',
    'kernels/cpu/gemm_cpu.cc',
  ],
  variants: { unfused: 'unfused', fused: 'fused' },
  params: [],
  shapes: (backend) =>
    backend === 'cuda'
      ? [
          {
            label: '16384x768x3072',
            dims: [16_384, 768, 3072],
            description: 'rows 16,384 (batch 32 × seq 512) × hidden 768 × FFN 3,072 (GPT-2 small)',
          },
        ]
      : [{ label: '256x128x512', dims: [256, 128, 512], description: 'rows 256 × hidden 128 × FFN 512' }],
  validate: (dims) => {
    checkDims('ffn', dims, 3);
    const { m, h, f } = mhf(dims);
    // The first GEMM reduces over h, the second over f.
    requireMultipleOf4('ffn', dims, 'h', h, `${VECTOR_K_REASON} (k is h in the first GEMM, f in the second)`);
    requireMultipleOf4('ffn', dims, 'f', f, `${VECTOR_K_REASON} (k is h in the first GEMM, f in the second)`);
    checkGemmShape('ffn', dims, { x: m * h, w1: f * h, g: m * f }, m);
  },
  // x ~ N(0, 1) (the residual stream); w1 ~ N(0, 1/√h) and w2 ~ N(0, 1/√f), so each GEMM's outputs
  // have sd ≈ 1 and ≈ 0.6 whatever the sizes; b1, b2 ~ N(0, 0.5), so a wrong or missing bias shows.
  inputs: (dims, seed) => {
    const { m, h, f } = mhf(dims);
    return {
      x: normalArray(m * h, 1, seedStream(seed, 0)),
      w1: normalArray(f * h, 1 / Math.sqrt(h), seedStream(seed, 1)),
      b1: normalArray(f, 0.5, seedStream(seed, 2)),
      w2: normalArray(h * f, 1 / Math.sqrt(f), seedStream(seed, 3)),
      b2: normalArray(h, 0.5, seedStream(seed, 4)),
    };
  },
  reference: (inputs, dims) => {
    const { m, h, f } = mhf(dims);
    const x = inputs.x as Float32Array;
    const w1 = inputs.w1 as Float32Array;
    const b1 = inputs.b1 as Float32Array;
    const w2 = inputs.w2 as Float32Array;
    const b2 = inputs.b2 as Float32Array;
    const y = rowsReference(m, h, sampleRows(m, SAMPLED_ROWS), (row) => {
      const xr = rowOf(x, row, h);
      const g = linearRow(xr, w1, b1, f).map(gelu);
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
  // carries it: 1e-4, ×1.5 that bound. Measured max |error| over the sampled rows: CPU (both
  // variants) 8.8e-7 at [256, 128, 512], 2.6e-6 at the CUDA widths; H200 (both variants) ≤ 2.0e-6 at
  // small shapes, 7.0e-6 at the CUDA shape (3 seeds): ×14 below atol. A real defect is ≥ 1e-2 (the
  // tests plant them): b2 left out moves y by ~0.5, one FFN unit of 3,072 left out by ~0.02.
  tolerance: { atol: 1e-4, rtol: 1e-5 },
  traffic: (dims) => {
    const { m, h, f } = mhf(dims);
    const mh = m * h;
    const mf = m * f;
    const fh = f * h;
    return {
      // GEMM: read x, w1; write t1. bias: read t1, b1; write u1. GELU: read u1; write g.
      // GEMM: read g, w2; write t2. bias: read t2, b2; write u2. add: read x, u2; write y.
      unfused: {
        bytes: 4 * (mh + fh + mf + (mf + f + mf) + (mf + mf) + (mf + fh + mh) + (mh + h + mh) + (mh + mh + mh)),
        launches: 6,
      },
      // GEMM 1: read x, w1, b1; write g. GEMM 2: read g, w2, b2, x; write y.
      fused: { bytes: 4 * (mh + fh + f + mf + (mf + fh + h + mh + mh)), launches: 2 },
    };
  },
  requires: ['cublas'],
  flops: (dims) => {
    const { m, h, f } = mhf(dims);
    return 4 * m * h * f;
  },
  // The largest buffer ([m, f]: g and the unfused twin's t1, u1), not m·h·f.
  elements: (dims) => {
    const { m, h, f } = mhf(dims);
    return Math.max(m * f, m * h, f * h);
  },
  // ffn_case.cc: x, y, t2, u2 [m, h]; w1, w2 [f·h]; b1 [f]; b2 [h]; g, t1, u1 [m, f].
  allocatedBytes: (dims) => {
    const { m, h, f } = mhf(dims);
    return 4 * (4 * m * h + 2 * f * h + f + h + 3 * m * f);
  },
};
