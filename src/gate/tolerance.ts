/**
 * The SAME band δ of a comparison, derived from the noise a baseline was measured with. The decision's
 * bootstrap interval already carries the noise within a run (both runs' samples); what it cannot see is
 * how much a whole run shifts from one run (or machine) to the next. δ covers that: three standard
 * deviations of the between-run shift, never less than a floor of 1.5%, for the speedup and the fused
 * time each. A baseline recorded from one run has no between-run estimate and keeps the former default
 * of 5%; an entry can set δ by hand.
 */
import { sampleStandardDeviation } from 'simple-statistics';

/**
 * δ's floor: differences below it are never called SLOWER or FASTER. 1.5%: at the noise of the large GPU
 * shapes it keeps A/A comparisons free of false SLOWER and catches a 3% slowdown in 99.8% of comparisons
 * (suites/unit/gate-noise-aware.test.ts; a 2% floor caught 96.4%, with the same 0 false SLOWER).
 */
export const DELTA_FLOOR = 0.015;
/** δ when the between-run noise is unknown (a baseline of one run, or a file that predates noise). */
export const DEFAULT_DELTA = 0.05;
/** How many standard deviations of the between-run shift δ spans. */
export const BETWEEN_RUN_SIGMAS = 3;

/** The noise a baseline entry was measured with. */
export interface Noise {
  /** Relative half-width of the speedup's 95% interval within the run (median over the runs). */
  withinRun: number;
  /**
   * Standard deviation across runs of log(speedup) and of log(fused time); null with one run. The two
   * differ: a whole run's shift moves both variants and cancels in the speedup, not in an absolute time
   * (a 2 µs kernel's time moved 6% between H200 runs while its speedup moved 2%).
   */
  betweenRuns: { speedup: number; fusedTime: number } | null;
  /** Separate runs (processes, machines) the entry was recorded from. */
  runs: number;
}

/** Where a comparison's δ came from. */
export type DeltaSource = 'noise' | 'hand' | 'default' | 'command line';

/** δ of each metric, and where it came from. */
export interface Deltas {
  speedup: number;
  fusedTime: number;
  source: DeltaSource;
}

/** δ from recorded noise, per metric: max(floor, 3·σ_between); the default when the between-run noise is unknown. */
export function deltaFromNoise(noise: Noise | undefined): Deltas {
  const b = noise?.betweenRuns;
  if (!noise || !b || noise.runs < 2) return { speedup: DEFAULT_DELTA, fusedTime: DEFAULT_DELTA, source: 'default' };
  const band = (sd: number) => Math.max(DELTA_FLOOR, BETWEEN_RUN_SIGMAS * sd);
  return { speedup: band(b.speedup), fusedTime: band(b.fusedTime), source: 'noise' };
}

/** One run a baseline entry was recorded from, as the entry keeps it. */
export interface BaselineRun {
  date: string;
  commit: string;
  speedup: number;
  fusedMedianMs: number;
  /** Relative half-width of the run's 95% speedup interval. */
  halfWidth: number;
  /** The GPU it ran on, when known: runs on separate machines show the machine-to-machine noise. */
  deviceUuid?: string;
}

/** The noise of the runs an entry was recorded from (the between-run part needs two or more). */
export function runNoise(runs: readonly BaselineRun[]): Noise {
  const halfWidths = runs.map((r) => r.halfWidth).sort((a, b) => a - b);
  const withinRun = halfWidths[halfWidths.length >> 1] ?? 0;
  if (runs.length < 2) return { withinRun, betweenRuns: null, runs: runs.length };
  const betweenRuns = {
    speedup: sampleStandardDeviation(runs.map((r) => Math.log(r.speedup))),
    fusedTime: sampleStandardDeviation(runs.map((r) => Math.log(r.fusedMedianMs))),
  };
  return { withinRun, betweenRuns, runs: runs.length };
}
