/**
 * The float64 reference of one Llama decode step (the whole step: embedding, every layer, the logits),
 * and the defects the case's tests plant in it to show the tolerance catches them.
 */

import { nativeConstants } from '../../src/addon/native.ts';
import type { Dtype, Inputs } from '../../src/case/types.ts';
import { causalAttentionRow } from '../../src/reference/attention.ts';
import { type DecodeOutputs, rowsAt } from '../../src/reference/kv-cache.ts';
import { linearRow } from '../../src/reference/linear.ts';
import { rmsNormRow, storedRow } from '../../src/reference/norms.ts';

/** The step's dims by their native names. */
export interface LlamaDims {
  layers: number;
  hidden: number;
  heads: number;
  kv_heads: number;
  f: number;
  vocab: number;
  ctx: number;
  pos: number;
  token: number;
}

/** A planted defect: what a broken kernel would compute instead of the step. */
export interface LlamaDefect {
  /** This layer leaves x unchanged. */
  skipLayer?: number;
  /** The new K/V rows land in this cache row instead of pos (the attention still reads rows 0 .. pos). */
  kvRow?: number;
  /** The attention reads the cache rows keyFirst .. keyLast instead of 0 .. pos. */
  keyFirst?: number;
  keyLast?: number;
  /** Logit j is computed from embedding row (j + lmHeadShift) mod vocab. */
  lmHeadShift?: number;
  /** RoPE turns q and k by the angles of this position instead of pos. */
  ropePos?: number;
  /** The K/V head query head h reads, instead of h / (heads / kv_heads). */
  kvHeadOf?: (h: number) => number;
}

/**
 * The logits of the step in float64 from the (precision-rounded) inputs, and the new K and V row of every
 * layer. Those rows are taken as the precision stores them (both variants write them into the cache in T
 * and read them back); every other value is exact.
 */
export function decodeStep(
  inputs: Inputs,
  d: LlamaDims,
  { eps, rope_theta }: { eps: number; rope_theta: number },
  dtype: Dtype,
  defect: LlamaDefect = {},
): DecodeOutputs {
  const { headDim } = nativeConstants();
  const [c, kv, f] = [d.hidden, d.kv_heads * headDim, d.f];
  const input = (name: string) => inputs[name] as Float32Array;
  const layer = (name: string, l: number, n: number) => input(name).subarray(l * n, (l + 1) * n);
  const group = d.heads / d.kv_heads;
  const kvHeadOf = defect.kvHeadOf ?? ((h: number) => Math.floor(h / group));
  const [first, last] = [defect.keyFirst ?? 0, defect.keyLast ?? d.pos];
  const cache = { layers: d.layers, ctx: d.ctx, width: kv, pos: d.pos };
  const row = defect.kvRow ?? d.pos;
  // A skipped layer writes no row: its expected rows stay as uploaded.
  const [newK, newV] = [rowsAt(input('k_cache'), cache), rowsAt(input('v_cache'), cache)];
  const embed = input('embed');
  let x: Float64Array = Float64Array.from(embed.subarray(d.token * c, (d.token + 1) * c));
  for (let l = 0; l < d.layers; l++) {
    if (l === defect.skipLayer) continue;
    const a = rmsNormRow(x, layer('attn_norm', l, c), eps);
    const qkv = linearRow(a, layer('w_qkv', l, (c + 2 * kv) * c), undefined, c + 2 * kv);
    rope(qkv.subarray(0, c + kv), defect.ropePos ?? d.pos, rope_theta, headDim);
    // The layer's cache as float64 rows, the new row written where the step writes it.
    const k = Float64Array.from(layer('k_cache', l, d.ctx * kv));
    const v = Float64Array.from(layer('v_cache', l, d.ctx * kv));
    newK.set(storedRow(dtype, qkv.subarray(c, c + kv)), l * kv);
    newV.set(storedRow(dtype, qkv.subarray(c + kv, c + 2 * kv)), l * kv);
    k.set(newK.subarray(l * kv, (l + 1) * kv), row * kv);
    v.set(newV.subarray(l * kv, (l + 1) * kv), row * kv);
    // Query head h over the rows first .. last: the causal row last − first of a cache that starts at first.
    const o = new Float64Array(c);
    for (let h = 0; h < d.heads; h++) {
      const at = (data: Float64Array) => ({ data, base: first * kv + kvHeadOf(h) * headDim, stride: kv });
      o.set(causalAttentionRow({ data: qkv, base: h * headDim, stride: 0 }, at(k), at(v), last - first), h * headDim);
    }
    x = added(x, inOutRow(o, layer('w_o', l, c * c), c));
    const gu = linearRow(rmsNormRow(x, layer('ffn_norm', l, c), eps), layer('w_gu', l, 2 * f * c), undefined, 2 * f);
    const g = gu.subarray(0, f).map((gate, i) => (gate / (1 + Math.exp(-gate))) * (gu[f + i] as number));
    x = added(x, inOutRow(g, layer('w_down', l, f * c), c));
  }
  const logits = linearRow(rmsNormRow(x, input('norm_f'), eps), embed, undefined, d.vocab);
  const shift = defect.lmHeadShift ?? 0;
  const shifted = shift === 0 ? logits : logits.map((_, j) => logits[(j + shift) % d.vocab] as number);
  return { logits: shifted, k: newK, v: newV, row, cache };
}

/** y[j] = Σ_i x[i]·w[i·n + j]: x times a weight stored in × out ([x.length, n], row-major). */
function inOutRow(x: Float64Array, w: Float32Array, n: number): Float64Array {
  const y = new Float64Array(n);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i] as number;
    const row = w.subarray(i * n, (i + 1) * n);
    for (let j = 0; j < n; j++) y[j] = (y[j] as number) + xi * (row[j] as number);
  }
  return y;
}

/** x + y, elementwise (the residual add). */
function added(x: Float64Array, y: Float64Array): Float64Array {
  return x.map((xi, i) => xi + (y[i] as number));
}

/**
 * RoPE in place on each head of v (headDim wide; HF Llama's rotate_half pairing): (x_i, x_{i+half}) ←
 * (x_i·cos − x_{i+half}·sin, x_{i+half}·cos + x_i·sin), angle pos·θ^(−2i/headDim), i < half.
 */
function rope(v: Float64Array, pos: number, theta: number, headDim: number): void {
  const half = headDim / 2;
  for (let i = 0; i < half; i++) {
    const angle = pos * theta ** ((-2 * i) / headDim);
    const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
    for (let base = 0; base < v.length; base += headDim) {
      const [x0, x1] = [v[base + i] as number, v[base + i + half] as number];
      v[base + i] = x0 * cos - x1 * sin;
      v[base + i + half] = x1 * cos + x0 * sin;
    }
  }
}
