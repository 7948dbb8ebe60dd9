/**
 * Baseline files: baselines/<device-slug>.json, one per device model, validated by a versioned
 * zod schema. Each entry is keyed by case/shape/dtype and says where its numbers came from:
 * measured here (date, commit, driver, CUDA, clocks) or reported by a document. Objects are loose:
 * a field this fusebench does not know is kept, so rewriting the file never drops it silently; an
 * entry whose numbers contradict each other is refused (baseline-consistency.ts).
 */

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { isTempFile } from '../base/atomic-write.ts';
import { isPlainSlug } from '../base/device-slug.ts';
import { fileRecord, ONCE_FIELDS_VALID } from '../base/file-record.ts';
import { logText } from '../base/log-text.ts';
import { packagePath } from '../base/package-root.ts';
import { DTYPES } from '../case/types.ts';
import { entryKey, readJsonFile, schemaVersionField, speedupValue, timeMs, timestamp } from '../results/results.ts';
import { entryContradictions, MAX_BASELINE_PAIRS } from './baseline-consistency.ts';

export const BASELINE_SCHEMA_VERSION = 1;

/**
 * The fewest pairs a baseline may keep. Fewer than the gate decides on (MIN_DECISION_PAIRS) are loaded, so one
 * such entry of an older file does not stop the whole file; the gate names the entry's count in its AMBIGUOUS.
 */
const MIN_BASELINE_SAMPLES = 5;

const fraction = (what: string) =>
  z.number().refine((v) => v > 0 && v < 1, { error: (i) => `${what} must be in (0, 1); got ${String(i.input)}` });

const measured = z.looseObject({
  kind: z.literal('measured'),
  date: timestamp,
  commit: z.string(),
  driver: z.string().optional(),
  cudaRuntime: z.string().optional(),
  cudaDriverApi: z.string().optional(),
  maxSmClockMHz: z.number().optional(),
  maxMemClockMHz: z.number().optional(),
  /** Median SM clock while the entry was measured. */
  smClockMHz: z.number().optional(),
  computeCapability: z.string().optional(),
  deviceUuid: z.string().optional(),
});

const reported = z.looseObject({
  kind: z.literal('reported'),
  /** The document the numbers come from. */
  source: z.string(),
  approximate: z.boolean(),
  note: z.string().optional(),
});

export const baselineEntrySchema = z
  .looseObject({
    case: z.string(),
    shape: z.looseObject({ label: z.string(), dims: z.array(z.number().int().positive()) }),
    dtype: z.enum(DTYPES),
    unfusedMedianMs: timeMs.optional(),
    fusedMedianMs: timeMs.optional(),
    speedup: z.looseObject({
      estimate: speedupValue,
      lo: speedupValue.optional(),
      hi: speedupValue.optional(),
      confidence: z.number().min(0.5).lt(1).optional(),
    }),
    /** Interleaved pairs the entry was measured with (a thinned copy may be kept in `samples`). */
    sampleCount: z.number().int().nonnegative(),
    samples: z
      .object({ unfused: z.array(timeMs), fused: z.array(timeMs) })
      .refine(
        (s) =>
          s.unfused.length === s.fused.length &&
          s.unfused.length >= MIN_BASELINE_SAMPLES &&
          s.unfused.length <= MAX_BASELINE_PAIRS,
        {
          error: (i) => {
            const s = i.input as { unfused: unknown[]; fused: unknown[] };
            return `samples must hold ${MIN_BASELINE_SAMPLES} to ${MAX_BASELINE_PAIRS} pairs (an update keeps at most ${MAX_BASELINE_PAIRS}), as many unfused as fused; got ${s.unfused.length} unfused and ${s.fused.length} fused`;
          },
        },
      )
      .optional(),
    /** δ for this case: |change| below it counts as SAME. */
    tolerance: fraction('tolerance'),
    /**
     * How δ was set (src/gate/tolerance.ts): from the entry's own `noise`, from its runs pooled with comparable
     * entries of the file, the default for one run, or by hand (kept on updates).
     */
    toleranceSource: z.enum(['noise', 'comparable', 'default', 'hand']).optional(),
    /** Which timing the samples and medians are of: one call per sample (the default) or batched calls. */
    method: z.enum(['per-call', 'batched']).optional(),
    /**
     * Why the case says this shape's speedup moves with the machine (results' `ungatedSpeedup`): its
     * speedup's spread between runs stays out of the other entries' δ.
     */
    ungatedSpeedup: z.string().optional(),
    /** The runs (processes, machines) the entry was recorded from, oldest first, and their noise. */
    runs: z
      .array(
        z.object({
          date: timestamp,
          commit: z.string(),
          speedup: speedupValue,
          fusedMedianMs: timeMs,
          halfWidth: z.number().nonnegative(),
          deviceUuid: z.string().optional(),
        }),
      )
      .optional(),
    /** Derived from `runs` when it is there (tolerance.ts runNoise): spreads are never negative. */
    noise: z
      .object({
        withinRun: z.number().nonnegative(),
        betweenRuns: z.object({ speedup: z.number().nonnegative(), fusedTime: z.number().nonnegative() }).nullable(),
        runs: z.number().int().positive(),
      })
      .optional(),
    /** δ of the fused-time decision when it differs from `tolerance` (the speedup's): derived from the noise. */
    fusedTimeTolerance: fraction('fusedTimeTolerance').optional(),
    maxAbsError: z.number().optional(),
    gating: z.boolean(),
    provenance: z.discriminatedUnion('kind', [measured, reported]),
  })
  .superRefine((entry, ctx) => {
    for (const c of entryContradictions(entry)) ctx.addIssue({ code: 'custom', path: c.path, message: c.message });
    if (entry.noise && entry.runs && entry.noise.runs !== entry.runs.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['noise', 'runs'],
        message: `${entry.noise.runs} runs, but the entry lists ${entry.runs.length} in runs: the noise is of those runs`,
      });
    }
  }, ONCE_FIELDS_VALID);

export const baselineFileSchema = z.looseObject({
  schemaVersion: schemaVersionField(
    BASELINE_SCHEMA_VERSION,
    're-record it: move the file aside, then run `npm run perf -- --update-baselines` on this device',
  ),
  device: z.looseObject({ name: z.string(), slug: z.string(), backend: z.enum(['cpu', 'cuda']) }),
  entries: fileRecord(baselineEntrySchema),
});

/** One stored expectation for a case and shape. */
export type BaselineEntry = z.infer<typeof baselineEntrySchema>;
/** A whole baseline file. */
export type BaselineFile = z.infer<typeof baselineFileSchema>;

/** The file that holds a device's baselines. */
export function baselinePath(dir: string, slug: string): string {
  // A slug from a file (a history record, a results file) names no file outside `dir`.
  if (!isPlainSlug(slug)) {
    throw new Error(
      `device slug ${logText(JSON.stringify(slug), 120)} is not a plain name (lower-case letters, digits, '.', '-'); no baseline file is named after it`,
    );
  }
  return join(dir, `${slug}.json`);
}

/** The folder of baseline files when none is given: fusebench's own baselines/, wherever it runs from. */
export function defaultBaselinesDir(): string {
  return packagePath('baselines');
}

/** A loaded baseline file, with warnings for entries fusebench cannot use. */
export interface LoadedBaselines {
  file: string;
  data: BaselineFile;
  warnings: string[];
}

/** Entries named in a summarized warning. */
const LISTED = 5;

/** One warning for many entries: the count and the first few keys. */
function summarize(file: string, keys: string[], what: string, consequence: string): string {
  const shown = keys.slice(0, LISTED).join(', ');
  const more = keys.length > LISTED ? `, and ${keys.length - LISTED} more` : '';
  return `${file}: ${keys.length} entries ${what} (${shown}${more}); ${consequence}`;
}

/**
 * Reads and validates one baseline file. Invalid JSON, a missing field or a wrong type throws,
 * naming the file and the field path, and so does an entry keyed differently from its case, shape and
 * precision; entries for cases fusebench does not know are one warning, however many there are.
 */
export function loadBaselineFile(file: string, knownCases: readonly string[]): LoadedBaselines {
  const data = readJsonFile(baselineFileSchema, file);
  const unknown: [string, string][] = [];
  const misnamed: [string, string][] = [];
  for (const [key, entry] of Object.entries(data.entries)) {
    if (!knownCases.includes(entry.case)) unknown.push([key, entry.case]);
    const expected = entryKey(entry.case, entry.shape.label, entry.dtype);
    if (key !== expected) misnamed.push([key, expected]);
  }
  const warnings: string[] = [];
  const [u] = unknown;
  if (unknown.length === 1 && u) warnings.push(`${file}: entry '${u[0]}' is for unknown case '${u[1]}'; ignored`);
  else if (unknown.length > 1) {
    const cases = [...new Set(unknown.map(([, c]) => c))];
    warnings.push(
      summarize(
        file,
        unknown.map(([k]) => k),
        `are for ${cases.length === 1 ? `the unknown case '${cases[0]}'` : `${cases.length} cases this fusebench does not know`}`,
        'ignored (a newer fusebench may know them)',
      ),
    );
  }
  // An entry under another's key would judge the shape the key names against its numbers: refused.
  const [m] = misnamed;
  const judged = "the gate would judge the shape a key names against another shape's numbers";
  if (misnamed.length === 1 && m) {
    throw new Error(`${file}: entry '${m[0]}' holds ${m[1]}, and ${judged}: rename it '${m[1]}'`);
  }
  if (misnamed.length > 1) {
    throw new Error(
      summarize(
        file,
        misnamed.map(([k, e]) => `'${k}' → '${e}'`),
        'are not keyed <case>/<shape>/<precision> of what they hold',
        `${judged}: rename them`,
      ),
    );
  }
  return { file, data, warnings };
}

/**
 * Validates every baseline file in `dir` against the schema, so a broken file stops the run before
 * anything is measured, and returns them by path (baselinePath's). Unknown cases are not reported here:
 * only the device's own file warns.
 */
export function validateBaselineDir(dir: string): Map<string, BaselineFile> {
  const read = new Map<string, BaselineFile>();
  if (!existsSync(dir)) return read;
  if (!statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder: expected the folder of baseline files`);
  // Only baseline files: not the temporary files of a write in progress or killed, nor hidden files.
  const files = readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.') && !isTempFile(n));
  for (const name of files) read.set(join(dir, name), readJsonFile(baselineFileSchema, join(dir, name)));
  return read;
}
