// --out-dir end to end: a folder that cannot hold the results is refused before anything is measured
// (exit 2, the path named); a results file that cannot be written after the run is a non-zero exit
// naming it; a missing folder is created. Every shape is skipped (--max-elements 1), so nothing is timed.
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readResults } from '../../src/results/results.ts';
import { runPerf } from '../support/perf-cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'fusebench-out-dir-'));
const quick = ['--backend', 'cpu', '--case', 'rmsnorm_residual', '--dtype', 'fp32', '--max-elements', '1'];
const linux = process.platform === 'linux';

describe('--out-dir', () => {
  test.each([
    ['a file', () => writeFile(join(tmp, 'a-file'))],
    ['a folder under a file', () => join(writeFile(join(tmp, 'b-file')), 'sub')],
  ])('%s is refused up front with the path named, exit 2', (_, dir) => {
    const out = dir();
    const r = runPerf([...quick, '--out-dir', out]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`fusebench: --out-dir ${out} cannot hold the results: ENOTDIR`);
    expect(r.stdout).not.toContain('fusebench on');
  });

  // Node's recursive mkdir spins forever on ENOENT under an existing parent such as /proc.
  test.runIf(linux)(
    'a folder that cannot be made under /proc is refused, not waited on',
    () => {
      const out = `/proc/fusebench-${process.pid}/out`;
      const r = runPerf([...quick, '--out-dir', out], 60_000);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`fusebench: --out-dir ${out} cannot hold the results: ENOENT`);
    },
    90_000,
  );

  test('a results file that could not be written (a folder in its place) is refused before the run, naming it', () => {
    const out = join(tmp, 'blocked');
    mkdirSync(join(out, 'fusebench-results.json'), { recursive: true });
    const r = runPerf([...quick, '--out-dir', out]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      `fusebench: --out-dir ${out} cannot hold the results: ${join(out, 'fusebench-results.json')} is a folder. Nothing was measured.`,
    );
    expect(r.stdout).toBe('');
  }, 120_000);

  test('a missing nested folder is created and holds the results', () => {
    const out = join(tmp, 'new', 'deep', 'out');
    const r = runPerf([...quick, '--out-dir', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual([
      'BENCHMARK_RESULTS.md',
      'bencher.json',
      'benchmark-action.json',
      'fusebench-results.json',
    ]);
    expect(readResults(join(out, 'fusebench-results.json')).cases.map((c) => c.status)).toEqual(['skipped']);
  }, 120_000);
});

function writeFile(path: string): string {
  writeFileSync(path, 'not a folder');
  return path;
}
