/**
 * The cases fusebench measures, in report order: one line per case folder. Each folder holds the case's
 * TypeScript descriptor (case.ts), its kernels and its native registration; the perf suites, the
 * numerics suite and the contract test are generated from this list.
 */
import { loadCaseFolders } from '../src/case/load.ts';
import type { CaseDef } from '../src/case/types.ts';

export const CASE_FOLDERS: readonly string[] = [
  'gelu_scale',
  'bias_gelu',
  'residual_layernorm',
  'rmsnorm_residual',
  'scale_mask_softmax',
  'gemm',
  'linear_gelu',
  'layernorm_linear',
  'ffn',
  'attention',
  'attention_layernorm_residual',
  'transformer_block',
  'gpt2_forward',
  'gpt2_decode',
  'llama_decode',
];

let loaded: Promise<CaseDef[]> | undefined;

/** Every comparison of every case, in report order (loaded once; needs the built addon). */
export function loadCases(): Promise<CaseDef[]> {
  loaded ??= loadCaseFolders(CASE_FOLDERS);
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
  if (found.length === 0)
    throw new Error(`Unknown case '${name}'; expected one of: ${[...new Set(cases.map((x) => x.name))].join(', ')}`);
  return found;
}
