/**
 * A results file's numbers must agree with each other, as a baseline file's must (gate/baseline-consistency.ts).
 * A perf run derives every summary, speedup, rate and verdict from the samples it keeps, so a hand edit or a
 * merge gone wrong that changes one of them is refused when the file is read, naming the field, instead of
 * reaching a report, a comparison or the history as a number its own samples contradict. A run keeps every pair
 * it summarized (up to MAX_PAIRS), so the checks are exact up to float rounding. A copy whose samples were cut
 * afterwards (the test fixtures) must say so (`samplesThinned`); its medians are then held to the band where its
 * kept samples put the median of all pairs. Pure.
 *
 * What a file cannot show is not checked: a decision's interval (it needs the baseline), the speedups' intervals
 * (a bootstrap of up to 20,000 pairs per read would take seconds a shape), and the gate's message. A recorded
 * AMBIGUOUS is never refused: the gate also says it for a baseline of fewer than 10 pairs, whatever the interval.
 * Every other verdict must be the one its interval and δ give; a FASTER written before 6febc14 (2026-11-28, when
 * the band's upper edge was log(1 + δ), not −log(1 − δ)) is accepted by that edge too.
 */
import { median, medianBand, SAMPLE_ROUNDING, type SampleSummary, summarize } from '../base/stats.ts';
import { classify, judgedVerdict, type Verdict } from './verdict-rule.ts';

/** A contradiction: the field that disagrees and why. */
export interface Contradiction {
  path: (string | number)[];
  message: string;
}

type Samples<A extends string, B extends string> = Record<A | B, number[]>;
/** Summaries of two timings, their speedup and the paired samples behind them. */
type Timed<A extends string, B extends string> = Record<A | B, SampleSummary> & {
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
interface CaseNumbers {
  dtype: 'fp32' | 'bf16' | 'fp16';
  traffic: { fused: { bytes: number }; theoreticalSpeedup: number };
  flops?: number;
  timing?: Timed<'unfused', 'fused'> & { pairsTaken: number; droppedThrottled: number };
  speedup?: { estimate: number };
  efficiency?: number;
  fusedGBs?: number;
  fusedPctOfCopy?: number;
  tflops?: { unfused: number; fused: number };
  fusedPctOfMatrixPeak?: number;
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
/** relMad (a spread over the median) against its samples': an absolute difference, for the same rounding. */
const RELMAD_ROUNDING = 2e-4;
const agree = (a: number, b: number, rel = ROUNDING) =>
  Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b), 1e-300);
const fmt = (x: number) => Number(x.toPrecision(6)).toString();

/** The device's measured rates that a case's shares are of. */
interface DeviceRates {
  copyBandwidthGBs: number;
  matrixPeakTFlops?: Partial<Record<CaseNumbers['dtype'], number>>;
}

/**
 * The contradictions of one case result (empty when it is consistent). `thinned`: the file says its samples were
 * cut after the run (`samplesThinned`), so a timing may keep fewer samples than its `n`. Paths are relative to the
 * case.
 */
export function caseContradictions(c: CaseNumbers, device: DeviceRates, thinned = false): Contradiction[] {
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
    cut: boolean,
    how: string,
  ) => {
    if (!cut) return derived(path, stored, median(u) / median(f), how, SAMPLE_ROUNDING);
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
      const s: SampleSummary = t[v];
      const xs = t.samples[v];
      const of = `${at}.samples.${v}`;
      if (xs.length > s.n || (xs.length < s.n && !thinned))
        say(
          [at, v, 'n'],
          `${s.n} pairs, but ${of} holds ${xs.length} samples: a run keeps every pair it summarized (a copy cut afterwards says so in samplesThinned)`,
        );
      else if (xs.length < s.n) {
        // A cut copy: the median of all pairs within its kept samples' band.
        const [low, high] = medianBand(xs);
        if (s.median < low || s.median > high)
          say(
            [at, v, 'median'],
            `${fmt(s.median)} lies outside [${fmt(low)}, ${fmt(high)}], where the ${xs.length} kept samples of ${of} (of ${s.n}) put the median of all`,
          );
        if (s.min > Math.min(...xs) * (1 + SAMPLE_ROUNDING) || s.max < Math.max(...xs) * (1 - SAMPLE_ROUNDING))
          say([at, v], `[min, max] = [${fmt(s.min)}, ${fmt(s.max)}] does not hold every value of ${of}`);
      } else {
        const whole = summarize(xs);
        for (const field of ['median', 'mean', 'min', 'max', 'p10', 'p90'] as const)
          derived([at, v, field], s[field], whole[field], `the ${field} of ${of}`, SAMPLE_ROUNDING);
        // A spread relative to the median: samples rounded to 5 digits move it by ~1e-4 at most, not relatively.
        if (Math.abs(s.relMad - whole.relMad) > RELMAD_ROUNDING)
          say([at, v, 'relMad'], `${fmt(s.relMad)} disagrees with the relMad of ${of} = ${fmt(whole.relMad)}`);
      }
    }
    if (speedup)
      ratio(
        [...(at === 'timing' ? [] : [at]), 'speedup', 'estimate'],
        speedup.estimate,
        [t.samples[a], t.samples[b]],
        t.samples[a].length < t[a].n,
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
      (100 * gbs) / device.copyBandwidthGBs,
      "fusedGBs as a share of the device's copy bandwidth",
    );
  }
  if (c.timing && c.tflops && c.flops !== undefined)
    for (const v of ['unfused', 'fused'] as const)
      derived(['tflops', v], c.tflops[v], c.flops / (c.timing[v].median / 1e3) / 1e12, `flops / timing.${v}.median`);
  const peak = device.matrixPeakTFlops?.[c.dtype];
  if (c.tflops && peak !== undefined)
    derived(
      ['fusedPctOfMatrixPeak'],
      c.fusedPctOfMatrixPeak,
      (100 * c.tflops.fused) / peak,
      `tflops.fused as a share of the device's ${c.dtype} matrix peak`,
    );

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
      const cut = judged.samples.unfused.length < judged.unfused.n;
      if (d.metric === 'speedup')
        ratio(
          [...at, 'current'],
          d.current,
          [u, f],
          cut,
          `the median of ${judgedAt}.samples.unfused / the median of ${judgedAt}.samples.fused`,
        );
      else if (!cut)
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
    const fasterBefore6febc14 = d.verdict === 'FASTER' && d.diff.lo > Math.log1p(d.delta);
    if (d.verdict !== 'AMBIGUOUS' && d.verdict !== rule && !fasterBefore6febc14)
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
