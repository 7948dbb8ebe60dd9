/**
 * Options of a perf run (`npm run perf -- --backend cuda ...`), stated once: the table PERF_FLAGS gives
 * each option's flag, help line and parser; the PerfOptions type, the parseArgs configuration and the
 * help text are all derived from it.
 */
import { existsSync } from 'node:fs';
import { BACKEND_CHOICES, type BackendChoice } from '../addon/device.ts';
import { decimalArg, deltaArg, digitsArg, parseFlags, pathArg, positiveArg, UsageError } from '../base/cli-args.ts';
import { DTYPES, type Dtype, isDtype } from '../base/dtype.ts';
import { freshSeed } from '../base/rng.ts';
import { shellWord } from '../base/shell-words.ts';
import { defaultBaselinesDir } from '../gate/baseline-file.ts';
import { MAX_PAIRS } from '../results/results.ts';
import { MIN_DECISION_PAIRS } from '../results/verdict-rule.ts';

export const DEFAULT_BUDGET_MS = { cpu: 1000, cuda: 3000 } as const;
/** Where a run writes its reports unless told otherwise: never over the committed BENCHMARK_RESULTS.md. */
const DEFAULT_OUT_DIR = 'perf-out';
/** The most read passes --inject takes (each is a full read of the case's first buffer). */
const MAX_INJECT_PASSES = 1000;
/** Interleaved pairs run before timing starts. */
const WARMUP_PAIRS = 5;

/** A regression injection: extra read passes, or a calibrated slowdown by a percentage of the kernel's time. */
type Injection = { case: string; passes: number } | { case: string; percent: number };

/** What the parsers see: every flag's raw value, keyed by flag name, and the run's fresh seed. */
interface Raw {
  values: Record<string, string | string[] | boolean | undefined>;
  seed: number;
}

/** One option: its flag, how it is written on the command line, its help line and its parser. */
interface Flag<T> {
  flag: string;
  /** The one-letter form (`-h`), where there is one. */
  short?: string;
  /** `<ms>` for a flag that takes a value; absent for a switch. */
  value?: string;
  multiple?: true;
  help: string[];
  parse: (raw: Raw) => T;
}

const flag = <T>(f: Flag<T>): Flag<T> => f;
const str = (raw: Raw, name: string) => raw.values[name] as string | undefined;

/**
 * `npm run perf --strict` gives `--strict` to npm, not to perf: npm keeps it as its config `npm_config_strict`,
 * runs perf without it, and hands a flag's value (`--budget-ms 100`) over as a bare argument. Refused, naming
 * the flags, when perf runs as the `perf` script and npm holds one of perf's flags, so that the run asked for
 * is not quietly a different one.
 */
function swallowedByNpm(env: NodeJS.ProcessEnv): void {
  if (env.npm_lifecycle_event !== 'perf') return;
  const taken = Object.values(PERF_FLAGS)
    .map((f: Flag<unknown>) => f.flag)
    .filter((name) => env[`npm_config_${name.replace(/-/g, '_')}`] !== undefined);
  if (taken.length === 0) return;
  const flags = taken.map((name) => `--${name}`).join(' ');
  throw new UsageError(
    `npm took ${flags} as its own option${taken.length === 1 ? '' : 's'}, so perf did not get ${taken.length === 1 ? 'it' : 'them'}: perf's options go after --, as in \`npm run perf -- ${flags} …\``,
  );
}

/** Every option of a perf run, in help order; the field name is the option's name in PerfOptions. */
const PERF_FLAGS = {
  backend: flag<BackendChoice>({
    flag: 'backend',
    value: '<auto|cpu|cuda>',
    help: ['backend to run (default auto: CUDA when a GPU is usable, else CPU)'],
    parse: (raw) => {
      const b = str(raw, 'backend') ?? 'auto';
      if (!(BACKEND_CHOICES as readonly string[]).includes(b)) {
        throw new UsageError(`Unknown backend '${b}'; valid backends: ${BACKEND_CHOICES.join(', ')}`);
      }
      return b as BackendChoice;
    },
  }),
  /** Wall-clock budget per case and shape, milliseconds; undefined: the backend's default. */
  budgetMs: flag({
    flag: 'budget-ms',
    value: '<ms>',
    help: [`time budget per case and shape (default cpu ${DEFAULT_BUDGET_MS.cpu}, cuda ${DEFAULT_BUDGET_MS.cuda})`],
    parse: (raw) => positiveArg('budget-ms', str(raw, 'budget-ms'), false, 3_600_000), // an hour per case and shape
  }),
  /** Interleaved unfused/fused pairs measured before the stopping rule is looked at. */
  minPairs: flag({
    flag: 'min-pairs',
    value: '<n>',
    help: [`interleaved pairs before the stopping rule (default 30, at least ${MIN_DECISION_PAIRS})`],
    parse: (raw) => {
      const n = positiveArg('min-pairs', str(raw, 'min-pairs'), true, MAX_PAIRS) ?? 30;
      if (n < MIN_DECISION_PAIRS) {
        throw new UsageError(
          `Expected at least ${MIN_DECISION_PAIRS} for --min-pairs (the gate decides on no fewer) but received ${n}`,
        );
      }
      return n;
    },
  }),
  /** Stop early once the speedup's 95% interval half-width is at most this (0.01 = ±1%). */
  targetHalfWidth: flag({
    flag: 'target-half-width',
    value: '<f>',
    help: ["stop when the speedup's 95% CI half-width is at most f (default 0.01)"],
    parse: (raw) => {
      const w = positiveArg('target-half-width', str(raw, 'target-half-width'), false) ?? 0.01;
      if (w >= 1) throw new UsageError(`Expected --target-half-width below 1 but received ${w}`);
      return w;
    },
  }),
  /** Seed of the random inputs. */
  seed: flag({
    flag: 'seed',
    value: '<n>',
    help: ['seed of the random inputs (default: fresh each run, printed)'],
    parse: (raw) => {
      const given = str(raw, 'seed');
      const seed = given === undefined ? raw.seed : digitsArg(given);
      if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
        throw new UsageError(`Expected an integer from 0 to 4294967295 for --seed but received '${given}'`);
      }
      return seed;
    },
  }),
  /** Only these cases (all when empty). */
  cases: flag<string[]>({
    flag: 'case',
    value: '<name>',
    multiple: true,
    help: ['only this case (repeatable)'],
    parse: (raw) => (raw.values.case as string[] | undefined) ?? [],
  }),
  /** Only these precisions (all when empty; a precision the device cannot run is skipped with the reason). */
  dtypes: flag<Dtype[]>({
    flag: 'dtype',
    value: `<${DTYPES.join('|')}>`,
    multiple: true,
    help: [
      'only this precision (repeatable or comma-separated; default: fp32 on the',
      'CPU backend, every precision on CUDA, those the GPU cannot run skipped',
      'with the reason)',
    ],
    parse: (raw) => parseDtypes((raw.values.dtype as string[] | undefined) ?? []),
  }),
  /** Skip shapes with more elements than this (reported as skipped). */
  maxElements: flag({
    flag: 'max-elements',
    value: '<n>',
    help: ['skip shapes with more elements'],
    parse: (raw) => positiveArg('max-elements', str(raw, 'max-elements'), true, Number.MAX_SAFE_INTEGER),
  }),
  /** Where BENCHMARK_RESULTS.md and fusebench-results.json are written. */
  outDir: flag({
    flag: 'out-dir',
    value: '<dir>',
    help: [
      `where BENCHMARK_RESULTS.md and fusebench-results.json go (default ${DEFAULT_OUT_DIR}); a results file`,
      'already there is moved to <dir>/previous/ first, for `fusebench compare`',
    ],
    parse: (raw) => pathArg('out-dir', str(raw, 'out-dir')) ?? DEFAULT_OUT_DIR,
  }),
  /** Folder of per-device baseline files. */
  baselinesDir: flag({
    flag: 'baselines-dir',
    value: '<dir>',
    help: ["per-device baseline files (default: fusebench's own baselines/)"],
    parse: (raw) => {
      const given = pathArg('baselines-dir', str(raw, 'baselines-dir'));
      if (given === undefined) return defaultBaselinesDir();
      // A folder that is not there would leave every shape without a baseline: the gate off, and exit 0.
      const records = raw.values['update-baselines'] || raw.values['add-baseline-run'];
      if (!records && !existsSync(given)) {
        throw new UsageError(`--baselines-dir ${given} does not exist (expected the folder of baseline files)`);
      }
      return given;
    },
  }),
  /** Use this baseline file instead of baselinesDir/<device-slug>.json. */
  baselineFile: flag({
    flag: 'baseline-file',
    value: '<file>',
    help: ['compare with this file instead of <baselines-dir>/<device-slug>.json'],
    parse: (raw) => pathArg('baseline-file', str(raw, 'baseline-file')),
  }),
  /**
   * Rewrite this device's baseline file from the run (no verdict fails the run then): `replace` starts
   * each measured entry afresh, `add-run` adds this run to the runs the entries were recorded from.
   */
  updateBaselines: flag<false | 'replace' | 'add-run'>({
    flag: 'update-baselines',
    help: ["rewrite this device's baseline file from this run (atomically; keeps other entries)"],
    parse: (raw) => (raw.values['add-baseline-run'] ? 'add-run' : raw.values['update-baselines'] ? 'replace' : false),
  }),
  /** The switch behind updateBaselines' `add-run`: read by its parser, not a field of its own. */
  addBaselineRun: flag({
    flag: 'add-baseline-run',
    help: [
      "add this run to the runs of this device's baselines (record a baseline from 2+ runs,",
      'on separate machines where you can: δ is derived from the noise between them)',
    ],
    parse: () => undefined,
  }),
  /** δ for every case, overriding the baseline file's. */
  delta: flag({
    flag: 'delta',
    value: '<f>',
    help: ["SAME band ±f for every case (default: each entry's tolerance, else 0.05)"],
    parse: (raw) => deltaArg(str(raw, 'delta')),
  }),
  /** AMBIGUOUS fails, and so does a fingerprint that differs from the baseline's. */
  strict: flag({
    flag: 'strict',
    help: ['AMBIGUOUS fails, and so does a driver/CUDA/clock fingerprint change'],
    parse: (raw) => raw.values.strict === true,
  }),
  /** The gate's self-check: make this case's fused kernel slower by extra read passes or by a percentage of its time. */
  inject: flag<Injection | undefined>({
    flag: 'inject',
    value: '<case>:<p>%',
    help: [
      "regression self-check: slow <case>'s fused kernel by p% of its own time (0 < p <= 100),",
      `or --inject <case>[:<passes>]: by extra read passes over its first buffer (1 to ${MAX_INJECT_PASSES}, default 4)`,
    ],
    parse: (raw) => parseInject(str(raw, 'inject')),
  }),
  /** The console table with every column (throughput, efficiency, error, each metric's change), wider than 120. */
  wide: flag({
    flag: 'wide',
    help: ['the console table with every column (default: within 120 columns; BENCHMARK_RESULTS.md has all)'],
    parse: (raw) => raw.values.wide === true,
  }),
  /** Vitest's own report beside fusebench's (its test list, a failure's code frame). */
  verbose: flag({
    flag: 'verbose',
    help: ["Vitest's own report too (its test list, a failed check's code frame)"],
    parse: (raw) => raw.values.verbose === true,
  }),
  help: flag({ flag: 'help', short: 'h', help: ['this text'], parse: (raw) => raw.values.help === true }),
} as const;

type Parsed = { [K in keyof typeof PERF_FLAGS]: ReturnType<(typeof PERF_FLAGS)[K]['parse']> };

/** Everything a perf run needs to know; serializable, so Vitest can provide it to its workers. */
export type PerfOptions = Omit<Parsed, 'addBaselineRun' | 'help'> & {
  /** The command line that reproduces this run, as printed in the report. */
  command: string;
  warmupPairs: number;
  /**
   * The terminal the run's progress is drawn on, as the CLI sees it (the test worker's stderr is a pipe
   * even then): its width when it is an interactive terminal, undefined for plain lines (piped, CI).
   */
  terminalColumns?: number;
};

const HELP_COLUMN = 28;

/** The help text, from the table. */
export const PERF_HELP = [
  'Usage: fusebench perf [options]   (or: npm run perf -- [options])',
  ...Object.values(PERF_FLAGS).flatMap((f: Flag<unknown>) => {
    const left = `  ${f.short ? `-${f.short}, ` : ''}--${f.flag}${f.value ? ` ${f.value}` : ''}`;
    const [first = '', ...rest] = f.help;
    return [
      `${left.padEnd(HELP_COLUMN)}${left.length >= HELP_COLUMN ? ' ' : ''}${first}`,
      ...rest.map((l) => `${' '.repeat(HELP_COLUMN)}${l}`),
    ];
  }),
].join('\n');

/** The options of a run with no arguments (a fresh seed). */
export function defaultPerfOptions(): PerfOptions {
  const opts = parsePerfArgs([], { seed: freshSeed() });
  if (!opts) throw new Error('unreachable: no --help without arguments');
  return opts;
}

/** Parses perf arguments; returns null when --help was asked for (after printing it). */
export function parsePerfArgs(
  argv: string[],
  defaults: { seed: number },
  env: NodeJS.ProcessEnv = process.env,
): PerfOptions | null {
  swallowedByNpm(env);
  const config = Object.fromEntries(
    Object.values(PERF_FLAGS).map((f: Flag<unknown>) => [
      f.flag,
      {
        type: f.value ? ('string' as const) : ('boolean' as const),
        ...(f.multiple ? { multiple: true } : {}),
        ...(f.short ? { short: f.short } : {}),
      },
    ]),
  );
  const values = parseFlags(argv, config, PERF_HELP, false).values as Raw['values'];
  const raw = { values, seed: defaults.seed };
  const parsed = Object.fromEntries(
    Object.entries(PERF_FLAGS).map(([key, f]: [string, Flag<unknown>]) => [key, f.parse(raw)]),
  ) as Parsed;
  if (parsed.help) {
    console.log(PERF_HELP);
    return null;
  }
  const { addBaselineRun: _a, help: _h, ...options } = parsed;
  return {
    ...options,
    command: invocation(argv),
    warmupPairs: WARMUP_PAIRS,
  };
}

/**
 * The command line that started this run, each word quoted as a shell needs it: `npm run perf -- …` when
 * npm ran the package's perf script, else `fusebench perf …` (npx, bin/fusebench.mjs, a test).
 */
function invocation(argv: string[]): string {
  const words = argv.map(shellWord).join(' ');
  if (process.env.npm_lifecycle_event === 'perf') return `npm run perf${words ? ` -- ${words}` : ''}`;
  return `fusebench perf${words ? ` ${words}` : ''}`;
}

function parseDtypes(raw: string[]): Dtype[] {
  const names = raw.flatMap((r) => r.split(',')).map((n) => n.trim());
  for (const n of names) {
    if (n === '')
      throw new UsageError(
        `Expected --dtype to list precisions separated by commas but received '${raw.join(',')}', with an empty one; valid precisions: ${DTYPES.join(', ')}`,
      );
    if (!isDtype(n))
      throw new UsageError(`Unknown precision '${n}' for --dtype; valid precisions: ${DTYPES.join(', ')}`);
  }
  return [...new Set(names as Dtype[])];
}

function parseInject(raw: string | undefined): Injection | undefined {
  if (raw === undefined) return undefined;
  const percent = /^([a-z0-9_]+):([^%]*)%$/.exec(raw);
  if (percent?.[1]) {
    const p = decimalArg(percent[2] ?? '');
    if (!Number.isFinite(p) || p <= 0 || p > 100) {
      throw new UsageError(`Expected --inject <case>:<p>% with p in (0, 100] but received '${raw}'`);
    }
    return { case: percent[1], percent: p };
  }
  const m = /^([a-z0-9_]+)(?::(.*))?$/.exec(raw);
  const passes = m?.[2] === undefined ? 4 : digitsArg(m[2]);
  if (!m?.[1] || !Number.isInteger(passes) || passes < 1 || passes > MAX_INJECT_PASSES) {
    throw new UsageError(
      `Expected --inject <case>[:<passes>] with passes an integer from 1 to ${MAX_INJECT_PASSES}, or --inject <case>:<p>%, but received '${raw}'`,
    );
  }
  return { case: m[1], passes };
}
