/**
 * `fusebench comment --results <file> [--base <file>] --out <comment.md> [--run-url <url>]` (`npm run
 * comment -- ...`): renders the PR comment of one GPU's results against the base branch's results and the
 * stored baseline. It reports the verdicts and does not judge them: exit 0 once written, 2 on a bad input.
 */
import { checkNotInput, checkWritableFile, writeFileAtomic } from '../base/atomic-write.ts';
import { checkOutput, pathArg, UsageError, urlArg } from '../base/cli-args.ts';
import { logText } from '../base/log-text.ts';
import { loadBaseRun, pairWithBases } from '../report/load-runs.ts';
import { renderPrComment } from '../report/pr-comment.ts';
import { readResults } from '../results/results.ts';
import { EXIT, type ExitCode, parseCommandLine, renderHelp, runIfEntry } from './command-line.ts';

const HELP = renderHelp({
  usage: `Usage: fusebench comment --results <file> [--base <file>] --out <comment.md> [--run-url <url>]
Writes the pull-request comment of one GPU's run (Markdown).
  --results <file>   this run's fusebench-results.json
  --base <file>      the base branch's latest fusebench-results.json (missing or unreadable: no base run)
  --out <file>       where the comment's Markdown goes
  --run-url <url>    link to the workflow run, shown in the comment
  -h, --help         this text`,
  examples: [
    'fusebench comment --results perf-out/fusebench-results.json --out comment.md',
    'fusebench comment --results head.json --base base.json --out comment.md --run-url "$RUN_URL"',
  ],
  exits: {
    ok: 'the comment was written (it shows SLOWER cases; the perf run is what fails on them)',
    usage: 'a bad flag, a results file that cannot be read or is not valid, an --out that cannot be written',
  },
});

const OPTIONS = {
  results: { type: 'string' },
  base: { type: 'string' },
  out: { type: 'string' },
  'run-url': { type: 'string' },
} as const;

export async function main(argv: string[]): Promise<ExitCode> {
  const parsed = parseCommandLine(argv, OPTIONS, HELP);
  if (!parsed) return EXIT.ok;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`Unexpected argument '${positionals[0]}'\n\n${HELP}`);
  const [resultsFile, out] = [pathArg('results', values.results), pathArg('out', values.out)];
  if (!resultsFile || !out) throw new UsageError(`Expected --results and --out\n\n${HELP}`);
  const runUrl = urlArg('run-url', values['run-url']);
  const results = readResults(resultsFile);
  // Before anything is rendered (and after --results, so a refused command makes no folder for --out).
  const inputs = [resultsFile, ...(values.base ? [values.base] : [])];
  checkOutput('--out', () => {
    checkWritableFile(out);
    checkNotInput(out, inputs);
  });
  const bases = values.base ? [loadBaseRun(values.base)] : [];
  // The base must be of the same GPU: a delta across GPU models would compare hardware, not code.
  const [run] = pairWithBases([results], bases);
  if (!run) throw new Error('unreachable: one results file gives one run');
  if (values.base && !run.base.results) console.warn(`fusebench: no base run: ${logText(run.base.why)}`);
  writeFileAtomic(out, renderPrComment([run], { runUrl }));
  console.log(`wrote ${logText(out)}`);
  return EXIT.ok;
}

runIfEntry(import.meta.url, main);
