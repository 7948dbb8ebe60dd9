/**
 * `fusebench site --history <dir> --results <files...> --out <dir>`: builds the dashboard, one
 * self-contained HTML page (src/site/, docs/site.md): per GPU the latest run's table, the roofline per
 * precision, and each case's speedup and fused time over commits. A history line, results file or baseline
 * file that fails its schema, or an older run of a GPU another results file holds, is named on the page and on
 * stderr and left out; the rest is rendered.
 */
import { existsSync, statSync } from 'node:fs';
import { checkWritableDir, missingDirs } from '../base/atomic-write.ts';
import { checkOutput, onceEach, positiveArg, UsageError, urlArg } from '../base/cli-args.ts';
import { logLines, logText } from '../base/log-text.ts';
import { removeIfEmpty } from '../base/signal-cleanup.ts';
import { buildSite, SITE_PAGE } from '../site/build-site.ts';
import { EXIT, type ExitCode, parseCommandLine, renderHelp, runIfEntry } from './command-line.ts';

/** How many commits the dashboard's history charts show unless told otherwise. */
const SITE_COMMITS = 50;
/** The most commits --last takes (as `fusebench history`). */
const MAX_LAST = 1000;

const HELP = renderHelp({
  usage: `Usage: fusebench site --history <dir> [--results <results.json>...] --out <dir>
                      [--baselines <dir>] [--repo-url <url>] [--last N]
Builds the dashboard: one self-contained ${SITE_PAGE} (Vega inlined; no server, no network at view time).
  --history <dir>     a folder of history files, <device-slug>.jsonl (perf.yml keeps them on the perf-history
                      branch, under history/); an empty folder gives a page that says the history is empty
  --results <file>... each GPU's latest fusebench-results.json (one per GPU): its table and its roofline
  --out <dir>         where ${SITE_PAGE} is written
  --baselines <dir>   the baseline files (baselines/ of this repository): the SAME band of each history chart
  --repo-url <url>    https://github.com/<owner>/<repo>: a click on a point opens its commit there
  --last N            commits per history chart (default ${SITE_COMMITS})
  -h, --help          this text
A history line, results file or baseline file that fails its schema, or an older run of a GPU another results
file holds, is named on the page and on stderr, and left out; the rest is rendered.`,
  examples: [
    'fusebench site --history perf-history/history --results perf-out/fusebench-results.json --out site',
    'fusebench site --history history --results h100.json h200.json --baselines baselines --out site \\\n' +
      '    --repo-url https://github.com/<owner>/<repo>',
  ],
  exits: {
    ok: `${SITE_PAGE} was written from every file given (broken history lines are named and skipped, as \`history\` does)`,
    usage: `a bad flag, a missing history folder, an --out that cannot be written; or a results or baseline file that cannot be read or fails its schema, or an older run of a GPU another file holds (${SITE_PAGE} is still written without it)`,
  },
});

const OPTIONS = {
  history: { type: 'string' },
  results: { type: 'string', multiple: true },
  out: { type: 'string' },
  baselines: { type: 'string' },
  'repo-url': { type: 'string' },
  last: { type: 'string' },
} as const;

const isFolder = (path: string) => existsSync(path) && statSync(path).isDirectory();
const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** The words that follow a --results value up to the next option: the results files given after the first. */
function resultsRuns(argv: readonly string[]): Set<string> {
  const words = new Set<string>();
  let inRun = false;
  for (const [i, a] of argv.entries()) {
    if (a === '--') break;
    if (a.startsWith('-')) {
      inRun = a === '--results' || a.startsWith('--results=');
      continue;
    }
    if (inRun && argv[i - 1] !== '--results') words.add(a);
  }
  return words;
}

export async function main(argv: string[]): Promise<ExitCode> {
  const parsed = parseCommandLine(argv, OPTIONS, HELP);
  if (!parsed) return EXIT.ok;
  const { values, positionals } = parsed;
  // `--results a.json b.json`: the files after the first are positionals; any other is a mistake.
  const listed = resultsRuns(argv);
  const stray = positionals.find((p) => !listed.has(p));
  if (stray !== undefined) throw new UsageError(`Unexpected argument '${logText(stray)}'\n\n${HELP}`);
  const resultsFiles = onceEach([...(values.results ?? []), ...positionals]);
  if (!values.history || !values.out) throw new UsageError(`Expected --history and --out\n\n${HELP}`);
  const repoUrl = urlArg('repo-url', values['repo-url']);
  if (values.baselines !== undefined && !isFolder(values.baselines))
    throw new UsageError(
      `Expected a folder of baseline files for --baselines but ${logText(values.baselines)} is none`,
    );
  const last = positiveArg('last', values.last, true, MAX_LAST) ?? SITE_COMMITS;
  // Before anything is read or rendered, naming the flag (an fs error named only the path).
  const out = values.out;
  const made = missingDirs(out);
  checkOutput(`--out ${out} cannot hold the dashboard`, () => checkWritableDir(out));
  try {
    return writeSite({ history: values.history, baselines: values.baselines }, resultsFiles, out, last, repoUrl);
  } finally {
    removeIfEmpty(made); // refused before writing (a missing history folder): no empty folder left
  }
}

/** The options site reads, as the command line gave them. */
interface SiteValues {
  history: string;
  baselines?: string | undefined;
}

function writeSite(
  values: SiteValues,
  resultsFiles: string[],
  out: string,
  last: number,
  repoUrl: string | undefined,
): ExitCode {
  const built = buildSite(
    {
      historyDir: values.history,
      resultsFiles,
      ...(values.baselines !== undefined ? { baselinesDir: values.baselines } : {}),
    },
    out,
    { last, ...(repoUrl ? { repositoryUrl: repoUrl } : {}) },
  );
  for (const p of [...built.fileProblems, ...built.historyProblems]) console.warn(`fusebench: ${logLines(p)}`);
  if (!built.hasHistory)
    console.warn(`fusebench: ${logText(values.history)} holds no run: the page says the history is empty`);
  const left = built.fileProblems.length + built.historyProblems.length;
  console.log(
    `wrote ${logText(built.file)}: ${plural(built.devices.length, 'GPU')}${built.devices.length > 0 ? ` (${built.devices.map((d) => logText(d)).join(', ')})` : ''}${left > 0 ? `; ${plural(left, 'file or line')} left out, named above and on the page` : ''}`,
  );
  // Broken history lines are skipped and named, as `fusebench history` does; a results or baseline file
  // passed by the user that cannot be used is an input error, though the page is written without it.
  return built.fileProblems.length > 0 ? EXIT.usage : EXIT.ok;
}

runIfEntry(import.meta.url, main);
