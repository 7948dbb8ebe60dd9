// One short `npm run perf` on the CPU backend: the report and the JSON exist, validate, and agree.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { type ResultsFile, readResults } from '../../src/results/results.ts';
import { runPerf } from '../support/perf-cli.ts';

let out: string;
let stdout: string;
let results: ResultsFile;
let markdown: string;

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'fusebench-e2e-'));
  const run = runPerf([
    '--backend',
    'cpu',
    '--case',
    'gelu_scale',
    '--max-elements',
    '1048576',
    '--budget-ms',
    '200',
    '--out-dir',
    out,
  ]);
  expect(run.status, run.stderr).toBe(0);
  stdout = run.stdout;
  results = readResults(join(out, 'fusebench-results.json'));
  markdown = readFileSync(join(out, 'BENCHMARK_RESULTS.md'), 'utf8');
}, 300_000);

describe('a short CPU perf run', () => {
  test('prints the table and measures the small shapes, skipping the large ones with a reason', () => {
    expect(stdout).toMatch(/speedup \[95% CI\]/);
    expect(results.device.backend).toBe('cpu');
    const status = Object.fromEntries(results.cases.map((c) => [c.shape.label, c.status]));
    expect(status).toEqual({ '1K': 'measured', '1M': 'measured', '32x512x768': 'skipped', '16M': 'skipped' });
    expect(results.cases.find((c) => c.shape.label === '16M')?.reason).toMatch(/--max-elements/);
  });

  test('the speedup is the ratio of the medians and its interval contains it', () => {
    for (const c of results.cases.filter((x) => x.status === 'measured')) {
      const t = c.timing as NonNullable<typeof c.timing>;
      const s = c.speedup as NonNullable<typeof c.speedup>;
      expect(s.estimate).toBe(t.unfused.median / t.fused.median);
      expect(s.lo).toBeLessThanOrEqual(s.estimate);
      expect(s.hi).toBeGreaterThanOrEqual(s.estimate);
      expect(t.pairsTaken).toBeGreaterThanOrEqual(30);
      expect(t.samples.unfused).toHaveLength(t.unfused.n);
    }
  });

  test('the Markdown report shows the same medians and speedups as the JSON', () => {
    for (const c of results.cases.filter((x) => x.status === 'measured')) {
      const t = c.timing as NonNullable<typeof c.timing>;
      const row = markdown
        .split('\n')
        .find((l) => l.startsWith('| **Median time**') && l.includes(t.unfused.median.toPrecision(4)));
      expect(row, `median row of ${c.key}`).toBeDefined();
      const [, , u, f, sp] = (row as string).split('|').map((x) => x.trim());
      const printedRatio = Number.parseFloat(u as string) / Number.parseFloat(f as string);
      const printedSpeedup = Number.parseFloat((sp as string).replace(/\*/g, ''));
      expect(Math.abs(printedRatio - printedSpeedup)).toBeLessThan(0.01 + printedSpeedup * 1e-3);
    }
    expect(markdown).toMatch(/\*\*Hardware configuration\*\*/);
    // The command that regenerates it: the run's options, its output folder replaced by the working tree.
    expect(markdown).toMatch(/^npm run perf -- --backend cpu --case gelu_scale .*--out-dir \. {3}# on the /m);
    expect(markdown).not.toContain(out);
  });

  test('the roofline the report shows is written beside it', () => {
    const linked = /\]\((benchmark-charts\/roofline-[\w-]+-fp32\.svg)\)/.exec(markdown)?.[1];
    if (!linked) throw new Error('BENCHMARK_RESULTS.md shows no fp32 roofline');
    const chart = join(out, linked);
    expect(readFileSync(chart, 'utf8')).toMatch(/^<svg /);
    expect(stdout).toContain(chart);
  });

  test('each measured shape records where its time went, the run its wall time, and both are printed', () => {
    expect(stdout).toMatch(/fusebench: CPU backend: measuring fp32 only/);
    expect(results.cases.every((c) => c.dtype === 'fp32')).toBe(true);
    expect(results.wallMs).toBeGreaterThan(0);
    let phasesTotal = 0;
    for (const c of results.cases.filter((x) => x.status === 'measured')) {
      const p = c.phases as NonNullable<typeof c.phases>;
      expect(Object.keys(p)).toEqual(['inputs', 'runs', 'download', 'reference', 'comparison', 'sampling', 'rest']);
      expect(p.sampling).toBeGreaterThan(0);
      phasesTotal += Object.values(p).reduce((a, b) => a + b, 0);
    }
    expect(phasesTotal).toBeLessThanOrEqual(results.wallMs as number);
    expect(stdout).toMatch(
      /^time: wall \d+\.\d+ s; 2 shapes: inputs .* sampling .* rest .*; outside sampling at most/m,
    );
    expect(markdown).toMatch(/Run time: wall \d+\.\d+ s; 2 shapes: /);
  });
});
