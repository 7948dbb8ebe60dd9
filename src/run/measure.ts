/**
 * The sampling protocol. tinybench drives the loop; each iteration times one unfused and one
 * fused call back to back (alternating which goes first, so drift and ordering effects hit both
 * equally) and hands tinybench their device time through `overriddenDuration`. At least
 * `minPairs` pairs are taken, then more until the speedup's interval is tight enough or the
 * budget is spent, or MAX_PAIRS pairs are taken. Pairs taken while the GPU reported throttling are dropped
 * when enough remain.
 */
import { Bench } from 'tinybench';
import type { ClockSample } from '../addon/native.ts';
import { type Interval, relativeHalfWidth, speedupInterval } from '../base/stats.ts';
import { MAX_PAIRS, type STOP_REASONS } from '../results/results.ts';

/** A pair of variants that can be timed one call at a time (milliseconds of device time). */
export interface Timed {
  time(variant: string): number;
}

/** Settings of one measurement. */
export interface MeasureSettings {
  minPairs: number;
  warmupPairs: number;
  budgetMs: number;
  targetHalfWidth: number;
  /** Reads the GPU clocks after each pair; null when unavailable. */
  sampleClocks?: () => ClockSample | null;
  /** Pairs already measured on the same inputs, continued rather than thrown away (the AMBIGUOUS re-measure). */
  previous?: { unfused: readonly number[]; fused: readonly number[] };
  /** Milliseconds clock for the budget (default performance.now; the gate's simulation passes a simulated one). */
  clock?: () => number;
  /**
   * Called before the first round (no interval yet: a round of batches takes seconds, and a live line would
   * stand still), after each round with the interval so far, and once more when the measurement ends.
   */
  onRound?: (r: { pairs: number; speedup?: Interval; elapsedMs: number; done: boolean }) => void;
}

/** NVML clock-event reasons that mean the clocks were held down: power cap, thermal, power brake. */
export const THROTTLE_MASK = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

/** Clock readings across a measurement. */
interface ClockSummary {
  smMHz: { min: number; median: number; max: number };
  memMHz: { min: number; median: number; max: number };
  throttledPairs: number;
  /** OR of every clock-event reason seen. */
  reasonsSeen: number;
}

/** The samples of one measurement and how it ended. */
export interface Measurement {
  unfused: number[];
  fused: number[];
  pairsTaken: number;
  droppedThrottled: number;
  stopReason: (typeof STOP_REASONS)[number];
  wallMs: number;
  speedup: Interval;
  clocks: ClockSummary | null;
}

function range(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0] ?? 0, median: s[Math.floor(s.length / 2)] ?? 0, max: s[s.length - 1] ?? 0 };
}

/** Measures interleaved unfused/fused pairs until converged or out of budget. */
export function measurePairs(
  target: Timed,
  variants: { unfused: string; fused: string },
  s: MeasureSettings,
): Measurement {
  const u: number[] = [...(s.previous?.unfused ?? [])];
  const f: number[] = [...(s.previous?.fused ?? [])];
  const clocks: (ClockSample | null)[] = u.map(() => null);
  let recording = false;
  let pair = u.length;
  const now = s.clock ?? (() => performance.now());
  const start = now();

  const runRound = (iterations: number, warmup: boolean) => {
    const bench = new Bench({
      iterations,
      time: 0,
      warmup,
      warmupIterations: s.warmupPairs,
      warmupTime: 0,
      throws: true,
      retainSamples: false,
    });
    bench.add(
      'pair',
      () => {
        const t0 = now();
        const first = pair % 2 === 0 ? variants.unfused : variants.fused;
        const second = pair % 2 === 0 ? variants.fused : variants.unfused;
        const a = target.time(first);
        const b = target.time(second);
        // tinybench may run a round's function once more than asked: past the cap, that pair is not kept.
        if (recording && u.length < MAX_PAIRS) {
          pair++;
          u.push(first === variants.unfused ? a : b);
          f.push(first === variants.fused ? a : b);
          clocks.push(s.sampleClocks ? s.sampleClocks() : null);
        }
        return { overriddenDuration: a + b, overriddenIterationCost: now() - t0 };
      },
      {
        beforeAll(mode) {
          recording = mode === 'run';
        },
      },
    );
    bench.runSync();
  };

  const room = () => MAX_PAIRS - u.length;
  if (s.minPairs > MAX_PAIRS) throw new Error(`minPairs ${s.minPairs} is above the cap of ${MAX_PAIRS} pairs`);
  s.onRound?.({ pairs: u.length, elapsedMs: 0, done: false });
  if (room() > 0) runRound(Math.min(s.minPairs, room()), s.warmupPairs > 0);
  let stopReason: Measurement['stopReason'] = 'budget';
  for (;;) {
    const iv = speedupInterval(kept(u, clocks, s.minPairs), kept(f, clocks, s.minPairs), { resamples: 500 });
    const elapsed = now() - start;
    const converged = relativeHalfWidth(iv) <= s.targetHalfWidth;
    s.onRound?.({
      pairs: u.length,
      speedup: iv,
      elapsedMs: elapsed,
      done: converged || elapsed >= s.budgetMs || room() <= 0,
    });
    if (converged) {
      stopReason = 'converged';
      break;
    }
    if (elapsed >= s.budgetMs) break;
    if (room() <= 0) {
      stopReason = 'pair cap';
      break;
    }
    const perPair = elapsed / u.length;
    const more = Math.max(1, Math.min(Math.ceil(u.length * 0.5), Math.floor((s.budgetMs - elapsed) / perPair), room()));
    runRound(more, false);
  }

  const keptU = kept(u, clocks, s.minPairs);
  const keptF = kept(f, clocks, s.minPairs);
  const readings = clocks.filter((c): c is ClockSample => c !== null);
  return {
    unfused: keptU,
    fused: keptF,
    pairsTaken: u.length,
    droppedThrottled: u.length - keptU.length,
    stopReason,
    wallMs: now() - start,
    speedup: speedupInterval(keptU, keptF),
    clocks:
      readings.length === 0
        ? null
        : {
            smMHz: range(readings.map((c) => c.smClockMHz)),
            memMHz: range(readings.map((c) => c.memClockMHz)),
            throttledPairs: readings.filter((c) => (c.clockEventReasons & THROTTLE_MASK) !== 0).length,
            reasonsSeen: readings.reduce((acc, c) => acc | c.clockEventReasons, 0),
          },
  };
}

/** The samples of unthrottled pairs, or all of them when fewer than `min` pairs are unthrottled. */
function kept(xs: number[], clocks: (ClockSample | null)[], min: number): number[] {
  const out = xs.filter((_, i) => ((clocks[i]?.clockEventReasons ?? 0) & THROTTLE_MASK) === 0);
  return out.length >= min ? out : xs;
}
