// `npm run perf -- --update-baselines` and the baseline file: a new --baseline-file is created (not
// ENOENT); a lock another update holds, or a file of another device, fails the run before anything is
// measured, naming the holder or the device, instead of after the whole run.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { backendSlug } from '../../src/addon/device.ts';
import { loadBaselineFile } from '../../src/gate/baseline-file.ts';
import { ONE_SMALL_CPU_SHAPE, runPerf } from '../support/perf-cli.ts';

// The wiring is the point, not the numbers: a CPU backend of 1 GiB and few pairs keep the one measured
// run short.
process.env.FUSEBENCH_CPU_MEMORY_BYTES = String(1024 ** 3);
const common = ['--min-pairs', '10', ...ONE_SMALL_CPU_SHAPE, '--budget-ms', '200'];

describe('--update-baselines and its file', () => {
  test('a --baseline-file that does not exist yet is created, its folder too', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'fusebench-newfile-'));
    const file = join(tmp, 'new', 'mine.json');
    const r = runPerf([...common, '--update-baselines', '--baseline-file', file, '--out-dir', join(tmp, 'out')]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`created ${file}`);
    expect(Object.keys(loadBaselineFile(file, ['gelu_scale']).data.entries)).toEqual(['gelu_scale/1K/fp32']);
  });

  test('without --update-baselines, a missing --baseline-file is still an error naming it', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'fusebench-newfile-'));
    const file = join(tmp, 'typo.json');
    const r = runPerf([...common, '--baseline-file', file, '--out-dir', join(tmp, 'out')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(file);
    expect(existsSync(join(tmp, 'out', 'fusebench-results.json'))).toBe(false);
  });

  test('a lock held by a live process fails at once, naming the holder, and nothing is measured', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'fusebench-held-'));
    const file = join(tmp, 'mine.json');
    mkdirSync(tmp, { recursive: true });
    // This test's own process holds it: alive, on this host.
    const holder = { pid: process.pid, host: hostname(), started: new Date().toISOString(), command: 'another update' };
    writeFileSync(`${file}.lock`, `${JSON.stringify(holder)}\n`);
    const r = runPerf(
      [...common, '--update-baselines', '--baseline-file', file, '--out-dir', join(tmp, 'out')],
      60_000,
    );
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${file} is locked by another baseline update: pid ${process.pid}`);
    expect(r.stderr).toContain('`another update`');
    expect(r.stderr).toContain('Nothing was measured.');
    expect(existsSync(join(tmp, 'out', 'fusebench-results.json'))).toBe(false);
    expect(r.stdout).not.toContain('[1/1]'); // refused before the run, not after it and the lock's wait
    expect(readFileSync(`${file}.lock`, 'utf8')).toContain('another update'); // left as it was
  });

  test("another device's --baseline-file is refused before anything is measured, and left as it was", () => {
    const tmp = mkdtempSync(join(tmpdir(), 'fusebench-other-'));
    const file = join(tmp, 'h200.json');
    copyFileSync('baselines/nvidia-h200.json', file);
    const before = readFileSync(file, 'utf8');
    const r = runPerf([...common, '--update-baselines', '--baseline-file', file, '--out-dir', join(tmp, 'out')]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--baseline-file ${file} holds baselines of NVIDIA H200, not of this run's CPU`);
    expect(r.stderr).toContain('Nothing was measured.');
    expect(existsSync(join(tmp, 'out', 'fusebench-results.json'))).toBe(false);
    // The --out-dir it made before refusing is gone again: a refused run leaves no empty folder.
    expect(existsSync(join(tmp, 'out'))).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});

test('a shape skipped on this machine that its baselines hold is ERRORED, and the run exits 1; left out by choice, it is not', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'fusebench-unjudged-'));
  const file = join(tmp, 'mine.json');
  const made = runPerf([...common, '--update-baselines', '--baseline-file', file, '--out-dir', join(tmp, 'base')]);
  expect(made.status, made.stderr).toBe(0);
  // A baseline of a cuBLAS shape, as a file recorded where it ran would hold; the CPU backend cannot run it.
  const data = JSON.parse(readFileSync(file, 'utf8'));
  const gelu = data.entries['gelu_scale/1K/fp32'];
  data.entries['gemm/256x512x128/fp32'] = {
    ...gelu,
    case: 'gemm',
    shape: { label: '256x512x128', dims: [256, 512, 128] },
  };
  writeFileSync(file, JSON.stringify(data));
  const gemm = ['--backend', 'cpu', '--case', 'gemm', '--dtype', 'fp32', '--baseline-file', file];
  const r = runPerf([...gemm, '--max-elements', '200000', '--out-dir', join(tmp, 'out')]);
  expect(r.status, r.stderr).toBe(1);
  const results = JSON.parse(readFileSync(join(tmp, 'out', 'fusebench-results.json'), 'utf8'));
  const result = results.cases.find((c: { key: string }) => c.key === 'gemm/256x512x128/fp32');
  expect(result.status).toBe('errored');
  expect(result.reason).toBe(
    `runs on cuda only (its variant 'cublas' has no CPU implementation: it calls cuBLAS); but ${file} holds a baseline of it, so it must be judged (leave it out on purpose with --case, --dtype or --max-elements)`,
  );
  // --max-elements leaves it out by choice: a skip, exit 0.
  const chosen = runPerf([...gemm, '--max-elements', '1024', '--out-dir', join(tmp, 'chosen')]);
  expect(chosen.status, chosen.stderr).toBe(0);
});

test("the file under this device's name holding another device's baselines is refused before anything is measured", () => {
  const dir = mkdtempSync(join(tmpdir(), 'fusebench-renamed-'));
  const own = join(dir, `${backendSlug('cpu')}.json`);
  copyFileSync('baselines/nvidia-h200.json', own);
  const r = runPerf([...common, '--baselines-dir', dir, '--out-dir', join(dir, 'out')]);
  expect(r.status, r.stderr).toBe(2);
  expect(r.stderr).toContain(
    `${own} holds baselines of NVIDIA H200 (nvidia-h200), not of this device (${backendSlug('cpu')})`,
  );
  expect(r.stderr).toContain('Nothing was measured.');
});
