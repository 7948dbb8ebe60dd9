/**
 * Linear + GELU: y = gelu(x·wᵀ + b), x [m, k], w [n, k] (PyTorch's Linear layout), b [n], y [m, n]:
 * the FFN up-projection of a transformer. Two comparisons against one unfused twin (a cuBLAS GEMM
 * followed by bias and GELU kernels): fusebench's own GEMM with a bias+GELU epilogue, and cuBLASLt's
 * GELU_BIAS epilogue (the library-fused variant, CUDA only).
 */

import { seedStream } from '../../src/base/rng.ts';
import { defineCase } from '../../src/case/define.ts';
import { normalArray } from '../../src/case/random.ts';
import { CPU_GEMM_SHAPE, GEMM_TEST_SHAPES } from '../../src/case/shapes.ts';
import { geluTanh } from '../../src/reference/gelu.ts';
import { dot, rowOf } from '../../src/reference/linear.ts';
import { referenceSample, rowsReference } from '../../src/reference/sampling.ts';

/** Output rows the reference computes (every element of each): 32 × n × k multiply-adds, 75 M at the CUDA shape. */
const SAMPLED_ROWS = 32;

export default defineCase<'m' | 'n' | 'k'>({
  title: 'Linear + GELU',
  // fusebench's GEMM is fp32 only: in bf16/fp16 the native 'fused' variant is cuBLASLt's epilogue on
  // tensor cores, and there is no separate library-fused comparison.
  compare: [
    { fused: 'fused' },
    { name: 'linear_gelu_cublaslt', title: 'Linear + GELU (cuBLASLt epilogue)', fused: 'cublaslt', dtypes: ['fp32'] },
  ],
  shapes: {
    cuda: [
      {
        dims: { m: 16_384, n: 3072, k: 768 },
        description: 'rows 16,384 (batch 32 × seq 512) × out 3,072 × in 768 (GPT-2 small FFN up-projection)',
      },
    ],
    cpu: [CPU_GEMM_SHAPE],
  },
  testShapes: GEMM_TEST_SHAPES,
  // x ~ N(0, 1) as activations after a LayerNorm; w ~ N(0, 1/√k), so every x·wᵀ has sd 1 whatever k
  // (GELU sees its curved region, not only its linear tails); b ~ N(0, 0.5), large enough that a wrong
  // or missing bias is off by ~0.5.
  inputs: ({ m, n, k }, seed) => ({
    x: normalArray(m * k, 1, seedStream(seed, 0)),
    w: normalArray(n * k, 1 / Math.sqrt(k), seedStream(seed, 1)),
    b: normalArray(n, 0.5, seedStream(seed, 2)),
  }),
  reference: (inputs, { m, n, k }) => {
    const [x, w, b] = [inputs.x, inputs.w, inputs.b] as [Float32Array, Float32Array, Float32Array];
    const y = rowsReference(m, n, referenceSample(m, SAMPLED_ROWS, n * k), (row) => {
      const a = rowOf(x, row, k);
      const out = new Float64Array(n);
      for (let j = 0; j < n; j++) out[j] = geluTanh(dot(a, 0, w, j * k, k) + (b[j] as number));
      return out;
    });
    return { y };
  },
  // Every y is gelu(z), z = x·w_j + b_j, a k-long float32 dot product. Its rounding error is bounded
  // by about √k·u·Σ_k|x_k·w_jk| in the probabilistic (random-walk) sense, u = 2^−24: Σ|x·w| ≈
  // k·E|x|·E|w| = 0.64·√k, so ≈ 0.64·k·u = 2.9e-5 at k = 768 (fusebench's CUDA GEMM accumulates each
  // output in one FMA chain, the CPU's in four partial sums). gelu' ≤ 1.13 carries that to y; the
  // float32 GELU adds a few ulp of |y| ≲ 6 and ≲ 1e-7 absolute from tanh. The error is absolute (it
  // scales with Σ|x·w|, not |y|), so atol carries it: 1e-4, ×3 the bound. cuBLASLt's GELU epilogue
  // evaluates GELU less exactly, an absolute error of its own even where the GEMM's is tiny; every
  // variant stays well below atol (measured margins: docs/measurements.md#linear_gelu). A real defect
  // is ≥ 1e-2 (the tests plant them): the neighbouring column's bias moves y by ~0.5, a wrong row by
  // ~1, one k slice of 16 left out by ~0.14.
  // bf16/fp16: x, w, b rounded to T, fp32 accumulation, and y rounded (the unfused twin also rounds t
  // and u). The stated atol is a small multiple of the atol the CPU needed beside PyTorch's rtol
  // (measured margins: docs/measurements.md#linear_gelu). A dropped bias (~0.5) or a wrong row stays
  // far outside.
  tolerance: {
    fp32: { atol: 1e-4, rtol: 1e-5 },
    bf16: { atol: 6e-3, rtol: 1.6e-2 },
    fp16: { atol: 8e-4, rtol: 2e-3 },
  },
  traffic: ({ m, n, k }, e) => {
    const mn = m * n;
    return {
      // GEMM: read x, w; write t. bias: read t, b; write u. GELU: read u; write y.
      unfused: { bytes: e * (m * k + n * k + mn + (mn + n + mn) + (mn + mn)), launches: 3 },
      // read x, w, b; write y (both fused variants).
      fused: { bytes: e * (m * k + n * k + n + mn), launches: 1 },
    };
  },
  flops: ({ m, n, k }) => 2 * m * n * k,
});
