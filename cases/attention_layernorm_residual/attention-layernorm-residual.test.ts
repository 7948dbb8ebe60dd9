// attention_layernorm_residual beyond the shared numerics suite: the tolerance of each precision catches
// real defects (its shape rules and models are tested beside attention's, in cases/attention).
import { describe, test } from 'vitest';
import { expectCaught, withDefect } from '../../suites/support/numerics-check.ts';
import { findCaseInEveryDtype } from '../registry.ts';

const defs = await findCaseInEveryDtype('attention_layernorm_residual');

describe.each(defs.map((d) => [d.dtype, d] as const))(
  'attention_layernorm_residual %s tolerance catches real defects',
  (_dtype, def) => {
    test('the residual of the neighbouring position', () => {
      expectCaught(
        withDefect(def, (inputs) => {
          const x = inputs.x as Float32Array;
          x.copyWithin(0, 128); // 2 heads: rows of 128
        }),
        [1, 2, 100, 64],
      );
    });
    test('γ left out (γ ≈ 1 ± 0.1)', () => {
      expectCaught(
        withDefect(def, (inputs) => (inputs.gamma as Float32Array).fill(1)),
        [1, 2, 100, 64],
      );
    });
  },
);
