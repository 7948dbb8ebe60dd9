/** The timing a measured case is judged on: its per-call timing, or its batched timing when it was gated on that. */
import type { CaseResult } from '../results.ts';
import type { Interval, SampleSummary } from '../stats.ts';

/** The samples, summaries and speedup of the measurement the gate judges. */
export interface GatedTiming {
  method: 'per-call' | 'batched';
  unfused: SampleSummary;
  fused: SampleSummary;
  speedup: Interval;
  samples: { unfused: number[]; fused: number[] };
}

/** The gated timing of a measured case; undefined when it was not measured. */
export function gatedTiming(r: CaseResult): GatedTiming | undefined {
  if (r.gatedOn === 'batched' && r.batched) {
    const b = r.batched;
    return { method: 'batched', unfused: b.unfused, fused: b.fused, speedup: b.speedup, samples: b.samples };
  }
  if (!r.timing || !r.speedup) return undefined;
  const t = r.timing;
  return { method: 'per-call', unfused: t.unfused, fused: t.fused, speedup: r.speedup, samples: t.samples };
}
