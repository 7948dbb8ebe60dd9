/**
 * An entry's numbers must agree with each other, so a hand edit (or a merge gone wrong) that changes
 * one of them is refused when the file is loaded, naming the field, instead of gating against a number
 * the entry's own samples contradict. What honest recording does is allowed: samples are rounded to 5
 * significant digits and thinned to at most 200 of the pairs, while the estimate and the interval come
 * from all pairs.
 */
import { median } from '../base/stats.ts';

/** The fields of an entry these checks read. */
export interface EntryNumbers {
  unfusedMedianMs?: number;
  fusedMedianMs?: number;
  speedup: { estimate: number; lo?: number; hi?: number };
  sampleCount: number;
  samples?: { unfused: number[]; fused: number[] };
  provenance: { kind: 'measured' | 'reported' };
}

/** A contradiction: the field that disagrees and why. */
export interface Contradiction {
  path: (string | number)[];
  message: string;
}

/** Float rounding between the stored estimate and interval. */
const ROUNDING = 1e-9;
/** estimate vs unfusedMedianMs / fusedMedianMs: exact for a measured entry; a document rounds its numbers. */
const MEDIANS_RATIO_TOLERANCE = { measured: 0.005, reported: 0.05 };
/** Stored median vs the median of the kept samples: all pairs kept (only 5-digit rounding), or thinned. */
const SAMPLE_MEDIAN_TOLERANCE = { all: 0.01, thinned: 0.1 };
/** The least margin around [lo, hi] for the kept samples' ratio: all pairs kept, or thinned. */
const RATIO_MARGIN_FLOOR = { all: 0.01, thinned: 0.05 };

const pct = (x: number) => `${(100 * x).toFixed(x < 0.01 ? 2 : 1)}%`;
const fmt = (x: number) => Number(x.toPrecision(5)).toString();

/**
 * The contradictions of one entry (empty when it is consistent):
 * - `speedup.estimate` outside its own [lo, hi];
 * - `speedup.estimate` ≠ unfusedMedianMs / fusedMedianMs beyond 0.5% (measured) or 5% (reported);
 * - `fusedMedianMs` / `unfusedMedianMs` ≠ the median of the kept samples beyond 1% (all pairs kept) or
 *   10% (thinned);
 * - the kept samples' median(unfused) / median(fused) outside [lo, hi] widened on each side by the
 *   interval's own log-width × √(sampleCount / kept) (about four standard errors of a median from the
 *   kept subset), at least 1% (all kept) or 5% (thinned).
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
  const kept = s.unfused.length;
  const thinned = e.sampleCount > kept;
  const mu = median(s.unfused);
  const mf = median(s.fused);
  const medTol = SAMPLE_MEDIAN_TOLERANCE[thinned ? 'thinned' : 'all'];
  for (const [field, stored, fromSamples] of [
    ['fusedMedianMs', e.fusedMedianMs, mf],
    ['unfusedMedianMs', e.unfusedMedianMs, mu],
  ] as const) {
    if (stored !== undefined && Math.abs(Math.log(stored / fromSamples)) > Math.log1p(medTol)) {
      out.push({
        path: [field],
        message: `${fmt(stored)} ms disagrees with the median of the entry's ${kept} kept samples, ${fmt(fromSamples)} ms (tolerance ${pct(medTol)})`,
      });
    }
  }
  const ratio = mu / mf;
  const [a, b] = lo !== undefined && hi !== undefined ? [lo, hi] : [estimate, estimate];
  const width = Math.log(b / a);
  const margin = Math.max(
    Math.log1p(RATIO_MARGIN_FLOOR[thinned ? 'thinned' : 'all']),
    width * Math.sqrt(Math.max(1, e.sampleCount) / kept),
  );
  if (Math.log(ratio) < Math.log(a) - margin || Math.log(ratio) > Math.log(b) + margin) {
    const [wa, wb] = [a * Math.exp(-margin), b * Math.exp(margin)];
    out.push({
      path: ['speedup', 'estimate'],
      message:
        `${fmt(estimate)} is contradicted by the entry's samples: their median(unfused) / median(fused) is ${fmt(ratio)}, ` +
        `outside [${fmt(wa)}, ${fmt(wb)}] (the interval [${fmt(a)}, ${fmt(b)}] widened for ${kept} of ${e.sampleCount} pairs kept)`,
    });
  }
  return out;
}
