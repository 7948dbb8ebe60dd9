/**
 * The JSON results of a perf run: a versioned schema (zod) that doubles as the TypeScript type,
 * so a hand-edited, truncated or older file is rejected with the file and the field named.
 */
import { z } from 'zod';
import { ONCE_FIELDS_VALID } from '../base/file-record.ts';
import { readJson } from '../base/json-read.ts';
import { DTYPES, type Dtype } from '../case/types.ts';
import { PHASES } from './phases.ts';
import { caseContradictions } from './results-consistency.ts';
import { VERDICTS } from './verdict-rule.ts';

export const RESULTS_SCHEMA_VERSION = 1;

/**
 * A `schemaVersion` field whose error says whether the file is newer or older than this fusebench and
 * what to do about it: update fusebench for a newer file, or `older` (how to write a current one).
 */
export function schemaVersionField(current: number, older: string) {
  return z.literal(current, {
    error: (issue) => {
      const v = issue.input;
      if (typeof v === 'number' && Number.isInteger(v) && v > current) {
        return `written by a newer fusebench (schema ${v}; this one reads ${current}): update fusebench (git pull, then npm ci) to read it`;
      }
      if (typeof v === 'number' && Number.isInteger(v) && v < current) {
        return `written by an older fusebench (schema ${v}; this one reads ${current}): ${older}`;
      }
      return `expected the schema version ${current} that this fusebench reads; got ${JSON.stringify(v) ?? 'nothing'}`;
    },
  });
}

/**
 * Why a measurement stopped: its speedup's interval was tight enough, its budget was spent, or it took
 * MAX_PAIRS pairs.
 */
export const STOP_REASONS = ['converged', 'budget', 'pair cap'] as const;

/** The files a perf run writes into its output folder. */
export const RESULTS_JSON = 'fusebench-results.json';
export const RESULTS_MARKDOWN = 'BENCHMARK_RESULTS.md';

/**
 * When a run was made: an ISO 8601 date and time in UTC, as `Date.toISOString` writes it. The reports label it
 * UTC, the charts date runs by it and merge keeps the newer of two runs of a GPU by it: free text ("yesterday") or
 * a local time would reach them as a wrong date.
 */
export const timestamp = z.iso.datetime({
  error: (i) =>
    `expected an ISO 8601 date and time in UTC such as 2026-11-29T06:00:00.000Z; got ${JSON.stringify(i.input)}`,
});
/** A confidence level as the statistics use it (0.95, 0.99). */
const confidence = z.number().min(0.5).lt(1);
/**
 * The range a speedup may lie in. Outside it a value is not a measurement (a speedup of 1e308, 0 or a negative
 * one): it would reach the reports as ±Infinity or NaN, and the gate would judge it.
 */
const SPEEDUP_RANGE = [1e-6, 1e6] as const;
export const speedupValue = z
  .number()
  .min(SPEEDUP_RANGE[0], { error: `expected a speedup of at least ${SPEEDUP_RANGE[0]}` })
  .max(SPEEDUP_RANGE[1], { error: `expected a speedup of at most ${SPEEDUP_RANGE[1]}` });
/** A speedup with its bootstrap interval, which always holds the estimate (stats.ts pairedBootstrap widens it to). */
const speedupInterval = z
  .object({ estimate: speedupValue, lo: speedupValue, hi: speedupValue, confidence })
  .refine((s) => s.lo <= s.estimate && s.estimate <= s.hi, { error: 'expected lo <= estimate <= hi' });
/** An interval of a log difference (the gate's D): any sign, lo <= hi. */
const logInterval = z
  .object({ estimate: z.number(), lo: z.number(), hi: z.number(), confidence })
  .refine((d) => d.lo <= d.hi, { error: 'expected lo <= hi' });
/**
 * A time in ms as a run measures it: from a femtosecond to a day. Zero, negative, subnormal or absurd times
 * would reach the reports as NaN or Infinity, and the statistics (logs of ratios) would judge them.
 */
const TIME_RANGE_MS = [1e-12, 86_400_000] as const;
export const timeMs = z
  .number()
  .min(TIME_RANGE_MS[0], { error: `expected a time of at least ${TIME_RANGE_MS[0]} ms` })
  .max(TIME_RANGE_MS[1], { error: `expected a time of at most ${TIME_RANGE_MS[1]} ms (a day)` });
const summary = z.object({
  n: z.number().int().positive(),
  median: timeMs,
  mean: timeMs,
  min: timeMs,
  max: timeMs,
  p10: timeMs,
  p90: timeMs,
  relMad: z.number().nonnegative(),
});
/**
 * The most pairs one measurement takes (perf stops there, stop reason 'pair cap') and a results file may hold
 * for a timing. Every bootstrap of a timing resamples all of its pairs 2,000 times: 20,000 pairs take seconds to
 * compare, 500,000 took 101 s, and without a cap a long --budget-ms on a noisy CPU grows them until memory runs out.
 */
export const MAX_PAIRS = 20_000;
/**
 * Paired samples of two timings, `a` and `b`: at least one pair, at most MAX_PAIRS, and as many of one as of
 * the other.
 */
function pairedSamples<A extends string, B extends string>(a: A, b: B) {
  const times = z
    .array(timeMs)
    .min(1, 'expected at least one sample')
    .max(MAX_PAIRS, `expected at most ${MAX_PAIRS} samples (perf takes no more)`);
  return z
    .object({ [a]: times, [b]: times } as Record<A | B, typeof times>)
    .refine((s) => (s as Record<A | B, number[]>)[a].length === (s as Record<A | B, number[]>)[b].length, {
      error: (issue) => {
        const s = issue.input as Record<A | B, unknown[]>;
        return `${a} and ${b} hold ${s[a].length} and ${s[b].length} samples; paired samples come in pairs`;
      },
    })
    .superRefine((s, ctx) => {
      // A pair's ratio is a speedup: one outside the speedups a file may hold is no measurement.
      const [x, y] = [(s as Record<A | B, number[]>)[a], (s as Record<A | B, number[]>)[b]];
      const i = x.findIndex((t, k) => !speedupValue.safeParse(t / (y[k] ?? Number.NaN)).success);
      if (i >= 0) {
        ctx.addIssue({
          code: 'custom',
          path: [a, i],
          message: `pair ${i}: ${a} ${x[i]} ms against ${b} ${y[i]} ms, a ratio outside [${SPEEDUP_RANGE[0]}, ${SPEEDUP_RANGE[1]}]`,
        });
      }
    });
}
/** A variant's modelled traffic: bytes moved (every kernel moves some: a share of zero bytes is NaN) and launches. */
const traffic = z.object({ bytes: z.number().positive(), launches: z.number().int().nonnegative() });
const numericsReport = z.object({
  elements: z.number(),
  maxAbsError: z.number(),
  maxRelError: z.number(),
  worstIndex: z.number(),
  /** ‖out − ref‖₂ / ‖ref‖₂ over the compared elements. */
  relL2: z.number().optional(),
  /** Set when only some elements were compared (large GEMM outputs): what was sampled. */
  sampled: z.string().optional(),
  failure: z.string().optional(),
});
const range = z.object({ min: z.number(), median: z.number(), max: z.number() });
/** Milliseconds of wall time per phase of a shape (src/results/phases.ts). */
const phases = z.object(
  Object.fromEntries(PHASES.map((p) => [p, z.number().nonnegative()])) as Record<(typeof PHASES)[number], z.ZodNumber>,
);

/** One decision: current vs baseline for one metric, on D = log(current) − log(baseline). */
const decisionSchema = z.object({
  metric: z.enum(['speedup', 'fusedTime']),
  verdict: z.enum(VERDICTS),
  /** The speedups, or the fused times in ms, compared: positive and finite, under `timeMs`'s bound either way. */
  baseline: timeMs,
  current: timeMs,
  /** D = log(current/baseline) for the speedup; log(baseline/current) for the fused time (so negative is worse). */
  diff: logInterval,
  /** δ as a fraction (0.05 = ±5%); the SAME band for D is [log(1 − δ), −log(1 − δ)]. As --delta: 0 < δ < 1. */
  delta: z.number().gt(0, { error: 'expected δ above 0' }).lt(1, { error: 'expected δ below 1' }),
});
export type Decision = z.infer<typeof decisionSchema>;

/** The gate's view of one case and shape. */
const gateSchema = z.object({
  /** Overall: the worst decision, or NO_BASELINE when this device has no entry for the case. */
  status: z.enum([...VERDICTS, 'NO_BASELINE']),
  /** Whether this entry can fail the run (reported, approximate baselines never do). */
  gating: z.boolean(),
  baselineFile: z.string().nullable(),
  baselineSource: z.enum(['measured', 'reported']).nullable(),
  /**
   * Where δ came from (src/gate/tolerance.ts): the entry's runs ('noise'), those pooled with comparable entries,
   * the default for one run, set by hand in the entry, or --delta. Absent in files written before it was kept.
   */
  deltaSource: z.enum(['noise', 'comparable', 'default', 'hand', 'command line']).optional(),
  speedup: decisionSchema.optional(),
  /** Absolute fused time vs the baseline's, only when the baseline is of the same device model. */
  fusedTime: decisionSchema.optional(),
  /** True when an AMBIGUOUS first measurement was repeated with twice the budget. */
  remeasured: z.boolean(),
  /** Differences between this run's fingerprint (driver, CUDA, clocks) and the baseline's provenance. */
  fingerprintNotes: z.array(z.string()),
  /** One line for humans: what was decided and why. */
  message: z.string(),
});
export type GateResult = z.infer<typeof gateSchema>;

const caseResultSchema = z
  .object({
    key: z.string(),
    case: z.string(),
    title: z.string(),
    shape: z.object({ label: z.string(), dims: z.array(z.number()), description: z.string() }),
    dtype: z.enum(DTYPES),
    sources: z.array(z.string()),
    status: z.enum(['measured', 'skipped', 'failed', 'errored']),
    reason: z.string().optional(),
    traffic: z.object({ unfused: traffic, fused: traffic, theoreticalSpeedup: z.number().positive() }),
    /**
     * Useful flops of one call at this shape, from the case's flop model: both variants are credited the
     * same work. Absent for cases without a flop model and in files written before it was recorded.
     */
    flops: z.number().positive().optional(),
    numerics: z
      .object({
        seed: z.number(),
        tolerance: z.object({ atol: z.number(), rtol: z.number() }),
        unfused: numericsReport,
        fused: numericsReport,
        extra: z.record(z.string(), z.number()),
      })
      .optional(),
    /** The kernel the fused variant launched, where it picks one at run time (e.g. flash attention by GPU and shape). */
    fusedKernel: z.string().optional(),
    timing: z
      .object({
        unfused: summary,
        fused: summary,
        pairsTaken: z.number().int(),
        droppedThrottled: z.number().int(),
        stopReason: z.enum(STOP_REASONS),
        wallMs: z.number(),
        budgetMs: z.number(),
        samples: pairedSamples('unfused', 'fused'),
      })
      .optional(),
    speedup: speedupInterval.optional(),
    efficiency: z.number().nonnegative().optional(),
    fusedGBs: z.number().nonnegative().optional(),
    fusedPctOfCopy: z.number().nonnegative().optional(),
    /** Achieved TFLOP/s of each variant's median time, on the case's useful flops (compute-bound cases). */
    tflops: z.object({ unfused: z.number().nonnegative(), fused: z.number().nonnegative() }).optional(),
    /** The fused variant's TFLOP/s as a percentage of the device's measured matrix peak in the case's precision. */
    fusedPctOfMatrixPeak: z.number().nonnegative().optional(),
    clocks: z
      .object({ smMHz: range, memMHz: range, throttledPairs: z.number().int(), reasonsSeen: z.number() })
      .nullable()
      .optional(),
    gate: gateSchema.optional(),
    /**
     * Launch-bound shapes only: the same pairs measured in batches of back-to-back calls between two
     * events (the caches flushed before each batch, warm within it), per call. Reported beside `timing`.
     */
    batched: z
      .object({
        callsPerSample: z.number().int(),
        unfused: summary,
        fused: summary,
        speedup: speedupInterval,
        samples: pairedSamples('unfused', 'fused'),
      })
      .optional(),
    /**
     * Shapes that declare a graph twin: the unfused twin's launches recorded once into a CUDA graph and
     * replayed (the host's launch gaps gone), timed in pairs against the fused variant, per call, by the
     * gate's timing method (`callsPerSample` > 1: batched). Reported, not gated: it separates what removing
     * launches buys from what fusion buys. `unavailable`: why it was not measured (the CPU has no graphs).
     */
    graphTwin: z
      .discriminatedUnion('status', [
        z.object({
          status: z.literal('measured'),
          callsPerSample: z.number().int().positive(),
          graph: summary,
          fused: summary,
          /** The fused variant's speedup over the graph twin. */
          speedup: speedupInterval,
          samples: pairedSamples('graph', 'fused'),
          /**
           * Whether the graph's launches of our kernels went with programmatic dependent launch (PDL: each may
           * start while the kernel ahead of it finishes, then waits for it on the device) and the recorded
           * graph has programmatic edges. Our launches of cuBLAS/cuBLASLt are never PDL (the library may link
           * its own kernels with programmatic edges, which the count below includes). Absent in files written
           * before it was recorded.
           */
          pdl: z.boolean().optional(),
          /** Why the graph went without PDL (the device, the toolkit, the driver or the kernels' build). */
          noPdlReason: z.string().optional(),
          /** The recorded graph's kernel nodes, by the CUDA runtime's count. */
          kernelNodes: z.number().int().nonnegative().optional(),
          /** Its edges of the programmatic type (CUDA 12.3+ lists edge types): one per PDL launch after a kernel. */
          programmaticEdges: z.number().int().nonnegative().optional(),
        }),
        z.object({ status: z.literal('unavailable'), reason: z.string() }),
      ])
      .optional(),
    /** Which measurement the gate judged: one call per sample (`timing`, the default) or `batched`. */
    gatedOn: z.enum(['per-call', 'batched']).optional(),
    /**
     * Why the gate judged this shape's fused time alone (the case says its speedup moves with the machine,
     * not the commit: an unfused twin bound by the host's launches). The speedup is still decided and reported.
     */
    ungatedSpeedup: z.string().optional(),
    /** Wall time of each phase of this shape (inputs, runs, download, reference, comparison, sampling, rest), ms. */
    phases: phases.optional(),
    /** The regression injected with --inject: read passes, or a slowdown asked as a percentage and what calibration measured. */
    injection: z
      .discriminatedUnion('kind', [
        z.object({ kind: z.literal('passes'), passes: z.number().int() }),
        z.object({ kind: z.literal('percent'), askedPct: z.number(), measuredPct: z.number() }),
      ])
      .optional(),
  })
  .refine((c) => c.status !== 'measured' || (c.timing !== undefined && c.speedup !== undefined), {
    error: 'expected timing and speedup in a measured case',
  });

const deviceSchema = z.object({
  backend: z.enum(['cpu', 'cuda']),
  name: z.string(),
  slug: z.string(),
  details: z.record(z.string(), z.string()),
  fingerprint: z.object({
    driver: z.string().optional(),
    cudaRuntime: z.string().optional(),
    cudaDriverApi: z.string().optional(),
    maxSmClockMHz: z.number().optional(),
    maxMemClockMHz: z.number().optional(),
    computeCapability: z.string().optional(),
    uuid: z.string().optional(),
  }),
  copyBandwidthGBs: z.number().positive(),
  /** Measured cuBLAS square-GEMM throughput per precision, TFLOP/s (CUDA built with cuBLAS only). */
  matrixPeakTFlops: z
    .object({
      fp32: z.number().positive().optional(),
      bf16: z.number().positive().optional(),
      fp16: z.number().positive().optional(),
    })
    .optional(),
  freeMemoryBytes: z.number(),
  maxSharedMemoryPerBlock: z.number().optional(),
});

export const resultsFileSchema = z
  .object({
    schemaVersion: schemaVersionField(
      RESULTS_SCHEMA_VERSION,
      'run `npm run perf` again with this fusebench to write a current results file',
    ),
    tool: z.object({ name: z.literal('fusebench'), version: z.string() }),
    createdAt: timestamp,
    /**
     * Set only on a copy whose samples were cut after the run, saying how (the test fixtures, cut to keep them
     * small). A run keeps every pair it summarized; without this field every summary must be what its samples give.
     */
    samplesThinned: z.string().min(1, 'expected how the samples were cut').optional(),
    /** Wall time of the whole run, from the start of its first shape to the end of its last, ms. */
    wallMs: z.number().nonnegative().optional(),
    command: z.string(),
    /** What was measured: the commit (with +dirty when tracked files differed) and the branch, when known. */
    source: z.object({ commit: z.string(), branch: z.string().optional() }).optional(),
    backendReason: z.string(),
    settings: z.object({
      budgetMs: z.number(),
      minPairs: z.number().int(),
      targetHalfWidth: z.number(),
      seed: z.number(),
    }),
    device: deviceSchema,
    /**
     * Each case's key is its case/shape/precision, once in the file: a key twice (a hand-merged file) made
     * compare judge one row against another shape's, and history keep one of the two without a word.
     */
    cases: z.array(caseResultSchema).superRefine((cases, ctx) => {
      const first = new Map<string, number>();
      cases.forEach((c, i) => {
        const key = entryKey(c.case, c.shape.label, c.dtype);
        if (c.key !== key) {
          ctx.addIssue({
            code: 'custom',
            path: [i, 'key'],
            message: `expected ${JSON.stringify(key)} (case/shape/precision)`,
          });
        }
        const at = first.get(key);
        if (at !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [i],
            message: `${JSON.stringify(key)} appears twice, as cases[${at}] and cases[${i}]`,
          });
        } else first.set(key, i);
      });
    }),
  })
  .superRefine((file, ctx) => {
    // Every summary, speedup, rate and verdict must be what the file's own samples give (results-consistency.ts).
    file.cases.forEach((c, i) => {
      for (const x of caseContradictions(c, file.device, file.samplesThinned !== undefined))
        ctx.addIssue({ code: 'custom', path: ['cases', i, ...x.path], message: x.message });
    });
  }, ONCE_FIELDS_VALID);

/** One case at one shape: numerics, samples, speedup and traffic. */
export type CaseResult = z.infer<typeof caseResultSchema>;
/** A case result that was measured: it has timing and a speedup. */
export type MeasuredCase = CaseResult & {
  timing: NonNullable<CaseResult['timing']>;
  speedup: NonNullable<CaseResult['speedup']>;
};
/** A whole perf run. */
export type ResultsFile = z.infer<typeof resultsFileSchema>;

/** The key of a case, shape and precision, in results and baseline files alike: `gelu_scale/16M/fp32`. */
export function entryKey(caseName: string, shapeLabel: string, dtype: Dtype): string {
  return `${caseName}/${shapeLabel}/${dtype}`;
}

/** Formats a zod issue path as `cases[3].timing.fused.median`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return (
    path.reduce<string>(
      (acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)),
      '',
    ) || '(root)'
  );
}

/**
 * Validates parsed JSON against a schema; throws naming the file and the first bad fields. A wrong
 * schemaVersion is the only problem reported: the rest of a file of another version says nothing more.
 */
export function validateFile<T>(schema: z.ZodType<T>, data: unknown, file: string): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const version = parsed.error.issues.filter((i) => i.path.length === 1 && i.path[0] === 'schemaVersion');
  const issues = (version.length > 0 ? version : parsed.error.issues)
    .slice(0, 5)
    .map((i) => `  ${fieldPath(i.path)}: ${i.message}`)
    .join('\n');
  throw new Error(`${file} is not valid${otherKind(parsed.error.issues, data)}:\n${issues}`);
}

/** A field the file lacks that another kind of fusebench file holds in its place, and what it then is. */
const OTHER_KINDS = [
  { lacks: 'entries', holds: 'cases', is: "a perf run's results file (fusebench-results.json), not a baseline file" },
  { lacks: 'cases', holds: 'entries', is: 'a baseline file, not a results file' },
];

/** ` (it is a results file, not a baseline file)` when the data is the other kind, else nothing. */
function otherKind(issues: readonly z.core.$ZodIssue[], data: unknown): string {
  if (typeof data !== 'object' || data === null) return '';
  const kind = OTHER_KINDS.find(
    (k) => issues.some((i) => i.path.length === 1 && i.path[0] === k.lacks) && k.holds in data,
  );
  return kind ? ` (it is ${kind.is})` : '';
}

/** Reads and validates a JSON file with a schema; errors name the file and field. */
export function readJsonFile<T>(schema: z.ZodType<T>, file: string): T {
  return validateFile(schema, readJson(file), file);
}

/** Reads a results file written by a perf run. */
export function readResults(file: string): ResultsFile {
  return readJsonFile(resultsFileSchema, file);
}
