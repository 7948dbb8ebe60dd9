/**
 * One case at one shape, start to end: check both variants' numerics on fresh random inputs with
 * poisoned outputs, then measure interleaved pairs, then turn samples into the case's result.
 * A case that cannot run is a skip with a reason; a wrong answer is a failure with numbers.
 */
import type { BackendName, CaseDef, Shape } from './cases/types.ts';
import type { DeviceContext } from './device.ts';
import { entryKey } from './gate/baseline-file.ts';
import { measurePairs } from './measure.ts';
import { buildInfo, Workspace } from './native.ts';
import { compare } from './numerics.ts';
import type { CaseResult } from './results.ts';
import { summarize } from './stats.ts';

/** How to run a case: sampling settings and the input seed. */
export interface RunSettings {
  budgetMs: number;
  minPairs: number;
  warmupPairs: number;
  targetHalfWidth: number;
  seed: number;
  maxElements: number | undefined;
  /** Make this case's fused kernel slower by extra read passes (gate self-check). */
  inject?: { passes: number };
  /** Pairs from an earlier measurement of this case on the same inputs, to continue from. */
  previous?: { unfused: readonly number[]; fused: readonly number[] };
}

const elementCount = (dims: number[]) => dims.reduce((a, b) => a * b, 1);

/** The addon case that runs `def`. */
export const nativeCaseOf = (def: CaseDef) => def.nativeCase ?? def.name;

/**
 * Why `def` cannot run on `backend` with this addon build, or undefined when it can: a variant that
 * exists on another backend only, or a CUDA case whose twin needs cuBLAS in a build without it.
 */
export function unavailableReason(
  def: CaseDef,
  backend: BackendName,
  build: { cublas: boolean } = buildInfo(),
): string | undefined {
  if (def.backends && !def.backends.includes(backend)) {
    return `runs on ${def.backends.join(', ')} only (its fused variant is a library call of that backend)`;
  }
  if (backend === 'cuda' && def.requires?.includes('cublas') && !build.cublas) {
    return 'needs cuBLAS/cuBLASLt, and this addon was built without them (the CUDA toolkit it was built with has no libcublas); rebuild where the toolkit has them';
  }
  return undefined;
}

/** The result skeleton every status shares (status 'skipped' until something is measured). */
export function resultSkeleton(def: CaseDef, shape: Shape): CaseResult {
  const t = def.traffic(shape.dims);
  return {
    key: entryKey(def.name, shape.label),
    case: def.name,
    title: def.title,
    shape,
    dtype: 'fp32',
    sources: def.sources,
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
  const unavailable = unavailableReason(def, device.description.backend);
  if (unavailable) return { ...result, reason: unavailable };
  if (s.maxElements !== undefined && (def.elements?.(shape.dims) ?? elementCount(shape.dims)) > s.maxElements) {
    return { ...result, reason: `more than --max-elements ${s.maxElements} elements` };
  }
  // Generous when the case does not say: inputs, outputs and scratch of 16 bytes per element.
  const bytes = def.allocatedBytes?.(shape.dims) ?? 4 * elementCount(shape.dims) * 4;
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
      nativeCaseOf(def),
      shape.dims,
      def.params,
      s.inject ? { variant: def.variants.fused, passes: s.inject.passes } : undefined,
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

    const m = measurePairs(ws, def.variants, {
      minPairs: s.minPairs,
      warmupPairs: s.warmupPairs,
      budgetMs: s.budgetMs,
      targetHalfWidth: s.targetHalfWidth,
      sampleClocks: device.sampleClocks,
      previous: s.previous,
    });
    const unfused = summarize(m.unfused);
    const fused = summarize(m.fused);
    const fusedGBs = result.traffic.fused.bytes / (fused.median / 1e3) / 1e9;
    const flops = def.flops?.(shape.dims);
    const tflops = (t: number) => (flops ?? 0) / (t / 1e3) / 1e12;
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
      clocks: m.clocks,
    };
  } finally {
    ws.dispose();
  }
}
