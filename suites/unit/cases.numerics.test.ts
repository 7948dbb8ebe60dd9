// Numerics of every case on every backend this machine can run: each comparison's two variants at the
// case's small awkward test shapes, on fresh random inputs with every output poisoned first, against
// the float64 reference; on CUDA also with every grid-stride launch capped at 1 and 3 blocks (so each
// thread loops: the unrolled map body, a column carried across strides, rows strided across blocks),
// at the shapes the case lists for it. Case-specific checks live in each case folder's own tests.
import { describe, test } from 'vitest';
import { loadCases } from '../../cases/registry.ts';
import { backendsFor, checkBothVariants, expectCaught } from '../support/numerics-check.ts';

const cases = await loadCases();

describe.each(cases.map((c) => [`${c.name} ${c.dtype}`, c] as const))('%s', (_name, def) => {
  describe.each(backendsFor(def))('on %s', (backend) => {
    test.each(def.testShapes.map((s) => [s] as const))('both variants match the float64 reference at %j', (dims) => {
      checkBothVariants(def, backend, dims);
    });
  });
  // The half precisions' looser tolerances still catch a defect: input elements read wrong (x → x + 1 +
  // |x|: at least 1 larger, so no flat region of GELU or a masked score hides it), every 61st element of
  // the first input at the largest test shape, so every row a sampled reference checks has some.
  test.runIf(def.dtype !== 'fp32')('wrong input elements are still caught at its tolerance', () => {
    const dims = [...(def.testShapes.at(-1) ?? [])];
    expectCaught(def, dims, (inputs) => {
      const first = Object.values(inputs)[0] as Float32Array;
      for (let i = 0; i < first.length; i += 61) {
        const x = first[i] as number;
        first[i] = x + 1 + Math.abs(x);
      }
    });
  });
  const capped = backendsFor(def).includes('cuda') ? def.cappedGridShapes : [];
  describe.runIf(capped.length > 0)('on cuda with grids capped', () => {
    test.each(capped.flatMap((s) => [1, 3].map((maxBlocks) => [s, maxBlocks] as const)))(
      'at %j with at most %i blocks',
      (dims, maxBlocks) => {
        checkBothVariants(def, 'cuda', dims, undefined, { maxBlocks });
      },
    );
  });
});
