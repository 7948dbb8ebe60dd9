/**
 * Pieces of a GPT-2 layer and head in float64, over the stacked weights of the GPT-2-shaped cases
 * (gpt2_decode, gpt2_forward): the MLP half of a layer and the LM head of one residual row.
 */
import { geluTanh } from './gelu.ts';
import { linearRow } from './linear.ts';
import { layerNormRow } from './norms.ts';

/** Layer l's slice of a stacked weight: `layer(name, l, n)` is elements l·n .. (l + 1)·n of input `name`. */
type LayerSlice = (name: string, l: number, n: number) => Float32Array;

/** Layer l's MLP added to its residual row h: gelu(LN2(h)·W1ᵀ + b1)·W2ᵀ + b2, c = h.length, FFN width f. */
export function mlpResidualRow(h: Float64Array, layer: LayerSlice, l: number, f: number, eps: number): Float64Array {
  const c = h.length;
  const g = linearRow(
    layerNormRow(h, layer('ln2_g', l, c), layer('ln2_b', l, c), eps),
    layer('w1', l, f * c),
    layer('b1', l, f),
    f,
  ).map(geluTanh);
  const y = linearRow(g, layer('w2', l, c * f), layer('b2', l, c), c);
  return h.map((v, j) => v + (y[j] as number));
}

/**
 * logits = LNf(x)·wteᵀ over the vocab rows of wte. A planted defect's `shift` reads logit j from embedding
 * row (j + shift) mod vocab (the LM head reading the wrong row).
 */
export function lmHeadRow(
  x: Float64Array,
  lnf: { g: Float32Array; b: Float32Array },
  wte: Float32Array,
  vocab: number,
  eps: number,
  shift = 0,
): Float64Array {
  const logits = linearRow(layerNormRow(x, lnf.g, lnf.b, eps), wte, undefined, vocab);
  return shift === 0 ? logits : logits.map((_, j) => logits[(j + shift) % vocab] as number);
}
