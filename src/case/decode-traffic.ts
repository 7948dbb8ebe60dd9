/**
 * The traffic of a decode step (gpt2_decode, llama_decode): its bytes by kind for each variant, and what
 * the report divides by the time — their total, with the launches of each variant.
 */
import type { Traffic } from './types.ts';

/** Bytes of one variant by kind. */
export interface DecodeBytes {
  weights: number;
  kvCache: number;
  activations: number;
  logits: number;
}

/** Each variant's total bytes, the unfused twin's `unfusedLaunches` launches against the fused kernel's one. */
export function decodeTraffic(
  bytes: { unfused: DecodeBytes; fused: DecodeBytes },
  unfusedLaunches: number,
): { unfused: Traffic; fused: Traffic } {
  const total = (b: DecodeBytes) => b.weights + b.kvCache + b.activations + b.logits;
  return {
    unfused: { bytes: total(bytes.unfused), launches: unfusedLaunches },
    fused: { bytes: total(bytes.fused), launches: 1 },
  };
}

/** What both variants of a step move, by kind: the same weights and logits, each its own activations. */
interface StepBytes {
  /** Bytes of one element. */
  e: number;
  layers: number;
  /** The cached rows before the new one, and a cache row's values (K or V). */
  pos: number;
  kvWidth: number;
  weights: number;
  logits: number;
  /** Activation bytes of each variant. */
  activations: { unfused: number; fused: number };
}

/**
 * Each variant's bytes by kind. The KV cache, K and V of every layer: rows 0 .. pos − 1 read and row pos
 * written by both; the unfused twin reads row pos back with the others (it attends over the cache after the
 * append), the fused kernel attends over the new row from where it computed it.
 */
export function stepBytes(s: StepBytes): { unfused: DecodeBytes; fused: DecodeBytes } {
  const { e, layers: L, pos, kvWidth: w, weights, logits } = s;
  return {
    unfused: { weights, kvCache: e * L * (2 * (pos + 1) * w + 2 * w), activations: s.activations.unfused, logits },
    fused: { weights, kvCache: e * L * (2 * pos * w + 2 * w), activations: s.activations.fused, logits },
  };
}
