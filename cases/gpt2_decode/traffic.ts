/**
 * The traffic model of the GPT-2 decode step: bytes each variant must move (each input read once, each
 * output written once) and its launches, split into weight, KV-cache, activation and logit bytes.
 */
import { type DecodeBytes, decodeTraffic, stepBytes } from '../../src/case/decode-traffic.ts';
import type { Traffic } from '../../src/case/types.ts';
import type { DecodeDims } from './reference.ts';

/** Launches of the unfused twin: the embedding's two gathers and add, 12 per layer, LNf and the LM head. */
function unfusedLaunches(layers: number): number {
  return 3 + 12 * layers + 2;
}

/**
 * Bytes by kind, e the bytes of one element. Weights: the embedding's two rows, every layer's matrices,
 * biases and norms, LNf, and wte again as the LM head. KV cache: stepBytes. Activations: the unfused twin's
 * per-op vectors in T; the fused kernel's fp32 vectors (x read by two norms and updated by two
 * accumulations, q|k|v and gelu(FFN1) written and read once). Logits: written once.
 */
export function decodeBytes(d: DecodeDims, e: number): { unfused: DecodeBytes; fused: DecodeBytes } {
  const { layers: L, hidden: c, f, vocab: V, pos } = d;
  const perLayer = 3 * c * c + 3 * c + c * c + c + f * c + f + c * f + c + 4 * c;
  const weights = e * (2 * c + L * perLayer + 2 * c + V * c);
  const logits = e * V;
  // Unfused: the two gathers write a row each, the add reads both and writes x; per layer LN1 x→a, QKV
  // a→qkv, the K/V append (reads 2c of qkv), the attention q→att (the cache counted above), the
  // out-projection att→proj, add x + proj → h, LN2 h→a, FFN1 a→f1, GELU f1→g, FFN2 g→proj, add h + proj
  // → x; LNf x→a and the LM head reads a.
  const embedding = 2 * c + 3 * c;
  const layer = 2 * c + 4 * c + 2 * c + 2 * c + 2 * c + 3 * c + 2 * c + (c + f) + 2 * f + (f + c) + 3 * c;
  const head = 2 * c + c;
  const unfusedActs = embedding + L * layer + head;
  // Fused, fp32 per layer: x read by the two norms and read + written by the two accumulations, q|k|v
  // and gelu(FFN1) written and read once; x written once by the embedding.
  const fusedActs = 4 * (L * (2 * c + 2 * c + 2 * 3 * c + 2 * f) + c);
  const activations = { unfused: e * unfusedActs, fused: fusedActs };
  return stepBytes({ e, layers: L, pos, kvWidth: c, weights, logits, activations });
}

/** The case's traffic: each variant's total bytes and launches. */
export function stepTraffic(d: DecodeDims, e: number): { unfused: Traffic; fused: Traffic } {
  return decodeTraffic(decodeBytes(d, e), unfusedLaunches(d.layers));
}
