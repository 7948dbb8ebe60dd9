/**
 * The SAME band δ of a comparison, derived from the noise a baseline was measured with. The decision's
 * bootstrap interval already carries the noise within a run (both runs' samples); what it cannot see is
 * how much a whole run shifts from one run (or machine) to the next. δ covers that, for the speedup and
 * the fused time each, never less than a floor of 1.5%; an entry can set δ by hand.
 *
 * The between-run standard deviation σ is not known, only estimated, and from very few runs: with δ = 3s
 * of an entry's own runs (the rule before this one), two runs that happen to agree give s ≈ 0 and a δ at
 * the floor, which a machine shift of several percent then fails. So an entry's δ is derived (`entryDeltas`) from its own runs *and* the
 * runs of comparable entries in the same baseline file:
 *
 * - Comparable entries gate on the same timing (batched or per-call: launch-bound shapes shift by
 *   several percent between machines, large shapes by well under one). The same case and shape in
 *   other precisions come first; when they hold fewer than `MIN_PRIOR_DF` degrees of freedom, all the
 *   entries of that timing method do.
 * - Their variances pool, weighted by degrees of freedom (runs − 1): s₀² = Σνᵢsᵢ² / Σνᵢ, with ν₀ = Σνᵢ.
 * - That pooled variance is the prior of the entry's own (s², ν = runs − 1), as in the moderated
 *   variance of empirical-Bayes shrinkage (Smyth 2004, limma): σ̃² = (ν₀s₀² + νs²) / (ν₀ + ν). A lucky
 *   agreement of two runs (ν = 1) barely moves it; an entry with many runs speaks mostly for itself.
 * - σ̃ is an estimate with ν₀ + ν degrees of freedom, so δ is a prediction bound with Student's t for
 *   that many: a bound √2 · t_{ν₀+ν}(0.995) · σ̃ on the log shift, which δ is as a fraction (`asFraction`).
 *   A check and its baseline are two runs on two machines, so their difference has sd √2σ; the t quantile
 *   keeps the chance that an unchanged run's shift alone passes −δ at 0.5% whatever the degrees of freedom, so at most 1% for the speedup and the fused time
 *   together (the bootstrap interval, which must lie wholly beyond δ, brings it lower). The factor is
 *   3.6 as the degrees of freedom grow, 14 at 2, 5.7 at 5, 4.5 at 10 (`deltaFactor`): few comparable
 *   runs give a wide band, which more runs narrow. Run with the shifts measured between machines
 *   (launch-bound shapes shift far more than large ones), the simulation of
 *   suites/unit/gate-noise-aware.test.ts shows why: δ = 3s from two runs alone calls many unchanged
 *   launch-bound runs SLOWER, a pooled δ with a factor tending to 3 still too many, this level few, while
 *   the large shapes stay at the floor and a 3% slowdown there is still caught (the measured shifts and
 *   the simulated rates: docs/measurements.md, "Gate noise").
 * - δ is never narrower than the entry's own runs alone would give (3s, the rule before pooling): a
 *   pool of quieter entries must not talk a genuinely noisy entry's band down.
 * - The entries of a file share their machines, so the pool's degrees of freedom are capped at
 *   `DF_PER_MACHINE` for each machine past the first, and the fused time, which moves with the machine
 *   where the speedup does not, has a floor of its own (`FUSED_TIME_FLOOR`), and for launch-bound kernels one
 *   in absolute time (`LAUNCH_JITTER_MS`). They come from checking each of the committed files' machines (seven
 *   H100s, five H200s) against baselines recorded on the others (suites/unit/gate-machines.test.ts;
 *   docs/gate.md, "Machines").
 * - With no comparable entry measured twice, the rule is the entry's own, as before: 3s from two or more
 *   machines (the t factor at one degree of freedom, 90, would make δ useless), or the default for one
 *   (`DEFAULT_DELTA`, 5%; the fused time's never below its floor).
 * - Degrees of freedom count machines, not runs: runs repeated on one machine add none (they agree far better
 *   than two machines do), though their spread still counts, as a floor (3s) and in the pool's variance. The
 *   stored `noise` is only read for a file that does not keep its runs (`noiseOf`).
 *
 * - An entry whose case calls its speedup ungated (`ungatedSpeedup`: it moves with the machine, as a
 *   host-bound unfused twin's does) lends the pool its fused-time spread only.
 * The gate derives δ this way from the loaded file (so files recorded before this rule benefit), and
 * `--update-baselines` stores the same δ in every entry it writes (src/gate/update.ts).
 */
import { mean, sampleStandardDeviation } from 'simple-statistics';
import type { BaselineEntry } from './baseline-file.ts';

/**
 * δ's floor: differences below it are never called SLOWER or FASTER. 1.5%: at the noise of the large GPU
 * shapes, with their shift between machines, it keeps A/A comparisons free of false SLOWER and catches a
 * 3% slowdown in over 99% of comparisons (suites/unit/gate-noise-aware.test.ts; in an earlier simulation
 * without the machine shift a 2% floor caught 96.4%).
 */
export const DELTA_FLOOR = 0.015;
/**
 * The fused time's floor. An absolute time moves with the machine where a speedup does not: two of the nine
 * H100s measured ran the memory-bound kernels ~1.8% slower than the other seven (rmsnorm_residual 16384x4096
 * and scale_mask_softmax in fused and unfused alike, so their speedups moved under 1%). A baseline recorded
 * without such a machine failed every check on one at 1.5% (docs/gate.md, "Machines").
 */
export const FUSED_TIME_FLOOR = 0.025;
/**
 * The fused time's floor in absolute time, ms: a launch-bound kernel's time carries a cost that is added,
 * not multiplied, and that moves with the machine (the GPU's front end, its launch rate). Between machines the
 * per-call fused times of the launch-bound shapes (gelu_scale 1K and 1M, batched: 1.8–3.2 µs) moved by up to
 * 0.22 µs on the committed file's five H200s and 0.34 µs on its seven H100s, where the longer kernels moved
 * by their percentage. The H200s fall in two groups ~10% apart in gelu_scale 1K; a baseline from two
 * machines of one group had no spread to show it, and the leave-machines-out check failed 4 of 30 suite runs
 * with two H200 machines and 2 of 20 with three (suites/unit/gate-machines.test.ts). With this floor none
 * fails; 0.15 µs left 3 of 30 two-machine runs failing and 0.2 µs one, so it is fitted to these five machines,
 * not derived. It only matters below 9.75 µs, where j / (t + j) passes FUSED_TIME_FLOOR.
 */
export const LAUNCH_JITTER_MS = 0.00025;
/**
 * Degrees of freedom a machine lends the pooled prior, past the first. Every entry of a file is recorded on
 * the same few machines, so their spreads are not independent: 50 entries from two machines say little more
 * about a third than a few entries would. With the prior's degrees of freedom capped at 2 per machine, the
 * leave-machines-out check of the committed H100 file (suites/unit/gate-machines.test.ts) finds no false
 * SLOWER from two-machine baselines, where the uncapped pool found one in every five checks.
 */
export const DF_PER_MACHINE = 2;

/** The two settings above, which a test can vary to show what each does. */
export interface MachineRule {
  dfPerMachine: number;
  fusedTimeFloor: number;
  launchJitterMs: number;
}
const MACHINE_RULE: MachineRule = {
  dfPerMachine: DF_PER_MACHINE,
  fusedTimeFloor: FUSED_TIME_FLOOR,
  launchJitterMs: LAUNCH_JITTER_MS,
};

/**
 * The fused time's floor for an entry whose fused kernel takes `fusedMs`: the rule's relative floor, or
 * where more, the δ at which a time longer by the absolute jitter is SLOWER's edge (j / (t + j): the edge
 * is a time 1 / (1 − δ) as long). A file without the time gets the relative floor.
 */
export function fusedTimeFloorOf(fusedMs: number | undefined, rule: MachineRule = MACHINE_RULE): number {
  const j = rule.launchJitterMs;
  return fusedMs !== undefined && fusedMs > 0 ? Math.max(rule.fusedTimeFloor, j / (fusedMs + j)) : rule.fusedTimeFloor;
}
/** δ's ceiling, so that log(1 − δ) stays finite: a band this wide no longer gates anything. */
const DELTA_CEILING = 0.5;
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
   * differ: a whole run's shift moves both variants and cancels in the speedup, not in an absolute time,
   * so a short kernel's fused time spreads more than its speedup (docs/measurements.md, "Gate noise").
   */
  betweenRuns: { speedup: number; fusedTime: number } | null;
  /** Separate runs (processes, machines) the entry was recorded from. */
  runs: number;
}

/**
 * Where a comparison's δ came from: the entry's own runs (`noise`), its runs (if any) pooled with
 * comparable entries (`comparable`), set by hand, the stored default, or `--delta`.
 */
type DeltaSource = 'noise' | 'comparable' | 'hand' | 'default' | 'command line';

/** What a δ derived with comparable entries rests on, for the verdict's message. */
interface DeltaBasis {
  /** Runs the entry itself was recorded from. */
  runs: number;
  /** Keys of the comparable entries pooled (same case and shape first). */
  comparable: string[];
  /** Their degrees of freedom (Σ runs − 1), at most `DF_PER_MACHINE` for each machine past the first. */
  priorDf: number;
  /** The machines their runs and the entry's were recorded on (a run without a GPU id counts as one). */
  machines: number;
  /** Which entries were comparable: the same case and shape in other precisions, or all of the timing method. */
  scope: 'shape' | 'method';
  method: 'per-call' | 'batched';
}

/**
 * A bound on |log shift| as the fraction δ the decision takes: the SLOWER edge is log(1 − δ)
 * (src/gate/decision.ts), so δ = 1 − e^(−bound) puts that edge on the bound itself. Used as a fraction
 * unconverted, a log bound of 0.294 had needed a fused time 41.8% longer, not the 34.2% it stands for (review);
 * below 0.05 the two differ by under 2.5% of δ.
 */
function asFraction(logBound: number): number {
  return -Math.expm1(-logBound);
}

/** δ of each metric, and where it came from. */
export interface Deltas {
  speedup: number;
  fusedTime: number;
  source: DeltaSource;
  /** Set when comparable entries were pooled. */
  basis?: DeltaBasis;
}

/**
 * δ when nothing measured shows the between-machine noise: `DEFAULT_DELTA`, and for the fused time never below
 * its floor (`fusedTimeFloorOf`: a launch-bound kernel's absolute jitter), so that one run never gates narrower
 * than two runs that agree would.
 */
function defaultDeltas(fusedTimeFloor: number): Deltas {
  return { speedup: DEFAULT_DELTA, fusedTime: Math.max(DEFAULT_DELTA, fusedTimeFloor), source: 'default' };
}

/**
 * δ from recorded noise, per metric: max(its floor, 3·σ_between as a fraction, `asFraction`); the default when the
 * between-run noise is unknown.
 */
export function deltaFromNoise(noise: Noise | undefined, fusedTimeFloor = FUSED_TIME_FLOOR): Deltas {
  const b = noise?.betweenRuns;
  if (!noise || !b || noise.runs < 2) return defaultDeltas(fusedTimeFloor);
  return {
    speedup: threeSigmas(b.speedup, DELTA_FLOOR),
    fusedTime: threeSigmas(b.fusedTime, fusedTimeFloor),
    source: 'noise',
  };
}

/** δ as a between-run standard deviation `sd` alone gives it: 3·sd as a fraction, within [floor, ceiling]. */
function threeSigmas(sd: number, floor: number): number {
  return Math.min(DELTA_CEILING, Math.max(floor, asFraction(BETWEEN_RUN_SIGMAS * sd)));
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

/**
 * The machine each run came from: its GPU's id, or for a run without one (files recorded before runs kept it)
 * a name of its own, `<key>#<index>` (`key`: its entry's, so that two entries' runs stay apart).
 */
function machineIds(runs: readonly BaselineRun[], key = ''): string[] {
  return runs.map((r, i) => r.deviceUuid ?? `${key}#${i}`);
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

/**
 * Where a baseline entry recorded from several runs is centred: the geometric mean of its runs' speedups and
 * fused medians (the mean of their logs, where δ's spread is measured). A centre on the last run alone put
 * every other machine off by that run's own shift: 7.5% in the fused time of the H100 file's gelu_scale 1K
 * fp16. δ's √2 (a check against one run) is left as it is, though a mean of k runs would allow √(1 + 1/k):
 * with that factor the leave-machines-out check of the H100 file failed 6 of 140 suite runs from three
 * machines, 5 of 105 from four and 2 of 42 from five (4, 1 and 0 with √2): machines are not the normal
 * population the factor assumes (suites/unit/gate-machines.test.ts, 2026-11-28).
 */
export function runsCenter(runs: readonly BaselineRun[]): { speedup: number; fusedMedianMs: number } {
  if (runs.length === 0) throw new Error('the centre of no runs');
  return {
    speedup: Math.exp(mean(runs.map((r) => Math.log(r.speedup)))),
    fusedMedianMs: Math.exp(mean(runs.map((r) => Math.log(r.fusedMedianMs)))),
  };
}

/**
 * Degrees of freedom the same case and shape in other precisions must hold to be the prior on their own;
 * with fewer, every entry of the timing method is. Below 3 the t factor is 14 or more (90 at one).
 */
const MIN_PRIOR_DF = 3;

/** P(T ≤ t) for Student's t with a whole number ν of degrees of freedom (Abramowitz & Stegun 26.7.3–4). */
function studentTCdf(t: number, nu: number): number {
  const theta = Math.atan(Math.abs(t) / Math.sqrt(nu));
  const c2 = Math.cos(theta) ** 2;
  // The series: 1 + a₁c² + a₂c⁴ + …, its terms' ratio (k − 1)/k over the odd (ν odd) or even k.
  let term = 1;
  let sum = 1;
  const odd = nu % 2 === 1;
  for (let k = odd ? 3 : 2; k <= nu - 2; k += 2) {
    term *= (c2 * (k - 1)) / k;
    sum += term;
  }
  const a = odd
    ? nu === 1
      ? (2 * theta) / Math.PI
      : (2 / Math.PI) * (theta + Math.sin(theta) * Math.cos(theta) * sum)
    : Math.sin(theta) * sum;
  return t >= 0 ? (1 + a) / 2 : (1 - a) / 2;
}

/** The p-quantile (p > 0.5) of Student's t with ν degrees of freedom, by bisection (ν over 1000: the normal's). */
export function studentTQuantile(p: number, nu: number): number {
  let lo = 0;
  let hi = 1e6;
  const n = Math.min(Math.round(nu), 1000);
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, n) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The one-sided level of δ's prediction bound: 0.5% per metric, 1% for the two metrics of a check. */
const LEVEL = 0.995;
const factors = new Map<number, number>();

/**
 * δ's factor on an estimated σ with `df` degrees of freedom: √2 · t_df(0.995); 3.6 as df grows, 14 at 2,
 * 5.7 at 5, 4.5 at 10.
 */
export function deltaFactor(df: number): number {
  let k = factors.get(df);
  if (k === undefined) {
    k = Math.SQRT2 * studentTQuantile(LEVEL, df);
    factors.set(df, k);
  }
  return k;
}

/** Between-run variances of log speedup and log fused time, and their degrees of freedom. */
interface Spread {
  speedup: number;
  fusedTime: number;
  df: number;
}

/**
 * An entry's noise: derived from its runs whenever it keeps them, so that an edited `noise` cannot widen the
 * gate (the file's `noise` only describes them); the stored one for a file without runs.
 */
function noiseOf(e: BaselineEntry): Noise | undefined {
  return e.runs?.length ? runNoise(e.runs) : e.noise;
}

/**
 * An entry's own between-run spread (null with fewer than two runs), with a degree of freedom for each machine
 * past the first: runs repeated on one machine say nothing of the next machine's shift (a second run on the
 * same GPU had narrowed δ to its floor, and every other runner then failed the gate: review, 2026-11-29), so
 * with one machine `df` is 0 and the spread serves as a floor only.
 */
function spreadOf(e: BaselineEntry): Spread | null {
  const noise = noiseOf(e);
  const b = noise?.betweenRuns;
  if (!noise || !b || noise.runs < 2) return null;
  const df = e.runs?.length ? new Set(machineIds(e.runs)).size - 1 : noise.runs - 1;
  return { speedup: b.speedup ** 2, fusedTime: b.fusedTime ** 2, df };
}

interface Prior extends Spread {
  keys: string[];
  machines: number;
  scope: 'shape' | 'method';
  /** Degrees of freedom behind the pooled speedup spread (`df` is the fused time's). */
  speedupDf: number;
}

/** The pooled spread of the entries comparable to `entry` (see the top of this file); null when none was measured twice. */
function comparablePrior(
  entry: BaselineEntry,
  entries: Readonly<Record<string, BaselineEntry>>,
  dfPerMachine: number,
): Prior | null {
  const method = entry.method ?? 'per-call';
  const sameShape = (e: BaselineEntry) => e.case === entry.case && e.shape.label === entry.shape.label;
  const candidates: [string, BaselineEntry, Spread][] = [];
  for (const [key, e] of Object.entries(entries)) {
    if (e === entry || (sameShape(e) && e.dtype === entry.dtype) || (e.method ?? 'per-call') !== method) continue;
    const s = spreadOf(e);
    if (s && s.df > 0) candidates.push([key, e, s]);
  }
  const df = (xs: typeof candidates) => xs.reduce((sum, [, , s]) => sum + s.df, 0);
  const shape = candidates.filter(([, e]) => sameShape(e));
  const scope = df(shape) >= MIN_PRIOR_DF ? 'shape' : 'method';
  // Same case and shape first, so the message names the closest entries.
  const pool = scope === 'shape' ? shape : [...shape, ...candidates.filter(([, e]) => !sameShape(e))];
  // The machines behind a pool and the entry cap its degrees of freedom (DF_PER_MACHINE).
  const machinesIn = (xs: typeof candidates) =>
    new Set([...xs, ['', entry] as const].flatMap(([key, e]) => machineIds(e.runs ?? [], key))).size;
  const capped = (xs: typeof candidates, n = machinesIn(xs)) => Math.min(df(xs), n > 1 ? dfPerMachine * (n - 1) : 0);
  const machines = machinesIn(pool);
  const total = capped(pool, machines);
  if (total === 0) return null;
  // An entry whose speedup the case calls ungated (it moves with the machine) lends its fused-time spread
  // only: its speedup's would widen every other entry's band.
  const gated = pool.filter(([, e]) => e.ungatedSpeedup === undefined);
  const speedupPool = df(gated) > 0 ? gated : pool;
  const pooled = (xs: typeof pool, m: 'speedup' | 'fusedTime') =>
    xs.reduce((sum, [, , s]) => sum + s.df * s[m], 0) / df(xs);
  return {
    keys: pool.map(([k]) => k),
    machines,
    scope,
    df: total,
    speedupDf: capped(speedupPool),
    speedup: pooled(speedupPool, 'speedup'),
    fusedTime: pooled(pool, 'fusedTime'),
  };
}

/**
 * The δ an entry gates with, from its own runs and those of the comparable entries in `entries` (its
 * baseline file): the rule at the top of this file. A δ set by hand is kept, and a reported entry's with
 * nothing to derive one from; a measured entry's stored δ is never read (the update writes what this derives).
 */
export function entryDeltas(
  entry: BaselineEntry,
  entries: Readonly<Record<string, BaselineEntry>>,
  rule: MachineRule = MACHINE_RULE,
): Deltas {
  if (entry.toleranceSource === 'hand')
    return { speedup: entry.tolerance, fusedTime: entry.fusedTimeTolerance ?? entry.tolerance, source: 'hand' };
  const own = spreadOf(entry);
  const prior = comparablePrior(entry, entries, rule.dfPerMachine);
  const fusedTimeFloor = fusedTimeFloorOf(entry.fusedMedianMs, rule);
  if (!prior) {
    // One machine (df 0): the default, or its own runs' 3s where wider; two or more: their 3s.
    if (own) {
      const floors = own.df > 0 ? { speedup: DELTA_FLOOR, fusedTime: fusedTimeFloor } : defaultDeltas(fusedTimeFloor);
      return {
        speedup: threeSigmas(Math.sqrt(own.speedup), floors.speedup),
        fusedTime: threeSigmas(Math.sqrt(own.fusedTime), floors.fusedTime),
        source: own.df > 0 ? 'noise' : 'default',
      };
    }
    // Nothing measured on two machines: the default. Only a reported entry (a claim, not a run) keeps its stored
    // δ; a measured one's is derived, so an edited number in the file cannot widen the gate unless marked 'hand'.
    if (entry.provenance.kind === 'measured' || entry.toleranceSource === 'comparable')
      return defaultDeltas(fusedTimeFloor);
    return { speedup: entry.tolerance, fusedTime: entry.fusedTimeTolerance ?? entry.tolerance, source: 'default' };
  }
  const band = (m: 'speedup' | 'fusedTime') => {
    const priorDf = m === 'speedup' ? prior.speedupDf : prior.df;
    const df = priorDf + (own?.df ?? 0);
    const ownSd = own ? Math.sqrt(own[m]) : 0;
    // A pool whose runs all came from one machine, and one machine of the entry: the default, or its own 3s.
    if (df === 0) return threeSigmas(ownSd, defaultDeltas(fusedTimeFloor)[m]);
    const shrunk = (priorDf * prior[m] + (own ? own.df * own[m] : 0)) / df;
    const floor = m === 'speedup' ? DELTA_FLOOR : fusedTimeFloor;
    // Never narrower than the entry's own runs alone say (3s).
    return Math.max(
      threeSigmas(ownSd, floor),
      Math.min(DELTA_CEILING, asFraction(deltaFactor(df) * Math.sqrt(shrunk))),
    );
  };
  return {
    speedup: band('speedup'),
    fusedTime: band('fusedTime'),
    source: 'comparable',
    basis: {
      runs: entry.noise?.runs ?? entry.runs?.length ?? 1,
      comparable: prior.keys,
      priorDf: prior.df,
      machines: prior.machines,
      scope: prior.scope,
      method: entry.method ?? 'per-call',
    },
  };
}

/** Comparable entries named in a message before "and N more". */
const NAMED = 3;

/** Where δ came from, in words: "from the spread of 2 comparable batched entries (…), one run recorded". */
export function deltaOrigin(d: Deltas, runs: number): string {
  switch (d.source) {
    case 'command line':
      return 'from --delta';
    case 'hand':
      return 'set by hand';
    case 'noise':
      return `from the noise of ${runs} runs`;
    case 'default':
      return runs < 2 ? 'default: one run recorded, no comparable entry measured twice' : 'default';
    case 'comparable': {
      const b = d.basis;
      if (!b) return 'from comparable entries';
      const n = b.comparable.length;
      const named = b.comparable.slice(0, NAMED).join(', ') + (n > NAMED ? `, and ${n - NAMED} more` : '');
      const which = `${n} comparable ${b.method} ${n === 1 ? 'entry' : 'entries'} (${named}) on ${b.machines} machines`;
      return b.runs < 2
        ? `from the spread of ${which}, one run recorded`
        : `from the noise of ${b.runs} runs, pooled with ${which}`;
    }
  }
}
