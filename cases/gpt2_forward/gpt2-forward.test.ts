// gpt2_forward (the whole GPT-2 forward: one op per launch against the fused pieces) beyond the shared
// numerics suite: the tolerance catches the defects a model can have, the shape rules refuse bad input
// before any allocation, and the traffic model.
import { describe, expect, test } from 'vitest';
import type { CaseDef } from '../../src/case/types.ts';
import { expectCaught } from '../../suites/support/numerics-check.ts';
import { findCase, findCaseInEveryDtype } from '../registry.ts';
import { type ForwardDefect, type ForwardDims, forwardLogits, tokenOf } from './reference.ts';

const forward = await findCase('gpt2_forward');
const everyDtype = await findCaseInEveryDtype('gpt2_forward');
const NAMES = ['layers', 'batch', 'seq', 'hidden', 'heads', 'f', 'vocab'] as const;
const dimsOf = (dims: readonly number[]) =>
  Object.fromEntries(NAMES.map((n, i) => [n, dims[i]])) as unknown as ForwardDims;

/** `def` whose reference computes every row with `defect` planted. */
function withPlanted(def: CaseDef, defect: ForwardDefect): CaseDef {
  return {
    ...def,
    reference: (inputs, dims) => {
      const d = dimsOf(dims);
      const every = Array.from({ length: d.seq }, (_, s) => s);
      const logits = new Float64Array(d.batch * d.seq * d.vocab);
      for (let b = 0; b < d.batch; b++)
        for (const [s, row] of forwardLogits(inputs, d, 1e-5, def.dtype, b, every, defect))
          logits.set(row, (b * d.seq + s) * d.vocab);
      return { logits };
    },
  };
}

describe.each(everyDtype.map((d) => [d.dtype, d] as const))(
  'gpt2_forward %s tolerance catches real defects (CPU kernels against a defective reference)',
  (_dtype, def) => {
    // 2 layers, hidden 128, batch 2 × seq 9.
    const dims = [2, 2, 9, 128, 2, 512, 1000];
    test.each([
      ['the first layer skipped', { skipLayer: 0 }],
      ['the last layer skipped', { skipLayer: 1 }],
      ['the causal mask off by one (each query sees the next key)', { seesNextKey: true }],
      ['the LM head reading the next embedding row', { lmHeadShift: 1 }],
    ] as const)('%s', (_name, defect) => {
      expectCaught(withPlanted(def, defect), dims);
    });
  },
);

describe('gpt2_forward shape validation', () => {
  test.each([
    [[1, 1, 8, 128, 3, 64, 50], /breaks the limit heads divides hidden: attention splits the hidden size/],
    [[1, 1, 8, 128, 1, 64, 50], /breaks the limit hidden = heads·64: every attention kernel's head is 64 wide/],
    [[1, 1, 16_385, 64, 1, 64, 50], /breaks the limit seq <= 16,384/],
    [[12, 8, 512, 768, 12, 3072, 0], /has vocab 0; every dimension must be a positive integer/],
  ])('refuses %j before any allocation, naming the limit', (dims, message) => {
    expect(() => forward.validate(dims)).toThrow(message);
  });
});

describe('gpt2_forward model', () => {
  const gpt2 = [12, 8, 512, 768, 12, 3072, 50257];
  test('launches: 3 + 22 per layer + 2 unfused, 1 + 7 per layer + 4 fused', () => {
    const t = forward.traffic(gpt2);
    expect(t.unfused.launches).toBe(3 + 22 * 12 + 2);
    expect(t.fused.launches).toBe(1 + 7 * 12 + 4);
    expect(t.unfused.bytes).toBeGreaterThan(t.fused.bytes);
  });
  test('flops: 12 blocks and the LM head over 4,096 rows', () => {
    const [m, c, f, V] = [8 * 512, 768, 3072, 50257];
    const attention = 8 * 12 * 4 * 64 * ((512 * 513) / 2);
    expect(forward.flops?.(gpt2)).toBe(12 * (8 * m * c * c + 4 * m * c * f + attention) + 2 * m * c * V);
  });
  test('the token walk visits many rows of the vocabulary and stays inside it', () => {
    const tokens = Array.from({ length: 4096 }, (_, r) => tokenOf(r, 50257));
    expect(Math.min(...tokens)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...tokens)).toBeLessThan(50257);
    expect(new Set(tokens).size).toBe(4096);
  });
});
