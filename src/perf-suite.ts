/**
 * Declares the Vitest perf tests of the cases: one test per case and shape that checks numerics,
 * measures, runs the regression gate and hands its result to the reporter. A skip carries its reason;
 * a wrong answer or a SLOWER verdict fails the test with the numbers.
 */
import { describe, expect, test } from 'vitest';
import type { CaseDef, Shape } from './case/types.ts';
import { gateCase } from './gate/gate.ts';
import { budgetMs, perfOptions, runBackend, runBaselines, runDevice, updateCommand } from './perf-context.ts';
import type { CaseResult } from './results.ts';
import { resultSkeleton, runCase } from './run-case.ts';

function measure(def: CaseDef, shape: Shape, budget: number, halfWidth: number, previous?: CaseResult): CaseResult {
  const opts = perfOptions();
  return runCase(def, shape, runDevice(), {
    budgetMs: budget,
    minPairs: opts.minPairs,
    warmupPairs: opts.warmupPairs,
    targetHalfWidth: halfWidth,
    seed: opts.seed,
    maxElements: opts.maxElements,
    inject: opts.inject?.case === def.name ? opts.inject : undefined,
    previous: previous?.timing?.samples,
  });
}

/**
 * Measures, then gates. An AMBIGUOUS verdict is measured once more on the same inputs, continuing
 * from the pairs already taken, with twice the budget and half the target interval width, so the
 * second look is tighter than the first rather than a repeat of it.
 */
export function measureAndGate(def: CaseDef, shape: Shape, knownCases: readonly string[]): CaseResult {
  const opts = perfOptions();
  const gate = (r: CaseResult) =>
    gateCase(r, runBaselines(knownCases), runDevice().description, {
      delta: opts.delta,
      updateCommand: updateCommand(),
    });
  let result = measure(def, shape, budgetMs(), opts.targetHalfWidth);
  if (result.status !== 'measured') return result;
  let verdict = gate(result);
  if (verdict.status === 'AMBIGUOUS') {
    result = measure(def, shape, 2 * budgetMs(), opts.targetHalfWidth / 2, result);
    if (result.status !== 'measured') return result;
    verdict = { ...gate(result), remeasured: true };
  }
  return { ...result, gate: verdict };
}

/** Registers the perf tests of every case, in the order given (a case --case excludes is skipped as a whole). */
export function definePerfSuites(cases: readonly CaseDef[]): void {
  const names = cases.map((c) => c.name);
  for (const def of cases) definePerfSuite(def, names);
}

function definePerfSuite(def: CaseDef, knownCases: readonly string[]): void {
  const opts = perfOptions();
  const excluded = opts.cases.length > 0 && !opts.cases.includes(def.name);
  describe.skipIf(excluded)(def.title, () => {
    for (const shape of def.shapes(runBackend().backend)) {
      test(`${def.name} ${shape.label}`, (ctx) => {
        runBaselines(knownCases); // a broken baseline file stops the run before anything is measured
        const record = (result: CaseResult) => {
          ctx.task.meta.fusebench = {
            result,
            device: runDevice().description,
            backendReason: runBackend().why,
            budgetMs: budgetMs(),
          };
        };
        let result: CaseResult;
        try {
          result = measureAndGate(def, shape, knownCases);
        } catch (e) {
          // A case that throws (a CUDA error, a bad shape) is reported as errored, with the message.
          record({ ...resultSkeleton(def, shape), status: 'errored', reason: (e as Error).message });
          throw e;
        }
        record(result);
        if (result.status === 'skipped') ctx.skip(result.reason);
        expect(result.status, `${result.key}: ${result.reason ?? ''}`).toBe('measured');
        const g = result.gate;
        if (!g || opts.updateBaselines) return;
        if (g.status === 'FASTER' || g.status === 'NO_BASELINE' || (g.status === 'AMBIGUOUS' && !opts.strict)) {
          console.warn(`fusebench: ${g.message}`);
        }
        if (g.fingerprintNotes.length > 0) {
          const note = `${result.key}: fingerprint differs from the baseline's: ${g.fingerprintNotes.join('; ')}`;
          if (opts.strict) expect.fail(`${note} (--strict refuses to compare)`);
          console.warn(`fusebench: ${note} (compared anyway)`);
        }
        if (!g.gating) return;
        if (g.status === 'SLOWER') expect.fail(g.message);
        if (g.status === 'AMBIGUOUS' && opts.strict) expect.fail(`${g.message} (--strict)`);
      });
    }
  });
}
