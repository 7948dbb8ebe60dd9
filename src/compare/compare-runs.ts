/**
 * Two runs of one device model compared with the gate's own statistics (src/gate/decision.ts): the
 * base run's result for a case becomes a baseline entry (its samples, speedup and fused median) and
 * the head run's paired samples are decided against it, speedup and fused time, on the 99% bootstrap
 * interval of D = log(head) − log(base). `npm run compare` and the PR comment's "Δ vs base" column
 * both use this, so they always agree. Without a δ given, each case is judged with the δ its gate used on
 * this GPU (the between-run noise of its baselines, per metric), as two runs differ by that shift too. Pure.
 */
import { UNKNOWN_COMMIT } from '../base/source.ts';
import { median } from '../base/stats.ts';
import type { BaselineEntry } from '../gate/baseline-file.ts';
import { decide } from '../gate/decision.ts';
import { DEFAULT_DELTA, fusedTimeFloorOf } from '../gate/tolerance.ts';
import {
  asMeasured,
  gatedOnBatched,
  type JudgedTiming,
  type TimingMethod,
  timingOf,
} from '../results/judged-timing.ts';
import { type CaseResult, type Decision, entryKey, type MeasuredCase, type ResultsFile } from '../results/results.ts';
import { judgedVerdict, MIN_DECISION_PAIRS, type Verdict } from '../results/verdict-rule.ts';

/**
 * δ of a comparison for a case whose head run has no δ from a measured baseline: the gate's δ for an entry
 * recorded from one run. It knows nothing of this GPU's shifts between machines. The gate's floor (1.5%) had
 * judged two unchanged runs on two H100s SLOWER somewhere in 32 of 42 machine pairs (gelu_scale 1K and 1M,
 * from the committed baselines' runs); 5% leaves 17, all of them those launch-bound shapes.
 */
export const COMPARE_DEFAULT_DELTA = DEFAULT_DELTA;

/** The δ of each metric of one case. */
interface CaseDeltas {
  speedup: number;
  fusedTime: number;
}

/**
 * δ of one case: the one given (both metrics); otherwise the δ of each metric the head run's gate used
 * against a measured baseline of this device model (its recorded between-run noise), else the default.
 */
function caseDeltas(head: MeasuredCase, given: number | undefined, fusedMs: number): CaseDeltas {
  if (given !== undefined) return { speedup: given, fusedTime: given };
  const g = head.gate?.baselineSource === 'measured' ? head.gate : undefined;
  const speedup = g?.speedup?.delta ?? COMPARE_DEFAULT_DELTA;
  // Without the gate's fused-time δ (a baseline of another model gates no fused time), the fused time's own
  // floor, as the gate would take it: never the speedup's alone, which a machine's shift of 2% fails.
  return {
    speedup,
    fusedTime: g?.fusedTime?.delta ?? Math.max(speedup, fusedTimeFloorOf(fusedMs)),
  };
}

/** One case, shape and dtype measured in both runs. */
export interface CaseComparison {
  key: string;
  case: string;
  title: string;
  shape: string;
  dtype: string;
  /** Which samples were compared. */
  method: TimingMethod;
  /** Calls between events per sample, when batched. */
  callsPerSample: number | undefined;
  /**
   * Set when one run was gated on batched timing but the other has no batched samples (compared per call),
   * and when the verdict is the fused time's alone (the case calls the speedup ungated).
   */
  methodNote: string | undefined;
  /** The worse of the two decisions. */
  verdict: Verdict;
  speedup: Decision;
  fusedTime: Decision | undefined;
}

/** A key present in both runs but not measured in both. */
interface NotCompared {
  key: string;
  base: CaseResult['status'];
  head: CaseResult['status'];
}

/** The comparison of two runs. */
export interface RunComparison {
  /** The δ given for every case, or undefined when each case has its own (caseDeltas). */
  delta: number | undefined;
  device: { name: string; slug: string };
  compared: CaseComparison[];
  /** Keys only in the head run. */
  added: string[];
  /** Keys only in the base run. */
  removed: string[];
  notCompared: NotCompared[];
}

const keyOf = (c: CaseResult) => entryKey(c.case, c.shape.label, c.dtype);

/**
 * A run's result for one case as the baseline entry the gate would decide against. Its point values come
 * from the samples the file holds, as the head's do (decide): a file's samples need not give back the
 * medians it recorded (h200-results.json keeps 40 samples of gelu_scale 1K: 1.59x, against its recorded
 * 1.65x), and the change is then what the interval is about, and ±0.0% for a file compared with itself.
 */
function baselineEntryOf(c: MeasuredCase, t: JudgedTiming, run: ResultsFile, delta: number): BaselineEntry {
  const unfused = median(t.samples.unfused);
  const fused = median(t.samples.fused);
  return {
    case: c.case,
    shape: { label: c.shape.label, dims: c.shape.dims },
    dtype: c.dtype,
    unfusedMedianMs: unfused,
    fusedMedianMs: fused,
    speedup: { ...t.speedup, estimate: unfused / fused },
    sampleCount: t.pairs,
    samples: { unfused: [...t.samples.unfused], fused: [...t.samples.fused] },
    tolerance: delta,
    gating: true,
    provenance: { kind: 'measured', date: run.createdAt, commit: run.source?.commit ?? UNKNOWN_COMMIT },
  };
}

/**
 * Which samples to compare: batched when either run's gate judged batched timing and both have batched
 * samples; otherwise one call per sample, with a note when the batched samples of one side are missing.
 */
function chooseMethod(base: MeasuredCase, head: MeasuredCase): { method: TimingMethod; note: string | undefined } {
  const wanted = gatedOnBatched(base) || gatedOnBatched(head);
  if (!wanted) return { method: 'per-call', note: undefined };
  if (base.batched && head.batched) return { method: 'batched', note: undefined };
  const missing = base.batched ? 'head' : 'base';
  return {
    method: 'per-call',
    note: `gated on batched timing, but the ${missing} run has no batched samples: compared per call`,
  };
}

/** Why a comparison decided nothing for want of pairs: '' when both runs have MIN_DECISION_PAIRS. */
function fewPairs(base: number, head: number): string {
  const short = [base < MIN_DECISION_PAIRS ? `base ${base}` : '', head < MIN_DECISION_PAIRS ? `head ${head}` : '']
    .filter(Boolean)
    .join(', ');
  return short ? `too few pairs to decide (${short}; at least ${MIN_DECISION_PAIRS})` : '';
}

/** Decides one case of the head run against the same case of the base run (both measured). */
export function compareCase(
  base: MeasuredCase,
  head: MeasuredCase,
  baseRun: ResultsFile,
  given?: number,
): CaseComparison {
  const { method, note } = chooseMethod(base, head);
  const b = timingOf(base, method);
  const h = timingOf(head, method);
  const delta = caseDeltas(head, given, h.fused.median);
  const entry = baselineEntryOf(base, b, baseRun, delta.speedup);
  const [speedup, fusedTime] = decide(h.samples, entry, { delta: delta.speedup, fusedTimeDelta: delta.fusedTime }) as [
    Decision,
    Decision | undefined,
  ];
  const judged = judgedVerdict(speedup, fusedTime, head.ungatedSpeedup ?? base.ungatedSpeedup);
  return {
    key: keyOf(head),
    case: head.case,
    title: head.title,
    shape: head.shape.label,
    dtype: head.dtype,
    method,
    callsPerSample: h.callsPerSample,
    methodNote:
      [note, judged.note, fewPairs(b.samples.unfused.length, h.samples.unfused.length)].filter(Boolean).join('; ') ||
      undefined,
    verdict: judged.verdict,
    speedup,
    fusedTime,
  };
}

/**
 * Compares every key in both runs that was measured in both, in the head run's order; lists the keys
 * only one run has and those not measured in both. The runs must be of one device model (the caller
 * checks: see load-pair.ts).
 */
export function compareResults(base: ResultsFile, head: ResultsFile, delta?: number): RunComparison {
  const baseByKey = new Map(base.cases.map((c) => [keyOf(c), c]));
  const headKeys = new Set(head.cases.map(keyOf));
  const compared: CaseComparison[] = [];
  const notCompared: NotCompared[] = [];
  for (const h of head.cases) {
    const b = baseByKey.get(keyOf(h));
    if (!b) continue;
    const bm = asMeasured(b);
    const hm = asMeasured(h);
    if (bm && hm) compared.push(compareCase(bm, hm, base, delta));
    else notCompared.push({ key: keyOf(h), base: b.status, head: h.status });
  }
  return {
    delta,
    device: { name: head.device.name, slug: head.device.slug },
    compared,
    added: head.cases.map(keyOf).filter((k) => !baseByKey.has(k)),
    removed: base.cases.map(keyOf).filter((k) => !headKeys.has(k)),
    notCompared,
  };
}

/** Verdict counts of a comparison, worst first. */
export function comparisonCounts(cmp: RunComparison): Record<Verdict, number> {
  const n: Record<Verdict, number> = { SLOWER: 0, AMBIGUOUS: 0, FASTER: 0, SAME: 0 };
  for (const c of cmp.compared) n[c.verdict]++;
  return n;
}
