// The graph twin (the unfused twin replayed from a CUDA graph, timed against the fused variant) on a
// simulated device: what it measures, with which timing, continued on a second look, and why it is missing
// where no graph can be recorded; and how the console and BENCHMARK_RESULTS.md show it.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { renderBenchmarkMarkdown } from '../../src/report/benchmark-markdown.ts';
import { consoleNotes } from '../../src/report/console-summary.ts';
import { type ResultsFile, readResults } from '../../src/results/results.ts';
import { type GraphTimed, measureGraphTwin } from '../../src/run/graph-twin.ts';
import { REALISTIC, SimulatedDevice } from '../support/noise-model.ts';

const variants = { unfused: 'unfused', fused: 'fused' };
const settings = { minPairs: 30, warmupPairs: 0, budgetMs: 0, targetHalfWidth: 0.01 };

/** A device whose unfused twin takes 0.008 ms eagerly, 0.006 ms from a graph, and whose fused variant 0.004 ms. */
function device(seed: number) {
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
});

describe('the graph twin in the reports', () => {
  const r: ResultsFile = readResults(join(import.meta.dirname, '..', 'fixtures', 'h200-results.json'));
  const measured = r.cases.findIndex((c) => c.status === 'measured');
  const withTwin: ResultsFile = {
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
              speedup: { estimate: 1.45, lo: 1.43, hi: 1.47, confidence: 0.95 },
              samples: { graph: [0.0061], fused: [0.0042] },
            },
          }
        : c,
    ),
  };

  test('the console names the graph twin’s time and the fused speedup over it', () => {
    const line = consoleNotes(withTwin).find((l) => l.includes('graph twin'));
    expect(line).toMatch(/unfused from a CUDA graph 0\.006100 ms, fused 0\.004200 ms per call/);
    expect(line).toMatch(/fused speedup over the graph 1\.45x \[1\.43, 1\.47\]/);
  });

  test('BENCHMARK_RESULTS.md has a row for it, reported and not gated', () => {
    const md = renderBenchmarkMarkdown([withTwin]);
    expect(md).toMatch(
      /\| Median time, unfused twin from a CUDA graph \(per call\) \| 0\.006100 ms \| 0\.004200 ms \| 1\.45x \[1\.43, 1\.47\] \(95% CI\) over the graph; reported, not gated \|/,
    );
  });
});
