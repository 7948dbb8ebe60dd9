/** Causal attention of one query row in float64, and its useful flop count. */
import { nativeConstants } from '../addon/native.ts';
import { dot, type Floats } from './linear.ts';

/** Where one head's rows (d values each) lie in a buffer: position s starts at data[base + s·stride]. */
export interface HeadRows {
  data: Floats;
  base: number;
  stride: number;
}

/**
 * One causal attention output row: softmax_j(q_i·k_j/√d) over keys j ≤ i, then Σ_j p_j·v_j (d values;
 * d the native head dimension 64 unless given). Strided views serve both the [batch, heads, seq, d]
 * tensors and Q/K/V inside a projection's rows.
 */
export function causalAttentionRow(
  q: HeadRows,
  k: HeadRows,
  v: HeadRows,
  i: number,
  headDim = nativeConstants().headDim,
): Float64Array {
  const attentionScale = 1 / Math.sqrt(headDim);
  const qOff = q.base + i * q.stride;
  const scores = new Float64Array(i + 1);
  let max = Number.NEGATIVE_INFINITY;
  for (let j = 0; j <= i; j++) {
    const s = dot(q.data, qOff, k.data, k.base + j * k.stride, headDim) * attentionScale;
    scores[j] = s;
    if (s > max) max = s;
  }
  let sum = 0;
  for (let j = 0; j <= i; j++) {
    const e = Math.exp((scores[j] as number) - max);
    scores[j] = e;
    sum += e;
  }
  const out = new Float64Array(headDim);
  for (let j = 0; j <= i; j++) {
    const p = (scores[j] as number) / sum;
    const vOff = v.base + j * v.stride;
    for (let d = 0; d < headDim; d++) out[d] = (out[d] as number) + p * (v.data[vOff + d] as number);
  }
  return out;
}

/** Useful flops of causal attention per (batch, head): Q·Kᵀ and P·V over the unmasked pairs j ≤ i, 2·d each. */
export function causalAttentionFlops(seq: number, headDim = nativeConstants().headDim): number {
  return 4 * headDim * ((seq * (seq + 1)) / 2);
}

/** The [seq, d] rows of head (b, h) of a contiguous [batch, heads, seq, d] tensor. */
export function headRows(
  data: Floats,
  heads: number,
  seq: number,
  b: number,
  h: number,
  headDim = nativeConstants().headDim,
): HeadRows {
  return { data, base: (b * heads + h) * seq * headDim, stride: headDim };
}

/**
 * Floats the unfused attention building block (cpu/cuda::attention_unfused) moves, each op's inputs
 * read once and outputs written once: the Q·Kᵀ GEMM (read q, k; write scores), the scale, mask and
 * softmax passes (read and write [seq, seq] each), the P·V GEMM (read p, v; write o). Five launches.
 */
export function unfusedAttentionFloats(
  batch: number,
  heads: number,
  seq: number,
  headDim = nativeConstants().headDim,
): number {
  const qkv = batch * heads * seq * headDim;
  const scores = batch * heads * seq * seq;
  return 2 * qkv + scores + 3 * (2 * scores) + (scores + qkv + qkv);
}
