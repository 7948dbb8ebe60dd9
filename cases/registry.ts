/**
 * The cases fusebench measures, in report order: one line per case folder, with its descriptor imported
 * above. Each folder holds the case's TypeScript descriptor (case.ts), its kernels and its native
 * registration; the perf suites, the numerics suite and the contract test are generated from this list.
 */
import { closestName } from '../src/base/closest-name.ts';
import { type CaseFolder, loadCaseFolders } from '../src/case/load.ts';
import type { CaseDef } from '../src/case/types.ts';
import attention from './attention/case.ts';
import attentionLayernormResidual from './attention_layernorm_residual/case.ts';
import biasGelu from './bias_gelu/case.ts';
import ffn from './ffn/case.ts';
import geluScale from './gelu_scale/case.ts';
import gemm from './gemm/case.ts';
import gpt2Decode from './gpt2_decode/case.ts';
import gpt2Forward from './gpt2_forward/case.ts';
import layernormLinear from './layernorm_linear/case.ts';
import linearGelu from './linear_gelu/case.ts';
import llamaDecode from './llama_decode/case.ts';
import residualLayernorm from './residual_layernorm/case.ts';
import rmsnormResidual from './rmsnorm_residual/case.ts';
import scaleMaskSoftmax from './scale_mask_softmax/case.ts';
import transformerBlock from './transformer_block/case.ts';

/** Each case folder and its descriptor (the folder's case.ts), in report order. */
const CASES: readonly CaseFolder[] = [
  ['gelu_scale', geluScale],
  ['bias_gelu', biasGelu],
  ['residual_layernorm', residualLayernorm],
  ['rmsnorm_residual', rmsnormResidual],
  ['scale_mask_softmax', scaleMaskSoftmax],
  ['gemm', gemm],
  ['linear_gelu', linearGelu],
  ['layernorm_linear', layernormLinear],
  ['ffn', ffn],
  ['attention', attention],
  ['attention_layernorm_residual', attentionLayernormResidual],
  ['transformer_block', transformerBlock],
  ['gpt2_forward', gpt2Forward],
  ['gpt2_decode', gpt2Decode],
  ['llama_decode', llamaDecode],
];

/** The case folders, in report order. */
export const CASE_FOLDERS: readonly string[] = CASES.map(([folder]) => folder);

let loaded: Promise<CaseDef[]> | undefined;

/** Every comparison of every case, in report order (loaded once; needs the built addon). */
export function loadCases(): Promise<CaseDef[]> {
  loaded ??= Promise.resolve().then(() => loadCaseFolders(CASES));
  return loaded;
}

/** The comparison called `name` in fp32 (the first precision); throws listing the valid names otherwise. */
export async function findCase(name: string): Promise<CaseDef> {
  return (await findCaseInEveryDtype(name))[0] as CaseDef;
}

/** The comparison called `name` in each precision it runs in, fp32 first; throws listing the valid names if none. */
export async function findCaseInEveryDtype(name: string): Promise<CaseDef[]> {
  const cases = await loadCases();
  const found = cases.filter((x) => x.name === name);
  if (found.length === 0) {
    const names = [...new Set(cases.map((x) => x.name))];
    const meant = closestName(name, names);
    throw new Error(
      `Unknown case '${name}'${meant ? ` (did you mean '${meant}'?)` : ''}; expected one of: ${names.join(', ')}`,
    );
  }
  return found;
}
