/**
 * The timing the gate judged for a measured case: one call per sample (`timing`, the default) or,
 * on launch-bound shapes gated that way, back-to-back calls between two events (`batched`). Compare,
 * history and the exports all read this, as the gate itself does, so they report what the gate decided on. Pure.
 */
import type { Interval, SampleSummary } from '../base/stats.ts';
import type { CaseResult, MeasuredCase } from './results.ts';

/** How a case's samples were timed. */
export type TimingMethod = 'per-call' | 'batched';

/** The summaries, speedup and paired samples of one timing method. */
export interface JudgedTiming {
  method: TimingMethod;
  /** Calls between two events per sample (batched only). */
  callsPerSample: number | undefined;
  unfused: SampleSummary;
  fused: SampleSummary;
  speedup: Interval;
  samples: { unfused: number[]; fused: number[] };
  /** Pairs behind the samples. */
  pairs: number;
}

/** Whether the gate judged this case's batched timing (and the batched samples are there to judge). */
export function gatedOnBatched(c: CaseResult): boolean {
  return c.gatedOn === 'batched' && c.batched !== undefined;
}

/** The timing of `method` (per-call unless asked for batched and the case has it). */
export function timingOf(c: MeasuredCase, method: TimingMethod): JudgedTiming {
  const b = c.batched;
  if (method === 'batched' && b) {
    return {
      method,
      callsPerSample: b.callsPerSample,
      unfused: b.unfused,
      fused: b.fused,
      speedup: b.speedup,
      samples: b.samples,
      pairs: b.samples.fused.length,
    };
  }
  const t = c.timing;
  return {
    method: 'per-call',
    callsPerSample: undefined,
    unfused: t.unfused,
    fused: t.fused,
    speedup: c.speedup,
    samples: t.samples,
    pairs: t.unfused.n,
  };
}

/** The timing the gate judged: batched when `gatedOn` says so, else one call per sample. */
export function judgedTiming(c: MeasuredCase): JudgedTiming {
  return timingOf(c, gatedOnBatched(c) ? 'batched' : 'per-call');
}

/** The timing the gate judges for a result of any status; undefined when it was not measured. */
export function gatedTiming(c: CaseResult): JudgedTiming | undefined {
  const m = asMeasured(c);
  return m && judgedTiming(m);
}

/** "batched, 64 calls between events" or "per call". */
export function methodLabel(t: Pick<JudgedTiming, 'method' | 'callsPerSample'>): string {
  return t.method === 'batched' ? `batched, ${t.callsPerSample ?? '?'} calls between events` : 'per call';
}

/** The case as measured (timing and speedup present), or undefined. */
export function asMeasured(c: CaseResult | undefined): MeasuredCase | undefined {
  return c && c.status === 'measured' && c.timing && c.speedup ? (c as MeasuredCase) : undefined;
}
