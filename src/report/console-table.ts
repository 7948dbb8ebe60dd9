/** The table `npm run perf` prints: one row per case and shape. */
import type { ResultsFile } from '../results.ts';
import { ms, pct, sci, signedPct, speedup, throughput, times } from './format.ts';
import { caseVerdict } from './verdict.ts';

/** Column headers of the console table. */
export const CONSOLE_HEADER = [
  'case',
  'size',
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
  const notes = `${g?.remeasured ? ' (re-measured)' : ''}${g && !g.gating && g.status !== 'NO_BASELINE' ? ' (non-gating)' : ''}`;
  return `${caseVerdict(c)}${sp}${ft}${notes}`;
}

/** The rows of the console table, as strings. */
export function consoleRows(results: ResultsFile): string[][] {
  return results.cases.map((c) => {
    if (c.status !== 'measured' || !c.timing || !c.speedup) {
      return [c.case, c.shape.label, c.status.toUpperCase(), '', c.reason ?? '', '', '', '', ''];
    }
    const err = Math.max(c.numerics?.unfused.maxAbsError ?? 0, c.numerics?.fused.maxAbsError ?? 0);
    return [
      c.case,
      c.shape.label,
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

/** Pads columns to a plain-text table. */
export function renderConsoleTable(results: ResultsFile): string {
  const rows = [CONSOLE_HEADER, ...consoleRows(results)];
  const widths = CONSOLE_HEADER.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]) =>
    r
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [fmt(CONSOLE_HEADER), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(fmt)].join('\n');
}
