/**
 * LayerNorm + Linear: y = LayerNorm(x)·wᵀ + b, LayerNorm over the k features of each row of x [m, k]
 * with γ, β [k]; w [n, k], b [n]: a transformer's pre-LN projection. The unfused twin writes the
 * normalized rows and reads them back; the CUDA fused variant folds γ, β and b into the weights and
 * the row statistics into the GEMM (kernels/cuda/gemm.cuh has the algebra), the CPU one normalizes a
 * block of rows into cache and multiplies it there.
 */
import { normalArray, seedStream } from '../rng.ts';
import { checkGemmShape, requireAtMost, requireMultipleOf4, VECTOR_K_REASON } from './linear-gelu.ts';
import { layerNormRow, linearRow, rowOf, rowsReference, sampleRows } from './reference-math.ts';
import { LAYERNORM_EPS } from './residual-layernorm.ts';
import { type CaseDef, checkDims } from './types.ts';

const mnk = (dims: number[]) => ({ m: dims[0] as number, n: dims[1] as number, k: dims[2] as number });

/** Longest row the unfused twin's CUDA LayerNorm kernel takes (residual_layernorm.cu). */
const MAX_FEATURES = 2 ** 30;
/** Output rows the reference computes: 32 × n × k multiply-adds, 19 M at the CUDA shape. */
const SAMPLED_ROWS = 32;

function shifted(values: Float32Array, by: number): Float32Array {
  for (let i = 0; i < values.length; i++) values[i] = (values[i] as number) + by;
  return values;
}

export const layerNormLinear: CaseDef = {
  name: 'layernorm_linear',
  title: 'LayerNorm + Linear',
  sources: [
    'kernels/cuda/layernorm_linear.cu',
    'kernels/cuda/layernorm_fold.cu',
    'kernels/cuda/gemm.cuh',
    'kernels/cuda/cublas_ops.cu',
    'kernels/cuda/residual_layernorm.cu',
    'kernels/cuda/bias_gelu.cu',
    'kernels/cpu/layernorm_linear.cc',
    'kernels/cpu/gemm_cpu.cc',
  ],
  variants: { unfused: 'unfused', fused: 'fused' },
  params: [LAYERNORM_EPS],
  shapes: (backend) =>
    backend === 'cuda'
      ? [
          {
            label: '16384x768x768',
            dims: [16_384, 768, 768],
            description: 'rows 16,384 (batch 32 × seq 512) × out 768 × in 768 (a GPT-2 small pre-LN projection)',
          },
        ]
      : [{ label: '256x512x128', dims: [256, 512, 128], description: 'rows 256 × out 512 × in 128' }],
  validate: (dims) => {
    checkDims('layernorm_linear', dims, 3);
    const { m, n, k } = mnk(dims);
    requireMultipleOf4('layernorm_linear', dims, 'k', k, VECTOR_K_REASON);
    requireAtMost('layernorm_linear', dims, k, MAX_FEATURES, `k ${k}`, "the CUDA LayerNorm kernel's row index is 32-bit");
    checkGemmShape('layernorm_linear', dims, { x: m * k, w: n * k, y: m * n }, m);
  },
  // x = N(0, 1) + 3: rows whose mean is large against their spread. The CUDA fused GEMM takes each
  // row's variance in one pass, E[(x − s)²] − E[x − s]², shifted by the row's first element s; without
  // the shift it would cancel catastrophically here, so the offset exercises it (and the fold's
  // y = rstd·(x·w'ᵀ − mean·c) + d, where x·w'ᵀ ≈ 3·c must cancel against mean·c). γ ≈ 1 and β ≈ 0 as
  // in a trained model; w ~ N(0, 1/√k), so the normalized row times w has sd ≈ 1 whatever k; b ~ N(0, 0.5).
  inputs: (dims, seed) => {
    const { m, n, k } = mnk(dims);
    return {
      x: shifted(normalArray(m * k, 1, seedStream(seed, 0)), 3),
      gamma: shifted(normalArray(k, 0.1, seedStream(seed, 1)), 1),
      beta: normalArray(k, 0.1, seedStream(seed, 2)),
      w: normalArray(n * k, 1 / Math.sqrt(k), seedStream(seed, 3)),
      b: normalArray(n, 0.5, seedStream(seed, 4)),
    };
  },
  reference: (inputs, dims) => {
    const { m, n, k } = mnk(dims);
    const x = inputs.x as Float32Array;
    const gamma = inputs.gamma as Float32Array;
    const beta = inputs.beta as Float32Array;
    const w = inputs.w as Float32Array;
    const b = inputs.b as Float32Array;
    const y = rowsReference(m, n, sampleRows(m, SAMPLED_ROWS), (row) =>
      linearRow(layerNormRow(rowOf(x, row, k), gamma, beta), w, b, n),
    );
    return { y };
  },
  // TOLERANCE
  tolerance: { atol: 1e-4, rtol: 1e-5 },
  traffic: (dims) => {
    const { m, n, k } = mnk(dims);
    const mk = m * k;
    const mn = m * n;
    const nk = n * k;
    return {
      // LayerNorm: read x, γ, β; write xn. GEMM: read xn, w; write t. bias: read t, b; write y.
      unfused: { bytes: 4 * (mk + 2 * k + mk + (mk + nk + mn) + (mn + n + mn)), launches: 3 },
      // Weight fold: read w, γ, β, b; write w_folded [n, k], colsum [n], bias_folded [n].
      // GEMM: read x, w_folded, colsum, bias_folded; write y.
      fused: { bytes: 4 * (nk + 2 * k + n + (nk + 2 * n) + (mk + nk + 2 * n + mn)), launches: 2 },
    };
  },
  requires: ['cublas'],
  flops: (dims) => {
    const { m, n, k } = mnk(dims);
    return 2 * m * n * k;
  },
  // The largest buffer, not m·n·k.
  elements: (dims) => {
    const { m, n, k } = mnk(dims);
    return Math.max(m * n, m * k, n * k);
  },
  // layernorm_linear_case.cc: x, xn [m, k]; γ, β [k]; w, w_folded [n, k]; b, colsum, bias_folded [n]; y, t [m, n].
  allocatedBytes: (dims) => {
    const { m, n, k } = mnk(dims);
    return 4 * (2 * m * k + 2 * k + 2 * n * k + 3 * n + 2 * m * n);
  },
};
