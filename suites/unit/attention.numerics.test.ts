// Numerics of attention (batched GEMM, scale, mask, softmax, batched GEMM against the flash-style
// kernel) and attention_layernorm_residual (plus merge-heads, residual add and LayerNorm, fused into
// the flash kernel) on every backend at hand, at sequence lengths around the 64-row tiles (1, 17,
// 64, 65, 130: one key, a partial tile, a full tile, one past it, three tiles with a ragged end)
// with 1 to 3 heads and 1 or 2 batch elements; and that the tolerance catches real defects (a causal
// mask off by one among them), and the shape rules hold.
import { describe, expect, test } from 'vitest';
import { attention, attentionLayerNormResidual } from '../../src/cases/attention.ts';
import { causalAttentionRow, HEAD_DIM } from '../../src/cases/reference-math.ts';
import type { CaseDef } from '../../src/cases/types.ts';
import { Workspace } from '../../src/native.ts';
import { backendsFor, checkBothVariants, expectCaught } from './numerics-check.ts';

const attentionShapes: [number, number, number, number][] = [
  [1, 1, 1, 64],
  [1, 2, 17, 64],
  [2, 3, 64, 64],
  [1, 1, 65, 64],
  [2, 2, 130, 64],
  [1, 3, 130, 64],
];

const layerNormShapes: [number, number, number, number][] = [
  [1, 1, 1, 64],
  [1, 2, 17, 64],
  [2, 3, 64, 64],
  [2, 1, 65, 64],
  [1, 3, 130, 64],
];

describe.each(backendsFor(attention))('attention on %s', (backend) => {
  test.each(attentionShapes)('both variants match the float64 reference at [%i, %i, %i, %i]', (...dims) => {
    checkBothVariants(attention, backend, dims);
  });
});

describe.each(backendsFor(attentionLayerNormResidual))('attention_layernorm_residual on %s', (backend) => {
  test.each(layerNormShapes)('both variants match the float64 reference at [%i, %i, %i, %i]', (...dims) => {
    checkBothVariants(attentionLayerNormResidual, backend, dims);
  });
});


/** `def` with a reference computed from defective inputs. */
function withDefect(def: CaseDef, defect: (inputs: Record<string, Float32Array>) => void): CaseDef {
  return {
    ...def,
    reference: (inputs, d) => {
      const copy = Object.fromEntries(Object.entries(inputs).map(([name, a]) => [name, a.slice()]));
      defect(copy);
      return def.reference(copy, d);
    },
  };
}

describe('attention tolerance catches real defects (CPU kernels against a wrong reference)', () => {
  test('a causal mask off by one: query i also sees key i + 1', () => {
    const dims = [1, 2, 300, 64];
    const offByOne: CaseDef = {
      ...attention,
      reference: (inputs, d) => {
        const [, heads, seq] = d as [number, number, number];
        const [q, k, v] = [inputs.q, inputs.k, inputs.v] as [Float32Array, Float32Array, Float32Array];
        const o = new Float64Array(heads * seq * HEAD_DIM);
        for (let h = 0; h < heads; h++) {
          const base = h * seq * HEAD_DIM;
          for (let s = 0; s < seq; s++) {
            const last = Math.min(s + 1, seq - 1); // keys 0 .. s + 1
            // q's row s read as position `last`.
            const qView = { data: q, base: base + (s - last) * HEAD_DIM, stride: HEAD_DIM };
            const row = causalAttentionRow(
              qView,
              { data: k, base, stride: HEAD_DIM },
              { data: v, base, stride: HEAD_DIM },
              last,
            );
            o.set(row, base + s * HEAD_DIM);
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

describe('attention_layernorm_residual tolerance catches real defects', () => {
  test('the residual of the neighbouring position', () => {
    expectCaught(
      withDefect(attentionLayerNormResidual, (inputs) => {
        const x = inputs.x as Float32Array;
        x.copyWithin(0, 128); // 2 heads: rows of 128
      }),
      [1, 2, 100, 64],
    );
  });
  test('γ left out (γ ≈ 1 ± 0.1)', () => {
    expectCaught(
      withDefect(attentionLayerNormResidual, (inputs) => (inputs.gamma as Float32Array).fill(1)),
      [1, 2, 100, 64],
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
        `^${name}: shape \\[1, 1, 17, 32\\] has head dimension 32; the flash kernel's tiles are 64 wide, so it must be 64$`,
      ),
    ],
    [
      [1, 1, 0, 64],
      new RegExp(`^${name}: shape \\[1, 1, 0, 64\\] has dimension 0; every dimension must be a positive integer$`),
    ],
    [[0, 12, 512, 64], /has dimension 0/],
    [[32, 12, 512], /has 3 dimensions; expected 4/],
    [[1, 1, 16_385, 64], /has seq 16385; the unfused twin materializes seq×seq scores per head \(at most 16,384\)/],
    [[2 ** 16, 2 ** 10, 2 ** 7, 64], /has 549755813888 elements in q; the numerics index an operand with 32 bits/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => def.validate(dims)).toThrow(message);
  });

  test('allocatedBytes is 4 bytes per float of the native buffers; elements the score matrix', () => {
    const dims = [2, 3, 65, 64];
    const ws = new Workspace('cpu', def.name, dims, def.params, undefined);
    try {
      expect(def.allocatedBytes?.(dims)).toBe(4 * ws.buffers().reduce((s, b) => s + b.count, 0));
      expect(def.elements?.(dims)).toBe(2 * 3 * 65 * 65);
    } finally {
      ws.dispose();
    }
  });

  test('flops: the useful causal work, 4·64 per unmasked (query, key) pair', () => {
    expect(def.flops?.([1, 1, 1, 64])).toBe(4 * 64);
    expect(def.flops?.([32, 12, 512, 64])).toBe(32 * 12 * 4 * 64 * ((512 * 513) / 2));
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
