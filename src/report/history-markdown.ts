/**
 * The history section of a Markdown report (BENCHMARK_RESULTS.md, `fusebench history --out`): per case and
 * precision a collapsed block with, per shape, its range and latest value and a chart of its speedup and
 * fused time over the last commits with the baseline's SAME band (charts/history-chart.ts, drawn to SVG
 * and referenced as an image: GitHub shows SVG files, not inline SVG). Lines of the history files that
 * were skipped are named (file:line and why); a history with no measured run says so instead of drawing
 * an empty chart. Returns the Markdown and the image files to write beside it; writes nothing. Every
 * string from a history file is escaped (escape.ts).
 */

import { times } from '../base/format.ts';
import type { BaselineFile } from '../gate/baseline-file.ts';
import type { HistoryRecord } from '../history/history-record.ts';
import { DEFAULT_HISTORY_COMMITS, shortCommit } from '../history/history-series.ts';
import { verdictLabel } from '../results/verdict.ts';
import { type HistoryChart, historyCharts, historySpec } from './charts/history-chart.ts';
import { renderSvg } from './charts/render-svg.ts';
import { codeSpan, htmlText, join, type Markdown, md, name, note, text } from './escape.ts';
import { type ChartFile, fileSafe } from './report-files.ts';

/** How the section is drawn. */
export interface HistorySectionOptions {
  /** Commits shown (default 20). */
  last?: number;
  /** Folder of the images, relative to the Markdown file ("benchmark-history/nvidia-h200"). */
  imageDir: string;
  /** The device named in the text (default: the latest record's). */
  device?: string;
  /** The history files read, named when they hold no measured run. */
  files?: string[];
  /** The lines of those files that were skipped ("file:7: not valid JSON (…); skipped"). */
  problems?: string[];
  /** The device's baseline file, for the charts' SAME band. */
  baselines?: { file: string; data: BaselineFile };
  /** The repository's URL, for links from points to commits. */
  repositoryUrl?: string;
}

/** Skipped lines named in the section, at most this many (then a count). */
const PROBLEMS_SHOWN = 10;

/** "**1K**: 6 of 6 commits, 1.76x to 1.88x; latest 1.87x at cb047cf (⚪ SAME)". */
function shapeLine(chart: HistoryChart): Markdown {
  const last = chart.points.at(-1);
  if (!last) return md`**${name(chart.shape)}**: not measured`;
  const values = chart.points.map((p) => p.speedup);
  const range =
    chart.points.length === 1
      ? md`one point`
      : md`${String(chart.points.length)} of ${String(chart.commits.length)} commits, ${times(Math.min(...values))} to ${times(Math.max(...values))}`;
  return md`**${name(chart.shape)}**: ${range}; latest ${times(last.speedup)} at ${text(shortCommit(last.commit), 12)} (${verdictLabel(last.verdict)})`;
}

/** The skipped lines, named, or nothing. */
function problemLines(problems: string[]): string[] {
  if (problems.length === 0) return [];
  const shown = problems.slice(0, PROBLEMS_SHOWN).map((p) => `> - ${note(p).markdown}`);
  const more = problems.length > PROBLEMS_SHOWN ? [`> - and ${problems.length - PROBLEMS_SHOWN} more`] : [];
  return [
    `> **${problems.length} line${problems.length === 1 ? '' : 's'} of the history skipped** (not a history record; the rest is charted):`,
    ...shown,
    ...more,
    '',
  ];
}

/** The section for one device's history, and the chart files it refers to. */
export async function renderHistorySection(
  records: HistoryRecord[],
  options: HistorySectionOptions,
): Promise<{ markdown: string; images: ChartFile[] }> {
  const last = options.last ?? DEFAULT_HISTORY_COMMITS;
  const charts = historyCharts(records, {
    last,
    ...(options.baselines ? { baselines: options.baselines } : {}),
    ...(options.repositoryUrl ? { repositoryUrl: options.repositoryUrl } : {}),
  });
  const problems = problemLines(options.problems ?? []);
  const device = options.device ?? records.at(-1)?.device.name ?? 'this device';
  if (charts.length === 0) {
    const files = options.files ?? [];
    const where =
      files.length > 0
        ? md` in ${join(
            files.map((f) => codeSpan(f, 200)),
            ', ',
          )}`
        : md``;
    const markdown = [md`No measured run of ${name(device)}${where} yet: nothing to chart.`.markdown, '', ...problems];
    return { markdown: markdown.join('\n'), images: [] };
  }
  const commits = charts[0]?.commits.length ?? 0;
  const parts: string[] = [
    md`Each shape's speedup (95% interval shaded) and fused time over the last ${String(commits)} measured commit${commits === 1 ? '' : 's'} on ${name(device)}, oldest left, dated; the green band is the stored baseline ± its δ, where the gate says SAME; a gap where the shape was not measured; a red ring where the gate said SLOWER.`
      .markdown,
    '',
    ...problems,
  ];
  const taken = new Set<string>();
  const images: ChartFile[] = [];
  const groups = Map.groupBy(charts, (c) => `${c.case}\u0000${c.dtype}`);
  for (const group of groups.values()) {
    const first = group[0] as HistoryChart;
    const body: string[] = [];
    for (const chart of group) {
      const base = `${options.imageDir}/${fileSafe(chart.case)}-${fileSafe(chart.shape, 60)}-${chart.dtype}`;
      let path = `${base}.svg`;
      for (let i = 2; taken.has(path); i++) path = `${base}-${i}.svg`;
      taken.add(path);
      images.push({ path, svg: await renderSvg(historySpec(chart)) });
      // The path is ours (fileSafe keeps it to safe characters); the alt text is escaped.
      const alt = md`${name(chart.case)} ${name(chart.shape)} (${chart.dtype}) over the last ${String(chart.commits.length)} commits`;
      body.push(shapeLine(chart).markdown, '', `![${alt.markdown}](${encodeURI(path)})`, '');
    }
    const n = group.length;
    parts.push(
      '<details>',
      `<summary>${md`${htmlText(first.case)} · ${first.dtype}: ${String(n)} shape${n === 1 ? '' : 's'}`.markdown}</summary>`,
      '',
      ...body,
      '</details>',
      '',
    );
  }
  return { markdown: parts.join('\n'), images };
}
