/**
 * An entry's numbers must agree with each other, so a hand edit (or a merge gone wrong) that changes
 * one of them is refused when the file is loaded, naming the field, instead of gating against a number
 * the entry's own samples contradict. What honest recording does is allowed: samples are rounded to 5
 * significant digits and thinned to a random 200 of the pairs, while the medians, the estimate and the
 * interval come from all pairs. A thinned set's own median can sit far from the full one (two modes of
 * a noisy CPU, 11% apart, did it in CI), so a thinned entry is checked against the band of its kept
 * samples' order statistics that a random subset puts around the full median, whatever the distribution.
 */
import { median, medianBand } from '../base/stats.ts';
import type { Contradiction } from '../results/results-consistency.ts';

/** The fields of an entry these checks read. */
export interface EntryNumbers {
  unfusedMedianMs?: number;
  fusedMedianMs?: number;
  speedup: { estimate: number; lo?: number; hi?: number };
  sampleCount: number;
  samples?: { unfused: number[]; fused: number[] };
  provenance: { kind: 'measured' | 'reported' };
}

/** Float rounding between the stored estimate and interval. */
const ROUNDING = 1e-9;
/** estimate vs unfusedMedianMs / fusedMedianMs: exact for a measured entry; a document rounds its numbers. */
const MEDIANS_RATIO_TOLERANCE = { measured: 0.005, reported: 0.05 };
/** Stored median vs the median of the samples when all pairs are kept: only their 5-digit rounding. */
const SAMPLE_MEDIAN_TOLERANCE = 0.01;
/** The least margin around [lo, hi] for the samples' median ratio when all pairs are kept. */
const RATIO_MARGIN_FLOOR = 0.01;
/**
 * Pairs kept in a baseline entry (update.ts `thin`): every pair up to this many, else a random this many.
 * Enough for the decision's bootstrap, small enough to review.
 */
export const MAX_BASELINE_PAIRS = 200;

const pct = (x: number) => `${(100 * x).toFixed(x < 0.01 ? 2 : 1)}%`;
const fmt = (x: number) => Number(x.toPrecision(5)).toString();

/**
 * The contradictions of one entry (empty when it is consistent):
 * - `speedup.estimate` outside its own [lo, hi];
 * - `speedup.estimate` ≠ unfusedMedianMs / fusedMedianMs beyond 0.5% (measured) or 5% (reported);
 * - samples of other than min(sampleCount, 200) pairs (what recording keeps);
 * - all pairs kept: `fusedMedianMs` / `unfusedMedianMs` ≠ the median of the samples beyond 1%, or the
 *   samples' median(unfused) / median(fused) outside [lo, hi] widened by the interval's own log-width
 *   (at least 1%) on each side;
 * - thinned: a stored median outside its kept samples' `medianBand`, or [lo, hi] disjoint from the
 *   ratios the two bands allow, [unfused low / fused high, unfused high / fused low].
 */
export function entryContradictions(e: EntryNumbers): Contradiction[] {
  const out: Contradiction[] = [];
  const { estimate, lo, hi } = e.speedup;
  if (lo !== undefined && hi !== undefined && (estimate < lo * (1 - ROUNDING) || estimate > hi * (1 + ROUNDING))) {
    out.push({
      path: ['speedup', 'estimate'],
      message: `${fmt(estimate)} lies outside the entry's own interval [${fmt(lo)}, ${fmt(hi)}]`,
    });
  }
  if (e.unfusedMedianMs !== undefined && e.fusedMedianMs !== undefined) {
    const ratio = e.unfusedMedianMs / e.fusedMedianMs;
    const tol = MEDIANS_RATIO_TOLERANCE[e.provenance.kind];
    if (Math.abs(Math.log(estimate / ratio)) > Math.log1p(tol)) {
      out.push({
        path: ['speedup', 'estimate'],
        message: `${fmt(estimate)} disagrees with unfusedMedianMs / fusedMedianMs = ${fmt(ratio)} (tolerance ${pct(tol)})`,
      });
    }
  }
  const s = e.samples;
  if (!s || s.unfused.length === 0 || s.unfused.length !== s.fused.length) return out;
  const expected = Math.min(e.sampleCount, MAX_BASELINE_PAIRS);
  if (s.unfused.length !== expected) {
    out.push({
      path: ['samples'],
      message: `${s.unfused.length} pairs kept of ${e.sampleCount}; a recorded entry keeps ${expected} (every pair up to ${MAX_BASELINE_PAIRS}, else a random ${MAX_BASELINE_PAIRS})`,
    });
    return out;
  }
  const check = e.sampleCount > s.unfused.length ? thinnedContradictions : allPairsContradictions;
  out.push(...check(e, s));
  return out;
}

/** The entry's interval, or its estimate alone when it stores none: what its samples are held against. */
function intervalOf(e: EntryNumbers): { a: number; b: number; text: string } {
  const { estimate, lo, hi } = e.speedup;
  if (lo === undefined || hi === undefined) return { a: estimate, b: estimate, text: `its estimate ${fmt(estimate)}` };
  return { a: lo, b: hi, text: `its interval [${fmt(lo)}, ${fmt(hi)}]` };
}

/** The checks of an entry that kept every pair: its samples give its medians and ratio but for rounding. */
function allPairsContradictions(e: EntryNumbers, s: { unfused: number[]; fused: number[] }): Contradiction[] {
  const out: Contradiction[] = [];
  const { a, b } = intervalOf(e);
  const kept = s.unfused.length;
  const mu = median(s.unfused);
  const mf = median(s.fused);
  for (const [field, stored, fromSamples] of [
    ['fusedMedianMs', e.fusedMedianMs, mf],
    ['unfusedMedianMs', e.unfusedMedianMs, mu],
  ] as const) {
    if (stored !== undefined && Math.abs(Math.log(stored / fromSamples)) > Math.log1p(SAMPLE_MEDIAN_TOLERANCE)) {
      out.push({
        path: [field],
        message: `${fmt(stored)} ms disagrees with the median of the entry's ${kept} kept samples, ${fmt(fromSamples)} ms (tolerance ${pct(SAMPLE_MEDIAN_TOLERANCE)})`,
      });
    }
  }
  const ratio = mu / mf;
  const margin = Math.max(Math.log1p(RATIO_MARGIN_FLOOR), Math.log(b / a));
  if (Math.log(ratio) < Math.log(a) - margin || Math.log(ratio) > Math.log(b) + margin) {
    const [wa, wb] = [a * Math.exp(-margin), b * Math.exp(margin)];
    out.push({
      path: ['speedup', 'estimate'],
      message:
        `${fmt(e.speedup.estimate)} is contradicted by the entry's samples: their median(unfused) / median(fused) is ${fmt(ratio)}, ` +
        `outside [${fmt(wa)}, ${fmt(wb)}] (the interval [${fmt(a)}, ${fmt(b)}] widened by its own width)`,
    });
  }
  return out;
}

/** The checks of a thinned entry: its medians and interval must fit where its random subset puts them. */
function thinnedContradictions(e: EntryNumbers, s: { unfused: number[]; fused: number[] }): Contradiction[] {
  const out: Contradiction[] = [];
  const { a, b, text } = intervalOf(e);
  const of = `the entry's ${s.unfused.length} kept samples (of ${e.sampleCount} pairs)`;
  const bands = { unfused: medianBand(s.unfused), fused: medianBand(s.fused) };
  for (const [field, stored, [low, high]] of [
    ['fusedMedianMs', e.fusedMedianMs, bands.fused],
    ['unfusedMedianMs', e.unfusedMedianMs, bands.unfused],
  ] as const) {
    if (stored !== undefined && (stored < low || stored > high)) {
      out.push({
        path: [field],
        message: `${fmt(stored)} ms lies outside [${fmt(low)}, ${fmt(high)}], where ${of} put the median of all pairs`,
      });
    }
  }
  const [rlo, rhi] = [bands.unfused[0] / bands.fused[1], bands.unfused[1] / bands.fused[0]];
  if (b * (1 + ROUNDING) < rlo || a * (1 - ROUNDING) > rhi) {
    out.push({
      path: ['speedup', 'estimate'],
      message:
        `${fmt(e.speedup.estimate)} is contradicted by the entry's samples: ${text} misses ` +
        `[${fmt(rlo)}, ${fmt(rhi)}], where ${of} put median(unfused) / median(fused)`,
    });
  }
  return out;
}
