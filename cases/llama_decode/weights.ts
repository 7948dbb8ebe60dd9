/**
 * The random weights of the Llama-shaped decode step: weights ~ N(0, 1/√fan_in) (every projection of a
 * normalized row has sd ≈ 1, attention logits of sd ≈ 1), RMSNorm γ = 1 + N(0, 0.1), the embedding
 * ~ N(0, 0.05) (logits of sd ≈ 0.05·√hidden ≈ 2.3 at Llama-3.2-1B). Seed streams 0 .. 7; the cache takes 16 on.
 */
import { seedStream } from '../../src/base/rng.ts';
import { normalArray } from '../../src/case/random.ts';

/** The model's sizes: kv = kv_heads·64, the width of K and V. */
interface LlamaSizes {
  layers: number;
  hidden: number;
  kv: number;
  f: number;
  vocab: number;
}

/** embed, each layer's norms and projections stacked over the layers, and norm_f. */
export function llamaWeights({ layers, hidden: c, kv, f, vocab }: LlamaSizes, seed: number) {
  const stream = (k: number) => seedStream(seed, k);
  const [sc, sf] = [1 / Math.sqrt(c), 1 / Math.sqrt(f)];
  return {
    embed: normalArray(vocab * c, 0.05, stream(0)),
    attn_norm: normalArray(layers * c, 0.1, stream(1), 1),
    w_qkv: normalArray(layers * (c + 2 * kv) * c, sc, stream(2)),
    w_o: normalArray(layers * c * c, sc, stream(3)),
    ffn_norm: normalArray(layers * c, 0.1, stream(4), 1),
    w_gu: normalArray(layers * 2 * f * c, sc, stream(5)),
    w_down: normalArray(layers * c * f, sf, stream(6)),
    norm_f: normalArray(c, 0.1, stream(7), 1),
  };
}
