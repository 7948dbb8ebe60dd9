/**
 * `npm run lint:workflows [-- --require-shellcheck] [files...]`: actionlint and shellcheck over
 * .github/workflows (see workflow-lint.ts). Prints `file:line:col: message [kind]` per problem; exits 1
 * when there is one. Only this entry point sets the exit code.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  actionlint,
  configuredLabels,
  dropConfiguredLabels,
  type Finding,
  hasShellcheck,
  runScripts,
  shellcheck,
} from '../github/workflow-lint.ts';

const WORKFLOWS = '.github/workflows';
const CONFIG = '.github/actionlint.yaml';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: { 'require-shellcheck': { type: 'boolean' } },
  });
  const files =
    positionals.length > 0
      ? positionals
      : readdirSync(WORKFLOWS)
          .filter((f) => /\.ya?ml$/.test(f))
          .sort()
          .map((f) => join(WORKFLOWS, f));
  const labels = existsSync(CONFIG) ? configuredLabels(readFileSync(CONFIG, 'utf8')) : [];
  const withShellcheck = hasShellcheck();
  if (!withShellcheck && values['require-shellcheck']) {
    throw new Error('shellcheck is not on PATH (Debian: apt-get install shellcheck)');
  }
  const findings: Finding[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    findings.push(...dropConfiguredLabels(await actionlint(text, file), labels));
    if (withShellcheck) findings.push(...shellcheck(runScripts(text, file)));
  }
  findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  for (const f of findings) console.log(`${f.file}:${f.line}:${f.column}: ${f.message} [${f.kind}]`);
  const checked = withShellcheck ? 'actionlint + shellcheck' : 'actionlint only (shellcheck not found)';
  console.log(`lint:workflows: ${files.length} file(s), ${findings.length} problem(s); ${checked}`);
  if (findings.length > 0) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(`lint:workflows: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 2;
});
