/**
 * Where a shape's wall time goes: making and uploading inputs, running the variants for the numerics
 * check, reading their outputs back, the float64 reference, the comparison, sampling (the timed pairs,
 * with any injection's calibration), and the rest (allocation, the workspace, the gate). A phase that
 * throws is named in the error, so a failure says which step of which shape broke.
 */

/** The phases of one shape, in the order a shape goes through them. */
export const PHASES = ['inputs', 'runs', 'download', 'reference', 'comparison', 'sampling', 'rest'] as const;
/** One phase of a shape. */
export type Phase = (typeof PHASES)[number];
/** Milliseconds of wall time per phase. */
export type Phases = Record<Phase, number>;

/** An error thrown inside a phase: the message names the phase. */
export class PhaseError extends Error {
  readonly phase: Phase;
  constructor(phase: Phase, cause: unknown) {
    super(`${phase} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.phase = phase;
  }
}

/** Adds up the wall time of each phase of one shape; `rest` is what the phases timed leave of the total. */
export class PhaseClock {
  readonly #start = performance.now();
  readonly #ms: Phases = Object.fromEntries(PHASES.map((p) => [p, 0])) as Phases;
  readonly #onStart: ((phase: Phase) => void) | undefined;

  /** `onStart` hears each phase as it starts (the live progress line). */
  constructor(onStart?: (phase: Phase) => void) {
    this.#onStart = onStart;
  }

  /** Runs `fn`, adding its wall time to `phase`; an error it throws becomes a PhaseError naming the phase. */
  time<T>(phase: Exclude<Phase, 'rest'>, fn: () => T): T {
    this.#onStart?.(phase);
    const t0 = performance.now();
    try {
      return fn();
    } catch (e) {
      throw e instanceof PhaseError ? e : new PhaseError(phase, e);
    } finally {
      this.#ms[phase] += performance.now() - t0;
    }
  }

  /** The phases so far, `rest` being the wall time since the clock started that no other phase took. */
  phases(): Phases {
    const total = performance.now() - this.#start;
    const timed = PHASES.filter((p) => p !== 'rest').reduce((s, p) => s + this.#ms[p], 0);
    return { ...this.#ms, rest: Math.max(0, total - timed) };
  }
}

/** The sum of several shapes' phases (a run's split). */
export function addPhases(all: readonly Phases[]): Phases {
  const sum = Object.fromEntries(PHASES.map((p) => [p, 0])) as Phases;
  for (const ph of all) for (const p of PHASES) sum[p] += ph[p];
  return sum;
}
