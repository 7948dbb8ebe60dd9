// Shared by the *.numerics.test.ts files: the backends this machine can run, and one check of both
// variants of a case on fresh random inputs with poisoned outputs.
import { expect } from 'vitest';
import type { BackendName, CaseDef } from '../../src/cases/types.ts';
import { cudaProbe, Workspace } from '../../src/native.ts';
import { freshSeed } from '../../src/rng.ts';
import { checkVariant, nativeCaseOf, unavailableReason } from '../../src/run-case.ts';

/** Every backend usable here: the CPU always, CUDA when a device is. */
export const BACKENDS_AT_HAND = cudaProbe().deviceCount > 0 ? (['cpu', 'cuda'] as const) : (['cpu'] as const);

/** The backends at hand that can run `def` (its backends, and on CUDA the libraries it needs). */
export function backendsFor(def: CaseDef): BackendName[] {
  return BACKENDS_AT_HAND.filter((b) => unavailableReason(def, b) === undefined);
}

/** What a check saw for one variant, for case-specific assertions. */
export type VariantCheck = ReturnType<typeof checkVariant> & { variant: string; label: string };

/**
 * Runs both variants of `def` at `dims` on `backend` (one fresh seed, named in every failure) and
 * asserts each matches the float64 reference; `more` adds case-specific assertions per variant.
 * `maxBlocks` caps every CUDA grid-stride launch, so threads loop even at small sizes.
 */
export function checkBothVariants(
  def: CaseDef,
  backend: 'cpu' | 'cuda',
  dims: number[],
  more?: (check: VariantCheck) => void,
  options: { maxBlocks?: number } = {},
): void {
  def.validate(dims);
  const seed = freshSeed();
  const ws = new Workspace(backend, nativeCaseOf(def), dims, def.params, undefined, options);
  try {
    for (const variant of [def.variants.unfused, def.variants.fused]) {
      const check = { ...checkVariant(def, ws, dims, variant, seed), variant, label: `${variant}, seed ${seed}` };
      expect(check.report.failure, check.label).toBeUndefined();
      more?.(check);
    }
  } finally {
    ws.dispose();
  }
}

/**
 * Runs both variants of `def` on the CPU against a reference computed from inputs that `defect`
 * altered (a dropped bias, a wrong row), or against `def`'s own (deliberately wrong) reference when
 * no defect is given: each comparison must fail, so the tolerance catches the defect.
 */
export function expectCaught(
  def: CaseDef,
  dims: number[],
  defect?: (inputs: Record<string, Float32Array>) => void,
): void {
  const wrong: CaseDef = defect
    ? {
        ...def,
        reference: (inputs, d) => {
          const copy = Object.fromEntries(Object.entries(inputs).map(([name, a]) => [name, a.slice()]));
          defect(copy);
          return def.reference(copy, d);
        },
      }
    : def;
  const seed = freshSeed();
  const ws = new Workspace('cpu', nativeCaseOf(def), dims, def.params, undefined);
  try {
    for (const variant of [def.variants.unfused, def.variants.fused]) {
      expect(checkVariant(wrong, ws, dims, variant, seed).report.failure, `${variant}, seed ${seed}`).toMatch(
        /exceeds atol/,
      );
    }
  } finally {
    ws.dispose();
  }
}
