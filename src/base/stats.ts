/**
 * Statistics of timing samples: medians, spread, and the bootstrap confidence interval of a
 * speedup. Built from simple-statistics pieces; every resampling is seeded, so the same samples
 * always give the same interval.
 */
import {
  errorFunction,
  max,
  mean,
  medianAbsoluteDeviation,
  min,
  quantile,
  quickselect,
  median as ssMedian,
} from 'simple-statistics';
import { uniform } from './rng.ts';

/** Default bootstrap seed: fixed, so an interval is a pure function of its samples. */
export const BOOTSTRAP_SEED = 0x5eed;

/** A point estimate with a two-sided interval at `confidence`. */
export interface Interval {
  estimate: number;
  lo: number;
  hi: number;
  confidence: number;
}

/** Summary of one variant's samples (milliseconds). */
export interface SampleSummary {
  n: number;
  median: number;
  mean: number;
  min: number;
  max: number;
  p10: number;
  p90: number;
  /** Median absolute deviation over the median: a robust coefficient of variation. */
  relMad: number;
}

/** The median of a non-empty array. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of no samples');
  return ssMedian(xs as number[]);
}

/** Robust summary of a non-empty sample. */
export function summarize(xs: readonly number[]): SampleSummary {
  const arr = xs as number[];
  const m = median(arr);
  return {
    n: arr.length,
    median: m,
    mean: mean(arr),
    min: min(arr),
    max: max(arr),
    p10: quantile(arr, 0.1),
    p90: quantile(arr, 0.9),
    relMad: m > 0 ? medianAbsoluteDeviation(arr) / m : 0,
  };
}

/** The median of an array, reordering it in place (no copy): for the bootstrap's inner loop. */
export function medianInPlace(xs: number[]): number {
  const n = xs.length;
  if (n === 0) throw new Error('median of no samples');
  const k = n >> 1;
  quickselect(xs, k);
  const upper = xs[k] as number;
  if (n % 2 === 1) return upper;
  let lower = xs[0] as number; // after the selection everything left of k is <= xs[k]
  for (let i = 1; i < k; i++) if ((xs[i] as number) > lower) lower = xs[i] as number;
  return (lower + upper) / 2;
}

/** Bootstrap options: confidence level, number of resamples, and the seed of the resampling. */
export interface BootstrapOptions {
  confidence?: number;
  resamples?: number;
  seed?: number;
}

/**
 * `resamples` bootstrap replicates of a statistic of paired samples. Pairs are resampled together
 * (index i of both arrays was measured back to back), which keeps drift common to both. The
 * statistic receives scratch arrays it may reorder.
 */
export function pairedReplicates(
  a: readonly number[],
  b: readonly number[],
  statistic: (a: number[], b: number[]) => number,
  resamples: number,
  rand: () => number,
): number[] {
  if (a.length !== b.length || a.length === 0) {
    throw new Error(`paired bootstrap needs two equal, non-empty samples (got ${a.length} and ${b.length})`);
  }
  const n = a.length;
  const ra = new Array<number>(n);
  const rb = new Array<number>(n);
  const out = new Array<number>(resamples);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) {
      const k = Math.floor(rand() * n); // sampling with replacement, as simple-statistics' sampleWithReplacement
      ra[i] = a[k] as number;
      rb[i] = b[k] as number;
    }
    out[r] = statistic(ra, rb);
  }
  return out;
}

/**
 * Bootstrap percentile interval of any statistic of paired samples (seeded: same samples, same interval),
 * widened where needed to hold the estimate itself. A percentile interval can miss it: when the timings
 * step mid-run with exactly half the pairs each side, each median is the mean of the two middle values,
 * in the gap between the modes, where few replicates fall (1.9916–2.0146 about an estimate of 2.0153, in
 * stats.test.ts). An interval that excludes its own estimate is refused wherever it is stored, so the
 * interval is widened to include it, never moved.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  statistic: (a: number[], b: number[]) => number,
  options: BootstrapOptions = {},
): Interval {
  const confidence = options.confidence ?? 0.95;
  const stats = pairedReplicates(a, b, statistic, options.resamples ?? 2000, uniform(options.seed ?? BOOTSTRAP_SEED));
  const alpha = (1 - confidence) / 2;
  const estimate = statistic([...a], [...b]);
  return {
    estimate,
    lo: Math.min(quantile(stats, alpha), estimate),
    hi: Math.max(quantile(stats, 1 - alpha), estimate),
    confidence,
  };
}

/** The ratio of medians, median(u) / median(f), computed in place on scratch arrays. */
const ratioOfMedians = (u: number[], f: number[]): number => medianInPlace(u) / medianInPlace(f);

/** Speedup = median(unfused) / median(fused), with its paired-bootstrap interval. */
export function speedupInterval(
  unfused: readonly number[],
  fused: readonly number[],
  options: BootstrapOptions = {},
): Interval {
  return pairedBootstrap(unfused, fused, ratioOfMedians, options);
}

/** Half the interval's width relative to its estimate (0.01 = ±1%). */
export function relativeHalfWidth(iv: Interval): number {
  return (iv.hi - iv.lo) / 2 / iv.estimate;
}

/**
 * The standard normal's p-quantile, 0 < p < 1, to ~1e-7 (bisection on simple-statistics' error function, whose
 * error is 1.2e-7): 1.95996 at 0.975, 2.57583 at 0.995. simple-statistics' own probit is off by 0.14% there.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new Error(`normalQuantile needs 0 < p < 1; got ${p}`);
  let lo = -40;
  let hi = 40;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (0.5 * (1 + errorFunction(mid / Math.SQRT2)) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Standard deviations of the thinned band's reach. At 200 kept pairs a random subset leaves the median of
 * all pairs outside the band with odds of at most 9e-8 a side (the binomial limit; by exact enumeration
 * less at any finite count of pairs).
 */
const THINNED_Z = 5;
/**
 * Relative slack for a sample stored rounded to 5 significant digits (at most 5e-5 each, so 1e-4 for a ratio of
 * two), as baseline files, older results and some fixtures keep them.
 */
export const SAMPLE_ROUNDING = 1e-4;

/**
 * Where the median of all pairs lies, from a random subset of k of them: between the subset's order
 * statistics `THINNED_Z` standard deviations either side of its middle (a standard deviation is at most
 * √k / 2 ranks), widened for rounding. Distribution-free: the counts of kept samples below and above
 * the median of all pairs are hypergeometric with means of at most k / 2, so the band misses it only at
 * odds of about the normal tail at `THINNED_Z` (for k ≳ 22; below, the band is the subset's whole range).
 */
export function medianBand(samples: readonly number[]): [number, number] {
  const sorted = [...samples].sort((x, y) => x - y);
  const k = sorted.length;
  const reach = Math.ceil((THINNED_Z * Math.sqrt(k)) / 2);
  const low = sorted[Math.max(0, Math.floor((k - 1) / 2) - reach)] as number;
  const high = sorted[Math.min(k - 1, Math.ceil((k - 1) / 2) + reach)] as number;
  return [low * (1 - SAMPLE_ROUNDING), high * (1 + SAMPLE_ROUNDING)];
}
