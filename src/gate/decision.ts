/**
 * The regression decision. For a metric (the speedup, or the fused kernel's time) let
 * D = log(current) − log(baseline), oriented so that negative is worse, with a 99% bootstrap
 * interval that carries both the current run's noise and the baseline's own uncertainty:
 *   SLOWER    the whole interval is below log(1 − δ)
 *   FASTER    the whole interval is above −log(1 − δ) (a band symmetric in log, as δ's bound is)
 *   SAME      the interval lies inside [log(1 − δ), −log(1 − δ)]
 *   AMBIGUOUS otherwise (the noise is too large to say), and whenever the current run has fewer than
 *             MIN_DECISION_PAIRS pairs: one pair's bootstrap interval has no width, and decided against the
 *             baseline's spread alone it called 37% of unchanged simulated runs SLOWER.
 */
import { quantile } from 'simple-statistics';
import { normal, uniform } from '../base/rng.ts';
import { BOOTSTRAP_SEED, median, medianInPlace, normalQuantile, pairedReplicates } from '../base/stats.ts';
import type { Decision } from '../results/results.ts';
import { classify, MIN_DECISION_PAIRS } from '../results/verdict-rule.ts';
import type { BaselineEntry } from './baseline-file.ts';

/** Settings of a decision. */
export interface DecisionSettings {
  /** δ of the speedup decision (and of the fused time's when `fusedTimeDelta` is absent). */
  delta: number;
  fusedTimeDelta?: number;
  confidence?: number;
  resamples?: number;
  seed?: number;
}

/** Paired samples (milliseconds), unfused[i] and fused[i] measured back to back. */
export interface PairedSamples {
  unfused: readonly number[];
  fused: readonly number[];
}

type Metric = 'speedup' | 'fusedTime';

/** Bootstrap replicates of log(speedup) and log(fused median) from one shared set of resamples. */
function logReplicates(
  u: readonly number[],
  f: readonly number[],
  n: number,
  rand: () => number,
): Record<Metric, number[]> {
  const fusedTime: number[] = [];
  const speedup = pairedReplicates(
    u,
    f,
    (uu, ff) => {
      const mf = medianInPlace(ff);
      fusedTime.push(Math.log(mf));
      return Math.log(medianInPlace(uu) / mf);
    },
    n,
    rand,
  );
  return { speedup, fusedTime };
}

/**
 * Draws of the baseline's log values per bootstrap replicate: resampled from its samples when it
 * has them, else normal in log space with the spread its interval implies, else its point value.
 */
function baselineDraws(entry: BaselineEntry, n: number, rand: () => number): Record<Metric, number[]> {
  const s = entry.samples;
  // The file keeps a copy of at most 200 of the pairs measured. Its spread over-states the uncertainty
  // of a baseline measured with more pairs; that is deliberate: shrinking it by sqrt(kept/measured)
  // assumes sample density at the median, and bimodal timings (tiny kernels' launch gaps) break
  // that and produced false SLOWER verdicts. A wide baseline can turn SAME into AMBIGUOUS, which
  // only warns; it cannot turn SAME into SLOWER.
  if (s && s.unfused.length === s.fused.length && s.unfused.length >= 5)
    return logReplicates(s.unfused, s.fused, n, rand);
  const { estimate, lo, hi, confidence } = entry.speedup;
  const z = normal(rand);
  const sd =
    lo !== undefined && hi !== undefined && hi > lo
      ? (Math.log(hi) - Math.log(lo)) / (2 * normalQuantile(0.5 + (confidence ?? 0.95) / 2))
      : 0;
  return {
    speedup: Array.from({ length: n }, () => Math.log(estimate) + sd * z()),
    fusedTime: new Array<number>(n).fill(Math.log(entry.fusedMedianMs ?? Number.NaN)),
  };
}

/**
 * Decides the speedup and, when the baseline has a fused time, the fused time, of the current
 * samples against a baseline entry. Both decisions share one set of bootstrap resamples.
 */
export function decide(current: PairedSamples, entry: BaselineEntry, settings: DecisionSettings): Decision[] {
  const confidence = settings.confidence ?? 0.99;
  const resamples = settings.resamples ?? 2000;
  const rand = uniform(settings.seed ?? BOOTSTRAP_SEED);
  const base = baselineDraws(entry, resamples, rand);
  const cur = logReplicates(current.unfused, current.fused, resamples, rand);
  const metrics: Metric[] = entry.fusedMedianMs === undefined ? ['speedup'] : ['speedup', 'fusedTime'];
  const alpha = (1 - confidence) / 2;
  // Too few pairs in the run, or in a baseline that keeps its samples (compare's base run): no decision.
  const tooFew =
    Math.min(current.unfused.length, entry.samples?.unfused.length ?? Number.POSITIVE_INFINITY) < MIN_DECISION_PAIRS;
  return metrics.map((metric) => {
    const delta = metric === 'fusedTime' ? (settings.fusedTimeDelta ?? settings.delta) : settings.delta;
    const sign = metric === 'speedup' ? 1 : -1; // a longer fused time is worse
    const diffs = cur[metric].map((c, i) => sign * (c - (base[metric][i] as number)));
    const baseline = metric === 'speedup' ? entry.speedup.estimate : (entry.fusedMedianMs as number);
    const value = metric === 'speedup' ? median(current.unfused) / median(current.fused) : median(current.fused);
    const lo = quantile(diffs, alpha);
    const hi = quantile(diffs, 1 - alpha);
    return {
      metric,
      verdict: tooFew ? 'AMBIGUOUS' : classify(lo, hi, delta),
      baseline,
      current: value,
      diff: { estimate: sign * Math.log(value / baseline), lo, hi, confidence },
      delta,
    };
  });
}
