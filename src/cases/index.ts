/** Every case fusebench measures, in report order. */
import { attention, attentionLayerNormResidual } from './attention.ts';
import { biasGelu } from './bias-gelu.ts';
import { ffn } from './ffn.ts';
import { geluScale } from './gelu-scale.ts';
import { layerNormLinear } from './layernorm-linear.ts';
import { linearGelu, linearGeluCublasLt } from './linear-gelu.ts';
import { residualLayerNorm } from './residual-layernorm.ts';
import { scaleMaskSoftmax } from './scale-mask-softmax.ts';
import { transformerBlock } from './transformer-block.ts';
import type { CaseDef } from './types.ts';

export const CASES: readonly CaseDef[] = [
  geluScale,
  biasGelu,
  residualLayerNorm,
  scaleMaskSoftmax,
  linearGelu,
  linearGeluCublasLt,
  layerNormLinear,
  ffn,
  attention,
  attentionLayerNormResidual,
  transformerBlock,
];

/** The case called `name`; throws listing the valid names otherwise. */
export function findCase(name: string): CaseDef {
  const c = CASES.find((x) => x.name === name);
  if (!c) throw new Error(`Unknown case '${name}'; expected one of: ${CASES.map((x) => x.name).join(', ')}`);
  return c;
}
