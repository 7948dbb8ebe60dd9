/**
 * The random weights of a GPT-2-shaped model, shared by the cases that run one (gpt2_decode,
 * gpt2_forward): weights ~ N(0, 1/√fan_in) (every projection of a normalized row has sd ≈ 1, attention
 * logits of sd ≈ 1), biases and LayerNorm β ~ N(0, 0.1), γ = 1 + N(0, 0.1); wte and wpe ~ N(0, 0.1)
 * (logits of sd ≈ 0.1·√hidden ≈ 2.8 at GPT-2 small). Seed streams 0 .. 15; a case's own inputs take 16 on.
 */
import { seedStream } from '../base/rng.ts';
import { normalArray } from './random.ts';

/** The model's sizes: `positions` rows of wpe (the context a case can address). */
export interface Gpt2Sizes {
  layers: number;
  hidden: number;
  f: number;
  vocab: number;
  positions: number;
}

/** wte, wpe, each layer's norms, projections and biases stacked over the layers, and LNf. */
export function gpt2Weights({ layers, hidden: c, f, vocab, positions }: Gpt2Sizes, seed: number) {
  const stream = (k: number) => seedStream(seed, k);
  const [sc, sf] = [1 / Math.sqrt(c), 1 / Math.sqrt(f)];
  return {
    wte: normalArray(vocab * c, 0.1, stream(0)),
    wpe: normalArray(positions * c, 0.1, stream(1)),
    ln1_g: normalArray(layers * c, 0.1, stream(2), 1),
    ln1_b: normalArray(layers * c, 0.1, stream(3)),
    w_qkv: normalArray(layers * 3 * c * c, sc, stream(4)),
    b_qkv: normalArray(layers * 3 * c, 0.1, stream(5)),
    w_o: normalArray(layers * c * c, sc, stream(6)),
    b_o: normalArray(layers * c, 0.1, stream(7)),
    ln2_g: normalArray(layers * c, 0.1, stream(8), 1),
    ln2_b: normalArray(layers * c, 0.1, stream(9)),
    w1: normalArray(layers * f * c, sc, stream(10)),
    b1: normalArray(layers * f, 0.1, stream(11)),
    w2: normalArray(layers * c * f, sf, stream(12)),
    b2: normalArray(layers * c, 0.1, stream(13)),
    lnf_g: normalArray(c, 0.1, stream(14), 1),
    lnf_b: normalArray(c, 0.1, stream(15)),
  };
}
