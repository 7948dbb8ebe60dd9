/**
 * Causal self-attention, O = softmax(Q·Kᵀ/√64 + causal mask)·V, Q/K/V/O [batch, heads, seq, 64], and
 * its GPT-2 companion y = LayerNorm(x + merge_heads(O)) (merge_heads puts head h's 64 values of a
 * position at columns h·64 .. of a [batch, seq, heads·64] row). The unfused twin materializes the
 * seq×seq scores (a batched GEMM, the unfused scale, mask and softmax kernels, a batched GEMM); the
 * fused variant is a flash-style kernel whose scores never leave the block.
 */
import { normalArray, seedStream } from '../rng.ts';
import { MAX_OPERAND_ELEMENTS, requireAtMost } from './linear-gelu.ts';
import {
  causalAttentionFlops,
  causalAttentionRow,
  HEAD_DIM,
  type HeadRows,
  layerNormRow,
  rowsReference,
  sampleRows,
} from './reference-math.ts';
import { LAYERNORM_EPS } from './residual-layernorm.ts';
import { type CaseDef, checkDims, type Shape } from './types.ts';

/** Longest sequence the cases take: the unfused twin's seq×seq scores are 1 GiB per (batch, head) there. */
export const MAX_SEQ = 16_384;

const shapeOf = (dims: number[]) => {
  const [batch, heads, seq] = dims as [number, number, number, number];
  return { batch, heads, seq, qkv: batch * heads * seq * HEAD_DIM, scores: batch * heads * seq * seq };
};

/** The shape rules both attention cases share. */
export function checkAttentionShape(caseName: string, dims: number[]) {
  checkDims(caseName, dims, 4);
  const d = dims[3] as number;
  if (d !== HEAD_DIM) {
    throw new Error(
      `${caseName}: shape [${dims.join(', ')}] has head dimension ${d}; the flash kernel's tiles are 64 wide, ` +
        'so it must be 64',
    );
  }
  const { seq, qkv } = shapeOf(dims);
  requireAtMost(caseName, dims, seq, MAX_SEQ, `seq ${seq}`, 'the unfused twin materializes seq×seq scores per head');
  requireAtMost(
    caseName,
    dims,
    qkv,
    MAX_OPERAND_ELEMENTS,
    `${qkv} elements in q`,
    'the numerics index an operand with 32 bits',
  );
}

const cudaShape: Shape = {
  label: '32x12x512x64',
  dims: [32, 12, 512, 64],
  description: 'batch 32 × 12 heads × seq 512 × head 64 (GPT-2 small attention)',
};

/** Q, K, V ~ N(0, 1): q·k over 64 dims has sd 8, so after the 1/√64 scale the logits have sd 1. */
function attentionInputs(dims: number[], seed: number): Record<string, Float32Array> {
  const { qkv } = shapeOf(dims);
  return {
    q: normalArray(qkv, 1, seedStream(seed, 0)),
    k: normalArray(qkv, 1, seedStream(seed, 1)),
    v: normalArray(qkv, 1, seedStream(seed, 2)),
  };
}

/** The [seq, 64] rows of head (b, h) of a contiguous [batch, heads, seq, 64] tensor. */
function headOf(data: Float32Array, dims: number[], b: number, h: number): HeadRows {
  const { heads, seq } = shapeOf(dims);
  return { data, base: (b * heads + h) * seq * HEAD_DIM, stride: HEAD_DIM };
}

/** Useful flops of causal attention: Q·Kᵀ and P·V over unmasked pairs only (see `attention.flops`). */
const attentionFlops = (dims: number[]) => {
  const { batch, heads, seq } = shapeOf(dims);
  return batch * heads * causalAttentionFlops(seq);
};

/** The four native buffers of the attention: q, k, v, o, and the unfused twin's four seq×seq scratch buffers. */
const attentionFloats = (dims: number[]) => {
  const { qkv, scores } = shapeOf(dims);
  return 4 * qkv + 4 * scores;
};

/** Unfused attention traffic: Q·Kᵀ GEMM, scale, mask, softmax (each a full pass), P·V GEMM. */
const unfusedAttentionFloats = (dims: number[]) => {
  const { qkv, scores } = shapeOf(dims);
  // GEMM: read q, k; write scores. scale, mask, softmax: read and write [seq, seq] each. GEMM: read p, v; write o.
  return 2 * qkv + scores + 3 * (2 * scores) + (scores + qkv + qkv);
};

/** Output rows of O the reference computes, (batch, head, position) flattened. */
const SAMPLED_ATTENTION_ROWS = 64;
/** Output rows of y the reference computes, (batch, position) flattened: each needs every head. */
const SAMPLED_LAYERNORM_ROWS = 32;

// o is a convex combination of V rows, |o| ≤ max|v| ≈ 4.5. Its errors: each logit q·k/8 (64
// products, ≈ √64·u·Σ|q·k|/8 ≈ 3e-7 in the probabilistic bound) moves its p by that relative, the
// exponentials add ≤ 2 ulp of p, the normalizing sum ≲ √seq·u relative, and the P·V sum rounds in
// seq steps of partial sums ≲ |o|: ≈ √seq·u·|o| ≈ 6e-6 at seq 512 in the same bound, more for the
// longer sequences the case takes. Absolute (it scales with the v values summed, not |o|), so atol
// carries it: 2e-5. Measured max |error| over the sampled rows: CPU (both variants) 4.0e-7 at
// [1, 2, 128, 64] and 6.6e-7 at the CUDA shape; H200 (both variants) ≤ 7.9e-7 at small shapes and
// seq 4,096, unfused 3.7e-7 and fused 5.3e-7 at the CUDA shape (3 seeds): ×25 below atol. A real defect is ≥ 1e-3 (the tests
// plant them): a causal mask off by one moves o by ≈ |v_{i+1} − o|/(i + 2), ~4e-3 at seq 300; a score
// scale 1% off by ~1e-2.
const attentionTolerance = { atol: 2e-5, rtol: 1e-5 };

export const attention: CaseDef = {
  name: 'attention',
  title: 'Causal attention (flash)',
  sources: [
    'kernels/cuda/attention.cu',
    'kernels/cuda/flash_attention.cuh',
    'kernels/cuda/cublas_ops.cu',
    'kernels/cuda/scale_mask_softmax.cu',
    'kernels/cpu/attention.cc',
    'kernels/cpu/attention_cpu.cc',
    'kernels/cpu/gemm_cpu.cc',
  ],
  variants: { unfused: 'unfused', fused: 'fused' },
  params: [],
  shapes: (backend) =>
    backend === 'cuda'
      ? [cudaShape]
      : [{ label: '1x2x128x64', dims: [1, 2, 128, 64], description: 'batch 1 × 2 heads × seq 128 × head 64' }],
  validate: (dims) => checkAttentionShape('attention', dims),
  inputs: attentionInputs,
  reference: (inputs, dims) => {
    const { batch, heads, seq } = shapeOf(dims);
    const [q, k, v] = [inputs.q, inputs.k, inputs.v] as [Float32Array, Float32Array, Float32Array];
    const rows = batch * heads * seq;
    // Flattened row 0 is the first query of the first head (one key), rows − 1 the last of the last (every key).
    const o = rowsReference(rows, HEAD_DIM, sampleRows(rows, SAMPLED_ATTENTION_ROWS), (row) => {
      const s = row % seq;
      const bh = (row - s) / seq;
      const b = Math.floor(bh / heads);
      const h = bh % heads;
      return causalAttentionRow(headOf(q, dims, b, h), headOf(k, dims, b, h), headOf(v, dims, b, h), s);
    });
    return { o };
  },
  tolerance: attentionTolerance,
  traffic: (dims) => {
    const { qkv } = shapeOf(dims);
    return {
      unfused: { bytes: 4 * unfusedAttentionFloats(dims), launches: 5 },
      // read q, k, v; write o (the K/V tiles each query tile re-reads come from L2).
      fused: { bytes: 4 * 4 * qkv, launches: 1 },
    };
  },
  requires: ['cublas'],
  // Useful work of causal attention: 2·64 flops for q_i·k_j and 2·64 for p_ij·v_j over the unmasked
  // pairs j ≤ i only, 4·64·seq(seq + 1)/2 per (batch, head). The unfused twin's dense GEMMs compute
  // every seq×seq pair (about twice that); both variants are credited the same useful flops, so the
  // TFLOP/s figures compare like with like and a kernel is not rewarded for computing masked pairs.
  flops: attentionFlops,
  // The [batch, heads, seq, seq] score matrix, the largest buffer (the unfused twin allocates four).
  elements: (dims) => shapeOf(dims).scores,
  // attention_case.cc: q, k, v, o [batch, heads, seq, 64]; scores, scaled, masked, p [batch, heads, seq, seq].
  allocatedBytes: (dims) => 4 * attentionFloats(dims),
};

export const attentionLayerNormResidual: CaseDef = {
  name: 'attention_layernorm_residual',
  title: 'Causal attention + residual + LayerNorm',
  sources: [
    'kernels/cuda/attention.cu',
    'kernels/cuda/flash_attention.cuh',
    'kernels/cuda/cublas_ops.cu',
    'kernels/cuda/scale_mask_softmax.cu',
    'kernels/cuda/residual_layernorm.cu',
    'kernels/cuda/bias_gelu.cu',
    'kernels/cpu/attention.cc',
    'kernels/cpu/attention_cpu.cc',
    'kernels/cpu/gemm_cpu.cc',
  ],
  variants: { unfused: 'unfused', fused: 'fused' },
  params: [LAYERNORM_EPS],
  shapes: (backend) =>
    backend === 'cuda'
      ? [cudaShape]
      : [{ label: '1x2x96x64', dims: [1, 2, 96, 64], description: 'batch 1 × 2 heads × seq 96 × head 64' }],
  validate: (dims) => checkAttentionShape('attention_layernorm_residual', dims),
  // As attention, plus the residual stream x ~ N(0, 1) [batch, seq, heads·64], γ ≈ 1 and β ≈ 0 as in a trained model.
  inputs: (dims, seed) => {
    const { qkv, heads } = shapeOf(dims);
    const c = heads * HEAD_DIM;
    const gamma = normalArray(c, 0.1, seedStream(seed, 4));
    for (let i = 0; i < c; i++) gamma[i] = (gamma[i] as number) + 1;
    return {
      ...attentionInputs(dims, seed),
      x: normalArray(qkv, 1, seedStream(seed, 3)),
      gamma,
      beta: normalArray(c, 0.1, seedStream(seed, 5)),
    };
  },
  reference: (inputs, dims) => {
    const { batch, heads, seq } = shapeOf(dims);
    const [q, k, v, x] = [inputs.q, inputs.k, inputs.v, inputs.x] as Float32Array[] as [
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
    ];
    const c = heads * HEAD_DIM;
    const rows = batch * seq;
    const y = rowsReference(rows, c, sampleRows(rows, SAMPLED_LAYERNORM_ROWS), (row) => {
      const s = row % seq;
      const b = (row - s) / seq;
      const hRow = new Float64Array(c);
      for (let h = 0; h < heads; h++) {
        const o = causalAttentionRow(headOf(q, dims, b, h), headOf(k, dims, b, h), headOf(v, dims, b, h), s);
        for (let d = 0; d < HEAD_DIM; d++)
          hRow[h * HEAD_DIM + d] = (x[row * c + h * HEAD_DIM + d] as number) + (o[d] as number);
      }
      return layerNormRow(hRow, inputs.gamma as Float32Array, inputs.beta as Float32Array);
    });
    return { y };
  },
  // y = LN(x + merged o)·γ + β: o's absolute error (attention's, ≈ 6e-6 bound at seq 512) scaled by
  // rstd·γ ≈ 0.9, plus the LayerNorm's own: |z·γ| ≲ 5 times rstd's relative error (the squared
  // deviations summed in ≲ 30 roundings, then rsqrtf), ≲ 1e-6, so ≲ 5e-6 (rtol covers it). atol 2e-5 as
  // attention's. Measured max |error| over the sampled rows: CPU (both variants) 6.6e-7 at
  // [1, 2, 96, 64], 9.2e-7 at [4, 12, 512, 64]; H200 (both variants) ≤ 1.1e-6 at small shapes,
  // unfused 7.0e-7 and fused 1.1e-6 at the CUDA shape (3 seeds): ×18 below atol. A real defect is ≥ 1e-2 (the tests plant them): the neighbouring
  // position's residual moves y by ~1, γ left out by ~0.1.
  tolerance: { atol: 2e-5, rtol: 1e-5 },
  traffic: (dims) => {
    const { qkv, heads } = shapeOf(dims);
    const c = heads * HEAD_DIM;
    const rc = qkv; // batch·seq rows of heads·64
    return {
      // The attention's five launches, then merge (read o; write merged), add (read x, merged; write h),
      // LayerNorm (read h, γ, β; write y).
      unfused: { bytes: 4 * (unfusedAttentionFloats(dims) + 2 * rc + 3 * rc + (2 * rc + 2 * c)), launches: 8 },
      // Read q, k, v, x, γ, β; write y; plus the merged rows staged through y (each head's slice written,
      // then read back by the row tile's last block). Two launches: the tile counters' memset and the kernel.
      fused: { bytes: 4 * (3 * qkv + rc + 2 * c + rc + 2 * rc), launches: 2 },
    };
  },
  requires: ['cublas'],
  // As attention's: the useful causal flops (the residual and LayerNorm are O(seq), not counted).
  flops: attentionFlops,
  elements: (dims) => shapeOf(dims).scores,
  // attention_case.cc: the attention buffers, then x, y, merged, h [batch·seq, heads·64], γ, β [heads·64]
  // and one tile counter per 64 rows of each batch element.
  allocatedBytes: (dims) => {
    const { batch, heads, seq, qkv } = shapeOf(dims);
    return 4 * (attentionFloats(dims) + 4 * qkv + 2 * heads * HEAD_DIM + batch * Math.ceil(seq / 64));
  },
};
