/**
 * `fusebench perf` (`npm run perf -- ...`): parses fusebench's options, validates the baseline files (a
 * broken one stops the run before anything is measured), runs the perf suites through Vitest, and with
 * --update-baselines rewrites this device's baseline file. Its exit codes: perfHelp.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findCase, findCaseInEveryDtype } from '../../cases/registry.ts';
import { backendSlug, resolveBackend } from '../addon/device.ts';
import { checkWritableDir, checkWritableFile, missingDirs } from '../base/atomic-write.ts';
import { checkOutput, UsageError } from '../base/cli-args.ts';
import { logLines, logText } from '../base/log-text.ts';
import { PACKAGE_ROOT } from '../base/package-root.ts';
import { freshSeed } from '../base/rng.ts';
import { removeEmptyOnSignal, removeIfEmpty, sayOnInterrupt } from '../base/signal-cleanup.ts';
import { checkSourceEnv, currentCommit } from '../base/source.ts';
import { VERSION } from '../base/version.ts';
import { baselineFileSchema, baselinePath, validateBaselineDir } from '../gate/baseline-file.ts';
import { heldLockMessage, holdRunLock } from '../gate/baseline-lock.ts';
import { outcomeLines, recordBaselines } from '../gate/record-baselines.ts';
import { capableTerminal, colorEnabled } from '../report/color.ts';
import { type ResultsFile, readJsonFile } from '../results/results.ts';
import { holdDeviceLock } from '../run/device-lock.ts';
import { reportPathProblem } from '../run/out-dir.ts';
import { PERF_HELP, type PerfOptions, parsePerfArgs } from '../run/perf-options.ts';
import { PerfReporter } from '../run/perf-reporter.ts';
import { checkPreviousRunKeepable, OUT_DIR_LOCK } from '../run/previous-run.ts';
import { asksForHelp, EXIT, type ExitCode, renderHelp, runIfEntry } from './command-line.ts';

/** `fusebench perf --help` (or -h): the options, examples and exit codes. */
function perfHelp(): string {
  return renderHelp({
    usage: PERF_HELP,
    examples: [
      'fusebench perf --backend cpu --case gelu_scale',
      'fusebench perf --backend cuda --out-dir perf-out',
      'npm run perf -- --backend cuda --inject gelu_scale:4   # a regression on purpose: exits 1',
    ],
    exits: {
      ok: 'nothing regressed: every case SAME, FASTER, NO_BASELINE, AMBIGUOUS (without --strict) or skipped, and the results written',
      regression:
        'a case SLOWER against a baseline that gates, FAILED numerics or ERRORED (a shape the baselines hold that cannot run here is ERRORED; with --strict also AMBIGUOUS or a changed fingerprint), a results or baseline file not written, reports that failed to render, or a run that did not finish (its worker died: nothing written)',
      usage:
        'nothing measured: a bad flag (or perf flags given to npm: npm run perf --strict, without --), an unknown case or precision, a --case none of whose precisions --dtype keeps, an invalid baseline file or, with --update-baselines, one of another device or one that cannot be written, a baseline lock held by another update, an --out-dir that cannot be written, is in use by another perf run, holds a report file that is a folder, or whose results file cannot be moved to previous/, a device another perf run is measuring (two runs on one device would time each other), a FUSEBENCH_COMMIT or GITHUB_SHA that is not a commit id, a FUSEBENCH_BRANCH or GITHUB_REF_NAME with a character git forbids in a branch name, no usable GPU for --backend cuda; or a run that produced no results',
    },
  });
}

/**
 * The embedded default answers fast: on the CPU backend, with no --dtype, the run measures fp32 only
 * (the half precisions run there in software conversions and add minutes); the note says so where the
 * run starts.
 */
function cpuDefaultDtypes(options: PerfOptions, backend: 'cpu' | 'cuda'): { options: PerfOptions; note?: string } {
  if (backend !== 'cpu' || options.dtypes.length > 0) return { options };
  return {
    options: { ...options, dtypes: ['fp32'] },
    note: 'fusebench: CPU backend: measuring fp32 only (add --dtype fp32,bf16,fp16 for every precision)',
  };
}

async function checkInputs(options: PerfOptions): Promise<'cpu' | 'cuda'> {
  // The commit and branch the results will name: a malformed one in the environment stops the run first.
  checkSourceEnv();
  for (const c of options.cases) {
    // A case none of whose precisions --dtype keeps would be left out in silence: said here, before a run.
    const dtypes = (await findCaseInEveryDtype(c)).map((d) => d.dtype);
    if (options.dtypes.length > 0 && !dtypes.some((d) => options.dtypes.includes(d))) {
      throw new UsageError(
        `--case ${c} runs in ${dtypes.join(', ')} only: --dtype ${options.dtypes.join(',')} leaves nothing of it to run`,
      );
    }
  }
  if (options.inject) {
    await findCase(options.inject.case);
    if (options.updateBaselines) {
      throw new UsageError(
        '--inject makes a kernel slower on purpose; refusing to record that as a baseline with --update-baselines',
      );
    }
    if (options.cases.length > 0 && !options.cases.includes(options.inject.case)) {
      throw new UsageError(
        `--inject ${options.inject.case} names a case that --case leaves out (${options.cases.join(', ')})`,
      );
    }
  }
  const baselineFiles = validateBaselineDir(options.baselinesDir);
  // A --baseline-file that does not exist yet is created by --update-baselines; without it, a typo.
  const given =
    options.baselineFile && (existsSync(options.baselineFile) || !options.updateBaselines)
      ? readJsonFile(baselineFileSchema, options.baselineFile)
      : undefined;
  checkWritable(options.outDir);
  // Resolved once here, so a missing GPU is one clear message, not an error in every test.
  const { backend } = resolveBackend(options.backend);
  if (options.updateBaselines && given && given.device.slug !== backendSlug(backend)) {
    // recordBaselines refuses this too, under the lock; here it costs no run.
    throw new UsageError(
      `--baseline-file ${options.baselineFile} holds baselines of ${given.device.name}, not of this run's ` +
        `${backend === 'cpu' ? 'CPU' : 'GPU'} (${backendSlug(backend)}); refusing to mix devices (drop ` +
        "--baseline-file to update this device's own file). Nothing was measured.",
    );
  }
  if (!options.baselineFile) {
    // The file under this device's name must hold this device's baselines: another device's would be judged
    // as a model change (no fused-time gate), silently. --baseline-file compares across devices on purpose.
    const own = baselinePath(options.baselinesDir, backendSlug(backend));
    const held = baselineFiles.get(own);
    if (held && held.device.slug !== backendSlug(backend)) {
      throw new UsageError(
        `${own} holds baselines of ${logText(held.device.name)} (${logText(held.device.slug)}), not of this device ` +
          `(${backendSlug(backend)}): a file is named after the device whose baselines it holds (--baseline-file ` +
          'compares with another device on purpose). Nothing was measured.',
      );
    }
  }
  if (options.updateBaselines) {
    // Before measuring: a lock another update holds now, or a file that cannot be written, would otherwise
    // cost the whole run.
    const file = options.baselineFile ?? baselinePath(options.baselinesDir, backendSlug(backend));
    const held = heldLockMessage(file);
    if (held) throw new UsageError(`${held}. Nothing was measured.`);
    checkOutput(`--update-baselines cannot record into ${file}`, () => checkWritableFile(file));
  }
  return backend;
}

/** Throws naming the folder unless the results can be written into it (created when missing). */
function checkWritable(dir: string, check: (dir: string) => void = checkWritableDir): void {
  checkOutput(`--out-dir ${dir} cannot hold the results`, () => check(dir));
}

/** Records the run as this device's baselines (waiting for another update's lock); a failure is a regression exit. */
async function writeBaselines(options: PerfOptions, results: ResultsFile): Promise<ExitCode> {
  const file = options.baselineFile ?? baselinePath(options.baselinesDir, results.device.slug);
  const mode = options.updateBaselines === 'add-run' ? 'add-run' : 'replace';
  try {
    const outcome = await recordBaselines(file, results, currentCommit(), { command: options.command }, mode);
    for (const line of outcomeLines(outcome)) console.log(line);
    return EXIT.ok;
  } catch (e) {
    console.error(`fusebench: ${logLines(e instanceof Error ? e.message : String(e))}`);
    return EXIT.regression;
  }
}

export async function main(argv: string[]): Promise<ExitCode> {
  if (asksForHelp(argv)) {
    console.log(perfHelp());
    return EXIT.ok;
  }
  const parsed = parsePerfArgs(argv, { seed: freshSeed() });
  if (!parsed) return EXIT.ok;
  // The folders --out-dir makes: a run refused, interrupted or ended without writing leaves none of them.
  const made = missingDirs(parsed.outDir);
  const forgetMade = removeEmptyOnSignal(made);
  try {
    return await checkedRun(parsed);
  } finally {
    forgetMade();
    removeIfEmpty(made);
  }
}

/** Takes a lock for this run (`hold`), or refuses the run with why it could not (a usage exit: nothing was measured). */
function holdOrRefuse(hold: () => () => void, why = ''): () => void {
  try {
    return hold();
  } catch (e) {
    throw new UsageError(`${(e as Error).message}${why}. Nothing was measured.`);
  }
}

async function checkedRun(parsed: PerfOptions): Promise<ExitCode> {
  const backend = await checkInputs(parsed);
  const { options, note } = cpuDefaultDtypes(parsed, backend);
  // Two runs into one folder would each keep "the run before" and lose the first one's: one at a time.
  const releaseOut = holdOrRefuse(() =>
    holdRunLock(join(options.outDir, OUT_DIR_LOCK), `--out-dir ${options.outDir}`, { command: options.command }),
  );
  try {
    // Two runs on one device time each other's kernels (and record that as baselines): one at a time, whatever
    // folders they write into.
    const releaseDevice = holdOrRefuse(
      () => holdDeviceLock(backend, options.command),
      ': two runs on one device would time each other',
    );
    try {
      checkWritable(options.outDir, checkPreviousRunKeepable);
      const reportProblem = reportPathProblem(options.outDir);
      if (reportProblem)
        throw new UsageError(
          `--out-dir ${options.outDir} cannot hold the results: ${reportProblem}. Nothing was measured.`,
        );
      // Said once nothing can refuse the run any more.
      if (note) console.log(note);
      return await measure(options);
    } finally {
      releaseDevice();
    }
  } finally {
    releaseOut();
  }
}

/** What an interrupted run leaves, for the line it ends with (src/base/signal-cleanup.ts sayOnInterrupt). */
function interruptedNote(options: PerfOptions, reporter: PerfReporter): string {
  const baselines = options.updateBaselines ? '; the baselines were not recorded' : '';
  return reporter.written.length === 0
    ? `nothing was written (${options.outDir} holds what it held before)${baselines}`
    : `the results were written (${reporter.written.length} files in ${options.outDir})${baselines}`;
}

async function measure(options: PerfOptions): Promise<ExitCode> {
  // The progress line is drawn in place only on an interactive terminal, never piped or in CI.
  const terminal =
    capableTerminal(process.stderr) && !process.env.CI ? { terminalColumns: process.stderr.columns || 120 } : {};
  const reporter = new PerfReporter(options, VERSION);
  const forgetNote = sayOnInterrupt(() => interruptedNote(options, reporter));
  try {
    return await measureWith(options, reporter, terminal);
  } finally {
    forgetNote();
  }
}

async function measureWith(
  options: PerfOptions,
  reporter: PerfReporter,
  terminal: { terminalColumns?: number },
): Promise<ExitCode> {
  // Vitest's colours follow fusebench's rule: never when piped or with NO_COLOR (workers inherit it).
  if (!colorEnabled(process.stdout, process.env)) process.env.NO_COLOR = '1';
  const { createVitest } = await import('vitest/node');
  const vitest = await createVitest('test', {
    // fusebench's own suites and config, wherever it is run from (paths the user gives stay relative to
    // the folder it is run from: Vitest changes no process's working folder).
    root: PACKAGE_ROOT,
    config: join(PACKAGE_ROOT, 'vitest.perf.config.ts'),
    // Loaded in memory: the default bundles it into node_modules/.vite-temp first, which a checkout the user
    // cannot write (installed by root, read-only) refuses after the run was announced.
    configLoader: 'runner',
    run: true,
    watch: false,
    // fusebench owns the console; Vitest's own report (its test list, code frames) only with --verbose.
    reporters: options.verbose ? ['default', reporter] : [reporter],
  });
  vitest.provide('fusebenchOptions', { ...options, ...terminal });
  await vitest.start();
  await vitest.close();
  for (const f of reporter.writeFailures) console.error(`fusebench: could not write ${f.file}: ${logLines(f.message)}`);
  // Vitest sets process.exitCode 1 for a failed test (a SLOWER, FAILED or ERRORED case), 130 when
  // interrupted; runCommand keeps a code already set.
  if (process.exitCode || reporter.writeFailures.length > 0 || reporter.incomplete || reporter.reportFailure)
    return EXIT.regression;
  // Nothing judged: the options left no case and precision to run (said by the reporter).
  if (!reporter.results)
    throw new Error(`the run produced no results${options.updateBaselines ? '; baselines left unchanged' : ''}`);
  if (!options.updateBaselines) return EXIT.ok;
  // The reporter hands its results over in memory: what was just measured, never a file read back.
  // Awaited under the --out-dir lock, so no other run starts in the folder before the baselines are recorded.
  return writeBaselines(options, reporter.results);
}

// A usage error, a broken baseline file or any failure before the measurement: EXIT.usage (nothing judged).
runIfEntry(import.meta.url, main);
