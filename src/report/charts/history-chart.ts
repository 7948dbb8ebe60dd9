/**
 * The history of one GPU × case × shape × precision over the last commits, as a Vega-Lite chart: the
 * speedup with its 95% interval as a band, the fused time below it, each over the stored baseline's SAME
 * band (the baseline ± its δ, the band inside which the gate says SAME), SLOWER points ringed in red,
 * a gap where the shape was not measured, dates and short commit ids on the axis, and per point a tooltip
 * (commit, date, values) and a link to the commit when the repository's URL is known. The data comes
 * from history records (src/history/) and the device's baseline file (src/gate/); the same spec is drawn
 * to SVG for the Markdown (render-svg.ts) and embedded in the dashboard. Pure.
 */

import type { Field, PositionDef } from 'vega-lite/types_unstable/channeldef.js';
import type { LayerSpec } from 'vega-lite/types_unstable/spec/index.js';
import type { Dtype } from '../../base/dtype.ts';
import type { BaselineFile } from '../../gate/baseline-file.ts';
import type { HistoryRecord } from '../../history/history-record.ts';
import { caseHistories, DEFAULT_HISTORY_COMMITS, lastCommits, shortCommit } from '../../history/history-series.ts';
import { entryKey } from '../../results/results.ts';
import type { RowVerdict } from '../../results/verdict.ts';
import { sameBand } from '../../results/verdict-rule.ts';
import { plain } from '../escape.ts';
import { CHART_CONFIG, type VegaLiteSpec } from './render-svg.ts';

/** One commit on the x axis. */
interface HistoryCommit {
  /** The commit as recorded (full id, `+dirty` when measured with local changes). */
  commit: string;
  /** When it was measured (ISO 8601, as recorded). */
  date: string;
}

/** One measured point of the series. */
interface HistoryChartPoint extends HistoryCommit {
  /** Position among the chart's commits, 0 = oldest. */
  index: number;
  speedup: number;
  lo: number;
  hi: number;
  /** Median time of one fused call, ms (absent in records that lack it). */
  fusedMs?: number;
  verdict: RowVerdict;
  batched: boolean;
}

/** The stored baseline of the series and the gate's SAME band around it. */
interface HistoryBaseline {
  /** The baseline file it comes from. */
  file: string;
  speedup: number;
  /** δ of the speedup decision: SAME while the speedup is within `sameBand(δ, baseline)`. */
  delta: number;
  fusedMs?: number;
  /** δ of the fused-time decision: SAME while the time is within `sameBand(δ, baseline)`. */
  fusedDelta: number;
  method: 'per-call' | 'batched';
}

/** One chart: a GPU, a case, a shape and a precision over the last commits. */
export interface HistoryChart {
  device: { name: string; slug: string };
  case: string;
  shape: string;
  dtype: Dtype;
  /** Every commit of the window, oldest first (the x axis), whether or not this shape was measured at it. */
  commits: HistoryCommit[];
  /** The commits where this shape was measured. */
  points: HistoryChartPoint[];
  /** Absent when the device has no baseline for this key, or one of another timing method than the latest point's. */
  baseline?: HistoryBaseline;
  /** Why there is no baseline band, for the chart's subtitle. */
  noBaseline?: string;
  /** An http(s) repository URL: points link to `<url>/commit/<sha>`. */
  repositoryUrl?: string;
}

/** Where the charts' data comes from beyond the records. */
export interface HistoryChartOptions {
  /** Commits shown (default 20). */
  last?: number;
  /** The device's baseline file, and its path for the subtitle. */
  baselines?: { file: string; data: BaselineFile };
  /** The repository's URL (https://github.com/owner/name), for links to commits. */
  repositoryUrl?: string;
}

/** The SAME band of a key from the device's baselines, or why there is none. */
function baselineOf(
  key: string,
  latest: HistoryChartPoint | undefined,
  baselines: HistoryChartOptions['baselines'],
): { baseline: HistoryBaseline } | { noBaseline: string } {
  if (!baselines) return { noBaseline: 'no baseline file given' };
  const entry = baselines.data.entries[key];
  if (!entry) return { noBaseline: `no entry in ${baselines.file}` };
  const method = entry.method ?? 'per-call';
  if (latest && (latest.batched ? 'batched' : 'per-call') !== method) {
    return { noBaseline: `the baseline in ${baselines.file} is of ${method} timing, the latest point is not` };
  }
  return {
    baseline: {
      file: baselines.file,
      speedup: entry.speedup.estimate,
      delta: entry.tolerance,
      ...(entry.fusedMedianMs !== undefined ? { fusedMs: entry.fusedMedianMs } : {}),
      fusedDelta: entry.fusedTimeTolerance ?? entry.tolerance,
      method,
    },
  };
}

/** An http(s) URL without a trailing slash, or undefined. */
function httpUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href.replace(/\/+$/, '') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One chart per case, shape and precision measured at any of the last commits of one device's history,
 * in order of appearance; none for an empty history.
 */
export function historyCharts(records: HistoryRecord[], options: HistoryChartOptions = {}): HistoryChart[] {
  const last = options.last ?? DEFAULT_HISTORY_COMMITS;
  const runs = lastCommits(records, last);
  const latestRun = runs.at(-1);
  if (!latestRun) return [];
  const commits = runs.map((r) => ({ commit: r.commit, date: r.date }));
  const repositoryUrl = httpUrl(options.repositoryUrl);
  return caseHistories(records, last).flatMap((h) =>
    h.series.map((s) => {
      const points = s.points.map((p) => ({
        commit: h.commits[p.index] ?? '',
        date: h.dates[p.index] ?? '',
        index: p.index,
        speedup: p.estimate,
        lo: p.lo,
        hi: p.hi,
        ...(p.fusedMs !== undefined ? { fusedMs: p.fusedMs } : {}),
        verdict: p.verdict,
        batched: p.batched,
      }));
      return {
        device: { name: latestRun.device.name, slug: latestRun.device.slug },
        case: h.case,
        shape: s.shape,
        dtype: h.dtype,
        commits,
        points,
        ...baselineOf(entryKey(h.case, s.shape, h.dtype), points.at(-1), options.baselines),
        ...(repositoryUrl ? { repositoryUrl } : {}),
      };
    }),
  );
}

/** A 40-hex (or shorter, at least 7) commit id without `+dirty`, or undefined: only those are linked. */
function linkableSha(commit: string): string | undefined {
  const sha = commit.endsWith('+dirty') ? commit.slice(0, -'+dirty'.length) : commit;
  return /^[0-9a-f]{7,40}$/i.test(sha) ? sha : undefined;
}

/** The axis label of each commit: date and short id, unique within the chart (a repeat gets " (2)"). */
function commitLabels(commits: HistoryCommit[]): string[] {
  const seen = new Map<string, number>();
  return commits.map((c) => {
    const base = `${plain(c.date, 40).slice(0, 10)} ${plain(shortCommit(c.commit), 12)}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base} (${n})`;
  });
}

const WIDTH = 640;
const SPEEDUP_HEIGHT = 200;
const TIME_HEIGHT = 120;
const BAND_COLOR = '#2da44e';
const SERIES_COLOR = '#0072b2';
const SLOWER_COLOR = '#cf222e';

/** "9.0%": a δ for the subtitle. */
const pctOf = (d: number) => `${Number((100 * d).toFixed(1))}%`;

/** One metric's panel: the baseline band and line, then the line with gaps, its points and their SLOWER rings. */
function panel(
  rows: Record<string, unknown>[],
  x: PositionDef<Field>,
  metric: {
    field: string;
    title: string;
    height: number;
    band?: [number, number];
    baseline?: number;
    interval: boolean;
  },
  tooltip: { field: string; title: string; format?: string }[],
  links: boolean,
): LayerSpec<Field> {
  const y: PositionDef<Field> = {
    field: metric.field,
    type: 'quantitative',
    title: metric.title,
    scale: { zero: false },
    axis: { format: '~g' },
  };
  const measured = rows.filter((r) => r[metric.field] !== null);
  const name = metric.field;
  return {
    width: WIDTH,
    height: metric.height,
    layer: [
      ...(metric.band && metric.baseline !== undefined
        ? [
            {
              name: `${name}_baseline_band`,
              data: { values: [{ [metric.field]: metric.band[0], hi: metric.band[1] }] },
              mark: { type: 'rect' as const, color: BAND_COLOR, opacity: 0.15 },
              encoding: { y, y2: { field: 'hi' } },
            },
            {
              name: `${name}_baseline`,
              data: { values: [{ [metric.field]: metric.baseline }] },
              mark: { type: 'rule' as const, color: BAND_COLOR, strokeDash: [4, 3] },
              encoding: { y },
            },
          ]
        : []),
      ...(metric.interval
        ? [
            {
              name: `${name}_interval`,
              data: { values: rows },
              mark: { type: 'area' as const, color: SERIES_COLOR, opacity: 0.2 },
              encoding: { x, y: { ...y, field: 'lo' }, y2: { field: 'hi' } },
            },
          ]
        : []),
      {
        name: `${name}_line`,
        data: { values: rows },
        mark: { type: 'line', color: SERIES_COLOR, strokeWidth: 2 },
        encoding: { x, y },
      },
      {
        name: `${name}_points`,
        data: { values: measured },
        mark: { type: 'point', filled: true, size: 40, color: SERIES_COLOR, opacity: 1 },
        encoding: { x, y, tooltip, ...(links ? { href: { field: 'href' } } : {}) },
      },
      {
        name: `${name}_slower`,
        data: { values: measured.filter((r) => r.verdict === 'SLOWER') },
        mark: { type: 'point', filled: false, size: 160, strokeWidth: 2, color: SLOWER_COLOR, opacity: 1 },
        encoding: { x, y },
      },
    ],
  };
}

/** The chart of one series: speedup (interval band) over fused time, both over the baseline's SAME band. */
export function historySpec(chart: HistoryChart): VegaLiteSpec {
  const labels = commitLabels(chart.commits);
  const x: PositionDef<Field> = {
    field: 'commit_label',
    type: 'ordinal',
    title: 'measured (date, commit), oldest left',
    scale: { domain: labels },
    sort: null,
    axis: { labelAngle: -40, labelLimit: 220 },
  };
  const byIndex = new Map(chart.points.map((p) => [p.index, p]));
  const rows = chart.commits.map((c, i) => {
    const p = byIndex.get(i);
    const sha = linkableSha(c.commit);
    return {
      commit_label: labels[i],
      commit: plain(c.commit, 60),
      date: plain(c.date, 40),
      speedup: p ? p.speedup : null,
      lo: p ? p.lo : null,
      hi: p ? p.hi : null,
      fusedMs: p?.fusedMs ?? null,
      verdict: p ? p.verdict : null,
      // No key at all where there is no link: Vega would write a null one as the text "null".
      ...(chart.repositoryUrl && sha ? { href: `${chart.repositoryUrl}/commit/${sha}` } : {}),
    };
  });
  const tooltip = [
    { field: 'commit', title: 'commit' },
    { field: 'date', title: 'date' },
    { field: 'speedup', title: 'speedup', format: '.3f' },
    { field: 'lo', title: '95% interval from', format: '.3f' },
    { field: 'hi', title: '95% interval to', format: '.3f' },
    { field: 'fusedMs', title: 'fused ms', format: '.4~g' },
    { field: 'verdict', title: 'verdict' },
  ];
  const b = chart.baseline;
  const band = b
    ? [
        `Green band: the stored baseline ${Number(b.speedup.toFixed(3))}x ± ${pctOf(b.delta)}${b.fusedMs !== undefined ? ` and ${Number(b.fusedMs.toPrecision(4))} ms ± ${pctOf(b.fusedDelta)}` : ''},`,
        `where the gate says SAME (${plain(b.file, 80)}).`,
      ]
    : [`No baseline band: ${plain(chart.noBaseline ?? 'no baseline', 100)}.`];
  const hasTime = chart.points.some((p) => p.fusedMs !== undefined);
  const links = rows.some((r) => 'href' in r);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `${plain(chart.case, 60)} · ${plain(chart.shape, 40)} · ${chart.dtype} on ${plain(chart.device.name, 60)}`,
      subtitle: [
        `Speedup per commit with its 95% interval (shaded)${hasTime ? '; below, the fused time of one call' : ''}.`,
        'Gaps: not measured at that commit. Red ring: the gate said SLOWER.',
        ...band,
      ],
    },
    config: CHART_CONFIG,
    vconcat: [
      panel(
        rows,
        { ...x, axis: hasTime ? { labels: false, ticks: false, title: null } : x.axis },
        {
          field: 'speedup',
          title: 'speedup (x)',
          height: SPEEDUP_HEIGHT,
          ...(b ? { band: sameBand(b.delta, b.speedup), baseline: b.speedup } : {}),
          interval: true,
        },
        tooltip,
        links,
      ),
      ...(hasTime
        ? [
            panel(
              rows,
              x,
              {
                field: 'fusedMs',
                title: 'fused time (ms)',
                height: TIME_HEIGHT,
                ...(b?.fusedMs !== undefined
                  ? {
                      // A fused time has the same edges: the band is symmetric in log.
                      band: sameBand(b.fusedDelta, b.fusedMs),
                      baseline: b.fusedMs,
                    }
                  : {}),
                interval: false,
              },
              tooltip,
              links,
            ),
          ]
        : []),
    ],
    spacing: 8,
  };
}
