/**
 * The Vitest reporter of `npm run perf`: gathers each perf test's result from its task meta, in the
 * order the tests are declared, and at the end writes the JSON results, BENCHMARK_RESULTS.md and the
 * standard exports (Bencher's BMF, github-action-benchmark's custom format: src/export/), having moved
 * the results file it finds there to `previous/` (previous-run.ts), prints the table (with its notes,
 * verdict counts and, once, the no-baseline hint) and, inside GitHub Actions, annotates, sets outputs and
 * writes the job summary. It only gathers; rendering is done by pure functions in src/report/ and
 * src/export/. A failed write warns, never throws. The results name the commit and branch measured
 * (src/base/source.ts, read from the environment it is given).
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as core from '@actions/core';
import type { Reporter, TestModule } from 'vitest/node';
import { writeFileAtomic } from '../base/atomic-write.ts';
import { logLines, logText } from '../base/log-text.ts';
import { PACKAGE_ROOT } from '../base/package-root.ts';
import { finishDespiteClosedOutput } from '../base/signal-cleanup.ts';
import { runSource } from '../base/source.ts';
import { BENCHER_JSON, renderBencherJson } from '../export/bencher.ts';
import { BENCHMARK_ACTION_JSON, renderBenchmarkActionJson } from '../export/benchmark-action.ts';
import { recordCommand } from '../gate/record-baselines.ts';
import { type ActionsSink, reportToActions } from '../github/actions-report.ts';
import { renderBenchmarkMarkdown } from '../report/benchmark-markdown.ts';
import { colorEnabled } from '../report/color.ts';
import { renderRunConsole } from '../report/console-summary.ts';
import { CHARTS_DIR, isRooflineChartName, renderRooflineFiles } from '../report/report-files.ts';
import { RESULTS_JSON, RESULTS_MARKDOWN, RESULTS_SCHEMA_VERSION, type ResultsFile } from '../results/results.ts';
import { verdictGates } from '../results/verdict.ts';
import { REPORT_FILES, type ReportFile } from './out-dir.ts';
import type { PerfMeta } from './perf-meta.ts';
import type { PerfOptions } from './perf-options.ts';
import { fusebenchCommand, keepPreviousRun, keptRunLine, whyNotComparable } from './previous-run.ts';

/** Builds the results file from gathered metas and what was measured (`source`: commit, branch); pure, exported for tests. */
function collectResults(
  metas: PerfMeta[],
  options: PerfOptions,
  version: string,
  now: Date,
  source?: ResultsFile['source'],
  wallMs?: number,
): ResultsFile | null {
  const first = metas[0];
  if (!first) return null;
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    tool: { name: 'fusebench', version },
    createdAt: now.toISOString(),
    ...(wallMs !== undefined ? { wallMs } : {}),
    command: options.command,
    ...(source ? { source } : {}),
    backendReason: first.backendReason,
    settings: {
      budgetMs: first.budgetMs,
      minPairs: options.minPairs,
      targetHalfWidth: options.targetHalfWidth,
      seed: options.seed,
    },
    device: first.device,
    cases: metas.map((m) => m.result),
  };
}

type UserConsoleLog = Parameters<NonNullable<Reporter['onUserConsoleLog']>>[0];
type RunErrors = NonNullable<Parameters<NonNullable<Reporter['onTestRunEnd']>>[1]>;

/** Where the reporter sends GitHub Actions output; tests pass a fake sink and environment. */
export interface ActionsTarget {
  sink: ActionsSink;
  env: NodeJS.ProcessEnv;
}

/**
 * Removes the roofline charts in `dir` that this run did not draw (`drawn`), the only files there a run writes;
 * one that cannot be removed joins `failures`.
 */
function removeStaleCharts(
  dir: string,
  drawn: ReadonlySet<string>,
  failures: { file: string; message: string }[],
): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // no folder: no chart was drawn, and none is left from before
  }
  for (const name of names) {
    const file = join(dir, name);
    if (!isRooflineChartName(name) || drawn.has(file)) continue;
    try {
      rmSync(file, { force: true });
    } catch (e) {
      failures.push({ file, message: `a chart of an earlier run could not be removed: ${(e as Error).message}` });
    }
  }
}

/**
 * Why an --inject run proved nothing, when it did not: no shape of the injected case was judged against a
 * baseline (none on this device, or every one skipped), so its slowdown could not fail the run.
 */
function unjudgedInjection(results: ResultsFile, options: PerfOptions): string | undefined {
  const injected = options.inject?.case;
  if (!injected) return undefined;
  // Judged so that a slowdown fails the run: against a gating entry, on a metric the gate decided.
  const judged = results.cases.some(
    (c) =>
      c.case === injected &&
      c.gate !== undefined &&
      c.gate.status !== 'NO_BASELINE' &&
      verdictGates(c) &&
      (c.gate.fusedTime !== undefined || (c.gate.speedup !== undefined && c.ungatedSpeedup === undefined)),
  );
  return judged
    ? undefined
    : `--inject ${injected}: no shape of it was judged so that a slowdown fails the run (${results.device.name} has no gating baseline for them, or none ran), so the injected slowdown could not fail this run`;
}

/** Gathers perf results during the run; writes and reports them at its end. */
export class PerfReporter implements Reporter {
  readonly #metas: PerfMeta[] = [];
  /** Results files that could not be written, with why: the CLI turns them into a failing exit. */
  readonly writeFailures: { file: string; message: string }[] = [];
  /** Why nothing was written when shapes were left without a result (their worker died); else undefined. */
  incomplete: string | undefined;
  /** Why rendering or writing the reports threw, when it did (a bug): the run then fails, with what it wrote. */
  reportFailure: string | undefined;
  /** The run's results once it has ended (null when it produced none): handed to the CLI in memory. */
  results: ResultsFile | null = null;
  /** The files this run has written so far (what an interrupted run says it leaves). */
  readonly written: string[] = [];
  readonly #options: PerfOptions;
  readonly #version: string;
  readonly #actions: ActionsTarget;
  #startedAt = performance.now();

  constructor(options: PerfOptions, version: string, actions: ActionsTarget = { sink: core, env: process.env }) {
    this.#options = options;
    this.#version = version;
    this.#actions = actions;
  }

  onTestRunStart(): void {
    this.#startedAt = performance.now();
  }

  /** What the perf tests print through the console (a baseline file's warnings): passed through as it came. */
  onUserConsoleLog(log: UserConsoleLog): void {
    (log.type === 'stderr' ? process.stderr : process.stdout).write(log.content);
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: RunErrors = []): Promise<void> {
    // The measurement is over: a reader that goes away now must not cost its results or baselines.
    finishDespiteClosedOutput();
    // Errors outside any case's result (a suite that failed to load, an error between tests): their
    // message once, without Vitest's code frame (--verbose adds Vitest's own report).
    for (const e of [...testModules.flatMap((m) => m.errors()), ...unhandledErrors]) {
      console.error(`fusebench: error: ${logText((e as { message?: string }).message ?? String(e))}`);
    }
    // In declaration order (the registry's), not the order results happened to be reported in. A shape left
    // without a result that --case or --dtype did not skip never ran: its worker died (a signal, a crash).
    const missing: string[] = [];
    for (const m of testModules)
      for (const t of m.children.allTests()) {
        const meta = t.meta().fusebench;
        if (meta) this.#metas.push(meta);
        else if (t.result().state !== 'skipped') missing.push(t.name);
      }
    if (missing.length > 0) {
      // Written, the part would stand for a whole run (history, the next run's "previous"); the run before stays.
      this.incomplete = `the run did not finish: ${missing.length} of ${missing.length + this.#metas.length} shapes have no result (the first: ${missing[0]}); nothing written, the results already there kept`;
      console.error(`fusebench: ${logText(this.incomplete)}`);
      return;
    }
    try {
      await this.#finish();
    } catch (e) {
      // A bug in rendering must not turn a finished measurement into a crashed run, nor into a green one
      // without its reports: said here, with its stack, and perf exits 1.
      this.reportFailure = e instanceof Error ? (e.stack ?? e.message) : String(e);
      console.error(`fusebench: reporting failed: ${logLines(this.reportFailure)}`);
    }
  }

  async #finish(): Promise<void> {
    const results = collectResults(
      this.#metas,
      this.#options,
      this.#version,
      new Date(),
      // The commit of the kernels measured: fusebench's own checkout, wherever perf is run from.
      runSource(PACKAGE_ROOT, this.#actions.env),
      performance.now() - this.#startedAt,
    );
    this.results = results;
    if (!results) {
      console.warn('fusebench: no perf results were produced; nothing written');
      return;
    }
    const json = join(this.#options.outDir, RESULTS_JSON);
    const kept = keepPreviousRun(this.#options.outDir);
    // Each output is rendered and written on its own, so one failing leaves the others.
    const written = this.written;
    const out = (name: string) => join(this.#options.outDir, name);
    // Every file of REPORT_FILES (which perf checks before it measures), in its order: the type asks for each.
    const render: Record<ReportFile, () => string> = {
      [RESULTS_JSON]: () => `${JSON.stringify(results, null, 1)}\n`,
      [RESULTS_MARKDOWN]: () => renderBenchmarkMarkdown([results]),
      [BENCHER_JSON]: () => `${JSON.stringify(renderBencherJson(results), null, 1)}\n`,
      [BENCHMARK_ACTION_JSON]: () => `${JSON.stringify(renderBenchmarkActionJson(results), null, 1)}\n`,
    };
    for (const name of REPORT_FILES) {
      const file = out(name);
      if (file === json && kept && 'failure' in kept) {
        // Never over the run before when it could not be moved aside: that run would be lost.
        this.writeFailures.push({ file, message: 'left as it was: it holds the run before, which could not be kept' });
        continue;
      }
      try {
        writeFileAtomic(file, render[name]());
        written.push(file);
      } catch (e) {
        this.writeFailures.push({ file, message: (e as Error).message });
      }
    }
    // The roofline charts BENCHMARK_RESULTS.md shows, beside it (drawn with Vega: asynchronous).
    try {
      const charts = await renderRooflineFiles([results]);
      for (const chart of charts) {
        const file = out(chart.path);
        try {
          writeFileAtomic(file, chart.svg);
          written.push(file);
        } catch (e) {
          this.writeFailures.push({ file, message: (e as Error).message });
        }
      }
      // A chart of an earlier run (another precision or GPU) would ship beside this run's report as its own.
      removeStaleCharts(out(CHARTS_DIR), new Set(charts.map((c) => out(c.path))), this.writeFailures);
    } catch (e) {
      this.writeFailures.push({ file: out(CHARTS_DIR), message: `drawing the charts failed: ${(e as Error).message}` });
    }
    console.log(
      `\nfusebench on ${logText(results.device.name)} (${results.device.backend}; ${logText(results.backendReason)})`,
    );
    console.log(`copy bandwidth ${results.device.copyBandwidthGBs.toFixed(0)} GB/s; seed ${results.settings.seed}\n`);
    // The no-baseline hint's command records where this run looked; a run that records them gets none.
    const record = this.#options.updateBaselines
      ? null
      : recordCommand(results.device.backend, this.#options.baselinesDir);
    console.log(renderRunConsole(results, colorEnabled(process.stdout, this.#actions.env), this.#options.wide, record));
    const unjudged = unjudgedInjection(results, this.#options);
    if (unjudged) console.warn(`fusebench: ${logText(unjudged)}`);
    if (written.length > 0) console.log(`\nwrote ${logText(written.join(', '))}`);
    const keptLine = keptRunLine(
      kept,
      json,
      written.includes(json),
      whyNotComparable(kept, results),
      fusebenchCommand(),
    );
    if (keptLine) console.log(keptLine);
    reportToActions(results, this.#actions);
  }
}
