/**
 * Declares the Vitest perf tests of a case: one test per shape that checks numerics, measures,
 * and hands its result to the reporter. A skip carries its reason; a wrong answer fails the test.
 */
import { describe, expect, test } from 'vitest';
import type { CaseDef } from './cases/types.ts';
import './perf-meta.ts';
import { budgetMs, perfOptions, runBackend, runDevice } from './perf-context.ts';
import { runCase } from './run-case.ts';

/** Registers `def`'s perf tests (skipped as a whole when --case excludes it). */
export function definePerfSuite(def: CaseDef): void {
  const opts = perfOptions();
  const excluded = opts.cases.length > 0 && !opts.cases.includes(def.name);
  describe.skipIf(excluded)(def.title, () => {
    for (const shape of def.shapes(runBackend().backend)) {
      test(`${def.name} ${shape.label}`, (ctx) => {
        const device = runDevice();
        const result = runCase(def, shape, device, {
          budgetMs: budgetMs(),
          minPairs: opts.minPairs,
          warmupPairs: opts.warmupPairs,
          targetHalfWidth: opts.targetHalfWidth,
          seed: opts.seed,
          maxElements: opts.maxElements,
        });
        ctx.task.meta.fusebench = {
          result,
          device: device.description,
          backendReason: runBackend().why,
          budgetMs: budgetMs(),
        };
        if (result.status === 'skipped') ctx.skip(result.reason);
        expect(result.status, `${result.key}: ${result.reason ?? ''}`).toBe('measured');
      });
    }
  });
}
