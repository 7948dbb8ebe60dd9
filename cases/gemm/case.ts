/**
 * The GEMM building block on its own, y = x·wᵀ in fp32 (FP32 math, no TF32), at the four GEMM shapes
 * the GPT-2 cases run: cuBLAS SGEMM (the twins' call; the "unfused" column) against fusebench's own
 * GEMM without an epilogue (the "fused" column). Both move the same bytes, so the speedup is cuBLAS's
 * time over the own GEMM's: the own GEMM's share of cuBLAS throughput, gated like every case so a GEMM
 * regression shows here rather than through linear_gelu, layernorm_linear, ffn and the block. CUDA only.
 */

import { seedStream } from '../../src/base/rng.ts';
import { defineCase } from '../../src/case/define.ts';
import { normalArray } from '../../src/case/random.ts';
import { CPU_GEMM_SHAPE, GEMM_TEST_SHAPES } from '../../src/case/shapes.ts';
import { dot, rowOf } from '../../src/reference/linear.ts';
import { referenceSample, rowsReference } from '../../src/reference/sampling.ts';

/** Output rows the reference computes (every element of each). */
const SAMPLED_ROWS = 32;

/** One GPT-2 small GEMM: rows 16,384 (batch 32 × seq 512). */
function gpt2(n: number, k: number, what: string) {
  return {
    dims: { m: 16_384, n, k },
    description: `rows 16,384 (batch 32 × seq 512) × out ${n.toLocaleString('en-US')} × in ${k.toLocaleString('en-US')} (${what})`,
  };
}

export default defineCase<'m' | 'n' | 'k'>({
  title: "GEMM (fusebench's fp32 GEMM against cuBLAS SGEMM)",
  compare: [{ unfused: 'cublas', fused: 'own' }],
  shapes: {
    cuda: [
      gpt2(3072, 768, 'FFN up-projection'),
      gpt2(768, 768, 'attention out-projection'),
      gpt2(768, 3072, 'FFN down-projection'),
      gpt2(2304, 768, 'QKV projection'),
    ],
    // Stated so a CPU run reports the case as skipped with its reason (it runs on CUDA only).
    cpu: [CPU_GEMM_SHAPE],
  },
  testShapes: GEMM_TEST_SHAPES,
  // x ~ N(0, 1); w ~ N(0, 1/√k), so every y has sd 1 whatever k.
  inputs: ({ m, n, k }, seed) => ({
    x: normalArray(m * k, 1, seedStream(seed, 0)),
    w: normalArray(n * k, 1 / Math.sqrt(k), seedStream(seed, 1)),
  }),
  reference: (inputs, { m, n, k }) => {
    const [x, w] = [inputs.x, inputs.w] as [Float32Array, Float32Array];
    const y = rowsReference(m, n, referenceSample(m, SAMPLED_ROWS, n * k), (row) => {
      const a = rowOf(x, row, k);
      const out = new Float64Array(n);
      for (let j = 0; j < n; j++) out[j] = dot(a, 0, w, j * k, k);
      return out;
    });
    return { y };
  },
  // A k-long float32 dot product errs by about 0.64·k·u in the probabilistic bound (linear_gelu.ts):
  // 2.9e-5 at k = 768, 1.2e-4 at k = 3,072. atol 2e-4 covers the longest; both implementations
  // measure far below it (linear_gelu's and ffn's GEMMs at the same k: docs/measurements.md#linear_gelu,
  // docs/measurements.md#ffn). A wrong row or a k slice of 16 left out moves y by ≥ 0.1.
  tolerance: { fp32: { atol: 2e-4, rtol: 1e-5 } },
  // Both read x and w and write y once: the theoretical speedup is 1.00x.
  traffic: ({ m, n, k }, e) => {
    const bytes = e * (m * k + n * k + m * n);
    return { unfused: { bytes, launches: 1 }, fused: { bytes, launches: 1 } };
  },
  flops: ({ m, n, k }) => 2 * m * n * k,
});
