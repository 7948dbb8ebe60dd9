// `npm run comment` and `npm run merge` as a workflow runs them: files in, Markdown out, exit codes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PR_COMMENT_MARKER } from '../../src/report/pr-comment.ts';
import { tableProblems } from '../support/markdown-check.ts';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(root, 'suites', 'fixtures');
const h200 = join(fixtures, 'h200-results.json');
const mixed = join(fixtures, 'h200-mixed-verdicts.json');

function run(cli: 'comment' | 'merge', args: string[]) {
  const r = spawnSync(
    process.execPath,
    ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', `src/cli/${cli}.ts`, ...args],
    // Killed after a minute: a write that never returns fails the test instead of hanging the suite.
    { cwd: root, encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' },
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = () => mkdtempSync(join(tmpdir(), 'fusebench-cli-'));

describe('npm run comment', () => {
  test('renders the comment against a base run', () => {
    const out = join(tmp(), 'comment.md');
    const r = run('comment', [
      '--results',
      mixed,
      '--base',
      h200,
      '--out',
      out,
      '--run-url',
      'https://example.test/run/1',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const md = readFileSync(out, 'utf8');
    expect(md.split('\n')[0]).toBe(PR_COMMENT_MARKER);
    // Δ vs base: the gate's decision of this run's samples against the base run's (99% interval).
    expect(md).toMatch(
      /\| GELU \+ scale \| 32x512x768 \| fp32 \| 1\.91x \| 1\.52x \[1\.50, 1\.53\] \| 🔴 SLOWER speedup −20\.5% \[−2\d\.\d%, −1\d\.\d%\], fused time \+[\d.]+% \[[^\]]+\] \| 1\.91x \| 🔴 SLOWER \(−20\.4%\) \|/,
    );
    expect(tableProblems(md)).toEqual([]);
  });

  test('without a base artifact the comment says there is no base run', () => {
    const dir = tmp();
    const out = join(dir, 'comment.md');
    const r = run('comment', ['--results', h200, '--base', join(dir, 'base', 'fusebench-results.json'), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/no base run: the base branch's results file .* does not exist/);
    expect(readFileSync(out, 'utf8')).toContain('**No base run:**');
  });

  test('a results file that fails the schema is an input error (exit 2) naming the file and the field', () => {
    const dir = tmp();
    const bad = join(dir, 'bad.json');
    const json = JSON.parse(readFileSync(h200, 'utf8'));
    json.cases[1].speedup.estimate = 'quick';
    writeFileSync(bad, JSON.stringify(json));
    const r = run('comment', ['--results', bad, '--out', join(dir, 'c.md')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad} is not valid:\n  cases[1].speedup.estimate: `);
  });

  test('a results file from a newer fusebench says so and what to do', () => {
    const dir = tmp();
    const newer = join(dir, 'newer.json');
    writeFileSync(newer, JSON.stringify({ ...JSON.parse(readFileSync(h200, 'utf8')), schemaVersion: 7 }));
    const r = run('comment', ['--results', newer, '--out', join(dir, 'c.md')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${newer} is not valid:\n  schemaVersion: written by a newer fusebench (schema 7; this one reads 1): update fusebench`,
    );
  });

  test('a missing flag is a usage error with the help text', () => {
    const r = run('comment', ['--results', h200]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Expected --results and --out\n\nUsage: fusebench comment/);
  });
});

describe('npm run merge', () => {
  test('writes one BENCHMARK_RESULTS.md for the GPUs, their roofline charts, and one comment covering all of them', () => {
    const dir = tmp();
    const v100 = JSON.parse(readFileSync(h200, 'utf8'));
    v100.device.name = 'Tesla V100-SXM2-32GB';
    v100.device.slug = 'tesla-v100-sxm2-32gb';
    writeFileSync(join(dir, 'v100.json'), JSON.stringify(v100));
    const r = run('merge', ['--out-dir', join(dir, 'merged'), '--base', h200, mixed, join(dir, 'v100.json')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('merged 2 GPUs (NVIDIA H200, Tesla V100-SXM2-32GB)');
    const md = readFileSync(join(dir, 'merged', 'BENCHMARK_RESULTS.md'), 'utf8');
    expect(md).toMatch(/^### NVIDIA H200$/m);
    expect(md).toMatch(/^### Tesla V100-SXM2-32GB$/m);
    expect(readdirSync(join(dir, 'merged', 'benchmark-charts'))).toEqual([
      'roofline-nvidia-h200-fp32.svg',
      'roofline-tesla-v100-sxm2-32gb-fp32.svg',
    ]);
    const comment = readFileSync(join(dir, 'merged', 'pr-comment.md'), 'utf8');
    expect(comment.split('\n')[0]).toBe(PR_COMMENT_MARKER);
    expect(comment).toContain('2 GPUs: NVIDIA H200, Tesla V100-SXM2-32GB.');
    expect(comment).toContain('| Δ vs base |');
    expect(comment).toContain("**No base run:** the base branch's perf results include none of Tesla V100-SXM2-32GB.");
    expect(tableProblems(md)).toEqual([]);
    expect(tableProblems(comment)).toEqual([]);
  });

  test('a results file given twice (a path written two ways) is read once, with a warning: nothing is left out', () => {
    const dir = tmp();
    const again = join(dirname(mixed), '.', basename(mixed));
    const r = run('merge', ['--out-dir', join(dir, 'merged'), mixed, again]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`fusebench: ${again} is given more than once; it is read once`);
    expect(r.stdout).toContain('merged 1 GPU (NVIDIA H200)');
    expect(readFileSync(join(dir, 'merged', 'BENCHMARK_RESULTS.md'), 'utf8')).not.toContain('Left out');
  });

  test('a results file that fails its schema is named and left out; the rest is merged and written (exit 2)', () => {
    const dir = tmp();
    const cut = join(dir, 'cut.json');
    writeFileSync(cut, readFileSync(h200, 'utf8').slice(0, 1000));
    const bad = join(dir, 'bad.json');
    const json = JSON.parse(readFileSync(h200, 'utf8'));
    json.cases[1].speedup.estimate = 'quick';
    writeFileSync(bad, JSON.stringify(json));
    const r = run('merge', ['--out-dir', join(dir, 'merged'), mixed, cut, bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`fusebench: leaving out ${cut}: could not be read: is not valid JSON`);
    expect(r.stderr).toContain(`fusebench: leaving out ${bad}: could not be read: is not valid:`);
    expect(r.stderr).toContain('cases[1].speedup.estimate: ');
    const md = readFileSync(join(dir, 'merged', 'BENCHMARK_RESULTS.md'), 'utf8');
    expect(md).toContain('**GPU** NVIDIA H200');
    expect(md).toMatch(/^> \*\*Left out:\*\* `.*cut\.json` could not be read: is not valid JSON/m);
    expect(md).toMatch(
      /^> \*\*Left out:\*\* `.*bad\.json` could not be read: is not valid: cases\\\[1\\\]\.speedup\.estimate: /m,
    );
    // The PR comment names them too: a GPU is never silently missing from it.
    const comment = readFileSync(join(dir, 'merged', 'pr-comment.md'), 'utf8');
    expect(comment).toContain(PR_COMMENT_MARKER);
    expect(comment).toMatch(/^> \*\*Left out:\*\* `.*cut\.json` could not be read: is not valid JSON/m);
    expect(comment).toMatch(/^> \*\*Left out:\*\* `.*bad\.json` could not be read: is not valid: /m);
  });

  test('no readable results file: nothing is written (exit 2)', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'cut.json'), readFileSync(h200, 'utf8').slice(0, 1000));
    const r = run('merge', ['--out-dir', join(dir, 'merged'), join(dir, 'cut.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('none of the results files could be read; nothing to merge');
    expect(existsSync(join(dir, 'merged'))).toBe(false);
  });

  // writeFileAtomic makes folders one level at a time: Node's recursive mkdir spins forever on ENOENT
  // under an existing parent such as /proc, so this merge never returned.
  test.runIf(process.platform === 'linux')(
    'an --out-dir that cannot be made is an error (exit 2) naming it',
    () => {
      const out = `/proc/fusebench-merge-${process.pid}`;
      const r = run('merge', ['--out-dir', out, h200]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`mkdir '${out}'`);
    },
    90_000,
  );
});
