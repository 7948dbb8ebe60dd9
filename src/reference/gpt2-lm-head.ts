/** The GPT-2 LM head of one residual row in float64: LNf, then the tied embedding (the references of gpt2_decode and gpt2_forward). */
import { linearRow } from './linear.ts';
import { layerNormRow } from './norms.ts';

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
