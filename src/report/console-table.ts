/**
 * The table `npm run perf` prints: one row per case and shape, within 120 columns by default (--wide: every
 * column). What does not fit goes on its own line under the table (console-summary.ts): why a case did not
 * run, batched timing, the graph twin, an injected regression. Verdicts are coloured only when asked (color.ts decides). Pure.
 */

import { labelledChange, ms, pct, sci, speedup, throughput, times } from '../base/format.ts';
import { gatedOnBatched } from '../gate/judged-timing.ts';
import type { ResultsFile } from '../results/results.ts';
import { caseVerdict } from '../results/verdict.ts';
import { padTable, paintVerdict } from './color.ts';

/** Column headers of the console table with --wide. */
const WIDE_HEADER = [
  'case',
  'size',
  'dtype',
  'unfused median',
  'fused median',
  'speedup [95% CI]',
  'efficiency vs theoretical',
  'fused throughput',
  'max error',
  'verdict vs baseline',
];

/** The columns shown by default, within 120 columns (the rest are in --wide and BENCHMARK_RESULTS.md). */
const NARROW_COLUMNS = [0, 1, 2, 3, 4, 5, 9];

/** The gate's verdict with the change of each metric it decided on: "SLOWER speedup −12.3%, fused time +14.0%". */
function verdictCell(c: ResultsFile['cases'][number]): string {
  const g = c.gate;
  const change = g ? labelledChange(g, false) : '';
  const notes = `${g?.remeasured ? ' (re-measured)' : ''}${g && !g.gating && g.status !== 'NO_BASELINE' ? ' (non-gating)' : ''}${gatedOnBatched(c) ? ' (batched)' : ''}`;
  return `${caseVerdict(c)}${change ? ` ${change}` : ''}${notes}`;
}

/** The rows of the console table, as strings; a case that did not run has only its verdict (its reason goes under the table). */
function consoleRows(results: ResultsFile, wide: boolean): string[][] {
  return results.cases.map((c) => {
    if (c.status !== 'measured' || !c.timing || !c.speedup) {
      return [c.case, c.shape.label, c.dtype, '', '', '', '', '', '', wide ? caseVerdict(c) : verdictWord(c)];
    }
    const err = Math.max(c.numerics?.unfused.maxAbsError ?? 0, c.numerics?.fused.maxAbsError ?? 0);
    return [
      c.case,
      c.shape.label,
      c.dtype,
      ms(c.timing.unfused.median),
      ms(c.timing.fused.median),
      speedup(c.speedup),
      `${pct(c.efficiency ?? 0)} of ${times(c.traffic.theoreticalSpeedup)}`,
      throughput(c),
      sci(err),
      wide ? verdictCell(c) : verdictWord(c),
    ];
  });
}

/** The verdict alone, with a mark when the gate judged the batched timing (the default table). */
function verdictWord(c: ResultsFile['cases'][number]): string {
  return `${caseVerdict(c)}${gatedOnBatched(c) ? ' (batched)' : ''}`;
}

/**
 * Pads columns to a plain-text table; with `color`, the verdict column is coloured by verdict. By default
 * the columns that fit 120 characters (case, size, dtype, medians, speedup, verdict); `wide`: every column.
 */
export function renderConsoleTable(results: ResultsFile, color = false, wide = false): string {
  const keep = (row: string[]) => (wide ? row : NARROW_COLUMNS.map((i) => row[i] ?? ''));
  const header = keep(WIDE_HEADER);
  const rows = [header, ...consoleRows(results, wide).map(keep)];
  const verdictColumn = header.length - 1;
  const lines = padTable(rows, (r, c, s) => {
    const result = results.cases[r - 1];
    return r > 0 && c === verdictColumn && result ? paintVerdict(s, caseVerdict(result), color) : s;
  });
  const widths = header.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return [lines[0] ?? '', widths.map((w) => '-'.repeat(w)).join('  '), ...lines.slice(1)].join('\n');
}
