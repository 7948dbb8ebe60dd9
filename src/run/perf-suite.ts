/**
 * Declares the Vitest perf tests of the cases: one test per case and shape that checks numerics,
 * measures, runs the regression gate and hands its result to the reporter. A skip carries its reason;
 * a wrong answer or a SLOWER verdict fails the test with the numbers.
 */
import { describe, expect, test } from 'vitest';
import { logText } from '../base/log-text.ts';
import type { CaseDef, Shape } from '../case/types.ts';
import { gateCase } from '../gate/gate.ts';
import type { CaseResult, GateResult } from '../results/results.ts';
import { budgetMs, perfOptions, runBackend, runBaselines, runDevice, updateCommand } from './perf-context.ts';
import { type Progress, resultSkeleton, runCase } from './run-case.ts';

/**
 * Progress inside a shape, so a long measurement is never silent: on a terminal one line rewritten in
 * place, otherwise a plain line per round of pairs.
 */
function progress(label: string, p: Progress): void {
  const iv = p.speedup;
  const what = { 'per-call': '', batched: ' (batched)', graph: ' (fused vs the graph twin)' }[p.method];
  const text = `fusebench: ${label}${what}: ${p.pairs} pairs, speedup ${iv.estimate.toFixed(3)}x [${iv.lo.toFixed(3)}, ${iv.hi.toFixed(3)}], ${(p.elapsedMs / 1000).toFixed(1)} s`;
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${text}${p.done ? '\n' : ''}`);
  else process.stderr.write(`${text}\n`);
}

/** Pairs a baseline recording takes at least: every later check is judged against it. */
const BASELINE_MIN_PAIRS = 100;

/**
 * Measures, then gates. A baseline recording measures to twice the precision of a check (at least 100
 * pairs, half the target width, twice the budget), since every later check is judged against it. An
 * AMBIGUOUS verdict is measured once more on the same inputs, continuing from the pairs already taken,
 * with four times the budget and a quarter of the target interval width, so the second look is much
 * tighter than the first rather than a repeat of it (suites/unit/gate-noise-aware.test.ts simulates it).
 */
function measureAndGate(def: CaseDef, shape: Shape, knownCases: readonly string[]): CaseResult {
  const opts = perfOptions();
  const label = `${def.name} ${shape.label}`;
  const gate = (r: CaseResult) =>
    gateCase(r, runBaselines(knownCases), runDevice().description, {
      delta: opts.delta,
      updateCommand: updateCommand(),
    });
  const precision = opts.updateBaselines ? 2 : 1;
  let verdict: GateResult | undefined;
  let remeasured = false;
  const result = runCase(
    def,
    shape,
    runDevice(),
    {
      budgetMs: precision * budgetMs(),
      minPairs: opts.updateBaselines ? Math.max(opts.minPairs, BASELINE_MIN_PAIRS) : opts.minPairs,
      warmupPairs: opts.warmupPairs,
      targetHalfWidth: opts.targetHalfWidth / precision,
      seed: opts.seed,
      maxElements: opts.maxElements,
      inject: opts.inject?.case === def.name ? opts.inject : undefined,
      onProgress: (p) => progress(label, p),
    },
    (measured) => {
      verdict = gate(measured);
      if (verdict.status !== 'AMBIGUOUS' || opts.updateBaselines || remeasured) return undefined;
      remeasured = true;
      return { budgetMs: 4 * budgetMs(), targetHalfWidth: opts.targetHalfWidth / 4 };
    },
  );
  if (result.status !== 'measured' || !verdict) return result;
  return { ...result, gate: { ...verdict, remeasured } };
}

/** Registers the perf tests of every case, in the order given (a case --case or --dtype excludes is skipped as a whole). */
export function definePerfSuites(cases: readonly CaseDef[]): void {
  const names = cases.map((c) => c.name);
  for (const def of cases) definePerfSuite(def, names);
}

function definePerfSuite(def: CaseDef, knownCases: readonly string[]): void {
  const opts = perfOptions();
  const excluded =
    (opts.cases.length > 0 && !opts.cases.includes(def.name)) ||
    (opts.dtypes.length > 0 && !opts.dtypes.includes(def.dtype));
  describe.skipIf(excluded)(`${def.title} (${def.dtype})`, () => {
    for (const shape of def.shapes(runBackend().backend)) {
      test(`${def.name} ${shape.label} ${def.dtype}`, (ctx) => {
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
        // A missing baseline is said once per run, by the reporter; the rest per case.
        if (g.status === 'FASTER' || (g.status === 'AMBIGUOUS' && !opts.strict)) {
          console.warn(`fusebench: ${logText(g.message)}`);
        }
        if (g.fingerprintNotes.length > 0) {
          const note = `${result.key}: fingerprint differs from the baseline's: ${g.fingerprintNotes.join('; ')}`;
          if (opts.strict) expect.fail(`${logText(note)} (--strict refuses to compare)`);
          console.warn(`fusebench: ${logText(note)} (compared anyway)`);
        }
        if (!g.gating) return;
        if (g.status === 'SLOWER') expect.fail(logText(g.message));
        if (g.status === 'AMBIGUOUS' && opts.strict) expect.fail(`${logText(g.message)} (--strict)`);
      });
    }
  });
}
