/**
 * The SAME band δ of a comparison, derived from the noise a baseline was measured with. The decision's
 * bootstrap interval already carries the noise within a run (both runs' samples); what it cannot see is
 * how much a whole run shifts from one run (or machine) to the next. δ covers that: three standard
 * deviations of the between-run shift, never less than a floor. A baseline recorded from one run has
 * no between-run estimate and keeps the former default of 5%; an entry can set δ by hand.
 */

/** δ's floor: differences below it are never called SLOWER or FASTER. */
export const DELTA_FLOOR = 0.02;
/** δ when the between-run noise is unknown (a baseline of one run, or a file that predates noise). */
export const DEFAULT_DELTA = 0.05;
/** How many standard deviations of the between-run shift δ spans. */
export const BETWEEN_RUN_SIGMAS = 3;

/** The noise a baseline entry was measured with. */
export interface Noise {
  /** Relative half-width of the speedup's 95% interval within the run (median over the runs). */
  withinRun: number;
  /** Standard deviation across runs of log(speedup) and log(fused time), the larger; null with one run. */
  betweenRuns: number | null;
  /** Separate runs (processes, machines) the entry was recorded from. */
  runs: number;
}

/** Where a comparison's δ came from. */
export type DeltaSource = 'noise' | 'hand' | 'default' | 'command line';

/** δ from recorded noise: max(floor, 3·σ_between); the default when the between-run noise is unknown. */
export function deltaFromNoise(noise: Noise | undefined): { delta: number; source: DeltaSource } {
  if (!noise || noise.betweenRuns === null || noise.runs < 2) return { delta: DEFAULT_DELTA, source: 'default' };
  return { delta: Math.max(DELTA_FLOOR, BETWEEN_RUN_SIGMAS * noise.betweenRuns), source: 'noise' };
}
