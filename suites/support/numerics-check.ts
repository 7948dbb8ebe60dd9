// Shared by the numerics suites (suites/unit/cases.numerics.test.ts and each case folder's tests): the
// backends this machine can run, and one check of a case's variants on fresh random inputs with
// poisoned outputs.

import { expect } from 'vitest';
import type { BackendName } from '../../src/addon/device.ts';
import { cudaDeviceInfo, cudaProbe, Workspace } from '../../src/addon/native.ts';
import { freshSeed } from '../../src/base/rng.ts';
import type { CaseDef, Inputs } from '../../src/case/types.ts';
import {
  type VariantCheck as Checked,
  checkVariant,
  checkVariants,
  prepareInputs,
} from '../../src/run/check-variants.ts';

const probe = cudaProbe();

/** Every backend usable here: the CPU always, CUDA when a device is. */
export const BACKENDS_AT_HAND: readonly BackendName[] = probe.deviceCount > 0 ? ['cpu', 'cuda'] : ['cpu'];

// FUSEBENCH_REQUIRE_BACKEND=cuda (the GPU job's numerics step): a machine without a usable CUDA device fails
// here, instead of running the CPU's tests only and passing.
const required = process.env.FUSEBENCH_REQUIRE_BACKEND;
if (required && !(BACKENDS_AT_HAND as readonly string[]).includes(required)) {
  throw new Error(
    `FUSEBENCH_REQUIRE_BACKEND=${JSON.stringify(required)}, but this machine has only ${BACKENDS_AT_HAND.join(', ')}${probe.error ? ` (CUDA: ${probe.error})` : ''}`,
  );
}

const device = BACKENDS_AT_HAND.includes('cuda') ? cudaDeviceInfo() : undefined;

/** The backends at hand that can run `def` (its variants' implementations; on CUDA the libraries and shared memory they need). */
export function backendsFor(def: CaseDef): BackendName[] {
  return BACKENDS_AT_HAND.filter((b) => def.unavailableReason(b, device) === undefined);
}

/** What a check saw for one variant, for case-specific assertions. */
export type VariantCheck = Checked & { variant: string; label: string };

/**
 * Runs both variants of `def` at `dims` on `backend` (one fresh seed, named in every failure) and
 * asserts each matches the float64 reference; `more` adds case-specific assertions per variant.
 * `maxBlocks` caps every CUDA grid-stride launch, so threads loop even at small sizes.
 */
export function checkBothVariants(
  def: CaseDef,
  backend: BackendName,
  dims: readonly number[],
  more?: (check: VariantCheck) => void,
  options: { maxBlocks?: number } = {},
): void {
  const d = [...dims];
  def.validate(d);
  const seed = freshSeed();
  const ws = new Workspace(backend, def.nativeCase, def.dtype, d, [...def.params], undefined, options);
  try {
    const checked = checkVariants(def, ws, d, seed);
    for (const which of ['unfused', 'fused'] as const) {
      const variant = def.variants[which];
      const check = { ...checked[which], variant, label: `${variant}, seed ${seed}` };
      expect(check.report.failure, check.label).toBeUndefined();
      more?.(check);
    }
  } finally {
    ws.dispose();
  }
}

/** `def` with its reference computed from inputs that `defect` altered (a dropped bias, a wrong row). */
export function withDefect(def: CaseDef, defect: (inputs: Inputs) => void): CaseDef {
  return {
    ...def,
    reference: (inputs, d) => {
      const copy = Object.fromEntries(Object.entries(inputs).map(([name, a]) => [name, a.slice()]));
      defect(copy);
      return def.reference(copy, d);
    },
  };
}

/**
 * Runs both variants of `def` on the CPU against a reference computed from inputs that `defect`
 * altered, or against `def`'s own (deliberately wrong) reference when no defect is given: each
 * comparison must fail, so the tolerance catches the defect.
 */
export function expectCaught(def: CaseDef, dims: number[], defect?: (inputs: Inputs) => void): void {
  const wrong = defect ? withDefect(def, defect) : def;
  const seed = freshSeed();
  const ws = new Workspace('cpu', def.nativeCase, def.dtype, dims, [...def.params], undefined);
  try {
    const prepared = prepareInputs(wrong, dims, seed);
    for (const variant of [def.variants.unfused, def.variants.fused]) {
      expect(checkVariant(wrong, ws, variant, prepared).report.failure, `${variant}, seed ${seed}`).toMatch(
        /exceeds atol/,
      );
    }
  } finally {
    ws.dispose();
  }
}
