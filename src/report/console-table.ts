/**
 * The table `npm run perf` prints: one row per case and shape, narrow enough for a terminal. What does not
 * fit a cell goes on its own line under the table (console-summary.ts): why a case did not run, batched
 * timing, an injected regression. Verdicts are coloured only when asked (color.ts decides). Pure.
 */

import { ms, pct, sci, signedPct, speedup, throughput, times } from '../base/format.ts';
import { gatedOnBatched } from '../gate/judged-timing.ts';
import type { ResultsFile } from '../results/results.ts';
import { caseVerdict } from '../results/verdict.ts';
import { padTable, paintVerdict } from './color.ts';

/** Column headers of the console table. */
const CONSOLE_HEADER = [
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

/** The gate's verdict with the change of each metric it decided on: "SLOWER speedup −12.3%, time +14.0%". */
function verdictCell(c: ResultsFile['cases'][number]): string {
  const g = c.gate;
  const sp = g?.speedup ? ` speedup ${signedPct(Math.exp(g.speedup.diff.estimate))}` : '';
  const ft = g?.fusedTime ? `, time ${signedPct(Math.exp(-g.fusedTime.diff.estimate))}` : '';
  const notes = `${g?.remeasured ? ' (re-measured)' : ''}${g && !g.gating && g.status !== 'NO_BASELINE' ? ' (non-gating)' : ''}${gatedOnBatched(c) ? ' (batched)' : ''}`;
  return `${caseVerdict(c)}${sp}${ft}${notes}`;
}

/** The rows of the console table, as strings; a case that did not run has only its verdict (its reason goes under the table). */
function consoleRows(results: ResultsFile): string[][] {
  return results.cases.map((c) => {
    if (c.status !== 'measured' || !c.timing || !c.speedup) {
      return [c.case, c.shape.label, c.dtype, '', '', '', '', '', '', caseVerdict(c)];
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
      verdictCell(c),
    ];
  });
}

/** Pads columns to a plain-text table; with `color`, the verdict column is coloured by verdict. */
export function renderConsoleTable(results: ResultsFile, color = false): string {
  const rows = [CONSOLE_HEADER, ...consoleRows(results)];
  const verdictColumn = CONSOLE_HEADER.length - 1;
  const lines = padTable(rows, (r, c, s) => {
    const result = results.cases[r - 1];
    return r > 0 && c === verdictColumn && result ? paintVerdict(s, caseVerdict(result), color) : s;
  });
  const widths = CONSOLE_HEADER.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return [lines[0] ?? '', widths.map((w) => '-'.repeat(w)).join('  '), ...lines.slice(1)].join('\n');
}
