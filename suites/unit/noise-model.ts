// A simulated device for the gate's tests: kernel times with log-normal jitter and rare outliers,
// and a simulated clock so the sampling protocol's time budget is deterministic.
import type { BaselineEntry } from '../../src/gate/baseline-file.ts';
import { decide } from '../../src/gate/decision.ts';
import { worst } from '../../src/gate/gate.ts';
import { type BaselineRun, deltaFromNoise, runNoise } from '../../src/gate/tolerance.ts';
import { thin } from '../../src/gate/update.ts';
import { type Measurement, measurePairs } from '../../src/measure.ts';
import { normal, uniform } from '../../src/rng.ts';
import { relativeHalfWidth } from '../../src/stats.ts';

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
  protocol: { minPairs: number; targetHalfWidth: number } = { minPairs: 30, targetHalfWidth: 0.01 },
): Measurement {
  const dev = new SimulatedDevice(trueMs, noise, seed);
  return measurePairs(
    dev,
    { unfused: 'unfused', fused: 'fused' },
    { ...protocol, warmupPairs: 5, budgetMs, clock: () => dev.elapsed },
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

/**
 * Noise of the large GPU shapes with the L2 flushed (H200 run of 2026-11-23: relative MAD 0.05–1.3% per
 * call, bias_gelu's 0.4–0.5% in the middle of the memory-bound ones): 0.75% per call, rare mild outliers.
 */
export const LARGE_GPU_SHAPE: Noise = { sigma: 0.0075, outlierRate: 0.01, outlierFactor: [1.1, 1.5], overheadMs: 0.1 };

/** The AMBIGUOUS re-measure of src/perf-suite.ts: four times the budget, a quarter of the target width. */
const REMEASURE = (s: { budgetMs: number; targetHalfWidth: number }) => ({
  budgetMs: 4 * s.budgetMs,
  targetHalfWidth: s.targetHalfWidth / 4,
});

/** The sampling protocol of a baseline recording (src/perf-suite.ts): more pairs, half the target width. */
export const BASELINE_PROTOCOL = { minPairs: 100, targetHalfWidth: 0.005 };

/** How much a whole run shifts from one run (process, machine) to the next, in log time. */
export interface RunShift {
  /** Standard deviation of a shift common to both variants (the machine's memory bandwidth, say). */
  common: number;
  /** Standard deviation of a shift of each variant on its own. */
  own: number;
}

/**
 * Between-run shifts of the large GPU shapes: 0.3% common, 0.2% per variant (H200 runs on machines weeks
 * apart moved their speedups by 0.0–0.4% on most large shapes, 1.0% on one, their fused times by ≤ 0.8%).
 */
export const LARGE_GPU_RUNS: RunShift = { common: 0.003, own: 0.002 };

/** True times of one run: `truth` shifted by a draw of `shift`. */
function shifted(truth: { unfused: number; fused: number }, shift: RunShift, z: () => number) {
  const c = shift.common * z();
  return {
    unfused: truth.unfused * Math.exp(c + shift.own * z()),
    fused: truth.fused * Math.exp(c + shift.own * z()),
  };
}

/**
 * The real protocol of one run as perf-suite.ts runs it: measure, decide against `entry`, and when the
 * verdict is AMBIGUOUS measure once more from the pairs already taken, with four times the budget and
 * a quarter of the target width, and decide again. Returns the final overall verdict.
 */
function gatedRun(truth: { unfused: number; fused: number }, noise: Noise, entry: BaselineEntry, seed: number) {
  const dev = new SimulatedDevice(truth, noise, seed);
  const settings = { minPairs: 30, warmupPairs: 5, budgetMs: 3000, targetHalfWidth: 0.01, clock: () => dev.elapsed };
  const variants = { unfused: 'unfused', fused: 'fused' };
  let m = measurePairs(dev, variants, settings);
  const deltas = { delta: entry.tolerance, fusedTimeDelta: entry.fusedTimeTolerance };
  let v = worst(decide(m, entry, deltas).map((d) => d.verdict));
  if (v === 'AMBIGUOUS') {
    m = measurePairs(dev, variants, { ...settings, ...REMEASURE(settings), previous: m });
    v = worst(decide(m, entry, deltas).map((d) => d.verdict));
  }
  return v;
}

/**
 * `trials` comparisons, each with a baseline recorded from `baselineRuns` separate runs of `base` (each
 * run shifted by its own draw of `shift`; δ derived from their noise by src/gate/tolerance.ts) and a
 * current run of `current` with a shift of its own, through the real protocol. Returns verdict counts
 * and the δs the baselines derived.
 */
export function compareNoiseAware(
  base: { unfused: number; fused: number },
  current: { unfused: number; fused: number },
  noise: Noise,
  shift: RunShift,
  trials: number,
  seed: number,
  baselineRuns = 2,
): { counts: Record<string, number>; deltas: number[] } {
  const counts: Record<string, number> = {};
  const deltas: number[] = [];
  const z = normal(uniform(seed ^ 0x51ed));
  for (let i = 0; i < trials; i++) {
    const s = seed * 1_000_003 + (baselineRuns + 1) * i;
    // Recorded as --update-baselines measures (src/perf-suite.ts): at least 100 pairs, ±0.5%, twice the budget.
    const recorded = Array.from({ length: baselineRuns }, (_, r) =>
      simulateRun(shifted(base, shift, z), noise, s + r, 6000, BASELINE_PROTOCOL),
    );
    const runs: BaselineRun[] = recorded.map((m) => ({
      date: '2026-11-23T00:00:00Z',
      commit: 'simulated',
      speedup: m.speedup.estimate,
      fusedMedianMs: [...m.fused].sort((a, b) => a - b)[m.fused.length >> 1] as number,
      halfWidth: relativeHalfWidth(m.speedup),
    }));
    const derived = deltaFromNoise(runNoise(runs));
    deltas.push(Math.max(derived.speedup, derived.fusedTime));
    const entry = {
      ...baselineFrom(recorded[recorded.length - 1] as Measurement, derived.speedup),
      fusedTimeTolerance: derived.fusedTime,
    };
    const v = gatedRun(shifted(current, shift, z), noise, entry, s + baselineRuns);
    counts[v] = (counts[v] ?? 0) + 1;
  }
  return { counts, deltas };
}
