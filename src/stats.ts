/**
 * Statistics of timing samples: medians, spread, and the bootstrap confidence interval of a
 * speedup. Built from simple-statistics pieces; every resampling is seeded, so the same samples
 * always give the same interval.
 */
import {
  max,
  mean,
  medianAbsoluteDeviation,
  median as ssMedian,
  min,
  quantile,
  sampleWithReplacement,
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

/**
 * Bootstrap percentile interval of any statistic of paired samples. Pairs are resampled together
 * (index i of both arrays was measured back to back), which keeps drift common to both.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  statistic: (a: number[], b: number[]) => number,
  options: { confidence?: number; resamples?: number; seed?: number } = {},
): Interval {
  if (a.length !== b.length || a.length === 0) {
    throw new Error(`paired bootstrap needs two equal, non-empty samples (got ${a.length} and ${b.length})`);
  }
  const confidence = options.confidence ?? 0.95;
  const resamples = options.resamples ?? 2000;
  const rand = uniform(options.seed ?? BOOTSTRAP_SEED);
  const indices = a.map((_, i) => i);
  const stats = new Array<number>(resamples);
  const ra = new Array<number>(a.length);
  const rb = new Array<number>(a.length);
  for (let r = 0; r < resamples; r++) {
    const pick = sampleWithReplacement(indices, indices.length, rand);
    for (let i = 0; i < pick.length; i++) {
      const k = pick[i] as number;
      ra[i] = a[k] as number;
      rb[i] = b[k] as number;
    }
    stats[r] = statistic(ra, rb);
  }
  const alpha = (1 - confidence) / 2;
  return {
    estimate: statistic([...a], [...b]),
    lo: quantile(stats, alpha),
    hi: quantile(stats, 1 - alpha),
    confidence,
  };
}

/** Speedup = median(unfused) / median(fused), with its paired-bootstrap interval. */
export function speedupInterval(
  unfused: readonly number[],
  fused: readonly number[],
  options: { confidence?: number; resamples?: number; seed?: number } = {},
): Interval {
  return pairedBootstrap(unfused, fused, (u, f) => median(u) / median(f), options);
}

/** Half the interval's width relative to its estimate (0.01 = ±1%). */
export function relativeHalfWidth(iv: Interval): number {
  return (iv.hi - iv.lo) / 2 / iv.estimate;
}
