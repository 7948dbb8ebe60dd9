// The GitHub Actions report (annotations, outputs, job summary) through a fake @actions/core-like sink.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnnotationProperties } from '@actions/core';
import { describe, expect, test, vi } from 'vitest';
import type { TestModule } from 'vitest/node';
import { signedPct, speedup, times } from '../../src/base/format.ts';
import {
  type ActionsSink,
  cappedAnnotations,
  collectAnnotations,
  reportToActions,
} from '../../src/github/actions-report.ts';
import { renderBenchmarkMarkdown } from '../../src/report/benchmark-markdown.ts';
import { consoleCountsLine } from '../../src/report/console-summary.ts';
import { renderJobSummary } from '../../src/report/job-summary.ts';
import { renderPrComment } from '../../src/report/pr-comment.ts';
import { type ResultsFile, readResults } from '../../src/results/results.ts';
import type { PerfMeta } from '../../src/run/perf-meta.ts';
import { parsePerfArgs } from '../../src/run/perf-options.ts';
import { PerfReporter } from '../../src/run/perf-reporter.ts';
import { hostileResults, injections, TAIL } from '../support/hostile-results.ts';
import { markdownTables, tableProblems } from '../support/markdown-check.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const mixed = readResults(join(fixtures, 'h200-mixed-verdicts.json'));
const h200 = readResults(join(fixtures, 'h200-results.json'));
// A runner's environment: the step's output file is one it has made (reportToActions makes a missing one too).
const inActions = {
  GITHUB_ACTIONS: 'true',
  GITHUB_OUTPUT: join(mkdtempSync(join(tmpdir(), 'fusebench-output-')), 'output.txt'),
};

/**
 * A results file the simulated runs below wrote. Their cases are the fixture's, whose samples were cut
 * (a file may hold such only with `samplesThinned`, which a run never writes), so the file is read as JSON, not
 * through readResults; the e2e runs read back what a real run writes.
 */
function written(file: string): Pick<ResultsFile, 'cases' | 'source'> {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Records what a run would send to @actions/core. */
function fakeSink() {
  const calls = {
    error: [] as [string, AnnotationProperties | undefined][],
    warning: [] as [string, AnnotationProperties | undefined][],
    notice: [] as [string, AnnotationProperties | undefined][],
    outputs: {} as Record<string, unknown>,
  };
  const sink: ActionsSink = {
    error: (m, p) => {
      calls.error.push([m, p]);
    },
    warning: (m, p) => {
      calls.warning.push([m, p]);
    },
    notice: (m, p) => {
      calls.notice.push([m, p]);
    },
    setOutput: (n, v) => {
      calls.outputs[n] = v;
    },
  };
  return { sink, calls };
}

const tmp = () => mkdtempSync(join(tmpdir(), 'fusebench-actions-'));

describe('annotations', () => {
  test('SLOWER is an error on the kernel’s source file, with the speedups and the gate’s message', () => {
    const slower = collectAnnotations(mixed).find((a) => a.properties.title?.includes('SLOWER'));
    expect(slower).toMatchObject({
      level: 'error',
      properties: {
        file: 'kernels/cuda/gelu_scale.cu',
        title: 'fusebench: GELU + scale 32x512x768 fp32 is SLOWER on NVIDIA H200',
      },
    });
    expect(slower?.message).toContain('speedup 1.52x [1.50, 1.53] vs baseline 1.91x (−20.4%)');
  });

  test('FASTER and AMBIGUOUS are notices; FAILED and ERRORED errors; SAME and SKIPPED nothing; shapes without a baseline one warning', () => {
    const byTitle = collectAnnotations(mixed).map((a) => [
      a.level,
      a.properties.title?.replace(/^fusebench: GELU \+ scale /, ''),
    ]);
    expect(byTitle).toEqual([
      ['error', '4K fp32 ERRORED on NVIDIA H200'],
      ['notice', '1M fp32 is FASTER on NVIDIA H200'],
      ['error', '2M fp32 FAILED on NVIDIA H200'],
      ['error', '32x512x768 fp32 is SLOWER on NVIDIA H200'],
      ['notice', '16M fp32 is AMBIGUOUS on NVIDIA H200'],
      ['warning', 'fusebench: 1 shape on NVIDIA H200 not gated: no baseline'],
    ]);
    expect(collectAnnotations(mixed).at(-1)?.message).toMatch(
      /^no baseline for NVIDIA H200 \(1 shape; .*\): the run only reports\. Record one with `npm run perf -- --backend cuda --update-baselines` \(or run the baselines workflow for this GPU\)$/,
    );
  });

  test('a SLOWER against a baseline that does not gate is a warning, counted apart, and labelled in the summary', () => {
    const slower = mixed.cases.find((c) => c.gate?.status === 'SLOWER') as ResultsFile['cases'][number];
    const ungated = {
      ...mixed,
      cases: mixed.cases.map((c) => (c === slower ? { ...c, gate: { ...c.gate, gating: false } as typeof c.gate } : c)),
    } as ResultsFile;
    const found = collectAnnotations(ungated).find((a) => a.properties.title?.includes('SLOWER'));
    expect(found).toMatchObject({
      level: 'warning',
      properties: { title: 'fusebench: GELU + scale 32x512x768 fp32 is SLOWER on NVIDIA H200 (not gating)' },
    });
    const { sink, calls } = fakeSink();
    reportToActions(ungated, { sink, env: inActions, summaryPath: join(tmp(), 's.md') });
    expect(calls.outputs).toMatchObject({ slower: 0, not_gating: 1 });
    const summary = renderJobSummary(ungated);
    expect(summary).toContain('1 against a baseline that does not gate');
    expect(summary).not.toContain('**1 slower**');
    expect(markdownTables(summary)[0]?.rows.some((r) => r.at(-1)?.startsWith('🔴 SLOWER (not gating)'))).toBe(true);
    // The console and BENCHMARK_RESULTS.md count it apart too.
    expect(consoleCountsLine(ungated)).toMatch(/^SLOWER 0 · .* · NOT GATING 1$/);
    expect(renderBenchmarkMarkdown([ungated])).toContain('1 🔴 SLOWER (not gating)');
  });
});

describe('a run of many regressions, within what GitHub takes', () => {
  // Every shape of the mixed fixture, 40 times over under other labels: dozens of errors and notices.
  const many = {
    ...mixed,
    cases: Array.from({ length: 40 }, (_, i) =>
      mixed.cases.map((c) => ({ ...c, key: `${c.key}#${i}`, shape: { ...c.shape, label: `${c.shape.label}#${i}` } })),
    ).flat(),
  };

  test('at most 10 annotations a level, the tenth counting the rest', () => {
    const all = collectAnnotations(many);
    const errors = all.filter((a) => a.level === 'error').length;
    expect(errors).toBeGreaterThan(10);
    const shown = cappedAnnotations(all, 'NVIDIA H200');
    for (const level of ['error', 'notice'] as const) {
      const of = shown.filter((a) => a.level === level);
      expect(of).toHaveLength(Math.min(10, all.filter((a) => a.level === level).length));
    }
    expect(shown.filter((a) => a.level === 'error')[9]?.message).toBe(
      `${errors - 9} more SLOWER, FAILED or ERRORED shapes; the job summary and BENCHMARK_RESULTS.md list every one`,
    );
    expect(cappedAnnotations(collectAnnotations(mixed), 'x')).toEqual(collectAnnotations(mixed));
  });

  test('the job summary keeps the worst rows that fit its size, and counts the rest', () => {
    const whole = renderJobSummary(many);
    const limit = Math.floor(Buffer.byteLength(whole) / 3);
    const cut = renderJobSummary(many, limit);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(limit);
    expect(tableProblems(cut)).toEqual([]);
    // The worst verdicts stay, the mildest go first.
    const verdicts = (markdownTables(cut)[0]?.rows ?? []).map((r) => r.at(-1) ?? '');
    expect(verdicts.length).toBeGreaterThan(0);
    expect(verdicts.some((v) => v.includes('FAILED'))).toBe(true);
    expect(verdicts.some((v) => v.includes('SAME'))).toBe(false);
    expect(cut).toMatch(/_\d+ more rows left out to stay under the size limit; the mildest verdicts went first\._/);
  });
});

describe('annotations of a results file with hostile text in every field', () => {
  const found = collectAnnotations(hostileResults());

  test('are single lines, cut, and name no file outside the repository', () => {
    expect(found.map((a) => a.level)).toEqual(['error', 'notice', 'error', 'error', 'notice', 'warning']);
    for (const a of found) {
      expect(`${a.message}${a.properties.title}`).not.toMatch(/[\r\n]/);
      expect(a.message).not.toContain(TAIL);
      expect(a.properties.file).toBeUndefined();
    }
  });
});

describe('reporting to GitHub Actions', () => {
  test('emits the annotations, sets verdict counts as outputs and appends the job summary', () => {
    const { sink, calls } = fakeSink();
    const summary = join(tmp(), 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    expect(reportToActions(mixed, { sink, env: inActions, summaryPath: summary })).toBe(true);
    expect(calls.error).toHaveLength(3);
    expect(calls.notice).toHaveLength(2);
    expect(calls.warning.map((w) => w[1]?.title)).toEqual(['fusebench: 1 shape on NVIDIA H200 not gated: no baseline']);
    expect(calls.outputs).toEqual({
      slower: 1,
      faster: 1,
      same: 1,
      ambiguous: 1,
      no_baseline: 1,
      skipped: 1,
      errored: 2,
      not_gating: 0,
    });
    const written = readFileSync(summary, 'utf8');
    expect(written).toBe(`# earlier step\n${renderJobSummary(mixed)}`);
  });

  test('takes the summary path from GITHUB_STEP_SUMMARY when none is passed', () => {
    const { sink } = fakeSink();
    const summary = join(tmp(), 'step-summary.md');
    reportToActions(h200, { sink, env: { ...inActions, GITHUB_STEP_SUMMARY: summary } });
    expect(readFileSync(summary, 'utf8')).toContain('## fusebench on NVIDIA H200');
  });

  test('a hostile results file writes an escaped job summary', () => {
    const { sink } = fakeSink();
    const summary = join(tmp(), 'summary.md');
    reportToActions(hostileResults(), { sink, env: inActions, summaryPath: summary });
    const written = readFileSync(summary, 'utf8');
    expect(written).toContain('img src=x');
    expect(injections(written)).toEqual([]);
    expect(tableProblems(written)).toEqual([]);
  });

  test('without GITHUB_OUTPUT no step output is set (never the retired ::set-output), and that is a warning', () => {
    const { sink, calls } = fakeSink();
    const env = { GITHUB_ACTIONS: 'true' };
    reportToActions(mixed, { sink, env, summaryPath: join(tmp(), 's.md') });
    expect(calls.outputs).toEqual({});
    expect(calls.warning.map((w) => w[0])).toContain(
      'fusebench: could not set the step outputs: no output file (GITHUB_OUTPUT is not set)',
    );
  });

  test('does nothing outside GitHub Actions', () => {
    const { sink, calls } = fakeSink();
    expect(reportToActions(mixed, { sink, env: {}, summaryPath: join(tmp(), 'never.md') })).toBe(false);
    expect(calls).toEqual({ error: [], warning: [], notice: [], outputs: {} });
  });

  test('a summary that cannot be written is a warning, never an exception', () => {
    const { sink, calls } = fakeSink();
    const dir = tmp();
    expect(() =>
      reportToActions(mixed, { sink, env: inActions, summaryPath: join(dir, 'missing', 'x.md') }),
    ).not.toThrow();
    expect(calls.warning.at(-1)?.[0]).toMatch(/could not write the job summary to .*missing.*x\.md/);
    expect(calls.outputs.slower).toBe(1);
  });

  test('a sink that throws is caught, and the run goes on to the summary', () => {
    const { sink, calls } = fakeSink();
    const summary = join(tmp(), 'summary.md');
    sink.error = () => {
      throw new Error('broken pipe');
    };
    expect(() => reportToActions(mixed, { sink, env: inActions, summaryPath: summary })).not.toThrow();
    expect(calls.warning[0]?.[0]).toMatch(/could not write the annotations: broken pipe/);
    // The step outputs do not depend on the annotations (GitHub's output file missing is its own warning).
    expect(calls.outputs.slower).toBe(1);
    expect(readFileSync(summary, 'utf8')).toContain('fusebench on NVIDIA H200');
  });

  test('step outputs that cannot be set are a warning of their own, after the annotations', () => {
    const { sink, calls } = fakeSink();
    sink.setOutput = () => {
      throw new Error('Missing file at path: /tmp/gh-output');
    };
    expect(() => reportToActions(mixed, { sink, env: inActions, summaryPath: join(tmp(), 's.md') })).not.toThrow();
    expect(calls.error.length).toBeGreaterThan(0);
    expect(calls.warning.map((w) => w[0]).filter((m) => m.startsWith('fusebench: could not'))).toEqual([
      'fusebench: could not set the step outputs: Missing file at path: /tmp/gh-output',
    ]);
  });
});

describe('the job summary', () => {
  test('is the comparison Markdown of the PR comment, without base columns', () => {
    const md = renderJobSummary(mixed);
    expect(md).toMatch(/^## fusebench on NVIDIA H200\n/);
    expect(md).toContain(
      '**2 failed or errored** · **1 slower** · 1 ambiguous · 1 faster · 1 same · 1 without a baseline · 1 skipped',
    );
    expect(md).toContain('| Case | Shape | Precision | Speedup [95% CI] | Baseline | Verdict vs baseline |');
    expect(md).not.toContain('No base run');
    expect(tableProblems(md)).toEqual([]);
  });
});

describe('the perf reporter', () => {
  test('at the end of the run writes the results and reports them to Actions through the sink it was given', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const out = tmp();
    const options = {
      ...(parsePerfArgs(['--out-dir', out], { seed: 1 }) as NonNullable<ReturnType<typeof parsePerfArgs>>),
    };
    const { sink, calls } = fakeSink();
    const summary = join(out, 'summary.md');
    const reporter = new PerfReporter(options, '0.1.0', { sink, env: { ...inActions, GITHUB_STEP_SUMMARY: summary } });
    const tests = mixed.cases.map((result) => {
      const meta: PerfMeta = { result, device: mixed.device, backendReason: mixed.backendReason, budgetMs: 3000 };
      return { meta: () => ({ fusebench: meta }) };
    });
    await reporter.onTestRunEnd([{ children: { allTests: () => tests }, errors: () => [] }] as unknown as TestModule[]);
    expect(written(join(out, 'fusebench-results.json')).cases).toHaveLength(mixed.cases.length);
    const md = readFileSync(join(out, 'BENCHMARK_RESULTS.md'), 'utf8');
    expect(md).toContain('**🔴 SLOWER**');
    // The roofline the report shows is written beside it.
    expect(md).toContain('](benchmark-charts/roofline-nvidia-h200-fp32.svg)');
    expect(readFileSync(join(out, 'benchmark-charts', 'roofline-nvidia-h200-fp32.svg'), 'utf8')).toMatch(/^<svg /);
    expect(calls.error).toHaveLength(3);
    expect(calls.outputs.slower).toBe(1);
    expect(readFileSync(summary, 'utf8')).toContain('## fusebench on NVIDIA H200');
    vi.restoreAllMocks();
  });

  test('writes the Bencher and github-action-benchmark exports beside the results, which name the commit and branch', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const out = tmp();
    const options = parsePerfArgs(['--out-dir', out], { seed: 1 }) as NonNullable<ReturnType<typeof parsePerfArgs>>;
    const env = { FUSEBENCH_COMMIT: '3f6141c8923b', GITHUB_REF_NAME: 'main' };
    const reporter = new PerfReporter(options, '0.1.0', { sink: fakeSink().sink, env });
    const tests = mixed.cases.map((result) => {
      const meta: PerfMeta = { result, device: mixed.device, backendReason: mixed.backendReason, budgetMs: 3000 };
      return { meta: () => ({ fusebench: meta }) };
    });
    await reporter.onTestRunEnd([{ children: { allTests: () => tests }, errors: () => [] }] as unknown as TestModule[]);
    const measured = mixed.cases.filter((c) => c.status === 'measured').map((c) => c.key);
    expect(Object.keys(JSON.parse(readFileSync(join(out, 'bencher.json'), 'utf8')))).toEqual(measured);
    const action = JSON.parse(readFileSync(join(out, 'benchmark-action.json'), 'utf8')) as { name: string }[];
    expect(action.map((e) => e.name)).toEqual(measured);
    expect(reporter.writeFailures).toEqual([]);
    expect(written(join(out, 'fusebench-results.json')).source).toEqual({ commit: '3f6141c8923b', branch: 'main' });
    vi.restoreAllMocks();
  });

  test('a second run keeps the first one’s results as previous/ and names compare (no command to paste: the path holds a newline); no line carries a workflow command', async () => {
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => {
      printed.push(a.join(' '));
    });
    const out = join(tmp(), 'runs\n::error::x');
    const options = parsePerfArgs(['--out-dir', out], { seed: 1 }) as NonNullable<ReturnType<typeof parsePerfArgs>>;
    const tests = mixed.cases.map((result) => {
      const meta: PerfMeta = { result, device: mixed.device, backendReason: mixed.backendReason, budgetMs: 3000 };
      return { meta: () => ({ fusebench: meta }) };
    });
    const run = () =>
      new PerfReporter(options, '0.1.0', { sink: fakeSink().sink, env: {} }).onTestRunEnd([
        { children: { allTests: () => tests }, errors: () => [] },
      ] as unknown as TestModule[]);
    await run();
    expect(printed.join('\n')).not.toContain('the run before');
    printed.length = 0;
    await run();
    const kept = printed.find((l) => l.startsWith('the run before is kept as '));
    expect(kept).toMatch(
      /previous\/fusebench-results\.json; compare the two with fusebench compare \(their paths hold control characters, which no command to paste keeps\)$/,
    );
    expect(written(join(out, 'previous', 'fusebench-results.json')).cases).toHaveLength(mixed.cases.length);
    expect(printed.join('\n')).not.toMatch(/^::/m); // the out-dir's newline and "::error::" were neutralised
    expect(printed.find((l) => l.startsWith('\nwrote '))).toContain('fusebench-results.json');
    vi.restoreAllMocks();
  });
});

describe('on shapes gated on batched timing, every output shows what the gate judged', () => {
  // gelu_scale 1K fp32 in this H100 run: one call per sample 1.69x, batched 1.87x, gated on batched.
  const run = readResults(join(import.meta.dirname, '..', 'fixtures', 'h100-results-cb047cf.json'));
  const key = 'gelu_scale/1K/fp32';
  const c = run.cases.find((x) => x.key === key);
  const batched = c?.batched?.speedup;
  const decision = c?.gate?.speedup;
  if (!c || !batched || !decision || c.gatedOn !== 'batched') throw new Error(`${key} is not gated on batched timing`);
  const shown = `${speedup(batched, true)}`;
  const change = signedPct(decision.current / decision.baseline);

  test('the job summary and the PR comment: the batched speedup and the gate’s own change', () => {
    for (const md of [renderJobSummary(run), renderPrComment([{ results: run, base: { results: run } }])]) {
      const row = markdownTables(md)[0]?.rows.find((r) => r[0] === c.title && r[1] === '1K' && r[2] === 'fp32');
      expect(row?.join(' | ')).toContain(shown);
      expect(row?.join(' | ')).toContain(`(${change})`);
      expect(row?.join(' | ')).not.toContain(times(c.speedup?.estimate ?? 0));
    }
  });

  test('a SLOWER annotation: the batched speedup beside the gate’s numbers', () => {
    const slower = structuredClone(run);
    const s = slower.cases.find((x) => x.key === key);
    if (s?.gate) s.gate.status = 'SLOWER';
    const note = collectAnnotations(slower).find((a) => a.level === 'error');
    expect(note?.message).toContain(`speedup ${shown} vs baseline ${times(decision.baseline)} (${change})`);
  });
});

test('against a base run without batched samples, the PR comment shows both speedups of the timing the change was decided on', () => {
  const run = readResults(join(import.meta.dirname, '..', 'fixtures', 'h100-results-cb047cf.json'));
  const base = structuredClone(run);
  for (const c of base.cases) {
    delete c.batched;
    delete c.gatedOn;
  }
  const c = run.cases.find((x) => x.key === 'gelu_scale/1K/fp32');
  if (!c?.speedup || !c.batched) throw new Error('gelu_scale/1K/fp32 has no batched timing');
  const md = renderPrComment([{ results: run, base: { results: base } }]);
  const row = markdownTables(md)[0]?.rows.find((r) => r[0] === c.title && r[1] === '1K' && r[2] === 'fp32');
  // Base and PR columns per call, as the ±0.0% decision beside them; never the batched 1.87x.
  expect(row?.[3]).toBe(times(c.speedup.estimate));
  expect(row?.[4]).toBe(speedup(c.speedup));
  expect(row?.[5]).toMatch(/±0\.0%/);
  expect(row?.join(' | ')).not.toContain(times(c.batched.speedup.estimate));
});
