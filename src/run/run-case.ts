/**
 * One case at one shape, start to end: check both variants' numerics on one set of seeded inputs with
 * poisoned outputs, then measure interleaved pairs (again, continuing, when the caller asks for more),
 * then turn samples into the case's result with the wall time of each phase. A case that cannot run is a
 * skip with a reason; a wrong answer is a failure with numbers; a phase that throws names itself.
 */

import type { DeviceContext } from '../addon/device.ts';
import { Workspace } from '../addon/native.ts';
import { type Interval, summarize } from '../base/stats.ts';
import type { CaseDef, Shape } from '../case/types.ts';
import { type Phase, PhaseClock } from '../results/phases.ts';
import { type CaseResult, entryKey } from '../results/results.ts';
import { checkVariant, checkVariants } from './check-variants.ts';
import { type GraphCheck, measureGraphTwin } from './graph-twin.ts';
import { calibrateSpin } from './inject.ts';
import { measurePairs } from './measure.ts';

/** How to run a case: sampling settings and the input seed. */
export interface RunSettings {
  budgetMs: number;
  minPairs: number;
  warmupPairs: number;
  targetHalfWidth: number;
  seed: number;
  maxElements: number | undefined;
  /** Make this case's fused kernel slower (the gate's self-check): extra read passes, or a calibrated percentage. */
  inject?: { passes: number } | { percent: number };
  /** Told after each round of pairs, for progress output. */
  onProgress?: (p: Progress) => void;
  /** Told as each phase of the shape starts (inputs, reference, sampling, ...), for progress output. */
  onPhase?: (phase: Phase) => void;
}

/** Where a measurement stands: which timing, pairs so far, the speedup's interval (none before its first round), time spent. */
export interface Progress {
  method: 'per-call' | 'batched' | 'graph';
  pairs: number;
  speedup?: Interval;
  elapsedMs: number;
  done: boolean;
}

/** How long one batched sample lasts at least: long beside the event tick and the launch gaps. */
const BATCH_TARGET_MS = 0.2;

/**
 * Calls per batched sample: a power of two that makes a batch last BATCH_TARGET_MS, from 8 to 256 (a
 * batch queues up behind a held kernel, and the launch queue must hold all of it).
 */
export function batchCalls(perCallMs: number): number {
  const calls = 2 ** Math.ceil(Math.log2(BATCH_TARGET_MS / Math.max(perCallMs, 1e-6)));
  return Math.min(256, Math.max(8, calls));
}

/** The result skeleton every status shares (status 'skipped' until something is measured). */
export function resultSkeleton(def: CaseDef, shape: Shape): CaseResult {
  const t = def.traffic(shape.dims);
  return {
    key: entryKey(def.name, shape.label, def.dtype),
    case: def.name,
    title: def.title,
    // What the results schema declares of a shape; the descriptor's timing options are the result's own fields.
    shape: { label: shape.label, description: shape.description, dims: shape.dims },
    dtype: def.dtype,
    sources: [...def.sources],
    status: 'skipped',
    traffic: { unfused: t.unfused, fused: t.fused, theoreticalSpeedup: t.unfused.bytes / t.fused.bytes },
    ...(shape.ungatedSpeedup ? { ungatedSpeedup: shape.ungatedSpeedup } : {}),
  };
}

/** More sampling on the same inputs, continuing from the pairs taken: a larger budget and a tighter target. */
interface MoreSampling {
  budgetMs: number;
  targetHalfWidth: number;
}

/**
 * Looks at each measured result and says whether to sample more (the gate's second look at an AMBIGUOUS
 * verdict), or returns undefined to stop.
 */
export type Remeasure = (result: CaseResult) => MoreSampling | undefined;

/** Whether --max-elements leaves this shape out: a skip the user chose, unlike every other. */
export function leftOutByMaxElements(def: CaseDef, shape: Shape, maxElements: number | undefined): boolean {
  return maxElements !== undefined && def.elements(shape.dims) > maxElements;
}

/** Why this case cannot run at this shape on this device (a skip), or undefined. */
function skipReason(def: CaseDef, shape: Shape, device: DeviceContext, s: RunSettings): string | undefined {
  const unavailable = def.unavailableReason(device.description.backend, {
    ...device.description,
    computeCapability: device.description.fingerprint?.computeCapability,
  });
  if (unavailable) return unavailable;
  if (leftOutByMaxElements(def, shape, s.maxElements)) return `more than --max-elements ${s.maxElements} elements`;
  const bytes = def.allocatedBytes(shape.dims);
  const free = device.description.freeMemoryBytes;
  if (bytes > 0.9 * free) {
    return `needs about ${(bytes / 1024 ** 3).toFixed(1)} GiB; the device has ${(free / 1024 ** 3).toFixed(1)} GiB free`;
  }
  return undefined;
}

/** The case's buffers on the device, or the reason they do not fit (a skip). */
function openWorkspace(def: CaseDef, shape: Shape, device: DeviceContext, s: RunSettings): Workspace | string {
  try {
    return new Workspace(
      device.description.backend,
      def.nativeCase,
      def.dtype,
      shape.dims,
      [...def.params],
      s.inject ? { variant: def.variants.fused, passes: 'passes' in s.inject ? s.inject.passes : 0 } : undefined,
    );
  } catch (e) {
    const message = (e as Error).message;
    if (/cudaErrorMemoryAllocation|allocation/.test(message)) return `does not fit in memory: ${message}`;
    throw e;
  }
}

/** How a numerics failure names its inputs: "(seed 7: --seed 7 reproduces it)". */
const seedNote = (seed: number) => `(seed ${seed}: --seed ${seed} reproduces it)`;

/** Both variants checked against one float64 reference: the result's numerics, and the failure if any. */
function checkNumerics(def: CaseDef, shape: Shape, ws: Workspace, s: RunSettings, clock: PhaseClock) {
  const { unfused: u, fused: f, prepared } = checkVariants(def, ws, shape.dims, s.seed, clock);
  const numerics: NonNullable<CaseResult['numerics']> = {
    seed: s.seed,
    tolerance: def.tolerance,
    unfused: u.report,
    fused: f.report,
    extra: def.extraNumerics
      ? clock.time('comparison', () => def.extraNumerics?.(f.inputs, f.outputs, shape.dims) ?? {})
      : {},
  };
  return { numerics, failure: u.report.failure ?? f.report.failure, fusedKernel: f.kernel, prepared };
}

/** The injected regression as the result records it (a percentage is calibrated on the fused kernel first). */
function injectionOf(
  def: CaseDef,
  ws: Workspace,
  device: DeviceContext,
  s: RunSettings,
  clock: PhaseClock,
): CaseResult['injection'] {
  const inj = s.inject;
  if (!inj) return undefined;
  if ('passes' in inj) return { kind: 'passes', passes: inj.passes };
  const { askedPct, measuredPct } = clock.time('sampling', () =>
    calibrateSpin(ws, def.variants.fused, inj.percent, device.description.backend),
  );
  return { kind: 'percent', askedPct, measuredPct };
}

/**
 * Runs a case at a shape on the device; never throws for a skip or a wrong answer. After each measurement
 * `remeasure` may ask for more pairs, which continue on the same workspace and inputs.
 */
export function runCase(
  def: CaseDef,
  shape: Shape,
  device: DeviceContext,
  s: RunSettings,
  remeasure?: Remeasure,
): CaseResult {
  const clock = new PhaseClock(s.onPhase);
  const result = resultSkeleton(def, shape);
  def.validate(shape.dims);
  const skip = skipReason(def, shape, device, s);
  if (skip) return { ...result, reason: skip };
  const ws = openWorkspace(def, shape, device, s);
  if (typeof ws === 'string') return { ...result, reason: ws };
  try {
    const { numerics, failure, fusedKernel, prepared } = checkNumerics(def, shape, ws, s, clock);
    const kernel = fusedKernel ? { fusedKernel } : {};
    if (failure) {
      const reason = `numerics: ${failure} ${seedNote(s.seed)}`;
      return { ...result, status: 'failed', reason, numerics, ...kernel, phases: clock.phases() };
    }
    const injection = injectionOf(def, ws, device, s, clock);
    // The graph twin's outputs, checked once against the same reference before it is timed.
    let graphFailure: string | undefined;
    const graphCheck: GraphCheck = (replay) => {
      const run = () => {
        replay();
        return undefined;
      };
      // Its own clock: the check runs inside `sampling`, whose phases it must not count twice.
      graphFailure = checkVariant(def, ws, def.variants.unfused, prepared, new PhaseClock(), run).report.failure;
      return graphFailure;
    };
    const measured = (more: MoreSampling, previous?: CaseResult) =>
      clock.time('sampling', () => measureShape(def, shape, ws, device, s, more, result, previous, graphCheck));
    let current = measured({ budgetMs: s.budgetMs, targetHalfWidth: s.targetHalfWidth });
    // A graph that failed its check fails the shape at once: no second look times it.
    if (!graphFailure)
      for (let more = remeasure?.(current); more; more = remeasure?.(current)) current = measured(more, current);
    const done = { ...current, numerics, ...kernel, ...(injection ? { injection } : {}), phases: clock.phases() };
    if (graphFailure)
      return {
        ...done,
        status: 'failed',
        reason: `graph twin numerics: ${graphFailure} ${seedNote(s.seed)}`,
      };
    return done;
  } finally {
    ws.dispose();
  }
}

/** Interleaved pairs (and batches, for launch-bound shapes) of both variants, continuing from `previous`'s. */
function measureShape(
  def: CaseDef,
  shape: Shape,
  ws: Workspace,
  device: DeviceContext,
  s: RunSettings,
  more: MoreSampling,
  skeleton: CaseResult,
  previous: CaseResult | undefined,
  graphCheck: GraphCheck,
): CaseResult {
  const settings = {
    minPairs: s.minPairs,
    warmupPairs: s.warmupPairs,
    budgetMs: more.budgetMs,
    targetHalfWidth: more.targetHalfWidth,
    sampleClocks: device.sampleClocks,
  };
  const m = measurePairs(ws, def.variants, {
    ...settings,
    previous: previous?.timing?.samples,
    onRound: (r) => s.onProgress?.({ method: 'per-call', ...r }),
  });
  const unfused = summarize(m.unfused);
  const fused = summarize(m.fused);
  // Launch-bound shapes: the same pairs again in batches of back-to-back calls, which the gate judges.
  let batched: CaseResult['batched'];
  if (shape.timing === 'batched') {
    const calls = previous?.batched?.callsPerSample ?? batchCalls(Math.max(unfused.median, fused.median));
    const b = measurePairs({ time: (v) => ws.timeBatch(v, calls) }, def.variants, {
      ...settings,
      previous: previous?.batched?.samples,
      onRound: (r) => s.onProgress?.({ method: 'batched', ...r }),
    });
    batched = {
      callsPerSample: calls,
      unfused: summarize(b.unfused),
      fused: summarize(b.fused),
      speedup: b.speedup,
      samples: { unfused: b.unfused, fused: b.fused },
    };
  }
  const graphTwin = shape.graphTwin
    ? measureGraphTwin(
        ws,
        def.variants,
        batched?.callsPerSample ?? 1,
        { ...settings, onRound: (r) => s.onProgress?.({ method: 'graph', ...r }) },
        previous?.graphTwin,
        graphCheck,
      )
    : undefined;
  const fusedGBs = skeleton.traffic.fused.bytes / (fused.median / 1e3) / 1e9;
  const flops = def.flops?.(shape.dims);
  const tflops = (t: number) => (flops ?? 0) / (t / 1e3) / 1e12;
  const peak = device.description.matrixPeakTFlops?.[def.dtype];
  return {
    ...skeleton,
    status: 'measured',
    timing: {
      unfused,
      fused,
      pairsTaken: m.pairsTaken,
      droppedThrottled: m.droppedThrottled,
      stopReason: m.stopReason,
      wallMs: m.wallMs,
      budgetMs: more.budgetMs,
      samples: { unfused: m.unfused, fused: m.fused },
    },
    speedup: m.speedup,
    efficiency: m.speedup.estimate / skeleton.traffic.theoreticalSpeedup,
    fusedGBs,
    fusedPctOfCopy: (100 * fusedGBs) / device.description.copyBandwidthGBs,
    ...(flops ? { flops, tflops: { unfused: tflops(unfused.median), fused: tflops(fused.median) } } : {}),
    ...(flops && peak ? { fusedPctOfMatrixPeak: (100 * tflops(fused.median)) / peak } : {}),
    clocks: m.clocks,
    ...(batched ? { batched, gatedOn: 'batched' as const } : {}),
    ...(graphTwin ? { graphTwin } : {}),
  };
}
