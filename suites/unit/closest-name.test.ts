// "did you mean" for a mistyped case name: the closest name when it is within a typo's distance, else none.
import { describe, expect, test } from 'vitest';
import { findCase } from '../../cases/registry.ts';
import { closestName } from '../../src/base/closest-name.ts';

const NAMES = ['gelu_scale', 'bias_gelu', 'gpt2_decode', 'gpt2_forward', 'llama_decode', 'attention', 'ffn', 'gemm'];

describe('closestName', () => {
  test.each([
    ['gelu_scal', 'gelu_scale'], // a letter left out
    ['gleu_scale', 'gelu_scale'], // two swapped
    ['GELU_SCALE', 'gelu_scale'], // case
    ['gpt2_decod', 'gpt2_decode'],
    ['gpt2-forward', 'gpt2_forward'], // a dash for the underscore
    ['atention', 'attention'],
    ['lama_decode', 'llama_decode'],
  ])('%s → %s', (typed, meant) => {
    expect(closestName(typed, NAMES)).toBe(meant);
  });

  test.each(['softmax', 'gpu', 'x', 'ff', 'decode'])('%s is no typo of any name: none', (typed) => {
    expect(closestName(typed, NAMES)).toBeUndefined();
  });

  test('an unknown case says what it likely meant, then every name', async () => {
    await expect(findCase('gelu_scal')).rejects.toThrow(
      /^Unknown case 'gelu_scal' \(did you mean 'gelu_scale'\?\); expected one of: .*gelu_scale/,
    );
    await expect(findCase('softmax')).rejects.toThrow(/^Unknown case 'softmax'; expected one of: /);
  });
});
