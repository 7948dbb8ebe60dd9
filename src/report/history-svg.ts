/**
 * A case's speedup over the last commits as an SVG line chart, drawn from the data. Why SVG and not
 * Mermaid's `xychart-beta` (which the per-run bar charts use): a history has holes (a shape skipped or
 * added at some commit), and xychart-beta cannot leave a gap in a line (mermaid-js/mermaid#5293: every
 * line needs a value at every x) nor name its lines (no legend in the version GitHub renders), so
 * several shapes would be unlabelled lines bridging missing points with invented ones. Here each shape
 * is a named line that breaks where it was not measured, every point carries its 95% interval as a
 * whisker, a single point is a visible dot, and the y axis spans the data (the intervals), not zero or
 * a theoretical maximum. GitHub shows an SVG file referenced from Markdown as an image (not inline SVG),
 * so the chart is a file written beside the Markdown. Every string from a history file is cut to one
 * line and XML-escaped. Pure.
 */

import type { CaseHistory, HistoryPoint } from '../history/history-series.ts';
import { shortCommit } from '../history/history-series.ts';
import { plain } from './escape.ts';

const WIDTH = 760;
const HEIGHT = 340;
const LEFT = 60;
const RIGHT = 20;
const TOP = 64;
const BOTTOM = 78;
// Okabe–Ito colours: told apart by most colour-blind readers.
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#000000', '#999999'];

/** Text for SVG: one line, cut, with the five XML specials escaped. */
function xml(s: string, max = 80): string {
  return plain(s, max)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const fmt = (v: number) => Number(v.toFixed(3)).toString();

/** The values an axis is drawn over are clamped to ±AXIS_LIMIT. */
const AXIS_LIMIT = 1e12;
/** The most ticks an axis gets (about 6 are drawn for any real history). */
const MAX_TICKS = 20;

/** Round tick steps (1, 2, 5 × 10^k) giving about `count` ticks over [lo, hi]. */
function niceStep(span: number, count: number): number {
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const n = raw / mag;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
}

/** The y axis of a chart: its range and ticks, spanning every point's interval with a little room. */
export function yAxisOf(h: CaseHistory): { min: number; max: number; ticks: number[] } {
  // Clamped to ±1e12 (records hold speedups within SPEEDUP_RANGE; this keeps the arithmetic below
  // finite for any input), and a chart with no finite value gets 0–1.
  const values = h.series
    .flatMap((s) => s.points.flatMap((p) => [p.lo, p.estimate, p.hi]))
    .filter(Number.isFinite)
    .map((v) => Math.min(AXIS_LIMIT, Math.max(-AXIS_LIMIT, v)));
  let lo = values.length > 0 ? Math.min(...values) : 0;
  let hi = values.length > 0 ? Math.max(...values) : 1;
  // At least 10% of the values' size top to bottom: a flat history (one point, or differences of 0.2%)
  // must look flat, not be magnified into a zig-zag of noise.
  const minSpan = 0.1 * Math.max(Math.abs(lo), Math.abs(hi)) || 0.1;
  if (hi - lo < minSpan) {
    const mid = (lo + hi) / 2;
    lo = mid - minSpan / 2;
    hi = mid + minSpan / 2;
  }
  const pad = (hi - lo) * 0.08;
  const step = niceStep(hi - lo + 2 * pad, 5);
  const min = Math.max(0, Math.floor((lo - pad) / step) * step);
  const max = Math.ceil((hi + pad) / step) * step;
  // Counted, never accumulated: the loop ends after at most MAX_TICKS + 1 ticks whatever the values.
  const count = Math.min(MAX_TICKS, Math.max(1, Math.round((max - min) / step)));
  const ticks: number[] = [];
  for (let i = 0; i <= count; i++) ticks.push(Number((min + i * step).toPrecision(10)));
  return { min, max, ticks };
}

/** The scales of a chart: commit index → x and speedup → y, in SVG units. */
export function chartScales(h: CaseHistory): { x: (index: number) => number; y: (v: number) => number } {
  const { min, max } = yAxisOf(h);
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const n = Math.max(1, h.commits.length);
  return {
    // Each commit gets a slot; its point sits in the middle, so one commit is centred.
    x: (i) => LEFT + ((i + 0.5) * plotW) / n,
    y: (v) => TOP + plotH - ((v - min) / (max - min)) * plotH,
  };
}

/** Runs of consecutive commits: a line is drawn within a run and broken between runs. */
function runsOf(points: HistoryPoint[]): HistoryPoint[][] {
  const runs: HistoryPoint[][] = [];
  for (const p of points) {
    const last = runs.at(-1);
    const prev = last?.at(-1);
    if (last && prev && p.index === prev.index + 1) last.push(p);
    else runs.push([p]);
  }
  return runs;
}

/** The chart of one case on one device, as an SVG document. */
export function renderHistorySvg(h: CaseHistory, device: string): string {
  const { x, y } = chartScales(h);
  const axis = yAxisOf(h);
  const plotBottom = HEIGHT - BOTTOM;
  const out: string[] = [];
  const title = `${h.case} (${h.dtype}) on ${device}: speedup over the last ${h.commits.length} commit${h.commits.length === 1 ? '' : 's'}`;
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="-apple-system, Segoe UI, Helvetica, Arial, sans-serif" font-size="11">`,
    `<title>${xml(title, 200)}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${LEFT}" y="20" font-size="14" font-weight="600" fill="#24292f">${xml(title, 200)}</text>`,
  );
  // Legend: one swatch per shape.
  let lx = LEFT;
  h.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length] as string;
    const label = xml(s.shape, 40);
    out.push(
      `<g class="legend" data-shape="${label}"><line x1="${lx}" y1="38" x2="${lx + 18}" y2="38" stroke="${color}" stroke-width="2.5"/><circle cx="${lx + 9}" cy="38" r="3" fill="${color}"/><text x="${lx + 24}" y="42" fill="#24292f">${label}</text></g>`,
    );
    lx += 34 + 7 * Math.min(40, s.shape.length);
  });
  // Y grid, ticks and title.
  for (const t of axis.ticks) {
    const ty = y(t).toFixed(1);
    out.push(
      `<line x1="${LEFT}" y1="${ty}" x2="${WIDTH - RIGHT}" y2="${ty}" stroke="#d0d7de" stroke-width="1"/>`,
      `<text class="y-tick" x="${LEFT - 6}" y="${ty}" dy="4" text-anchor="end" fill="#57606a">${fmt(t)}x</text>`,
    );
  }
  if (axis.min < 1 && axis.max > 1) {
    const oy = y(1).toFixed(1);
    out.push(
      `<line x1="${LEFT}" y1="${oy}" x2="${WIDTH - RIGHT}" y2="${oy}" stroke="#cf222e" stroke-width="1" stroke-dasharray="4 3"/>`,
      `<text x="${WIDTH - RIGHT}" y="${oy}" dy="-4" text-anchor="end" fill="#cf222e">1x: no speedup</text>`,
    );
  }
  out.push(
    `<text x="14" y="${(TOP + plotBottom) / 2}" transform="rotate(-90 14 ${(TOP + plotBottom) / 2})" text-anchor="middle" fill="#57606a">speedup (x), 95% interval</text>`,
    `<line x1="${LEFT}" y1="${plotBottom}" x2="${WIDTH - RIGHT}" y2="${plotBottom}" stroke="#57606a" stroke-width="1"/>`,
  );
  // X labels: short commit ids, oldest left, slanted so 20 of them fit.
  h.commits.forEach((c, i) => {
    const cx = x(i).toFixed(1);
    out.push(
      `<text class="x-tick" x="${cx}" y="${plotBottom + 14}" transform="rotate(-35 ${cx} ${plotBottom + 14})" text-anchor="end" fill="#57606a" font-family="ui-monospace, SFMono-Regular, Menlo, monospace">${xml(shortCommit(c), 12)}</text>`,
    );
  });
  // Series: whiskers, lines broken at missing commits, then the points on top.
  h.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length] as string;
    const label = xml(s.shape, 40);
    out.push(`<g class="series" data-shape="${label}">`);
    for (const p of s.points) {
      out.push(
        `<line x1="${x(p.index).toFixed(1)}" y1="${y(p.lo).toFixed(1)}" x2="${x(p.index).toFixed(1)}" y2="${y(p.hi).toFixed(1)}" stroke="${color}" stroke-width="1.5" stroke-opacity="0.5"/>`,
      );
    }
    for (const run of runsOf(s.points).filter((r) => r.length > 1)) {
      const d = run.map((p) => `${x(p.index).toFixed(1)},${y(p.estimate).toFixed(1)}`).join(' ');
      out.push(`<polyline points="${d}" fill="none" stroke="${color}" stroke-width="2"/>`);
    }
    for (const p of s.points) {
      const commit = xml(shortCommit(h.commits[p.index] ?? ''), 12);
      const slower = p.verdict === 'SLOWER';
      out.push(
        `<circle data-commit="${commit}" data-speedup="${fmt(p.estimate)}" cx="${x(p.index).toFixed(1)}" cy="${y(p.estimate).toFixed(1)}" r="${slower ? 4.5 : 3.5}" fill="${color}"${slower ? ' stroke="#cf222e" stroke-width="2"' : ''}><title>${label} at ${commit}: ${fmt(p.estimate)}x [${fmt(p.lo)}, ${fmt(p.hi)}], ${xml(p.verdict, 20)}</title></circle>`,
      );
    }
    out.push('</g>');
  });
  out.push(
    `<text x="${LEFT}" y="${HEIGHT - 8}" fill="#57606a">Points: speedup per commit (oldest left); whiskers: its 95% interval; gaps: not measured; red ring: the gate said SLOWER.</text>`,
    '</svg>',
  );
  return `${out.join('\n')}\n`;
}
