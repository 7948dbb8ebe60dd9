/**
 * The float64 reference of one GPT-2 decode step (the whole step: embedding, every layer, the logits),
 * and the defects the case's tests plant in it to show the tolerance catches them.
 */

import { nativeConstants } from '../../src/addon/native.ts';
import type { Dtype, Inputs } from '../../src/case/types.ts';
import { lmHeadRow, mlpResidualRow } from '../../src/reference/gpt2.ts';
import { type DecodeOutputs, rowsAt } from '../../src/reference/kv-cache.ts';
import { linearRow } from '../../src/reference/linear.ts';
import { layerNormRow, storedRow } from '../../src/reference/norms.ts';

/** The step's dims by their native names. */
export interface DecodeDims {
  layers: number;
  hidden: number;
  heads: number;
  f: number;
  vocab: number;
  ctx: number;
  pos: number;
  token: number;
}

/** A planted defect: what a broken kernel would compute instead of the step. */
export interface DecodeDefect {
  /** This layer leaves x unchanged. */
  skipLayer?: number;
  /** The new K/V rows land in this cache row instead of pos (the attention still reads rows 0 .. pos). */
  kvRow?: number;
  /** The attention reads the cache rows keyFirst .. keyLast instead of 0 .. pos. */
  keyFirst?: number;
  keyLast?: number;
  /** Logit j is computed from embedding row (j + lmHeadShift) mod vocab. */
  lmHeadShift?: number;
}

/**
 * The logits of the step in float64 from the (precision-rounded) inputs, and the new K and V row of every
 * layer. Those rows are taken as the precision stores them (both variants write them into the cache in T
 * and read them back); every other value is exact.
 */
export function decodeStep(
  inputs: Inputs,
  d: DecodeDims,
  eps: number,
  dtype: Dtype,
  defect: DecodeDefect = {},
): DecodeOutputs {
  const { headDim, attentionScale } = nativeConstants();
  const c = d.hidden;
  const input = (name: string) => inputs[name] as Float32Array;
  const layer = (name: string, l: number, n: number) => input(name).subarray(l * n, (l + 1) * n);
  const [wte, wpe] = [input('wte'), input('wpe')];
  const cache = { layers: d.layers, ctx: d.ctx, width: c, pos: d.pos };
  const row = defect.kvRow ?? d.pos;
  // A skipped layer writes no row: its expected rows stay as uploaded.
  const [newK, newV] = [rowsAt(input('k_cache'), cache), rowsAt(input('v_cache'), cache)];
  let x: Float64Array = new Float64Array(c);
  for (let i = 0; i < c; i++) x[i] = (wte[d.token * c + i] as number) + (wpe[d.pos * c + i] as number);
  for (let l = 0; l < d.layers; l++) {
    if (l === defect.skipLayer) continue;
    const a = layerNormRow(x, layer('ln1_g', l, c), layer('ln1_b', l, c), eps);
    const qkv = linearRow(a, layer('w_qkv', l, 3 * c * c), layer('b_qkv', l, 3 * c), 3 * c);
    // The layer's cache as float64 rows, the new row written where the step writes it.
    const k = Float64Array.from(layer('k_cache', l, d.ctx * c));
    const v = Float64Array.from(layer('v_cache', l, d.ctx * c));
    newK.set(storedRow(dtype, qkv.subarray(c, 2 * c)), l * c);
    newV.set(storedRow(dtype, qkv.subarray(2 * c, 3 * c)), l * c);
    k.set(newK.subarray(l * c, (l + 1) * c), row * c);
    v.set(newV.subarray(l * c, (l + 1) * c), row * c);
    const o = attendCache(qkv, k, v, d.heads, defect.keyFirst ?? 0, defect.keyLast ?? d.pos, headDim, attentionScale);
    const proj = linearRow(o, layer('w_o', l, c * c), layer('b_o', l, c), c);
    const h = x.map((xi, i) => xi + (proj[i] as number));
    x = mlpResidualRow(h, layer, l, d.f, eps);
  }
  const logits = lmHeadRow(x, { g: input('lnf_g'), b: input('lnf_b') }, wte, d.vocab, eps, defect.lmHeadShift);
  return { logits, k: newK, v: newV, row, cache };
}

/** Per head, softmax(q·k_j·scale)·v_j over the cache rows first .. last (q: the first c values of qkv). */
function attendCache(
  qkv: Float64Array,
  k: Float64Array,
  v: Float64Array,
  heads: number,
  first: number,
  last: number,
  headDim: number,
  scale: number,
): Float64Array {
  const c = heads * headDim;
  const o = new Float64Array(c);
  const p = new Float64Array(last - first + 1);
  for (let h = 0; h < heads; h++) {
    let max = Number.NEGATIVE_INFINITY;
    for (let j = first; j <= last; j++) {
      let s = 0;
      for (let e = 0; e < headDim; e++) s += (qkv[h * headDim + e] as number) * (k[j * c + h * headDim + e] as number);
      p[j - first] = s * scale;
      max = Math.max(max, s * scale);
    }
    let sum = 0;
    for (let j = 0; j < p.length; j++) sum += p[j] = Math.exp((p[j] as number) - max);
    for (let j = first; j <= last; j++) {
      const w = (p[j - first] as number) / sum;
      for (let e = 0; e < headDim; e++)
        o[h * headDim + e] = (o[h * headDim + e] as number) + w * (v[j * c + h * headDim + e] as number);
    }
  }
  return o;
}
