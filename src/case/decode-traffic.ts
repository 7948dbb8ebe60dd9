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
