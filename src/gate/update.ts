/**
 * The update flow (`npm run perf -- --update-baselines`): the new content of this device's baseline
 * file from a run's results, keeping the entries the run did not measure and every field this
 * fusebench does not know, and listing old → new for every entry it changed. record-baselines.ts
 * reads and writes the file under its lock.
 */

import { ms, times } from '../base/format.ts';
import { uniform } from '../base/rng.ts';
import { relativeHalfWidth } from '../base/stats.ts';
import { gatedTiming } from '../results/judged-timing.ts';
import { type CaseResult, entryKey, type ResultsFile } from '../results/results.ts';
import { MAX_BASELINE_PAIRS } from './baseline-consistency.ts';
import {
  BASELINE_SCHEMA_VERSION,
  type BaselineEntry,
  type BaselineFile,
  baselineEntrySchema,
  baselineFileSchema,
} from './baseline-file.ts';
import {
  type BaselineRun,
  type Deltas,
  deltaFromNoise,
  entryDeltas,
  fusedTimeFloorOf,
  runNoise,
  runsCenter,
} from './tolerance.ts';

/**
 * At most `max` pairs, chosen at random with a fixed seed (reproducible) and kept in measured order,
 * rounded to 5 significant digits. Random, not every k-th: with an even stride every kept pair would
 * have had the same variant first, and the order effect would vanish from the baseline's spread.
 */
export function thin(
  unfused: number[],
  fused: number[],
  max = MAX_BASELINE_PAIRS,
): { unfused: number[]; fused: number[] } {
  const idx = unfused.map((_, i) => i);
  if (idx.length > max) {
    const rand = uniform(0x7415);
    for (let i = idx.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [idx[i], idx[j]] = [idx[j] as number, idx[i] as number];
    }
    idx.length = max;
    idx.sort((a, b) => a - b);
  }
  const round = (x: number) => Number(x.toPrecision(5));
  return { unfused: idx.map((i) => round(unfused[i] as number)), fused: idx.map((i) => round(fused[i] as number)) };
}

/** The fields of `value` that `known` does not name, as an object (empty when there are none). */
function unknownFields(value: object | undefined, known: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([k]) => !Object.hasOwn(known, k)));
}

const ENTRY_FIELDS = baselineEntrySchema.shape;
const FILE_FIELDS = baselineFileSchema.shape;
const DEVICE_FIELDS = baselineFileSchema.shape.device.shape;
const PROVENANCE_FIELDS = Object.assign({}, ...ENTRY_FIELDS.provenance.options.map((o) => o.shape)) as object;

/**
 * Unknown fields inside the parts of an entry that a new measurement replaces (its speedup, samples and
 * provenance): they described the old measurement, so they are not carried over, but they are named.
 */
function replacedUnknown(old: BaselineEntry | undefined): string[] {
  if (!old) return [];
  const inside = (part: string, value: object | undefined, known: object) =>
    Object.keys(unknownFields(value, known)).map((k) => `${part}.${k}`);
  return [
    ...inside('speedup', old.speedup, ENTRY_FIELDS.speedup.shape),
    ...inside('provenance', old.provenance, PROVENANCE_FIELDS),
  ];
}

/**
 * How an update treats the existing entries: `replace` starts each measured entry afresh from this run;
 * `add-run` adds this run to the runs an entry was recorded from (same timing method), so its noise
 * between runs, and the δ derived from it, come from all of them.
 */
export type UpdateMode = 'replace' | 'add-run';

/** Runs an entry keeps: enough for the between-run spread, few enough to review. */
const MAX_BASELINE_RUNS = 8;

/**
 * A measured baseline entry from a case result, of the timing the case is gated on. Its runs and noise
 * include the old entry's runs in `add-run` mode; its samples, medians and interval are this run's, moved to
 * the centre of its runs (the same as this run's when it is the only one). δ is
 * derived from its own noise (src/gate/tolerance.ts `deltaFromNoise`) unless the old entry's was set by
 * hand, which is kept; `updateBaselines` then re-derives it with the comparable entries of the file;
 * so is `gating` when the old entry was measured, and every field of the old entry that this fusebench
 * does not know. A reported entry (non-gating or not) starts to gate once it is measured on the device.
 */
function measuredEntry(
  r: CaseResult,
  results: ResultsFile,
  commit: string,
  old?: BaselineEntry,
  mode: UpdateMode = 'replace',
): BaselineEntry {
  const g = gatedTiming(r);
  if (!g) throw new Error(`${r.key}: only measured cases can become baselines`);
  const fp = results.device.fingerprint;
  const run: BaselineRun = {
    date: results.createdAt,
    commit,
    speedup: g.speedup.estimate,
    fusedMedianMs: g.fused.median,
    halfWidth: relativeHalfWidth(g.speedup),
    ...(fp.uuid ? { deviceUuid: fp.uuid } : {}),
  };
  const sameMethod = (old?.method ?? 'per-call') === g.method;
  const runs = mode === 'add-run' && sameMethod && old?.runs ? [...old.runs, run].slice(-MAX_BASELINE_RUNS) : [run];
  const noise = runNoise(runs);
  // Centred on all its runs (tolerance.ts runsCenter): this run's samples, medians and interval moved there.
  const center = runsCenter(runs);
  const derived = deltaFromNoise(noise, fusedTimeFloorOf(center.fusedMedianMs));
  const hand = old?.toleranceSource === 'hand';
  const fusedScale = center.fusedMedianMs / g.fused.median;
  const speedupScale = center.speedup / g.speedup.estimate;
  const unfusedScale = speedupScale * fusedScale;
  const scaled = (xs: readonly number[], k: number) => xs.map((x) => x * k);
  return {
    ...unknownFields(old, ENTRY_FIELDS),
    case: r.case,
    shape: { ...unknownFields(old?.shape, ENTRY_FIELDS.shape.shape), label: r.shape.label, dims: r.shape.dims },
    dtype: r.dtype,
    unfusedMedianMs: g.unfused.median * unfusedScale,
    fusedMedianMs: center.fusedMedianMs,
    speedup: {
      estimate: center.speedup,
      lo: g.speedup.lo * speedupScale,
      hi: g.speedup.hi * speedupScale,
      confidence: g.speedup.confidence,
    },
    sampleCount: g.unfused.n,
    samples: thin(scaled(g.samples.unfused, unfusedScale), scaled(g.samples.fused, fusedScale)),
    tolerance: hand && old ? old.tolerance : derived.speedup,
    ...(hand
      ? old?.fusedTimeTolerance
        ? { fusedTimeTolerance: old.fusedTimeTolerance }
        : {}
      : { fusedTimeTolerance: derived.fusedTime }),
    toleranceSource: hand ? 'hand' : derived.source === 'noise' ? 'noise' : 'default',
    method: g.method,
    ...(r.ungatedSpeedup ? { ungatedSpeedup: r.ungatedSpeedup } : {}),
    runs,
    noise,
    maxAbsError: Math.max(r.numerics?.unfused.maxAbsError ?? 0, r.numerics?.fused.maxAbsError ?? 0),
    gating: old?.provenance.kind === 'measured' ? old.gating : true,
    provenance: {
      kind: 'measured',
      date: results.createdAt,
      commit,
      driver: fp.driver,
      cudaRuntime: fp.cudaRuntime,
      cudaDriverApi: fp.cudaDriverApi,
      maxSmClockMHz: fp.maxSmClockMHz,
      maxMemClockMHz: fp.maxMemClockMHz,
      smClockMHz: r.clocks?.smMHz.median,
      computeCapability: fp.computeCapability,
      deviceUuid: fp.uuid,
    },
  };
}

/**
 * The entry with the δ the gate derives for it from `entries` (its baseline file); a δ set by hand, and a
 * reported entry's, are kept.
 */
function withGateDelta(e: BaselineEntry, entries: Readonly<Record<string, BaselineEntry>>): BaselineEntry {
  if (e.toleranceSource === 'hand' || e.provenance.kind !== 'measured') return e;
  const d: Deltas = entryDeltas(e, entries);
  const source = d.source === 'comparable' || d.source === 'noise' ? d.source : 'default';
  return { ...e, tolerance: d.speedup, fusedTimeTolerance: d.fusedTime, toleranceSource: source };
}

/** "±5.0% (default)", or "±2.6% / fused time ±7.7% (noise)" when the fused time's differs. */
function deltaText(e: BaselineEntry): string {
  const pct = (x: number) => `±${(100 * x).toFixed(1)}%`;
  const fused = e.fusedTimeTolerance !== undefined && e.fusedTimeTolerance !== e.tolerance;
  return `${pct(e.tolerance)}${fused ? ` / fused time ${pct(e.fusedTimeTolerance as number)}` : ''}${e.toleranceSource ? ` (${e.toleranceSource})` : ''}`;
}

function describeEntry(e: BaselineEntry | undefined): string {
  if (!e) return '(none)';
  const fused = e.fusedMedianMs !== undefined ? `, fused ${ms(e.fusedMedianMs)}` : '';
  const method = e.method === 'batched' ? ', batched' : '';
  const runs = e.runs && e.runs.length > 1 ? `, ${e.runs.length} runs` : '';
  return `${times(e.speedup.estimate)}${fused}${method}${runs}, δ ${deltaText(e)} (${e.provenance.kind})`;
}

/** The result of an update: the new content, old → new per changed entry, and the unknown fields kept. */
export interface BaselineUpdate {
  file: BaselineFile;
  changes: string[];
  /** "the file: comment", "gelu_scale/16M/fp32: reviewedBy": fields this fusebench does not know, carried over. */
  keptUnknown: string[];
  /** Unknown fields of a re-measured entry's speedup or provenance, which describe the old measurement. */
  droppedUnknown: string[];
}

/** The new file content and the changes, old → new, one line per changed entry. */
export function updateBaselines(
  existing: BaselineFile | null,
  results: ResultsFile,
  commit: string,
  mode: UpdateMode = 'replace',
): BaselineUpdate {
  // Null prototype: a key read from the file (even `__proto__`) stays an entry (file-record.ts).
  const entries: Record<string, BaselineEntry> = Object.assign(Object.create(null), existing?.entries);
  const changes: string[] = [];
  const keptUnknown: string[] = [];
  const droppedUnknown: string[] = [];
  const remeasured = new Map<string, BaselineEntry | undefined>();
  const kept = (where: string, fields: Record<string, unknown>) => {
    const names = Object.keys(fields);
    if (names.length > 0) keptUnknown.push(`${where}: ${names.join(', ')}`);
  };
  for (const r of results.cases) {
    if (r.status !== 'measured') continue;
    const key = entryKey(r.case, r.shape.label, r.dtype);
    const old = entries[key];
    entries[key] = measuredEntry(r, results, commit, old, mode);
    remeasured.set(key, old);
    kept(key, {
      ...unknownFields(old, ENTRY_FIELDS),
      ...Object.fromEntries(
        Object.keys(unknownFields(old?.shape, ENTRY_FIELDS.shape.shape)).map((k) => [`shape.${k}`, 1]),
      ),
    });
    const dropped = replacedUnknown(old);
    if (dropped.length > 0) droppedUnknown.push(`${key}: ${dropped.join(', ')}`);
  }
  // Store the δ the gate will derive from the merged file (tolerance.ts entryDeltas): this run's entries
  // also change the comparable entries' prior, so every entry's δ is derived again.
  const derived = Object.fromEntries(Object.entries(entries).map(([key, e]) => [key, withGateDelta(e, entries)]));
  for (const [key, old] of remeasured) changes.push(`${key}: ${describeEntry(old)} → ${describeEntry(derived[key])}`);
  for (const [key, e] of Object.entries(derived)) {
    const before = entries[key] as BaselineEntry;
    const fused = (x: BaselineEntry) => x.fusedTimeTolerance ?? x.tolerance;
    if (remeasured.has(key) || (e.tolerance === before.tolerance && fused(e) === fused(before))) continue;
    changes.push(`${key}: δ ${deltaText(before)} → ${deltaText(e)}, derived again from the file's comparable entries`);
  }
  const sorted = Object.fromEntries(Object.entries(derived).sort(([a], [b]) => a.localeCompare(b)));
  const fileExtra = unknownFields(existing ?? undefined, FILE_FIELDS);
  const deviceExtra = unknownFields(existing?.device, DEVICE_FIELDS);
  kept('the file', fileExtra);
  kept('device', deviceExtra);
  return {
    file: {
      ...fileExtra,
      schemaVersion: BASELINE_SCHEMA_VERSION,
      device: {
        ...deviceExtra,
        name: results.device.name,
        slug: results.device.slug,
        backend: results.device.backend,
      },
      entries: sorted,
    },
    changes,
    keptUnknown,
    droppedUnknown,
  };
}
