/**
 * One line of a device's history file (JSON Lines, `history/<device-slug>.jsonl` on the perf-history
 * branch): a compact record of one run, with its date, commit, branch, device, and per case/shape/dtype
 * key the speedup with its interval, the fused median and the verdict. The schema doubles as the type;
 * `v` is its version, so an older fusebench can say a line is newer than it reads.
 */
import { z } from 'zod';
import { DTYPES } from '../base/dtype.ts';
import { fileRecord } from '../base/file-record.ts';
import { UNKNOWN_COMMIT } from '../base/source.ts';
import { asMeasured, judgedTiming } from '../results/judged-timing.ts';
import { entryKey, type ResultsFile, speedupValue, timestamp } from '../results/results.ts';
import { caseVerdict, type RowVerdict, VERDICT_ORDER } from '../results/verdict.ts';

/** The version of a history record this fusebench writes and reads. */
export const HISTORY_RECORD_VERSION = 1;

/** The largest fused time a record may hold, milliseconds (an hour per call is no kernel). */
const MAX_FUSED_MS = 3_600_000;

const caseRecordSchema = z.object({
  case: z.string(),
  shape: z.string(),
  /** The precision; absent in records written before there were several (read as fp32). */
  dtype: z.enum(DTYPES).optional(),
  /** The gate's verdict, or why there is none (NO_BASELINE, SKIPPED, FAILED, ERRORED). */
  verdict: z.enum(VERDICT_ORDER as [RowVerdict, ...RowVerdict[]]),
  /**
   * Speedup estimate and its 95% interval: [estimate, lo, hi]; absent when not measured. A value outside a
   * results file's range is no measurement: the line is named and skipped like a broken line, so one such
   * record cannot stop every later chart and merge.
   */
  speedup: z
    .tuple([speedupValue, speedupValue, speedupValue])
    .refine(([estimate, lo, hi]) => lo <= estimate && estimate <= hi, {
      error: 'expected [estimate, lo, hi] with lo <= estimate <= hi',
    })
    .optional(),
  /** Median time of one fused call, milliseconds. */
  fusedMs: z.number().positive().max(MAX_FUSED_MS).optional(),
  /** Set when the gate judged batched timing (these numbers are the batched ones). */
  batched: z.literal(true).optional(),
});

/** One line of a history file: a run's date, commit, branch, device and per-key results. */
export const historyRecordSchema = z.object({
  v: z
    .number()
    .int()
    .refine((v) => v === HISTORY_RECORD_VERSION, {
      error: (i) =>
        typeof i.input === 'number' && i.input > HISTORY_RECORD_VERSION
          ? `written by a newer fusebench (history record ${String(i.input)}; this one reads ${HISTORY_RECORD_VERSION}): update fusebench to read it`
          : `expected history record version ${HISTORY_RECORD_VERSION}; got ${String(i.input)}`,
    }),
  date: timestamp,
  commit: z.string(),
  branch: z.string().optional(),
  device: z.object({ name: z.string(), slug: z.string() }),
  cases: fileRecord(caseRecordSchema),
});

/** One run in a history file. */
export type HistoryRecord = z.infer<typeof historyRecordSchema>;
/** One case/shape/dtype of a run in a history file. */
export type HistoryCase = z.infer<typeof caseRecordSchema>;

/** Five significant digits: the records stay short, and the charts need no more. */
const round = (x: number) => Number(x.toPrecision(5));

/** The history record of a run: the commit and branch from its `source` (UNKNOWN_COMMIT when it has none). */
export function historyRecord(results: ResultsFile): HistoryRecord {
  const cases: Record<string, HistoryCase> = Object.create(null);
  for (const c of results.cases) {
    const m = asMeasured(c);
    const t = m && judgedTiming(m);
    cases[entryKey(c.case, c.shape.label, c.dtype)] = {
      case: c.case,
      shape: c.shape.label,
      dtype: c.dtype,
      verdict: caseVerdict(c),
      ...(t
        ? {
            speedup: [round(t.speedup.estimate), round(t.speedup.lo), round(t.speedup.hi)] as [number, number, number],
            fusedMs: round(t.fused.median),
            ...(t.method === 'batched' ? { batched: true as const } : {}),
          }
        : {}),
    };
  }
  return {
    v: HISTORY_RECORD_VERSION,
    date: results.createdAt,
    commit: results.source?.commit ?? UNKNOWN_COMMIT,
    ...(results.source?.branch ? { branch: results.source.branch } : {}),
    device: { name: results.device.name, slug: results.device.slug },
    cases,
  };
}
