// The decode cases write the new K/V row into the cache in place, and the check reads it back: a kernel
// whose logits are right but whose cache write is missing or in the wrong row fails, at every test shape,
// in every precision (a logit-only check passes both: the kernel attends over the row it computed).
import { describe, expect, test } from 'vitest';
import { findCaseInEveryDtype } from '../../cases/registry.ts';
import { Workspace } from '../../src/addon/native.ts';
import { freshSeed } from '../../src/base/rng.ts';
import type { CaseDef } from '../../src/case/types.ts';
import { checkVariant, prepareInputs } from '../../src/run/check-variants.ts';

const cases = [...(await findCaseInEveryDtype('gpt2_decode')), ...(await findCaseInEveryDtype('llama_decode'))];
const DIM = (def: CaseDef, name: string, dims: readonly number[]) => dims[def.dimNames.indexOf(name)] as number;

/**
 * Runs `variant` as it is, then undoes or moves its cache write as a broken kernel would: `missing` puts
 * the caches back as uploaded; `early` moves each layer's row pos to pos − 1 and leaves row pos as uploaded.
 */
function brokenWrite(def: CaseDef, dims: readonly number[], fault: 'none' | 'missing' | 'early', variant: string) {
  const d = [...dims];
  const seed = freshSeed();
  const ws = new Workspace('cpu', def.nativeCase, def.dtype, d, [...def.params], undefined);
  try {
    const prepared = prepareInputs(def, d, seed);
    const [layers, ctx, pos] = ['layers', 'ctx', 'pos'].map((n) => DIM(def, n, d)) as [number, number, number];
    const run = () => {
      const kernel = ws.run(variant);
      if (fault === 'none') return kernel;
      for (const name of ['k_cache', 'v_cache']) {
        const before = prepared.inputs[name] as Float32Array;
        const after = fault === 'missing' ? before : ws.download(name);
        if (fault === 'early') {
          const width = before.length / (layers * ctx);
          for (let l = 0; l < layers; l++) {
            const at = (r: number) => (l * ctx + r) * width;
            after.copyWithin(at(pos - 1), at(pos), at(pos) + width);
            after.set(before.subarray(at(pos), at(pos) + width), at(pos));
          }
        }
        ws.upload(name, after);
      }
      return kernel;
    };
    return { report: checkVariant(def, ws, variant, prepared, undefined, run).report, seed };
  } finally {
    ws.dispose();
  }
}

describe.each(cases.map((def) => [`${def.name} ${def.dtype}`, def] as const))('%s', (_, def) => {
  test.each(def.testShapes.map((dims) => [dims.join('x'), dims] as const))(
    'at %s, a cache row not written, or written one row early, fails on the cache; as written, it passes',
    (_label, dims) => {
      for (const variant of [def.variants.unfused, def.variants.fused]) {
        for (const fault of ['missing', 'early'] as const) {
          const { report, seed } = brokenWrite(def, dims, fault, variant);
          expect(report.failure, `${variant} ${fault}, seed ${seed}`).toMatch(
            new RegExp(`^${variant} [kv]_cache(\\[| ).*exceeds atol`),
          );
        }
        const { report, seed } = brokenWrite(def, dims, 'none', variant);
        expect(report.failure, `${variant}, seed ${seed}`).toBeUndefined();
      }
    },
  );
});
