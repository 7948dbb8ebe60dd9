// A simulated device for the gate's tests: kernel times with log-normal jitter and rare outliers,
// and a simulated clock so the sampling protocol's time budget is deterministic.

import { normal, uniform } from '../../src/base/rng.ts';
import { relativeHalfWidth } from '../../src/base/stats.ts';
import type { BaselineEntry } from '../../src/gate/baseline-file.ts';
import { decide } from '../../src/gate/decision.ts';
import { type BaselineRun, entryDeltas, runNoise } from '../../src/gate/tolerance.ts';
import { thin } from '../../src/gate/update.ts';
import { classify, type Verdict, worst } from '../../src/results/verdict-rule.ts';
import { type Measurement, measurePairs } from '../../src/run/measure.ts';

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

/** The AMBIGUOUS re-measure of src/run/perf-suite.ts: four times the budget, a quarter of the target width. */
const REMEASURE = (s: { budgetMs: number; targetHalfWidth: number }) => ({
  budgetMs: 4 * s.budgetMs,
  targetHalfWidth: s.targetHalfWidth / 4,
});

/** The sampling protocol of a baseline recording (src/run/perf-suite.ts): more pairs, half the target width. */
const BASELINE_PROTOCOL = { minPairs: 100, targetHalfWidth: 0.005 };

/** How much a whole run shifts from one run (process, machine) to the next, in log time. */
export interface RunShift {
  /** Standard deviation of a shift common to both variants (the machine's memory bandwidth, say). */
  common: number;
  /** Standard deviation of a shift of each variant on its own. */
  own: number;
}

/**
 * Between-machine shifts of the large GPU shapes: 0.3% common, 0.2% per variant, so σ 0.28% of the speedup
 * and 0.36% of the fused time (H200 runs on machines weeks apart moved their speedups by 0.0–0.4% on most
 * large shapes, 1.0% on one, their fused times by ≤ 0.8%; H100 machines moved large shapes under 1%).
 */
export const LARGE_GPU_RUNS: RunShift = { common: 0.003, own: 0.002 };

/**
 * Between-machine shifts of the launch-bound shapes (gated on batched timing): 1.5% common, 1.95% per
 * variant, so σ 2.8% of the speedup and 2.5% of the fused time; two machines then differ by up to ~8%
 * (2 sd of their difference). Measured: gelu_scale 1K bf16 moved −5.6% to −7.3% in speedup between H100
 * machines, within ±4% in fused time; the H100 and H200 1K/1M fp32 entries' runs spread by 0.4–1.9% (speedup)
 * and 1.4–6% (fused time).
 */
export const LAUNCH_BOUND_RUNS: RunShift = { common: 0.015, own: 0.0195 };

/** A machine's shift of a run, in log: of the speedup and of the fused time. */
interface MachineShift {
  speedup: number;
  fusedTime: number;
}

/** A draw of `shift`: the common part moves both variants and cancels in the speedup. */
function drawShift(shift: RunShift, z: () => number): MachineShift {
  const common = shift.common * z();
  const unfused = shift.own * z();
  const fused = shift.own * z();
  return { speedup: unfused - fused, fusedTime: common + fused };
}

/** A run measured on a simulated device; a check run keeps its device, to re-measure from where it stopped. */
export interface PoolRun {
  m: Measurement;
  entry: BaselineEntry;
  remeasure?: () => Measurement;
}

/** `n` recorded baseline runs (the protocol of --update-baselines) of `truth`, unshifted. */
export function recordedPool(
  truth: { unfused: number; fused: number },
  noise: Noise,
  n: number,
  seed: number,
): PoolRun[] {
  return Array.from({ length: n }, (_, i) => {
    const m = simulateRun(truth, noise, seed * 1_000_003 + i, 6000, BASELINE_PROTOCOL);
    return { m, entry: baselineFrom(m) };
  });
}

/** `n` check runs (the protocol of a perf run) of `truth`, unshifted, each able to re-measure once. */
export function checkPool(truth: { unfused: number; fused: number }, noise: Noise, n: number, seed: number): PoolRun[] {
  return Array.from({ length: n }, (_, i) => {
    const dev = new SimulatedDevice(truth, noise, seed * 1_000_003 + i);
    const settings = { minPairs: 30, warmupPairs: 5, budgetMs: 3000, targetHalfWidth: 0.01, clock: () => dev.elapsed };
    const variants = { unfused: 'unfused', fused: 'fused' };
    const m = measurePairs(dev, variants, settings);
    let again: Measurement | undefined;
    const remeasure = () => {
      again ??= measurePairs(dev, variants, { ...settings, ...REMEASURE(settings), previous: m });
      return again;
    };
    return { m, entry: baselineFrom(m), remeasure };
  });
}

/** The summary a baseline entry keeps of a run, as measured on a machine with shift `s`. */
function runOf(r: PoolRun, s: MachineShift): BaselineRun {
  const fused = r.entry.fusedMedianMs as number;
  return {
    date: '2026-11-25T00:00:00Z',
    commit: 'simulated',
    speedup: r.m.speedup.estimate * Math.exp(s.speedup),
    fusedMedianMs: fused * Math.exp(s.fusedTime),
    halfWidth: relativeHalfWidth(r.m.speedup),
  };
}

/** Intervals [lo, hi] of D (speedup, fused time) for a check run against a baseline run, both unshifted. */
type Intervals = [[number, number], [number, number]];

/**
 * Comparisons of check runs against baselines recorded on other machines, with the real decision, the
 * real δ rule (tolerance.ts `entryDeltas`, in a simulated baseline file) and the AMBIGUOUS re-measure.
 *
 * Each run is measured once by the real sampling protocol against a simulated device; its machine's
 * shift is applied afterwards, per comparison, from a fresh draw. That is exact for the decision: a
 * machine shift multiplies a run's every sample of a variant by one factor, which moves every median,
 * so every bootstrap replicate of D, and so the interval, by the log of the factors (suites/unit/
 * gate-noise-aware.test.ts checks it against a decision on shifted samples). So the decision of a pair of
 * runs is computed once and serves every shift, δ rule and scenario, which keeps 1,000 comparisons cheap.
 */
export class MachineShiftSimulation {
  readonly #recorded: PoolRun[];
  readonly #checks: PoolRun[];
  readonly #memo = new Map<string, Intervals>();
  constructor(recorded: PoolRun[], checks: PoolRun[]) {
    this.#recorded = recorded;
    this.#checks = checks;
  }

  #intervals(b: number, c: number, again: boolean): Intervals {
    const key = `${b}:${c}:${again}`;
    let iv = this.#memo.get(key);
    if (!iv) {
      const check = this.#checks[c] as PoolRun;
      const m = again && check.remeasure ? check.remeasure() : check.m;
      const [s, f] = decide(m, (this.#recorded[b] as PoolRun).entry, { delta: DEFAULT_SIM_DELTA });
      iv = [
        [s?.diff.lo as number, s?.diff.hi as number],
        [f?.diff.lo as number, f?.diff.hi as number],
      ];
      this.#memo.set(key, iv);
    }
    return iv;
  }

  /**
   * `trials` comparisons. In each, the entry under test is recorded from `runs` runs on separate machines
   * (its samples are the latest run's), beside `comparable` entries of the same timing method recorded
   * from two runs each on machines of their own; δ comes from that file by the gate's rule. The check
   * runs on one more machine. Every machine draws its shift from `shift`. Returns the verdict counts and
   * the δs of the speedup.
   */
  compare(
    shift: RunShift,
    opts: { trials: number; runs: number; comparable: number; seed: number },
  ): { counts: Partial<Record<Verdict, number>>; deltas: number[] } {
    const rand = uniform(opts.seed);
    const z = normal(uniform(opts.seed ^ 0x51ed));
    const nb = this.#recorded.length;
    const counts: Partial<Record<Verdict, number>> = {};
    const deltas: number[] = [];
    if (opts.runs < 1 || opts.runs > 2 || opts.comparable > MAX_COMPARABLE)
      throw new Error(`1 or 2 runs, up to ${MAX_COMPARABLE} comparable entries`);
    for (let t = 0; t < opts.trials; t++) {
      // Every trial draws the same layout, whatever the scenario uses of it, so that scenarios of one seed
      // compare the same pairs of runs (and share their decisions): the entry's two runs (latest last),
      // MAX_COMPARABLE pairs for comparable entries, all distinct, then the check run; a shift for each.
      const used = new Set<number>();
      const fresh = () => {
        let i = Math.floor(rand() * nb);
        while (used.has(i)) i = (i + 1) % nb;
        used.add(i);
        return i;
      };
      const slots = Array.from({ length: 2 + 2 * MAX_COMPARABLE }, () => ({ i: fresh(), s: drawShift(shift, z) }));
      const c = Math.floor(rand() * this.#checks.length);
      const sc = drawShift(shift, z);
      const run = (k: number) => runOf(this.#recorded[slots[k]?.i as number] as PoolRun, slots[k]?.s as MachineShift);
      const b = slots[1]?.i as number;
      const sb = slots[1]?.s as MachineShift;
      const base = (this.#recorded[b] as PoolRun).entry;
      const runs = opts.runs === 2 ? [run(0), run(1)] : [run(1)];
      const entry: BaselineEntry = { ...base, method: 'batched', runs, noise: runNoise(runs) };
      const entries: Record<string, BaselineEntry> = { 'gelu_scale/sim/fp32': entry };
      for (let k = 0; k < opts.comparable; k++) {
        const pair = [run(2 + 2 * k), run(3 + 2 * k)];
        entries[`case${k}/sim/fp32`] = {
          ...base,
          case: `case${k}`,
          method: 'batched',
          runs: pair,
          noise: runNoise(pair),
        };
      }
      const d = entryDeltas(entry, entries);
      deltas.push(d.speedup);
      // D is oriented so that negative is worse: the fused time's sign is flipped.
      const move = [sc.speedup - sb.speedup, -(sc.fusedTime - sb.fusedTime)];
      const verdict = (again: boolean) => {
        const iv = this.#intervals(b, c, again);
        return worst(
          iv.map(([lo, hi], k) =>
            classify(lo + (move[k] as number), hi + (move[k] as number), k === 0 ? d.speedup : d.fusedTime),
          ),
        );
      };
      let v = verdict(false);
      if (v === 'AMBIGUOUS') v = verdict(true);
      counts[v] = (counts[v] ?? 0) + 1;
    }
    return { counts, deltas };
  }
}

/** δ passed to the decision whose intervals are classified again with each comparison's own δ. */
const DEFAULT_SIM_DELTA = 0.05;
/** Comparable entries a simulated baseline file can hold beside the entry under test. */
const MAX_COMPARABLE = 10;
