/**
 * `npm run comment -- --results <file> [--base <file>] --out <comment.md> [--run-url <url>]`: renders
 * the PR comment of one GPU's results against the base branch's results and the stored baseline.
 * Only this entry point sets the exit code.
 */
import { writeFileAtomic } from '../base/atomic-write.ts';
import { UsageError } from '../base/cli-args.ts';
import { logText } from '../base/log-text.ts';
import { loadBaseRun, pairWithBases } from '../report/load-runs.ts';
import { renderPrComment } from '../report/pr-comment.ts';
import { readResults } from '../results/results.ts';
import { parseCommandLine, runCommand } from './command-line.ts';

const HELP = `Usage: npm run comment -- --results <file> [--base <file>] --out <comment.md> [--run-url <url>]
  --results <file>   this run's fusebench-results.json
  --base <file>      the base branch's latest fusebench-results.json (missing or unreadable: no base run)
  --out <file>       where the comment's Markdown goes
  --run-url <url>    link to the workflow run, shown in the comment`;

const OPTIONS = {
  results: { type: 'string' },
  base: { type: 'string' },
  out: { type: 'string' },
  'run-url': { type: 'string' },
} as const;

async function main(): Promise<void> {
  const parsed = parseCommandLine(process.argv.slice(2), OPTIONS, HELP);
  if (!parsed) return;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`Unexpected argument '${positionals[0]}'\n\n${HELP}`);
  if (!values.results || !values.out) throw new UsageError(`Expected --results and --out\n\n${HELP}`);
  const results = readResults(values.results);
  const bases = values.base ? [loadBaseRun(values.base)] : [];
  // The base must be of the same GPU: a delta across GPU models would compare hardware, not code.
  const [run] = pairWithBases([results], bases);
  if (!run) throw new Error('unreachable: one results file gives one run');
  if (values.base && !run.base.results) console.warn(`fusebench: no base run: ${logText(run.base.why)}`);
  writeFileAtomic(values.out, renderPrComment([run], { runUrl: values['run-url'] }));
  console.log(`wrote ${values.out}`);
}

runCommand(main);
