/**
 * `fusebench site --history <dir> --results <files...> --out <dir>`: builds the dashboard, one
 * self-contained HTML page (src/site/): per GPU the latest run's table, the roofline per precision, and
 * each case's speedup and fused time over commits. A history line or a results file that fails its schema
 * is named on the page and on stderr and left out; the rest is rendered.
 */

import { UsageError } from '../base/cli-args.ts';
import { logText } from '../base/log-text.ts';
import { buildSite, SITE_PAGE } from '../site/build-site.ts';
import { EXIT, type ExitCode, parseCommandLine, renderHelp, runIfEntry } from './command-line.ts';

const HELP = renderHelp({
  usage: `Usage: fusebench site --history <dir> [--results <results.json>...] --out <dir> [--repo-url <url>]
Builds the dashboard: one self-contained ${SITE_PAGE} (Vega inlined; no server, no network at view time).
  --history <dir>     a folder of history files, <device-slug>.jsonl (perf.yml keeps them on the perf-history
                      branch, under history/); an empty folder gives a page that says the history is empty
  --results <file>... each GPU's latest fusebench-results.json (repeatable; one per GPU): its table and roofline
  --out <dir>         where ${SITE_PAGE} is written
  --repo-url <url>    https://github.com/<owner>/<repo>: commits link to their page there
  -h, --help          this text
A history line or results file that fails its schema is named on the page and on stderr, and left out.`,
  examples: [
    'fusebench site --history perf-history/history --results perf-out/fusebench-results.json --out site',
    'fusebench site --history history --results h100.json h200.json --out site --repo-url https://github.com/o/r',
  ],
  exits: {
    ok: `${SITE_PAGE} was written from every file given (broken history lines are named and skipped, as \`history\` does)`,
    usage: `a bad flag, a missing history folder, an --out that cannot be written; or a results file that cannot be read or fails its schema (${SITE_PAGE} is still written without it)`,
  },
});

const OPTIONS = {
  history: { type: 'string' },
  results: { type: 'string', multiple: true },
  out: { type: 'string' },
  'repo-url': { type: 'string' },
} as const;

export async function main(argv: string[]): Promise<ExitCode> {
  const parsed = parseCommandLine(argv, OPTIONS, HELP);
  if (!parsed) return EXIT.ok;
  const { values, positionals } = parsed;
  // --results takes several files: `--results a.json b.json` leaves b.json as a positional.
  const results = [...(values.results ?? []), ...positionals];
  if (!values.history || !values.out) throw new UsageError(`Expected --history and --out\n\n${HELP}`);
  const repoUrl = values['repo-url'];
  if (repoUrl !== undefined && !/^https?:\/\/[^\s/]+/.test(repoUrl))
    throw new UsageError(`Expected an http(s) URL for --repo-url but received '${logText(repoUrl)}'`);
  const built = buildSite(values.history, results, values.out, repoUrl ? { repoUrl } : {});
  for (const p of built.problems) console.warn(`fusebench: ${logText(p)}`);
  if (!built.hasHistory)
    console.warn(`fusebench: ${logText(values.history)} holds no run: the page says the history is empty`);
  console.log(
    `wrote ${logText(built.file)}: ${built.devices.length} GPU${built.devices.length === 1 ? '' : 's'}${built.devices.length > 0 ? ` (${built.devices.map((d) => logText(d)).join(', ')})` : ''}${built.problems.length > 0 ? `, ${built.problems.length} file${built.problems.length === 1 ? '' : 's'} or line${built.problems.length === 1 ? '' : 's'} left out` : ''}`,
  );
  // Broken history lines are skipped and named, as `fusebench history` does; a results file passed by name
  // that cannot be used is an input error, though the page is written without it.
  return built.resultsLeftOut > 0 ? EXIT.usage : EXIT.ok;
}

runIfEntry(import.meta.url, main);
