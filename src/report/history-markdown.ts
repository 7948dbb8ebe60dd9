/**
 * The history section of a Markdown report (BENCHMARK_RESULTS.md, `npm run history -- --out`): per case
 * a chart of its speedup over the last commits (an SVG file, history-svg.ts, referenced as an image) and
 * one line per shape with its range and latest value. Returns the Markdown and the image files to write
 * beside it; writes nothing. Every string from a history file is escaped (escape.ts). Pure.
 */

import { times } from '../base/format.ts';
import type { HistoryRecord } from '../history/history-record.ts';
import { type CaseHistory, caseHistories, DEFAULT_HISTORY_COMMITS, shortCommit } from '../history/history-series.ts';
import { verdictLabel } from '../results/verdict.ts';
import { join, type Markdown, md, name, text } from './escape.ts';
import { renderHistorySvg } from './history-svg.ts';

/** An image the section refers to: its path relative to the Markdown file, and its content. */
export interface HistoryImage {
  path: string;
  svg: string;
}

/** How the section is drawn. */
export interface HistorySectionOptions {
  /** Commits shown (default 20). */
  last?: number;
  /** Folder of the images, relative to the Markdown file ("benchmark-history/nvidia-h200"). */
  imageDir: string;
  /** The device named in the charts (default: the latest record's). */
  device?: string;
}

/** A case name as a file name: letters, digits, `_` and `-` only; never empty, never a path. */
function imageName(caseName: string, taken: Set<string>): string {
  const base = caseName.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 80) || 'case';
  let nameOut = base;
  for (let i = 2; taken.has(nameOut); i++) nameOut = `${base}-${i}`;
  taken.add(nameOut);
  return `${nameOut}.svg`;
}

function shapeLine(h: CaseHistory, s: CaseHistory['series'][number]): Markdown {
  const last = s.points.at(-1);
  if (!last) return md`${name(s.shape)}: not measured`;
  const values = s.points.map((p) => p.estimate);
  const range =
    s.points.length === 1
      ? md`one point`
      : md`${String(s.points.length)} of ${String(h.commits.length)} commits, ${times(Math.min(...values))} to ${times(Math.max(...values))}`;
  return md`**${name(s.shape)}**: ${range}; latest ${times(last.estimate)} at ${text(shortCommit(h.commits[last.index] ?? ''), 12)} (${verdictLabel(last.verdict)})`;
}

/** The section for one device's history; empty Markdown and no images when nothing was measured. */
export function renderHistorySection(
  records: HistoryRecord[],
  options: HistorySectionOptions,
): { markdown: string; images: HistoryImage[] } {
  const last = options.last ?? DEFAULT_HISTORY_COMMITS;
  const histories = caseHistories(records, last);
  if (histories.length === 0) return { markdown: '', images: [] };
  const device = options.device ?? records.at(-1)?.device.name ?? 'this device';
  const taken = new Set<string>();
  const images: HistoryImage[] = [];
  const parts: string[] = [];
  const commits = histories[0]?.commits.length ?? 0;
  parts.push(
    md`Speedup of each case over the last ${String(commits)} measured commit${commits === 1 ? '' : 's'} on ${name(device)} (from the perf-history branch; oldest left, whiskers the 95% interval, gaps where a shape was not measured).`
      .markdown,
    '',
  );
  for (const h of histories) {
    const path = `${options.imageDir}/${imageName(`${h.case}-${h.dtype}`, taken)}`;
    images.push({ path, svg: renderHistorySvg(h, device) });
    // The path is ours (imageName keeps it to safe characters); the alt text is escaped.
    parts.push(
      `![${md`${name(h.case)} (${h.dtype}) speedup over the last ${String(h.commits.length)} commits`.markdown}](${encodeURI(path)})`,
      '',
      join(
        h.series.map((s) => shapeLine(h, s)),
        ' · ',
      ).markdown,
      '',
    );
  }
  return { markdown: parts.join('\n'), images };
}
