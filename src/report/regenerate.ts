/**
 * The commands that regenerate a report from a clean clone: the commit measured, `npm ci`, the perf run
 * with the options it was run with (its machine-local `--out-dir` replaced), and for several GPUs the merge
 * of their results. Text from the results files (the command, the commit, device names) is cut to one
 * line; the caller puts it in a code block (escape.ts `codeBlock`), whose fence no line can close. Pure.
 */
import { plainWords, SHELL_WORD_PATTERN } from '../base/shell-words.ts';
import type { ResultsFile } from '../results/results.ts';
import { plain } from './escape.ts';
import { fileSafe } from './report-files.ts';

/** The longest command line kept from a results file. */
const COMMAND_CHARS = 600;

/** `--out-dir` and its value, quoted or not (shell-words.ts writes the recorded command). */
const OUT_DIR = new RegExp(String.raw`(^|\s)--out-dir(?:=|\s+)${SHELL_WORD_PATTERN}`, 'g');

/**
 * The perf run's own options, without `npm run perf --` (or `fusebench perf`), without `--out-dir` and
 * without the options that write the baseline file (`--update-baselines`, `--add-baseline-run`):
 * regenerating a report must not change the baselines.
 */
function perfOptions(command: string): string | undefined {
  const one = plain(command, COMMAND_CHARS);
  const m = /^(?:npm run perf(?:\s+--)?|(?:npx )?fusebench perf)(?:\s+(.*))?$/.exec(one);
  const options = (m ? (m[1] ?? '') : one)
    .replace(OUT_DIR, '')
    .replace(/(^|\s)--(?:update-baselines|add-baseline-run)(?=\s|$)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  // The line is meant to be pasted into a shell: options and values made of plain characters only (no
  // quote, separator, substitution or redirection), else none of them.
  return plainWords(options) ? options : undefined;
}

/** `npm run perf -- <options>` (the empty ones left out), said so when the recorded options were left out. */
function npmPerf(options: (string | undefined)[], leftOut: boolean): string {
  const joined = options.filter(Boolean).join(' ');
  const note = leftOut ? '   # the recorded options are not plain perf options: left out' : '';
  return `npm run perf${joined ? ` -- ${joined}` : ''}${note}`;
}

/**
 * The command the run was started with: `npm run perf -- <its options>`, its output folder and baseline
 * options left out; a recorded command that is not plain options (a results file can hold anything) is
 * left out and said so.
 */
export function runAsCommand(results: ResultsFile): string {
  const own = perfOptions(results.command);
  return npmPerf([own], own === undefined);
}

/**
 * The command that reproduces the run, writing into `outDir` (the perf default, perf-out/, when absent):
 * its options as runAsCommand gives them, and for a run on the CPU backend `--backend cpu` in place of any
 * `--backend` it had. A run that chose the CPU by finding no GPU (`auto`) would run CUDA on a GPU machine.
 */
export function perfCommand(results: ResultsFile, outDir?: string): string {
  const own = perfOptions(results.command);
  const options =
    results.device.backend === 'cpu'
      ? ['--backend cpu', own?.replace(/(^|\s)--backend(?:=|\s+)\S+/g, '').trim()]
      : [own];
  return npmPerf([...options, ...(outDir ? [`--out-dir ${outDir}`] : [])], own === undefined);
}

/** The commit a run measured, for `git checkout`, or undefined when it is not a commit id ("unknown"). */
function checkoutOf(results: ResultsFile): string | undefined {
  const commit = results.source?.commit;
  if (!commit) return undefined;
  const sha = commit.endsWith('+dirty') ? commit.slice(0, -'+dirty'.length) : commit;
  return /^[0-9a-f]{4,40}$/i.test(sha) ? sha : undefined;
}

/**
 * The lines of a shell session that regenerate BENCHMARK_RESULTS.md (and its charts) in the working tree
 * of a clean clone: one GPU's run writes it in place; several GPUs' runs each write a folder, then merge.
 */
export function regenerateLines(runs: ResultsFile[]): string[] {
  const commits = [...new Set(runs.map(checkoutOf))];
  const [only] = commits;
  const dirty = runs.some((r) => r.source?.commit?.endsWith('+dirty'));
  const checkout =
    commits.length === 1 && only
      ? [`git checkout ${only}${dirty ? '   # measured with uncommitted changes on top of it' : ''}`]
      : [];
  const [single] = runs;
  if (runs.length === 1 && single) {
    return [...checkout, 'npm ci', `${perfCommand(single, '.')}   # on the ${plain(single.device.name, 80)}`];
  }
  const dirs = runs.map((r) => `perf-${fileSafe(r.device.slug)}`);
  return [
    ...checkout,
    'npm ci',
    ...runs.flatMap((r, i) => {
      const own = commits.length > 1 ? checkoutOf(r) : undefined;
      return [
        `# on the ${plain(r.device.name, 80)}${own ? `, at ${own}` : ''}:`,
        `${own ? `git checkout ${own} && ` : ''}${perfCommand(r, dirs[i])}`,
      ];
    }),
    '# then, with every folder in one place:',
    `npx fusebench merge --out-dir . ${dirs.map((d) => `${d}/fusebench-results.json`).join(' ')}`,
  ];
}
