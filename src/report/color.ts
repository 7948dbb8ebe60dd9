/**
 * Verdict colours for console output. Colour only reaches a terminal: never when the stream is not a
 * TTY (a pipe, a file, CI logs captured as text), never to a terminal that says it has no capabilities
 * (TERM=dumb) and never when NO_COLOR is set to a non-empty value (https://no-color.org). Renderers take
 * the decision as a boolean, so they stay pure and testable.
 */

import { logText } from '../base/log-text.ts';
import type { RowVerdict } from '../results/verdict.ts';

/** Whether output to `stream` may carry ANSI colour codes under `env`. */
export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return capableTerminal(stream, env);
}

/** Whether `stream` is a terminal that takes escape codes (colour, the progress line redrawn in place). */
export function capableTerminal(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** SGR codes: [on, off]. */
const STYLES = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  dim: [2, 22],
} as const;

type Style = keyof typeof STYLES;

const VERDICT_STYLE: Record<RowVerdict, Style | undefined> = {
  SLOWER: 'red',
  FAILED: 'red',
  ERRORED: 'red',
  AMBIGUOUS: 'yellow',
  FASTER: 'green',
  SAME: undefined,
  NO_BASELINE: 'dim',
  SKIPPED: 'dim',
};

/** `text` in the verdict's colour when `enabled`; unchanged otherwise. */
export function paintVerdict(text: string, verdict: RowVerdict, enabled: boolean): string {
  const style = VERDICT_STYLE[verdict];
  if (!enabled || !style || text.length === 0) return text;
  const [on, off] = STYLES[style];
  return `\u001b[${on}m${text}\u001b[${off}m`;
}

/** Pads plain cells to columns, then colours each cell with `paint(row, column, padded)`; rows are trimmed at the end. */
export function padTable(
  rows: string[][],
  paint: (row: number, column: number, padded: string) => string = (_r, _c, s) => s,
): string[] {
  // Cells may hold a file's strings: one line each, controls visible, no workflow command (log-text.ts).
  rows = rows.map((r) => r.map((cell) => logText(cell)));
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r, ri) => {
    const cells = widths.map((w, ci) => (r[ci] ?? '').padEnd(ci === columns - 1 ? 0 : w));
    // Trim the padding of trailing empty cells before colouring, so no line ends in spaces.
    let last = cells.length;
    while (last > 0 && (cells[last - 1] ?? '').trim() === '') last--;
    const kept = cells.slice(0, last);
    if (kept.length > 0) kept[kept.length - 1] = (kept[kept.length - 1] ?? '').trimEnd();
    return kept.map((c, ci) => paint(ri, ci, c)).join('  ');
  });
}

/** A header, a rule of dashes under each column, then the rows: padded as padTable pads them; with `paint`, coloured. */
export function ruledTable(
  rows: string[][],
  paint?: (row: number, column: number, padded: string) => string,
): string[] {
  const lines = padTable(rows, paint);
  const header = rows[0] ?? [];
  const widths = header.map((_, i) => Math.max(...rows.map((r) => logText(r[i] ?? '').length)));
  return [lines[0] ?? '', widths.map((w) => '-'.repeat(w)).join('  '), ...lines.slice(1)];
}
