// Numerics of every case on every backend this machine can run: each comparison's two variants at the
// case's small awkward test shapes, on fresh random inputs with every output poisoned first, against
// the float64 reference; on CUDA also with every grid-stride launch capped at 1 and 3 blocks (so each
// thread loops: the unrolled map body, a column carried across strides, rows strided across blocks),
// at the shapes the case lists for it. Case-specific checks live in each case folder's own tests.
import { describe, test } from 'vitest';
import { loadCases } from '../../cases/registry.ts';
import { backendsFor, checkBothVariants } from '../support/numerics-check.ts';

const cases = await loadCases();

describe.each(cases.map((c) => [c.name, c] as const))('%s', (_name, def) => {
  describe.each(backendsFor(def))('on %s', (backend) => {
    test.each(def.testShapes.map((s) => [s] as const))('both variants match the float64 reference at %j', (dims) => {
      checkBothVariants(def, backend, dims);
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
