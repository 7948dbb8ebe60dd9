// History that survives any record: a record with a value no run produces (1.5e308, 0, negative, an
// interval that does not hold its estimate) is named and skipped like a broken line; the chart draws any
// record that is read; concurrent appends, from processes and from one process, lose no record.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { appendHistory, parseHistory, readHistory, SHOWN_PROBLEMS } from '../../src/history/history-file.ts';
import { HISTORY_RECORD_VERSION, type HistoryRecord } from '../../src/history/history-record.ts';
import { historyCharts, historySpec } from '../../src/report/charts/history-chart.ts';
import { renderSvg } from '../../src/report/charts/render-svg.ts';
import { markCount } from '../support/chart-check.ts';

const root = join(import.meta.dirname, '..', '..');
const NODE_ARGS = ['--experimental-strip-types', '--no-warnings=ExperimentalWarning'];
const tmp = () => mkdtempSync(join(tmpdir(), 'fusebench-history-hard-'));

function record(
  commit: string,
  speedup: unknown,
  extra: object = {},
  device = { name: 'Test CPU', slug: 'test-cpu' },
): string {
  return JSON.stringify({
    v: HISTORY_RECORD_VERSION,
    date: '2026-11-25T10:00:00.000Z',
    commit,
    device,
    cases: {
      'gelu_scale/1M/fp32': { case: 'gelu_scale', shape: '1M', dtype: 'fp32', verdict: 'SAME', speedup, ...extra },
    },
  });
}

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [...NODE_ARGS, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** `npm run merge` of one results file with the history files given. */
const merge = (outDir: string, histories: string[], results: string) =>
  cli(['src/cli/merge.ts', '--out-dir', outDir, ...histories.flatMap((h) => ['--history', h]), results]);

describe('the record boundary', () => {
  test.each([
    ['1.5e308 with a zero low end (the issue’s record)', [1.5e308, 0, 1.5e308]],
    ['a negative speedup', [-2, -3, -1]],
    ['a zero speedup', [0, 0, 0]],
    ['a speedup of a million and one', [1e6 + 1, 1, 2e6]],
    ['an interval that does not hold its estimate', [2, 2.5, 3]],
    ['a string where a number goes', ['1', 1, 1]],
  ])('a record with %s is named and skipped; the others are read', (_what, speedup) => {
    const text = [record('good1', [1.5, 1.4, 1.6]), record('bad', speedup), record('good2', [1.2, 1.1, 1.3])].join(
      '\n',
    );
    const read = parseHistory(text, 'h.jsonl');
    expect(read.records.map((r) => r.record.commit)).toEqual(['good1', 'good2']);
    expect(read.problems).toEqual([
      expect.stringMatching(/^h\.jsonl:2: not a history record \(cases\.gelu_scale\/1M\/fp32\.speedup/),
    ]);
  });

  test('a fused time of -1 ms or of a day is skipped too', () => {
    const read = parseHistory(
      [record('neg', [1.5, 1.4, 1.6], { fusedMs: -1 }), record('day', [1.5, 1.4, 1.6], { fusedMs: 86_400_000 })].join(
        '\n',
      ),
      'h.jsonl',
    );
    expect(read.records).toEqual([]);
    expect(read.problems.map((p) => p.slice(0, 10))).toEqual(['h.jsonl:1:', 'h.jsonl:2:']);
  });

  test('npm run history --out and npm run merge --history still write the good records when one is insane', () => {
    const dir = tmp();
    const file = join(dir, 'nvidia-h200.jsonl');
    const h200 = { name: 'NVIDIA H200', slug: 'nvidia-h200' };
    const lines = [
      record('aaaaaaa', [1.5, 1.4, 1.6], {}, h200),
      record('bbbbbbb', [1.5e308, 0, 1.5e308], {}, h200),
      record('ccccccc', [1.6, 1.5, 1.7], {}, h200),
    ];
    writeFileSync(file, `${lines.join('\n')}\n`);
    const out = join(dir, 'h.md');
    const r = cli(['src/cli/history.ts', file, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${file}:2: not a history record`);
    expect(readFileSync(out, 'utf8')).toContain('gelu\\_scale');
    expect(readdirSync(join(dir, 'h-charts'))).toEqual(['gelu_scale-1M-fp32.svg']);
    const merged = join(dir, 'merged');
    const m = merge(merged, [file], join(root, 'suites', 'fixtures', 'h200-gate-run.json'));
    expect(m.code, m.stderr).toBe(0);
    expect(m.stderr).toContain(`${file}:2: not a history record`);
    expect(existsSync(join(merged, 'benchmark-history', 'nvidia-h200', 'gelu_scale-1M-fp32.svg'))).toBe(true);
  });

  test('npm run merge leaves out, with a warning each, a --history that is missing, a folder or a results file', () => {
    const dir = tmp();
    const results = join(root, 'suites', 'fixtures', 'h200-gate-run.json');
    const none = join(dir, 'nvidia-h200.jsonl');
    const out = join(dir, 'merged');
    const m = merge(out, [dir, none, results], results);
    expect(m.code, m.stderr).toBe(0);
    // It had aborted the merge with nothing written (a folder), or said "no results of that device here" (missing).
    expect(m.stderr).toContain(`Cannot read ${dir}: it is a folder, not a file; left out`);
    expect(m.stderr).toContain(`${none}: no such history file; left out`);
    expect(m.stderr).toContain(`${results} is a results file, not a history`);
    expect(m.stderr).not.toContain('no results of that device here');
    expect(existsSync(join(out, 'BENCHMARK_RESULTS.md'))).toBe(true);
  });

  test('a missing history file is an input error, exit 2, naming it', () => {
    const missing = join(tmp(), 'nope.jsonl');
    const r = cli(['src/cli/history.ts', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${missing}: no such history file`);
  });

  test('a results file given as the history is one error saying what to do, not a warning for each of its lines', () => {
    const results = join(root, 'suites', 'fixtures', 'h200-results.json');
    const r = cli(['src/cli/history.ts', results]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `fusebench: ${results} is a results file, not a history (JSON Lines, one record a line): add it to one with \`fusebench history append --dir <dir> ${results}\``,
    ]);
  });

  test('a file with no record at all is one error naming it and its first line, exit 2', () => {
    const readme = join(root, 'suites', 'fixtures', 'README.md');
    for (const args of [[], ['--out', join(tmp(), 'h.md')]]) {
      const r = cli(['src/cli/history.ts', readme, ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^fusebench: ${readme.replace(/[.*+?^$()|[\]\\/]/g, '\\$&')} is not a fusebench history: none of its lines is a record \\(\\d+ broken; the first: .*README\\.md:1: not valid JSON .*\\)$`,
          ),
        ),
      ]);
    }
  });

  test('a history of a million broken lines keeps the first SHOWN_PROBLEMS and a count, for every reader', () => {
    // Every broken line's message kept: a 40 MB file of them ended history, merge and site with V8's
    // out-of-memory abort; merge and site printed each one.
    const { records, problems, broken } = parseHistory('x\n'.repeat(1_000_000), 'h.jsonl');
    expect(records).toEqual([]);
    expect(broken).toBe(1_000_000);
    expect(problems).toHaveLength(SHOWN_PROBLEMS + 1);
    expect(problems.at(-1)).toBe(`h.jsonl: ${1_000_000 - SHOWN_PROBLEMS} more broken lines; skipped`);
  });

  test('broken lines beside records: the first 20 named, the rest counted', () => {
    const file = join(tmp(), 'h.jsonl');
    writeFileSync(
      file,
      `${record('aaaaaaa', [1.5, 1.4, 1.6])}\n${Array.from({ length: 25 }, (_, i) => `broken ${i}`).join('\n')}\n`,
    );
    const r = cli(['src/cli/history.ts', file]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(21);
    expect(lines[19]).toContain(`${file}:21: not valid JSON`);
    expect(lines[20]).toBe(`fusebench: ${file}: 5 more broken lines; skipped`);
    expect(r.stdout).toContain('gelu_scale fp32 (speedup, oldest first)');
  });
});

describe('the chart of any record that is read', () => {
  // What a record may hold (history-record.ts): speedups in [1e-6, 1e6] with lo <= estimate <= hi, fused times in (0, 1 h].
  const speedup = fc.double({ min: 1e-6, max: 1e6, noNaN: true });
  const point = fc.tuple(speedup, speedup, speedup, fc.double({ min: 1e-9, max: 3_600_000, noNaN: true }));

  test.prop([fc.array(point, { minLength: 1, maxLength: 5 })], { numRuns: 20 })(
    'draws one finite point per commit, whatever the values',
    async (points) => {
      const lines = points.map(([a, b, c, fusedMs], i) => {
        const [lo, estimate, hi] = [a, b, c].sort((x, y) => x - y);
        return record(`c${i}`, [estimate, lo, hi], { fusedMs });
      });
      const { records, problems } = parseHistory(lines.join('\n'), 'h.jsonl');
      expect(problems).toEqual([]);
      const [chart] = historyCharts(records.map((r) => r.record));
      if (!chart) throw new Error('a measured record gives a chart');
      const svg = await renderSvg(historySpec(chart));
      expect(markCount(svg, 'speedup_points')).toBe(points.length);
      expect(markCount(svg, 'fusedMs_points')).toBe(points.length);
      expect(svg).not.toMatch(/NaN|Infinity/);
    },
  );
});

describe('appends under the lock', () => {
  test('four rounds of three processes appending at once lose no record, and leave no lock or temporary file', async () => {
    const dir = tmp();
    const file = join(dir, 'test-cpu.jsonl');
    const writers = 3;
    const each = 2;
    const rounds = 4;
    for (let round = 0; round < rounds; round++) {
      const exits = Array.from({ length: writers }, (_, w) => {
        const child = spawn(
          process.execPath,
          [
            ...NODE_ARGS,
            join(import.meta.dirname, '..', 'support', 'history-appender.ts'),
            file,
            `r${round}w${w}`,
            String(each),
          ],
          {
            cwd: root,
            stdio: ['ignore', 'ignore', 'pipe'],
          },
        );
        let stderr = '';
        child.stderr?.on('data', (d) => {
          stderr += String(d);
        });
        return new Promise<{ code: number | null; stderr: string }>((resolve) =>
          child.on('exit', (code) => resolve({ code, stderr })),
        );
      });
      for (const e of await Promise.all(exits)) expect(e.code, e.stderr).toBe(0);
    }
    const { records, problems } = readHistory(file);
    expect(problems).toEqual([]);
    expect(records).toHaveLength(rounds * writers * each);
    const commits = new Set(records.map((r) => r.record.commit));
    for (let round = 0; round < rounds; round++)
      for (let w = 0; w < writers; w++)
        for (let i = 0; i < each; i++) expect(commits.has(`r${round}w${w}-${i}`)).toBe(true);
    // Each writer's records stay in its own order.
    const order = records.map((r) => r.record.commit).filter((c) => c.startsWith('r0w0-'));
    expect(order).toEqual(['r0w0-0', 'r0w0-1']);
    expect(readdirSync(dir)).toEqual(['test-cpu.jsonl']);
  });

  test('eighty appends started at once in one process all land (the library, no CLI)', async () => {
    const dir = tmp();
    const file = join(dir, 'h', 'test-cpu.jsonl');
    const rec = (i: number): HistoryRecord => ({
      v: HISTORY_RECORD_VERSION,
      date: '2026-11-25T10:00:00.000Z',
      commit: `c${i}`,
      device: { name: 'Test CPU', slug: 'test-cpu' },
      cases: {},
    });
    await Promise.all(Array.from({ length: 80 }, (_, i) => appendHistory(file, rec(i), { pollMs: 2, warn: () => {} })));
    expect(new Set(readHistory(file).records.map((r) => r.record.commit)).size).toBe(80);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  test('a record its readers would skip is refused before the file is touched, naming the field', async () => {
    const dir = tmp();
    const file = join(dir, 'test-cpu.jsonl');
    const good: HistoryRecord = {
      v: HISTORY_RECORD_VERSION,
      date: '2026-11-25T10:00:00.000Z',
      commit: 'good',
      device: { name: 'Test CPU', slug: 'test-cpu' },
      cases: {},
    };
    await appendHistory(file, good);
    const before = readFileSync(file, 'utf8');
    // A speedup outside its own interval: what a percentile interval gave before it held its estimate.
    const row = { case: 'gelu_scale', shape: '1K', verdict: 'SAME', speedup: [2.0153, 1.9916, 2.0146] } as const;
    const bad: HistoryRecord = {
      ...good,
      commit: 'bad',
      cases: { 'gelu_scale/1K/fp32': { ...row, speedup: [...row.speedup] } },
    };
    await expect(appendHistory(file, bad)).rejects.toThrow(
      `${file}: the record to append is not a history record (cases.gelu_scale/1K/fp32.speedup: expected [estimate, lo, hi]`,
    );
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readdirSync(dir)).toEqual(['test-cpu.jsonl']);
  });
});
