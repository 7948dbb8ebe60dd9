/** Options of a perf run, parsed from the command line (`npm run perf -- --backend cuda ...`). */
import { parseArgs } from 'node:util';
import { DTYPES, type Dtype, isDtype } from './dtype.ts';
import { freshSeed } from './rng.ts';

export const BACKEND_CHOICES = ['auto', 'cpu', 'cuda'] as const;
/** Which backend to run: `auto` picks CUDA when a device is usable, else the CPU. */
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

/** Everything a perf run needs to know; serializable, so Vitest can provide it to its workers. */
export interface PerfOptions {
  backend: BackendChoice;
  /** Wall-clock budget per case and shape, milliseconds; undefined: the backend's default. */
  budgetMs: number | undefined;
  /** Interleaved unfused/fused pairs measured before the stopping rule is looked at. */
  minPairs: number;
  /** Stop early once the speedup's 95% interval half-width is at most this (0.01 = ±1%). */
  targetHalfWidth: number;
  warmupPairs: number;
  /** Seed of the random inputs. */
  seed: number;
  /** Only these cases (all when empty). */
  cases: string[];
  /** Only these precisions (all when empty; a precision the device cannot run is skipped with the reason). */
  dtypes: Dtype[];
  /** Skip shapes with more elements than this (reported as skipped). */
  maxElements: number | undefined;
  /** Where BENCHMARK_RESULTS.md and fusebench-results.json are written. */
  outDir: string;
  /** The command line that reproduces this run, as printed in the report. */
  command: string;
  /** Folder of per-device baseline files. */
  baselinesDir: string;
  /** Use this baseline file instead of baselinesDir/<device-slug>.json. */
  baselineFile: string | undefined;
  /**
   * Rewrite this device's baseline file from the run (no verdict fails the run then): `replace` starts
   * each measured entry afresh, `add-run` adds this run to the runs the entries were recorded from; false: no update.
   */
  updateBaselines: false | 'replace' | 'add-run';
  /** AMBIGUOUS fails, and so does a fingerprint that differs from the baseline's. */
  strict: boolean;
  /** δ for every case, overriding the baseline file's. */
  delta: number | undefined;
  /**
   * Regression injection (the gate's self-check): make this case's fused kernel slower, by `passes` extra
   * read passes over its first buffer, or by `percent` of its own time (a calibrated spin after it).
   */
  inject: Injection | undefined;
}

/** A regression injection: extra read passes, or a calibrated slowdown by a percentage of the kernel's time. */
export type Injection = { case: string; passes: number } | { case: string; percent: number };

export const DEFAULT_BUDGET_MS = { cpu: 1000, cuda: 3000 } as const;
/** Where a run writes its reports unless told otherwise: never over the committed BENCHMARK_RESULTS.md. */
export const DEFAULT_OUT_DIR = 'perf-out';
/** The most read passes --inject takes (each is a full read of the case's first buffer). */
export const MAX_INJECT_PASSES = 1000;

const HELP = `Usage: npm run perf -- [options]
  --backend <auto|cpu|cuda>   backend to run (default auto: CUDA when a GPU is usable, else CPU)
  --budget-ms <ms>            time budget per case and shape (default cpu ${DEFAULT_BUDGET_MS.cpu}, cuda ${DEFAULT_BUDGET_MS.cuda})
  --min-pairs <n>             interleaved pairs before the stopping rule (default 30)
  --target-half-width <f>     stop when the speedup's 95% CI half-width is below f (default 0.01)
  --seed <n>                  seed of the random inputs (default: fresh each run, printed)
  --case <name>               only this case (repeatable)
  --dtype <${DTYPES.join('|')}>    only this precision (repeatable or comma-separated; default: all, those
                              the device cannot run skipped with the reason)
  --max-elements <n>          skip shapes with more elements
  --out-dir <dir>             where BENCHMARK_RESULTS.md and fusebench-results.json go (default ${DEFAULT_OUT_DIR})
  --baselines-dir <dir>       per-device baseline files (default baselines)
  --baseline-file <file>      compare with this file instead of <baselines-dir>/<device-slug>.json
  --update-baselines          rewrite this device's baseline file from this run (atomically; keeps other entries)
  --add-baseline-run          add this run to the runs of this device's baselines (record a baseline from 2+ runs,
                              on separate machines where you can: δ is derived from the noise between them)
  --delta <f>                 SAME band ±f for every case (default: each entry's tolerance, else 0.05)
  --strict                    AMBIGUOUS fails, and so does a driver/CUDA/clock fingerprint change
  --inject <case>:<p>%        regression self-check: slow <case>'s fused kernel by p% of its own time (0 < p <= 100)
  --inject <case>[:<passes>]  ... or by extra read passes over its first buffer (1 to ${MAX_INJECT_PASSES}, default 4)
  --help                      this text`;

/** Thrown for a bad command line; the message says what was expected. */
export class UsageError extends Error {}

/** The largest value each numeric option takes: past these a run would hang or overflow, not measure. */
export const OPTION_MAX = {
  'budget-ms': 3_600_000, // an hour per case and shape
  'min-pairs': 100_000,
  'max-elements': Number.MAX_SAFE_INTEGER,
} as const;

// Plain decimal notation only: Number() would also take '', ' ', '0x1F', '0b1' and 'Infinity'.
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const DIGITS = /^\d+$/;

/** A command-line number in plain decimal notation ('0.05', '1e-3'); NaN for anything else ('', '0x1F'). */
export function decimalArg(raw: string): number {
  return DECIMAL.test(raw) ? Number(raw) : Number.NaN;
}

/** A command-line whole number written in digits only; NaN for anything else ('', '1e3', '0x1F', '-1'). */
export function digitsArg(raw: string): number {
  return DIGITS.test(raw) ? Number(raw) : Number.NaN;
}

function positiveNumber(
  flag: string,
  raw: string | undefined,
  integer: boolean,
  max = Number.MAX_VALUE,
): number | undefined {
  if (raw === undefined) return undefined;
  const v = (integer ? DIGITS : DECIMAL).test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(v) || v <= 0 || v > max || (integer && !Number.isSafeInteger(v))) {
    const range = max < Number.MAX_VALUE ? ` up to ${max}` : '';
    throw new UsageError(
      `Expected a positive ${integer ? 'integer' : 'number'}${range} for --${flag} but received '${raw}'`,
    );
  }
  return v;
}

/** The options of a run with no arguments (a fresh seed). */
export function defaultPerfOptions(): PerfOptions {
  const opts = parsePerfArgs([], { seed: freshSeed() });
  if (!opts) throw new Error('unreachable: no --help without arguments');
  return opts;
}

/** Parses perf arguments; returns null when --help was asked for (after printing it). */
export function parsePerfArgs(argv: string[], defaults: { seed: number }): PerfOptions | null {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(joinNegativeValues(argv));
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n\n${HELP}`);
  }
  const v = parsed.values;
  if (v.help) {
    console.log(HELP);
    return null;
  }
  const backend = v.backend ?? 'auto';
  if (!(BACKEND_CHOICES as readonly string[]).includes(backend)) {
    throw new UsageError(`Unknown backend '${backend}'; valid backends: ${BACKEND_CHOICES.join(', ')}`);
  }
  const halfWidth = positiveNumber('target-half-width', v['target-half-width'], false) ?? 0.01;
  if (halfWidth >= 1) throw new UsageError(`Expected --target-half-width below 1 but received ${halfWidth}`);
  const seed = v.seed === undefined ? defaults.seed : DIGITS.test(v.seed) ? Number(v.seed) : Number.NaN;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new UsageError(`Expected an integer from 0 to 4294967295 for --seed but received '${v.seed}'`);
  }
  const delta = positiveNumber('delta', v.delta, false);
  if (delta !== undefined && delta >= 1) throw new UsageError(`Expected --delta in (0, 1) but received ${delta}`);
  return {
    backend: backend as BackendChoice,
    budgetMs: positiveNumber('budget-ms', v['budget-ms'], false, OPTION_MAX['budget-ms']),
    minPairs: positiveNumber('min-pairs', v['min-pairs'], true, OPTION_MAX['min-pairs']) ?? 30,
    targetHalfWidth: halfWidth,
    warmupPairs: 5,
    seed,
    cases: v.case ?? [],
    dtypes: parseDtypes(v.dtype ?? []),
    maxElements: positiveNumber('max-elements', v['max-elements'], true, OPTION_MAX['max-elements']),
    outDir: v['out-dir'] ?? DEFAULT_OUT_DIR,
    command: `npm run perf${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
    baselinesDir: v['baselines-dir'] ?? 'baselines',
    baselineFile: v['baseline-file'],
    updateBaselines: v['add-baseline-run'] ? 'add-run' : v['update-baselines'] ? 'replace' : false,
    strict: v.strict ?? false,
    delta,
    inject: parseInject(v.inject),
  };
}

function parseDtypes(raw: string[]): Dtype[] {
  const names = raw.flatMap((r) => r.split(',')).map((n) => n.trim());
  for (const n of names) {
    if (!isDtype(n))
      throw new UsageError(`Unknown precision '${n}' for --dtype; valid precisions: ${DTYPES.join(', ')}`);
  }
  return [...new Set(names as Dtype[])];
}

function parseInject(raw: string | undefined): Injection | undefined {
  if (raw === undefined) return undefined;
  const percent = /^([a-z0-9_]+):([^%]*)%$/.exec(raw);
  if (percent?.[1]) {
    const p = DECIMAL.test(percent[2] ?? '') ? Number(percent[2]) : Number.NaN;
    if (!Number.isFinite(p) || p <= 0 || p > 100) {
      throw new UsageError(`Expected --inject <case>:<p>% with p in (0, 100] but received '${raw}'`);
    }
    return { case: percent[1], percent: p };
  }
  const m = /^([a-z0-9_]+)(?::(.*))?$/.exec(raw);
  const passes = m?.[2] === undefined ? 4 : DIGITS.test(m[2]) ? Number(m[2]) : Number.NaN;
  if (!m?.[1] || !Number.isInteger(passes) || passes < 1 || passes > MAX_INJECT_PASSES) {
    throw new UsageError(
      `Expected --inject <case>[:<passes>] with passes an integer from 1 to ${MAX_INJECT_PASSES}, or --inject <case>:<p>%, but received '${raw}'`,
    );
  }
  return { case: m[1], passes };
}

/**
 * `--flag -1` reaches parseArgs as a flag followed by what looks like another option, which it rejects
 * as "ambiguous"; joined as `--flag=-1`, the value is checked like any other and refused by name.
 */
function joinNegativeValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const next = argv[i + 1];
    if (a.startsWith('--') && !a.includes('=') && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      backend: { type: 'string' },
      'budget-ms': { type: 'string' },
      'min-pairs': { type: 'string' },
      'target-half-width': { type: 'string' },
      seed: { type: 'string' },
      case: { type: 'string', multiple: true },
      dtype: { type: 'string', multiple: true },
      'max-elements': { type: 'string' },
      'out-dir': { type: 'string' },
      'baselines-dir': { type: 'string' },
      'baseline-file': { type: 'string' },
      'update-baselines': { type: 'boolean' },
      'add-baseline-run': { type: 'boolean' },
      delta: { type: 'string' },
      strict: { type: 'boolean' },
      inject: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
}
