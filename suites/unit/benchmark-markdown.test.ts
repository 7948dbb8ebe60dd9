// BENCHMARK_RESULTS.md rendered from recorded results: a real H200 run, and the same run with every verdict.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { renderBenchmarkMarkdown, renderMultiGpuMarkdown } from '../../src/report/benchmark-markdown.ts';
import { renderSpeedupCharts } from '../../src/report/speedup-chart.ts';
import { type ResultsFile, readResults } from '../../src/results/results.ts';
import { codeBlocks, hostileResults, injections } from '../support/hostile-results.ts';
import { markdownTables, tableProblems } from '../support/markdown-check.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const h200 = readResults(join(fixtures, 'h200-results.json'));
const mixed = readResults(join(fixtures, 'h200-mixed-verdicts.json'));

/** The H200 run relabelled as another GPU, for the multi-GPU document. */
function asOtherGpu(r: ResultsFile, name: string, slug: string, factor: number): ResultsFile {
  const o = structuredClone(r);
  o.device = { ...o.device, name, slug, details: { ...o.device.details, GPU: name } };
  for (const c of o.cases) if (c.speedup) c.speedup = { ...c.speedup, estimate: c.speedup.estimate * factor };
  return o;
}

describe('BENCHMARK_RESULTS.md of the H200 run', () => {
  const md = renderBenchmarkMarkdown(h200);

  test('has the hardware configuration and the fingerprint baselines are checked against', () => {
    expect(md).toMatch(/## Hardware configuration/);
    expect(md).toContain('- **GPU:** NVIDIA H200');
    expect(md).toMatch(/\*\*Fingerprint\*\*.*driver 580\.159\.04 · CUDA runtime 13\.0 .*UUID GPU-f991a3b5/);
  });

  test('has one table per case and shape, with the median times and the speedup interval', () => {
    for (const c of h200.cases) {
      const t = c.timing as NonNullable<typeof c.timing>;
      expect(md).toContain(`#### ${c.title} — ${c.shape.label} (`);
      expect(md).toContain(`), ${c.dtype}\n`);
      const row = md
        .split('\n')
        .find((l) => l.startsWith('| **Median time**') && l.includes(t.fused.median.toPrecision(4)));
      expect(row, c.key).toContain(
        `${c.speedup?.estimate.toFixed(2)}x [${c.speedup?.lo.toFixed(2)}, ${c.speedup?.hi.toFixed(2)}]`,
      );
    }
    expect(md).toMatch(/\| Memory traffic \| 268\.4 MB \| 134\.2 MB \| 50% saved/);
    expect(md).toMatch(/\| Kernel launches \| 2 \| 1 \| 1 fewer \|/);
  });

  test('summarises speedup, time saved and efficiency, and says how to reproduce it', () => {
    const summary = markdownTables(md).find((t) => t.header.includes('Absolute time saved'));
    expect(summary?.rows).toHaveLength(4);
    expect(md).toMatch(/geometric-mean speedup \*\*1\.76x\*\*/);
    expect(md).toContain('```bash\nnpm ci\nnpm run perf -- --out-dir /root/out\n```');
  });

  test('has a Mermaid xychart of speedup by shape, without a baseline line when there is no baseline', () => {
    expect(md).toContain('```mermaid\nxychart-beta\n');
    expect(md).toContain('    x-axis ["1K", "1M", "32x512x768", "16M"]');
    expect(md).toMatch(/ {4}bar \[1\.647, 1\.584, 1\.911, 1\.935\]/);
    expect(md).not.toMatch(/ {4}line \[/);
  });

  test('every table row has the header’s column count', () => {
    expect(markdownTables(md).length).toBeGreaterThan(4);
    expect(tableProblems(md)).toEqual([]);
  });
});

describe('BENCHMARK_RESULTS.md with every verdict', () => {
  const md = renderBenchmarkMarkdown(mixed);

  test.each([
    ['32x512x768', '🔴 SLOWER', '1.91x speedup', 'speedup −20.4%'],
    ['16M', '🟡 AMBIGUOUS', '1.97x speedup', '(remeasured)'],
    ['1M', '🟢 FASTER', '1.41x speedup', 'speedup +12.3%'],
    ['1K', '⚪ SAME', '1.64x speedup', 'speedup +0.4%'],
    ['4M', '⚫ NO BASELINE', '—', 'NO BASELINE'],
  ])('%s shows the gate’s verdict %s and the baseline', (label, verdict, baseline, detail) => {
    const section = md.split(/^#### /m).find((s) => s.startsWith(`GELU + scale — ${label} (`)) ?? '';
    expect(section).toContain(`**${verdict}**`);
    expect(section).toContain(`| ${baseline} |`);
    expect(section).toContain(detail);
  });

  test('the baseline file and the fingerprint notes are named', () => {
    expect(md).toContain('Baseline (measured, baselines/nvidia-h200.json)');
    expect(md).toContain("driver 580.159.04 differs from the baseline's 570.124.06");
  });

  test.each([
    ['4K', 'ERRORED', 'cudaErrorLaunchOutOfResources'],
    ['2M', 'FAILED', 'float64 reference is 0.5'],
    ['256M', 'SKIPPED', '--max-elements'],
  ])('%s is reported as %s with its reason', (label, status, reason) => {
    const section = md.split(/^#### /m).find((s) => s.startsWith(`GELU + scale — ${label} (`)) ?? '';
    expect(section).toContain(`**${status}**:`);
    expect(section).toContain(reason);
  });

  test('the chart leaves out the baseline line when one shape has none, and says so', () => {
    expect(md).toContain('No baseline line: 4M has no baseline.');
  });

  test('the chart draws the baseline line when every shape has one', () => {
    const all = structuredClone(mixed);
    all.cases = all.cases.filter((c) => c.gate?.speedup);
    expect(renderSpeedupCharts(all)).toMatch(/ {4}line \[1\.64, 1\.41, 1\.91, 1\.97\]/);
  });

  test('every table row has the header’s column count', () => {
    expect(tableProblems(md)).toEqual([]);
  });
});

describe('several GPUs in one document', () => {
  const v100 = asOtherGpu(h200, 'Tesla V100-SXM2-32GB', 'tesla-v100-sxm2-32gb', 0.9);
  const md = renderMultiGpuMarkdown([mixed, v100]);

  test('has a section per GPU, each with its own hardware, results and reproduce command', () => {
    expect(md.match(/^## NVIDIA H200$/m)).not.toBeNull();
    expect(md.match(/^## Tesla V100-SXM2-32GB$/m)).not.toBeNull();
    expect(md.match(/^### Hardware configuration$/gm)).toHaveLength(2);
    expect(md.match(/^##### GELU \+ scale — 1K /gm)).toHaveLength(2);
    expect(md.match(/^### Reproduce$/gm)).toHaveLength(2);
  });

  test('starts with a table of every case and shape across the GPUs', () => {
    const across = markdownTables(md)[0];
    expect(across?.header).toEqual([
      'Case',
      'Shape',
      'Precision',
      'NVIDIA H200 speedup',
      'Tesla V100-SXM2-32GB speedup',
    ]);
    expect(across?.rows.find((r) => r[1] === '4K')).toEqual(['GELU + scale', '4K', 'fp32', 'errored', '—']);
    expect(tableProblems(md)).toEqual([]);
  });

  test('one GPU gives the single-GPU document', () => {
    expect(renderMultiGpuMarkdown([h200])).toBe(renderBenchmarkMarkdown(h200));
  });
});

describe('BENCHMARK_RESULTS.md of a results file with hostile text in every field', () => {
  const hostile = hostileResults();
  const md = renderBenchmarkMarkdown(hostile);

  test('a command holding a code fence stays inside the Reproduce block, whole', () => {
    const reproduce = codeBlocks(md).find((b) => b.open.endsWith('bash'));
    expect(reproduce?.closed).toBe(true);
    // Whole but for the bidirectional override, which becomes a space.
    expect(reproduce?.body).toEqual(['npm ci', ...hostile.command.replace('\u202e', ' ').split('\n')]);
  });

  test('every heading is ours, with the file’s text escaped and cut inside it', () => {
    const headings = md.split('\n').filter((l) => /^#+ /.test(l));
    expect(headings.length).toBeGreaterThan(10);
    for (const h of headings) expect(h.length).toBeLessThan(3 * 3 * 120);
    expect(injections(md)).toEqual([]);
  });

  test('the chart titles and axis labels hold no quote, backtick or tag', () => {
    const chart = codeBlocks(md).find((b) => b.open.endsWith('mermaid'));
    const title = chart?.body.find((l) => l.trim().startsWith('title'));
    expect(title).toMatch(/^ {4}title "[^"`<>#;]*"$/);
    const axis = chart?.body.find((l) => l.trim().startsWith('x-axis'));
    expect(axis).toMatch(/^ {4}x-axis \["[^"`<>#;]*"(, "[^"`<>#;]*")*\]$/);
  });

  test('the Across GPUs table keeps its columns with two hostile GPU names', () => {
    const merged = renderMultiGpuMarkdown([hostile, hostileResults('other')]);
    const across = markdownTables(merged)[0];
    expect(across?.header).toHaveLength(5);
    expect(across?.rows.every((r) => r.length === 5)).toBe(true);
    expect(tableProblems(merged)).toEqual([]);
  });
});

describe('the matrix peak', () => {
  // The recorded H200 run with a measured matrix peak added to its device, and one measured case given
  // a flop rate at 90% of it (as npm run perf computes for the GEMM-bound cases).
  const withPeak = structuredClone(h200);
  withPeak.device.matrixPeakTFlops = { fp32: 50, fp16: 700 };
  withPeak.device.details['Matrix peak'] = 'fp32 50.0 · fp16 700 TFLOP/s (cuBLAS 8192³)';
  const gemm = withPeak.cases.find((c) => c.status === 'measured');
  if (!gemm) throw new Error('the H200 fixture has no measured case');
  gemm.tflops = { unfused: 30, fused: 45 };
  gemm.fusedPctOfMatrixPeak = 90;
  const md = renderBenchmarkMarkdown(withPeak);

  test('is in the hardware configuration and beside the flop rate, in the summary and the case table', () => {
    expect(md).toContain('- **Matrix peak:** fp32 50.0 · fp16 700 TFLOP/s \\(cuBLAS 8192³\\)'); // the file's text, escaped
    expect(md.split('45.0 TFLOP/s (90% of matrix peak)').length - 1).toBe(2);
  });

  test('a run without one quotes the flop rate alone', () => {
    delete gemm.fusedPctOfMatrixPeak;
    const without = renderBenchmarkMarkdown(withPeak);
    expect(without).not.toContain('of matrix peak');
    expect(without).toContain('45.0 TFLOP/s');
  });
});
