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
  'linear_gelu',
  'layernorm_linear',
  'ffn',
  'attention',
  'attention_layernorm_residual',
  'transformer_block',
];

let loaded: Promise<CaseDef[]> | undefined;

/** Every comparison of every case, in report order (loaded once; needs the built addon). */
export function loadCases(): Promise<CaseDef[]> {
  loaded ??= loadCaseFolders(CASE_FOLDERS);
  return loaded;
}

/** The comparison called `name`; throws listing the valid names otherwise. */
export async function findCase(name: string): Promise<CaseDef> {
  const cases = await loadCases();
  const c = cases.find((x) => x.name === name);
  if (!c)
    throw new Error(`Unknown case '${name}'; expected one of: ${[...new Set(cases.map((x) => x.name))].join(', ')}`);
  return c;
}
