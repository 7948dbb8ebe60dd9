/**
 * The traffic model of the Llama decode step: bytes each variant must move (each input read once, each
 * output written once) and its launches, split into weight, KV-cache, activation and logit bytes.
 */
import { nativeConstants } from '../../src/addon/native.ts';
import { type DecodeBytes, decodeTraffic, stepBytes } from '../../src/case/decode-traffic.ts';
import type { Traffic } from '../../src/case/types.ts';
import type { LlamaDims } from './reference.ts';

/**
 * Launches of the unfused twin: the embedding gather; per layer RMSNorm, the QKV GEMV, RoPE with the
 * K/V append, the attention's chunks and their combine, the Wo GEMV, the residual add, RMSNorm, the
 * gate/up GEMV, SwiGLU, the down GEMV and the residual add (12); the final RMSNorm and the LM head.
 */
function unfusedLaunches(layers: number): number {
  return 1 + 12 * layers + 2;
}

/**
 * Bytes by kind, e the bytes of one element; c = hidden, kv = kv_heads·64, q = c + 2·kv (q|k|v). Weights:
 * the embedding's row, every layer's matrices and norms, norm_f, and the embedding again as the LM head.
 * KV cache (kv wide): stepBytes. Activations: the unfused twin's per-op vectors in T; the fused kernel's fp32
 * vectors (x read by two norms and updated by two accumulations, q|k|v written and read once;
 * silu(gate)·up stays in shared memory). Logits: written once.
 */
export function decodeBytes(d: LlamaDims, e: number): { unfused: DecodeBytes; fused: DecodeBytes } {
  const { layers: L, hidden: c, f, vocab: V, pos } = d;
  const kv = d.kv_heads * nativeConstants().headDim;
  const q = c + 2 * kv;
  const perLayer = c + q * c + c * c + c + 2 * f * c + c * f;
  const weights = e * (c + L * perLayer + c + V * c);
  const logits = e * V;
  // Unfused: the gather writes x; per layer RMSNorm x→a, QKV a→qkv, RoPE and the append (read q|k|v,
  // write q|k turned; the cache rows counted above), the attention q→att (its partials left out), the
  // out-projection att→proj, add x + proj → h, RMSNorm h→a, gate/up a→gu, SwiGLU gu→g, down g→proj,
  // add h + proj → x; the final RMSNorm x→a and the LM head reads a.
  const layer = 2 * c + (c + q) + (q + c + kv) + 2 * c + 2 * c + 3 * c + 2 * c + (c + 2 * f) + 3 * f + (f + c) + 3 * c;
  const unfusedActs = c + L * layer + 3 * c;
  // Fused, fp32 per layer: x read by the two norms and updated by the two accumulations, q|k|v written
  // and read once (silu(gate)·up stays in shared memory); x written once by the embedding.
  const fusedActs = 4 * (L * (2 * c + 2 * c + 2 * q) + c);
  const activations = { unfused: e * unfusedActs, fused: fusedActs };
  return stepBytes({ e, layers: L, pos, kvWidth: kv, weights, logits, activations });
}

/** The case's traffic: each variant's total bytes and launches. */
export function stepTraffic(d: LlamaDims, e: number): { unfused: Traffic; fused: Traffic } {
  return decodeTraffic(decodeBytes(d, e), unfusedLaunches(d.layers));
}
