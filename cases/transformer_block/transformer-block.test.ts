// transformer_block (a GPT-2 pre-LN block, one launch per op against the LayerNorm-folded GEMMs with
// fused epilogues and flash attention) beyond the shared numerics suite: the reference agrees with itself
// across batch elements, the tolerance catches real defects, the shape rules hold, and the models.
import { describe, expect, test } from 'vitest';
import type { SampledReference } from '../../src/case/types.ts';
import { expectCaught } from '../../suites/support/numerics-check.ts';
import { findCase, findCaseInEveryDtype } from '../registry.ts';

const transformerBlock = await findCase('transformer_block');

test('the reference samples the last batch element, its first and last positions among them', () => {
  // seq × (4c² + 2cf) multiply-adds past REFERENCE_WORK (2^26): 16 sampled positions.
  const dims = [3, 4000, 1, 8];
  const ref = transformerBlock.reference(transformerBlock.inputs(dims, 7), dims);
  const h = ref.h as SampledReference;
  expect(h.note).toBe('16 of 4,000 rows of batch element 2');
  expect(h.indices[0]).toBe(2 * 4000 * 64); // row 8000, element 0
  expect(h.indices[h.indices.length - 1]).toBe(3 * 4000 * 64 - 1); // the last element of the last row
  expect((ref.y as SampledReference).indices).toEqual(h.indices);
  // Below it, every position of the last batch element.
  const small = [3, 40, 1, 8];
  expect((transformerBlock.reference(transformerBlock.inputs(small, 7), small).h as SampledReference).note).toBe(
    '40 of 40 rows of batch element 2',
  );
  // With one batch element and no more positions than the sample, the reference is whole.
  const whole = [1, 16, 1, 8];
  expect(transformerBlock.reference(transformerBlock.inputs(whole, 7), whole).y).toBeInstanceOf(Float64Array);
});

describe.each((await findCaseInEveryDtype('transformer_block')).map((d) => [d.dtype, d] as const))(
  'transformer_block %s tolerance catches real defects (CPU kernels against a defective reference)',
  (_dtype, def) => {
    const dims = [2, 70, 2, 256];
    test('the out-projection bias left out (h wrong)', () => {
      expectCaught(def, dims, (inputs) => (inputs.b_o as Float32Array).fill(0));
    });
    test('the FFN output bias left out (h right, y wrong)', () => {
      expectCaught(def, dims, (inputs) => (inputs.b2 as Float32Array).fill(0));
    });
    test('LN1 without γ (γ ≈ 1 ± 0.1)', () => {
      expectCaught(def, dims, (inputs) => (inputs.ln1_g as Float32Array).fill(1));
    });
  },
);

describe('transformer_block shape validation', () => {
  test.each([
    [
      [1, 0, 12, 3072],
      /^transformer_block: shape \[1, 0, 12, 3072\] has seq 0; every dimension must be a positive integer$/,
    ],
    [[32, 512, 12], /has 3 dimensions; expected 4 \(batch, seq, heads, f\)/],
    [[1, 16_385, 1, 4], /breaks the limit seq <= 16,384: the unfused twin materializes seq×seq scores per head/],
    [[8192, 1025, 1, 4], /breaks the limit batch·seq <= 8,388,480: fusebench's GEMM grid/],
  ])('refuses %j before any allocation, naming the shape', (dims, message) => {
    expect(() => transformerBlock.validate(dims)).toThrow(message);
  });
});

describe('transformer_block model', () => {
  test('flops, elements and launches at the CUDA shape', () => {
    const dims = [32, 512, 12, 3072];
    const [m, c, f] = [32 * 512, 768, 3072];
    const attentionFlops = 32 * 12 * 4 * 64 * ((512 * 513) / 2);
    expect(transformerBlock.flops?.(dims)).toBe(2 * m * 3 * c * c + attentionFlops + 2 * m * c * c + 4 * m * c * f);
    expect(transformerBlock.elements?.(dims)).toBe(32 * 12 * 512 * 512);
    const [mc, mf, n] = [m * c, m * f, 32 * 12 * 512 * 512];
    expect(transformerBlock.traffic(dims)).toEqual({
      unfused: { bytes: 4 * (40 * mc + 6 * mf + 8 * n + 4 * c * c + 2 * f * c + 9 * c + f), launches: 22 },
      fused: { bytes: 4 * (16 * mc + 8 * m + 2 * mf + 10 * c * c + 4 * f * c + 21 * c + 5 * f), launches: 7 },
    });
  });
  test('the library-fused block (fp32 cublaslt comparison, bf16/fp16 fused) moves its own bytes', async () => {
    const dims = [32, 512, 12, 3072];
    const [m, c, f] = [32 * 512, 768, 3072];
    const [mc, mf] = [m * c, m * f];
    // LN1, QKV+bias, flash, out-proj+bias+x, LN2, FFN1+bias+GELU, FFN2+bias+h.
    const library = 18 * mc + 2 * mf + 4 * c * c + 2 * f * c + 9 * c + f;
    const lt = await findCase('transformer_block_cublaslt');
    expect(lt.dtype).toBe('fp32');
    expect(lt.variants).toEqual({ unfused: 'unfused', fused: 'cublaslt' });
    expect(lt.traffic(dims).fused).toEqual({ bytes: 4 * library, launches: 7 });
    const [, bf16] = await findCaseInEveryDtype('transformer_block');
    expect(bf16?.dtype).toBe('bf16');
    expect(bf16?.traffic(dims).fused).toEqual({ bytes: 2 * library, launches: 7 });
  });
});
