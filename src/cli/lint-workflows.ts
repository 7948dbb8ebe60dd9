/**
 * `fusebench lint-workflows [--require-shellcheck] [files...]` (`npm run lint:workflows -- ...`): actionlint
 * and shellcheck over .github/workflows (see workflow-lint.ts). Prints `file:line:col: message [kind]` per
 * problem; exits 1 when there is one, 2 when it cannot check.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { UsageError } from '../base/cli-args.ts';
import { logText } from '../base/log-text.ts';
import { readTextFile } from '../base/read-text.ts';
import {
  actionlint,
  checkConcurrencyQueues,
  configuredLabels,
  dropConfiguredLabels,
  type Finding,
  hasShellcheck,
  runScripts,
  shellcheck,
} from '../github/workflow-lint.ts';
import { EXIT, type ExitCode, parseCommandLine, renderHelp, runIfEntry } from './command-line.ts';

const WORKFLOWS = '.github/workflows';
const CONFIG = '.github/actionlint.yaml';

const HELP = renderHelp({
  usage: `Usage: fusebench lint-workflows [--require-shellcheck] [<workflow.yml>...]
Checks GitHub workflows with actionlint, and their run: scripts with shellcheck when it is on PATH
(default: every file of ${WORKFLOWS}).
  --require-shellcheck  fail when shellcheck is not on PATH instead of skipping it
  -h, --help            this text`,
  examples: [
    'fusebench lint-workflows',
    'fusebench lint-workflows --require-shellcheck',
    `npm run lint:workflows -- ${WORKFLOWS}/perf.yml`,
  ],
  exits: {
    ok: 'no problem found',
    regression: 'actionlint or shellcheck found a problem (each printed as file:line:col)',
    usage: 'a bad flag, a file that cannot be read, or shellcheck missing with --require-shellcheck',
  },
});

/**
 * The repository whose workflows are checked: the nearest folder, from `from` up, that has a
 * .github/workflows folder (as git finds its .git), so the command works from a subfolder too.
 */
function repositoryRoot(from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (statSync(join(dir, WORKFLOWS), { throwIfNoEntry: false })?.isDirectory()) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

export async function main(argv: string[]): Promise<ExitCode> {
  const parsed = parseCommandLine(argv, { 'require-shellcheck': { type: 'boolean' } }, HELP);
  if (!parsed) return EXIT.ok;
  const { values, positionals } = parsed;
  const cwd = process.cwd();
  const root = repositoryRoot(cwd);
  if (positionals.length === 0 && !root) {
    throw new UsageError(`no ${WORKFLOWS} folder in ${cwd} or any folder above it; name the workflow files to check`);
  }
  // Named as from where the command runs: `.github/workflows/perf.yml` at the root, `../.github/...` below it.
  const files =
    positionals.length > 0 || !root
      ? positionals
      : readdirSync(join(root, WORKFLOWS))
          .filter((f) => /\.ya?ml$/.test(f))
          .sort()
          .map((f) => relative(cwd, join(root, WORKFLOWS, f)));
  // Each file's runner labels from its own repository's actionlint.yaml (found from the file, as for the
  // folder), read once a repository.
  const labelsByHome = new Map<string | undefined, string[]>();
  const labelsOf = (file: string): string[] => {
    const home = repositoryRoot(dirname(file)) ?? root;
    let labels = labelsByHome.get(home);
    if (!labels) {
      const config = home ? join(home, CONFIG) : undefined;
      labels = config && existsSync(config) ? configuredLabels(readTextFile(config)) : [];
      labelsByHome.set(home, labels);
    }
    return labels;
  };
  const withShellcheck = hasShellcheck();
  if (!withShellcheck && values['require-shellcheck']) {
    throw new Error('shellcheck is not on PATH (Debian: apt-get install shellcheck)');
  }
  const findings: Finding[] = [];
  for (const file of files) {
    const text = readTextFile(file);
    findings.push(
      ...checkConcurrencyQueues(dropConfiguredLabels(await actionlint(text, file), labelsOf(file)), text, file),
    );
    if (withShellcheck) findings.push(...shellcheck(runScripts(text, file)));
  }
  findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  // A finding quotes the workflow (a job's key, a step's script): one line each, no workflow command, no escape.
  for (const f of findings) console.log(logText(`${f.file}:${f.line}:${f.column}: ${f.message} [${f.kind}]`, 10_000));
  const checked = withShellcheck ? 'actionlint + shellcheck' : 'actionlint only (shellcheck not found)';
  console.log(`lint:workflows: ${files.length} file(s), ${findings.length} problem(s); ${checked}`);
  return findings.length > 0 ? EXIT.regression : EXIT.ok;
}

runIfEntry(import.meta.url, main);
