/**
 * Linear + GELU: y = gelu(x·wᵀ + b), x [m, k], w [n, k] (PyTorch's Linear layout), b [n], y [m, n]:
 * the FFN up-projection of a transformer. Two pairings of one native case: fusebench's own GEMM with
 * a bias+GELU epilogue against a cuBLAS GEMM followed by bias and GELU kernels, and cuBLASLt's
 * GELU_BIAS epilogue (the library-fused variant, CUDA only) against the same unfused twin.
 *
 * Also the shape rules the GEMM cases share (layernorm_linear, ffn, transformer_block).
 */
import { normalArray, seedStream } from '../rng.ts';
import { dot, gelu, rowOf, rowsReference, sampleRows } from './reference-math.ts';
import { type CaseDef, checkDims } from './types.ts';

/** The largest dimension the kernels take: the launchers and cuBLAS take them as 32-bit ints. */
export const MAX_DIM = 2 ** 31 - 1;
/** Rows fusebench's GEMM takes: one grid row of blocks per 128 rows, at most 65,535 of them. */
export const MAX_GEMM_ROWS = 65_535 * 128;
/** Elements of one operand: a sampled reference indexes them with 32 bits (2^32 floats are 16 GiB). */
export const MAX_OPERAND_ELEMENTS = 2 ** 32;

/** Throws `caseName: shape [dims] has <what>; <why> (at most <max>)` when value > max. */
export function requireAtMost(caseName: string, dims: number[], value: number, max: number, what: string, why: string) {
  if (value > max) {
    throw new Error(
      `${caseName}: shape [${dims.join(', ')}] has ${what}; ${why} (at most ${max.toLocaleString('en-US')})`,
    );
  }
}

/** Throws unless the GEMM reduction length `value` (named `name`) is a multiple of 4, saying why. */
export function requireMultipleOf4(caseName: string, dims: number[], name: string, value: number, why: string) {
  if (value % 4 !== 0) {
    throw new Error(`${caseName}: shape [${dims.join(', ')}] has ${name} = ${value}, not a multiple of 4; ${why}`);
  }
}

/** Why fusebench's GEMM needs k % 4 == 0. */
export const VECTOR_K_REASON = 'the fused GEMM loads 16-byte vectors (4 floats) along k';

/**
 * The shape rules of a GEMM case: every dimension a 32-bit int, every operand (named, with its element
 * count) within MAX_OPERAND_ELEMENTS, and, when fusebench's GEMM runs it, at most MAX_GEMM_ROWS rows.
 */
export function checkGemmShape(
  caseName: string,
  dims: number[],
  operands: Record<string, number>,
  gemmRows: number | undefined,
) {
  for (const d of dims) requireAtMost(caseName, dims, d, MAX_DIM, `dimension ${d}`, 'the kernels take 32-bit ints');
  for (const [name, elements] of Object.entries(operands)) {
    requireAtMost(
      caseName,
      dims,
      elements,
      MAX_OPERAND_ELEMENTS,
      `${elements} elements in ${name}`,
      'the numerics index an operand with 32 bits',
    );
  }
  if (gemmRows !== undefined) {
    requireAtMost(
      caseName,
      dims,
      gemmRows,
      MAX_GEMM_ROWS,
      `${gemmRows} rows`,
      "fusebench's GEMM grid takes 65,535 tiles of 128 rows",
    );
  }
}

const mnk = (dims: number[]) => ({ m: dims[0] as number, n: dims[1] as number, k: dims[2] as number });

/**
 * Flops and --max-elements size of a GEMM case with dims [m, n, k]: 2·m·n·k, and the largest
 * operand (m·n, m·k or n·k elements), not m·n·k.
 */
export const gemmSizing: Pick<CaseDef, 'flops' | 'elements'> = {
  flops: (dims) => {
    const { m, n, k } = mnk(dims);
    return 2 * m * n * k;
  },
  elements: (dims) => {
    const { m, n, k } = mnk(dims);
    return Math.max(m * n, m * k, n * k);
  },
};

/** Output rows the reference computes (every element of each): 32 × n × k multiply-adds, 75 M at the CUDA shape. */
const SAMPLED_ROWS = 32;

function validate(caseName: string, dims: number[], ownGemm: boolean) {
  checkDims(caseName, dims, 3);
  const { m, n, k } = mnk(dims);
  const why = ownGemm ? VECTOR_K_REASON : `the native linear_gelu case's own fused GEMM loads 16-byte vectors along k`;
  requireMultipleOf4(caseName, dims, 'k', k, why);
  checkGemmShape(caseName, dims, { x: m * k, w: n * k, y: m * n }, ownGemm ? m : undefined);
}

/**
 * The pair both defs share. x ~ N(0, 1) as activations after a LayerNorm; w ~ N(0, 1/√k), so every
 * x·wᵀ has sd 1 whatever k (GELU sees its curved region, not only its linear tails); b ~ N(0, 0.5),
 * large enough that a wrong or missing bias is off by ~0.5.
 */
const shared: Omit<CaseDef, 'name' | 'title' | 'variants' | 'validate'> = {
  sources: [
    'kernels/cuda/linear_gelu.cu',
    'kernels/cuda/gemm.cuh',
    'kernels/cuda/cublas_ops.cu',
    'kernels/cuda/bias_gelu.cu',
    'kernels/cpu/linear_gelu.cc',
    'kernels/cpu/gemm_cpu.cc',
  ],
  params: [],
  shapes: (backend) =>
    backend === 'cuda'
      ? [
          {
            label: '16384x3072x768',
            dims: [16_384, 3072, 768],
            description: 'rows 16,384 (batch 32 × seq 512) × out 3,072 × in 768 (GPT-2 small FFN up-projection)',
          },
        ]
      : [{ label: '256x512x128', dims: [256, 512, 128], description: 'rows 256 × out 512 × in 128' }],
  inputs: (dims, seed) => {
    const { m, n, k } = mnk(dims);
    return {
      x: normalArray(m * k, 1, seedStream(seed, 0)),
      w: normalArray(n * k, 1 / Math.sqrt(k), seedStream(seed, 1)),
      b: normalArray(n, 0.5, seedStream(seed, 2)),
    };
  },
  reference: (inputs, dims) => {
    const { m, n, k } = mnk(dims);
    const x = inputs.x as Float32Array;
    const w = inputs.w as Float32Array;
    const b = inputs.b as Float32Array;
    const y = rowsReference(m, n, sampleRows(m, SAMPLED_ROWS), (row) => {
      const a = rowOf(x, row, k);
      const out = new Float64Array(n);
      for (let j = 0; j < n; j++) out[j] = gelu(dot(a, 0, w, j * k, k) + (b[j] as number));
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
  // evaluates GELU less exactly: ≈ 5e-6 absolute of its own (measured at k = 4). Measured max |error|
  // over the sampled rows: CPU (both variants) 8.2e-7 at [256, 512, 128], 1.5e-6 at k = 768; H200 at
  // the CUDA shape (3 seeds) cuBLAS + bias + GELU 5.3e-6, fusebench's GEMM 5.5e-6, cuBLASLt 7.7e-6;
  // ≤ 1.0e-5 at k = 3,072: ×13 below atol. A real defect is ≥ 1e-2 (the tests plant them): the
  // neighbouring column's bias moves y by ~0.5, a wrong row by ~1, one k slice of 16 left out by ~0.14.
  tolerance: { atol: 1e-4, rtol: 1e-5 },
  traffic: (dims) => {
    const { m, n, k } = mnk(dims);
    const mn = m * n;
    return {
      // GEMM: read x, w; write t. bias: read t, b; write u. GELU: read u; write y.
      unfused: { bytes: 4 * (m * k + n * k + mn + (mn + n + mn) + (mn + mn)), launches: 3 },
      // read x, w, b; write y.
      fused: { bytes: 4 * (m * k + n * k + n + mn), launches: 1 },
    };
  },
  requires: ['cublas'],
  ...gemmSizing,
  // linear_gelu_case.cc: x [m, k], w [n, k], b [n], y, t, u [m, n].
  allocatedBytes: (dims) => {
    const { m, n, k } = mnk(dims);
    return 4 * (m * k + n * k + n + 3 * m * n);
  },
};

export const linearGelu: CaseDef = {
  ...shared,
  name: 'linear_gelu',
  title: 'Linear + GELU',
  variants: { unfused: 'unfused', fused: 'fused' },
  validate: (dims) => validate('linear_gelu', dims, true),
};

/** The same unfused twin against cuBLASLt's fused GELU_BIAS epilogue, which exists only on CUDA. */
export const linearGeluCublasLt: CaseDef = {
  ...shared,
  name: 'linear_gelu_cublaslt',
  nativeCase: 'linear_gelu',
  title: 'Linear + GELU (cuBLASLt epilogue)',
  variants: { unfused: 'unfused', fused: 'cublaslt' },
  backends: ['cuda'],
  // Neither variant runs fusebench's GEMM, so no row limit; k % 4 is the native case's rule for both
  // pairings (linear_gelu.h), kept so the two defs take the same shapes.
  validate: (dims) => validate('linear_gelu_cublaslt', dims, false),
};
