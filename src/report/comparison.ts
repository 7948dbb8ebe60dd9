/**
 * A run compared with its base run and its stored baseline: one row per case and shape, worst
 * verdict first. The change from the base run is the gate's decision of this run's samples against
 * the base run's (src/compare/compare-runs.ts, the same as `npm run compare`), never a bare ratio of
 * two point estimates. Pure; the PR comment and the Actions job summary both render these rows.
 */
import { type CaseComparison, compareCase } from '../compare/compare-runs.ts';
import { asMeasured, gatedTiming, type JudgedTiming, timingOf } from '../results/judged-timing.ts';
import type { CaseResult, ResultsFile } from '../results/results.ts';
import { caseVerdict, type RowVerdict, verdictGates, verdictRank } from '../results/verdict.ts';

/** The base branch's run for the same GPU, or why there is none. */
export type BaseRun = { results: ResultsFile; why?: undefined } | { results: null; why: string };

/** One case and shape: the speedups that matter for review. */
export interface ComparisonRow {
  key: string;
  title: string;
  shape: string;
  dtype: string;
  verdict: RowVerdict;
  /** False when the verdict does not gate (judged against a baseline entry with `gating: false`). */
  gates: boolean;
  /**
   * This run's speedup and interval, of the timing the gate judged (batched on the launch-bound shapes gated
   * that way, as BENCHMARK_RESULTS.md shows it), or of the one the decision against the base run used when
   * there is one (per call when only one of the two runs has batched samples); undefined when not measured.
   */
  current: { estimate: number; lo: number; hi: number; batched: boolean } | undefined;
  /** The base run's speedup (the same timing as `current`): a number, 'absent' (a new case), or null (not measured there). */
  base: number | 'absent' | null;
  /** The decision of this run against the base run, when the case was measured in both. */
  vsBase: CaseComparison | undefined;
  /** The stored baseline's speedup, from the gate. */
  baseline: number | undefined;
  /** The gate's speedup against the baseline's, as its message gives it (its point from the samples). */
  vsBaseline: number | undefined;
  /** What a reviewer reads next to the verdict: the gate's message or the reason the case did not run. */
  note: string | undefined;
}

/**
 * The base run's speedup: of the timing the decision against it used when there is one (so the two columns and
 * the change between them are of one timing), else of the timing its gate judged.
 */
function baseSpeedup(
  c: CaseResult,
  base: ResultsFile | null,
  vsBase: CaseComparison | undefined,
): ComparisonRow['base'] {
  const b = base?.cases.find((x) => x.key === c.key);
  if (!b) return 'absent';
  return shownTiming(b, vsBase)?.speedup.estimate ?? null;
}

/** A run's timing shown: the one the decision against the base run used, else the one its gate judged. */
function shownTiming(c: CaseResult, vsBase: CaseComparison | undefined): JudgedTiming | undefined {
  const m = asMeasured(c);
  return m && vsBase ? timingOf(m, vsBase.method) : gatedTiming(c);
}

function versusBase(c: CaseResult, base: ResultsFile | null): CaseComparison | undefined {
  const head = asMeasured(c);
  const b = asMeasured(base?.cases.find((x) => x.key === c.key));
  return base && head && b ? compareCase(b, head, base) : undefined;
}

function noteOf(c: CaseResult): string | undefined {
  if (c.status !== 'measured') return c.reason;
  if (!c.gate) return undefined;
  return [c.gate.message, ...c.gate.fingerprintNotes].filter((s) => s.length > 0).join('; ') || undefined;
}

/** One comparison row per case of `results`, worst first (worstFirst), then in the file's order. */
export function compareRuns(results: ResultsFile, base: ResultsFile | null): ComparisonRow[] {
  const rows = results.cases.map((c, index) => {
    const vsBase = versusBase(c, base);
    const timed = shownTiming(c, vsBase);
    const decision = c.gate?.speedup;
    const row: ComparisonRow = {
      key: c.key,
      title: c.title,
      shape: c.shape.label,
      dtype: c.dtype,
      verdict: caseVerdict(c),
      gates: verdictGates(c),
      current: timed && {
        estimate: timed.speedup.estimate,
        lo: timed.speedup.lo,
        hi: timed.speedup.hi,
        batched: timed.method === 'batched',
      },
      base: baseSpeedup(c, base, vsBase),
      vsBase,
      baseline: decision?.baseline,
      vsBaseline: decision && timed ? decision.current / decision.baseline : undefined,
      note: noteOf(c),
    };
    return { row, index };
  });
  rows.sort((a, b) => worstFirst(a.row, b.row) || a.index - b.index);
  return rows.map((r) => r.row);
}

/**
 * How bad a row is: the worse of its verdict against the baseline and its decision against the base run,
 * so a shape the pull request made slower than the base branch sorts, and is kept, with the SLOWER ones
 * even when the baseline calls it SAME.
 */
function rowRank(r: ComparisonRow): number {
  return Math.min(verdictRank(r.verdict), r.vsBase ? verdictRank(r.vsBase.verdict) : Number.POSITIVE_INFINITY);
}

/** The order of the rows, and in which they are kept when not all fit: worst first, then the largest loss vs the baseline. */
export function worstFirst(a: ComparisonRow, b: ComparisonRow): number {
  return rowRank(a) - rowRank(b) || (a.vsBaseline ?? 1) - (b.vsBaseline ?? 1);
}

/**
 * The most of `count` rows (taken in a fixed order) that still fit, when `fits(n)` says whether the first n
 * do and a larger n is never smaller: found by bisection. 0 when none fits.
 */
export function mostThatFit(count: number, fits: (n: number) => boolean): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
