/**
 * `npm run merge -- --out-dir <dir> [--base <file>]... [--run-url <url>] <results.json>...`: merges
 * several GPUs' results into one BENCHMARK_RESULTS.md with a section per GPU and one PR comment
 * covering all of them (each GPU against the base run of the same device). Only this entry point
 * sets the exit code.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeFileAtomic } from '../atomic-write.ts';
import { UsageError } from '../options.ts';
import { renderMultiGpuMarkdown } from '../report/benchmark-markdown.ts';
import { loadBaseRun, pairWithBases, readGpuResults } from '../report/load-runs.ts';
import { renderPrComment } from '../report/pr-comment.ts';

// The files merge writes into --out-dir.
const MERGED_MARKDOWN = 'BENCHMARK_RESULTS.md';
const MERGED_COMMENT = 'pr-comment.md';

const HELP = `Usage: npm run merge -- --out-dir <dir> [--base <file>]... [--run-url <url>] <results.json>...
  <results.json>...  one fusebench-results.json per GPU
  --base <file>      a base-branch fusebench-results.json (repeatable; matched to GPUs by device)
  --out-dir <dir>    where ${MERGED_MARKDOWN} and ${MERGED_COMMENT} are written
  --run-url <url>    link to the workflow run, shown in the comment`;

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(process.argv.slice(2));
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n\n${HELP}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (!values['out-dir'] || positionals.length === 0) {
    throw new UsageError(`Expected --out-dir and at least one results file\n\n${HELP}`);
  }
  const runs = readGpuResults(positionals);
  const bases = (values.base ?? []).map(loadBaseRun);
  for (const b of bases) if (!b.results) console.warn(`fusebench: ignoring a base run: ${b.why}`);
  const md = join(values['out-dir'], MERGED_MARKDOWN);
  const comment = join(values['out-dir'], MERGED_COMMENT);
  writeFileAtomic(md, renderMultiGpuMarkdown(runs));
  writeFileAtomic(comment, renderPrComment(pairWithBases(runs, bases), { runUrl: values['run-url'] }));
  console.log(
    `merged ${runs.length} GPU${runs.length === 1 ? '' : 's'} (${runs.map((r) => r.device.name).join(', ')}): wrote ${md} and ${comment}`,
  );
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      base: { type: 'string', multiple: true },
      'out-dir': { type: 'string' },
      'run-url': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = e instanceof UsageError ? 2 : 1;
});
