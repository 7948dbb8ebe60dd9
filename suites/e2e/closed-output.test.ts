// A perf run whose reader goes away (`npm run perf | head`): it ends as SIGPIPE ends other commands,
// with 141 (128 + 13), no stack trace, and no run lock left in --out-dir for the next run to take over;
// once its measurement has ended, it first writes what it measured (results, baselines).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLOSED_OUTPUT } from '../../src/base/signal-cleanup.ts';
import { OUT_DIR_LOCK } from '../../src/run/previous-run.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** Runs `fusebench <command>` with `args`, closing `which` of its pipes after the first chunk read from it. */
function runAndClose(
  which: 'stdout' | 'stderr',
  args: string[],
  command = 'perf',
): Promise<{ code: number | null; other: string }> {
  const child = spawn(process.execPath, ['bin/fusebench.mjs', command, ...args], {
    cwd: ROOT,
    env: { ...process.env, GITHUB_ACTIONS: '', CI: '1' },
  });
  const closed = child[which];
  const kept = which === 'stdout' ? child.stderr : child.stdout;
  let other = '';
  kept.on('data', (d: Buffer) => {
    other += d.toString();
  });
  closed.once('data', () => closed.destroy());
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, other })));
}

describe('output closed under a perf run', () => {
  test('stderr closed after the first progress line: exit 141, the lock removed', async () => {
    const out = mkdtempSync(join(tmpdir(), 'fusebench-closed-'));
    const args = ['--backend', 'cpu', '--case', 'gelu_scale', '--dtype', 'fp32', '--budget-ms', '50'];
    const r = await runAndClose('stderr', [...args, '--out-dir', out]);
    expect(r.code).toBe(CLOSED_OUTPUT);
    expect(existsSync(join(out, OUT_DIR_LOCK))).toBe(false);
    // Ended at the next progress line: nothing reported, nothing written.
    expect(existsSync(join(out, 'fusebench-results.json'))).toBe(false);
    expect(r.other).not.toMatch(/EPIPE|at .*\.ts:\d+/);
  }, 120_000);

  test('stdout closed at its first line: exit 141, no stack trace on stderr, the lock removed', async () => {
    const out = mkdtempSync(join(tmpdir(), 'fusebench-closed-'));
    // Without --dtype the CPU backend says first, on stdout, that it measures fp32 only.
    const args = ['--backend', 'cpu', '--case', 'gelu_scale', '--max-elements', '1024', '--budget-ms', '50'];
    const r = await runAndClose('stdout', [...args, '--out-dir', out]);
    expect(r.code).toBe(CLOSED_OUTPUT);
    expect(existsSync(join(out, OUT_DIR_LOCK))).toBe(false);
    expect(r.other).not.toMatch(/EPIPE|Error|at .*\.ts:\d+/);
  }, 120_000);

  test('stdout closed before the report of a measured run: its results and baselines are still written, then 141', async () => {
    const out = mkdtempSync(join(tmpdir(), 'fusebench-closed-'));
    const baselines = join(out, 'baselines');
    const args = ['--backend', 'cpu', '--case', 'gelu_scale', '--max-elements', '1024', '--budget-ms', '50'];
    const r = await runAndClose('stdout', [
      ...args,
      '--update-baselines',
      '--baselines-dir',
      baselines,
      '--out-dir',
      out,
    ]);
    expect(r.code).toBe(CLOSED_OUTPUT);
    expect(existsSync(join(out, 'fusebench-results.json'))).toBe(true);
    expect(readdirSync(baselines).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    expect(existsSync(join(out, OUT_DIR_LOCK))).toBe(false);
    // A regression found before the reader went away is the exit code, not 141. Twice as slow, and a longer budget:
    // on a loaded 2-core CI machine, 50% at 50 ms once came out AMBIGUOUS (no regression, so 141).
    const slowed = await runAndClose('stdout', [
      ...args.filter((a, i) => a !== '--budget-ms' && args[i - 1] !== '--budget-ms'),
      '--budget-ms',
      '400',
      '--inject',
      'gelu_scale:100%',
      '--baselines-dir',
      baselines,
      '--out-dir',
      out,
    ]);
    expect(slowed.code, slowed.other).toBe(1);
    expect(slowed.other).toContain('SLOWER');
  }, 120_000);

  test.runIf(existsSync('/dev/full'))('stdout on a full disk: one line on stderr, exit 1, no stack trace', () => {
    const fixtures = join(ROOT, 'suites', 'fixtures');
    const full = openSync('/dev/full', 'w');
    const r = spawnSync(
      process.execPath,
      ['bin/fusebench.mjs', 'compare', join(fixtures, 'h200-results.json'), join(fixtures, 'h200-gate-run.json')],
      { cwd: ROOT, stdio: ['ignore', full, 'pipe'], encoding: 'utf8' },
    );
    closeSync(full);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^fusebench: could not write to stdout: ENOSPC/),
    ]);
  });
});

test('compare whose reader goes away at its first line: the Markdown still written, and a regression still exit 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fusebench-closed-compare-'));
  const md = join(dir, 'compare.md');
  const fixtures = join(ROOT, 'suites', 'fixtures');
  // The gate-inject run is the gate run with gelu_scale made slower: SLOWER against it.
  const args = [join(fixtures, 'h200-gate-run.json'), join(fixtures, 'h200-gate-inject.json'), '--markdown', md];
  const r = await runAndClose('stdout', args, 'compare');
  expect(r.code).toBe(1);
  expect(existsSync(md)).toBe(true);
  expect(r.other).not.toMatch(/EPIPE|Error|at .*\.ts:\d+/);
}, 60_000);
