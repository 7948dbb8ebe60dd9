/**
 * Declares the Vitest perf tests of the cases: one test per case and shape that checks numerics,
 * measures, runs the regression gate and hands its result to the reporter. A skip carries its reason;
 * a wrong answer or a SLOWER verdict fails the test with the numbers.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { logText } from '../base/log-text.ts';
import { terminalSize } from '../base/terminal-size.ts';
import type { CaseDef, Shape } from '../case/types.ts';
import { gateCase } from '../gate/gate.ts';
import { LiveProgress } from '../report/live-progress.ts';
import { gatedTiming } from '../results/judged-timing.ts';
import type { CaseResult, GateResult } from '../results/results.ts';
import { budgetMs, perfOptions, runBackend, runBaselines, runDevice, updateCommand } from './perf-context.ts';
import { leftOutByMaxElements, type Progress, resultSkeleton, runCase } from './run-case.ts';

/**
 * The run's live view, so a long measurement is never silent: on a terminal one line redrawn in place (the
 * shape, its phase, pairs, the interval), otherwise a plain line per finished shape. One per worker
 * process: the perf suites run in one.
 */
let liveView: LiveProgress | undefined;
function live(): LiveProgress {
  liveView ??= new LiveProgress(perfOptions().terminalColumns, process.stderr, terminalSize);
  return liveView;
}

/** A shape's place in the run, for the live line. */
interface Slot {
  label: string;
  index: number;
  total: number;
}

function progress(slot: Slot, p: Progress): void {
  const phase = { 'per-call': 'sampling', batched: 'sampling (batched)', graph: 'sampling (graph twin)' }[p.method];
  live().update({ ...slot, phase, pairs: p.pairs, speedup: p.speedup, elapsedMs: p.elapsedMs });
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
function measureAndGate(def: CaseDef, shape: Shape, knownCases: readonly string[], slot: Slot): CaseResult {
  const opts = perfOptions();
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
      onProgress: (p) => progress(slot, p),
      onPhase: (phase) => live().update({ ...slot, phase }),
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

/**
 * A skip of a shape that this device's baselines hold is an error, unless the user chose it (--max-elements;
 * --case and --dtype never reach a shape): a GPU job that lost a library, or found its memory taken, would
 * otherwise stop judging the shape and still pass. Recording baselines skips as it would anyway.
 */
function unjudgedBaseline(result: CaseResult, def: CaseDef, shape: Shape, knownCases: readonly string[]): CaseResult {
  const opts = perfOptions();
  if (result.status !== 'skipped' || opts.updateBaselines) return result;
  if (leftOutByMaxElements(def, shape, opts.maxElements)) return result;
  const baselines = runBaselines(knownCases);
  if (!baselines || !Object.hasOwn(baselines.data.entries, result.key)) return result;
  return {
    ...result,
    status: 'errored',
    reason: `${result.reason ?? 'skipped'}; but ${baselines.file} holds a baseline of it, so it must be judged (leave it out on purpose with --case, --dtype or --max-elements)`,
  };
}

/** Registers the perf tests of every case, in the order given (a case --case or --dtype excludes is skipped as a whole). */
export function definePerfSuites(cases: readonly CaseDef[]): void {
  const names = cases.map((c) => c.name);
  const included = cases.filter((def) => !excluded(def));
  const total = included.reduce((n, def) => n + def.shapes(runBackend().backend).length, 0);
  let index = 0;
  for (const def of cases) {
    const first = index;
    if (!excluded(def)) index += def.shapes(runBackend().backend).length;
    definePerfSuite(def, names, first, total);
  }
  afterAll(() => liveView?.done());
}

/** Whether --case or --dtype leaves this comparison out. */
function excluded(def: CaseDef): boolean {
  const opts = perfOptions();
  return (
    (opts.cases.length > 0 && !opts.cases.includes(def.name)) ||
    (opts.dtypes.length > 0 && !opts.dtypes.includes(def.dtype))
  );
}

function definePerfSuite(def: CaseDef, knownCases: readonly string[], first: number, total: number): void {
  const opts = perfOptions();
  describe.skipIf(excluded(def))(`${def.title} (${def.dtype})`, () => {
    for (const [i, shape] of def.shapes(runBackend().backend).entries()) {
      const slot = { label: `${def.name} ${shape.label} ${def.dtype}`, index: first + i + 1, total };
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
          result = measureAndGate(def, shape, knownCases, slot);
        } catch (e) {
          // A case that throws (a CUDA error, a bad shape) is reported as errored, with the message.
          record({ ...resultSkeleton(def, shape), status: 'errored', reason: (e as Error).message });
          live().finished(slot, { status: 'errored' });
          throw e;
        }
        result = unjudgedBaseline(result, def, shape, knownCases);
        record(result);
        const judged = gatedTiming(result); // the batched calls' on the shapes the gate judges that way
        live().finished(slot, {
          status: result.status,
          ...(judged ? { speedup: judged.speedup, batched: judged.method === 'batched' } : {}),
          ...(result.gate ? { verdict: result.gate.status } : {}),
        });
        if (result.status === 'skipped') ctx.skip(result.reason);
        expect(result.status, `${result.key}: ${result.reason ?? ''}`).toBe('measured');
        const g = result.gate;
        if (!g || opts.updateBaselines) return;
        // A missing baseline is said once per run, by the reporter; a verdict's message once, here (a
        // SLOWER's too: the test then fails with it, and only --verbose shows Vitest's report of that).
        if (g.status === 'SLOWER' || g.status === 'FASTER' || g.status === 'AMBIGUOUS') {
          live().print(`fusebench: ${logText(g.message)}`);
        }
        if (g.fingerprintNotes.length > 0) {
          const note = `${result.key}: fingerprint differs from the baseline's: ${g.fingerprintNotes.join('; ')}`;
          if (opts.strict) expect.fail(`${logText(note)} (--strict refuses to compare)`);
          live().print(`fusebench: ${logText(note)} (compared anyway)`);
        }
        if (!g.gating) return;
        if (g.status === 'SLOWER') expect.fail(logText(g.message));
        if (g.status === 'AMBIGUOUS' && opts.strict) expect.fail(`${logText(g.message)} (--strict)`);
      });
    }
  });
}
