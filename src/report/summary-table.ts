/**
 * The table BENCHMARK_RESULTS.md opens with: one row per case, shape and precision, and per GPU the
 * speedup with its 95% interval (the timing the gate judged), the fused kernel's share of its roofline
 * ceiling and the gate's verdict; then a line per GPU with its verdict counts and geometric-mean speedup.
 * Every string from a results file is escaped (escape.ts). Pure.
 */
import { speedup, times } from '../base/format.ts';
import { gatedTiming } from '../results/judged-timing.ts';
import type { CaseResult, ResultsFile } from '../results/results.ts';
import { caseVerdictLabel, countsLine, countVerdicts } from '../results/verdict.ts';
import { fusedShare } from './charts/roofline.ts';
import { type Inline, markdownTable, md, name, ours, trusted } from './escape.ts';
import { shareLabel } from './share-label.ts';

/** The three cells of one GPU for one key: speedup, share of the roofline ceiling, verdict. */
function gpuCells(c: CaseResult | undefined, run: ResultsFile): Inline[] {
  if (!c) return ['—', '—', trusted('not run')];
  const t = gatedTiming(c);
  return [
    trusted(t ? speedup(t.speedup, t.method === 'batched') : '—'),
    trusted(shareLabel(fusedShare(c, run.device), c.dtype)),
    trusted(caseVerdictLabel(c)),
  ];
}

/** "geometric-mean speedup 2.31x" over the measured, positive speedups, or nothing when there are none. */
function geometricMean(run: ResultsFile): string {
  const values = run.cases
    .map((c) => gatedTiming(c)?.speedup.estimate)
    .filter((v): v is number => v !== undefined && v > 0 && Number.isFinite(v));
  if (values.length === 0) return '';
  return `; geometric-mean speedup **${times(Math.exp(values.reduce((a, v) => a + Math.log(v), 0) / values.length))}**`;
}

/** The summary table of one or several GPUs' runs, with a counts line per GPU and what the columns mean. */
export function summaryTable(runs: ResultsFile[]): string {
  const keys = [...new Set(runs.flatMap((r) => r.cases.map((c) => c.key)))];
  const several = runs.length > 1;
  const header: Inline[] = [
    'Case',
    'Shape',
    'Precision',
    ...runs.flatMap((r) => {
      if (!several) return ours(['Speedup [95% CI]', 'Fused: share of roofline ceiling', 'Verdict']);
      const gpu = name(r.device.name);
      return [md`${gpu}: speedup [95% CI]`, md`${gpu}: fused share of roofline ceiling`, md`${gpu}: verdict`];
    }),
  ];
  const rows = keys.map((key) => {
    const first = runs.flatMap((r) => r.cases).find((c) => c.key === key) as CaseResult;
    return [
      first.title,
      first.shape.label,
      trusted(first.dtype),
      ...runs.flatMap((r) =>
        gpuCells(
          r.cases.find((c) => c.key === key),
          r,
        ),
      ),
    ];
  });
  const counts = runs.map((r) => {
    const n = r.cases.length;
    const gpu = several ? md`**${name(r.device.name)}:** ` : trusted('');
    return md`${gpu}${String(n)} shape${n === 1 ? '' : 's'}: ${trusted(countsLine(countVerdicts(r)))}${trusted(geometricMean(r))}.`
      .markdown;
  });
  const legend =
    '<sub>Speedup: median unfused / median fused time of the timing the gate judged (batched calls for ' +
    'launch-bound shapes), with its paired-bootstrap 95% interval. Share of roofline ceiling: the fused ' +
    "kernel's achieved flop rate over min(copy bandwidth × its arithmetic intensity, the matrix peak), from " +
    'one call per sample with the cache flushed; for a case without a flop model, its achieved bandwidth over ' +
    'the copy bandwidth. Verdict: the gate against the stored baseline of that GPU (`baselines/<gpu>.json`).</sub>';
  return [markdownTable(header, rows), '', ...counts, '', legend].join('\n');
}
