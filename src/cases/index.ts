/** Every case fusebench measures, in report order. */
import { geluScale } from './gelu-scale.ts';
import type { CaseDef } from './types.ts';

export const CASES: readonly CaseDef[] = [geluScale];

/** The case called `name`; throws listing the valid names otherwise. */
export function findCase(name: string): CaseDef {
  const c = CASES.find((x) => x.name === name);
  if (!c) throw new Error(`Unknown case '${name}'; expected one of: ${CASES.map((x) => x.name).join(', ')}`);
  return c;
}
