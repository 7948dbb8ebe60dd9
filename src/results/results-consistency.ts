/**
 * A results file's numbers must agree with each other, as a baseline file's must (gate/baseline-consistency.ts).
 * A perf run derives every summary, speedup, rate and verdict from the samples it keeps, so a hand edit or a
 * merge gone wrong that changes one of them is refused when the file is read, naming the field, instead of
 * reaching a report, a comparison or the history as a number its own samples contradict. The file keeps every
 * pair it was decided on (up to MAX_PAIRS), so the checks are exact up to float rounding. Pure.
 *
 * A recorded AMBIGUOUS is never refused: the gate also says AMBIGUOUS for a baseline with fewer than 10 pairs
 * whatever the interval, and the file does not hold the baseline. Every other verdict must be the one its
 * interval and δ give.
 */
import { median, medianBand } from '../base/stats.ts';
import { classify, judgedVerdict, type Verdict } from './verdict-rule.ts';

/** A contradiction: the field that disagrees and why. */
export interface Contradiction {
  path: (string | number)[];
  message: string;
}

interface Summary {
  n: number;
  median: number;
  min: number;
  max: number;
}
type Samples<A extends string, B extends string> = Record<A | B, number[]>;
/** Summaries of two timings, their speedup and the paired samples behind them. */
type Timed<A extends string, B extends string> = Record<A | B, Summary> & {
  samples: Samples<A, B>;
};
interface DecisionNumbers {
  metric: 'speedup' | 'fusedTime';
  verdict: Verdict;
  baseline: number;
  current: number;
  diff: { estimate: number; lo: number; hi: number };
  delta: number;
}

/** The fields of a case result these checks read. */
export interface CaseNumbers {
  status: string;
  traffic: { fused: { bytes: number }; theoreticalSpeedup: number };
  flops?: number;
  timing?: Timed<'unfused', 'fused'> & { pairsTaken: number; droppedThrottled: number };
  speedup?: { estimate: number };
  efficiency?: number;
  fusedGBs?: number;
  fusedPctOfCopy?: number;
  tflops?: { unfused: number; fused: number };
  batched?: Timed<'unfused', 'fused'> & { speedup: { estimate: number } };
  graphTwin?:
    | (Timed<'graph', 'fused'> & { status: 'measured'; speedup: { estimate: number } })
    | { status: 'unavailable' };
  gatedOn?: 'per-call' | 'batched';
  ungatedSpeedup?: string;
  gate?: { status: Verdict | 'NO_BASELINE'; speedup?: DecisionNumbers; fusedTime?: DecisionNumbers };
}

/** Float rounding between numbers derived from one another (a rate from a median, a log from a ratio). */
const ROUNDING = 1e-9;
/**
 * A summary or ratio against the samples it came from: samples may be stored rounded to 5 significant digits (as
 * older runs and the test fixtures keep them; at most 5e-5 each, so 1e-4 for a ratio of two), which no edit of
 * consequence hides in.
 */
const SAMPLE_ROUNDING = 1e-4;
const agree = (a: number, b: number, rel = ROUNDING) =>
  Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b), 1e-300);
const fmt = (x: number) => Number(x.toPrecision(6)).toString();

/**
 * The contradictions of one case result (empty when it is consistent); `copyBandwidthGBs` is the device's, which
 * `fusedPctOfCopy` is a share of. Paths are relative to the case.
 */
export function caseContradictions(c: CaseNumbers, copyBandwidthGBs: number): Contradiction[] {
  const out: Contradiction[] = [];
  const say = (path: (string | number)[], message: string) => out.push({ path, message });
  const derived = (
    path: (string | number)[],
    stored: number | undefined,
    expected: number,
    how: string,
    rel = ROUNDING,
  ) => {
    if (stored !== undefined && !agree(stored, expected, rel))
      say(path, `${fmt(stored)} disagrees with ${how} = ${fmt(expected)}`);
  };
  /** A stored ratio of medians: exact when the samples are every pair, else within their median bands. */
  const ratio = (
    path: (string | number)[],
    stored: number,
    [u, f]: [number[], number[]],
    thinned: boolean,
    how: string,
  ) => {
    if (!thinned) return derived(path, stored, median(u) / median(f), how, SAMPLE_ROUNDING);
    const [bu, bf] = [medianBand(u), medianBand(f)];
    const [low, high] = [bu[0] / bf[1], bu[1] / bf[0]];
    if (stored < low || stored > high)
      say(path, `${fmt(stored)} lies outside [${fmt(low)}, ${fmt(high)}], where the kept samples put ${how}`);
  };

  const timings = <A extends string, B extends string>(
    at: string,
    t: Timed<A, B> | undefined,
    [a, b]: [A, B],
    speedup: { estimate: number } | undefined,
  ) => {
    if (!t) return;
    for (const v of [a, b]) {
      const s: Summary = t[v];
      const xs = t.samples[v];
      const of = `${at}.samples.${v}`;
      if (xs.length > s.n) say([at, v, 'n'], `${s.n} pairs, but ${of} holds ${xs.length} samples`);
      else if (xs.length < s.n) {
        // A thinned copy (as the test fixtures keep): the median of all pairs within its kept samples' band.
        const [low, high] = medianBand(xs);
        if (s.median < low || s.median > high)
          say(
            [at, v, 'median'],
            `${fmt(s.median)} lies outside [${fmt(low)}, ${fmt(high)}], where the ${xs.length} kept samples of ${of} (of ${s.n}) put the median of all`,
          );
        if (s.min > Math.min(...xs) * (1 + SAMPLE_ROUNDING) || s.max < Math.max(...xs) * (1 - SAMPLE_ROUNDING))
          say([at, v], `[min, max] = [${fmt(s.min)}, ${fmt(s.max)}] does not hold every value of ${of}`);
      } else {
        derived([at, v, 'median'], s.median, median(xs), `the median of ${of}`, SAMPLE_ROUNDING);
        derived([at, v, 'min'], s.min, Math.min(...xs), `the least of ${of}`, SAMPLE_ROUNDING);
        derived([at, v, 'max'], s.max, Math.max(...xs), `the greatest of ${of}`, SAMPLE_ROUNDING);
      }
    }
    if (speedup)
      ratio(
        [...(at === 'timing' ? [] : [at]), 'speedup', 'estimate'],
        speedup.estimate,
        [t.samples[a], t.samples[b]],
        isThinned(t, a),
        `the median of ${at}.samples.${a} / the median of ${at}.samples.${b}`,
      );
  };

  timings('timing', c.timing, ['unfused', 'fused'], c.speedup);
  if (c.timing) {
    const { pairsTaken, droppedThrottled } = c.timing;
    for (const v of ['unfused', 'fused'] as const)
      if (c.timing[v].n !== pairsTaken - droppedThrottled)
        say(
          ['timing', v, 'n'],
          `${c.timing[v].n} disagrees with timing.pairsTaken − timing.droppedThrottled = ${pairsTaken - droppedThrottled}`,
        );
  }
  timings('batched', c.batched, ['unfused', 'fused'], c.batched?.speedup);
  if (c.graphTwin?.status === 'measured') timings('graphTwin', c.graphTwin, ['graph', 'fused'], c.graphTwin.speedup);

  const fusedMs = c.timing?.fused.median;
  if (c.speedup)
    derived(
      ['efficiency'],
      c.efficiency,
      c.speedup.estimate / c.traffic.theoreticalSpeedup,
      'speedup.estimate / traffic.theoreticalSpeedup',
    );
  if (fusedMs !== undefined) {
    const gbs = c.traffic.fused.bytes / (fusedMs / 1e3) / 1e9;
    derived(['fusedGBs'], c.fusedGBs, gbs, 'traffic.fused.bytes / timing.fused.median');
    derived(
      ['fusedPctOfCopy'],
      c.fusedPctOfCopy,
      (100 * gbs) / copyBandwidthGBs,
      "fusedGBs as a share of the device's copy bandwidth",
    );
  }
  if (c.timing && c.tflops && c.flops !== undefined)
    for (const v of ['unfused', 'fused'] as const)
      derived(['tflops', v], c.tflops[v], c.flops / (c.timing[v].median / 1e3) / 1e12, `flops / timing.${v}.median`);

  // The gate's decisions against the samples it judged, and its verdicts against the decision rule.
  const g = c.gate;
  if (!g) return out;
  const judgedAt = c.gatedOn === 'batched' && c.batched ? 'batched' : 'timing';
  const judged = judgedAt === 'batched' ? c.batched : c.timing;
  for (const d of [g.speedup, g.fusedTime]) {
    if (!d) continue;
    const at = ['gate', d.metric];
    if (judged) {
      const { unfused: u, fused: f } = judged.samples;
      const thinned = isThinned(judged, 'unfused');
      if (d.metric === 'speedup')
        ratio(
          [...at, 'current'],
          d.current,
          [u, f],
          thinned,
          `the median of ${judgedAt}.samples.unfused / the median of ${judgedAt}.samples.fused`,
        );
      else if (!thinned)
        derived([...at, 'current'], d.current, median(f), `the median of ${judgedAt}.samples.fused`, SAMPLE_ROUNDING);
      else derived([...at, 'current'], d.current, judged.fused.median, `${judgedAt}.fused.median`);
    }
    const sign = d.metric === 'speedup' ? 1 : -1;
    const diff = sign * Math.log(d.current / d.baseline);
    if (Math.abs(d.diff.estimate - diff) > ROUNDING)
      say(
        [...at, 'diff', 'estimate'],
        `${fmt(d.diff.estimate)} disagrees with ${sign < 0 ? '−' : ''}log(current / baseline) = ${fmt(diff)}`,
      );
    const rule = classify(d.diff.lo, d.diff.hi, d.delta);
    if (d.verdict !== 'AMBIGUOUS' && d.verdict !== rule)
      say(
        [...at, 'verdict'],
        `${d.verdict} disagrees with its interval [${fmt(d.diff.lo)}, ${fmt(d.diff.hi)}] and δ ${fmt(d.delta)}, which give ${rule}`,
      );
  }
  const expected = g.speedup ? judgedVerdict(g.speedup, g.fusedTime, c.ungatedSpeedup).verdict : 'NO_BASELINE';
  if (g.status !== expected)
    say(
      ['gate', 'status'],
      g.speedup
        ? `${g.status} disagrees with its decisions, which give ${expected}`
        : `${g.status}, but the gate holds no speedup decision (expected NO_BASELINE)`,
    );
  return out;
}

/** Whether a timing's samples are a thinned copy: fewer than the pairs its summaries were made from. */
function isThinned<A extends string, B extends string>(t: Timed<A, B>, v: A | B): boolean {
  return t.samples[v].length < t[v].n;
}
