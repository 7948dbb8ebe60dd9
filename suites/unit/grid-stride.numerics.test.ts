// Every CUDA kernel with its grid capped at a few blocks, so each thread loops: the unrolled body of
// the map kernel, the column carried across strides in bias_gelu, and rows strided across blocks in
// the row kernels. At the measured shapes grids cover the data once and these paths stay idle.
import { describe, test } from 'vitest';
import { biasGelu } from '../../src/cases/bias-gelu.ts';
import { geluScale } from '../../src/cases/gelu-scale.ts';
import { residualLayerNorm } from '../../src/cases/residual-layernorm.ts';
import { scaleMaskSoftmax } from '../../src/cases/scale-mask-softmax.ts';
import type { CaseDef } from '../../src/cases/types.ts';
import { cudaProbe } from '../../src/native.ts';
import { checkBothVariants } from './numerics-check.ts';

const cases: [CaseDef, number[]][] = [
  [geluScale, [100_003]],
  [geluScale, [4096]],
  [biasGelu, [333, 767]],
  [biasGelu, [100, 3072]],
  [biasGelu, [4097, 3]],
  [residualLayerNorm, [1000, 768]],
  [residualLayerNorm, [777, 33]],
  [residualLayerNorm, [300, 1028]],
  [scaleMaskSoftmax, [2, 3, 100, 100]],
  [scaleMaskSoftmax, [1, 2, 257, 1025]],
];

describe.runIf(cudaProbe().deviceCount > 0)('CUDA kernels with every thread looping (grids capped)', () => {
  test.each(cases.flatMap(([def, dims]) => [1, 3].map((maxBlocks) => [def.name, dims, maxBlocks, def] as const)))(
    '%s %j with at most %i blocks',
    (_name, dims, maxBlocks, def) => {
      checkBothVariants(def, 'cuda', [...dims], undefined, { maxBlocks });
    },
  );
});
