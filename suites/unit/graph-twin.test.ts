// The graph twin (the unfused twin replayed from a CUDA graph, timed against the fused variant) on a
// simulated device: what it measures, with which timing, continued on a second look, why it is missing
// where no graph can be recorded, and whether its launches went with programmatic dependent launch (PDL);
// how the console, BENCHMARK_RESULTS.md, the job summary and the PR comment show it; and that results files
// from before PDL was recorded still load.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { GraphFacts } from '../../src/addon/native.ts';
import { renderBenchmarkMarkdown } from '../../src/report/benchmark-markdown.ts';
import { consoleNotes } from '../../src/report/console-summary.ts';
import { renderJobSummary } from '../../src/report/job-summary.ts';
import { renderPrComment } from '../../src/report/pr-comment.ts';
import { type CaseResult, type ResultsFile, readResults } from '../../src/results/results.ts';
import { type GraphTimed, measureGraphTwin } from '../../src/run/graph-twin.ts';
import { markdownTables, tableProblems } from '../support/markdown-check.ts';
import { REALISTIC, SimulatedDevice } from '../support/noise-model.ts';

const variants = { unfused: 'unfused', fused: 'fused' };
const settings = { minPairs: 30, warmupPairs: 0, budgetMs: 0, targetHalfWidth: 0.01 };

/** What an H100 build records for GPT-2 decode's twin: 100 PDL launches of ours, 99 after another kernel. */
const H100_FACTS: GraphFacts = { pdl: true, kernelNodes: 149, programmaticEdges: 99 };

/**
 * A device whose unfused twin takes 0.008 ms eagerly, 0.006 ms from a graph, and whose fused variant
 * 0.004 ms; its graphs hold `facts`.
 */
function device(seed: number, facts: GraphFacts = H100_FACTS) {
  const eager = new SimulatedDevice({ unfused: 0.008, fused: 0.004 }, REALISTIC, seed);
  const graph = new SimulatedDevice({ unfused: 0.006, fused: 0.004 }, REALISTIC, seed + 1);
  const calls: string[] = [];
  const ws: GraphTimed = {
    time: (v) => {
      calls.push(`time ${v}`);
      return eager.time(v);
    },
    timeBatch: (v, n) => {
      calls.push(`batch ${v} ${n}`);
      return eager.time(v);
    },
    timeGraph: (v, n) => {
      calls.push(`graph ${v} ${n}`);
      return graph.time('unfused');
    },
    graphFacts: (v, n) => {
      if (!calls.includes(`graph ${v} ${n}`)) throw new Error(`no graph of ${v} with ${n} calls was recorded`);
      calls.push(`facts ${v} ${n}`);
      return facts;
    },
  };
  return { ws, calls };
}

describe('measureGraphTwin', () => {
  test("the fused variant's speedup over the graph twin, not over the eager twin", () => {
    const g = measureGraphTwin(device(1).ws, variants, 1, settings);
    expect(g.status).toBe('measured');
    if (g.status !== 'measured') return;
    expect(g.graph.median).toBeGreaterThan(0.0055);
    expect(g.graph.median).toBeLessThan(0.0065);
    expect(g.speedup.estimate).toBeGreaterThan(1.4);
    expect(g.speedup.estimate).toBeLessThan(1.6);
    expect(g.samples.graph.length).toBe(g.samples.fused.length);
    expect(g.callsPerSample).toBe(1);
  });

  test('one call per sample times the fused variant per call; batches time it in batches of the same size', () => {
    const one = device(2);
    measureGraphTwin(one.ws, variants, 1, settings);
    expect(one.calls).toContain('time fused');
    expect(one.calls.some((c) => c.startsWith('batch'))).toBe(false);
    expect(one.calls).toContain('graph unfused 1');
    const batched = device(3);
    measureGraphTwin(batched.ws, variants, 64, settings);
    expect(batched.calls).toContain('batch fused 64');
    expect(batched.calls).toContain('graph unfused 64');
    expect(batched.calls).not.toContain('time fused');
  });

  test("the graph's outputs are checked on a replay before any timing; a failing graph is not timed", () => {
    const ok = device(5);
    let replays = 0;
    const passed = measureGraphTwin(ok.ws, variants, 1, settings, undefined, (replay) => {
      replay();
      replays++;
      return undefined;
    });
    expect(passed.status).toBe('measured');
    expect(replays).toBe(1);
    // The replay ran the recorded graph (a second `graph` call) before any timed sample.
    expect(ok.calls.slice(0, 3)).toEqual(['graph unfused 1', 'facts unfused 1', 'graph unfused 1']);
    expect(ok.calls.indexOf('time fused')).toBeGreaterThan(2);

    const bad = device(6);
    const failed = measureGraphTwin(bad.ws, variants, 1, settings, undefined, (replay) => {
      replay();
      return 'unfused out[7] = 3 where the reference has 1';
    });
    expect(failed).toEqual({
      status: 'unavailable',
      reason: 'its outputs fail the numerics check: unfused out[7] = 3 where the reference has 1',
    });
    expect(bad.calls).not.toContain('time fused');
    // A second look (the gate's remeasure) returns the refusal as it was: the failing graph is never timed.
    const again = measureGraphTwin(bad.ws, variants, 1, settings, failed, () => undefined);
    expect(again).toBe(failed);
    expect(bad.calls.filter((c) => c.startsWith('graph')).length).toBe(2);
  });

  test('a second look continues the first one’s samples', () => {
    const d = device(4);
    const first = measureGraphTwin(d.ws, variants, 1, settings);
    const second = measureGraphTwin(d.ws, variants, 1, settings, first);
    if (first.status !== 'measured' || second.status !== 'measured') throw new Error('not measured');
    expect(second.samples.graph.slice(0, first.samples.graph.length)).toEqual(first.samples.graph);
    expect(second.samples.graph.length).toBeGreaterThan(first.samples.graph.length);
  });

  test('where no graph can be recorded, it says why and measures nothing', () => {
    const { ws, calls } = device(5);
    const g = measureGraphTwin(
      {
        ...ws,
        timeGraph: () => {
          throw new Error('the CPU backend has no graphs to replay launches from (CUDA only)');
        },
      },
      variants,
      1,
      settings,
    );
    expect(g).toEqual({
      status: 'unavailable',
      reason: 'the CPU backend has no graphs to replay launches from (CUDA only)',
    });
    expect(calls).toEqual([]);
  });

  test('the result says whether the recorded graph went with PDL, with its own counts', () => {
    const d = device(6);
    const g = measureGraphTwin(d.ws, variants, 64, settings);
    expect(d.calls).toContain('facts unfused 64');
    expect(g).toMatchObject({ status: 'measured', pdl: true, kernelNodes: 149, programmaticEdges: 99 });
    expect(g).not.toHaveProperty('noPdlReason');
    const older = measureGraphTwin(
      device(7, {
        pdl: false,
        kernelNodes: 149,
        programmaticEdges: 0,
        noPdlReason: 'compute capability 8.0: PDL needs 9.0',
      }).ws,
      variants,
      1,
      settings,
    );
    expect(older).toMatchObject({
      status: 'measured',
      pdl: false,
      programmaticEdges: 0,
      noPdlReason: 'compute capability 8.0: PDL needs 9.0',
    });
    // A toolkit that cannot list edge types (CUDA < 12.3) gives no edge count, and none is made up.
    const old = measureGraphTwin(
      device(8, {
        pdl: false,
        kernelNodes: 149,
        noPdlReason: 'built with CUDA 11.8: recording PDL launches into a graph needs 12.3',
      }).ws,
      variants,
      1,
      settings,
    );
    expect(old).not.toHaveProperty('programmaticEdges');
  });
});

describe('the graph twin in the reports', () => {
  const r: ResultsFile = readResults(join(import.meta.dirname, '..', 'fixtures', 'h200-results.json'));
  const measured = r.cases.findIndex((c) => c.status === 'measured');
  type Twin = Extract<NonNullable<CaseResult['graphTwin']>, { status: 'measured' }>;
  /** The fixture with a measured graph twin on its first measured case; `pdl` fields as given (none: an older file). */
  const withTwin = (
    pdl: Pick<Twin, 'pdl' | 'noPdlReason' | 'kernelNodes' | 'programmaticEdges'> = {},
  ): ResultsFile => ({
    ...r,
    cases: r.cases.map((c, i) =>
      i === measured
        ? {
            ...c,
            graphTwin: {
              status: 'measured',
              callsPerSample: 1,
              graph: { ...(c.timing?.unfused as NonNullable<typeof c.timing>['unfused']), median: 0.0061 },
              fused: { ...(c.timing?.fused as NonNullable<typeof c.timing>['fused']), median: 0.0042 },
              speedup: { estimate: 0.0061 / 0.0042, lo: 1.43, hi: 1.47, confidence: 0.95 }, // its samples' ratio
              samples: { graph: [0.0061], fused: [0.0042] },
              ...pdl,
            },
          }
        : c,
    ),
  });
  const notes = (f: ResultsFile) => consoleNotes(f);
  const consoleRow = (f: ResultsFile) => {
    const lines = notes(f);
    const title = lines.findIndex((l) => l.startsWith('graph twin (the unfused launches replayed from a CUDA graph)'));
    return title < 0 ? undefined : lines[title + 3]; // under the title, the header and the rule
  };
  const section = (md: string) => md.slice(md.indexOf('## Launches or fusion'), md.indexOf('## Regenerate'));

  test('the console has a table of the three arms: unfused, its graph, fused, and the fused speedup over each', () => {
    const lines = notes(withTwin());
    expect(lines).toContain(
      'graph twin (the unfused launches replayed from a CUDA graph), per call; each speedup from its own pairs; (b): batched',
    );
    // The unfused and fused medians of the timing the gate judged; the graph's from its own pairs.
    expect(consoleRow(withTwin())).toMatch(
      /^gelu_scale +1K +fp32 +0\.006272 ms +0\.006100 ms +0\.003808 ms +1\.65x +1\.45x \[1\.43, 1\.47\] +—$/,
    ); // a file from before PDL was recorded: "—", and no reason line
    expect(notes(withTwin()).join('\n')).not.toContain('no PDL');
    expect(notes(r).join('\n')).not.toContain('graph twin'); // none measured: no table
  });

  test('a twin timed in batches sits beside the batched timing, marked, even in a file whose gate judged per call', () => {
    const f = withTwin();
    const c = f.cases[measured] as CaseResult;
    if (!c.timing || c.graphTwin?.status !== 'measured') throw new Error('fixture');
    c.graphTwin.callsPerSample = 64;
    c.batched = {
      callsPerSample: 64,
      unfused: { ...c.timing.unfused, median: 0.0021 },
      fused: { ...c.timing.fused, median: 0.0013 },
      speedup: { estimate: 1.615, lo: 1.6, hi: 1.63, confidence: 0.95 },
      samples: c.timing.samples,
    };
    delete c.gatedOn; // an older file: batched timing, the gate on the per-call one
    expect(consoleRow(f)).toMatch(
      /^gelu_scale +1K +fp32 +0\.002100 ms +0\.006100 ms +0\.001300 ms +1\.61x \(b\) +1\.45x /,
    );
    // The table above shows the per-call timing the gate judged, so the batches go under it.
    const lines = notes(f);
    const other = lines.indexOf('the shapes timed both ways, in the timing their row does not show (not judged)');
    expect(lines[other + 3]).toMatch(
      /^gelu_scale +1K +fp32 +0\.002100 ms +0\.001300 ms +1\.61x \[1\.60, 1\.63\] +batches of 64$/,
    );
  });

  test('BENCHMARK_RESULTS.md has a row for it beside the case, and the three arms under the summary; reported, not gated', () => {
    const md = renderBenchmarkMarkdown([withTwin()]);
    expect(md).toMatch(
      /\| Median time, unfused twin from a CUDA graph, per call \| 0\.006100 ms \| 0\.004200 ms \| 1\.45x \[1\.43, 1\.47\] \(95% CI\) over the graph; reported, not gated \|/,
    );
    expect(section(md)).toContain('Reported, not gated.');
    expect(section(md)).toContain(
      '| GELU + scale | 1K | fp32 | 0.006272 ms | 0.006100 ms | 0.003808 ms | 1.65x [1.61, 1.68] | 1.45x [1.43, 1.47] | — |',
    );
    expect(section(md)).not.toContain('No PDL'); // an older file says nothing of PDL
    expect(renderBenchmarkMarkdown([r])).not.toContain('## Launches or fusion');
    // Several GPUs: a column names each row's GPU, and so does the line of a reason.
    const noPdl = withTwin({ pdl: false, noPdlReason: 'built with CUDA 11.8' });
    const other = structuredClone(noPdl);
    other.device = { ...other.device, name: 'NVIDIA H100 80GB HBM3', slug: 'nvidia-h100-80gb-hbm3' };
    const both = section(renderBenchmarkMarkdown([noPdl, other]));
    expect(both).toContain('| Case | Shape | Precision | GPU | Unfused |');
    expect(both).toContain('| GELU + scale | 1K | fp32 | NVIDIA H100 80GB HBM3 | 0.006272 ms |');
    expect(both).toContain(
      `No PDL in GELU + scale 1K fp32 on ${r.device.name}, GELU + scale 1K fp32 on NVIDIA H100 80GB HBM3: built with CUDA 11.8.`,
    );
  });

  test('a graph recorded with PDL is named "graph (PDL)", with its programmatic edges and kernel nodes', () => {
    const f = withTwin({ pdl: true, kernelNodes: 149, programmaticEdges: 99 });
    expect(consoleRow(f)).toMatch(/ 1\.45x \[1\.43, 1\.47\] +99 edges$/);
    expect(notes(f).join('\n')).not.toContain('no PDL');
    const md = renderBenchmarkMarkdown([f]);
    expect(md).toMatch(
      /\| Median time, unfused twin from a CUDA graph \(PDL\), per call \| 0\.006100 ms \| 0\.004200 ms \| 1\.45x \[1\.43, 1\.47\] \(95% CI\) over the graph; reported, not gated; 99 programmatic edges, 149 kernel nodes \|/,
    );
    expect(section(md)).toContain('| 1.45x [1.43, 1.47] | 99 edges |');
    // With PDL but no edge count (a toolkit that cannot list edge types): "yes", not "0 edges".
    expect(consoleRow(withTwin({ pdl: true, kernelNodes: 149 }))).toMatch(/ 1\.45x \[1\.43, 1\.47\] +yes$/);
  });

  test('a graph without PDL is a plain "graph" and says why, once per reason, the reason escaped', () => {
    const f = withTwin({ pdl: false, kernelNodes: 149, programmaticEdges: 0, noPdlReason: 'cc 8.0 | <b>x</b>\nnext' });
    expect(consoleRow(f)).toMatch(/ 1\.45x \[1\.43, 1\.47\] +no$/);
    expect(notes(f)).toContain('no PDL in gelu_scale 1K fp32: cc 8.0 | <b>x</b> next');
    const md = renderBenchmarkMarkdown([f]);
    expect(md).toContain(
      '| Median time, unfused twin from a CUDA graph, per call | 0.006100 ms | 0.004200 ms | 1.45x [1.43, 1.47] (95% CI) over the graph; reported, not gated; 0 programmatic edges, 149 kernel nodes; no PDL: cc 8.0 \\| &lt;b&gt;x&lt;/b&gt; next |',
    );
    expect(section(md)).toContain('No PDL in GELU + scale 1K fp32: cc 8.0 \\| &lt;b&gt;x&lt;/b&gt; next.');
    // Two shapes with the same reason: one line naming both.
    const two = structuredClone(f);
    const other = two.cases.findIndex((c, i) => i !== measured && c.status === 'measured');
    two.cases[other] = { ...(two.cases[other] as CaseResult), graphTwin: two.cases[measured]?.graphTwin };
    const noPdl = notes(two).filter((l) => l.startsWith('no PDL in '));
    expect(noPdl).toHaveLength(1);
    expect(noPdl[0]).toMatch(/^no PDL in gelu_scale 1K fp32, \S+ \S+ \S+: cc 8\.0/);
    // Neither a name nor a reason from the file can print a control character or a workflow command.
    const hostile = withTwin({ pdl: false, noPdlReason: 'ok\n::error::reason ##[group]x\u001b[31m' });
    const c = hostile.cases[measured] as CaseResult;
    hostile.cases[measured] = {
      ...c,
      case: 'gelu\u001b[31m\n::warning::name',
      shape: { ...c.shape, label: '1K\r##[group]' },
    };
    const printed = notes(hostile).join('\n');
    expect(printed).toContain('no PDL in ');
    expect(printed.includes('\u001b') || printed.includes('\r') || printed.includes('##[')).toBe(false);
    expect(printed).not.toMatch(/^::/m);
  });

  test('the job summary and the PR comment carry the three arms, collapsed under the speedups', () => {
    const f = withTwin({ pdl: true, kernelNodes: 149, programmaticEdges: 99 });
    const row =
      '| GELU + scale | 1K | fp32 | 0.006272 ms | 0.006100 ms | 0.003808 ms | 1.65x [1.61, 1.68] | 1.45x [1.43, 1.47] | 99 edges |';
    const summary = renderJobSummary(f);
    const comment = renderPrComment([{ results: f, base: { results: null, why: 'none.' } }]);
    for (const md of [summary, comment]) {
      const at = md.indexOf(
        '<summary>Launches or fusion: the unfused twin replayed from a CUDA graph, 1 shape</summary>',
      );
      expect(at).toBeGreaterThan(md.indexOf('| Case | Shape | Precision |')); // under the speedup table
      expect(md.slice(at)).toContain(row);
      expect(md.slice(at)).toContain('Reported, not gated.');
      expect(tableProblems(md)).toEqual([]);
    }
    expect(renderJobSummary(r)).not.toContain('Launches or fusion'); // none measured: nothing
  });

  test('a PR comment too large for every row leaves the arms out first, and says so', () => {
    const f = withTwin({ pdl: true, kernelNodes: 149, programmaticEdges: 99 });
    const noBase = { results: null, why: 'none.' } as const;
    const whole = renderPrComment([{ results: f, base: noBase }]);
    const arms = whole.slice(whole.indexOf('<details>'), whole.indexOf('</details>') + '</details>'.length);
    expect(arms.length).toBeGreaterThan(500);
    // Room for every row but not for the arms: the rows stay, the arms go, with a line saying where they are.
    const tight = renderPrComment([{ results: f, base: noBase }], { maxChars: whole.length - arms.length + 150 });
    expect(tight).not.toContain('Launches or fusion');
    expect(tight).toContain(
      '_The graph twins’ table is left out to stay under the size limit; BENCHMARK_RESULTS.md has it._',
    );
    expect(markdownTables(tight)[0]?.rows).toHaveLength(f.cases.length);
    expect(tight).not.toContain('left out to stay under the size limit; the mildest');
  });

  test('a results file from before PDL was recorded loads; a PDL field of the wrong type is refused by name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-graph-twin-'));
    const older = join(dir, 'older.json');
    writeFileSync(older, JSON.stringify(withTwin()));
    const twin = readResults(older).cases[measured]?.graphTwin;
    expect(twin).toMatchObject({ status: 'measured', callsPerSample: 1 });
    expect(twin).not.toHaveProperty('pdl');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify(withTwin({ pdl: 'yes' as unknown as boolean })));
    expect(() => readResults(bad)).toThrow(new RegExp(`${bad}.*not valid[\\s\\S]*cases\\[${measured}\\]\\.graphTwin`));
  });
});
