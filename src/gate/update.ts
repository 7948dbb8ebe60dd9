/**
 * The update flow (`npm run perf -- --update-baselines`): rewrites this device's baseline file
 * from a run's results, atomically, keeping the entries the run did not measure, and lists
 * old → new for every entry it changed.
 */
import { execFileSync } from 'node:child_process';
import type { CaseResult, ResultsFile } from '../results.ts';
import { ms, times } from '../report/format.ts';
import {
  BASELINE_SCHEMA_VERSION,
  type BaselineEntry,
  type BaselineFile,
  DEFAULT_DELTA,
  entryKey,
} from './baseline-file.ts';

/** Pairs kept in a baseline entry: enough for the decision's bootstrap, small enough to review. */
export const MAX_BASELINE_PAIRS = 200;

/**
 * The commit being measured: FUSEBENCH_COMMIT or GITHUB_SHA when set (a copied or shallow checkout),
 * else git's HEAD (with +dirty when tracked files changed), else "unknown".
 */
export function currentCommit(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): string {
  const given = env.FUSEBENCH_COMMIT || env.GITHUB_SHA;
  if (given) return given;
  const git = (args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const sha = git(['rev-parse', '--short=12', 'HEAD']);
    return git(['status', '--porcelain', '--untracked-files=no']) ? `${sha}+dirty` : sha;
  } catch {
    return 'unknown';
  }
}

/** Evenly spaced pairs, at most `max`, rounded to 5 significant digits. */
export function thin(
  unfused: number[],
  fused: number[],
  max = MAX_BASELINE_PAIRS,
): { unfused: number[]; fused: number[] } {
  const step = Math.max(1, unfused.length / max);
  const idx: number[] = [];
  for (let i = 0; Math.floor(i) < unfused.length && idx.length < max; i += step) idx.push(Math.floor(i));
  const round = (x: number) => Number(x.toPrecision(5));
  return { unfused: idx.map((i) => round(unfused[i] as number)), fused: idx.map((i) => round(fused[i] as number)) };
}

/** A measured baseline entry from a case result; tolerance and gating carry over from the old entry. */
export function measuredEntry(r: CaseResult, results: ResultsFile, commit: string, old?: BaselineEntry): BaselineEntry {
  if (!r.timing || !r.speedup) throw new Error(`${r.key}: only measured cases can become baselines`);
  const fp = results.device.fingerprint;
  return {
    case: r.case,
    shape: { label: r.shape.label, dims: r.shape.dims },
    dtype: 'fp32',
    unfusedMedianMs: r.timing.unfused.median,
    fusedMedianMs: r.timing.fused.median,
    speedup: { estimate: r.speedup.estimate, lo: r.speedup.lo, hi: r.speedup.hi, confidence: r.speedup.confidence },
    sampleCount: r.timing.unfused.n,
    samples: thin(r.timing.samples.unfused, r.timing.samples.fused),
    tolerance: old?.tolerance ?? DEFAULT_DELTA,
    maxAbsError: Math.max(r.numerics?.unfused.maxAbsError ?? 0, r.numerics?.fused.maxAbsError ?? 0),
    errorTolerance: r.numerics?.tolerance.atol,
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

function describeEntry(e: BaselineEntry | undefined): string {
  if (!e) return '(none)';
  const fused = e.fusedMedianMs !== undefined ? `, fused ${ms(e.fusedMedianMs)}` : '';
  return `${times(e.speedup.estimate)}${fused} (${e.provenance.kind})`;
}

/** The new file content and the changes, old → new, one line per changed entry. */
export function updateBaselines(
  existing: BaselineFile | null,
  results: ResultsFile,
  commit: string,
): { file: BaselineFile; changes: string[] } {
  const entries: Record<string, BaselineEntry> = { ...(existing?.entries ?? {}) };
  const changes: string[] = [];
  for (const r of results.cases) {
    if (r.status !== 'measured') continue;
    const key = entryKey(r.case, r.shape.label);
    const old = entries[key];
    entries[key] = measuredEntry(r, results, commit, old);
    changes.push(`${key}: ${describeEntry(old)} → ${describeEntry(entries[key])}`);
  }
  const sorted = Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));
  return {
    file: {
      schemaVersion: BASELINE_SCHEMA_VERSION,
      device: { name: results.device.name, slug: results.device.slug, backend: results.device.backend },
      entries: sorted,
    },
    changes,
  };
}
