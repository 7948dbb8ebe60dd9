/**
 * `fusebench history` (`npm run history -- ...`): the per-device history of perf runs (JSON Lines, see src/history/).
 *   fusebench history <history.jsonl> [--last N] [--out <file.md>]
 *     prints each case's speedup per commit, or with --out writes the charts BENCHMARK_RESULTS.md shows
 *     (Markdown, and one SVG per case, shape and precision in <file>-charts/ beside it);
 *   fusebench history append --dir <folder> <results.json>...
 *     appends each run to <folder>/<device-slug>.jsonl (what perf.yml does on the perf-history branch).
 * A broken line in a history file is named (file:line and why) on stderr and skipped, never lost. Exit 0
 * once shown or appended; 2 for a bad flag or a history or results file that cannot be read.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { checkNotInput, checkWritableFile, writeFileAtomic } from '../base/atomic-write.ts';
import { checkOutput, digitsArg, UsageError, urlArg } from '../base/cli-args.ts';
import { logLines, logText } from '../base/log-text.ts';
import { repositoryUrlFromEnv } from '../base/source.ts';
import { defaultBaselinesDir } from '../gate/baseline-file.ts';
import { appendHistory, assertHistoryRecord, historyFileFor, readHistory } from '../history/history-file.ts';
import { historyRecord } from '../history/history-record.ts';
import { caseHistories, DEFAULT_HISTORY_COMMITS, shortCommit } from '../history/history-series.ts';
import { padTable } from '../report/color.ts';
import { md, name } from '../report/escape.ts';
import { renderHistorySection } from '../report/history-markdown.ts';
import { readDeviceBaselines } from '../report/load-runs.ts';
import { readResults } from '../results/results.ts';
import { EXIT, type ExitCode, parseCommandLine, renderHelp, runIfEntry } from './command-line.ts';

const HELP = renderHelp({
  usage: `Usage:
  fusebench history <history.jsonl> [--last N] [--out <file.md> [--baselines-dir <dir>] [--repo-url <url>]]
      each case's speedup over the last N commits (default ${DEFAULT_HISTORY_COMMITS}); with --out, Markdown and
      one SVG chart per case, shape and precision in <file>-charts/ beside it (speedup and fused time,
      dated, over the SAME band of the device's baseline in --baselines-dir (default: fusebench's own
      baselines/); points link to their commits under --repo-url, default GitHub Actions' repository)
  fusebench history append --dir <folder> <results.json>...
      append each run to <folder>/<device-slug>.jsonl (atomically; earlier lines are kept as they are)
  -h, --help  this text
A broken line of a history file is named on stderr and skipped.`,
  examples: [
    'fusebench history history/nvidia-h100-80gb-hbm3.jsonl --last 10',
    'fusebench history history/nvidia-h100-80gb-hbm3.jsonl --out history.md',
    'fusebench history append --dir history perf-out/fusebench-results.json',
  ],
  exits: {
    ok: 'the history was shown, written or appended to (a SLOWER point is shown, not judged)',
    usage: 'a bad flag, a history or results file that is missing, cannot be read or is not valid',
  },
});

/** The most commits --last shows (a chart of more is unreadable). */
const MAX_LAST = 1000;

function positiveInteger(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const v = digitsArg(raw);
  if (!Number.isInteger(v) || v <= 0 || v > MAX_LAST)
    throw new UsageError(`Expected a positive integer up to ${MAX_LAST} for --${flag} but received '${raw}'`);
  return v;
}

async function append(dir: string | undefined, files: string[]): Promise<void> {
  if (!dir || files.length === 0) throw new UsageError(`Expected --dir and at least one results file\n\n${HELP}`);
  // Every results file is read, its record checked and its history file found writable before any is
  // appended: all of them or none.
  const planned = files.map((f) => {
    const results = readResults(f);
    // A run made slower on purpose (perf --inject, to see the gate catch it) is no measurement of the code.
    const injected = results.cases.find((c) => c.injection);
    if (injected) {
      throw new UsageError(
        `${f} is a run made with --inject (${logText(injected.key)} slowed on purpose): not a measurement of the code, so not history; nothing was appended`,
      );
    }
    const file = historyFileFor(dir, results.device.slug);
    const record = historyRecord(results);
    assertHistoryRecord(file, record);
    return { f, results, file, record };
  });
  for (const { f, file } of planned) checkOutput(`${file} cannot take the run of ${f}`, () => checkWritableFile(file));
  for (const { f, results, file, record } of planned) {
    const { problems, appended } = await appendHistory(file, record);
    for (const p of problems)
      console.warn(`fusebench: ${logText(p)}${p.endsWith('; skipped') ? ' (kept in the file as it is)' : ''}`);
    const what = `${logText(results.device.name)} at ${logText(record.commit)} (${logText(f)})`;
    console.log(
      appended ? `appended ${what} to ${logText(file)}` : `${logText(file)} already holds ${what}; not appended again`,
    );
  }
}

/**
 * The history to show: its broken lines named on stderr (the first SHOWN_PROBLEMS, then how many more),
 * or an error when no line is a record but some are broken (another kind of file given by mistake).
 */
function readShownHistory(file: string): ReturnType<typeof readHistory> {
  const read = readHistory(file);
  const { records, problems, broken } = read;
  if (records.length === 0 && broken > 0) {
    throw new UsageError(
      `${file} is not a fusebench history: none of its lines is a record (${broken} broken; the first: ${problems[0]?.replace(/; skipped$/, '')})`,
    );
  }
  for (const p of problems) console.warn(`fusebench: ${logText(p)}`);
  return read;
}

/** The plain-text view: a table per case, a row per commit, a column per shape. */
function printText(file: string, last: number): void {
  const { records } = readShownHistory(file);
  const histories = caseHistories(
    records.map((r) => r.record),
    last,
  );
  if (histories.length === 0) {
    console.log(`${logText(file)}: no measured run to show`);
    return;
  }
  for (const h of histories) {
    const rows = [
      ['commit', 'date', ...h.series.map((s) => s.shape)],
      ...h.commits.map((c, i) => [
        shortCommit(c),
        (h.dates[i] ?? '').slice(0, 10),
        ...h.series.map((s) => {
          const p = s.points.find((x) => x.index === i);
          return p ? `${p.estimate.toFixed(2)}x${p.verdict === 'SLOWER' ? ' SLOWER' : ''}` : '—';
        }),
      ]),
    ];
    console.log(`\n${logText(h.case)} ${h.dtype} (speedup, oldest first)`);
    for (const line of padTable(rows)) console.log(line);
  }
}

/** The folder beside `--out` that holds its charts, named after it: `history.md` → `history-charts`. */
function chartsFolder(out: string): string {
  return `${basename(out, extname(out))}-charts`;
}

/** Throws naming `out` unless the Markdown and its charts' folder beside it can be written. */
function checkHistoryOutput(out: string): void {
  checkWritableFile(out);
  const charts = join(dirname(out), chartsFolder(out));
  if (statSync(charts, { throwIfNoEntry: false })?.isDirectory() === false) {
    throw new Error(`${charts} is not a folder; the charts of ${out} go there`);
  }
}

async function writeMarkdown(
  file: string,
  last: number,
  out: string,
  chartsFrom: { baselinesDir: string; repositoryUrl: string | undefined },
): Promise<void> {
  const { records, problems } = readShownHistory(file);
  const charts = chartsFolder(out);
  const latest = records.at(-1)?.record.device;
  const { baselines, problem } = latest ? readDeviceBaselines(chartsFrom.baselinesDir, latest.slug) : {};
  if (problem) console.warn(`fusebench: no baseline band in the charts: ${logLines(problem)}`);
  const { markdown, images } = await renderHistorySection(
    records.map((r) => r.record),
    {
      last,
      imageDir: charts,
      files: [file],
      problems,
      ...(baselines ? { baselines } : {}),
      ...(chartsFrom.repositoryUrl ? { repositoryUrl: chartsFrom.repositoryUrl } : {}),
    },
  );
  const device = latest?.name ?? basename(file);
  writeFileAtomic(out, `${md`# fusebench history: ${name(device)}`}\n\n${markdown}`);
  for (const img of images) writeFileAtomic(join(dirname(out), img.path), img.svg);
  console.log(
    `wrote ${logText(out)}${images.length > 0 ? ` and ${images.length} chart${images.length === 1 ? '' : 's'} in ${logText(join(dirname(out), charts))}` : ''}`,
  );
}

const OPTIONS = {
  last: { type: 'string' },
  'baselines-dir': { type: 'string' },
  'repo-url': { type: 'string' },
  out: { type: 'string' },
  dir: { type: 'string' },
} as const;

export async function main(argv: string[]): Promise<ExitCode> {
  const parsed = parseCommandLine(argv, OPTIONS, HELP);
  if (!parsed) return EXIT.ok;
  const { values, positionals } = parsed;
  if (positionals[0] === 'append') {
    await append(values.dir, positionals.slice(1));
    return EXIT.ok;
  }
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new UsageError(`Expected one history file\n\n${HELP}`);
  // Reading: a missing file is a mistake (a typo, the wrong folder), not an empty history.
  if (!existsSync(file)) throw new Error(`${file}: no such history file`);
  const last = positiveInteger('last', values.last, DEFAULT_HISTORY_COMMITS);
  const repoUrl = urlArg('repo-url', values['repo-url']);
  const out = values.out;
  if (out) {
    checkOutput('--out', () => {
      checkHistoryOutput(out);
      checkNotInput(out, [file]);
    });
    await writeMarkdown(file, last, out, {
      baselinesDir: values['baselines-dir'] ?? defaultBaselinesDir(),
      repositoryUrl: repoUrl ?? repositoryUrlFromEnv(process.env),
    });
  } else printText(file, last);
  return EXIT.ok;
}

runIfEntry(import.meta.url, main);
