/**
 * The table `npm run perf` prints: one row per case and shape, within 120 columns by default (--wide: every
 * column). A row's medians and speedup are those of the timing the gate judged: batched calls, marked
 * "(batched)" beside the speedup, on the launch-bound shapes gated that way. What does not fit goes under
 * the table (console-summary.ts): why a case did not run, the timing a row does not show, the graph twins,
 * an injected regression. Verdicts are coloured only when asked (color.ts decides). Pure.
 */

import { labelledChange, ms, pct, sci, speedup, throughput, times } from '../base/format.ts';
import { asMeasured, type JudgedTiming, judgedTiming } from '../results/judged-timing.ts';
import type { MeasuredCase, ResultsFile } from '../results/results.ts';
import { caseVerdict, notGatingNote, verdictGates } from '../results/verdict.ts';
import { paintVerdict, ruledTable } from './color.ts';

/** Column headers of the console table with --wide. */
const WIDE_HEADER = [
  'case',
  'size',
  'dtype',
  'unfused',
  'fused',
  'speedup [95% CI]',
  'efficiency vs theoretical',
  'fused throughput',
  'max error',
  'verdict',
];

/** The columns shown by default, within 120 columns (the rest are in --wide and BENCHMARK_RESULTS.md). */
const NARROW_COLUMNS = [0, 1, 2, 3, 4, 5, 9];

/**
 * The gate's verdict, "(not gating)" when it does not gate; with `wide` also the change of each metric it decided
 * on and a re-measure: "SLOWER speedup −12.3%, fused time +14.0% (re-measured)".
 */
function verdictCell(c: ResultsFile['cases'][number], wide: boolean): string {
  const g = wide ? c.gate : undefined;
  const change = g ? labelledChange(g, false) : '';
  const notes = `${g?.remeasured ? ' (re-measured)' : ''}${notGatingNote(verdictGates(c))}`;
  return `${caseVerdict(c)}${change ? ` ${change}` : ''}${notes}`;
}

/** A console row's first cells: the case, size and precision, and the two medians of the timing `t`. */
export function timingCells(c: MeasuredCase, t: JudgedTiming): string[] {
  return [c.case, c.shape.label, c.dtype, ms(t.unfused.median), ms(t.fused.median)];
}

/** The rows of the console table, as strings; a case that did not run has only its verdict (its reason goes under the table). */
function consoleRows(results: ResultsFile, wide: boolean): string[][] {
  return results.cases.map((c) => {
    const m = asMeasured(c);
    if (!m) {
      return [c.case, c.shape.label, c.dtype, '', '', '', '', '', '', caseVerdict(c)];
    }
    const t = judgedTiming(m);
    const err = Math.max(c.numerics?.unfused.maxAbsError ?? 0, c.numerics?.fused.maxAbsError ?? 0);
    return [
      ...timingCells(m, t),
      speedup(t.speedup, t.method === 'batched'),
      `${pct(t.speedup.estimate / m.traffic.theoreticalSpeedup)} of ${times(m.traffic.theoreticalSpeedup)}`,
      throughput(rates(m, t)),
      sci(err),
      verdictCell(c, wide),
    ];
  });
}

/** The fused kernel's rates (stored for one call per sample) at the medians of the timing `t`. */
function rates(c: MeasuredCase, t: JudgedTiming): Parameters<typeof throughput>[0] {
  const fused = c.timing.fused.median / t.fused.median;
  const scaled = (v: number | undefined) => (v === undefined ? undefined : v * fused);
  return {
    fusedGBs: scaled(c.fusedGBs),
    fusedPctOfCopy: scaled(c.fusedPctOfCopy),
    fusedPctOfMatrixPeak: scaled(c.fusedPctOfMatrixPeak),
    ...(c.tflops
      ? {
          tflops: {
            fused: c.tflops.fused * fused,
            unfused: (c.tflops.unfused * c.timing.unfused.median) / t.unfused.median,
          },
        }
      : {}),
  };
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
  return ruledTable(rows, (r, c, s) => {
    const result = results.cases[r - 1];
    return r > 0 && c === verdictColumn && result ? paintVerdict(s, caseVerdict(result), color) : s;
  }).join('\n');
}
