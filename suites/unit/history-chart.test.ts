// The history chart of one GPU × case × shape × precision: its data from history records and the device's
// baselines, the Vega-Lite spec's data, and the SVG Vega draws (gaps, SLOWER rings, dates, links, bands).
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { baselineFileSchema } from '../../src/gate/baseline-file.ts';
import type { HistoryRecord } from '../../src/history/history-record.ts';
import { type HistoryChart, historyCharts, historySpec } from '../../src/report/charts/history-chart.ts';
import { renderSvg } from '../../src/report/charts/render-svg.ts';
import { readJsonFile, readResults } from '../../src/results/results.ts';
import { layerData, markCount, markGroup, markLinks, svgInjections } from '../support/chart-check.ts';
import { historyAt } from '../support/history-at.ts';
import { hostile } from '../support/hostile-results.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const run = readResults(join(fixtures, 'h200-gate-run.json'));
const baselineFile = join(fixtures, 'h200-baseline.json');
const baselines = { file: 'baselines/nvidia-h200.json', data: readJsonFile(baselineFileSchema, baselineFile) };
const repositoryUrl = 'https://github.com/example/fusebench';

/** The gate run as measured at `commit` on `day`, each speedup scaled by `factor`, without the shapes in `drop`. */
const at = (commit: string, day: number, factor = 1, drop: string[] = []) => historyAt(commit, { day, factor, drop });

const c1 = 'c1aaaaaaaaaa';
const c2 = 'c2bbbbbbbbbb';
const c3 = 'c3cccccccccc';
const records = [at(c1, 20), at(c2, 21, 0.9, ['1M']), at(c3, 22, 1.1)];
records[2] = { ...records[2], cases: { ...records[2]?.cases } } as HistoryRecord;
const slower = records[2]?.cases['gelu_scale/1M/fp32'];
if (slower) slower.verdict = 'SLOWER';
const charts = historyCharts(records, { baselines, repositoryUrl });
const chart = (key: string) => charts.find((c) => `${c.case}/${c.shape}/${c.dtype}` === key) as HistoryChart;

describe('the history charts of a device', () => {
  test('one per case, shape and precision measured, each over every commit of the window', () => {
    expect(charts.map((c) => `${c.case}/${c.shape}/${c.dtype}`).sort()).toEqual(run.cases.map((c) => c.key).sort());
    for (const c of charts) {
      expect(c.commits.map((x) => x.commit)).toEqual([c1, c2, c3]);
      expect(c.device).toEqual({ name: 'NVIDIA H200', slug: 'nvidia-h200' });
    }
  });

  test('a point only where the shape was measured; its speedup, interval, fused time and verdict as recorded', () => {
    const oneM = chart('gelu_scale/1M/fp32');
    expect(oneM.points.map((p) => [p.index, p.commit, p.verdict])).toEqual([
      [0, c1, 'SAME'],
      [2, c3, 'SLOWER'],
    ]);
    const recorded = records[2]?.cases['gelu_scale/1M/fp32'];
    expect(oneM.points[1]).toMatchObject({
      speedup: recorded?.speedup?.[0],
      lo: recorded?.speedup?.[1],
      hi: recorded?.speedup?.[2],
      fusedMs: recorded?.fusedMs,
      date: '2026-11-22T12:00:00.000Z',
    });
  });

  test('the baseline band is the stored baseline and its δ, from the device’s baseline file', () => {
    const entry = baselines.data.entries['gelu_scale/16M/fp32'];
    expect(chart('gelu_scale/16M/fp32').baseline).toEqual({
      file: 'baselines/nvidia-h200.json',
      speedup: entry?.speedup.estimate,
      delta: entry?.tolerance,
      fusedMs: entry?.fusedMedianMs,
      fusedDelta: entry?.tolerance,
      method: 'per-call',
    });
  });

  test('no band without a baseline entry, or with a baseline of another timing method, and the chart says why', () => {
    expect(historyCharts(records)[0]?.noBaseline).toBe('no baseline file given');
    const none = { ...baselines, data: { ...baselines.data, entries: {} } };
    expect(historyCharts(records, { baselines: none })[0]?.noBaseline).toBe('no entry in baselines/nvidia-h200.json');
    const batched = structuredClone(baselines);
    for (const e of Object.values(batched.data.entries)) e.method = 'batched';
    const [c] = historyCharts(records, { baselines: batched });
    expect(c?.baseline).toBeUndefined();
    expect(c?.noBaseline).toBe(
      'the baseline in baselines/nvidia-h200.json is of batched timing, the latest point is not',
    );
  });

  test('an empty history has no chart', () => {
    expect(historyCharts([], { baselines })).toEqual([]);
  });
});

describe('the history chart spec and its SVG', () => {
  const oneM = chart('gelu_scale/1M/fp32');
  const spec = historySpec(oneM);

  test('the spec’s points are the chart’s points, one row per commit (null where not measured)', () => {
    expect(layerData(spec, 'speedup_line')?.map((d) => d.speedup)).toEqual([
      oneM.points[0]?.speedup,
      null,
      oneM.points[1]?.speedup,
    ]);
    expect(layerData(spec, 'speedup_points')?.map((d) => [d.speedup, d.lo, d.hi, d.fusedMs])).toEqual(
      oneM.points.map((p) => [p.speedup, p.lo, p.hi, p.fusedMs]),
    );
    expect(layerData(spec, 'fusedMs_points')?.map((d) => d.fusedMs)).toEqual(oneM.points.map((p) => p.fusedMs));
    const b = oneM.baseline;
    if (!b) throw new Error('gelu_scale/1M/fp32 has an H200 baseline');
    expect(layerData(spec, 'speedup_baseline_band')).toEqual([
      // The decision's band, symmetric in log: as far above as below.
      { speedup: b.speedup * (1 - b.delta), hi: b.speedup / (1 - b.delta) },
    ]);
    expect(layerData(spec, 'fusedMs_baseline_band')).toEqual([
      { fusedMs: (b.fusedMs ?? 0) * (1 - b.fusedDelta), hi: (b.fusedMs ?? 0) / (1 - b.fusedDelta) },
    ]);
  });

  test('draws a point per measured commit, a ring per SLOWER one, and breaks the line at the gap', async () => {
    const svg = await renderSvg(spec);
    expect(markCount(svg, 'speedup_points')).toBe(2);
    expect(markCount(svg, 'fusedMs_points')).toBe(2);
    expect(markCount(svg, 'speedup_slower')).toBe(1);
    expect(markCount(svg, 'speedup_baseline_band')).toBe(1);
    // Two points with a commit between them not measured: two separate pieces of line, never one segment.
    const line = markGroup(svg, 'speedup_line');
    expect(line).not.toMatch(/d="M[^"]*L/);
    const full = await renderSvg(historySpec(chart('gelu_scale/16M/fp32')));
    expect(markGroup(full, 'speedup_line')).toMatch(/d="M[^"M]*L[^"M]*L[^"M]*"/);
    expect(markCount(full, 'speedup_slower')).toBe(0);
  });

  test('dates and short commit ids on the axis, oldest left; each point links to its commit', async () => {
    const svg = await renderSvg(spec);
    const labels = [...svg.matchAll(/role-axis-label[\s\S]*?<\/g>/g)].flatMap((g) =>
      [...g[0].matchAll(/>([^<]+)<\/text>/g)].map((m) => m[1]),
    );
    expect(labels).toEqual(expect.arrayContaining(['2026-11-20 c1aaaaa', '2026-11-21 c2bbbbb', '2026-11-22 c3ccccc']));
    expect(markLinks(svg, 'speedup_points')).toEqual([
      `${repositoryUrl}/commit/${c1}`,
      `${repositoryUrl}/commit/${c3}`,
    ]);
    expect(markGroup(svg, 'speedup_points')).toContain(
      '; commit: c3cccccccccc; date: 2026-11-22T12:00:00.000Z; speedup: ',
    );
  });

  test('no link for a commit that is no commit id, nor under a repository URL that is not http(s)', async () => {
    const unknown = historyCharts([at('unknown', 20)], { repositoryUrl });
    const bad = historyCharts(records, { repositoryUrl: 'javascript:alert(1)//' });
    for (const c of [unknown[0], bad[0]]) {
      if (!c) throw new Error('a chart');
      const svg = await renderSvg(historySpec(c));
      expect(markLinks(svg, 'speedup_points')).toEqual([]);
      expect(svgInjections(svg)).toEqual([]);
    }
  });

  test('a single commit: one visible point and no line', async () => {
    const [one] = historyCharts([at(c1, 20)], { baselines });
    if (!one) throw new Error('a chart');
    const svg = await renderSvg(historySpec(one));
    expect(markCount(svg, 'speedup_points')).toBe(1);
    expect(markGroup(svg, 'speedup_line')).not.toMatch(/d="M[^"]*L/);
  });

  test('strings from a history file are drawn as text, never as markup', async () => {
    const evil = at(hostile('commit'), 20);
    evil.date = hostile('date');
    evil.device = { name: hostile('device'), slug: 'x' };
    for (const c of Object.values(evil.cases)) {
      c.case = hostile('case');
      c.shape = hostile('shape');
    }
    const [c] = historyCharts([evil], { baselines, repositoryUrl });
    if (!c) throw new Error('a chart');
    const svg = await renderSvg(historySpec(c));
    expect(svgInjections(svg)).toEqual([]);
    expect(svg).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});
