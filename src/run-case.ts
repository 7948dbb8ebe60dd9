/**
 * One case at one shape, start to end: check both variants' numerics on fresh random inputs with
 * poisoned outputs, then measure interleaved pairs, then turn samples into the case's result.
 * A case that cannot run is a skip with a reason; a wrong answer is a failure with numbers.
 */
import type { CaseDef, Shape } from './case/types.ts';
import type { DeviceContext } from './device.ts';
import { entryKey } from './gate/baseline-file.ts';
import { calibrateSpin } from './inject.ts';
import { measurePairs } from './measure.ts';
import { Workspace } from './native.ts';
import { compare } from './numerics.ts';
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
  /** An earlier measurement of this case on the same inputs, whose pairs this one continues from. */
  previous?: CaseResult;
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

/** Checks one variant: fresh inputs, every output and scratch buffer poisoned, one run, compare. */
export function checkVariant(def: CaseDef, ws: Workspace, dims: number[], variant: string, seed: number) {
  const inputs = def.inputs(dims, seed);
  for (const [name, data] of Object.entries(inputs)) ws.upload(name, data);
  for (const b of ws.buffers()) if (b.role !== 'input') ws.poison(b.name);
  ws.run(variant);
  const reference = def.reference(inputs, dims);
  const outputs: Record<string, Float32Array> = {};
  const reports = Object.entries(reference).map(([name, ref]) => {
    const out = ws.download(name);
    outputs[name] = out;
    const label = `${variant} ${name}`;
    if (ref instanceof Float64Array) return compare(out, ref, def.tolerance, label);
    const picked = Float32Array.from(ref.indices, (i) => out[i] as number);
    return { ...compare(picked, ref.values, def.tolerance, label, ref.indices), sampled: ref.note };
  });
  const first = reports[0];
  if (!first) throw new Error(`${def.name}: the reference checks no output`);
  const report =
    reports.find((r) => r.failure) ?? reports.reduce((a, b) => (b.maxAbsError > a.maxAbsError ? b : a), first);
  return { report, inputs, outputs };
}

/** Runs a case at a shape on the device; never throws for a skip or a wrong answer. */
export function runCase(def: CaseDef, shape: Shape, device: DeviceContext, s: RunSettings): CaseResult {
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
    const u = checkVariant(def, ws, shape.dims, def.variants.unfused, s.seed);
    const f = checkVariant(def, ws, shape.dims, def.variants.fused, s.seed + 1);
    const numerics = {
      seed: s.seed,
      tolerance: def.tolerance,
      unfused: u.report,
      fused: f.report,
      extra: def.extraNumerics ? def.extraNumerics(f.inputs, f.outputs, shape.dims) : {},
    };
    const failure = u.report.failure ?? f.report.failure;
    if (failure) return { ...result, status: 'failed', reason: `numerics: ${failure} (seed ${s.seed})`, numerics };

    const injection = !s.inject
      ? undefined
      : 'passes' in s.inject
        ? { kind: 'passes' as const, passes: s.inject.passes }
        : {
            kind: 'percent' as const,
            ...calibrateSpin(ws, def.variants.fused, s.inject.percent, device.description.backend),
          };
    const settings = {
      minPairs: s.minPairs,
      warmupPairs: s.warmupPairs,
      budgetMs: s.budgetMs,
      targetHalfWidth: s.targetHalfWidth,
      sampleClocks: device.sampleClocks,
    };
    const m = measurePairs(ws, def.variants, {
      ...settings,
      previous: s.previous?.timing?.samples,
      onRound: (r) => s.onProgress?.({ method: 'per-call', ...r }),
    });
    const unfused = summarize(m.unfused);
    const fused = summarize(m.fused);
    // Launch-bound shapes: the same pairs again in batches of back-to-back calls, which the gate judges.
    let batched: CaseResult['batched'];
    if (shape.timing === 'batched') {
      const calls = s.previous?.batched?.callsPerSample ?? batchCalls(Math.max(unfused.median, fused.median));
      const b = measurePairs({ time: (v) => ws.timeBatch(v, calls) }, def.variants, {
        ...settings,
        previous: s.previous?.batched?.samples,
        onRound: (r) => s.onProgress?.({ method: 'batched', ...r }),
      });
      const samples = { unfused: b.unfused, fused: b.fused };
      batched = {
        callsPerSample: calls,
        unfused: summarize(b.unfused),
        fused: summarize(b.fused),
        speedup: b.speedup,
        samples,
      };
    }
    const fusedGBs = result.traffic.fused.bytes / (fused.median / 1e3) / 1e9;
    const flops = def.flops?.(shape.dims);
    const tflops = (t: number) => (flops ?? 0) / (t / 1e3) / 1e12;
    const peak = device.description.matrixPeakTFlops?.[def.dtype];
    return {
      ...result,
      status: 'measured',
      numerics,
      timing: {
        unfused,
        fused,
        pairsTaken: m.pairsTaken,
        droppedThrottled: m.droppedThrottled,
        stopReason: m.stopReason,
        wallMs: m.wallMs,
        budgetMs: s.budgetMs,
        samples: { unfused: m.unfused, fused: m.fused },
      },
      speedup: m.speedup,
      efficiency: m.speedup.estimate / result.traffic.theoreticalSpeedup,
      fusedGBs,
      fusedPctOfCopy: (100 * fusedGBs) / device.description.copyBandwidthGBs,
      ...(flops ? { tflops: { unfused: tflops(unfused.median), fused: tflops(fused.median) } } : {}),
      ...(flops && peak ? { fusedPctOfMatrixPeak: (100 * tflops(fused.median)) / peak } : {}),
      clocks: m.clocks,
      ...(batched ? { batched, gatedOn: 'batched' as const } : {}),
      ...(injection
        ? {
            injection:
              injection.kind === 'passes'
                ? injection
                : { kind: 'percent', askedPct: injection.askedPct, measuredPct: injection.measuredPct },
          }
        : {}),
    };
  } finally {
    ws.dispose();
  }
}
