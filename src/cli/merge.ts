/**
 * `npm run merge -- --out-dir <dir> [--base <file>]... [--history <file.jsonl>]... [--run-url <url>] <results.json>...`:
 * merges several GPUs' results into one BENCHMARK_RESULTS.md (summary table first, the roofline of each
 * GPU and precision as SVGs in <dir>/benchmark-charts/, each GPU's history charts when a history file of
 * that device is given, in <dir>/benchmark-history/<slug>/, then the details) and one PR comment covering
 * all of them (each GPU against the base run of the same device). Like comment, it reports verdicts and
 * does not judge them: exit 0 once written; 2 on a bad input, after writing what the good inputs give (a
 * results file that fails its schema is named and left out, a broken history line named and skipped).
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { checkWritableDir, writeFileAtomic } from '../base/atomic-write.ts';
import { checkOutput, onceEach, UsageError, urlArg } from '../base/cli-args.ts';
import { isPlainSlug } from '../base/device-slug.ts';
import { logLines, logText } from '../base/log-text.ts';
import { repositoryUrlFromEnv } from '../base/source.ts';
import { defaultBaselinesDir } from '../gate/baseline-file.ts';
import { readHistory } from '../history/history-file.ts';
import type { HistoryRecord } from '../history/history-record.ts';
import { renderBenchmarkMarkdown } from '../report/benchmark-markdown.ts';
import { renderHistorySection } from '../report/history-markdown.ts';
import { loadBaseRun, pairWithBases, readDeviceBaselines, readGpuResults } from '../report/load-runs.ts';
import { renderPrComment } from '../report/pr-comment.ts';
import { CHARTS_DIR, renderRooflineFiles } from '../report/report-files.ts';
import type { ResultsFile } from '../results/results.ts';
import { EXIT, type ExitCode, parseCommandLine, renderHelp, runIfEntry } from './command-line.ts';

// The files merge writes into --out-dir.
const MERGED_MARKDOWN = 'BENCHMARK_RESULTS.md';
const MERGED_COMMENT = 'pr-comment.md';
// The folder of the history charts, beside BENCHMARK_RESULTS.md (one subfolder per device slug).
const HISTORY_CHARTS = 'benchmark-history';

const HELP = renderHelp({
  usage: `Usage: fusebench merge --out-dir <dir> [--base <file>]... [--history <file.jsonl>]...
                       [--baselines-dir <dir>] [--repo-url <url>] [--run-url <url>] <results.json>...
Merges several GPUs' runs into one ${MERGED_MARKDOWN} and one pull-request comment.
  <results.json>...  one fusebench-results.json per GPU (of two runs of one GPU, the newer is merged)
  --base <file>      a base-branch fusebench-results.json (repeatable; matched to GPUs by device)
  --history <file>   a device's history (JSON Lines, repeatable; matched to GPUs by device slug): charts of
                     the last 20 commits in ${MERGED_MARKDOWN}, SVGs in <dir>/${HISTORY_CHARTS}/
  --baselines-dir <dir>  the baseline files whose SAME band the history charts show (default: fusebench's own baselines/)
  --repo-url <url>   the repository's URL, for links to commits (default: GitHub Actions' repository)
  --out-dir <dir>    where ${MERGED_MARKDOWN}, ${CHARTS_DIR}/ and ${MERGED_COMMENT} are written
  --run-url <url>    link to the workflow run, shown in the comment
  -h, --help         this text`,
  examples: [
    'fusebench merge --out-dir merged h100/fusebench-results.json h200/fusebench-results.json',
    'fusebench merge --out-dir merged --base base/h100.json --history history/nvidia-h100.jsonl h100.json',
  ],
  exits: {
    ok: `${MERGED_MARKDOWN} and ${MERGED_COMMENT} were written (they show SLOWER cases; the perf run is what fails on them)`,
    usage:
      'a bad flag, an --out-dir that cannot be written, or a results file that cannot be read, is not valid, or is an older run of a GPU another file holds (named; the others are still merged and written)',
  },
});

const OPTIONS = {
  base: { type: 'string', multiple: true },
  'baselines-dir': { type: 'string' },
  'repo-url': { type: 'string' },
  history: { type: 'string', multiple: true },
  'out-dir': { type: 'string' },
  'run-url': { type: 'string' },
} as const;

export async function main(argv: string[]): Promise<ExitCode> {
  const parsed = parseCommandLine(argv, OPTIONS, HELP);
  if (!parsed) return EXIT.ok;
  const { values, positionals } = parsed;
  const outDir = values['out-dir'];
  if (!outDir || positionals.length === 0) {
    throw new UsageError(`Expected --out-dir and at least one results file\n\n${HELP}`);
  }
  const repoUrl = urlArg('repo-url', values['repo-url']);
  const runUrl = urlArg('run-url', values['run-url']);
  const { runs, leftOut } = readGpuResults(onceEach(positionals));
  for (const u of leftOut) console.error(`fusebench: leaving out ${logText(u.file)}: ${logLines(u.why)}`);
  if (runs.length === 0) throw new Error('none of the results files could be read; nothing to merge');
  // Before anything is rendered: a folder that cannot be written would otherwise fail part-way.
  checkOutput(`--out-dir ${outDir} cannot hold the merged reports`, () => checkWritableDir(outDir));
  const bases = (values.base ?? []).map(loadBaseRun);
  for (const b of bases) if (!b.results) console.warn(`fusebench: ignoring a base run: ${logText(b.why)}`);
  const md = join(outDir, MERGED_MARKDOWN);
  const comment = join(outDir, MERGED_COMMENT);
  const history = await historySections(runs, values.history ?? [], outDir, {
    baselineDir: values['baselines-dir'] ?? defaultBaselinesDir(),
    repositoryUrl: repoUrl ?? repositoryUrlFromEnv(process.env),
  });
  // The charts and the comment first, BENCHMARK_RESULTS.md (which shows the charts) last.
  const charts = await renderRooflineFiles(runs);
  for (const chart of charts) writeFileAtomic(join(outDir, chart.path), chart.svg);
  writeFileAtomic(comment, renderPrComment(pairWithBases(runs, bases), { runUrl, leftOut }));
  writeFileAtomic(md, renderBenchmarkMarkdown(runs, { history, leftOut }));
  console.log(
    `merged ${runs.length} GPU${runs.length === 1 ? '' : 's'} (${runs.map((r) => logText(r.device.name)).join(', ')}): wrote ${logText(md)}, ${charts.length} roofline chart${charts.length === 1 ? '' : 's'} and ${logText(comment)}`,
  );
  // The rest was written; a results file left out is still a bad input.
  return leftOut.length > 0 ? EXIT.usage : EXIT.ok;
}

/**
 * Each GPU's history section (device slug → Markdown), its charts written under the output folder. Broken
 * lines are named (file:line) on stderr and in the section and skipped; a history of a device with no
 * results here is named and left out; a history with no measured run says so.
 */
async function historySections(
  runs: ResultsFile[],
  files: string[],
  outDir: string,
  options: { baselineDir: string; repositoryUrl: string | undefined },
): Promise<Map<string, string>> {
  const bySlug = new Map<string, { records: HistoryRecord[]; problems: string[]; files: string[] }>();
  for (const f of files) {
    // A history that cannot be read is left out with a warning, as an unusable --base is: the reports still go out.
    if (!existsSync(f)) {
      console.warn(`fusebench: ${logText(`${f}: no such history file; left out`)}`);
      continue;
    }
    let read: ReturnType<typeof readHistory>;
    try {
      read = readHistory(f);
    } catch (e) {
      console.warn(`fusebench: ${logLines(`${(e as Error).message}; left out`)}`);
      continue;
    }
    const { records, problems } = read;
    for (const p of problems) console.warn(`fusebench: ${logText(p)}`);
    // Records go to their own device; a file without a readable record is named after its device (<slug>.jsonl).
    const slugs = new Set(records.map((r) => r.record.device.slug));
    if (slugs.size === 0) slugs.add(basename(f, '.jsonl'));
    for (const slug of slugs) {
      const entry = bySlug.get(slug) ?? { records: [], problems: [], files: [] };
      entry.records.push(...records.filter((r) => r.record.device.slug === slug).map((r) => r.record));
      entry.problems.push(...problems);
      entry.files.push(f);
      bySlug.set(slug, entry);
    }
  }
  const sections = new Map<string, string>();
  for (const [slug, { records, problems, files: from }] of bySlug) {
    const run = runs.find((r) => r.device.slug === slug);
    if (!run || !isPlainSlug(slug)) {
      console.warn(
        `fusebench: ignoring the history of ${logText(JSON.stringify(slug))}: no results of that device here`,
      );
      continue;
    }
    const { markdown, images } = await renderHistorySection(records, {
      imageDir: `${HISTORY_CHARTS}/${slug}`,
      device: run.device.name,
      files: from,
      problems,
      ...deviceBaselines(options.baselineDir, slug),
      ...(options.repositoryUrl ? { repositoryUrl: options.repositoryUrl } : {}),
    });
    for (const img of images) writeFileAtomic(join(outDir, img.path), img.svg);
    sections.set(slug, markdown);
  }
  return sections;
}

/** The device's baselines for the charts' band; a file that cannot be read is named on stderr and left out. */
function deviceBaselines(dir: string, slug: string) {
  const { baselines, problem } = readDeviceBaselines(dir, slug);
  if (problem) console.warn(`fusebench: no baseline band in the history charts: ${logLines(problem)}`);
  return baselines ? { baselines } : {};
}

runIfEntry(import.meta.url, main);
