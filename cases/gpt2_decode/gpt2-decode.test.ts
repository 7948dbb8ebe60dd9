// gpt2_decode (one GPT-2 decode step: 149 launches against one persistent kernel) beyond the shared
// numerics suite: the tolerance catches the defects a decode kernel can have, the shape rules refuse
// bad input before any allocation, and the traffic model.
import { describe, expect, test } from 'vitest';
import type { DeviceContext } from '../../src/addon/device.ts';
import type { CaseDef } from '../../src/case/types.ts';
import { decodeReferences } from '../../src/reference/kv-cache.ts';
import { runCase } from '../../src/run/run-case.ts';
import { everyDecodeDefect } from '../../suites/support/decode-defects.ts';
import { expectCaught } from '../../suites/support/numerics-check.ts';
import { findCase, findCaseInEveryDtype } from '../registry.ts';
import { type DecodeDefect, type DecodeDims, decodeStep } from './reference.ts';
import { decodeBytes } from './traffic.ts';

const decode = await findCase('gpt2_decode');
const everyDtype = await findCaseInEveryDtype('gpt2_decode');
const NAMES = ['layers', 'hidden', 'heads', 'f', 'vocab', 'ctx', 'pos', 'token'] as const;
const dimsOf = (dims: readonly number[]) =>
  Object.fromEntries(NAMES.map((n, i) => [n, dims[i]])) as unknown as DecodeDims;

/** `def` whose reference computes the step with `defect` planted. */
function withPlanted(def: CaseDef, defect: DecodeDefect): CaseDef {
  return {
    ...def,
    reference: (inputs, dims) => decodeReferences(inputs, decodeStep(inputs, dimsOf(dims), 1e-5, def.dtype, defect)),
  };
}

describe.each(everyDtype.map((d) => [d.dtype, d] as const))(
  'gpt2_decode %s tolerance catches real defects (CPU kernels against a defective reference)',
  (_dtype, def) => {
    // 2 layers, hidden 128, 3 keys (pos 2): each defect moves logits by ≥ 0.77 here in every precision
    // (docs/gpt2-decode.md), the bf16 atol is 0.25.
    const dims = [2, 128, 2, 512, 1000, 64, 2, 7];
    test.each([
      ['the first layer skipped', { skipLayer: 0 }],
      ['the last layer skipped', { skipLayer: 1 }],
      ['the new K/V row written at pos − 1', { kvRow: 1 }],
      ['the attention range starting one row late', { keyFirst: 1 }],
      ['the attention range ending one row late', { keyLast: 3 }],
      ['the LM head reading the next embedding row', { lmHeadShift: 1 }],
    ] as const)('%s', (_name, defect) => {
      expectCaught(withPlanted(def, defect), dims);
    });
  },
);

// At longer caches one key more or less moves the logits less than the 16-bit tolerances (≈ 0.06 at 291
// keys in bf16, below its atol of 0.25): the same kernel templates in fp32 are held to every planted defect
// at every test shape. (A K/V row in the wrong place fails on the cache itself: suites/unit/decode-cache.test.ts.)
describe('gpt2_decode fp32: every planted defect is caught at every test shape', () => {
  const fp32 = everyDtype.find((d) => d.dtype === 'fp32') as CaseDef;
  test.each(fp32.testShapes.map((dims) => [dims.join('x'), dims] as const))('%s', (_label, dims) => {
    for (const defect of everyDecodeDefect(dimsOf(dims))) expectCaught(withPlanted(fp32, defect), [...dims]);
  });
});

describe('gpt2_decode shape validation', () => {
  test.each([
    [[12, 768, 12, 3072, 50257, 1024, 1024, 464], /breaks the limit pos < ctx: the new K\/V row is written at pos/],
    [[1, 128, 3, 64, 50, 8, 1, 3], /breaks the limit heads divides hidden: attention splits the hidden size/],
    [[1, 128, 1, 64, 50, 8, 1, 3], /breaks the limit hidden = heads·64: every attention kernel's head is 64 wide/],
    [[1, 64, 1, 64, 50, 8, 1, 50], /breaks the limit token < vocab/],
    [[1, 64, 1, 60, 50, 8, 1, 3], /breaks the limit f % 8 == 0/],
    [[1, 64, 1, 16384, 50, 8, 1, 3], /breaks the limit max\(hidden, f\) <= 8,192/],
    [[65, 64, 1, 64, 50, 8, 1, 3], /breaks the limit layers <= 64 and heads <= 64/],
    [[12, 768, 12, 3072, 50257, 1024, 0, 464], /has pos 0; every dimension must be a positive integer/],
  ])('refuses %j before any allocation, naming the limit', (dims, message) => {
    expect(() => decode.validate(dims)).toThrow(message);
  });
});

test('a model too large for the device is a skip naming what it needs, before any allocation', () => {
  // GPT-2 small's shape with a 1.6 M-token vocabulary: 2.5 GB of bf16 embedding, on a device with 1 GiB free.
  const bf16 = everyDtype.find((d) => d.dtype === 'bf16') as CaseDef;
  const device = { description: { backend: 'cpu', freeMemoryBytes: 2 ** 30 } } as unknown as DeviceContext;
  const dims = [12, 768, 12, 3072, 1_600_000, 1024, 511, 464];
  const shape = { label: 'huge vocab', dims, description: 'huge vocab' };
  const settings = { budgetMs: 1, minPairs: 1, warmupPairs: 0, targetHalfWidth: 1, seed: 1, maxElements: undefined };
  const r = runCase(bf16, shape, device, settings);
  expect(r.status).toBe('skipped');
  expect(r.reason).toMatch(/^needs about 2\.\d GiB; the device has 1\.0 GiB free$/);
});

describe('gpt2_decode model', () => {
  const gpt2 = [12, 768, 12, 3072, 50257, 1024, 511, 464];
  test('bf16 bytes at GPT-2 small: 124 M weights (wte twice: embedding row and LM head) and 511 + 1 cached rows', () => {
    const { unfused, fused } = decodeBytes(dimsOf(gpt2), 2);
    const [c, f, L, V] = [768, 3072, 12, 50257];
    const weights = 2 * (2 * c + L * (4 * c * c + 2 * c * f + 9 * c + f) + 2 * c + V * c);
    expect(fused.weights).toBe(weights);
    expect(unfused.weights).toBe(weights);
    expect(fused.kvCache).toBe(2 * L * (2 * 511 * c + 2 * c));
    expect(unfused.kvCache).toBe(2 * L * (2 * 512 * c + 2 * c));
    expect(fused.logits).toBe(2 * V);
    // The fused step's bytes: 267.9 MB, the memory floor's 88.5 µs at 3.0 TB/s (the figure).
    const total = fused.weights + fused.kvCache + fused.activations + fused.logits;
    expect(total / 3e12 / 1e-6).toBeCloseTo(89.3, 0);
  });
  test('one launch fused against 149 unfused at 12 layers', () => {
    const t = decode.traffic(gpt2);
    expect(t.fused.launches).toBe(1);
    expect(t.unfused.launches).toBe(149);
    expect(t.unfused.bytes).toBeGreaterThan(t.fused.bytes);
  });
  test('flops: the GEMVs and the attention over pos + 1 keys', () => {
    const [c, f, L, V] = [768, 3072, 12, 50257];
    expect(decode.flops?.(gpt2)).toBe(L * (2 * (4 * c * c + 2 * c * f) + 4 * c * 512) + 2 * V * c);
  });
});
