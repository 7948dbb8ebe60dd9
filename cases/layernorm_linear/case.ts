/**
 * LayerNorm + Linear: y = LayerNorm(x)·wᵀ + b, LayerNorm over the k features of each row of x [m, k]
 * with γ, β [k]; w [n, k], b [n]: a transformer's pre-LN projection. The unfused twin writes the
 * normalized rows and reads them back; the CUDA fused variant folds γ, β and b into the weights and
 * applies each row's mean and rstd (from a pass over x) in the GEMM's epilogue (kernels/cuda/gemm.cuh
 * has the algebra), the CPU one normalizes a
 * block of rows into cache and multiplies it there. The fold (w' = w·diag(γ), c = Σ_k w', d = b + β·wᵀ)
 * depends on the weights only: the fused variant folds on every call, as training must (the weights
 * change every step); layernorm_linear_prefolded runs the same GEMM on weights folded once beforehand,
 * as inference can, so the two fused times differ by what the fold costs (CUDA, fp32).
 */

import { seedStream } from '../../src/base/rng.ts';
import { defineCase } from '../../src/case/define.ts';
import { normalArray } from '../../src/case/random.ts';
import { CPU_GEMM_SHAPE, GEMM_TEST_SHAPES } from '../../src/case/shapes.ts';
import { linearRow, rowOf } from '../../src/reference/linear.ts';
import { layerNormRow } from '../../src/reference/norms.ts';
import { referenceSample, rowsReference } from '../../src/reference/sampling.ts';

/** Output rows the reference computes: 32 × n × k multiply-adds, 19 M at the CUDA shape. */
const SAMPLED_ROWS = 32;

/** The weight fold in float64 (the math of the GPU's fold, layernorm_prologue): w'_jk = γ_k·w_jk, c_j = Σ_k w'_jk, d_j = b_j + Σ_k β_k·w_jk. */
export function foldLayerNorm(
  w: Float32Array,
  gamma: Float32Array,
  beta: Float32Array,
  b: Float32Array,
  n: number,
  k: number,
) {
  const wFolded = new Float32Array(n * k);
  const colsum = new Float32Array(n);
  const biasFolded = new Float32Array(n);
  for (let j = 0; j < n; j++) {
    let c = 0;
    let d = b[j] as number;
    for (let i = 0; i < k; i++) {
      const wv = w[j * k + i] as number;
      const f = wv * (gamma[i] as number);
      wFolded[j * k + i] = f;
      c += f;
      d += (beta[i] as number) * wv;
    }
    colsum[j] = c;
    biasFolded[j] = d;
  }
  return { wFolded, colsum, biasFolded };
}

export default defineCase<'m' | 'n' | 'k', 'eps'>({
  title: 'LayerNorm + Linear',
  compare: [
    { fused: 'fused' },
    {
      name: 'layernorm_linear_prefolded',
      title: 'LayerNorm + Linear (weights folded once, as at inference)',
      fused: 'prefolded',
      dtypes: ['fp32'],
    },
  ],
  shapes: {
    cuda: [
      {
        dims: { m: 16_384, n: 768, k: 768 },
        description: 'rows 16,384 (batch 32 × seq 512) × out 768 × in 768 (a GPT-2 small pre-LN projection)',
      },
    ],
    cpu: [CPU_GEMM_SHAPE],
  },
  testShapes: GEMM_TEST_SHAPES,
  // x = N(0, 1) + 3: rows whose mean is large against their spread, as a residual stream's can be. The
  // fold's y = rstd·(x·w'ᵀ − mean·c) + d must then cancel x·w'ᵀ ≈ 3·c against mean·c, which only such
  // rows exercise (the statistics pass takes the variance about the mean, in two passes). γ ≈ 1 and β ≈ 0 as
  // in a trained model; w ~ N(0, 1/√k), so the normalized row times w has sd ≈ 1 whatever k; b ~ N(0, 0.5).
  // The prefolded weights are those inputs folded (foldLayerNorm).
  inputs: ({ m, n, k }, seed) => {
    const gamma = normalArray(k, 0.1, seedStream(seed, 1), 1);
    const beta = normalArray(k, 0.1, seedStream(seed, 2));
    const w = normalArray(n * k, 1 / Math.sqrt(k), seedStream(seed, 3));
    const b = normalArray(n, 0.5, seedStream(seed, 4));
    const folded = foldLayerNorm(w, gamma, beta, b, n, k);
    return {
      x: normalArray(m * k, 1, seedStream(seed, 0), 3),
      gamma,
      beta,
      w,
      b,
      w_prefolded: folded.wFolded,
      colsum_prefolded: folded.colsum,
      bias_prefolded: folded.biasFolded,
    };
  },
  reference: (inputs, { m, n, k }, { eps }) => {
    const [x, gamma, beta, w, b] = [inputs.x, inputs.gamma, inputs.beta, inputs.w, inputs.b] as Float32Array[] as [
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
    ];
    const y = rowsReference(m, n, referenceSample(m, SAMPLED_ROWS, n * k), (row) =>
      linearRow(layerNormRow(rowOf(x, row, k), gamma, beta, eps), w, b, n),
    );
    return { y };
  },
  // y = LN(x)·w_j + b_j: a k-long float32 dot product of the normalized row (|LN(x)| ≈ 1) as in
  // linear_gelu, ≈ 0.64·k·u = 2.9e-5 at k = 768 in the probabilistic bound, plus the LayerNorm's own
  // ≲ 1e-6 relative. The CUDA fold computes rstd·(x·w'ᵀ − mean·c) instead: the FMA chain runs over raw
  // x ≈ 3 ± 1, so Σ|x·w'| is ≈ 3.75× larger (≈ 2.4·√k) and the bound ≈ 2.4·k·u = 1.1e-4 at k = 768,
  // before x·w'ᵀ ≈ mean·c cancels. Absolute (it scales with Σ|x·w'|, not |y|), so atol carries it:
  // 2e-4, ×2 that bound. The fold's larger error shows on the GPU (the fused variant errs more than
  // cuBLAS on xn), still well below atol (measured margins: docs/measurements.md#layernorm_linear). A
  // real defect is ≥ 1e-2 (the tests plant them): γ or β left out moves y by ~0.1, a feature left out
  // by ~0.04.
  // bf16/fp16: xn rounded to T before the GEMM (both variants), fp32 accumulation, y rounded (the twin
  // also rounds t). The stated atol is a small multiple of the atol the CPU needed beside the rtol
  // (measured margins: docs/measurements.md#layernorm_linear).
  tolerance: {
    fp32: { atol: 2e-4, rtol: 1e-5 },
    bf16: { atol: 2e-2, rtol: 1.6e-2 },
    fp16: { atol: 3e-3, rtol: 2e-3 },
  },
  traffic: ({ m, n, k }, e, dtype) => {
    const mk = m * k;
    const mn = m * n;
    const nk = n * k;
    return {
      // LayerNorm: read x, γ, β; write xn. GEMM: read xn, w; write t. bias: read t, b; write y.
      unfused: { bytes: e * (mk + 2 * k + mk + (mk + nk + mn) + (mn + n + mn)), launches: 3 },
      // fp32: the weight fold (read w, γ, β, b; write w_folded [n, k], colsum [n], bias_folded [n]) with the
      // row statistics (read x; write mean and rstd [m, 2]) in one launch, and the GEMM (read x, the statistics,
      // w_folded, colsum, bias_folded; write y). bf16/fp16: LayerNorm (read x, γ, β; write xn) and
      // cuBLASLt's GEMM with the bias epilogue (read xn, w, b; write y).
      fused:
        dtype === 'fp32'
          ? { bytes: e * (nk + 2 * k + n + (nk + 2 * n) + (mk + 2 * m) + (mk + 2 * m + nk + 2 * n + mn)), launches: 2 }
          : { bytes: e * (mk + 2 * k + mk + (mk + nk + n + mn)), launches: 2 },
      // The statistics and the GEMM on weights folded beforehand (w_prefolded, colsum, bias_prefolded).
      prefolded: { bytes: e * (mk + 2 * m + (mk + 2 * m + nk + 2 * n + mn)), launches: 2 },
    };
  },
  flops: ({ m, n, k }) => 2 * m * n * k,
});
