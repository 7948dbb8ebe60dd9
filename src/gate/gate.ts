/**
 * Applies the decision to a measured case: finds its baseline entry, decides the speedup and
 * (same device model only) the fused time, notes fingerprint differences, and says in one line
 * what was decided and what to do next.
 */
import type { DeviceDescription } from '../addon/device.ts';
import { decisionChange, ms, times } from '../base/format.ts';
import { gatedTiming } from '../results/judged-timing.ts';
import { type CaseResult, type Decision, entryKey, type GateResult } from '../results/results.ts';
import { judgedVerdict, MIN_DECISION_PAIRS } from '../results/verdict-rule.ts';
import type { BaselineEntry, LoadedBaselines } from './baseline-file.ts';
import { decide } from './decision.ts';
import { type Deltas, deltaOrigin, entryDeltas } from './tolerance.ts';

/** Settings of the gate for a run. */
export interface GateSettings {
  /** δ from the command line; overrides the entries' own. */
  delta?: number;
  /** The command that records or updates this device's baselines (printed in messages). */
  updateCommand: string;
}

/** δ above which a run's notes list a shape as one its gate is nearly blind to. */
export const WIDE_DELTA = 0.05;

/**
 * The narrowest δ among the metrics a shape's gate judged: a slower fused kernel moves its speedup and its fused
 * time alike, so a change within this δ can only pass as SAME (or AMBIGUOUS). Undefined where the gate judged
 * nothing (no baseline, a non-gating one) and where δ was chosen, not derived (--delta, set by hand).
 */
export function judgedDelta(c: CaseResult): number | undefined {
  const g = c.gate;
  if (!g?.gating || !g.speedup || g.deltaSource === 'hand' || g.deltaSource === 'command line') return undefined;
  const fused = g.fusedTime?.delta;
  if (c.ungatedSpeedup && fused !== undefined) return fused;
  return Math.min(g.speedup.delta, fused ?? Number.POSITIVE_INFINITY);
}

/** Differences between this run's fingerprint and a measured baseline's provenance. */
export function fingerprintNotes(device: DeviceDescription, entry: BaselineEntry): string[] {
  const p = entry.provenance;
  if (p.kind !== 'measured') return [];
  const fp = device.fingerprint;
  const notes: string[] = [];
  const check = (what: string, base: string | number | undefined, now: string | number | undefined) => {
    if (base !== undefined && now !== undefined && base !== now) notes.push(`${what}: baseline ${base}, now ${now}`);
  };
  check('driver', p.driver, fp.driver);
  check('CUDA runtime', p.cudaRuntime, fp.cudaRuntime);
  check('max SM clock (MHz)', p.maxSmClockMHz, fp.maxSmClockMHz);
  check('max memory clock (MHz)', p.maxMemClockMHz, fp.maxMemClockMHz);
  return notes;
}

function describe(d: Decision): string {
  const fmt = d.metric === 'speedup' ? times : ms;
  const what = d.metric === 'speedup' ? 'speedup' : 'fused time';
  return `${what} ${fmt(d.current)} vs baseline ${fmt(d.baseline)}: ${decisionChange(d)} (99% CI), δ ±${(100 * d.delta).toFixed(1)}%`;
}

/**
 * Why a decision with too few pairs (in the run, or kept by its baseline entry) is AMBIGUOUS whatever its interval
 * says; '' when both have enough.
 */
function tooFewPairs(pairs: number, baselinePairs = Number.POSITIVE_INFINITY): string {
  if (pairs < MIN_DECISION_PAIRS) return ` Only ${pairs} pairs: at least ${MIN_DECISION_PAIRS} are needed to decide.`;
  if (baselinePairs < MIN_DECISION_PAIRS)
    return ` Its baseline keeps only ${baselinePairs} pairs: at least ${MIN_DECISION_PAIRS} are needed to decide (record it again).`;
  return '';
}

/** The gate's result for one measured case (the case must carry timing samples). */
export function gateCase(
  result: CaseResult,
  baselines: LoadedBaselines | null,
  device: DeviceDescription,
  settings: GateSettings,
): GateResult {
  const key = entryKey(result.case, result.shape.label, result.dtype);
  const entry = baselines?.data.entries[key];
  if (!baselines || !entry) {
    return {
      status: 'NO_BASELINE',
      gating: false,
      baselineFile: baselines?.file ?? null,
      baselineSource: null,
      remeasured: false,
      fingerprintNotes: [],
      message: `${key}: no baseline for ${device.name}${baselines ? ` in ${baselines.file}` : ''}; record one with \`${settings.updateCommand}\``,
    };
  }
  const timed = gatedTiming(result);
  if (!timed) throw new Error(`${key}: the gate needs the case's timing samples`);
  const entryMethod = entry.method ?? 'per-call';
  if (entryMethod !== timed.method) {
    // Batched and per-call times of a launch-bound kernel differ by the launch gaps: not comparable.
    return {
      status: 'NO_BASELINE',
      gating: false,
      baselineFile: baselines.file,
      baselineSource: entry.provenance.kind,
      remeasured: false,
      fingerprintNotes: [],
      message: `${key}: the baseline in ${baselines.file} was measured ${entryMethod}, this shape is gated on ${timed.method} timing; re-record it with \`${settings.updateCommand}\``,
    };
  }
  const samples = timed.samples;
  // δ from the entry's runs and the comparable entries' in its file (tolerance.ts), unless --delta says.
  const deltas: Deltas =
    settings.delta !== undefined
      ? { speedup: settings.delta, fusedTime: settings.delta, source: 'command line' }
      : entryDeltas(entry, baselines.data.entries);
  const delta = deltas.speedup;
  const fusedTimeDelta = deltas.fusedTime;
  const deltaFrom = deltaOrigin(deltas, entry.noise?.runs ?? entry.runs?.length ?? 1);
  const decisions = decide(samples, entry, { delta, fusedTimeDelta });
  const speedup = decisions[0] as Decision;
  // Absolute times compare only within one device model.
  const sameModel = baselines.data.device.slug === device.slug;
  const fusedTime = sameModel ? decisions.find((d) => d.metric === 'fusedTime') : undefined;
  const { verdict: status, note: ungated } = judgedVerdict(speedup, fusedTime, result.ungatedSpeedup);
  const source = entry.provenance.kind;
  const notes = fingerprintNotes(device, entry);
  const parts = [speedup, ...(fusedTime ? [fusedTime] : [])].map(describe).join('; ');
  const next =
    status === 'FASTER'
      ? ` Faster than the baseline: update it with \`${settings.updateCommand}\`.`
      : status === 'AMBIGUOUS'
        ? tooFewPairs(samples.unfused.length, entry.samples?.unfused.length) ||
          ' The interval straddles the ±δ band: too noisy to decide.'
        : '';
  return {
    status,
    gating: entry.gating,
    baselineFile: baselines.file,
    baselineSource: source,
    deltaSource: deltas.source,
    speedup,
    fusedTime,
    remeasured: false,
    fingerprintNotes: notes,
    message: `${key} ${status}${entry.gating ? '' : ' (not gating)'}: ${parts} (δ ${deltaFrom}; baseline ${baselines.file}, ${source}${timed.method === 'batched' ? ', batched timing' : ''}).${ungated ? ` ${ungated}` : ''}${next}`,
  };
}
