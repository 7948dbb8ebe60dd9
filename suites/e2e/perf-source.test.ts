// The commit and branch a run names, from the environment end to end: a value that is not what its
// variable names is refused before anything is made or measured (exit 2, the variable named, the value
// quoted on one line); a well-formed one reaches the results file. Every shape is skipped (--max-elements 1).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { currentBranch, currentCommit } from '../../src/base/source.ts';
import { readResults } from '../../src/results/results.ts';
import { runPerf } from '../support/perf-cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'fusebench-source-'));
const quick = ['--backend', 'cpu', '--case', 'rmsnorm_residual', '--dtype', 'fp32', '--max-elements', '1'];
// The four variables as the test sets them, whatever the environment it runs in holds.
const unset = { FUSEBENCH_COMMIT: '', GITHUB_SHA: '', FUSEBENCH_BRANCH: '', GITHUB_REF_NAME: '' };

describe('the commit and branch from the environment', () => {
  test.each([
    ['FUSEBENCH_COMMIT', 'ref: refs/heads/main'],
    ['GITHUB_SHA', '3f6141c\n::error::injected'],
    ['FUSEBENCH_BRANCH', 'main\n::warning::x'],
  ])('%s set to %j is refused up front, exit 2', (name, value) => {
    const out = join(tmp, `refused-${name}`);
    const r = runPerf([...quick, '--out-dir', out], undefined, { ...unset, [name]: value });
    expect(r.status).toBe(2);
    expect(existsSync(out), 'the check comes before anything is made').toBe(false);
    expect(r.stderr).toContain(`fusebench: Expected ${name} to be a`);
    expect(r.stderr).toContain(`but received "${value.split('\n')[0]}`);
    // One line, and no workflow command: the newline is quoted, and "::" escaped as every log line's is.
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/::(error|warning)::/);
    expect(r.stdout).not.toContain('fusebench on');
  });

  test('well-formed values are what the results file names', () => {
    const out = join(tmp, 'named');
    const r = runPerf([...quick, '--out-dir', out], undefined, {
      ...unset,
      FUSEBENCH_COMMIT: '4bb25af0c1d2+dirty',
      FUSEBENCH_BRANCH: 'perf/decode-step',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(readResults(join(out, 'fusebench-results.json')).source).toEqual({
      commit: '4bb25af0c1d2+dirty',
      branch: 'perf/decode-step',
    });
  }, 120_000);

  test("with none set, the commit and branch are fusebench's own checkout's, not those of the folder perf runs in", () => {
    const other = mkdtempSync(join(tmpdir(), 'fusebench-other-repo-'));
    const git = (...args: string[]) => spawnSync('git', ['-C', other, ...args], { encoding: 'utf8' });
    git('init', '-q', '-b', 'someone-elses');
    git('-c', 'user.name=x', '-c', 'user.email=x@example.com', 'commit', '-q', '--allow-empty', '-m', 'other');
    const out = join(tmp, 'elsewhere');
    const r = spawnSync(
      process.execPath,
      [join(import.meta.dirname, '..', '..', 'bin', 'fusebench.mjs'), 'perf', ...quick, '--out-dir', out],
      { cwd: other, encoding: 'utf8', env: { ...process.env, GITHUB_ACTIONS: '', ...unset } },
    );
    expect(r.status, r.stderr).toBe(0);
    const branch = currentBranch(undefined, {});
    expect(readResults(join(out, 'fusebench-results.json')).source).toEqual({
      commit: currentCommit(undefined, {}),
      ...(branch ? { branch } : {}),
    });
    expect(currentCommit(other, {})).not.toBe(currentCommit(undefined, {}));
  }, 120_000);
});
