// attention (batched GEMM, scale, mask, softmax, batched GEMM against the flash-style kernel) beyond the
// shared numerics suite: the tolerance catches real defects (a causal mask off by one among them), the
// shape rules hold, and the models.
import { describe, expect, test } from 'vitest';
import type { CaseDef } from '../../src/case/types.ts';
import { causalAttentionRow } from '../../src/reference/attention.ts';
import { expectCaught, withDefect } from '../../suites/support/numerics-check.ts';
import { findCase, findCaseInEveryDtype } from '../registry.ts';

const attention = await findCase('attention');
const attentionLayerNormResidual = await findCase('attention_layernorm_residual');

describe('attention tolerance catches real defects (CPU kernels against a wrong reference)', () => {
  test('a causal mask off by one: query i also sees key i + 1', () => {
    const dims = [1, 2, 300, 64];
    const offByOne: CaseDef = {
      ...attention,
      reference: (inputs, d) => {
        const [, heads, seq] = d as [number, number, number];
        const [q, k, v] = [inputs.q, inputs.k, inputs.v] as [Float32Array, Float32Array, Float32Array];
        const o = new Float64Array(heads * seq * 64);
        for (let h = 0; h < heads; h++) {
          const base = h * seq * 64;
          for (let s = 0; s < seq; s++) {
            const last = Math.min(s + 1, seq - 1); // keys 0 .. s + 1
            // q's row s read as position `last`.
            const qView = { data: q, base: base + (s - last) * 64, stride: 64 };
            const row = causalAttentionRow(qView, { data: k, base, stride: 64 }, { data: v, base, stride: 64 }, last);
            o.set(row, base + s * 64);
          }
        }
        return { o };
      },
    };
    expectCaught(offByOne, dims);
  });
  test('a score scale 1% off', () => {
    expectCaught(
      withDefect(attention, (inputs) => {
        const q = inputs.q as Float32Array;
        for (let i = 0; i < q.length; i++) q[i] = (q[i] as number) * 1.01;
      }),
      [1, 2, 300, 64],
    );
  });
});

describe.each([
  ['attention', attention],
  ['attention_layernorm_residual', attentionLayerNormResidual],
] as const)('%s shape validation', (name, def) => {
  test.each([
    [
      [1, 1, 17, 32],
      new RegExp(
        `^${name}: shape \\[1, 1, 17, 32\\] \\(batch 1, heads 1, seq 17, d 32\\) breaks the limit d == 64: the flash kernel's tiles are one head of 64 wide$`,
      ),
    ],
    [
      [1, 1, 0, 64],
      new RegExp(`^${name}: shape \\[1, 1, 0, 64\\] has seq 0; every dimension must be a positive integer$`),
    ],
    [[0, 12, 512, 64], /has batch 0/],
    [[32, 12, 512], /has 3 dimensions; expected 4 \(batch, heads, seq, d\)/],
    [[1, 1, 16_385, 64], /breaks the limit seq <= 16,384: the unfused twin materializes seq×seq scores per head/],
    [[2 ** 16, 2 ** 10, 2 ** 7, 64], /has 549755813888 elements in q; the numerics hold a buffer in a JS typed array/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => def.validate(dims)).toThrow(message);
  });

  test('elements: the score matrix, the largest buffer', () => {
    expect(def.elements([2, 3, 65, 64])).toBe(2 * 3 * 65 * 65);
  });

  test('flops: the useful causal work, 4·64 per unmasked (query, key) pair', () => {
    expect(def.flops?.([1, 1, 1, 64])).toBe(4 * 64);
    expect(def.flops?.([32, 12, 512, 64])).toBe(32 * 12 * 4 * 64 * ((512 * 513) / 2));
  });
});

describe("the tensor-core flash kernel's grid is a limit of the half precisions only", () => {
  test.each(['attention', 'attention_layernorm_residual', 'transformer_block'])('%s', async (name) => {
    const [fp32, bf16, fp16] = await findCaseInEveryDtype(name);
    // heads 65,536 of one position (attention cases: batch, heads, seq, d; the block: batch, seq, heads, f).
    const dims = name === 'transformer_block' ? [1, 1, 65_536, 4] : [1, 65_536, 1, 64];
    const limit = /breaks the limit batch <= 65,535 and heads <= 65,535: the tensor-core flash kernel's grid/;
    expect(() => bf16?.validate(dims)).toThrow(limit);
    expect(() => fp16?.validate(dims)).toThrow(limit);
    expect(() => fp32?.validate(dims)).not.toThrow(limit);
  });
});

describe('head dimension 128: the half precisions take it, fp32 refuses it before launch', () => {
  test('the limits', async () => {
    const [fp32, bf16, fp16] = await findCaseInEveryDtype('attention');
    expect(() => fp32?.validate([1, 1, 17, 128])).toThrow(
      /^attention: shape \[1, 1, 17, 128\] \(batch 1, heads 1, seq 17, d 128\) breaks the limit d == 64: the flash kernel's tiles are one head of 64 wide$/,
    );
    for (const half of [bf16, fp16]) {
      expect(() => half?.validate([1, 1, 17, 128])).not.toThrow();
      expect(() => half?.validate([1, 1, 17, 96])).toThrow(
        /breaks the limit d == 64 or d == 128: the tensor-core flash kernels have tiles for head dimensions 64 and 128$/,
      );
    }
  });

  test('the shapes: d = 128 is measured and checked in bf16 and fp16 only', async () => {
    const [fp32, bf16, fp16] = await findCaseInEveryDtype('attention');
    const has128 = (shapes: readonly (readonly number[])[]) => shapes.some((s) => s[3] === 128);
    expect(fp32?.shapes('cuda').map((s) => s.label)).toEqual(['32x12x512x64']);
    expect(has128(fp32?.testShapes ?? [])).toBe(false);
    for (const half of [bf16, fp16]) {
      expect(half?.shapes('cuda').map((s) => s.label)).toEqual(['32x12x512x64', '8x16x4096x128']);
      expect(half?.testShapes.filter((s) => s[3] === 128)).toEqual([
        [1, 1, 1, 128],
        [2, 2, 128, 128],
        [1, 3, 129, 128],
        [2, 1, 257, 128],
      ]);
    }
  });

  test('flops and traffic follow d', async () => {
    const [, bf16] = await findCaseInEveryDtype('attention');
    expect(bf16?.flops?.([8, 16, 4096, 128])).toBe(8 * 16 * 4 * 128 * ((4096 * 4097) / 2));
    const qkv = 8 * 16 * 4096 * 128;
    const scores = 8 * 16 * 4096 * 4096;
    expect(bf16?.traffic([8, 16, 4096, 128])).toEqual({
      unfused: { bytes: 2 * (4 * qkv + 8 * scores), launches: 5 },
      fused: { bytes: 2 * 4 * qkv, launches: 1 },
    });
  });
});

describe('attention traffic', () => {
  test('at the CUDA shape', () => {
    const [b, h, s] = [32, 12, 512];
    const qkv = b * h * s * 64;
    const scores = b * h * s * s;
    expect(attention.traffic([b, h, s, 64])).toEqual({
      unfused: { bytes: 4 * (4 * qkv + 8 * scores), launches: 5 },
      fused: { bytes: 4 * 4 * qkv, launches: 1 },
    });
    const c = h * 64;
    expect(attentionLayerNormResidual.traffic([b, h, s, 64])).toEqual({
      unfused: { bytes: 4 * (11 * qkv + 8 * scores + 2 * c), launches: 8 },
      fused: { bytes: 4 * (7 * qkv + 2 * c), launches: 2 },
    });
  });
});
