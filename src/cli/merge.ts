/**
 * `npm run merge -- --out-dir <dir> [--base <file>]... [--history <file.jsonl>]... [--run-url <url>] <results.json>...`:
 * merges several GPUs' results into one BENCHMARK_RESULTS.md with a section per GPU (with its history
 * charts when a history file of that device is given; the SVGs go to <dir>/benchmark-history/<slug>/) and
 * one PR comment covering all of them (each GPU against the base run of the same device). Like comment,
 * it reports verdicts and does not judge them: exit 0 once written, 2 on a bad input.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '../base/atomic-write.ts';
import { UsageError } from '../base/cli-args.ts';
import { logText } from '../base/log-text.ts';
import { isPlainSlug, readHistory } from '../history/history-file.ts';
import type { HistoryRecord } from '../history/history-record.ts';
import { renderMultiGpuMarkdown } from '../report/benchmark-markdown.ts';
import { renderHistorySection } from '../report/history-markdown.ts';
import { loadBaseRun, pairWithBases, readGpuResults } from '../report/load-runs.ts';
import { renderPrComment } from '../report/pr-comment.ts';
import type { ResultsFile } from '../results/results.ts';
import { EXIT, type ExitCode, parseCommandLine, renderHelp, runIfEntry } from './command-line.ts';

// The files merge writes into --out-dir.
const MERGED_MARKDOWN = 'BENCHMARK_RESULTS.md';
const MERGED_COMMENT = 'pr-comment.md';
// The folder of the history charts, beside BENCHMARK_RESULTS.md (one subfolder per device slug).
const HISTORY_CHARTS = 'benchmark-history';

const HELP = renderHelp({
  usage: `Usage: fusebench merge --out-dir <dir> [--base <file>]... [--history <file.jsonl>]... [--run-url <url>] <results.json>...
Merges several GPUs' runs into one ${MERGED_MARKDOWN} and one pull-request comment.
  <results.json>...  one fusebench-results.json per GPU
  --base <file>      a base-branch fusebench-results.json (repeatable; matched to GPUs by device)
  --history <file>   a device's history (JSON Lines, repeatable; matched to GPUs by device slug): charts of
                     the last 20 commits in ${MERGED_MARKDOWN}, SVGs in <dir>/${HISTORY_CHARTS}/
  --out-dir <dir>    where ${MERGED_MARKDOWN} and ${MERGED_COMMENT} are written
  --run-url <url>    link to the workflow run, shown in the comment
  -h, --help         this text`,
  examples: [
    'fusebench merge --out-dir merged h100/fusebench-results.json h200/fusebench-results.json',
    'fusebench merge --out-dir merged --base base/h100.json --history history/nvidia-h100.jsonl h100.json',
  ],
  exits: {
    ok: `${MERGED_MARKDOWN} and ${MERGED_COMMENT} were written (they show SLOWER cases; the perf run is what fails on them)`,
    usage: 'a bad flag, a results file that cannot be read or is not valid, an --out-dir that cannot be written',
  },
});

const OPTIONS = {
  base: { type: 'string', multiple: true },
  history: { type: 'string', multiple: true },
  'out-dir': { type: 'string' },
  'run-url': { type: 'string' },
} as const;

export async function main(argv: string[]): Promise<ExitCode> {
  const parsed = parseCommandLine(argv, OPTIONS, HELP);
  if (!parsed) return EXIT.ok;
  const { values, positionals } = parsed;
  if (!values['out-dir'] || positionals.length === 0) {
    throw new UsageError(`Expected --out-dir and at least one results file\n\n${HELP}`);
  }
  const runs = readGpuResults(positionals);
  const bases = (values.base ?? []).map(loadBaseRun);
  for (const b of bases) if (!b.results) console.warn(`fusebench: ignoring a base run: ${logText(b.why)}`);
  const md = join(values['out-dir'], MERGED_MARKDOWN);
  const comment = join(values['out-dir'], MERGED_COMMENT);
  writeFileAtomic(md, renderMultiGpuMarkdown(runs, historySections(runs, values.history ?? [], values['out-dir'])));
  writeFileAtomic(comment, renderPrComment(pairWithBases(runs, bases), { runUrl: values['run-url'] }));
  console.log(
    `merged ${runs.length} GPU${runs.length === 1 ? '' : 's'} (${runs.map((r) => logText(r.device.name)).join(', ')}): wrote ${md} and ${comment}`,
  );
  return EXIT.ok;
}

/**
 * Each GPU's history section (device slug → Markdown), its charts written under the output folder. Broken
 * lines are named and skipped; a history of a device with no results here is named and left out.
 */
function historySections(runs: ResultsFile[], files: string[], outDir: string): Map<string, string> {
  const bySlug = new Map<string, HistoryRecord[]>();
  for (const f of files) {
    const { records, problems } = readHistory(f);
    for (const p of problems) console.warn(`fusebench: ${logText(p)}`);
    for (const { record } of records)
      bySlug.set(record.device.slug, [...(bySlug.get(record.device.slug) ?? []), record]);
  }
  const sections = new Map<string, string>();
  for (const [slug, records] of bySlug) {
    const run = runs.find((r) => r.device.slug === slug);
    if (!run || !isPlainSlug(slug)) {
      console.warn(
        `fusebench: ignoring the history of ${logText(JSON.stringify(slug))}: no results of that device here`,
      );
      continue;
    }
    const { markdown, images } = renderHistorySection(records, {
      imageDir: `${HISTORY_CHARTS}/${slug}`,
      device: run.device.name,
    });
    for (const img of images) writeFileAtomic(join(outDir, img.path), img.svg);
    if (markdown) sections.set(slug, markdown);
  }
  return sections;
}

runIfEntry(import.meta.url, main);
