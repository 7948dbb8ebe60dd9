/**
 * One case at one shape, start to end: check both variants' numerics on one set of seeded inputs with
 * poisoned outputs, then measure interleaved pairs (again, continuing, when the caller asks for more),
 * then turn samples into the case's result with the wall time of each phase. A case that cannot run is a
 * skip with a reason; a wrong answer is a failure with numbers; a phase that throws names itself.
 */
import type { CaseDef, Shape } from './case/types.ts';
import { checkVariants } from './check-variants.ts';
import type { DeviceContext } from './device.ts';
import { entryKey } from './gate/baseline-file.ts';
import { calibrateSpin } from './inject.ts';
import { measurePairs } from './measure.ts';
import { Workspace } from './native.ts';
import { PhaseClock } from './phases.ts';
import type { CaseResult } from './results.ts';
import { type Interval, summarize } from './stats.ts';

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
}

/** Where a measurement stands: which timing, pairs so far, the speedup's interval, time spent. */
export interface Progress {
  method: 'per-call' | 'batched';
  pairs: number;
  speedup: Interval;
  elapsedMs: number;
  done: boolean;
}

/** How long one batched sample lasts at least: long beside the event tick and the launch gaps. */
export const BATCH_TARGET_MS = 0.2;

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
    shape,
    dtype: def.dtype,
    sources: [...def.sources],
    status: 'skipped',
    traffic: { unfused: t.unfused, fused: t.fused, theoreticalSpeedup: t.unfused.bytes / t.fused.bytes },
  };
}

/** More sampling on the same inputs, continuing from the pairs taken: a larger budget and a tighter target. */
export interface MoreSampling {
  budgetMs: number;
  targetHalfWidth: number;
}

/**
 * Looks at each measured result and says whether to sample more (the gate's second look at an AMBIGUOUS
 * verdict), or returns undefined to stop.
 */
export type Remeasure = (result: CaseResult) => MoreSampling | undefined;

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
  const clock = new PhaseClock();
  const result = resultSkeleton(def, shape);
  def.validate(shape.dims);
  const unavailable = def.unavailableReason(device.description.backend, {
    ...device.description,
    computeCapability: device.description.fingerprint?.computeCapability,
  });
  if (unavailable) return { ...result, reason: unavailable };
  if (s.maxElements !== undefined && def.elements(shape.dims) > s.maxElements) {
    return { ...result, reason: `more than --max-elements ${s.maxElements} elements` };
  }
  const bytes = def.allocatedBytes(shape.dims);
  if (bytes > 0.9 * device.description.freeMemoryBytes) {
    return {
      ...result,
      reason: `needs about ${(bytes / 1024 ** 3).toFixed(1)} GiB; the device has ${(device.description.freeMemoryBytes / 1024 ** 3).toFixed(1)} GiB free`,
    };
  }
  let ws: Workspace;
  try {
    ws = new Workspace(
      device.description.backend,
      def.nativeCase,
      def.dtype,
      shape.dims,
      [...def.params],
      s.inject ? { variant: def.variants.fused, passes: 'passes' in s.inject ? s.inject.passes : 0 } : undefined,
    );
  } catch (e) {
    const message = (e as Error).message;
    if (/cudaErrorMemoryAllocation|allocation/.test(message))
      return { ...result, reason: `does not fit in memory: ${message}` };
    throw e;
  }
  try {
    const checked = checkVariants(def, ws, shape.dims, s.seed, clock);
    const u = checked.unfused;
    const f = checked.fused;
    const numerics = {
      seed: s.seed,
      tolerance: def.tolerance,
      unfused: u.report,
      fused: f.report,
      extra: def.extraNumerics
        ? clock.time('comparison', () => def.extraNumerics?.(f.inputs, f.outputs, shape.dims) ?? {})
        : {},
    };
    const failure = u.report.failure ?? f.report.failure;
    if (failure) {
      return {
        ...result,
        status: 'failed',
        reason: `numerics: ${failure} (seed ${s.seed})`,
        numerics,
        phases: clock.phases(),
      };
    }
    const injection = !s.inject
      ? undefined
      : 'passes' in s.inject
        ? { kind: 'passes' as const, passes: s.inject.passes }
        : {
            kind: 'percent' as const,
            ...clock.time('sampling', () =>
              calibrateSpin(
                ws,
                def.variants.fused,
                (s.inject as { percent: number }).percent,
                device.description.backend,
              ),
            ),
          };
    const measured = (more: MoreSampling, previous?: CaseResult) =>
      clock.time('sampling', () => measureShape(def, shape, ws, device, s, more, result, previous));
    let current = measured({ budgetMs: s.budgetMs, targetHalfWidth: s.targetHalfWidth });
    for (let more = remeasure?.(current); more; more = remeasure?.(current)) current = measured(more, current);
    return {
      ...current,
      numerics,
      ...(injection
        ? {
            injection:
              injection.kind === 'passes'
                ? injection
                : { kind: 'percent', askedPct: injection.askedPct, measuredPct: injection.measuredPct },
          }
        : {}),
      phases: clock.phases(),
    };
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
    ...(flops ? { tflops: { unfused: tflops(unfused.median), fused: tflops(fused.median) } } : {}),
    ...(flops && peak ? { fusedPctOfMatrixPeak: (100 * tflops(fused.median)) / peak } : {}),
    clocks: m.clocks,
    ...(batched ? { batched, gatedOn: 'batched' as const } : {}),
  };
}
