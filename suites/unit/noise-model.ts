// A simulated device for the gate's tests: kernel times with log-normal jitter and rare outliers,
// and a simulated clock so the sampling protocol's time budget is deterministic.
import type { BaselineEntry } from '../../src/gate/baseline-file.ts';
import { decide } from '../../src/gate/decision.ts';
import { worst } from '../../src/gate/gate.ts';
import { thin } from '../../src/gate/update.ts';
import { type Measurement, measurePairs } from '../../src/measure.ts';
import { normal, uniform } from '../../src/rng.ts';

/** Noise of one timed call. */
export interface Noise {
  /** Standard deviation of log(time): 0.03 is ±3% jitter. */
  sigma: number;
  /** Probability that a call is an outlier (preempted, a clock dip). */
  outlierRate: number;
  /** An outlier takes this many times longer, uniformly between the two. */
  outlierFactor: [number, number];
  /** Host time per call beside the kernel (flush, launch, sync), milliseconds. */
  overheadMs: number;
}

/** Realistic for a memory-bound kernel on a GPU with the L2 flushed (see the H200 runs: 1–3% MAD). */
export const REALISTIC: Noise = { sigma: 0.03, outlierRate: 0.02, outlierFactor: [1.2, 2.5], overheadMs: 0.1 };

/** Times one call per `time()` from true medians and a noise model. */
export class SimulatedDevice {
  elapsed = 0;
  readonly #z: () => number;
  readonly #u: () => number;
  readonly #trueMs: { unfused: number; fused: number };
  readonly #noise: Noise;
  constructor(trueMs: { unfused: number; fused: number }, noise: Noise, seed: number) {
    this.#trueMs = trueMs;
    this.#noise = noise;
    this.#u = uniform(seed);
    this.#z = normal(uniform(seed ^ 0x9e3779b9));
  }
  time(variant: string): number {
    const base = variant === 'fused' ? this.#trueMs.fused : this.#trueMs.unfused;
    let t = base * Math.exp(this.#noise.sigma * this.#z());
    if (this.#u() < this.#noise.outlierRate) {
      const [lo, hi] = this.#noise.outlierFactor;
      t *= lo + (hi - lo) * this.#u();
    }
    this.elapsed += t + this.#noise.overheadMs;
    return t;
  }
}

/** Runs the real sampling protocol (default settings) against a simulated device. */
export function simulateRun(
  trueMs: { unfused: number; fused: number },
  noise: Noise,
  seed: number,
  budgetMs = 3000,
): Measurement {
  const dev = new SimulatedDevice(trueMs, noise, seed);
  return measurePairs(
    dev,
    { unfused: 'unfused', fused: 'fused' },
    { minPairs: 30, warmupPairs: 5, budgetMs, targetHalfWidth: 0.01, clock: () => dev.elapsed },
  );
}

/** A measured baseline entry from a simulated run, as the update flow would store it. */
export function baselineFrom(m: Measurement, tolerance = 0.05): BaselineEntry {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
  return {
    case: 'gelu_scale',
    shape: { label: 'sim', dims: [1] },
    dtype: 'fp32',
    unfusedMedianMs: median(m.unfused),
    fusedMedianMs: median(m.fused),
    speedup: { ...m.speedup },
    sampleCount: m.unfused.length,
    samples: thin(m.unfused, m.fused),
    tolerance,
    gating: true,
    provenance: { kind: 'measured', date: '2026-11-21T00:00:00Z', commit: 'simulated' },
  };
}

/** The true kernel times of the simulation: a 2x fusion like gelu_scale at 16M on an H200. */
export const TRUTH = { unfused: 0.08, fused: 0.04 };

/**
 * `trials` comparisons of a run at `current` against a baseline recorded at `base` (fresh seeds
 * for every run); returns how often each overall verdict came out.
 */
export function compareRuns(
  base: { unfused: number; fused: number },
  current: { unfused: number; fused: number },
  noise: Noise,
  trials: number,
  seed: number,
  budgetMs = 3000,
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < trials; i++) {
    const baseline = baselineFrom(simulateRun(base, noise, seed * 1_000_003 + 2 * i, budgetMs));
    const run = simulateRun(current, noise, seed * 1_000_003 + 2 * i + 1, budgetMs);
    const v = worst(decide(run, baseline, { delta: 0.05 }).map((d) => d.verdict));
    counts[v] = (counts[v] ?? 0) + 1;
  }
  return counts;
}
