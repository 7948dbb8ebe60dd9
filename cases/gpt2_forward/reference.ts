/**
 * The float64 reference of the GPT-2 forward pass (the embedding, every layer, the logits), and the
 * defects the case's tests plant in it to show the tolerance catches them. A causal model's row at
 * position s depends on positions 0 .. s of its sequence only, so the logits of a set of positions need
 * every layer over the prefix up to the last of them, and no more.
 */

import { nativeConstants } from '../../src/addon/native.ts';
import type { Dtype, Inputs } from '../../src/case/types.ts';
import { causalAttentionRow } from '../../src/reference/attention.ts';
import { lmHeadRow, mlpResidualRow } from '../../src/reference/gpt2.ts';
import { linearRow } from '../../src/reference/linear.ts';
import { layerNormRow, storedRow } from '../../src/reference/norms.ts';

/** The model's dims by their native names. */
export interface ForwardDims {
  layers: number;
  batch: number;
  seq: number;
  hidden: number;
  heads: number;
  f: number;
  vocab: number;
}

/** A planted defect: what a broken model would compute instead. */
export interface ForwardDefect {
  /** This layer leaves x unchanged. */
  skipLayer?: number;
  /** The causal mask off by one: each query also sees the next key (the last query has none). */
  seesNextKey?: boolean;
  /** Logit j is computed from embedding row (j + lmHeadShift) mod vocab. */
  lmHeadShift?: number;
}

/** The token at row r = b·seq + t: the deterministic walk gpt2_forward.h's token_of states natively. */
export function tokenOf(r: number, vocab: number): number {
  return (r * 7919 + 13) % vocab;
}

/** The fused LM head's row length: vocab rounded up to 8 elements (gpt2_forward.h's padded_vocab). */
export function paddedVocab(vocab: number): number {
  return Math.ceil(vocab / 8) * 8;
}

/**
 * The logits of batch element b at `positions` (sorted, distinct), in float64 from the
 * (precision-rounded) inputs. Every tensor both variants store between launches and read back whole in
 * T (q|k|v, h, each layer's output) is taken as stored; the rest is exact.
 */
export function forwardLogits(
  inputs: Inputs,
  d: ForwardDims,
  eps: number,
  dtype: Dtype,
  b: number,
  positions: readonly number[],
  defect: ForwardDefect = {},
): Map<number, Float64Array> {
  const { headDim } = nativeConstants();
  const c = d.hidden;
  const input = (name: string) => inputs[name] as Float32Array;
  const layer = (name: string, l: number, n: number) => input(name).subarray(l * n, (l + 1) * n);
  const [wte, wpe] = [input('wte'), input('wpe')];
  const last = positions[positions.length - 1] ?? -1;
  // The prefix every layer computes: through the last position (and the next key the defect lets it see).
  const prefix = Math.min(d.seq, last + 1 + (defect.seesNextKey ? 1 : 0));
  let x: Float64Array[] = [];
  for (let s = 0; s < prefix; s++) {
    const token = tokenOf(b * d.seq + s, d.vocab);
    const row = new Float64Array(c);
    for (let i = 0; i < c; i++) row[i] = (wte[token * c + i] as number) + (wpe[s * c + i] as number);
    x.push(storedRow(dtype, row));
  }
  const qkv = new Float64Array(prefix * 3 * c);
  for (let l = 0; l < d.layers; l++) {
    if (l === defect.skipLayer) continue;
    for (let s = 0; s < prefix; s++) {
      const a = layerNormRow(x[s] as Float64Array, layer('ln1_g', l, c), layer('ln1_b', l, c), eps);
      qkv.set(storedRow(dtype, linearRow(a, layer('w_qkv', l, 3 * c * c), layer('b_qkv', l, 3 * c), 3 * c)), s * 3 * c);
    }
    x = x.map((xs, s) => {
      const merged = new Float64Array(c);
      // The defect: query s read as query s + 1 of a view one row back, so it attends to keys 0 .. s + 1.
      const [qBase, i] = defect.seesNextKey && s + 1 < prefix ? [-3 * c, s + 1] : [0, s];
      for (let h = 0; h < d.heads; h++) {
        const o = causalAttentionRow(
          { data: qkv, base: qBase + h * headDim, stride: 3 * c },
          { data: qkv, base: c + h * headDim, stride: 3 * c },
          { data: qkv, base: 2 * c + h * headDim, stride: 3 * c },
          i,
        );
        merged.set(o, h * headDim);
      }
      const proj = linearRow(merged, layer('w_o', l, c * c), layer('b_o', l, c), c);
      const h = storedRow(
        dtype,
        xs.map((v, j) => v + (proj[j] as number)),
      );
      return storedRow(dtype, mlpResidualRow(h, layer, l, d.f, eps));
    });
  }
  const logits = new Map<number, Float64Array>();
  const lnf = { g: input('lnf_g'), b: input('lnf_b') };
  for (const s of positions) logits.set(s, lmHeadRow(x[s] as Float64Array, lnf, wte, d.vocab, eps, defect.lmHeadShift));
  return logits;
}
